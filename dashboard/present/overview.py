"""FundOverview: a fund's overview as data (sections of label, value, kind), built once from the
factsheet model; the explorer, the factsheet report and `fund show` only render it.

Values are plain text for people (numbers with units, names instead of codes, service text as
sent): each output escapes them its own way. It lives in `present`, not in `models`, because it is
written with the presentation rules of `present.text` (labels, units, the missing-value mark), and
models never import presentation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from dashboard.models.fund import fund_label, project_term
from dashboard.present.text import (STATUS_TONES, fmt_amount, fmt_date, fmt_number, fmt_percent, is_missing,
                                    policy_type_text, status_text, us_investors_text)
from dashboard.records.labels import TAX_INCENTIVE
from dashboard.records.successor import NOT_PUBLISHED_NOTE, not_published

# What a row's value is, so that each output can draw it (a link, Thai text, a muted note).
TEXT, THAI, LINK, UNPUBLISHED = "text", "thai", "link", "unpublished"
# The factsheet parts the overview is written from.
OVERVIEW_PARTS = ("suitability", "project_type", "redemption", "return_estimate", "urls", "investment", "classes")


@dataclass(frozen=True)
class OverviewRow:
    """One fact: our label, the value as text (None: missing), what kind of text it is, and an
    optional note (the service's own wording, usually Thai) shown beside it."""

    label: str
    value: str | None
    kind: str = TEXT
    note: str | None = None
    group: str | None = None  # rows of one unit class among several, e.g. "Class A"

    @property
    def text(self) -> str | None:
        """The value with its note, as one line of text ("value (note)")."""
        if self.value is None:
            return None
        return f"{self.value} ({self.note})" if self.note else self.value


@dataclass(frozen=True)
class OverviewSection:
    """A titled group of rows; `empty` says why there are none."""

    key: str
    title: str
    rows: tuple[OverviewRow, ...] = ()
    empty: str = ""


@dataclass(frozen=True)
class FundOverview:
    """The selected fund's overview: its title, names, status badges and sections."""

    proj_id: str
    title: str
    name_en: str | None = None
    name_th: str | None = None
    badges: tuple[tuple[str, str], ...] = ()  # (text, tone)
    sections: tuple[OverviewSection, ...] = field(default_factory=tuple)

    def section(self, key: str) -> OverviewSection | None:
        return next((s for s in self.sections if s.key == key), None)

    def rows(self) -> list[OverviewRow]:
        """Every row of every section, in order."""
        return [row for section in self.sections for row in section.rows]


def _value(value: Any) -> str | None:
    return None if is_missing(value) else str(value).strip()


def _date(value: Any) -> str | None:
    return None if is_missing(value) else fmt_date(value)


def _row(label: str, value: Any, kind: str = TEXT, note: Any = None, group: str | None = None) -> OverviewRow:
    return OverviewRow(label, _value(value), kind, _value(note), group)


def _published(record: Mapping | None, name: str, label: str, value: Any, kind: str = TEXT) -> OverviewRow:
    """A row, or the note that the answering service does not publish this field at all."""
    if not_published(record, name):
        return OverviewRow(label, NOT_PUBLISHED_NOTE, UNPUBLISHED)
    return _row(label, value, kind)


def _records(part: Any) -> list[dict]:
    if part is None:
        return []
    if isinstance(part, pd.DataFrame):
        return [{k: (None if is_missing(v) else v) for k, v in r.items()} for r in part.to_dict("records")]
    return [dict(r) for r in part]


def _labelled(record: Mapping, name: str) -> str | None:
    """A coded value by its English label, else as sent."""
    return _value(record.get(f"{name}_label_en")) or _value(record.get(name))


def _empty(errors: Mapping[str, str], part: str, what: str) -> str:
    reason = errors.get(part)
    return f"The {what} could not be loaded: {reason}" if reason else f"No {what} published for this fund."


def _registration(proj_id: str, fund: dict, ptype: dict, term: str, company: Callable[[Any], str | None]) -> OverviewSection:
    status = fund.get("fund_status")
    name, ident = fund.get("comp_name_en"), fund.get("unique_id")
    policy = fund.get("policy_desc") or ptype.get("policy_desc")
    master = fund.get("feederfund_master_fund")
    taxes = fund.get("tax_incentives") or []
    rows = [
        _row("Fund id", proj_id),
        _row("Registration no.", fund.get("regis_id")),
        _row("Registered", _date(fund.get("regis_date"))),
        *([_row("Cancelled", _date(fund.get("cancel_date")) or "not cancelled")] if fund else []),
        _row("Status", status_text(status), note=fund.get("fund_status_label_th")),
        _row("Company", f"{name} ({ident})" if not is_missing(name) and not is_missing(ident)
             else name if not is_missing(name) else company(ident)),
        _row("Offered to", _labelled(ptype, "proj_retail_type")),
        *([_row("Term", " ".join(p for p in (_labelled(ptype, "proj_term_flag"), f"({term})" if term else "") if p))]
          if ptype else []),
        *([_row("Policy", policy_type_text(policy))] if not is_missing(policy) else []),
        *([_row("Management style", _labelled(fund, "management_style"))] if not is_missing(fund.get("management_style")) else []),
        *([_row("Investment policy", fund.get("investment_policy"), THAI)] if not is_missing(fund.get("investment_policy")) else []),
        *([_row("Currency hedging", fund.get("exchange_rate_protection_policy"), THAI)]
          if not is_missing(fund.get("exchange_rate_protection_policy")) else []),
        *([_row("Tax incentive", ", ".join(TAX_INCENTIVE.get(t, ("", t))[1] for t in taxes))] if taxes else []),
        *([_row("Feeder fund of", master, THAI, note=fund.get("feederfund_country"))] if not is_missing(master) else []),
        _row("Foreign investment", _labelled(fund, "invest_country_flage")),
        _published(fund, "permit_us_investment", "US investors", us_investors_text(fund.get("permit_us_investment"))),
        _row("Last updated", _date(fund.get("last_upd_date"))),
    ]
    return OverviewSection("registration", "Registration", tuple(rows))


def _risk(suit: dict, errors: Mapping[str, str]) -> OverviewSection:
    if not suit:
        return OverviewSection("risk", "Risk and suitability",
                               empty=_empty(errors, "suitability", "risk level or suitability"))
    code, level, name = suit.get("risk_spectrum"), suit.get("risk_level_label"), suit.get("risk_spectrum_label_en")
    risk = None
    if not is_missing(code):
        words = _value(name) or (f"level {level} of 8" if not is_missing(level) else None)
        risk = f"{words} ({code})" if words else str(code)
    return OverviewSection("risk", "Risk and suitability", (
        _row("Risk level", risk),
        _row("About the risk", suit.get("risk_spectrum_desc"), THAI),
        _published(suit, "fund_suitable_desc", "Suits", suit.get("fund_suitable_desc"), THAI),
        _published(suit, "fund_not_suitable_desc", "Does not suit", suit.get("fund_not_suitable_desc"), THAI),
        _published(suit, "important_notice", "Warning", suit.get("important_notice"), THAI),
    ))


# Each minimum: our label, the amount's field, its currency's field (or "units") and its note's field.
MINIMUMS = (
    ("First purchase", "minimum_sub_ipo", "minimum_sub_ipo_cur", "minimum_sub_ipo_addi_desc"),
    ("Later purchases", "minimum_sub", "minimum_sub_cur", "minimum_sub_addi_desc"),
    ("Redemption", "minimum_redempt", "minimum_redempt_cur", "minimum_redempt_addi_desc"),
    ("Redemption units", "minimum_redempt_unit", "units", "minimum_redempt_unit_addi_desc"),
    ("Minimum balance", "lowbal_val", "lowbal_val_cur", None),
    ("Minimum balance units", "lowbal_unit", "units", None),
)


def _minimums(investment: list[dict], errors: Mapping[str, str]) -> OverviewSection:
    rows: list[OverviewRow] = []
    for n, r in enumerate(investment, 1):
        cls = r.get("class_abbr_name")
        group = (f"Class {cls}" if not is_missing(cls) else f"Entry {n} of {len(investment)}" if len(investment) > 1
                 else None)
        for label, name, unit, note in MINIMUMS:
            amount = None if is_missing(r.get(name)) else fmt_amount(r.get(name), unit if unit == "units" else r.get(unit))
            rows.append(_row(label, amount, note=r.get(note) if note else None, group=group))
    return OverviewSection("minimums", "Investment minimums", tuple(rows),
                           _empty(errors, "investment", "investment minimums"))


def dealing_period(red: Mapping) -> str | None:
    """How often units can be sold back: the period's English label, with the service's text for
    "other" (code 9) joined to it ("Other: every 1st business day")."""
    period = _labelled(red, "redemp_period")
    other = _value(red.get("redemp_period_oth"))
    if other and (str(red.get("redemp_period")) == "9" or period is None):
        return f"{period}: {other}" if period else other
    return period


def _redemption(red: dict, errors: Mapping[str, str]) -> OverviewSection:
    if not red:
        return OverviewSection("redemption", "Redemption", empty=_empty(errors, "redemption", "redemption terms"))
    period = dealing_period(red)
    as_sent = _value(red.get("redemp_period_text"))
    return OverviewSection("redemption", "Redemption", (
        _row("Dealing", period or as_sent, note=as_sent if period and as_sent != period else None),
        _row("Proceeds paid", red.get("settlement_period"), THAI),
        _published(red, "buying_cut_off_time", "Buying cut-off", red.get("buying_cut_off_time")),
        _published(red, "selling_cut_off_time", "Selling cut-off", red.get("selling_cut_off_time")),
    ))


def _estimate(ret: dict | None, unpublished: Mapping) -> OverviewSection | None:
    if "return_estimate" in unpublished:
        return OverviewSection("estimate", "Estimated return", (OverviewRow("Estimated return", NOT_PUBLISHED_NOTE, UNPUBLISHED),))
    if not ret:
        return None
    years, months = ret.get("investment_period_year"), ret.get("investment_period_month")
    horizon = ", ".join(p for p in (f"{fmt_number(years, 0)} years" if not is_missing(years) and years else "",
                                    f"{fmt_number(months, 0)} months" if not is_missing(months) and months else "") if p)

    def yearly(name: str) -> str | None:
        return None if is_missing(ret.get(name)) else f"{fmt_percent(ret.get(name))} a year"

    return OverviewSection("estimate", "Estimated return", (
        _row("Before expenses", yearly("total_estimated_return")),
        _row("Estimated expenses", yearly("annual_estimated_expense")),
        _row("Average return", yearly("annual_average_return")),
        _row("Over", horizon or None),
    ))


def _classes(classes: list[dict]) -> OverviewSection:
    rows = []
    for r in classes:
        notes = [_value(r.get("class_additional_desc")),
                 f"ISIN {r.get('fund_class_isin_code')}" if not is_missing(r.get("fund_class_isin_code")) else None,
                 TAX_INCENTIVE.get(r.get("tax_incentive"), ("", r.get("tax_incentive")))[1]
                 if not is_missing(r.get("tax_incentive")) else None]
        rows.append(_row(str(r.get("class_abbr_name") or "–"), r.get("class_name"), THAI,
                         note=" · ".join(n for n in notes if n) or None))
    title = f"Unit classes ({len(rows)})" if rows else "Unit classes"
    return OverviewSection("classes", title, tuple(rows), "A single-class fund (no unit classes listed).")


def _reports(urls: dict, errors: Mapping[str, str]) -> OverviewSection:
    if not urls:
        return OverviewSection("reports", "Reports", empty=_empty(errors, "urls", "report links"))
    return OverviewSection("reports", "Reports", (
        _row("Fund factsheet", urls.get("url_factsheet"), LINK),
        *([_row("On the company's website", urls.get("amc_url_factsheet"), LINK)]
          if not is_missing(urls.get("amc_url_factsheet")) else []),
        _published(urls, "url_annual_report", "Annual report", urls.get("url_annual_report"), LINK),
        _published(urls, "url_halfyear_report", "Half-year report", urls.get("url_halfyear_report"), LINK),
    ))


def build_overview(proj_id: str, fund: Mapping | None, parts: Mapping[str, Any], *,
                   unpublished: Mapping | None = None, errors: Mapping[str, str] | None = None,
                   company: Callable[[Any], str | None] | None = None) -> FundOverview:
    """The overview from a factsheet's parts (`FundFactsheet` parameters, or the `fund show --json`
    object: list parts may be frames or lists of records). `company` names a company from its id
    when the fund record does not (the dashboard knows more records than this fund's)."""
    fund = dict(fund or {})
    unpublished, errors = unpublished or {}, errors or {}
    company = company or (lambda ident: _value(ident))
    suit = dict(parts.get("suitability") or {})
    ptype = dict(parts.get("project_type") or {})
    badges = []
    if not is_missing(fund.get("fund_status")):
        badges.append((status_text(fund.get("fund_status")), STATUS_TONES.get(str(fund.get("fund_status")), "")))
    if suit.get("risk_spectrum"):
        badges.append((f"Risk level {suit.get('risk_level_label') or suit.get('risk_spectrum')}", "warn"))
    sections = [
        _registration(proj_id, fund, ptype, project_term(ptype), company),
        _risk(suit, errors),
        _minimums(_records(parts.get("investment")), errors),
        _redemption(dict(parts.get("redemption") or {}), errors),
        _estimate(parts.get("return_estimate"), unpublished),
        _classes(_records(parts.get("classes"))),
        _reports(dict(parts.get("urls") or {}), errors),
    ]
    return FundOverview(proj_id, fund_label(fund, proj_id), _value(fund.get("proj_name_en")), _value(fund.get("proj_name_th")),
                        tuple(badges), tuple(s for s in sections if s is not None))


def fund_overview(sheet: Any, *, company: Callable[[Any], str | None] | None = None) -> FundOverview:
    """The overview of a loaded `FundFactsheet`."""
    return build_overview(sheet.proj_id, sheet.fund, {part: getattr(sheet, part) for part in OVERVIEW_PARTS},
                          unpublished=sheet.unpublished, errors=sheet.errors, company=company)


def distinct_groups(rows: Iterable[OverviewRow]) -> list[str | None]:
    """The groups of these rows in order (None for rows of no class)."""
    return list(dict.fromkeys(row.group for row in rows))

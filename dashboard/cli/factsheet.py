"""`fund show` as readable sections: what the answering service does not publish is said so."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.cli.output import FIELD_WIDTH, print_fields
from dashboard.cli.terminal import MONEY_FIELDS, PERCENT_FIELDS, baht, cell, out, percent, plain, table_lines, terminal_text
from dashboard.records.successor import NOT_PUBLISHED_NOTE, not_published


def _section(title: str) -> None:
    out("")
    out(title.upper())


def _line(label: str, value: object, *, record: object = None, field: str = "") -> None:
    text = NOT_PUBLISHED_NOTE if field and not_published(record, field) else value
    text = terminal_text(cell(field, text) if not isinstance(text, str) else text, single_line=True, limit=FIELD_WIDTH)
    out(f"  {label:<22}{text or '-'}")


def _table(records: list, columns: Sequence[str], headers: Sequence[str], **formatters) -> None:
    right = [i for i, c in enumerate(columns) if c in PERCENT_FIELDS or c in MONEY_FIELDS]
    shown = {**{c: (lambda r, c=c: cell(c, r.get(c))) for c in columns}, **formatters}
    for line in table_lines([[shown[c](r) for c in columns] for r in records], headers, right=right):
        out(f"  {line}")


def _labelled(record: dict | None, field: str) -> str:
    """A coded value as its English meaning with the code beside it."""
    record = record or {}
    code, label = record.get(field), record.get(f"{field}_label_en")
    if label and code not in (None, "") and str(code) != str(label):
        return f"{plain(label)} ({plain(code)})"
    return plain(label or code)


def _class_name(record: dict) -> str:
    return plain(record.get("class_abbr_name")) or "whole fund"


def print_factsheet(data: dict, unpublished: dict[str, list[str]] | None = None) -> None:
    """The factsheet as readable sections; what the answering service does not publish is said so."""
    unpublished = unpublished or {}
    fund = data.get("fund") or {}
    _section("fund")
    _line("fund", " ".join(plain(fund.get(k)) for k in ("proj_abbr_name", "proj_name_en") if fund.get(k))
          or data["proj_id"])
    _line("Thai name", fund.get("proj_name_th"))
    _line("project id", data["proj_id"])
    company = fund.get("comp_name_en") or fund.get("comp_name_th")
    _line("company", f"{plain(company)} ({plain(fund.get('unique_id'))})" if company else fund.get("unique_id"))
    _line("status", _labelled(fund, "fund_status"))
    _line("registered", " ".join(plain(fund.get(k)) for k in ("regis_date", "regis_id") if fund.get(k)))
    if fund.get("cancel_date"):
        _line("cancelled", fund.get("cancel_date"))
    _line("invests abroad", _labelled(fund, "invest_country_flage"))
    project = data.get("project_type") or {}
    _line("offered to", _labelled(project, "proj_retail_type"))
    _line("term", _labelled(project, "proj_term_flag"))
    if fund.get("tax_incentives"):
        _line("tax incentive", fund.get("tax_incentives"))
    _line("US investors", fund.get("permit_us_investment"), record=fund, field="permit_us_investment")
    classes = data.get("classes") or []
    if classes:
        _line("unit classes", ", ".join(plain(c.get("class_abbr_name")) for c in classes))

    suit = data.get("suitability") or {}
    _section("risk")
    _line("risk level", f"{plain(suit.get('risk_level_label'))} ({plain(suit.get('risk_spectrum'))})"
          if suit.get("risk_level_label") else suit.get("risk_spectrum"))
    _line("risk", suit.get("risk_spectrum_desc"))
    for field, label in (("fund_suitable_desc", "suits"), ("fund_not_suitable_desc", "does not suit"),
                         ("important_notice", "important notice")):
        _line(label, suit.get(field), record=suit, field=field)

    _section("fees by class")
    fees = data.get("fees") or []
    if fees:
        _table(fees, ["class_abbr_name", "fee_type_desc", "rate_num", "actual_value_num"],
               ["class", "fee", "rate (%)", "charged (%)"], class_abbr_name=_class_name,
               fee_type_desc=lambda r: plain(r.get("fee_type_en") or r.get("fee_type_desc") or r.get("fee_type_th")))
        total = data.get("total_annual_fee")
        out(f"  total annual fee charged: {percent(total)} %" if total is not None else
            "  total annual fee charged: - (no total or management, trustee and registrar line published)")
    else:
        out("  -")

    _section("allocation")
    allocation = data.get("allocation") or []
    if allocation:
        _table(allocation, ["asset_name", "asset_ratio"], ["asset", "share (%)"])
    else:
        out("  -")

    holdings = data.get("holdings") or {}
    latest = next(iter(holdings), None)
    _section(f"holdings {latest}, top 10" if latest else "holdings")
    if latest:
        rows = [r for r in holdings[latest] if not r.get("is_nav_total")]
        rows.sort(key=lambda r: -(r.get("percent_nav") or 0))
        total = next((r for r in holdings[latest] if r.get("is_nav_total")), None)
        _table(rows[:10], ["issuer", "issue_code", "assetliab_desc", "assetliab_value", "percent_nav"],
               ["issuer", "issue", "asset type", "value (baht)", "% of NAV"])
        if total:
            out(f"  net asset value {baht(total.get('assetliab_value'))} baht; quarters with data: {', '.join(holdings)}")
    else:
        out("  -")

    _section("performance (%)")
    _print_performance(data.get("performance") or [])

    redemption = data.get("redemption") or {}
    _section("redemption")
    _line("dealing", redemption.get("redemp_period_label_en") or redemption.get("redemp_period_text")
          or redemption.get("redemp_period_oth") or redemption.get("redemp_period"))
    _line("settlement", redemption.get("settlement_period"))
    _line("buying cut-off", redemption.get("buying_cut_off_time"), record=redemption, field="buying_cut_off_time")
    _line("selling cut-off", redemption.get("selling_cut_off_time"), record=redemption, field="selling_cut_off_time")

    _section("minimums (baht)")
    investment = data.get("investment") or []
    if investment:
        _table(investment, ["class_abbr_name", "minimum_sub_ipo", "minimum_sub", "minimum_redempt", "lowbal_val"],
               ["class", "first purchase", "next purchase", "redemption", "lowest balance"], class_abbr_name=_class_name)
    else:
        out("  -")

    estimate = data.get("return_estimate")
    if estimate or "return_estimate" in unpublished:
        _section("estimated return")
        if estimate:
            print_fields(estimate, indent="  ")
        else:
            out(f"  {NOT_PUBLISHED_NOTE}")

    urls = data.get("urls") or {}
    _section("reports")
    for field, label in (("url_factsheet", "factsheet"), ("amc_url_factsheet", "company's factsheet"),
                         ("url_halfyear_report", "half-year report"), ("url_annual_report", "annual report")):
        if field in urls:
            _line(label, urls.get(field), record=urls, field=field)


def _print_performance(rows: list[dict]) -> None:
    """Performance as one line per class and measure, one column per period."""
    if not rows:
        out("  -")
        return
    periods = sorted({(r.get("reference_period_order") or 99, plain(r.get("reference_period_label_en")
                                                                       or r.get("reference_period"))) for r in rows})
    names = [name for _, name in dict.fromkeys(periods)]
    lines: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        measure = plain(r.get("performance_kind_label_en") or r.get("performance_type_desc"))
        period = plain(r.get("reference_period_label_en") or r.get("reference_period"))
        lines.setdefault((_class_name(r), measure), {})[period] = percent(r.get("performance_val"))
    grid = [[cls, measure, *(values.get(n, "") for n in names)] for (cls, measure), values in lines.items()]
    for line in table_lines(grid, ["class", "measure", *names], right=range(2, 2 + len(names)), limit=30):
        out(f"  {line}")

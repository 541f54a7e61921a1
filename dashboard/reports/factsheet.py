"""The one-fund factsheet report: overview, allocation, holdings and their changes, fees, performance, risk,
and, when a market snapshot exists, the fund's fee and risk level against its peers."""

from __future__ import annotations

import logging
import re
import urllib.parse
from datetime import datetime
from typing import Any

import pandas as pd

from dashboard.api.sync import SecClient
from dashboard.errors import BadInputError
from dashboard.market import queries
from dashboard.market import status as market_status
from dashboard.market.store import MarketStore, open_reader
from dashboard.models.factsheet import FundFactsheet
from dashboard.models.fund import PERFORMANCE_KINDS, SINGLE_CLASS, class_key, fund_label
from dashboard.models.holdings import HoldingsByQuarter, nav_total_mask
from dashboard.models.source import run
from dashboard.present import charts, risk_charts
from dashboard.present.overview import LINK, OverviewRow, distinct_groups, fund_overview
from dashboard.present.text import asset_name_text, asset_type_text, policy_type_text
from dashboard.records.labels import PERFORMANCE_KIND, label
from dashboard.records.successor import NOT_PUBLISHED_NOTE, not_published
from dashboard.reports.blocks import Caution, Column, Heading, Link, Note, Table, key_values, num_col, pct_col, table, text_block
from dashboard.reports.document import ReportDocument, Section
from dashboard.reports.embed import safe_chart
from dashboard.reports.nav import nav_section
from dashboard.present.text import distinct_dates, fmt_date, fmt_datetime, fmt_number, fmt_percent, fmt_period, fmt_signed, is_missing, latest_update

log = logging.getLogger("dashboard.reports")

VOLATILITY_KINDS = ("fund_volatility", "benchmark_volatility")
CHANGES_SHOWN = 40


def part_note(sheet: FundFactsheet, part: str, what: str) -> Note | Caution:
    """Why a part is empty: it failed (with the reason) or the service publishes nothing (the model's status)."""
    status = sheet.part_status(part)
    if status is not None and status.failed:
        return Caution(f"The {what} could not be loaded: {status.reason}")
    return Note(f"Not published: the service has no {what} for this fund.")


def figures_table(sheet: FundFactsheet, class_name: str, kinds=PERFORMANCE_KINDS, **options) -> Table | Note:
    """One class's figures of these kinds: a row per period with any figure, a column per kind with any."""
    wide = sheet.performance_table(class_name)
    shown = [k for k in kinds if wide[k].notna().any()]
    wide = wide.dropna(how="all", subset=shown) if shown else wide.iloc[0:0]
    return table(wide, [Column("Period", "period"), *(pct_col(PERFORMANCE_KIND[k][1].capitalize(), k) for k in shown)],
                 **options)


def link_or_text(url: object, *, demo: bool) -> Link | None:
    """A report link: a link only for a real http(s) address outside demo mode, else the address as code."""
    if is_missing(url):
        return None
    text = str(url).strip()
    try:
        scheme = urllib.parse.urlsplit(text).scheme.lower()
    except ValueError:
        scheme = ""
    return Link(text, None if demo or scheme not in ("http", "https") else text)


def _label_pair(record: dict | None, field: str) -> str | None:
    if not record:
        return None
    en, th = record.get(f"{field}_label_en"), record.get(f"{field}_label_th")
    code = record.get(field)
    if en and th:
        return f"{en} ({th})"
    return en or th or code


def _pub(record: dict | None, field: str, value: Any) -> Any:
    """The value, or the note that the answering service does not publish this field at all."""
    return NOT_PUBLISHED_NOTE if not_published(record, field) else value


def _overview_value(row: OverviewRow, *, demo: bool) -> Any:
    return link_or_text(row.value, demo=demo) if row.kind == LINK and row.value is not None else row.text


def _overview(doc: ReportDocument, sheet: FundFactsheet) -> None:
    """The overview the dashboard shows (`present.overview`), a table of labelled values per part."""
    sec = doc.section("overview", "Overview")
    if not sheet.fund:
        sec.add(Note("The fund record (name, status, company) was not found; the facts below come from the factsheet parts."))
    overview = fund_overview(sheet)
    for part in overview.sections:
        sec.add(Heading(part.title))
        if not part.rows:
            sec.add(Note(part.empty))
        for group in distinct_groups(part.rows):
            sec.add(key_values([(r.label, _overview_value(r, demo=doc.settings.demo)) for r in part.rows if r.group == group],
                               caption=group or ""))


def _allocation(doc: ReportDocument, sheet: FundFactsheet, name: str) -> None:
    sec = doc.section("allocation", "Asset allocation")
    alloc = sheet.allocation
    if alloc is None or alloc.empty:
        sec.add(part_note(sheet, "allocation", "asset allocation"))
        return
    doc.chart(sec, safe_chart(charts.allocation_chart, alloc, title=f"Asset allocation, {name}"), "Asset allocation")
    sec.add(table(alloc.sort_values("asset_seq"), [
        Column("#", "asset_seq", numeric=True), Column("Asset", lambda r: asset_name_text(r.get("asset_name"))),
        pct_col("Share of NAV", "asset_ratio"),
    ], caption=charts.allocation_caption(alloc)))


def _holdings(doc: ReportDocument, sheet: FundFactsheet, holdings: HoldingsByQuarter) -> None:
    sec = doc.section("holdings", "Latest holdings")
    quarters = sheet.periods_with_data
    period = quarters[0] if quarters else None
    failed = [k for k in sheet.errors if k.startswith("holdings")]
    if period is None:
        if failed:
            sec.add(Caution(f"Holdings could not be loaded for {len(failed)} quarter(s): {sheet.errors[failed[0]]}"))
        sec.add(Note("Not published: the service has no portfolio holdings for this fund in the last "
                     f"{len(sheet.periods)} quarters."))
        return
    if sheet.holdings_note:
        sec.add(Note(sheet.holdings_note))
    lines = holdings.table(period)
    raw = sheet.holdings[period]
    nav_lines = int(nav_total_mask(raw).sum())
    total = holdings.total_percent(period)
    sec.add(Note(
        f"{fmt_period(period)}: {len(lines)} holdings adding up to {fmt_percent(total)} of NAV as published "
        "(rounding can take the sum above 100 %, and feeder funds can exceed it further)."
        + (f" {nav_lines} NAV-total line(s) (asset code 903) are not counted as holdings." if nav_lines else "")
    ))
    if failed:
        sec.add(Caution(f"{len(failed)} quarter(s) could not be loaded: {sheet.errors[failed[0]]}"))
    doc.chart(sec, safe_chart(charts.top_holdings_bars, holdings.top(period, 15), period), "Top holdings")
    # The current service names each asset type in Thai beside its code (assetliab_desc); legacy sends the code only.
    descriptions = {str(c): d for c, d in zip(raw.get("assetliab_id", []), raw.get("assetliab_desc", [])) if not is_missing(d)} \
        if "assetliab_desc" in raw else {}
    sec.add(table(lines, [
        Column("Holding", "security"), Column("Issuer", "issuer"), Column("ISIN", "isin_code"),
        Column("Asset type", lambda r: asset_type_text(r.get("assetliab_id"), descriptions.get(str(r.get("assetliab_id"))))),
        num_col("Market value, baht", "assetliab_value"),
        pct_col("% of NAV", "percent_nav", 3),
    ], caption=f"All holdings, {fmt_period(period)}, largest first", css_id="holdings-table"))


def _changes(doc: ReportDocument, holdings: HoldingsByQuarter) -> None:
    sec = doc.section("changes", "Holdings changes")
    quarters = holdings.factsheet.periods_with_data
    if len(quarters) < 2:
        sec.add(Note("Not enough published quarters to show changes (two are needed)."))
        return
    doc.chart(sec, safe_chart(charts.holdings_heatmap, holdings.weights()), "Holding weights by quarter")
    start, end = quarters[1], quarters[0]
    changes = holdings.changes(start, end)
    counts = holdings.change_counts(start, end)
    sec.add(Note(f"From {fmt_period(start)} to {fmt_period(end)}: "
                          + ", ".join(f"{n} {kind}" for kind, n in counts.items())))
    doc.chart(sec, safe_chart(charts.holdings_changes_bars, changes, start, end), "What changed")
    moved = changes[changes["change"].astype(str) != "unchanged"]
    moved = moved.reindex(moved["change_pp"].abs().sort_values(ascending=False).index).head(CHANGES_SHOWN)
    sec.add(table(moved, [
        Column("Holding", "security"), Column("Issuer", "issuer"), Column("Change", lambda r: str(r["change"])),
        pct_col(f"Weight {fmt_period(start)}", "weight_from", 3), pct_col(f"Weight {fmt_period(end)}", "weight_to", 3),
        Column("Change, pp", "change_pp", lambda v: fmt_signed(v, 3), numeric=True),
    ], caption=f"The {CHANGES_SHOWN} largest moves" if len(moved) == CHANGES_SHOWN else "Every move",
        empty="Nothing changed between the two quarters."))


def _with_unit(value: object, unit: object) -> str | None:
    """A free-text fee and its unit as one cell ("1.605 % ต่อปีของ NAV"); the text is the service's own."""
    if is_missing(value):
        return None
    # A unit only makes sense after a figure: "ยกเว้น" (waived) stays as it is.
    return f"{value} {unit}" if not is_missing(unit) and re.search(r"\d", str(value)) else str(value)


def fee_columns(with_fund: bool) -> list[Column]:
    cols = [Column("Fund", "fund")] if with_fund else []
    return cols + [
        Column("Class", "class_abbr_name", nowrap=True),
        Column("Fee type", lambda r: r.get("fee_type_en") if not is_missing(r.get("fee_type_en")) else r.get("fee_type_desc")),
        Column("Fee type (Thai)", "fee_type_th"),
        Column("Prospectus ceiling", lambda r: _with_unit(r.get("rate"), r.get("rate_unit"))),
        Column("Actually charged", lambda r: _with_unit(r.get("actual_value"), r.get("actual_value_unit"))),
        Column("Remark", "fee_other_desc"),
    ]


def fee_charts_and_table(doc: ReportDocument, sec: Section, charted: pd.DataFrame, listed: pd.DataFrame, *,
                         with_fund: bool, caption: str) -> None:
    """What is charged and the prospectus ceilings charted apart (never compared), then every fee as published."""
    doc.chart(sec, safe_chart(charts.fee_bars, charted, value="actual_value_num"), "Fees actually charged")
    doc.chart(sec, safe_chart(charts.fee_bars, charted, value="rate_num"), "Prospectus fee ceilings")
    sec.add(table(listed, fee_columns(with_fund), caption=caption, css_id="fees-table"))


def _fees(doc: ReportDocument, sheet: FundFactsheet, name: str) -> None:
    sec = doc.section("fees", "Fees")
    fees = sheet.fees
    if fees is None or fees.empty:
        sec.add(part_note(sheet, "fees", "fees"))
        return
    frame = fees.assign(fund=name)
    sec.add(Note("The prospectus ceiling and what is actually charged are shown apart and never "
                 "compared with each other."))
    if "rate_unit" in sheet.unpublished.get("fees", []):
        sec.add(Note(f"Fee units (for example % a year of net asset value): {NOT_PUBLISHED_NOTE}."))
    fee_charts_and_table(doc, sec, frame, frame, with_fund=False, caption="Fees as the service publishes them (free text)")


def _performance(doc: ReportDocument, sheet: FundFactsheet) -> None:
    sec = doc.section("performance", "Performance")
    perf = sheet.performance
    if perf is None or perf.empty:
        sec.add(part_note(sheet, "performance", "past performance"))
        return
    as_of = distinct_dates(r.get("as_of_date") for r in sheet.records.get("performance") or [])
    if as_of:
        sec.add(Note(f"Figures as of {', '.join(as_of)}. Past performance does not guarantee future results."))
    classes = list(dict.fromkeys(class_key(perf)))
    for class_name in classes:
        if len(classes) > 1 or class_name != SINGLE_CLASS:
            sec.add(Heading(f"Class {class_name}"))
        doc.chart(sec, safe_chart(charts.performance_bars, perf, class_name), f"Performance {class_name}")
        sec.add(figures_table(sheet, class_name, empty="No figures for this class."))


def _risk(doc: ReportDocument, sheet: FundFactsheet) -> None:
    sec = doc.section("risk", "Risk")
    suit = sheet.suitability
    if not suit:
        sec.add(part_note(sheet, "suitability", "risk level or suitability texts"))
        return
    risk = sheet.risk_frame()  # the frame the shared chart is written for
    level = suit.get("risk_level_label")
    sec.add(key_values([
        ("Risk level", f"{level} of 8 ({suit.get('risk_spectrum')})" if level else suit.get("risk_spectrum")),
        ("Label", _label_pair(suit, "risk_spectrum")),
    ]))
    doc.chart(sec, safe_chart(risk_charts.risk_spectrum_chart, risk), "Risk spectrum")
    for heading, key in (("Risk description", "risk_spectrum_desc"), ("Suits", "fund_suitable_desc"),
                         ("Does not suit", "fund_not_suitable_desc"), ("Important notice", "important_notice")):
        sec.add(Heading(heading))
        sec.add(text_block(_pub(suit, key, suit.get(key))))
    perf = sheet.performance
    if perf is not None and not perf.empty:
        vol = perf[perf["performance_kind"].isin(["fund_volatility", "benchmark_volatility"])]
        if not vol.empty:
            first_class = class_key(vol).iloc[0]
            sec.add(Heading("Volatility" + ("" if first_class == SINGLE_CLASS else f" (class {first_class})")))
            sec.add(figures_table(sheet, first_class, VOLATILITY_KINDS))


def market_reader(settings: Any) -> MarketStore | None:
    """The published market snapshot of these settings, or None when there is none (or it cannot be read:
    the report then simply says nothing about the market)."""
    try:
        reader = open_reader(settings)
    except Exception as exc:  # noqa: BLE001 - a report never fails for want of the optional market context
        log.info("no market context for the report: %s", exc)
        return None
    try:
        if reader.has_snapshot():
            return reader
    except Exception as exc:  # noqa: BLE001 - as above
        log.info("no market context for the report: %s", exc)
    reader.close()
    return None


def _snapshot_day(store: MarketStore) -> str | None:
    stamps = [d.get("fetched_at") for d in market_status.status(store)["datasets"].values() if d.get("fetched_at")]
    return fmt_date(max(stamps)[:10]) if stamps else None


def _market(doc: ReportDocument, store: MarketStore, proj_id: str) -> None:
    """The fund's total annual fee (as charged) and risk level against the funds of its policy type."""
    sec = doc.section("market", "Market context")
    place = queries.fee_percentile(store, proj_id)
    if place is None:
        sec.add(Note("This fund is not in the market snapshot (run `sec-dashboard market sync` to refresh it)."))
        return
    policy = place.get("policy_type")
    if is_missing(policy):
        sec.add(Note("The market snapshot has no policy type for this fund, so it has no peers to compare with."))
        return
    day = _snapshot_day(store)
    sec.add(Note(f"Peers are the funds of the same policy type ({policy_type_text(policy)}) in the market snapshot"
                 + (f" of {day}" if day else "") + ". Fees are the total a year as actually charged, "
                 "never the prospectus ceilings."))
    pairs: list[tuple[str, Any]] = [("Policy type", policy_type_text(policy))]
    fee, peers = place.get("total_fee_actual"), place.get("peers") or 0
    if fee is None or place.get("percentile") is None:
        pairs.append(("Total annual fee, as charged", "not published for this fund"))
    else:
        cheaper, same = place.get("cheaper") or 0, place.get("same") or 0
        pairs += [
            ("Total annual fee, as charged", f"{fmt_percent(fee)} a year"),
            ("Against its peers", f"{cheaper} of {peers - 1} peers charge less, {peers - cheaper - same} charge more "
                                  f"(percentile {fmt_number(place['percentile'], 0)}; low is cheap)"),
        ]
    spread = next((r for r in queries.fees_by_policy(store) if r.get("policy_type") == policy), None)
    if spread and spread.get("funds"):
        pairs.append(("Peers' fees: lowest / median / highest",
                      " / ".join(fmt_percent(spread.get(k)) for k in ("min", "median", "max"))
                      + f" ({spread['funds']} funds)"))
    levels = [r for r in queries.risk_spectrum(store) if r.get("policy_type") == policy and r.get("risk_rank") is not None]
    risk = next((r.get("risk_spectrum") for r in queries.screen(store) if r.get("proj_id") == proj_id), None)
    rank = next((r["risk_rank"] for r in levels if r.get("risk_spectrum") == risk), None)
    if rank is None:
        pairs.append(("Risk level", "not published for this fund"))
    else:
        lower = sum(r["funds"] for r in levels if r["risk_rank"] < rank)
        higher = sum(r["funds"] for r in levels if r["risk_rank"] > rank)
        same_level = sum(r["funds"] for r in levels if r["risk_rank"] == rank) - 1
        level = "8+" if risk in ("RS81", "RS8+") else rank
        pairs += [("Risk level", f"{risk} (level {level} of 8)"),
                  ("Peers at a lower / the same / a higher risk level", f"{lower} / {same_level} / {higher}")]
    sec.add(key_values(pairs))
    if levels:
        sec.add(table(levels, [
            Column("Risk level", "risk_spectrum"), Column("Funds of this policy type", "funds", numeric=True),
            Column("", lambda r: "this fund" if r.get("risk_spectrum") == risk else ""),
        ], caption=f"Risk levels of the funds of policy type {policy_type_text(policy)}", css_id="market-risk-table"))


def _siblings(doc: ReportDocument, store: MarketStore, proj_id: str) -> None:
    """A feeder's sibling feeders (market.feeders.siblings): the overview's section, then the table side by side;
    nothing for a fund that is not a feeder."""
    from dashboard.market.feeders import siblings
    from dashboard.present.siblings import SIBLING_COLUMNS, matched_text, siblings_section, siblings_summary

    try:
        data = siblings(store, proj_id)
    except BadInputError:
        return  # not a feeder (or not in the snapshot): nothing to say
    abbr = next((r["proj_abbr_name"] for r in store.query("SELECT proj_abbr_name FROM funds WHERE proj_id = ?",
                                                          [proj_id])), None) or proj_id
    sec = doc.section("siblings", "Sibling feeders (the same master fund)")
    if data.get("master") is None:
        sec.add(Note(siblings_summary(data, abbr)[0]))
        return
    sec.add(key_values([(r.label, r.value) for r in siblings_section(data, abbr).rows]))
    sec.add(Note("Fees charged beside their ceilings, never mixed. Total returns from the stored NAVs (distributions "
                 "reinvested); a difference against the cheapest sibling is measured on the days both have a NAV."))
    if not data["rows"]:
        return
    percent = {"total_expense", "total_expense_ceiling", "front_fee", "front_fee_ceiling", "back_fee",
               "back_fee_ceiling", "total_return_1y", "total_return_3y_ann", "volatility_1y"}
    from dashboard.present.text import column_title

    columns = [Column("Fund", "proj_abbr_name"), Column("Unit class", lambda r: r.get("class") or "(only class)"),
               Column("", lambda r: " · ".join(w for f, w in (("is_fund", "this fund"), ("is_cheapest", "cheapest"))
                                              if r.get(f)))]
    for name in SIBLING_COLUMNS[2:]:
        if name == "matched_by":
            columns.append(Column(column_title(name), lambda r: matched_text(r.get("matched_by"))))
        elif name in percent:
            columns.append(pct_col(column_title(name), name))
        elif name.startswith("diff_"):
            columns.append(Column(column_title(name), name, lambda v: fmt_signed(v, 2), numeric=True))
        else:
            columns.append(Column(column_title(name), name))
    sec.add(table(data["rows"], columns, caption="Every unit class of every fund feeding the same master",
                  css_id="siblings-table"))


def factsheet_document(client: SecClient, proj_id: str, *, fund: dict | None = None,
                       generated_at: datetime | None = None, market: MarketStore | None = None) -> ReportDocument:
    """The factsheet report of one fund. `market`: the market store to put the fund in context; None reads
    the published snapshot of the client's settings when one exists (no snapshot: no market section)."""
    sheet = FundFactsheet(client=client)
    run(sheet.load(proj_id, fund=fund))
    if not sheet.has_data():
        raise BadInputError(f"the service has no data for fund {proj_id}: check the project id")
    fund = sheet.fund or {}
    name = fund_label(fund, proj_id)
    holdings = HoldingsByQuarter(factsheet=sheet)

    doc = ReportDocument(client.settings, title=f"Fund factsheet: {name}", kind="factsheet", generated_at=generated_at)
    status = label("fund_status", fund.get("fund_status"), "en")
    company = fund.get("comp_name_en") if not is_missing(fund.get("comp_name_en")) else fund.get("unique_id") and f"company {fund.get('unique_id')}"
    doc.subtitle = " · ".join(str(p) for p in (proj_id, status, company) if p)
    doc.names = [(lang, fund.get(key)) for lang, key in (("th", "proj_name_th"), ("en", "proj_name_en")) if fund.get(key)]

    quarters = sheet.periods_with_data
    period = quarters[0] if quarters else None
    if period:
        raw = sheet.holdings[period]
        as_of = distinct_dates(raw["as_of_date"].dropna())
        doc.fact("holdings-as-of", "Holdings as of", f"{fmt_period(period)}" + (f" (as of {', '.join(as_of)})" if as_of else "")
                 + (f"; {sheet.holdings_note}" if sheet.holdings_note else ""))
    else:
        doc.fact("holdings-as-of", "Holdings as of", "no holdings published")
    perf_as_of = distinct_dates(r.get("as_of_date") for r in sheet.records.get("performance") or [])
    doc.fact("performance-as-of", "Performance as of", ", ".join(perf_as_of) or "not published")
    doc.fact("last-updated", "Data last updated", fmt_datetime(latest_update(sheet.records, sheet.fund)))
    if sheet.stale:
        doc.header_notes.append(Caution("Some parts were served from an expired cache copy because the service failed."))
    failed = {k: v for k, v in sheet.errors.items() if not k.startswith("holdings")}
    if failed:
        doc.header_notes.append(Caution("Parts that could not be loaded: " + "; ".join(f"{k}: {v}" for k, v in failed.items())))

    _overview(doc, sheet)
    _allocation(doc, sheet, name)
    _holdings(doc, sheet, holdings)
    _changes(doc, holdings)
    _fees(doc, sheet, name)
    _performance(doc, sheet)
    nav_section(doc, client, proj_id, (sheet.records or {}).get("performance"))
    _risk(doc, sheet)
    store = market if market is not None else market_reader(client.settings)
    if store is not None:
        try:
            _market(doc, store, proj_id)
            _siblings(doc, store, proj_id)
        finally:
            if market is None:
                store.close()
    return doc

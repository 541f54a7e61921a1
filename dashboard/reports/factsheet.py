"""The one-fund factsheet report: overview, allocation, holdings and their changes, fees, performance, risk."""

from __future__ import annotations

import html
import re
import urllib.parse
from datetime import datetime
from typing import Any

import holoviews as hv
import pandas as pd

from dashboard.api.client import SecClient
from dashboard.errors import BadInputError
from dashboard.models.factsheet import LIST_PARTS, OBJECT_PARTS, FundFactsheet
from dashboard.models.holdings import HoldingsByQuarter
from dashboard.records.labels import PERFORMANCE_KIND, label
from dashboard.records.successor import NOT_PUBLISHED_NOTE, not_published
from dashboard.reports.document import (
    Column,
    ReportDocument,
    distinct_dates,
    esc,
    fmt_date,
    fmt_datetime,
    fmt_number,
    fmt_percent,
    fmt_period,
    fmt_signed,
    html_table,
    is_missing,
    key_value_table,
    latest_update,
    note,
    num_col,
    pct_col,
    safe_chart,
    text_block,
    warning,
)
from dashboard.present import charts
from dashboard.present.text import asset_name_text, asset_type_text, currency_word, us_investors_text

PERFORMANCE_COLUMNS = ("fund_return", "benchmark_return", "peer_average", "fund_volatility", "benchmark_volatility")
CHANGES_SHOWN = 40


def fund_label(fund: dict | None, proj_id: str) -> str:
    return (fund or {}).get("proj_abbr_name") or proj_id


def part_note(errors: dict, part: str, what: str) -> str:
    """Why a part is empty: it failed (with the reason) or the service publishes nothing."""
    if part in errors:
        return warning(f"The {what} could not be loaded: {errors[part]}")
    return note(f"Not published: the service has no {what} for this fund.")


def performance_bars_fallback(performance: pd.DataFrame, class_name: str | None = None) -> hv.Element:
    """The shared `performance_bars` with a non-empty series label (HoloViews refuses an empty one)."""
    if performance is None or performance.empty:
        return charts.empty_chart("No past performance published for this fund")
    data = performance
    if class_name is not None:
        data = data[data["class_abbr_name"].fillna("-") == class_name]
    kinds = {"fund_return": "Fund", "benchmark_return": "Benchmark", "peer_average": "Peer average"}
    data = data[data["performance_kind"].isin(kinds)].dropna(subset=["performance_val"])
    if data.empty:
        return charts.empty_chart("No return figures for this class")
    data = data.sort_values("reference_period_order").assign(
        series=lambda d: d["performance_kind"].map(kinds), period=charts.period_words)
    data = data[["period", "series", "performance_val"]].astype({"performance_val": float})
    title = "Return against benchmark and peers" + (f" ({class_name})" if class_name and class_name != "-" else "")
    return hv.Bars(data, kdims=[hv.Dimension("period", label="Period"), hv.Dimension("series", label="Series")],
                   vdims=[hv.Dimension("performance_val", label="Return, %")]).opts(
        width=charts.WIDTH + 120, height=charts.HEIGHT, tools=["hover"], cmap=["#3b6ea5", "#f28e2b", "#59a14f"],
        xrotation=20, title=title, toolbar=None, multi_level=False, color="series", show_legend=True)


def performance_table(performance: pd.DataFrame) -> pd.DataFrame:
    """One row per reference period, one column per kind of figure (fund return, benchmark, ...)."""
    data = performance.dropna(subset=["performance_kind"])
    if data.empty:
        return pd.DataFrame()
    data = data.assign(period=data["reference_period_label_en"].fillna(data["reference_period"]).astype(str),
                       order=data["reference_period_order"].astype("Float64").fillna(99))
    wide = data.pivot_table(index=["order", "period"], columns="performance_kind", values="performance_val", aggfunc="first")
    return wide.reset_index().sort_values("order")


def link_or_text(url: object, *, demo: bool) -> str:
    """A report link: an anchor only for a real http(s) address outside demo mode, else escaped text."""
    if is_missing(url):
        return esc(None)
    text = str(url).strip()
    try:
        scheme = urllib.parse.urlsplit(text).scheme.lower()
    except ValueError:
        scheme = ""
    if demo or scheme not in ("http", "https"):
        return f"<code>{esc(text)}</code>"
    return f'<a href="{html.escape(text, quote=True)}" rel="noopener noreferrer nofollow">{esc(text)}</a>'


def _label_pair(record: dict | None, field: str) -> str | None:
    if not record:
        return None
    en, th = record.get(f"{field}_label_en"), record.get(f"{field}_label_th")
    code = record.get(field)
    if en and th:
        return f"{en} ({th})"
    return en or th or code


def _term(project_type: dict | None) -> str | None:
    if not project_type:
        return None
    if project_type.get("proj_term_flag") != "Y":
        return _label_pair(project_type, "proj_term_flag")
    parts = [(project_type.get("proj_term_yy"), "years"), (project_type.get("proj_term_mm"), "months"),
             (project_type.get("proj_term_dd"), "days")]
    text = ", ".join(f"{fmt_number(v, 0)} {unit}" for v, unit in parts if not is_missing(v) and float(v))
    return text or _label_pair(project_type, "proj_term_flag")


def _pub(record: dict | None, field: str, value: Any) -> Any:
    """The value, or the note that the answering service does not publish this field at all."""
    return NOT_PUBLISHED_NOTE if not_published(record, field) else value


def _overview(doc: ReportDocument, sheet: FundFactsheet) -> None:
    fund = sheet.fund or {}
    suit = sheet.suitability or {}
    red = sheet.redemption or {}
    ret = sheet.return_estimate or {}
    sec = doc.section("overview", "Overview")
    pairs = [
        ("Project id", sheet.proj_id),
        ("Abbreviation", fund.get("proj_abbr_name")),
        ("Name (Thai)", fund.get("proj_name_th")),
        ("Name (English)", fund.get("proj_name_en")),
        ("Status", _label_pair(fund, "fund_status")),
        ("Asset management company", f"{fund.get('comp_name_en')} ({fund.get('unique_id')})"
         if not is_missing(fund.get("comp_name_en")) else fund.get("unique_id")),
        ("Policy", fund.get("policy_desc")),
        ("Management style", fund.get("management_style_label_en") or fund.get("management_style")),
        ("Tax incentive", ", ".join(fund.get("tax_incentives") or []) or None),
        ("Registration no.", fund.get("regis_id")),
        ("Registered on", fmt_date(fund.get("regis_date"))),
        ("Cancelled on", fmt_date(fund.get("cancel_date"))),
        ("Risk level", suit.get("risk_level_label") and f"{suit.get('risk_level_label')} ({suit.get('risk_spectrum')})"),
        ("Investors", _label_pair(sheet.project_type, "proj_retail_type")),
        ("Project term", _term(sheet.project_type)),
        ("Foreign investment", _label_pair(fund, "invest_country_flage") or _label_pair(fund, "invest_country_flag")),
        ("US investors", _pub(fund, "permit_us_investment", us_investors_text(fund.get("permit_us_investment")))),
        ("Redemption", _label_pair(red, "redemp_period")),
        ("Redemption, as published", red.get("redemp_period_text")),
        ("Redemption, other", red.get("redemp_period_oth")),
        ("Settlement", red.get("settlement_period")),
        ("Cut-off, buying / selling", _pub(red, "buying_cut_off_time", " / ".join(
            str(v) for v in (red.get("buying_cut_off_time"), red.get("selling_cut_off_time")) if not is_missing(v)) or None)),
    ]
    if not sheet.fund:
        sec.parts.append(note("The fund record (name, status, company) was not found; the facts below come from the factsheet parts."))
    sec.parts.append(key_value_table(pairs))

    if "return_estimate" in sheet.unpublished:
        sec.parts.append("<h3>Estimated return</h3>")
        sec.parts.append(note(f"Estimated return: {NOT_PUBLISHED_NOTE}."))
    elif ret:
        sec.parts.append("<h3>Estimated return</h3>")
        sec.parts.append(key_value_table([
            ("Estimated return before expenses, % a year", fmt_number(ret.get("total_estimated_return"))),
            ("Estimated expenses", fmt_number(ret.get("annual_estimated_expense"))),
            ("Estimated average return, % a year", fmt_number(ret.get("annual_average_return"))),
            ("Investment period", " ".join(p for p in (
                f"{fmt_number(ret.get('investment_period_year'), 0)} years" if not is_missing(ret.get("investment_period_year")) else "",
                f"{fmt_number(ret.get('investment_period_month'), 0)} months" if not is_missing(ret.get("investment_period_month")) else "",
            ) if p) or None),
        ]))

    sec.parts.append("<h3>Unit classes</h3>")
    if sheet.classes is not None and not sheet.classes.empty:
        sec.parts.append(html_table(sheet.classes, [
            Column("Class", "class_abbr_name"), Column("Name", "class_name"), Column("Description", "class_additional_desc"),
        ]))
    else:
        sec.parts.append(part_note(sheet.errors, "classes", "unit classes (a single-class fund has none)"))

    sec.parts.append("<h3>Investment minimums</h3>")
    if sheet.investment is not None and not sheet.investment.empty:
        def money(value_key: str, cur_key: str):
            return lambda r: None if is_missing(r.get(value_key)) else f"{fmt_number(r.get(value_key))} {currency_word(r.get(cur_key))}".strip()

        sec.parts.append(html_table(sheet.investment, [
            Column("First purchase", money("minimum_sub_ipo", "minimum_sub_ipo_cur"), numeric=True),
            Column("Note", "minimum_sub_ipo_addi_desc"),
            Column("Later purchases", money("minimum_sub", "minimum_sub_cur"), numeric=True),
            Column("Minimum redemption", money("minimum_redempt", "minimum_redempt_cur"), numeric=True),
            num_col("Minimum units redeemed", "minimum_redempt_unit", 4),
            Column("Minimum balance", money("lowbal_val", "lowbal_val_cur"), numeric=True),
            num_col("Minimum units held", "lowbal_unit", 4),
        ]))
    else:
        sec.parts.append(part_note(sheet.errors, "investment", "investment minimums"))

    sec.parts.append("<h3>Published reports</h3>")
    urls = sheet.urls or {}
    if urls:
        rows = "".join(
            f"<tr><th scope=\"row\">{html.escape(name)}</th><td>"
            f"{html.escape(NOT_PUBLISHED_NOTE) if not_published(urls, key) else link_or_text(urls.get(key), demo=doc.settings.demo)}</td></tr>"
            for name, key in (("Fund factsheet", "url_factsheet"),
                              *((("Factsheet on the company's website", "amc_url_factsheet"),)
                                if not is_missing(urls.get("amc_url_factsheet")) else ()),
                              ("Annual report", "url_annual_report"), ("Half-year report", "url_halfyear_report"))
        )
        sec.parts.append(f'<div class="table-wrap"><table class="data kv"><tbody>{rows}</tbody></table></div>')
    else:
        sec.parts.append(part_note(sheet.errors, "urls", "report links"))


def _allocation(doc: ReportDocument, sheet: FundFactsheet, name: str) -> None:
    sec = doc.section("allocation", "Asset allocation")
    alloc = sheet.allocation
    if alloc is None or alloc.empty:
        sec.parts.append(part_note(sheet.errors, "allocation", "asset allocation"))
        return
    doc.chart(sec, safe_chart(charts.allocation_donut, alloc, title=f"Asset allocation, {name}"), "Asset allocation donut")
    total = alloc["asset_ratio"].sum(skipna=True)
    sec.parts.append(html_table(alloc.sort_values("asset_seq"), [
        Column("#", "asset_seq", numeric=True), Column("Asset", lambda r: asset_name_text(r.get("asset_name"))),
        pct_col("Share of NAV", "asset_ratio"),
    ], caption=f"Shares add up to {fmt_percent(total)} as published."))


def periods_with_data(sheet: FundFactsheet) -> list[str]:
    """Quarters with published holdings, newest first."""
    return sorted(sheet.holdings or {}, reverse=True)


def _holdings(doc: ReportDocument, sheet: FundFactsheet, holdings: HoldingsByQuarter) -> None:
    sec = doc.section("holdings", "Latest holdings")
    quarters = periods_with_data(sheet)
    period = quarters[0] if quarters else None
    failed = [k for k in sheet.errors if k.startswith("holdings")]
    if period is None:
        if failed:
            sec.parts.append(warning(f"Holdings could not be loaded for {len(failed)} quarter(s): {sheet.errors[failed[0]]}"))
        sec.parts.append(note("Not published: the service has no portfolio holdings for this fund in the last "
                              f"{len(sheet.periods)} quarters."))
        return
    table = holdings.table(period)
    raw = sheet.holdings[period]
    nav_lines = int(raw["is_nav_total"].fillna(False).astype(bool).sum())
    total = holdings.total_percent(period)
    sec.parts.append(note(
        f"Quarter {fmt_period(period)}: {len(table)} holdings adding up to {fmt_percent(total)} of NAV as published "
        "(rounding can take the sum above 100 %, and feeder funds can exceed it further)."
        + (f" {nav_lines} NAV-total line(s) (asset code 903) are not counted as holdings." if nav_lines else "")
    ))
    if failed:
        sec.parts.append(warning(f"{len(failed)} quarter(s) could not be loaded: {sheet.errors[failed[0]]}"))
    doc.chart(sec, safe_chart(charts.top_holdings_bars, holdings.top(period, 15), period), "Top holdings")
    # The current service names each asset type in Thai beside its code (assetliab_desc); legacy sends the code only.
    descriptions = {str(c): d for c, d in zip(raw.get("assetliab_id", []), raw.get("assetliab_desc", [])) if not is_missing(d)} \
        if "assetliab_desc" in raw else {}
    sec.parts.append(html_table(table, [
        Column("Holding", "security"), Column("Issuer", "issuer"), Column("ISIN", "isin_code"),
        Column("Asset type", lambda r: asset_type_text(r.get("assetliab_id"), descriptions.get(str(r.get("assetliab_id"))))),
        num_col("Market value, baht", "assetliab_value"),
        pct_col("% of NAV", "percent_nav", 3),
    ], caption=f"All holdings, {fmt_period(period)}, largest first", css_id="holdings-table"))


def _changes(doc: ReportDocument, holdings: HoldingsByQuarter) -> None:
    sec = doc.section("changes", "Holdings changes")
    quarters = periods_with_data(holdings.factsheet)
    if len(quarters) < 2:
        sec.parts.append(note("Not enough published quarters to show changes (two are needed)."))
        return
    doc.chart(sec, safe_chart(charts.holdings_heatmap, holdings.weights()), "Holding weights by quarter")
    start, end = quarters[1], quarters[0]
    changes = holdings.changes(start, end)
    counts = holdings.change_counts(start, end)
    sec.parts.append(note(f"From {fmt_period(start)} to {fmt_period(end)}: "
                          + ", ".join(f"{n} {kind}" for kind, n in counts.items())))
    doc.chart(sec, safe_chart(charts.holdings_changes_bars, changes, start, end), "What changed")
    moved = changes[changes["change"].astype(str) != "unchanged"]
    moved = moved.reindex(moved["change_pp"].abs().sort_values(ascending=False).index).head(CHANGES_SHOWN)
    sec.parts.append(html_table(moved, [
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


def _fees(doc: ReportDocument, sheet: FundFactsheet, name: str) -> None:
    sec = doc.section("fees", "Fees")
    fees = sheet.fees
    if fees is None or fees.empty:
        sec.parts.append(part_note(sheet.errors, "fees", "fees"))
        return
    frame = fees.assign(fund=name)
    sec.parts.append(note("The prospectus ceiling and what is actually charged are shown apart and never "
                          "compared with each other."))
    if "rate_unit" in sheet.unpublished.get("fees", []):
        sec.parts.append(note(f"Fee units (for example % a year of net asset value): {NOT_PUBLISHED_NOTE}."))
    doc.chart(sec, safe_chart(charts.fee_bars, frame, value="actual_value_num"), "Fees actually charged")
    doc.chart(sec, safe_chart(charts.fee_bars, frame, value="rate_num"), "Prospectus fee ceilings")
    sec.parts.append(html_table(frame, fee_columns(False), caption="Fees as the service publishes them (free text)",
                                css_id="fees-table"))


def _performance(doc: ReportDocument, sheet: FundFactsheet) -> None:
    sec = doc.section("performance", "Performance")
    perf = sheet.performance
    if perf is None or perf.empty:
        sec.parts.append(part_note(sheet.errors, "performance", "past performance"))
        return
    as_of = distinct_dates(r.get("as_of_date") for r in sheet.records.get("performance") or [])
    if as_of:
        sec.parts.append(note(f"Figures as of {', '.join(as_of)}. Past performance does not guarantee future results."))
    classes = list(dict.fromkeys(perf["class_abbr_name"].fillna("-").astype(str)))
    for class_name in classes:
        data = perf[perf["class_abbr_name"].fillna("-").astype(str) == class_name]
        if len(classes) > 1 or class_name != "-":
            sec.parts.append(f"<h3>Class {esc(class_name)}</h3>")
        chart = safe_chart(charts.performance_bars, perf, class_name, fallback=performance_bars_fallback)
        if isinstance(chart, hv.Bars):
            chart = chart.opts(legend_position="right", clone=True)  # inside, the legend hides the first bars
        doc.chart(sec, chart, f"Performance {class_name}")
        wide = performance_table(data)
        cols = [Column("Period", "period")] + [
            pct_col(PERFORMANCE_KIND[kind][1].capitalize(), kind) for kind in PERFORMANCE_COLUMNS if kind in wide.columns
        ]
        sec.parts.append(html_table(wide, cols, empty="No figures for this class."))


def _risk(doc: ReportDocument, sheet: FundFactsheet, name: str) -> None:
    sec = doc.section("risk", "Risk")
    suit = sheet.suitability
    if not suit:
        sec.parts.append(part_note(sheet.errors, "suitability", "risk level or suitability texts"))
        return
    fund = sheet.fund or {}
    # The same columns as FundBasket.risk_frame, which the shared chart is written for.
    risk = pd.DataFrame([{
        "fund": name, "proj_id": sheet.proj_id, "name_en": fund.get("proj_name_en"), "name_th": fund.get("proj_name_th"),
        "fund_status": fund.get("fund_status"), "risk_spectrum": suit.get("risk_spectrum"),
        "risk_level": suit.get("risk_level_label"), "risk_rank": suit.get("risk_rank"),
        "total_annual_fee": None, "return_1y": None,
    }]).astype({"risk_rank": "float64", "total_annual_fee": "float64", "return_1y": "float64"})
    level = suit.get("risk_level_label")
    sec.parts.append(key_value_table([
        ("Risk level", f"{level} of 8 ({suit.get('risk_spectrum')})" if level else suit.get("risk_spectrum")),
        ("Label", _label_pair(suit, "risk_spectrum")),
    ]))
    doc.chart(sec, safe_chart(charts.risk_spectrum_chart, risk), "Risk spectrum")
    for heading, key in (("Risk description", "risk_spectrum_desc"), ("Suits", "fund_suitable_desc"),
                         ("Does not suit", "fund_not_suitable_desc"), ("Important notice", "important_notice")):
        sec.parts.append(f"<h3>{html.escape(heading)}</h3>")
        sec.parts.append(text_block(_pub(suit, key, suit.get(key))))
    perf = sheet.performance
    if perf is not None and not perf.empty:
        vol = perf[perf["performance_kind"].isin(["fund_volatility", "benchmark_volatility"])]
        if not vol.empty:
            first_class = vol["class_abbr_name"].fillna("-").astype(str).iloc[0]
            vol = vol[vol["class_abbr_name"].fillna("-").astype(str) == first_class]
            sec.parts.append("<h3>Volatility" + ("" if first_class == "-" else f" (class {esc(first_class)})") + "</h3>")
            wide = performance_table(vol)
            sec.parts.append(html_table(wide, [Column("Period", "period")] + [
                pct_col(PERFORMANCE_KIND[k][1].capitalize(), k) for k in ("fund_volatility", "benchmark_volatility") if k in wide.columns
            ]))


def _has_data(sheet: FundFactsheet) -> bool:
    lists = any(getattr(sheet, part) is not None and not getattr(sheet, part).empty for part in LIST_PARTS)
    objects = any(getattr(sheet, part) for part in OBJECT_PARTS)
    return bool(sheet.fund or lists or objects or sheet.holdings)


def factsheet_document(client: SecClient, proj_id: str, *, fund: dict | None = None,
                       generated_at: datetime | None = None) -> ReportDocument:
    sheet = FundFactsheet(client=client).load(proj_id, fund=fund)
    if not _has_data(sheet):
        raise BadInputError(f"the service has no data for fund {proj_id}: check the project id")
    fund = sheet.fund or {}
    name = fund_label(fund, proj_id)
    holdings = HoldingsByQuarter(factsheet=sheet)

    doc = ReportDocument(client.settings, title=f"Fund factsheet: {name}", kind="factsheet", generated_at=generated_at)
    status = label("fund_status", fund.get("fund_status"), "en")
    company = fund.get("comp_name_en") if not is_missing(fund.get("comp_name_en")) else fund.get("unique_id") and f"company {fund.get('unique_id')}"
    doc.subtitle = " · ".join(str(p) for p in (proj_id, status, company) if p)
    doc.names = [(lang, fund.get(key)) for lang, key in (("th", "proj_name_th"), ("en", "proj_name_en")) if fund.get(key)]

    quarters = periods_with_data(sheet)
    period = quarters[0] if quarters else None
    if period:
        raw = sheet.holdings[period]
        as_of = distinct_dates(raw["as_of_date"].dropna())
        doc.fact("holdings-as-of", "Holdings as of", f"quarter {fmt_period(period)}" + (f" (as of {', '.join(as_of)})" if as_of else ""))
    else:
        doc.fact("holdings-as-of", "Holdings as of", "no holdings published")
    perf_as_of = distinct_dates(r.get("as_of_date") for r in sheet.records.get("performance") or [])
    doc.fact("performance-as-of", "Performance as of", ", ".join(perf_as_of) or "not published")
    doc.fact("last-updated", "Data last updated", fmt_datetime(latest_update(sheet.records, sheet.fund)))
    if sheet.stale:
        doc.header_notes.append(warning("Some parts were served from an expired cache copy because the service failed."))
    failed = {k: v for k, v in sheet.errors.items() if not k.startswith("holdings")}
    if failed:
        doc.header_notes.append(warning("Parts that could not be loaded: " + "; ".join(f"{k}: {v}" for k, v in failed.items())))

    _overview(doc, sheet)
    _allocation(doc, sheet, name)
    _holdings(doc, sheet, holdings)
    _changes(doc, holdings)
    _fees(doc, sheet, name)
    _performance(doc, sheet)
    _risk(doc, sheet, name)
    return doc

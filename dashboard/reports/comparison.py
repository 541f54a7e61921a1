"""The several-fund comparison report: fees, risk spectrum, allocation and performance side by side."""

from __future__ import annotations

from datetime import datetime

import holoviews as hv
import pandas as pd

from dashboard.api.client import SecClient
from dashboard.errors import BadInputError, SecApiError
from dashboard.models.basket import BASKET_PARTS, FundBasket
from dashboard.models.source import outcome
from dashboard.records.labels import label
from dashboard.present.text import asset_name_text
from dashboard.reports.document import (
    Column,
    ReportDocument,
    distinct_dates,
    fmt_datetime,
    html_table,
    is_missing,
    latest_update,
    note,
    pct_col,
    safe_chart,
    warning,
)
from dashboard.reports.factsheet import fee_columns, fund_label
from dashboard.present import charts


def _data(result) -> object:
    """Normalised data of one `fetch_many` result; None for any failure (names are optional)."""
    return None if isinstance(result, BaseException) else outcome(result)[0]


def complete_fund_records(client: SecClient, proj_ids: list[str], funds: dict[str, dict] | None) -> dict[str, dict]:
    """Fund records (names, status) for every proj_id: those given, the rest found through E4 then E1.

    Names are a courtesy: a fund whose record cannot be found is still compared, under its proj_id.
    """
    known = {p: f for p, f in (funds or {}).items() if f}
    missing = [p for p in proj_ids if p not in known]
    if not missing:
        return known
    abbrs: dict[str, str] = {}
    for proj_id, result in zip(missing, client.fetch_many([("E4", {"proj_id": p}) for p in missing])):
        for row in _data(result) or []:
            if row.get("proj_abbr_name"):
                abbrs[proj_id] = row["proj_abbr_name"]
                break
    if abbrs:
        searches = client.fetch_many([("E1", {"name": a}) for a in abbrs.values()])
        for proj_id, result in zip(abbrs, searches):
            record = next((f for f in _data(result) or [] if f.get("proj_id") == proj_id), None)
            if record:
                known[proj_id] = record
    return known


def performance_comparison_bars(perf: pd.DataFrame) -> hv.Element:
    """Each fund's own return (its first unit class) for every reference period, funds side by side."""
    if perf is None or perf.empty:
        return charts.empty_chart("No past performance published for the funds compared")
    data = perf[perf["performance_kind"] == "fund_return"].dropna(subset=["performance_val"])
    if data.empty:
        return charts.empty_chart("No fund return figures for the funds compared")
    data = data.assign(class_key=data["class_abbr_name"].fillna("-").astype(str))
    first = data.groupby("proj_id")["class_key"].transform("first")
    data = data[data["class_key"] == first]
    data = data.assign(order=data["reference_period_order"].astype("Float64").fillna(99)).sort_values(["order"], kind="stable")
    data = data.assign(period=charts.period_words(data), fund=data["fund"].astype(str))
    data = data[["period", "fund", "performance_val"]].astype({"performance_val": float})
    return hv.Bars(data, kdims=[hv.Dimension("period", label="Period"), hv.Dimension("fund", label="Fund")],
                   vdims=[hv.Dimension("performance_val", label="Fund return, %")]).opts(
        width=charts.WIDTH + 260, height=charts.HEIGHT + 40, tools=["hover"], cmap="Category10", xrotation=20,
        title="Fund return by period (first unit class of each fund)", toolbar=None, multi_level=False,
        show_legend=True, legend_position="right")


def _name(basket: FundBasket, proj_id: str) -> str:
    return fund_label(basket.funds.get(proj_id), proj_id)


def _first_class(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of each fund's first unit class, so one bar per fund and fee type."""
    if frame.empty:
        return frame
    key = frame["class_abbr_name"].fillna("-").astype(str)
    first = key.groupby(frame["proj_id"]).transform("first")
    return frame[key == first]


def _summary(doc: ReportDocument, basket: FundBasket, perf_as_of: dict[str, str]) -> None:
    sec = doc.section("summary", "Funds compared")
    risk = basket.risk_frame()
    rows = []
    for row in risk.to_dict("records"):
        rows.append({**row, "status": label("fund_status", row.get("fund_status"), "en") or row.get("fund_status"),
                     "perf_as_of": perf_as_of.get(row["proj_id"])})
    sec.parts.append(html_table(rows, [
        Column("Fund", "fund"), Column("Project id", "proj_id"), Column("Name (English)", "name_en"),
        Column("Name (Thai)", "name_th"), Column("Status", "status"), Column("Risk level", "risk_level"),
        pct_col("Total annual fee (actual)", "total_annual_fee", 3), pct_col("1-year return", "return_1y"),
        Column("Performance as of", "perf_as_of"),
    ], css_id="summary-table"))
    sec.parts.append(note("Total annual fee: the fund's Total Expense line when published, else management, trustee "
                          "and registrar fees actually charged (first unit class). Prospectus ceilings are never mixed in."))
    for proj_id, errors in basket.errors.items():
        sec.parts.append(warning(f"{_name(basket, proj_id)}: could not load " + "; ".join(f"{k} ({v})" for k, v in errors.items())))


def _fees(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("fees", "Fees")
    fees = basket.fee_frame()
    if fees.empty:
        sec.parts.append(note("Not published: the service has no fees for these funds."))
        return
    missing = [_name(basket, p) for p in basket.unpublished("fees")]  # failures are listed in the summary
    if missing:
        sec.parts.append(note("No fees published for " + ", ".join(missing) + "."))
    sec.parts.append(note("Charts show each fund's first unit class. What is actually charged and the prospectus "
                          "ceiling are charted apart: one fund's ceiling is never compared with another's charge."))
    first = _first_class(fees)
    doc.chart(sec, safe_chart(charts.fee_bars, first, value="actual_value_num"), "Fees actually charged")
    doc.chart(sec, safe_chart(charts.fee_bars, first, value="rate_num"), "Prospectus fee ceilings")
    sec.parts.append(html_table(fees, fee_columns(True), caption="Every fee of every unit class, as published",
                                css_id="fees-table"))


def _risk(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("risk", "Risk spectrum")
    risk = basket.risk_frame()
    if risk["risk_rank"].isna().all():
        sec.parts.append(note("Not published: the service has no risk levels for these funds."))
    else:
        doc.chart(sec, safe_chart(charts.risk_spectrum_chart, risk), "Risk spectrum")
    no_level = risk["risk_rank"].isna() & ~risk["proj_id"].isin(basket.failed_part("suitability"))
    missing = risk.loc[no_level, "fund"].astype(str).tolist()  # failures are listed in the summary
    if missing and len(missing) < len(risk):
        sec.parts.append(note("No risk level published for " + ", ".join(missing) + "."))
    doc.chart(sec, safe_chart(charts.risk_scatter, risk, "total_annual_fee"), "Risk against fees")
    doc.chart(sec, safe_chart(charts.risk_scatter, risk, "return_1y"), "Risk against return")


def _allocation(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("allocation", "Asset allocation")
    alloc = basket.allocation_frame()
    if alloc.empty:
        sec.parts.append(note("Not published: the service has no asset allocation for these funds."))
        return
    missing = [_name(basket, p) for p in basket.unpublished("allocation")]
    if missing:
        sec.parts.append(note("No asset allocation published for " + ", ".join(missing) + "."))
    doc.chart(sec, safe_chart(charts.allocation_stacked, alloc), "Asset allocation")
    wide = alloc.pivot_table(index="asset_name", columns="proj_id", values="asset_ratio", aggfunc="sum", sort=False)
    order = [p for p in basket.proj_ids if p in wide.columns]
    wide = wide[order].reset_index()
    cols = [Column("Asset", lambda r: asset_name_text(r.get("asset_name")) or r.get("asset_name"))] + [pct_col(_name(basket, p), p) for p in order]
    sec.parts.append(html_table(wide, cols, caption="Share of NAV by asset type", css_id="allocation-table"))


def _performance(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("performance", "Performance")
    perf = basket.performance_frame()
    if perf.empty:
        sec.parts.append(note("Not published: the service has no past performance for these funds."))
        return
    doc.chart(sec, safe_chart(performance_comparison_bars, perf), "Fund return by period")
    returns = perf[perf["performance_kind"] == "fund_return"]
    returns = returns.assign(class_key=returns["class_abbr_name"].fillna("-").astype(str))
    returns = returns[returns["class_key"] == returns.groupby("proj_id")["class_key"].transform("first")]
    if returns.empty:
        sec.parts.append(note("No fund return figures published."))
        return
    returns = returns.dropna(subset=["reference_period"])
    returns = returns.assign(period=charts.period_words(returns))
    order = returns.sort_values("reference_period_order")["period"].drop_duplicates().tolist()
    wide = returns.pivot_table(index="proj_id", columns="period", values="performance_val", aggfunc="first")
    rows = []
    for proj_id in basket.proj_ids:
        if proj_id not in wide.index:
            continue
        sub = returns[returns["proj_id"] == proj_id]
        rows.append({"fund": _name(basket, proj_id), "class": sub["class_key"].iloc[0],
                     **{p: wide.loc[proj_id].get(p) for p in order}})
    cols = [Column("Fund", "fund"), Column("Class", "class")] + [pct_col(p, p) for p in order]
    sec.parts.append(html_table(rows, cols, caption="Fund return, % (first unit class of each fund)", css_id="performance-table"))
    sec.parts.append(note("Past performance does not guarantee future results."))


def comparison_document(client: SecClient, proj_ids: list[str], *, funds: dict[str, dict] | None = None,
                        generated_at: datetime | None = None) -> ReportDocument:
    records = complete_fund_records(client, proj_ids, funds)
    basket = FundBasket(client=client)
    for proj_id in proj_ids:
        basket.add(proj_id, records.get(proj_id))
    basket.load()
    failed = basket.failed()
    if len(failed) == len(proj_ids):
        raise SecApiError(f"no fund could be loaded: {next(iter(failed.values()))}")
    unknown = [p for p in proj_ids if not records.get(p)
               and not any((basket.parts.get(p) or {}).get(part) for part in BASKET_PARTS.values())]
    if unknown:
        raise BadInputError(f"the service has no data for fund {', '.join(unknown)}: check the project id")

    labels = [_name(basket, p) for p in proj_ids]
    doc = ReportDocument(client.settings, title=f"Fund comparison: {', '.join(labels)}", kind="comparison",
                         generated_at=generated_at)
    doc.subtitle = f"{len(proj_ids)} funds side by side: fees, risk, asset allocation and performance"
    for proj_id in proj_ids:
        fund = records.get(proj_id) or {}
        names = " / ".join(str(fund[k]) for k in ("proj_name_en", "proj_name_th") if not is_missing(fund.get(k)))
        doc.names.append(("", f"{_name(basket, proj_id)} ({proj_id})" + (f": {names}" if names else "")))

    perf_as_of = {}
    for proj_id in proj_ids:
        rows = (basket.parts.get(proj_id) or {}).get("performance") or []
        dates = distinct_dates(r.get("as_of_date") for r in rows)
        if dates:
            perf_as_of[proj_id] = ", ".join(dates)
    everything = sorted(set(", ".join(perf_as_of.values()).split(", ")) - {""})
    doc.fact("performance-as-of", "Performance as of", ", ".join(everything) or "not published")
    doc.fact("last-updated", "Data last updated", fmt_datetime(latest_update(basket.parts, records)))
    if basket.stale:
        doc.header_notes.append(warning("Some parts were served from an expired cache copy because the service failed."))

    _summary(doc, basket, perf_as_of)
    _fees(doc, basket)
    _risk(doc, basket)
    _allocation(doc, basket)
    _performance(doc, basket)
    return doc


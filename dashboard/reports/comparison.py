"""The several-fund comparison report: fees, risk spectrum, allocation and performance side by side."""

from __future__ import annotations

from datetime import datetime

from dashboard.api.sync import SecClient
from dashboard.errors import BadInputError, SecApiError
from dashboard.models.basket import FundBasket
from dashboard.models.fund import first_class_rows
from dashboard.models.source import run
from dashboard.present import charts, risk_charts
from dashboard.present.text import asset_name_text
from dashboard.records.labels import label
from dashboard.reports.blocks import Caution, Column, Note, num_col, pct_col, table
from dashboard.reports.document import ReportDocument
from dashboard.reports.embed import safe_chart
from dashboard.reports.factsheet import fee_charts_and_table
from dashboard.reports.nav import rebased_section
from dashboard.present.text import distinct_dates, fmt_datetime, is_missing, latest_update


def _summary(doc: ReportDocument, basket: FundBasket, perf_as_of: dict[str, str]) -> None:
    sec = doc.section("summary", "Funds compared")
    risk = basket.risk_frame()
    rows = []
    for row in risk.to_dict("records"):
        rows.append({**row, "status": label("fund_status", row.get("fund_status"), "en") or row.get("fund_status"),
                     "perf_as_of": perf_as_of.get(row["proj_id"])})
    sec.add(table(rows, [
        Column("Fund", "fund"), Column("Project id", "proj_id"), Column("Name (English)", "name_en"),
        Column("Name (Thai)", "name_th"), Column("Status", "status"), Column("Risk level", "risk_level"),
        pct_col("Total annual fee (actual)", "total_annual_fee", 3), pct_col("1-year return", "return_1y"),
        Column("Performance as of", "perf_as_of"),
    ], css_id="summary-table"))
    sec.add(Note("Total annual fee: the fund's total fee and expense line when published, else management, trustee "
                 "and registrar fees actually charged (first unit class). Prospectus ceilings are never mixed in."))
    for proj_id, errors in basket.errors.items():
        sec.add(Caution(f"{basket.label(proj_id)}: could not load " + "; ".join(f"{k} ({v})" for k, v in errors.items())))


def _fees(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("fees", "Fees")
    fees = basket.fee_frame()
    if fees.empty:
        sec.add(Note("Not published: the service has no fees for these funds."))
        return
    missing = [basket.label(p) for p in basket.unpublished("fees")]  # failures are listed in the summary
    if missing:
        sec.add(Note("No fees published for " + ", ".join(missing) + "."))
    sec.add(Note("Charts show each fund's first unit class. What is actually charged and the prospectus "
                 "ceiling are charted apart: one fund's ceiling is never compared with another's charge."))
    fee_charts_and_table(doc, sec, first_class_rows(fees), fees, with_fund=True,
                         caption="Every fee of every unit class, as published")


def _fee_drag(doc: ReportDocument, basket: FundBasket, day) -> None:
    """What each fund's charged fees take from 100,000 THB over 10 years (models.fee_drag; docs/feeders.md), each
    first class at its own 5-year NAV return from the market snapshot where it has one, else a stated 5 %."""
    from dashboard.market.feeders import class_nav_returns
    from dashboard.models.fee_drag import DEFAULT_AMOUNT, DEFAULT_YEARS, basket_fee_drag
    from dashboard.present.siblings import fee_drag_chart, fee_drag_inputs_lines
    from dashboard.reports.factsheet import market_reader

    sec = doc.section("fee-drag", "What the fees take over the years")
    fees = basket.fee_frame()
    returns = {}
    store = market_reader(doc.settings) if not fees.empty else None
    if store is not None:
        try:
            returns = class_nav_returns(store, list(basket.proj_ids))
        finally:
            store.close()
    frame = basket_fee_drag(fees, DEFAULT_AMOUNT, DEFAULT_YEARS, None, returns)
    if frame.empty:
        sec.add(Note("No fund in the comparison publishes a charged total expense to compute a fee drag from."))
        return
    inputs = {"amount": DEFAULT_AMOUNT, "years": DEFAULT_YEARS, "return_pct": None}
    for line in fee_drag_inputs_lines(frame, inputs, day):
        sec.add(Note(line))
    doc.chart(sec, safe_chart(fee_drag_chart, frame, DEFAULT_AMOUNT, DEFAULT_YEARS, None), "Fee drag")
    ends = frame[(frame["year"] == DEFAULT_YEARS) & (frame["series"] != "No fees")]
    sec.add(table(ends, [
        Column("Fund and class", "series"), pct_col("Total expense charged (% a year)", "total_expense"),
        pct_col("Front-end fee charged (%)", "front"), pct_col("Back-end fee charged (%)", "back"),
        pct_col("Return before fees (% a year)", "gross_pct"), num_col("Value at the end (baht)", "value", 0),
        num_col("Fees take (baht)", "cost", 0),
    ], caption=f"{DEFAULT_AMOUNT:,.0f} THB over {DEFAULT_YEARS} years, each fund's first unit class", css_id="fee-drag-table"))


def _risk(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("risk", "Risk spectrum")
    risk = basket.risk_frame()
    if risk["risk_rank"].isna().all():
        sec.add(Note("Not published: the service has no risk levels for these funds."))
    else:
        doc.chart(sec, safe_chart(risk_charts.risk_spectrum_chart, risk), "Risk spectrum")
    no_level = risk["risk_rank"].isna() & ~risk["proj_id"].isin(basket.failed_part("suitability"))
    missing = risk.loc[no_level, "fund"].astype(str).tolist()  # failures are listed in the summary
    if missing and len(missing) < len(risk):
        sec.add(Note("No risk level published for " + ", ".join(missing) + "."))
    doc.chart(sec, safe_chart(risk_charts.risk_scatter, risk, "total_annual_fee"), "Risk against fees")
    doc.chart(sec, safe_chart(risk_charts.risk_scatter, risk, "return_1y"), "Risk against return")


def _allocation(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("allocation", "Asset allocation")
    alloc = basket.allocation_frame()
    if alloc.empty:
        sec.add(Note("Not published: the service has no asset allocation for these funds."))
        return
    missing = [basket.label(p) for p in basket.unpublished("allocation")]
    if missing:
        sec.add(Note("No asset allocation published for " + ", ".join(missing) + "."))
    doc.chart(sec, safe_chart(charts.allocation_stacked, alloc), "Asset allocation")
    wide = alloc.pivot_table(index="asset_name", columns="proj_id", values="asset_ratio", aggfunc="sum", sort=False)
    order = [p for p in basket.proj_ids if p in wide.columns]
    wide = wide[order].reset_index()
    cols = [Column("Asset", lambda r: asset_name_text(r.get("asset_name")) or r.get("asset_name"))] + [pct_col(basket.label(p), p) for p in order]
    sec.add(table(wide, cols, caption="Share of NAV by asset type", css_id="allocation-table"))


def _performance(doc: ReportDocument, basket: FundBasket) -> None:
    sec = doc.section("performance", "Performance")
    perf = basket.performance_frame()
    if perf.empty:
        sec.add(Note("Not published: the service has no past performance for these funds."))
        return
    doc.chart(sec, safe_chart(charts.basket_return_bars, perf), "Fund return by period")
    wide = basket.returns_by_fund()
    if wide.empty:
        sec.add(Note("No fund return figures published."))
        return
    periods = [c for c in wide.columns if c not in ("proj_id", "fund", "class")]
    cols = [Column("Fund", "fund"), Column("Class", "class")] + [pct_col(p, p) for p in periods]
    sec.add(table(wide, cols, caption="Fund return, % (first unit class of each fund)", css_id="performance-table"))
    sec.add(Note("Past performance does not guarantee future results."))


def _holdings_overlap(doc: ReportDocument, client: SecClient, basket: FundBasket, proj_ids: list[str]) -> None:
    """The securities the funds hold in common in the latest published quarter, and each pair's overlap (the sum
    over common holdings of the smaller weight): the market store's rule (`market.holdings.overlap_of`)."""
    from dashboard.api.periods import latest_period
    from dashboard.market.holdings import overlap_of
    from dashboard.models.holdings import split_nav_total
    from dashboard.models.source import outcome
    from dashboard.present.text import fmt_percent, quarter_text

    sec = doc.section("overlap", "Holdings overlap")
    period = latest_period(client.today, client.layout())
    results = client.fetch_many([("E6", {"proj_id": p, "period": period}) for p in proj_ids])
    rows, without = [], []
    for proj_id, result in zip(proj_ids, results):
        value, error, _ = outcome(result)
        lines, _totals = split_nav_total(value or [])
        if error or not lines:
            without.append(basket.label(proj_id))
        rows.extend({**line, "proj_id": proj_id} for line in lines)
    found = overlap_of(proj_ids, rows)
    sec.add(Note(f"Holdings of {quarter_text(period)}, the latest quarter the service publishes. Overlap of two funds: "
                 "the sum, over the securities both hold, of the smaller of their two weights (% of NAV)."))
    if without:
        sec.add(Note("No holdings published for " + ", ".join(without) + " in that quarter."))
    pairs = [{"a": basket.label(a), "b": basket.label(b), "pct": pct}
             for pair, pct in found["overlap_pct"].items() for a, b in [pair.split("|")]]
    sec.add(table(pairs, [Column("Fund", "a"), Column("and fund", "b"), pct_col("Overlap (% of NAV)", "pct")],
                  caption="Overlap of each pair of funds", css_id="overlap-pairs-table"))
    common = [{"security": c["issuer"] or c["issue_code"] or c["isin_code"], "code": c["issue_code"] or c["isin_code"],
               **{p: c["weights"].get(p) for p in proj_ids}} for c in found["common"][:25]]
    sec.add(table(common, [Column("Security", "security"), Column("Code", "code")]
                  + [Column(basket.label(p), lambda r, p=p: fmt_percent(r.get(p), 2, up_to=4, missing="")) for p in proj_ids],
                  caption="Securities held in common (largest first, up to 25), % of NAV", css_id="overlap-table",
                  empty="The funds hold no security in common in that quarter."))


def comparison_document(client: SecClient, proj_ids: list[str], *, funds: dict[str, dict] | None = None,
                        generated_at: datetime | None = None) -> ReportDocument:
    basket = FundBasket(client=client)
    for proj_id in proj_ids:
        basket.add(proj_id, (funds or {}).get(proj_id))
    run(basket.load())  # finds the records of funds known by proj_id alone
    failed = basket.failed()
    if len(failed) == len(proj_ids):
        raise SecApiError(f"no fund could be loaded: {next(iter(failed.values()))}")
    records = basket.funds
    unknown = [p for p in proj_ids if p in basket.unknown]
    if unknown:
        raise BadInputError(f"the service has no data for fund {', '.join(unknown)}: check the project id")

    labels = [basket.label(p) for p in proj_ids]
    doc = ReportDocument(client.settings, title=f"Fund comparison: {', '.join(labels)}", kind="comparison",
                         generated_at=generated_at)
    doc.subtitle = f"{len(proj_ids)} funds side by side: fees, risk, asset allocation, holdings overlap, performance and NAV"
    for proj_id in proj_ids:
        fund = records.get(proj_id) or {}
        names = " / ".join(str(fund[k]) for k in ("proj_name_en", "proj_name_th") if not is_missing(fund.get(k)))
        doc.names.append(("", f"{basket.label(proj_id)} ({proj_id})" + (f": {names}" if names else "")))

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
        doc.header_notes.append(Caution("Some parts were served from an expired cache copy because the service failed."))

    _summary(doc, basket, perf_as_of)
    _fees(doc, basket)
    _fee_drag(doc, basket, (generated_at or datetime.now().astimezone()).date())
    _risk(doc, basket)
    _allocation(doc, basket)
    _holdings_overlap(doc, client, basket, proj_ids)
    _performance(doc, basket)
    rebased_section(doc, client, proj_ids, {p: basket.label(p) for p in proj_ids})
    return doc


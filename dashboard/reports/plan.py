"""The plan report: the tax-saving plan (room left, tax saved, holding rules, the funds that qualify, the rules'
date and sources) and, when one was simulated, the regular-investing plan (`reports.dca`).

Made from what the Plan tab or `plan tax` computed (`models.tax_plan.TaxPlanResult`, the qualifying funds' rows
from the market store, `models.dca.DcaResult`): the report reads nothing itself. Fund names and companies are
service text, escaped by the template like every value; the rules' words are ours, their links http(s) only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from dashboard.config import ApiSettings
from dashboard.market.tax_funds import RANK_TITLES
from dashboard.models.dca import DcaResult
from dashboard.models.tax_plan import TaxPlanResult
from dashboard.present.text import column_title, fmt_number, fmt_percent
from dashboard.reports.blocks import Caution, Column, Heading, KeyValues, Link, Note, key_values, num_col, table
from dashboard.reports.document import ReportDocument
from dashboard.reports.dca import dca_section

PLAN_COLUMNS = [Column("Wrapper", "name"), num_col("Room left (baht)", "room", 0), Column("Limit that binds", "binding"),
                num_col("Tax saved (baht)", "tax_saved", 0), Column("Holding rule", "holding"),
                Column("Purchase window", "window", nowrap=True), Column("Earliest sale", "sale")]


def _plan_rows(result: TaxPlanResult) -> list[dict]:
    return [{"name": w.name, "room": w.room, "binding": w.binding, "tax_saved": w.tax_saved, "holding": w.holding,
             "window": f"{w.window[0].isoformat()} to {w.window[1].isoformat()}",
             "sale": w.earliest_sale.isoformat() if w.earliest_sale else w.sale_rule} for w in result.wrappers]


def _source_link(url: str, text: str) -> Link:
    return Link(text, url if url.startswith(("https://", "http://")) else None)


def tax_plan_section(doc: ReportDocument, result: TaxPlanResult, funds: Mapping[str, Sequence[Mapping]] | None = None,
                     rank_by: str = "fee", funds_note: str = "") -> None:
    """The tax-saving plan's sections: the plan, the funds that qualify, the rules' sources."""
    r = result.rules
    sec = doc.section("tax-plan", f"Tax-saving plan, tax year {r.year}")
    sec.add(Caution(r.note))
    how = "estimated for a salaried person" if result.taxable_estimated else "as given"
    sec.add(key_values([
        ("Assessable income (baht)", fmt_number(result.income, 0)),
        ("Taxable income (baht)", f"{fmt_number(result.taxable, 0)} ({how})"),
        ("Income tax before the purchases (baht)", fmt_number(result.tax_now, 0)),
        ("Marginal rate", f"{result.marginal_rate:g} %"),
        ("Shared retirement ceiling (baht)", f"{fmt_number(r.retirement_ceiling, 0)}: {fmt_number(result.shared_claimed, 0)} "
                                             f"claimed, {fmt_number(result.shared_room, 0)} left"),
        ("Everything at once", f"{fmt_number(result.all_room, 0)} baht of room saves "
                               f"{fmt_number(result.all_tax_saved, 0)} baht of income tax"),
    ]))
    day = result.wrappers[0].purchase_day.isoformat() if result.wrappers else ""
    sec.add(table(_plan_rows(result), PLAN_COLUMNS, css_id="tax-plan-table",
                  caption=f"Each wrapper alone, for a purchase on {day}: the tax saved is at the marginal rates the "
                          "room reaches into. RMF and SSF share the retirement ceiling.",
                  empty="The rules of this year hold no tax-saving wrapper."))
    if r.left_out:
        sec.add(Heading("Not in this year's plan"))
        for text in r.left_out:
            sec.add(Note(text))

    if funds is not None or funds_note:
        fsec = doc.section("tax-funds", "Funds that qualify")
        fsec.add(Note(f"From the market snapshot, ranked by {RANK_TITLES.get(rank_by, rank_by)}: a ranking of published "
                      "figures, not a recommendation."))
        if funds_note:
            fsec.add(Note(funds_note))
        names = {w.key: w.name for w in result.wrappers}
        columns = [num_col("#", "rank", 0), Column(column_title("proj_abbr_name"), "proj_abbr_name"),
                   Column(column_title("company"), "company"),
                   Column(column_title("total_fee_actual"), "total_fee_actual", lambda v: fmt_percent(v, 2), numeric=True),
                   Column(column_title("nav_total_return_1y"), "nav_total_return_1y", lambda v: fmt_percent(v, 2),
                          numeric=True),
                   Column(column_title("volatility_1y"), "volatility_1y", lambda v: fmt_percent(v, 2), numeric=True)]
        for key, rows in (funds or {}).items():
            fsec.add(Heading(names.get(key, key)))
            fsec.add(table(list(rows), columns, css_id=f"tax-funds-{key}",
                           empty="No fund in the market snapshot qualifies."))

    ssec = doc.section("tax-sources", "The rules' sources")
    sec_sources = {s.key: s for w in result.wrappers for s in w.sources}
    sec_sources |= {s.key: s for s in (r.bracket_source, r.retirement_source, r.salary_source)}
    ssec.add(Note(f"The rules are data, one dated table a tax year: tax year {r.year} as in force on {r.rules_dated}, "
                  f"sources read {r.read_on}. A year the table does not hold is refused, never guessed."))
    ssec.add(KeyValues([(s.publisher, _source_link(s.url, f"{s.title} ({s.law}; read {s.read_on}; {s.kind} source)"))
                        for s in sec_sources.values()], caption="Sources"))


def plan_document(settings: ApiSettings, *, tax: TaxPlanResult | None = None,
                  funds: Mapping[str, Sequence[Mapping]] | None = None, rank_by: str = "fee", funds_note: str = "",
                  dca: Sequence[DcaResult | None] = (), fee_sources: Sequence[str] = (), dca_note: str = "",
                  generated_at: datetime | None = None) -> ReportDocument:
    """The plan report's document: the tax-saving plan (when given), then the regular-investing plan (when given,
    or `dca_note` saying why there is none)."""
    parts = [p for p, on in (("tax-saving", tax is not None), ("regular-investing", any(dca) or dca_note)) if on]
    title = f"Tax-saving plan, tax year {tax.rules.year}" if tax is not None else "Regular-investing plan"
    if tax is not None and any(dca):
        title += ", and regular investing"
    doc = ReportDocument(settings, title=title, kind="plan", generated_at=generated_at)
    doc.subtitle = "Estimates, not tax or investment advice: " + " and ".join(parts) + " plans from the dashboard's inputs"
    if tax is not None:
        doc.fact("tax-year", "Tax year", tax.rules.year)
        doc.fact("rules-dated", "Rules as in force on", tax.rules.rules_dated)
        doc.fact("rules-read", "Sources read", tax.rules.read_on)
        tax_plan_section(doc, tax, funds, rank_by, funds_note)
    if any(dca) or dca_note:
        dca_section(doc, [r for r in dca if r is not None], fee_sources, why_none=dca_note)
    return doc


def plan_report_html(settings: ApiSettings, request: Mapping[str, Any], *, generated_at: datetime | None = None) -> str:
    """The plan report for the Plan tab's request (`views.plan.PlanView.report_request`)."""
    return plan_document(settings, tax=request.get("tax"), funds=request.get("funds"),
                         rank_by=request.get("rank_by", "fee"), funds_note=request.get("funds_note", ""),
                         dca=request.get("dca", ()), fee_sources=request.get("fee_sources", ()),
                         dca_note=request.get("dca_note", ""), generated_at=generated_at).render()

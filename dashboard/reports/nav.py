"""The NAV sections of the reports: a fund's NAV history with its figures (factsheet), the basket rebased (comparison).

The same model, charts and rows as the dashboard's NAV tab (`models.nav.FundNav`,
`models.basket_nav.BasketNav`, `present.nav_charts`, `present.nav.figure_rows`,
`present.nav_compare`); the charts are embedded offline like every report chart. Service text
(class names, the fetch's notes) reaches the page only through the blocks, which the template escapes.
"""

from __future__ import annotations

from collections.abc import Mapping

from dashboard.api.sync import SecClient
from dashboard.models.basket_nav import BasketNav
from dashboard.models.nav import FundNav
from dashboard.models.nav_figures import gaps as series_gaps
from dashboard.models.source import run
from dashboard.present import nav_charts
from dashboard.present.nav import figure_rows, published_as_of, published_for_class
from dashboard.present.nav_compare import (COMMON_FIGURES, COMMON_FIGURES_NOTE, RATIO_TITLES, common_figures_frame,
                                           common_figures_notes)
from dashboard.reports.blocks import Caution, Column, Heading, Note, num_col, pct_col, table
from dashboard.reports.document import ReportDocument
from dashboard.reports.embed import safe_chart

FIGURE_COLUMNS = [Column("Figure", "label"), Column("From the NAV", "value", numeric=True),
                  Column("Published in the factsheet", "published", numeric=True),
                  Column("Difference", "difference", numeric=True),
                  Column("From the NAV at the factsheet's date", "compared", numeric=True),
                  Column("Window", "window", nowrap=True), Column("Note", "reason")]


def _class_word(name: str, start: bool = False) -> str:
    """A class as a sentence names it ("class X-A", "the fund's only class"), capitalised at a sentence's start."""
    word = f"class {name}" if name else "the fund's only class"
    return word[0].upper() + word[1:] if start else word


def _figure_table(nav: FundNav, class_name: str, performance, css_id: str):
    """One class's figures beside the factsheet's published ones, the difference taken at their date."""
    from dashboard.present.text import fmt_percent

    nav.class_name = class_name
    figures = nav.figures()
    if figures is None:
        return Note(nav.message() or "No figures: too little NAV history.")
    published = published_for_class(performance, class_name)
    as_of = published_as_of(published)
    at = nav.figures(as_of=as_of) if as_of is not None else None
    rows = [{"label": r.label, "value": r.value, "published": r.published, "difference": r.difference,
             "compared": fmt_percent(r.raw_compared, 2) if r.published and r.raw_compared is not None else "",
             "window": r.window, "reason": r.reason} for r in figure_rows(figures, published, at)]
    when = (f"the factsheet's figures are as of {as_of:%d %b %Y}, and the difference is taken at that date"
            if as_of is not None else "the factsheet publishes no fund returns for this class")
    caption = (f"{_class_word(class_name, start=True)}: percent, to the last NAV on {figures.last_nav_date:%d %b %Y}; "
               f"{when}; Sharpe ratio against {figures.risk_free_pct:g} % a year")
    return table(rows, FIGURE_COLUMNS, caption=caption, css_id=css_id)


def nav_section(doc: ReportDocument, client: SecClient, proj_id: str, performance) -> None:
    """The fund's NAV over the history loaded (five years) over its drawdown, and every class's figures."""
    sec = doc.section("nav", "NAV history and returns")
    nav = FundNav(client)
    run(nav.load(proj_id))
    if nav.history is None:
        sec.add(Note(f"No NAV history: {nav.error}" if nav.error else "No NAV history."))
        return
    older = [n for n in nav.notes if "older service" in n]
    if older:
        sec.add(Caution("Recent weeks only: " + "; ".join(older)))
    nav.range = "MAX"
    classes = nav.classes()
    first = classes[0]
    nav.class_name = first
    history = nav.history.classes[first]
    series = nav.series()
    found = series_gaps(series, history.frequency) if len(series) > 1 else []
    title = "NAV per unit" + (f", {_class_word(first)}" if len(classes) > 1 else "")
    element = safe_chart(lambda: nav_charts.nav_with_drawdown(
        nav_charts.nav_chart(series, nav.distributions(), gaps=found, frequency=history.frequency, title=title),
        nav_charts.drawdown_chart(nav.drawdown(), gaps=found, frequency=history.frequency)))
    doc.chart(sec, element, "NAV history")
    sec.add(Note("NAV per unit in baht; triangles mark distributions (ex dates); shaded bands are days without a "
                 "NAV, left as gaps (never joined or computed across); the drawdown is how far below its previous "
                 "peak the class stood."))
    for name in classes:
        if len(classes) > 1:
            sec.add(Heading(_class_word(name, start=True)))
        sec.add(_figure_table(nav, name, performance, css_id=f"nav-figures-{len(sec.parts)}"))
    gaps = nav.figures().gaps if nav.figures() is not None else ()
    if gaps:
        sec.add(Note("Gaps in the series: " + "; ".join(nav_charts.gap_text(g) for g in gaps) + "."))
    notes = [n for n in nav.notes if n not in older]
    if notes:
        sec.add(Note("What the fetch noticed: " + "; ".join(notes) + "."))


def rebased_section(doc: ReportDocument, client: SecClient, proj_ids: list[str], names: Mapping[str, str]) -> None:
    """The basket's NAVs rebased to 100 on their common start, with the figures since then."""
    sec = doc.section("nav", "NAV compared")
    model = BasketNav(client=client)
    run(model.load(proj_ids))
    names = {p: names.get(p, p) for p in proj_ids}
    for proj_id, reason in model.failed.items():
        sec.add(Note(f"{names[proj_id]}: left out, no NAV to compare ({reason})."))
    start, rebased = model.rebased()
    if start is None:
        sec.add(Note("These funds have no day with a NAV in common: nothing to compare on one chart."))
        return
    doc.chart(sec, safe_chart(nav_charts.rebased_chart, rebased, start, names=names), "NAV rebased to 100")
    figures = model.figures()
    frame = common_figures_frame(figures, names)
    columns = [Column("Fund", "Fund"),
               *(num_col(title, title) if title in RATIO_TITLES else pct_col(title, title) for _, title in COMMON_FIGURES),
               Column("From", "From", nowrap=True), Column("To", "To", nowrap=True)]
    sec.add(table(frame, columns, css_id="nav-common-table",
                  caption=f"Each fund by its first unit class, from {start.day} {start:%b %Y} (the first day every fund has "
                          f"a NAV) to its last NAV; percent. {COMMON_FIGURES_NOTE}"))
    for note in common_figures_notes(figures, names):
        sec.add(Note(note))

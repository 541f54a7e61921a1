"""The regular-investing section of a report: the plan in words, the value-over-time chart and the figures table.

The same words, chart and figures as the Plan tab and `plan dca` (`present.dca`), from results already simulated
(`models.dca.DcaResult`): any report (the plan report, a comparison) adds the section with the results it has.
Class names are service text: they reach the page only through the blocks, which the template escapes.
"""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.models.dca import ESTIMATE_NOTE, DcaResult
from dashboard.present import dca as present
from dashboard.reports.blocks import Caution, Column, Note, table
from dashboard.reports.document import ReportDocument
from dashboard.reports.embed import safe_chart


def dca_section(doc: ReportDocument, results: Sequence[DcaResult], fee_sources: Sequence[str] = (), *,
                ident: str = "dca", heading: str = "Regular investing (estimate)", why_none: str = "") -> None:
    """A section for the monthly plan on each class simulated (the first, and the one beside it), each beside the
    lump sum. `fee_sources` say where each result's front-end fee came from ("the class's published fee", "as given");
    `why_none` is said when there is no result."""
    sec = doc.section(ident, heading)
    sec.add(Caution(ESTIMATE_NOTE))
    results = [r for r in results if r is not None]
    if not results:
        sec.add(Note(why_none or "No regular-investing plan was simulated."))
        return
    sources = list(fee_sources) + [""] * (len(results) - len(fee_sources))
    for result, source in zip(results, sources):
        sec.add(Note(present.plan_text(result, source)))
        for note in result.notes:
            sec.add(Note(note))
    doc.chart(sec, safe_chart(present.value_chart, results), "Value over time")
    sec.add(Note("Solid lines: the monthly plan's value (units at each day's NAV, with the distributions paid so far); "
                 "dashed: the same total put in at the first purchase; grey steps: the money put in."))
    titles = present.column_titles(results)
    frame = present.figures_frame(results)
    columns = [Column(titles["figure"], "figure")] + [Column(titles[c], c, numeric=True) for c in frame.columns[1:]]
    sec.add(table(frame, columns, css_id=f"{ident}-figures",
                  caption="The monthly plan beside putting the same total in at the start, to the last NAV of the plan"))

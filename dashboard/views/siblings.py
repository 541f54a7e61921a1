"""Sibling feeders: the masters with the most Thai feeders, every feeder of one master side by side (how the
master was matched, fees charged beside their ceilings, returns against the cheapest sibling), and the
feeders whose master cannot be decided. A thin view over `FeederFamily`, shown in the Market tab; its
summary is a section of the explorer's fund overview (views.explorer)."""

from __future__ import annotations

import panel as pn
import param

from dashboard.errors import SecApiError
from dashboard.market.feeder_family import FeederFamily
from dashboard.models.dashboard_state import DashboardState
from dashboard.present.siblings import (SIBLING_PERCENT, SIBLING_POINTS, SIBLING_TEXT_WIDTHS, masters_table,
                                        siblings_summary, siblings_table, undecided_table)
from dashboard.present.text import empty_html, esc
from dashboard.views.common import SessionBound, TableSlot, html_pane, notify_error, section_title

# The long texts wrap in their columns (a Thai hedging policy ran to 560 px and pushed the figures off a laptop's
# screen); the rows grow to them.
WRAP_TEXT_CSS = "".join(f".tabulator-row .tabulator-cell[tabulator-field='{field}'] {{white-space: normal !important; "
                        "overflow-wrap: anywhere;}" for field in SIBLING_TEXT_WIDTHS)
# The master's name wraps in a column narrow enough to leave the figures beside it on a phone (frozen at its
# full length, it took a 390 px screen whole).
MASTER_WIDTHS = {"master_name": 190, "matched_by": 300}
WRAP_MATCHED_CSS = "".join(f".tabulator-row .tabulator-cell[tabulator-field='{field}'] {{white-space: normal !important;}}"
                           for field in MASTER_WIDTHS)
MASTERS_NOTE = ("A master groups the Thai feeder funds that invest in one foreign fund, across companies and unit "
                "classes. Total expense as charged (the factsheet's line), never the prospectus ceiling. Pick a "
                "master to see its feeders side by side.")
TABLE_NOTE = ("Fees charged beside their ceilings (what the prospectus allows), never mixed. Returns are total "
              "returns from the daily NAV (distributions reinvested); the difference against the cheapest sibling "
              "(lowest total expense charged) is measured on the days both have a NAV. Volatility: a year of daily "
              "NAV, a year.")
UNDECIDED_NOTE = ("The matching does not guess: these feeders name a master that fits several foreign funds, or name "
                  "none and hold no one foreign fund at 60 % of their NAV.")


def summary_html(family: FeederFamily) -> str:
    """The lines above the sibling table (present.siblings' words), or why there is no table."""
    if not family.has_store:
        return empty_html("No market snapshot yet: make one in the Market tab (or `sec-dashboard market sync`).")
    if family.data is None:
        return empty_html(family.message or "Pick a master above, or a feeder fund in the Fund explorer, to see its "
                                            "sibling feeders.")
    lines = siblings_summary(family.data, family.abbr)
    return "".join(f'<p class="sd-text" style="margin:2px 0">{esc(line)}</p>' for line in lines)


class SiblingsView(pn.viewable.Viewer, SessionBound):
    """`masters` (the masters with the most Thai feeders; picking one shows its feeders), `summary` and
    `table` (one master's feeders side by side) and `undecided` (feeders whose master is not decided)."""

    family = param.ClassSelector(class_=FeederFamily, doc="The sibling feeders' model this view shows.")
    state = param.ClassSelector(class_=DashboardState, default=None, allow_None=True,
                                doc="The dashboard state whose selected fund's siblings are shown; None: only what "
                                    "is picked here.")

    def __init__(self, **params):
        super().__init__(**params)
        self.bind_session()
        family = self.family
        self.masters = TableSlot(percent=["total_expense_min", "total_expense_max"], selectable=1, page_size=10,
                                 hidden_columns=["master_id"], frozen_columns=["master_name"], name="siblings-masters",
                                 widths=MASTER_WIDTHS, stylesheets=[WRAP_MATCHED_CSS],
                                 on_select=self._on_master)
        self.summary = html_pane(pn.bind(lambda *_: summary_html(family), family.param.data, family.param.message,
                                         family.param.has_store), name="siblings-summary")
        self.table = TableSlot(percent=SIBLING_PERCENT, number=SIBLING_POINTS, page_size=20, hidden_columns=["proj_id"],
                               frozen_columns=["proj_abbr_name"], widths=SIBLING_TEXT_WIDTHS, stylesheets=[WRAP_TEXT_CSS],
                               name="siblings-table", css_classes=["sd-siblings-table"],
                               hide_empty=True)  # the note above says why there is no table, not a row of titles
        self.undecided = TableSlot(percent=["holding_pct"], page_size=10, hidden_columns=["proj_id"],
                                   name="siblings-undecided")
        family.param.watch(self.invalidate, ["data", "masters", "undecided", "has_store"])
        if self.state is not None:
            self.state.param.watch(self._fund_changed, ["fund"])
        self._layout = pn.Column(
            section_title("Masters with the most Thai feeders"),
            pn.pane.Markdown(MASTERS_NOTE, margin=(0, 10)),
            self.masters,
            section_title("Sibling feeders: every Thai fund feeding one master"),
            self.summary,
            self.table,
            pn.pane.Markdown(TABLE_NOTE, margin=(0, 10)),
            section_title("Feeders whose master is not decided"),
            pn.pane.Markdown(UNDECIDED_NOTE, margin=(0, 10)),
            self.undecided,
            sizing_mode="stretch_width", loading=family.param.loading, name="siblings-view")
        self.render()

    def __panel__(self):
        return self._layout

    async def refresh(self) -> None:
        """Read the snapshot anew (the tab is shown), for the state's fund when there is one."""
        try:
            await self.family.refresh(self.state.fund if self.state is not None else None)
        except SecApiError as exc:
            notify_error(exc, "The sibling feeders could not be read")

    async def _fund_changed(self, event) -> None:
        try:
            await self.family.show_fund(event.new or "")
        except SecApiError as exc:
            notify_error(exc, "The sibling feeders could not be read")

    async def _on_master(self, rows: list[int]) -> None:
        frame = self.masters.value
        if not rows or rows[0] >= len(frame):
            return
        try:
            await self.family.show_master(str(frame.iloc[rows[0]]["master_id"]))
        except SecApiError as exc:
            notify_error(exc, "The master's feeders could not be read")

    def invalidate(self, *_) -> None:
        if not self.session_ended():
            self.render()

    def render(self) -> None:
        family = self.family
        masters = masters_table(family.masters)
        shown = family.data["master"]["master_id"] if family.data and family.data.get("master") else None
        ids = masters["master_id"].tolist()
        self.masters.show(masters, selection=[ids.index(shown)] if shown in ids else [])
        self.table.show(siblings_table(family.data))
        self.undecided.show(undecided_table(family.undecided))


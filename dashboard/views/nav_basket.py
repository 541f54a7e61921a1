"""The basket on one NAV chart: every fund's NAV rebased to 100 on the common start, with its figures since then.

A thin view over `models.basket_nav.BasketNav`, shown under the fund's NAV history in the NAV tab
(as the Performance tab shows the basket under the fund). It fetches when asked (`refresh`: the
tab is shown, the basket changed), never while hidden.
"""

from __future__ import annotations

import pandas as pd
import panel as pn
import param

from dashboard.errors import SecApiError
from dashboard.models.basket_nav import BasketNav
from dashboard.models.dashboard_state import DashboardState
from dashboard.present import nav_charts
from dashboard.present.nav_compare import COMMON_FIGURES_NOTE, PERCENT_TITLES, RATIO_TITLES, common_figures_frame, common_figures_notes
from dashboard.present.text import empty_html, esc
from dashboard.views.common import (SessionBound, TableSlot, basket_state_html, chart_pane, html_pane, html_text,
                                    notify_error, section_title)


class BasketNavSection(pn.viewable.Viewer, SessionBound):
    """`chart` (rebased to 100), `table` (figures since the common start), `note` (what is left out and why)."""

    state = param.ClassSelector(class_=DashboardState, doc="The dashboard state whose basket is compared.")

    def __init__(self, **params):
        super().__init__(**params)
        self.bind_session()
        state = self.state
        self.model = BasketNav(client=state.factsheet.api, risk_free_pct=float(getattr(state.nav, "risk_free_pct", 0.0)))
        self.note = html_pane(name="nav-basket-note")
        self.chart = chart_pane("nav-basket-chart")
        self.table = TableSlot(percent=PERCENT_TITLES, number=RATIO_TITLES, page_size=10, name="nav-basket-table",
                               hide_empty=True)
        self.model.param.watch(self.render, ["histories", "failed"])
        self._layout = pn.Column(
            section_title("The basket on one chart"),
            self.note,
            pn.Column(self.chart, self.table, loading=self.model.param.loading, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )
        self.render()

    def __panel__(self):
        return self._layout

    async def refresh(self) -> None:
        """Fetch the basket's histories when the basket is not the one compared."""
        ids = list(self.state.basket.proj_ids)
        if ids == self.model.proj_ids or self.model.loading:
            return
        try:
            await self.model.load(ids)
        except SecApiError as exc:
            notify_error(exc, "The basket's NAV histories could not be loaded")

    def names(self) -> dict[str, str]:
        return {p: self.state.basket.label(p) for p in self.model.proj_ids}

    def render(self, *_) -> None:
        if self.session_ended():
            return
        model, names = self.model, self.names()
        start, rebased = model.rebased()
        figures = model.figures()
        self.chart.object = (nav_charts.rebased_chart(rebased, start, names=names) if model.histories
                             else nav_charts.empty_chart(self._empty_text()))
        self.table.show(common_figures_frame(figures, names) if figures else pd.DataFrame())
        self.note.object = html_text(self._note_html(start, figures, names))

    def _empty_text(self) -> str:
        if not self.state.basket.proj_ids:
            return "The basket is empty: add funds from the Fund explorer"
        return "Loading the basket's NAVs…" if self.model.loading or not self.model.proj_ids else "No NAV to compare"

    def _note_html(self, start, figures, names) -> str:
        note = basket_state_html(self.state)
        if note is not None:
            return note
        parts = []
        if start is not None:
            parts.append(f'<span class="sd-muted">Each fund by its first unit class. Rebased to 100 on '
                         f'{start.day} {start:%b %Y}, the first day every fund has a NAV; the table measures from the same '
                         f'day to each fund\'s last NAV (percent; Sharpe ratio against the risk-free rate of '
                         f'{self.model.risk_free_pct:g} % a year). {esc(COMMON_FIGURES_NOTE)}</span>')
        elif self.model.histories:
            parts.append(empty_html("These funds have no day with a NAV in common: nothing to compare on one chart."))
        if self.model.failed:
            left_out = "; ".join(f"{names.get(p, p)}: {reason}" for p, reason in self.model.failed.items())
            parts.append(empty_html(f"Left out (no NAV to compare): {left_out}"))
        notes = common_figures_notes(figures, names)
        if notes:
            parts.append("<ul class=\"sd-muted\" style=\"font-size:.85em\">"
                         + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
        return "".join(str(p) for p in parts)

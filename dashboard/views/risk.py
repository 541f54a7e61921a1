"""Risk spectrum: the basket's funds on the RS1 to RS8+ scale, against fees and against return."""

from __future__ import annotations

import panel as pn

from dashboard.present import charts, risk_charts
from dashboard.views.common import (TableSlot, TabView, basket_state_html, chart_pane, failed_part_html, html_pane,
                                    section_title, stale_badge)
from dashboard.present.text import display_frame, empty_html, status_text

TABLE_COLUMNS = ["fund", "risk_spectrum", "risk_level", "total_annual_fee", "return_1y", "fund_status", "name_en", "name_th"]
TITLES = {"fund": "Fund", "name_en": "English name", "name_th": "Thai name", "fund_status": "Status",
          "risk_spectrum": "Risk code", "risk_level": "Risk level", "total_annual_fee": "Total annual fee (actual)",
          "return_1y": "1-year return"}
def table_frame(risk):
    """The Risk table as shown: the fund status in words with its code beside it ("registered (RG)")."""
    frame = display_frame(risk, TABLE_COLUMNS)
    return frame.assign(fund_status=frame["fund_status"].map(status_text))


class RiskView(TabView):
    """Where the basket's funds sit on the risk scale, with their fees and 1-year return; `table` lists
    them and `note` says what is missing or failed."""


    def __init__(self, **params):
        super().__init__(**params)
        basket, state = self.state.basket, self.state
        changes = (state.param.basket_revision, state.param.basket_error)
        # The notes and charts are bound to the state; the table is redrawn in render() (a Tabulator
        # table is only patched while its view is in the page: see TabView).
        self.note = html_pane(pn.bind(self._note_html, *changes))
        self._spectrum = chart_pane("risk-spectrum")
        self._spectrum.object = pn.bind(self._chart, risk_charts.risk_spectrum_chart, *changes)
        self._fees = chart_pane("risk-fees")
        self._fees.object = pn.bind(self._chart, risk_charts.risk_scatter, *changes, measure="total_annual_fee")
        self._returns = chart_pane("risk-returns")
        self._returns.object = pn.bind(self._chart, risk_charts.risk_scatter, *changes, measure="return_1y")
        self.table = TableSlot(titles=TITLES, percent=["total_annual_fee", "return_1y"], page_size=15, name="risk-table")
        self.state.param.watch(self.invalidate, ["basket_revision", "basket_error"])
        self._layout = pn.Column(
            pn.Row(section_title("The basket on the risk spectrum"), stale_badge(basket)),
            self.note,
            pn.Column(self._spectrum, self._fees, self._returns,  # one under the other: side by side they overflow a phone
                      pn.pane.Markdown("Total annual fee: the fund's *total fee and expense* as actually charged, else management "
                                       "+ trustee + registrar fees actually charged (first unit class); never a "
                                       "prospectus ceiling. Hover a point for the fund.", margin=(0, 10)),
                      self.table, loading=basket.param.loading, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )
        self.render()

    def __panel__(self):
        return self._layout

    def _chart(self, draw, *_, measure: str | None = None):
        basket = self.state.basket
        if not basket.proj_ids:
            return charts.empty_chart("The basket is empty: add funds from the Fund explorer")
        risk = basket.risk_frame()
        return draw(risk) if measure is None else draw(risk, measure)

    def _note_html(self, *_) -> str:
        basket, state = self.state.basket, self.state
        note = basket_state_html(state)
        if note is not None:
            return note
        notes = [failed_part_html(basket, "suitability", "Risk levels")]
        unpublished = basket.without_risk_level()
        if unpublished:
            notes.append(empty_html(f"No risk level published for: {', '.join(unpublished)}."))
        return "".join(notes)

    def render(self) -> None:
        self.table.show(table_frame(self.state.basket.risk_frame()))

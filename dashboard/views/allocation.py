"""Asset allocation: a ring (or signed bars) and a table for the selected fund, stacked bars across the basket."""

from __future__ import annotations

import html

import panel as pn

from dashboard.models.dashboard_state import DashboardState
from dashboard.models.fund import fund_label
from dashboard.present import charts
from dashboard.views.basket_amounts import BasketAmountsSection
from dashboard.views.common import TableSlot, TabView, chart_pane, failed_part_html, html_pane, section_title, stale_badge
from dashboard.present.text import asset_name_text, display_frame, empty_html

TITLES = {"asset_seq": "#", "asset_name": "Asset", "asset_ratio": "% of NAV"}
BASKET_TITLES = {"fund": "Fund", "asset_name": "Asset", "asset_ratio": "% of NAV"}


def fund_title(state: DashboardState) -> str:
    return fund_label(state.factsheet.fund or state.fund_record(state.fund), state.fund)


def with_asset_names(frame):
    """Asset names with the English first where the service's text carries it in parentheses."""
    return frame.assign(asset_name=frame["asset_name"].map(lambda n: asset_name_text(n) or n))


def basket_note_html(basket, frame) -> str:
    """Names the basket's funds the chart leaves out, and why, as the Fees and Risk tabs do."""
    shown = set() if frame is None or frame.empty else set(frame.dropna(subset=["asset_ratio"])["proj_id"].astype(str))
    failed = basket.failed_part("allocation")
    unpublished = [p for p in basket.proj_ids if p in basket.loaded and p not in failed and p not in shown]
    notes = [failed_part_html(basket, "allocation", "Asset allocation")]
    if unpublished:
        notes.append(empty_html(f"No asset allocation published for: {', '.join(basket.label(p) for p in unpublished)}; "
                                "the chart leaves them out."))
    return "".join(notes)


class AllocationView(TabView):
    """The selected fund's asset allocation (`table`, with `note` when there is none) and the basket's
    side by side."""


    def __init__(self, **params):
        super().__init__(**params)
        state = self.state
        sheet, basket = state.factsheet, state.basket
        fund_changes = (sheet.param.allocation, state.param.fund_error, state.param.fund)
        # Notes and charts are bound to the state; render() makes the tables anew (see TableSlot).
        self.note = html_pane(pn.bind(self._note_html, *fund_changes))
        self._basket_note = html_pane(pn.bind(self._basket_note_html, state.param.basket_revision))
        self.table = TableSlot(titles=TITLES, percent=["asset_ratio"], page_size=12, layout="fit_columns",
                               name="allocation-table", widths={"asset_seq": 48, "asset_ratio": 100})
        self._donut = chart_pane("allocation-donut", sizing_mode="fixed")
        self._donut.object = pn.bind(self._donut_chart, *fund_changes)
        self._stacked = chart_pane("allocation-stacked")
        self._stacked.object = pn.bind(self._stacked_chart, state.param.basket_revision)
        self._basket_table = TableSlot(titles=BASKET_TITLES, percent=["asset_ratio"], page_size=10, layout="fit_columns")
        self.amounts = BasketAmountsSection(state=state)  # the basket with amounts: weighed, looked through, one NAV
        sheet.param.watch(self.invalidate, ["allocation"])
        state.param.watch(self.invalidate, ["fund_error", "basket_revision"])
        self._layout = pn.Column(
            pn.Row(section_title("Selected fund"), stale_badge(sheet)),
            self.note,
            # A flex box wraps the table under the chart on a phone instead of pushing it off-screen.
            pn.FlexBox(self._donut, pn.Column(self.table, min_width=300, max_width=420, sizing_mode="stretch_width"),
                       flex_wrap="wrap", sizing_mode="stretch_width", loading=sheet.param.loading),
            pn.Row(section_title("Across the basket"), stale_badge(basket)),
            self._basket_note,
            pn.Column(self._stacked, self._basket_table, sizing_mode="stretch_width", loading=basket.param.loading),
            self.amounts,
            sizing_mode="stretch_width",
        )
        self.render()

    def __panel__(self):
        return self._layout

    def _allocation(self):
        """The selected fund's allocation; none under a load error (never the previous fund's figures)."""
        allocation = self.state.factsheet.allocation
        return allocation.iloc[0:0] if self.state.fund_error and allocation is not None else allocation

    def _note_html(self, *_) -> str:
        state, allocation = self.state, self._allocation()
        if state.fund_error:
            return empty_html(f"The fund could not be loaded: {state.fund_error}", error=True)
        if allocation is None or allocation.empty:
            return empty_html("The service publishes no asset allocation for this fund.") if state.fund else ""
        # One caption for the tab and the report: the total, and any line below zero named.
        return f'<span class="sd-muted">{html.escape(charts.allocation_caption(allocation))}</span>'

    def _donut_chart(self, *_):
        if self.state.fund_error:
            return charts.empty_chart("The fund could not be loaded")
        name = fund_title(self.state)
        return charts.allocation_chart(self._allocation(), title=f"Asset allocation, {name}" if name else "Asset allocation")

    def _stacked_chart(self, *_):
        basket = self.state.basket
        if not basket.proj_ids:
            return charts.empty_chart("The basket is empty: add funds from the Fund explorer")
        return charts.allocation_stacked(basket.allocation_frame())

    def _basket_note_html(self, *_) -> str:
        basket = self.state.basket
        return basket_note_html(basket, basket.allocation_frame()) if basket.proj_ids else ""

    def render(self) -> None:
        self.table.show(with_asset_names(display_frame(self._allocation(), list(TITLES))))
        frame = self.state.basket.allocation_frame()
        self._basket_table.show(with_asset_names(display_frame(frame, list(BASKET_TITLES))))

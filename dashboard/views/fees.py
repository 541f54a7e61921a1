"""Fees across the basket: actual charges and prospectus ceilings side by side, never mixed."""

from __future__ import annotations

import panel as pn
import panel_material_ui as pmui
import param

from dashboard.models.basket import FEE_COLUMNS
from dashboard.present import charts
from dashboard.views.common import (TableSlot, TabView, basket_state_html, chart_pane, failed_part_html, html_pane,
                                    section_title, stale_badge)
from dashboard.present.text import display_frame, empty_html

TABLE_COLUMNS = ["fund", "class_abbr_name", "fee_type_en", "fee_type_th", "rate", "rate_unit", "actual_value",
                 "actual_value_unit", "fee_other_desc", "rate_num", "actual_value_num"]
TITLES = {"fund": "Fund", "fee_type_en": "Fee type", "fee_type_th": "Fee type (Thai)",
          "rate": "Prospectus ceiling (as published)", "rate_unit": "Ceiling unit", "actual_value": "Actually charged (as published)",
          "actual_value_unit": "Charge unit", "fee_other_desc": "Remark", "rate_num": "Ceiling, figure",
          "actual_value_num": "Charged, figure"}
ALL_TYPES = "All fee types"
# A chart of a line of two: half the line, never narrower than a phone's screen.
CHART_IN_LINE = {"styles": {"flex": "1 1 320px"}}


class FeesView(TabView):
    """Fee comparison across the basket by fee type and unit class: `actual_chart` and `ceiling_chart`,
    `table` (every fee) and `note` (what is missing or failed)."""

    fee_type = param.Selector(default=ALL_TYPES, objects=[ALL_TYPES], doc="Fee type the charts show.")

    def __init__(self, **params):
        super().__init__(**params)
        basket = self.state.basket
        self._sync_types()
        self.state.param.watch(self._sync_types, ["basket_revision"])
        self._type_select = pmui.Select.from_param(self.param.fee_type, label="Fee type in the charts", width=320)
        changes = (self.state.param.basket_revision, self.state.param.basket_error)
        # The note and the charts are bound to the state and the chosen type; render() makes the table anew.
        self.note = html_pane(pn.bind(self._note_html, *changes))
        self.actual_chart = chart_pane("fees-actual", **CHART_IN_LINE)
        self.actual_chart.object = pn.bind(self._chart, "actual_value_num", self.param.fee_type, *changes)
        self.ceiling_chart = chart_pane("fees-ceiling", **CHART_IN_LINE)
        self.ceiling_chart.object = pn.bind(self._chart, "rate_num", self.param.fee_type, *changes)
        # Fee drag: what the charged fees take from 100,000 THB over 10 years (docs/feeders.md)
        self.drag_chart = chart_pane("fees-drag", sizing_mode="stretch_width")
        self.drag_chart.object = pn.bind(self._drag_chart, *changes)
        self.table = TableSlot(titles=TITLES, page_size=12, number=["rate_num", "actual_value_num"], header_filters=True,
                               name="fees-table", frozen_columns=["fund"])
        self.state.param.watch(self.invalidate, ["basket_revision", "basket_error"])
        self._layout = pn.Column(
            pn.FlexBox(self._type_select, stale_badge(basket), sizing_mode="stretch_width"),  # wraps on a phone
            self.note,
            pn.Column(
                # Side by side where they fit, one above the other on a phone (a row cut the second off).
                pn.FlexBox(self.actual_chart, self.ceiling_chart, sizing_mode="stretch_width"),
                pn.pane.Markdown(
                    "*Actual charge* is what the fund takes now; the *prospectus ceiling* is the most "
                    "it may take. The two are never mixed: each chart shows one of them. The table keeps "
                    "the service's own text; use the filters under the column titles.", margin=(0, 10)),
                section_title("What the charged fees take over the years"),
                self.drag_chart,
                section_title("Every fee of every fund in the basket"),
                self.table,
                loading=basket.param.loading, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )
        self.render()

    def __panel__(self):
        return self._layout

    def _sync_types(self, *_):
        basket = self.state.basket
        objects = [ALL_TYPES, *basket.fee_types()]
        current = self.fee_type
        first_choice = current == ALL_TYPES and list(self.param.fee_type.objects) == [ALL_TYPES]
        if current not in objects or first_choice:
            current = basket.preferred_fee_type() or ALL_TYPES
        self.param.fee_type.objects = objects
        self.fee_type = current

    def _chart(self, value, fee_type, *_):
        basket = self.state.basket
        if not basket.proj_ids:
            return charts.empty_chart("The basket is empty: add funds from the Fund explorer")
        chosen = None if fee_type == ALL_TYPES else fee_type
        return charts.fee_bars(basket.fee_frame(chosen), value=value, fee_type=chosen)

    def _drag_chart(self, *_):
        from dashboard.models.fee_drag import DEFAULT_AMOUNT, DEFAULT_RETURN_PCT, DEFAULT_YEARS, basket_fee_drag
        from dashboard.present.siblings import fee_drag_chart

        basket = self.state.basket
        if not basket.proj_ids:
            return charts.empty_chart("The basket is empty: add funds from the Fund explorer")
        frame = basket_fee_drag(basket.fee_frame(), DEFAULT_AMOUNT, DEFAULT_YEARS, DEFAULT_RETURN_PCT)
        return fee_drag_chart(frame, DEFAULT_AMOUNT, DEFAULT_YEARS, DEFAULT_RETURN_PCT)

    def _note_html(self, *_) -> str:
        basket, state = self.state.basket, self.state
        note = basket_state_html(state)
        if note is not None:
            return note
        failed = basket.failed_part("fees")
        missing = [basket.label(p) for p in basket.unpublished("fees")]
        notes = [failed_part_html(basket, "fees", "Fees")]
        if basket.fee_frame().empty and basket.loaded and not failed:
            notes.append(empty_html("The service publishes no fees for the funds in the basket."))
        elif missing:
            notes.append(empty_html(f"No fees published for: {', '.join(missing)}."))
        return "".join(notes)

    def render(self) -> None:
        frame = self.state.basket.fee_frame()
        self.table.show(display_frame(frame[[c for c in FEE_COLUMNS if c in frame]], TABLE_COLUMNS))

"""Fees across the basket: actual charges and prospectus ceilings side by side, never mixed."""

from __future__ import annotations

from datetime import date

import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import BadInputError, SecApiError
from dashboard.models.basket import FEE_COLUMNS
from dashboard.models.fee_drag import DEFAULT_AMOUNT, DEFAULT_RETURN_PCT, DEFAULT_YEARS, check_inputs
from dashboard.present import charts
from dashboard.views.common import (TableSlot, TabView, basket_state_html, chart_pane, failed_part_html, html_pane,
                                    section_title, stale_badge, text_box)
from dashboard.present.text import display_frame, empty_html, esc

TABLE_COLUMNS = ["fund", "class_abbr_name", "fee_type_en", "fee_type_th", "rate", "rate_unit", "actual_value",
                 "actual_value_unit", "fee_other_desc", "rate_num", "actual_value_num"]
TITLES = {"fund": "Fund", "fee_type_en": "Fee type", "fee_type_th": "Fee type (Thai)",
          "rate": "Prospectus ceiling (as published)", "rate_unit": "Ceiling unit", "actual_value": "Actually charged (as published)",
          "actual_value_unit": "Charge unit", "fee_other_desc": "Remark", "rate_num": "Ceiling, figure",
          "actual_value_num": "Charged, figure"}
ALL_TYPES = "All fee types"


class FeesView(TabView):
    """Fee comparison across the basket by fee type and unit class: `actual_chart` and `ceiling_chart`,
    `table` (every fee) and `note` (what is missing or failed)."""

    fee_type = param.Selector(default=ALL_TYPES, objects=[ALL_TYPES], doc="Fee type the charts show.")
    # The fee-drag chart's inputs as typed, and as applied once they read as a usable amount, period and return
    amount_text = param.String(default="100,000", doc="The fee drag's amount as typed (baht).")
    years_text = param.String(default="10", doc="The fee drag's holding period as typed (whole years).")
    return_text = param.String(default="", doc="The fee drag's yearly return before fees as typed (percent); empty: "
                                               "each class's own 5-year NAV return, else a stated 5 %.")
    drag_inputs = param.Dict(default={"amount": DEFAULT_AMOUNT, "years": DEFAULT_YEARS, "return_pct": None},
                             doc="The inputs the fee-drag chart is drawn with (the last usable ones typed).")
    drag_error = param.String(default="", doc="Why the inputs typed last cannot be used (the chart keeps the last "
                                              "usable ones); empty when they are used.")
    nav_returns = param.Dict(default={}, doc="(proj_id, class) -> (5-year NAV return, its day) of the basket's "
                                             "classes, from the market snapshot (empty without one).")

    def __init__(self, **params):
        super().__init__(**params)
        basket = self.state.basket
        self._sync_types()
        self.state.param.watch(self._sync_types, ["basket_revision"])
        self._type_select = pmui.Select.from_param(self.param.fee_type, label="Fee type in the charts", width=320)
        changes = (self.state.param.basket_revision, self.state.param.basket_error)
        # The note and the charts are bound to the state and the chosen type; render() makes the table anew.
        self.note = html_pane(pn.bind(self._note_html, *changes))
        self.actual_chart = chart_pane("fees-actual")
        self.actual_chart.object = pn.bind(self._chart, "actual_value_num", self.param.fee_type, *changes)
        self.ceiling_chart = chart_pane("fees-ceiling")
        self.ceiling_chart.object = pn.bind(self._chart, "rate_num", self.param.fee_type, *changes)
        # Fee drag: what the charged fees take from 100,000 THB over 10 years (docs/feeders.md)
        self.drag_chart = chart_pane("fees-drag", sizing_mode="stretch_width")
        self.drag_chart.object = pn.bind(self._drag_chart, self.param.drag_inputs, self.param.nav_returns, *changes)
        self.drag_note = html_pane(pn.bind(self._drag_note_html, self.param.drag_inputs, self.param.nav_returns,
                                           self.param.drag_error, *changes), name="fees-drag-note")
        self._drag_boxes = pn.FlexBox(
            text_box(self.param.amount_text, None, label="Amount (baht)", width=160, name="fees-drag-amount"),
            text_box(self.param.years_text, None, label="Years held", width=120, name="fees-drag-years"),
            text_box(self.param.return_text, None, label="Yearly return before fees (%)",
                     placeholder="each class's own 5-year NAV return", width=300, name="fees-drag-return"),
            sizing_mode="stretch_width")
        self.param.watch(self._inputs_typed, ["amount_text", "years_text", "return_text"])
        self.state.param.watch(self.refresh_returns, ["basket_revision"])
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.onload(self.refresh_returns)
        self.table = TableSlot(titles=TITLES, page_size=12, number=["rate_num", "actual_value_num"], header_filters=True,
                               name="fees-table", frozen_columns=["fund"])
        self.state.param.watch(self.invalidate, ["basket_revision", "basket_error"])
        self._layout = pn.Column(
            pn.FlexBox(self._type_select, stale_badge(basket), sizing_mode="stretch_width"),  # wraps on a phone
            self.note,
            pn.Column(
                # One above the other, in the column itself: side by side in a FlexBox (Panel's HTML flex box, not
                # a Bokeh layout) they were never laid out when the view was served alone (a Bokeh plot outside the
                # box in the same column, three columns deep): slanted names, no bars, and the document never idle,
                # so no `pn.state.onload` callback ran. A Row cut the second off on a phone.
                self.actual_chart,
                self.ceiling_chart,
                pn.pane.Markdown(
                    "*Actual charge* is what the fund takes now; the *prospectus ceiling* is the most "
                    "it may take. The two are never mixed: each chart shows one of them. The table keeps "
                    "the service's own text; use the filters under the column titles.", margin=(0, 10)),
                section_title("What the charged fees take over the years"),
                self._drag_boxes,
                self.drag_note,
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

    def _inputs_typed(self, *_):
        """Apply the typed inputs when they read as a usable amount, period and return; else say why, once."""
        try:
            amount = float(self.amount_text.replace(",", "").replace("_", "").strip())
            years_text = self.years_text.strip()
            years = int(years_text) if years_text.lstrip("-").isdigit() else float(years_text)
            ret_text = self.return_text.replace("%", "").strip()
            ret = float(ret_text) if ret_text else None
        except ValueError:
            self.drag_error = ("Type the amount in baht (e.g. 100,000), the years as a whole number and the return as "
                               "a percentage (e.g. 5), or leave the return empty.")
            return
        try:
            check_inputs(amount, years, DEFAULT_RETURN_PCT if ret is None else ret)
        except BadInputError as exc:
            self.drag_error = str(exc)[:1].upper() + str(exc)[1:] + "."
            return
        self.param.update(drag_error="", drag_inputs={"amount": amount, "years": years, "return_pct": ret})

    async def refresh_returns(self, *_):
        """The basket's classes' 5-year NAV returns from the market snapshot (none without one)."""
        from dashboard.market.feeders import class_nav_returns

        market, ids = getattr(self.state, "market", None), list(self.state.basket.proj_ids)
        if market is None or not ids:
            self.nav_returns = {}
            return
        try:
            self.nav_returns = await market.ask(lambda store: class_nav_returns(store, ids))
        except SecApiError:
            self.nav_returns = {}  # the chart then carries every class at the stated return

    def _drag_frame(self):
        from dashboard.models.fee_drag import basket_fee_drag

        inputs = self.drag_inputs
        return basket_fee_drag(self.state.basket.fee_frame(), inputs["amount"], inputs["years"], inputs["return_pct"],
                               self.nav_returns)

    def _drag_chart(self, *_):
        from dashboard.present.siblings import fee_drag_chart

        basket = self.state.basket
        if not basket.proj_ids:
            return charts.empty_chart("The basket is empty: add funds from the Fund explorer")
        inputs = self.drag_inputs
        return fee_drag_chart(self._drag_frame(), inputs["amount"], inputs["years"], inputs["return_pct"])

    def _drag_note_html(self, *_) -> str:
        from dashboard.present.siblings import fee_drag_inputs_lines

        if not self.state.basket.proj_ids:
            return ""
        error = empty_html(self.drag_error, error=True) if self.drag_error else ""
        lines = fee_drag_inputs_lines(self._drag_frame(), self.drag_inputs, date.today())
        return error + "".join(f'<p class="sd-text" style="margin:2px 10px">{esc(line)}</p>' for line in lines)

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

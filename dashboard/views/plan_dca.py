"""Regular investing: a monthly plan simulated on the selected fund's real NAVs, beside a lump sum and another class.

A thin view over `models.dca.RegularInvesting` (the plan's inputs and results) and its own
`models.nav.FundNav` (ten years of every class's NAVs and distributions of the selected fund, loaded when
the view is shown; the NAV tab's class and range are left alone). The inputs are made from the model's
parameters; each change simulates again; a plan that cannot be simulated says why in one line and leaves
the results shown as they were. The chart and the figures are made anew from each result (`present.dca`).
Every result is said to be an estimate, not investment advice.
"""

from __future__ import annotations

from datetime import date

import pandas as pd
import panel as pn
import panel_material_ui as pmui

from dashboard.errors import SecApiError
from dashboard.models.dca import ESTIMATE_NOTE, PAID, REINVESTED, RegularInvesting, front_end_fee
from dashboard.models.fund import SINGLE_CLASS
from dashboard.models.nav import FundNav
from dashboard.present import dca as present
from dashboard.present.charts import empty_chart
from dashboard.present.text import empty_html, esc
from dashboard.views.common import (TableSlot, TabView, chart_pane, html_pane, html_text, notify_error,
                                    optional_number_box, section_title)

YEARS_LOADED = 10  # a ten-year plan at most (the quarters before a class's launch come back empty)
DEFAULT_YEARS = 3  # the plan shown first starts this many years before the last NAV
# The select's values are words (a None value shows an empty select); "class" is the model's None.
POLICY_OPTIONS = {"As the class does (paid)": "class", "Paid to me in cash": PAID, "Reinvested": REINVESTED}
NO_COMPARISON = "(none)"
INPUTS = ["monthly", "day", "start", "end", "front_end_pct", "distributions", "class_key", "compare_key"]


def class_text(name: str) -> str:
    return "Single class fund" if name in ("", SINGLE_CLASS) else name


def class_key(name: str) -> str:
    """The plan's key of a class: its name; the fund's only class ("") as SINGLE_CLASS ("" is no class)."""
    return name or SINGLE_CLASS


def class_name(key: str) -> str:
    return "" if key == SINGLE_CLASS else key


class DcaView(TabView):
    """The plan's inputs, the estimate note (with the plan in words, or why it could not be simulated), the
    value-over-time chart (`chart`) and the figures of the monthly plan beside the lump sum (`figures`)."""

    def __init__(self, **params):
        super().__init__(**params)
        self.plan = RegularInvesting()
        self.history = FundNav(self.state.client)
        plan = self.plan
        self.monthly_input = pmui.FloatInput.from_param(plan.param.monthly, label="Baht each month", step=500,
                                                        width=150, margin=(4, 8))
        self.day_input = pmui.IntInput.from_param(plan.param.day, label="Day of the month", width=130, margin=(4, 8))
        self.start_input = pmui.DatePicker.from_param(plan.param.start, label="From", width=160, margin=(4, 8))
        self.end_input = pmui.DatePicker.from_param(plan.param.end, label="To (empty: last NAV)", width=210,
                                                    margin=(4, 8))
        # Empty (None) is the class's published fee: the box is empty and says so (a number input showed "0.0").
        self.input_error = ""  # a box's text that is no fee, until an input changes
        self.fee_input = optional_number_box(plan, "front_end_pct", what="the front-end fee (%)", example="1.5",
                                             decimals=2,
                                             label="Front-end fee (%)", placeholder="published", width=200,
                                             helper_text="Empty: the published fee",
                                             margin=(4, 8), on_error=self._typed_wrong)
        self.policy_select = pmui.Select(label="Distributions", options=POLICY_OPTIONS, value="class", width=220,
                                         margin=(4, 8))
        self.policy_select.param.watch(
            lambda e: setattr(plan, "distributions", None if e.new == "class" else e.new), "value")
        self.class_select = pmui.Select(label="Unit class", options={}, width=200, margin=(4, 8))
        self.class_select.param.watch(lambda e: setattr(plan, "class_key", e.new or ""), "value")
        self.compare_select = pmui.Select(label="Beside the class", options={NO_COMPARISON: ""}, value="", width=200,
                                          margin=(4, 8))
        self.compare_select.param.watch(lambda e: setattr(plan, "compare_key", e.new or ""), "value")
        self.note = html_pane(name="dca-note")
        self.chart = chart_pane("dca-chart", min_height=present.CHART_HEIGHT)
        self.figures = TableSlot(titles={"figure": "Figure"}, page_size=20, frozen_columns=["figure"],
                                 widths={"figure": 270}, name="dca-figures", hide_empty=True)
        plan.param.watch(self._inputs_changed, INPUTS)
        self.state.param.watch(self._fund_changed, ["fund"])
        self._layout = pn.Column(
            section_title("Regular investing (estimate)"),
            pn.FlexBox(self.class_select, self.monthly_input, self.day_input, self.start_input, self.end_input,
                       self.fee_input, self.policy_select, self.compare_select, sizing_mode="stretch_width"),
            self.note,
            pn.Column(self.chart, loading=self.history.param.loading, sizing_mode="stretch_width"),
            self.figures,
            sizing_mode="stretch_width", name="dca-view",
        )
        self.render()  # (the fund's history is read by `refresh`, awaited by whoever shows the view)

    def __panel__(self):
        return self._layout

    # ---- loading -----------------------------------------------------------------------------------

    def _fund_changed(self, *_) -> None:
        if pn.state.curdoc is not None:
            pn.state.execute(self.refresh)

    async def refresh(self) -> None:
        """Load the selected fund's classes when they are not the ones loaded, then simulate."""
        fund = self.state.fund
        if fund and self.history.proj_id != fund:
            try:
                await self.history.load(fund, years=YEARS_LOADED)
            except SecApiError as exc:
                notify_error(exc, "The NAV history could not be loaded")
            # The pickers and the plan set for the new fund, then one simulation and chart: each of the
            # class, comparison and dates set below re-simulated and redrew the plan (four renders per fund).
            self._settling = True
            try:
                self._loaded()
            finally:
                self._settling = False
        self.render()

    def _loaded(self) -> None:
        """A new fund's classes: the pickers' options, and a plan that fits the history (three years to its end)."""
        names = self.history.classes() if self.history.history is not None else []
        options = {class_text(n): class_key(n) for n in names}
        key = class_key(names[0]) if names else ""
        with pn.io.hold():
            self.class_select.param.update(options=options, value=key or None, visible=bool(names))
            self.compare_select.param.update(options={NO_COMPARISON: "", **options}, value="")
        last = self.history.last_nav_date()
        firsts = [self.first_nav(class_key(n)) for n in names]
        start = None
        if last is not None and firsts:
            wanted = date(last.year - DEFAULT_YEARS, last.month, 1)
            start = max(wanted, firsts[0])
        self.plan.param.update(class_key=key, compare_key="", start=start, end=None)

    def first_nav(self, key: str) -> date:
        """The first NAV date of a class (by its key)."""
        return pd.Timestamp(self.history.history.classes[class_name(key)].nav["nav_date"].iloc[0]).date()

    def histories(self) -> dict[str, tuple[str, pd.DataFrame, pd.DataFrame]]:
        loaded = self.history.history
        if loaded is None or self.history.proj_id != self.state.fund:
            return {}
        return {class_key(name): (class_text(name), c.nav, c.dividends) for name, c in loaded.classes.items()}

    def fees(self) -> dict[str, float | None]:
        sheet = self.state.factsheet
        if sheet is None or sheet.proj_id != self.state.fund or sheet.fees is None:
            return {}
        return {key: front_end_fee(sheet.fees, class_name(key)) for key in self.histories()}

    def report_parts(self) -> dict:
        """What the plan report takes from this section: the results shown (none: why) and where their fees came from."""
        results = [r for r in (self.plan.result, self.plan.compare_result) if r is not None] if self.histories() else []
        if not results:
            return {"dca_note": "No regular-investing plan is shown: " + (
                "select a fund in the Fund explorer." if not self.state.fund else
                self.plan.error or self.history.error or "its NAV history is not loaded yet.")}
        return {"dca": results, "fee_sources": [self._fee_source(r) for r in results]}

    def _fee_source(self, result) -> str:
        if self.plan.front_end_pct is not None:
            return "as given"
        return "the class's published fee" if self.fees().get(self._key(result)) is not None else "none published"

    # ---- simulating and drawing ---------------------------------------------------------------------

    _settling = False  # while `refresh` sets the plan for a new fund (it renders once when done)

    def _inputs_changed(self, *_) -> None:
        self.input_error = ""
        if not self._settling:
            self.invalidate()

    def _typed_wrong(self, line: str) -> None:
        self.input_error = line
        self.invalidate()

    def render(self) -> None:
        histories = self.histories()
        if histories and self.plan.start is not None:
            self.plan.compute(histories, self.fees())
        results = [r for r in (self.plan.result, self.plan.compare_result) if r is not None]
        if not histories:
            results = []
        self.note.object = html_text(self._note_html(results))
        self.chart.object = present.value_chart(results) if results else empty_chart(self._empty_text(),
                                                                                       height=present.CHART_HEIGHT)
        if results:
            self.figures.show(present.figures_frame(results), titles=present.column_titles(results))
        else:
            self.figures.show(pd.DataFrame())

    def _empty_text(self) -> str:
        if not self.state.fund:
            return "Select a fund in the Fund explorer"
        if self.history.loading or self.history.proj_id != self.state.fund:
            return "Loading the NAV history…"
        return "Nothing to simulate"

    def _note_html(self, results) -> str:
        parts = [f'<div><span class="sd-pill sd-warn">estimate</span> <span class="sd-muted">{esc(ESTIMATE_NOTE)}'
                 "</span></div>"]
        if not self.state.fund:
            parts.append(empty_html("Select a fund in the Fund explorer to simulate a monthly plan on its NAVs."))
        elif self.history.error and self.history.proj_id == self.state.fund:
            parts.append(empty_html(f"No NAV history to simulate on: {self.history.error}", error=True))
        if self.input_error:
            parts.append(empty_html(f"Not simulated: {self.input_error}. The results below are the last plan's.",
                                    error=True))
        if self.plan.error:
            parts.append(empty_html(f"Not simulated: {self.plan.error}. The results below are the last plan's.",
                                    error=True))
        for result in results:
            parts.append(f'<div class="sd-muted">{esc(present.plan_text(result, self._fee_source(result)))}</div>')
        return "".join(parts)

    def _key(self, result) -> str:
        return self.plan.class_key if result is self.plan.result else self.plan.compare_key

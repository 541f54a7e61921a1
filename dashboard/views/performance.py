"""Performance: return against benchmark and peer average by period, and volatility, per unit class."""

from __future__ import annotations

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.models.basket import FundBasket
from dashboard.models.fund import PERFORMANCE_KINDS, SINGLE_CLASS, class_key, performance_pivot
from dashboard.records.labels import PERFORMANCE_KIND
from dashboard.present import charts
from dashboard.views.common import TableSlot, TabView, chart_pane, html_pane, section_title, stale_badge
from dashboard.present.text import empty_html

KIND_TITLES = {key: label[1].capitalize() for key, label in PERFORMANCE_KIND.items()}


def performance_table(performance: pd.DataFrame | None, class_name: str | None) -> pd.DataFrame:
    """Periods as rows, return and volatility kinds as columns (percent), for one unit class."""
    return performance_pivot(performance, class_name).rename(columns=KIND_TITLES)


def basket_table(basket: FundBasket) -> pd.DataFrame:
    """Fund return of each basket fund (first class) by period in words: funds as rows."""
    return basket.returns_by_fund().drop(columns=["proj_id", "class"])


class PerformanceView(TabView):
    """The selected fund's past performance per unit class (`table`, with `note` when there is none),
    and fund returns across the basket."""

    unit_class = param.Selector(default=None, objects=[], allow_None=True, doc="Unit class whose performance is shown.")

    def __init__(self, **params):
        super().__init__(**params)
        sheet, basket = self.state.factsheet, self.state.basket
        self._sync_classes()
        sheet.param.watch(self._sync_classes, ["performance"])
        self._class_select = pmui.Select.from_param(self.param.unit_class, label="Unit class", width=260)
        state = self.state
        fund_changes = (sheet.param.performance, state.param.fund_error, self.param.unit_class)
        # Notes and charts are bound to the state; render() makes the tables anew (see TableSlot).
        self.note = html_pane(pn.bind(self._note_html, *fund_changes, state.param.fund))
        self._returns = chart_pane("performance-returns")
        self._returns.object = pn.bind(self._fund_chart, charts.performance_bars, *fund_changes)
        self._volatility = chart_pane("performance-volatility")
        self._volatility.object = pn.bind(self._fund_chart, charts.volatility_bars, *fund_changes)
        self.table = TableSlot(page_size=10, titles={"period": "Period", "as_of": "As of"},
                               percent=[KIND_TITLES[k] for k in PERFORMANCE_KINDS], name="performance-table")
        self._basket_chart = chart_pane("performance-basket")
        self._basket_chart.object = pn.bind(self._basket_chart_of, state.param.basket_revision)
        self._basket_table = TableSlot(titles={"fund": "Fund"}, page_size=10)
        self.param.watch(self.invalidate, ["unit_class"])
        sheet.param.watch(self.invalidate, ["performance"])
        self.state.param.watch(self.invalidate, ["fund_error", "basket_revision"])
        self._layout = pn.Column(
            pn.FlexBox(self._class_select, stale_badge(sheet), sizing_mode="stretch_width"),  # wraps on a phone
            self.note,
            pn.Column(self._returns, self._volatility, self.table,
                      loading=sheet.param.loading, sizing_mode="stretch_width"),
            pn.Row(section_title("Fund return across the basket"), stale_badge(basket)),
            pn.Column(self._basket_chart, self._basket_table, loading=basket.param.loading, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )
        self.render()

    def __panel__(self):
        return self._layout

    def _sync_classes(self, *_):
        perf = self.state.factsheet.performance
        classes = [] if perf is None or perf.empty else list(dict.fromkeys(class_key(perf)))
        objects = {("Single class fund" if c == SINGLE_CLASS else str(c)): c for c in classes}
        current = self.unit_class if self.unit_class in classes else (classes[0] if classes else None)
        with param.parameterized.batch_call_watchers(self):
            self.param.unit_class.objects = objects
            self.unit_class = current

    def _performance(self):
        """The selected fund's performance; none under a load error (never the previous fund's figures)."""
        perf = self.state.factsheet.performance
        return perf.iloc[0:0] if self.state.fund_error and perf is not None else perf

    def _fund_chart(self, draw, *_):
        if self.state.fund_error:
            return charts.empty_chart("The fund could not be loaded")
        return draw(self._performance(), self.unit_class)

    def _note_html(self, *_) -> str:
        state, perf = self.state, self._performance()
        if state.fund_error:
            return empty_html(f"The fund could not be loaded: {state.fund_error}", error=True)
        if perf is None or perf.empty:
            return empty_html("The service publishes no past performance for this fund." if state.fund
                              else "Select a fund in the Fund explorer.")
        as_of = perf["as_of_date"].dropna()
        return f'<span class="sd-muted">Percent; as of {as_of.max().date().isoformat()}.</span>' if len(as_of) else ""

    def _basket_chart_of(self, *_):
        basket = self.state.basket
        if not basket.proj_ids:
            return charts.empty_chart("The basket is empty: add funds from the Fund explorer")
        return charts.basket_return_bars(basket.performance_frame())

    def render(self) -> None:
        self.table.show(performance_table(self._performance(), self.unit_class))
        frame = basket_table(self.state.basket)
        self._basket_table.show(frame, percent=[c for c in frame.columns if c != "fund"])

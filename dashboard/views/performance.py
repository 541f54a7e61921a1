"""Performance: return against benchmark and peer average by period, and volatility, per unit class."""

from __future__ import annotations

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.records.labels import PERFORMANCE_KIND
from dashboard.present import charts
from dashboard.views.common import chart_pane, TabView, data_table, html_pane, section_title, stale_badge, update_table
from dashboard.present.text import empty_html

SINGLE_CLASS = "-"
KIND_TITLES = {key: label[1].capitalize() for key, label in PERFORMANCE_KIND.items()}
KIND_ORDER = ["fund_return", "benchmark_return", "peer_average", "fund_volatility", "benchmark_volatility"]


def performance_table(performance: pd.DataFrame | None, class_name: str | None) -> pd.DataFrame:
    """Periods as rows, return and volatility kinds as columns (percent), for one unit class."""
    columns = ["period", *[KIND_TITLES[k] for k in KIND_ORDER], "as_of"]
    if performance is None or performance.empty:
        return pd.DataFrame(columns=columns)
    data = performance
    if class_name is not None:
        data = data[data["class_abbr_name"].fillna(SINGLE_CLASS) == class_name]
    data = data.dropna(subset=["performance_kind"])
    if data.empty:
        return pd.DataFrame(columns=columns)
    data = data.assign(period=data["reference_period_label_en"].fillna(data["reference_period"]).astype(str))
    order = data.groupby("period")["reference_period_order"].min().sort_values(na_position="last")
    wide = data.pivot_table(index="period", columns="performance_kind", values="performance_val", aggfunc="first")
    wide = wide.reindex(index=order.index, columns=KIND_ORDER)
    wide.columns = [KIND_TITLES[k] for k in KIND_ORDER]
    as_of = data.groupby("period")["as_of_date"].max()
    wide["as_of"] = as_of.reindex(wide.index).dt.strftime("%Y-%m-%d") if pd.api.types.is_datetime64_any_dtype(as_of) else as_of
    return wide.reset_index()[columns]


def basket_table(performance: pd.DataFrame) -> pd.DataFrame:
    """Fund return of each basket fund (first class) by period: funds as rows."""
    if performance is None or performance.empty:
        return pd.DataFrame(columns=["fund"])
    data = performance[performance["performance_kind"] == "fund_return"]
    if data.empty:
        return pd.DataFrame(columns=["fund"])
    first = data.groupby("proj_id")["class_abbr_name"].transform(lambda s: s.fillna(SINGLE_CLASS).iloc[0])
    data = data[data["class_abbr_name"].fillna(SINGLE_CLASS) == first]
    # Periods in words ("since inception"), as the fund's own table shows them.
    data = data.assign(period=charts.period_words(data))
    periods = data.sort_values("reference_period_order")["period"].drop_duplicates().tolist()
    wide = data.pivot_table(index="fund", columns="period", values="performance_val", aggfunc="first")
    funds = list(dict.fromkeys(performance["fund"].astype(str)))
    wide = wide.reindex(index=[f for f in funds if f in wide.index], columns=periods)
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index()


class PerformanceView(TabView):
    """The selected fund's past performance per unit class, and fund returns across the basket."""

    tab = "performance"
    unit_class = param.Selector(default=None, objects=[], allow_None=True, doc="Unit class whose performance is shown.")

    def __init__(self, **params):
        super().__init__(**params)
        sheet, basket = self.state.factsheet, self.state.basket
        self._sync_classes()
        sheet.param.watch(self._sync_classes, ["performance"])
        self._class_select = pmui.Select.from_param(self.param.unit_class, label="Unit class", width=260)
        self._note = html_pane("")
        self._returns = chart_pane("performance-returns")
        self._volatility = chart_pane("performance-volatility")
        self._table = data_table(performance_table(sheet.performance, self.unit_class), page_size=10,
                                 titles={"period": "Period", "as_of": "As of"},
                                 percent=[KIND_TITLES[k] for k in KIND_ORDER], name="performance-table")
        self._basket_chart = chart_pane("performance-basket")
        self._basket_table = data_table(basket_table(basket.performance_frame()), page_size=10)
        self.param.watch(self.invalidate, ["unit_class"])
        sheet.param.watch(self.invalidate, ["performance"])
        self.state.param.watch(self.invalidate, ["fund_error", "basket_revision"])
        self._layout = pn.Column(
            pn.Row(self._class_select, stale_badge(sheet), sizing_mode="stretch_width"),
            self._note,
            pn.Column(self._returns, self._volatility, self._table,
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
        classes = [] if perf is None or perf.empty else list(dict.fromkeys(perf["class_abbr_name"].fillna(SINGLE_CLASS)))
        objects = {("Single class fund" if c == SINGLE_CLASS else str(c)): c for c in classes}
        current = self.unit_class if self.unit_class in classes else (classes[0] if classes else None)
        with param.parameterized.batch_call_watchers(self):
            self.param.unit_class.objects = objects
            self.unit_class = current

    def _render(self) -> None:
        state = self.state
        perf = state.factsheet.performance
        if state.fund_error:  # never the previous fund's figures under the new fund's error
            perf = perf.iloc[0:0]
        if state.fund_error:
            self._returns.object = self._volatility.object = charts.empty_chart("The fund could not be loaded")
        else:
            self._returns.object = charts.performance_bars(perf, self.unit_class)
            self._volatility.object = charts.volatility_bars(perf, self.unit_class)
        self._render_basket()
        update_table(self._table, performance_table(perf, self.unit_class))
        if state.fund_error:
            self._note.object = empty_html(f"The fund could not be loaded: {state.fund_error}", error=True)
        elif perf is None or perf.empty:
            self._note.object = empty_html("The service publishes no past performance for this fund."
                                           if state.fund else "Select a fund in the Fund explorer.")
        else:
            as_of = perf["as_of_date"].dropna()
            self._note.object = (f'<span class="sd-muted">Percent; as of {as_of.max().date().isoformat()}.</span>'
                                 if len(as_of) else "")

    def _render_basket(self) -> None:
        basket = self.state.basket
        if not basket.proj_ids:
            self._basket_chart.object = charts.empty_chart("The basket is empty: add funds from the Fund explorer")
        else:
            self._basket_chart.object = charts.basket_return_bars(basket.performance_frame())
        frame = basket_table(basket.performance_frame())
        periods = [c for c in frame.columns if c != "fund"]
        self._basket_table._sd_units = (tuple(periods), (), ())
        self._basket_table.titles = {"fund": "Fund", **{c: f"{c} (%)" for c in periods}}
        update_table(self._basket_table, frame)

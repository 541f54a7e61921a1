"""Charts drawn the same for the screen and the reports."""

from __future__ import annotations

import holoviews as hv
import pandas as pd

from dashboard.present.risk_charts import risk_spectrum_chart


def test_risk_spectrum_stacks_funds_of_one_level():
    risk = pd.DataFrame({"fund": list("ABCD"), "proj_id": list("ABCD"), "name_en": ["x"] * 4, "risk_level": ["6"] * 4,
                         "risk_rank": [6.0, 6.0, 6.0, 2.0], "risk_spectrum": ["RS6"] * 3 + ["RS2"]})
    plot = hv.render(risk_spectrum_chart(risk))
    assert isinstance(plot.height, int) and plot.height >= 370


def test_licence_timeline_draws_open_approvals_to_today_and_says_when_nothing_is_dated():
    from dashboard.present.charts import licence_timeline
    from dashboard.records import APPROVAL_NO_EXPIRY

    today = pd.Timestamp("2026-11-23")
    approvals = pd.DataFrame({"effective_date": pd.to_datetime(["2020-01-01", "2022-05-01"]),
                              "expire_date": pd.to_datetime(["2023-01-01", None]),
                              "approval_state": ["expired", APPROVAL_NO_EXPIRY], "lic_code": ["IP", "IC"]})
    duties = pd.DataFrame({"action_start_date": pd.to_datetime(["2021-03-01"]), "action_end_date": pd.to_datetime([None]),
                           "lic_action_code": ["MD"], "company_unique_id": ["C0000000101"]})
    chart = licence_timeline(approvals, duties, today)
    segments = chart.get(0).dframe()
    assert list(segments["kind"]) == ["approval", "approval (no expiry)", "duty"]
    assert list(segments["to"]) == ["2023-01-01", "no expiry", "still serving"]
    assert (segments["end"].iloc[1], segments["end"].iloc[2]) == (today, today)
    empty = licence_timeline(approvals.iloc[0:0], duties.iloc[0:0], today)
    assert isinstance(empty, hv.Text)
    assert list(segments["what"])[-1] == "duty MD at C0000000101"  # no name known: the identifier


def test_licence_timeline_names_a_dutys_company():
    """The timeline labelled a duty with its company's bare identifier ("duty MD at C0000000216") (issue 30)."""
    from dashboard.present.charts import licence_timeline

    duties = pd.DataFrame({"action_start_date": pd.to_datetime(["2021-03-01"]), "action_end_date": pd.to_datetime([None]),
                           "lic_action_code": ["MD"], "company_unique_id": ["C0000000216"]})
    chart = licence_timeline(pd.DataFrame(columns=["effective_date"]), duties, pd.Timestamp("2026-11-23"),
                             {"C0000000216": "Demo Chao Phraya Securities Co., Ltd."})
    assert list(chart.get(0).dframe()["what"]) == ["duty MD at Demo Chao Phraya Securities Co., Ltd."]


# A fund that publishes a negative line (net liabilities): the shares add to 100 % only with it.
SIGNED_SHARES = pd.DataFrame({"asset_seq": [1, 2, 3, 4],
                              "asset_name": ["Shares", "Debentures", "Units of property funds", "Other assets and liabilities"],
                              "asset_ratio": [60.50, 25.25, 15.31, -1.06]})


def test_allocation_with_a_negative_share_is_drawn_as_signed_bars_not_a_ring():
    from dashboard.present.charts import allocation_caption, allocation_chart

    chart = allocation_chart(SIGNED_SHARES, title="t")
    assert isinstance(chart, hv.Bars) and not isinstance(chart, hv.Donut)
    drawn = dict(zip(chart.dframe()["asset_name"], chart.dframe()["asset_ratio"]))
    assert drawn == dict(zip(SIGNED_SHARES["asset_name"], SIGNED_SHARES["asset_ratio"]))
    from bokeh.models import AnnularWedge

    assert hv.render(chart).select_one({"type": AnnularWedge}) is None
    caption = allocation_caption(SIGNED_SHARES)
    assert "add up to 100.00 %" in caption and "Other assets and liabilities -1.06 %" in caption and "bars" in caption


def test_allocation_past_100_percent_is_bars_and_a_whole_is_a_ring():
    from dashboard.present.charts import allocation_caption, allocation_chart

    over = SIGNED_SHARES.iloc[:3]  # 101.06 %: past rounding
    assert isinstance(allocation_chart(over), hv.Bars)
    assert "101.06 %" in allocation_caption(over) and "Below zero" not in allocation_caption(over)
    whole = SIGNED_SHARES.assign(asset_ratio=[60.0, 25.0, 14.95, 0.1])  # 100.05 %: rounding still a whole
    ring = allocation_chart(whole)
    assert isinstance(ring, hv.Donut) and "bars" not in allocation_caption(whole)
    assert sorted(ring.dframe()["asset_ratio"]) == sorted(whole["asset_ratio"])


def _label_places(chart) -> dict[str, tuple[float, float]]:
    """Each fund's name on a rendered risk chart: (risk rank, height on the value axis)."""
    out = {}
    for renderer in hv.render(chart).renderers:
        source = getattr(renderer, "data_source", None)
        if source is not None and "fund" in source.data and hasattr(renderer.glyph, "text_align"):
            xs, ys = source.data["risk_rank"], source.data["label_y"]
            out.update({str(n): (float(x), float(y)) for n, x, y in zip(source.data["fund"], xs, ys)})
    return out


BASKET_RISK = pd.DataFrame({"fund": ["DLN-CX", "DDI-CX", "DDI-FI", "DDI-SSF"], "proj_id": list("ABCD"), "name_en": list("wxyz"),
                            "risk_level": ["8+", "8+", "4", "6"], "risk_rank": [9.0, 9.0, 4.0, 6.0],
                            "risk_spectrum": ["RS81", "RS81", "RS4", "RS6"],
                            "total_annual_fee": [0.79, 0.82, 0.93, 1.62], "return_1y": [-3.3, 6.4, 1.9, -8.6]})


def test_names_of_funds_at_one_risk_level_with_close_values_are_drawn_apart():
    """Two funds at RS8+ charging 0.79 % and 0.82 %: their names were drawn on top of each other. They are at
    least a line of 8 pt text (11 px) apart on the smallest plot area the chart has; a name with no neighbour
    stays at its point."""
    from dashboard.present.risk_charts import risk_scatter

    chart = risk_scatter(BASKET_RISK, "total_annual_fee")
    plot = hv.render(chart)
    places = _label_places(chart)
    px_per_unit = (plot.height - 100) / (plot.y_range.end - plot.y_range.start)  # the frame: less title and axis
    apart = abs(places["DLN-CX"][1] - places["DDI-CX"][1]) * px_per_unit
    assert apart >= 11, f"the names are {apart:.1f} px apart"
    assert places["DLN-CX"][1] < places["DDI-CX"][1]  # in the order of their points
    assert places["DDI-FI"][1] == 0.93 and places["DDI-SSF"][1] == 1.62
    for _, y in places.values():
        assert plot.y_range.start < y < plot.y_range.end


def test_spread_labels_moves_names_apart_around_their_points():
    from dashboard.present.risk_charts import spread_labels

    assert spread_labels([1.0, 5.0], 1.0) == [1.0, 5.0]  # far apart: left where they are
    assert spread_labels([2.0, 2.0, 2.0], 1.0) == [1.0, 2.0, 3.0]  # one value: around it
    assert spread_labels([3.1, 3.0], 1.0) == [3.55, 2.55]  # the order of the values is kept


def test_names_at_neighbouring_levels_in_one_row_of_the_spectrum_are_above_and_below():
    """Funds at RS5 and RS6, each the first at its level: on a phone a level is narrower than a name, and the
    two names side by side ran into each other; one is drawn under its point."""
    from dashboard.present.risk_charts import risk_spectrum_chart

    risk = BASKET_RISK.assign(risk_rank=[5.0, 6.0, 1.0, 9.0], risk_level=["5", "6", "1", "8+"])
    places = _label_places(risk_spectrum_chart(risk))
    assert places["DLN-CX"][1] > 1 > places["DDI-CX"][1]  # RS5 above its point, RS6 under it
    assert places["DDI-FI"][1] > 1 and places["DDI-SSF"][1] > 1  # alone at their level and row: above


PERIODS = ["year to date", "3 months", "6 months", "1 year", "3 years", "5 years", "10 years", "since inception"]


def _performance_rows() -> pd.DataFrame:
    rows = [{"proj_id": "P1", "fund": "DLN-CX", "class_abbr_name": None, "performance_kind": kind,
             "performance_val": float(i - 3 + k), "reference_period": period, "reference_period_order": i,
             "reference_period_label_en": period, "as_of_date": pd.Timestamp("2026-10-31")}
            for i, period in enumerate(PERIODS)
            for k, kind in enumerate(["fund_return", "benchmark_return", "peer_average", "fund_volatility"])]
    return pd.DataFrame(rows)


def test_performance_bars_lie_with_period_names_level_and_the_legend_underneath():
    """At 390 px the legend on the right took the chart's width and "since inception" ran into "5 years" under
    the bars. The bars lie, a period a block named level on the left (the first period on top) with room for its
    name's line (9.5 pt, 13 px), the legend under the chart a series a row; the same for volatility and for the
    basket's returns."""
    from dashboard.present.charts import SERIES_COLORS, basket_return_bars, performance_bars, volatility_bars

    perf = _performance_rows()
    basket = pd.concat([perf, perf.assign(proj_id="P2", fund="DDI-CX")])
    for chart, series in ((performance_bars(perf), 3), (volatility_bars(perf), 1), (basket_return_bars(basket), 2)):
        plot = hv.render(chart)
        assert [group for group, _ in plot.y_range.factors][::series] == PERIODS[::-1]  # the first on top
        axis = plot.yaxis[0]
        assert axis.group_label_orientation == "horizontal" and axis.major_label_text_alpha == 0.0
        assert not plot.right and plot.legend[0] in plot.below and all(legend.ncols == 1 for legend in plot.legend)
        assert not hasattr(plot.xaxis[0], "group_label_orientation")  # values across: no names to collide
        frame = plot.height - 120 - 22 * series  # less the title, the value axis and the legend
        assert frame / len(PERIODS) >= 13 and frame / (len(PERIODS) * series) >= 8  # a period's name; a bar
        # The title runs over the plot area only: a phone's (about 250 px beside the period names) holds 30 characters.
        assert len(plot.title.text) <= 30, plot.title.text
    plot = hv.render(performance_bars(perf))
    colors = plot.renderers[0].glyph.fill_color.transform.palette
    factors = plot.renderers[0].glyph.fill_color.transform.factors
    assert dict(zip(factors, colors))["Fund"] == SERIES_COLORS[0]  # the fund in the first colour, as everywhere

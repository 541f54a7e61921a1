"""Every chart in dashboard/present, read as drawn (tests/present/drawn.py): each glyph's category, value and
colour against the model's rows, and each legend entry's colour against the colour its rows are drawn in.

Charts covered: charts.market_spectrum_bars, charts.market_fee_ranges, charts.grouped_bars (through
fee_bars, performance_bars, volatility_bars, basket_return_bars), charts.fee_bars (one fee type and many),
charts.allocation_chart (ring and signed bars), charts.allocation_stacked, charts.top_holdings_bars,
charts.holdings_heatmap, charts.holdings_changes_bars, charts.licence_timeline, charts.empty_chart,
nav_charts.nav_chart, nav_charts.drawdown_chart, nav_charts.nav_with_drawdown, nav_charts.rebased_chart,
risk_charts.risk_spectrum_chart, risk_charts.risk_scatter, dca.value_chart (the Plan tab's regular investing and
its report section), siblings.fee_drag_chart (the Fees tab's fee drag and the comparison report).
Every chart a view or a report draws is one of these (grep chart_pane in dashboard/views, safe_chart in
dashboard/reports); the basket-with-amounts and the NAV basket views draw nav_charts.rebased_chart.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd
import pytest

from dashboard.present import charts, nav_charts, risk_charts
from dashboard.present import dca as dca_present
from tests.present.drawn import drawn


def _legend_matches_rows(picture, key: str, rows) -> None:
    """Each drawn row's fill is its legend entry's colour (the entry named by the row's `key`)."""
    legend = picture.legend_colors()
    assert rows, "nothing drawn"
    for row in rows:
        assert row[key] in legend, f"{row[key]!r} is drawn but not in the legend {sorted(legend)}"
        assert row["fill_color"] == legend[row[key]], (
            f"{row[key]} is drawn in {row['fill_color']} but the legend gives it {legend[row[key]]}")


# ---- the market's risk spectrum (issue 39: colours of another row) -----------------------------------

# What the store held when the spectrum drew RS6's equity funds in fixed income's colour.
SPECTRUM = pd.DataFrame({
    "risk_spectrum": ["RS6", "RS4", "RS7", "RS8", "RS81", "RS6", "RS5"],
    "risk_rank": [6, 4, 7, 8, 9, 6, 5],
    "policy_type": ["Equity", "Fixed Income", "Mixed", "Alternative Assets", "Other", "Mixed", None],
    "funds": [34, 18, 2, 1, 2, 3, 1]})


def test_the_market_spectrum_draws_each_level_and_policy_in_its_legend_colour():
    picture = drawn(charts.market_spectrum_bars(SPECTRUM))
    bars = picture.glyphs("VBar")
    expected = {(f"RS{'8+' if c == 'RS81' else c[2:]}", p if isinstance(p, str) else charts.NO_POLICY): float(n)
                for c, p, n in SPECTRUM[["risk_spectrum", "policy_type", "funds"]].itertuples(index=False)}
    drawn_values = {(bar["x"], bar["policy"]): bar["top"] - bar["bottom"] for bar in bars}
    assert drawn_values == expected  # every (level, policy) once, its height its funds
    _legend_matches_rows(picture, "policy", bars)
    legend = picture.legend_colors()
    # the most common policy type in the first colour; each policy type a colour of its own
    assert legend["Equity"] == charts.SERIES_COLORS[0] and legend["Fixed Income"] == charts.SERIES_COLORS[1]
    assert len(set(legend.values())) == len(legend) == 6
    rs6 = sorted((b for b in bars if b["x"] == "RS6"), key=lambda b: b["bottom"])
    assert [(b["policy"], b["bottom"], b["top"]) for b in rs6] == [("Equity", 0.0, 34.0), ("Mixed", 34.0, 37.0)]


def test_the_market_fee_ranges_draw_each_policy_types_range_box_and_median_on_its_row():
    fees = pd.DataFrame({"policy_type": ["Equity", "Fixed Income"], "funds": [30, 12], "min": [0.5, 0.1],
                         "p25": [1.0, 0.3], "median": [1.4, 0.45], "p75": [1.8, 0.6], "max": [2.6, 0.9]})
    position = {"policy_type": "Fixed Income", "total_fee_actual": 0.7, "proj_abbr_name": "DMK-FI", "percentile": 80.0}
    picture = drawn(charts.market_fee_ranges(fees, position))
    ticks = {label: y for y, label in picture.y_ticks.items()}
    boxes = {ticks_row: row for row in picture.glyphs("Quad") for ticks_row in [row["policy"]]}
    for policy, low, p25, median, p75, high in fees[["policy_type", "min", "p25", "median", "p75", "max"]].itertuples(index=False):
        y = ticks[policy]
        box = boxes[policy]
        assert (box["left"], box["right"]) == (p25, p75) and box["bottom"] < y < box["top"]
        segments = [s for s in picture.glyphs("Segment") if s["y0"] == s["y1"] == y]
        assert [(s["x0"], s["x1"]) for s in segments] == [(low, high)]  # the whisker on its row
        assert any(s["x0"] == s["x1"] == median and s["y0"] < y < s["y1"] for s in picture.glyphs("Segment"))
    point = picture.glyphs("Scatter")
    assert [(p["x"], p["y"], p["fill_color"]) for p in point] == [(0.7, ticks["Fixed Income"], "#d62728")]
    assert picture.x_label == "Total annual fee, % a year"


# ---- the fund's and the basket's bars ----------------------------------------------------------------

FEES = pd.DataFrame({
    "fund": ["DMK-EQ", "DMK-EQ", "DMK-FI", "DMK-FI"], "class_abbr_name": ["A", "A", None, None],
    "fee_type_en": ["Management fee", "Trustee fee", "Management fee", "Trustee fee"], "fee_type_desc": [None] * 4,
    "actual_value_num": [1.5, 0.03, 0.4, 0.02], "actual_value_unit": ["% p.a."] * 4,
    "rate_num": [2.0, 0.1, 1.0, 0.05], "rate_unit": ["% p.a."] * 4})


def test_fee_bars_of_many_types_draw_each_fund_in_its_legend_colour_with_its_charge():
    picture = drawn(charts.fee_bars(FEES))
    bars = picture.glyphs("VBar")
    assert {(b["fee_type"], b["series"]): b["actual_value_num"] for b in bars} == {
        ("Management fee", "DMK-EQ · A"): 1.5, ("Trustee fee", "DMK-EQ · A"): 0.03,
        ("Management fee", "DMK-FI"): 0.4, ("Trustee fee", "DMK-FI"): 0.02}
    for bar in bars:
        assert bar["top"] == bar["actual_value_num"] and bar["x"] == (bar["fee_type"], bar["series"])
    _legend_matches_rows(picture, "series", bars)
    assert picture.y_label == "Actual charge, % p.a."  # the unit on the value axis


def test_fee_bars_of_one_type_draw_each_fund_and_class_with_its_ceiling():
    one = FEES[FEES["fee_type_en"] == "Management fee"]
    picture = drawn(charts.fee_bars(one, value="rate_num", fee_type="Management fee"))
    assert {b["x"]: b["top"] for b in picture.glyphs("VBar")} == {"DMK-EQ · A": 2.0, "DMK-FI": 1.0}
    assert {b["fill_color"] for b in picture.glyphs("VBar")} == {"#9c755f"}
    assert picture.y_label == "Prospectus ceiling, % p.a."


PERIODS = ["3 months", "1 year", "3 years"]


def _performance(fund: str = "DMK-EQ", proj_id: str = "P1", classes=(None,)) -> pd.DataFrame:
    rows = [{"proj_id": proj_id, "fund": fund, "class_abbr_name": cls, "performance_kind": kind,
             "performance_val": float(10 * i + k + (5 if cls == "B" else 0) + (0.5 if fund != "DMK-EQ" else 0)),
             "reference_period": period, "reference_period_order": i, "reference_period_label_en": period}
            for cls in classes for i, period in enumerate(PERIODS)
            for k, kind in enumerate(["fund_return", "benchmark_return", "peer_average", "fund_volatility",
                                      "benchmark_volatility"])]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("chart, names", [
    (charts.performance_bars, {"fund_return": "Fund", "benchmark_return": "Benchmark", "peer_average": "Peer average"}),
    (charts.volatility_bars, {"fund_volatility": "Fund", "benchmark_volatility": "Benchmark"})])
def test_performance_and_volatility_bars_draw_each_period_and_series_as_published(chart, names):
    perf = _performance()
    picture = drawn(chart(perf))
    bars = picture.glyphs("HBar")
    expected = {(r.reference_period, names[r.performance_kind]): r.performance_val
                for r in perf.itertuples() if r.performance_kind in names}
    assert {(b["period"], b["series"]): b["performance_val"] for b in bars} == expected
    for bar in bars:
        assert bar["right"] == bar["performance_val"] and bar["y"] == (bar["period"], bar["series"])
    _legend_matches_rows(picture, "series", bars)
    assert picture.legend_colors()["Fund"] == charts.SERIES_COLORS[0]


def test_basket_returns_draw_each_funds_first_class_in_its_legend_colour():
    perf = pd.concat([_performance(), _performance("DMK-FI", "P2", classes=("B", "A"))])
    picture = drawn(charts.basket_return_bars(perf))
    bars = picture.glyphs("HBar")
    expected = {(r.reference_period, r.fund): r.performance_val for r in perf.itertuples()
                if r.performance_kind == "fund_return" and r.class_abbr_name in (None, "A")}  # first by name
    assert {(b["period"], b["fund"]): b["performance_val"] for b in bars} == expected
    _legend_matches_rows(picture, "fund", bars)


# ---- allocation -------------------------------------------------------------------------------------

ALLOCATION = pd.DataFrame({"asset_name": ["หุ้น (Shares)", "Debentures", "Deposits"], "asset_ratio": [60.0, 30.0, 10.0]})


def test_the_allocation_ring_draws_each_asset_as_its_share_in_its_legend_colour():
    picture = drawn(charts.allocation_chart(ALLOCATION))
    wedges = picture.glyphs("AnnularWedge")
    assert len(wedges) == 3
    # a wedge's angle is its share of the whole ring
    angles = {w["asset_name"]: (w["end_angle"] - w["start_angle"]) % (2 * np.pi) for w in wedges}
    for name, ratio in (("Shares · หุ้น", 60.0), ("Debentures", 30.0), ("Deposits", 10.0)):
        assert angles[name] == pytest.approx(2 * np.pi * ratio / 100)
    _legend_matches_rows(picture, "asset_name", wedges)
    assert len({w["fill_color"] for w in wedges}) == 3


def test_allocation_with_a_negative_share_draws_signed_bars_with_each_share():
    signed = pd.DataFrame({"asset_name": ["Shares", "Other assets and liabilities"], "asset_ratio": [101.0, -1.0]})
    picture = drawn(charts.allocation_chart(signed))
    assert {b["y"]: b["right"] for b in picture.glyphs("HBar")} == {"Shares": 101.0, "Other assets and liabilities": -1.0}
    assert {b["left"] for b in picture.glyphs("HBar")} == {0.0}


def test_the_basket_allocation_stacks_each_funds_assets_in_their_legend_colours():
    frame = pd.DataFrame({"fund": ["DMK-EQ", "DMK-EQ", "DMK-FI", "DMK-FI"],
                          "asset_name": ["Shares", "Deposits", "Debentures", "Deposits"], "asset_ratio": [80.0, 20.0, 70.0, 30.0]})
    picture = drawn(charts.allocation_stacked(frame))
    bars = picture.glyphs("HBar")
    assert {(b["y"], b["asset_name"]): b["right"] - b["left"] for b in bars} == {
        (f, a): r for f, a, r in frame.itertuples(index=False)}
    _legend_matches_rows(picture, "asset_name", bars)
    assert len(picture.legend) == 3


# ---- holdings ---------------------------------------------------------------------------------------


def test_top_holdings_draw_each_line_at_its_weight_and_name_the_quarter_in_words():
    table = pd.DataFrame({"security": ["PTT", "KBANK", "AOT"], "issuer": ["PTT PCL", None, "AOT PCL"],
                          "percent_nav": [9.5, 7.25, 3.0]})
    picture = drawn(charts.top_holdings_bars(table, "202609"))
    assert {b["y"]: b["right"] for b in picture.glyphs("HBar")} == dict(zip(table["security"], table["percent_nav"]))
    assert picture.title == "Top 3 holdings, Q3 2026"


def test_the_holdings_heatmap_draws_each_weight_at_its_holding_and_quarter():
    weights = pd.DataFrame({"202603": [5.0, np.nan], "202606": [6.0, 2.0], "202609": [7.0, 4.0]}, index=["PTT", "AOT"])
    picture = drawn(charts.holdings_heatmap(weights))
    cells = picture.glyphs("Rect")
    assert {(c["x"], c["y"]): c["zvalues"] for c in cells} == {
        ("Q1 2026", "PTT"): 5.0, ("Q2 2026", "PTT"): 6.0, ("Q3 2026", "PTT"): 7.0,
        ("Q1 2026", "AOT"): None, ("Q2 2026", "AOT"): 2.0, ("Q3 2026", "AOT"): 4.0}
    assert picture.x_factors == ["Q1 2026", "Q2 2026", "Q3 2026"]
    fills = {(c["x"], c["y"]): c["fill_color"] for c in cells}
    assert fills[("Q1 2026", "AOT")] == "#eeeeee"  # no weight: grey, never a colour of the scale
    assert fills[("Q3 2026", "PTT")] != fills[("Q2 2026", "AOT")]  # the heaviest and the lightest differ
    # Quarter names slanted, so that twelve of them never run into each other on a phone (issue 39, item 8).
    assert picture.x_label_angle == pytest.approx(np.pi / 4)


def test_holdings_changes_draw_each_move_in_its_changes_legend_colour():
    changes = pd.DataFrame({"security": ["PTT", "AOT", "KBANK", "SCB"], "change_pp": [2.5, -1.0, 3.0, 0.0],
                            "change": ["increased", "decreased", "new", "unchanged"]})
    picture = drawn(charts.holdings_changes_bars(changes, "202609", "202606"))
    bars = picture.glyphs("HBar")
    assert {b["y"]: (b["right"], b["change"]) for b in bars} == {
        "PTT": (2.5, "increased"), "AOT": (-1.0, "decreased"), "KBANK": (3.0, "new")}
    _legend_matches_rows(picture, "change", bars)
    for bar in bars:
        assert bar["fill_color"] == charts.CHANGE_COLORS[bar["change"]]
    assert picture.title == "What changed, Q2 2026 to Q3 2026"


# ---- licences ---------------------------------------------------------------------------------------


def test_the_licence_timeline_draws_each_approval_and_duty_from_start_to_end_in_its_kind_colour():
    today = pd.Timestamp("2026-11-23")
    approvals = pd.DataFrame({"effective_date": pd.to_datetime(["2020-01-01"]), "expire_date": pd.to_datetime(["2023-01-01"]),
                              "approval_state": ["expired"], "lic_code": ["IP"]})
    duties = pd.DataFrame({"action_start_date": pd.to_datetime(["2021-03-01"]), "action_end_date": pd.to_datetime([None]),
                           "lic_action_code": ["MD"], "company_unique_id": ["C0000000101"]})
    picture = drawn(charts.licence_timeline(approvals, duties, today, {"C0000000101": "Demo Securities"}))
    segments = {s["what"]: s for s in picture.glyphs("Segment") if "what" in s}
    assert set(segments) == {"approval IP", "duty MD at Demo Securities"}
    approval, duty = segments["approval IP"], segments["duty MD at Demo Securities"]
    ms = lambda day: pd.Timestamp(day).value / 1e6  # Bokeh's dates are milliseconds
    assert (approval["x0"], approval["x1"]) in {(ms("2020-01-01"), ms("2023-01-01")), ("2020-01-01", "2023-01-01")}
    assert (duty["x0"], duty["x1"]) in {(ms("2021-03-01"), ms(today)), ("2021-03-01", "2026-11-23")}
    assert approval["line_color"] == charts.LICENCE_KIND_COLORS["approval"]
    assert duty["line_color"] == charts.LICENCE_KIND_COLORS["duty"]
    assert picture.y_ticks[approval["y0"]] == "approval IP" and picture.y_ticks[duty["y0"]] == "duty MD at Demo Securities"


def test_an_empty_chart_draws_its_reason_and_nothing_else():
    picture = drawn(charts.empty_chart("No holdings published for Q3 2026"))
    assert [t["text"] for t in picture.glyphs("Text")] == ["No holdings published for Q3 2026"]
    assert picture.glyphs("VBar", "HBar", "Rect", "Line") == []


# ---- NAV --------------------------------------------------------------------------------------------

DAYS = pd.bdate_range("2026-01-05", periods=10)
NAV = pd.DataFrame({"nav_date": DAYS, "nav": np.linspace(10.0, 11.0, 10), "offer": np.linspace(10.1, 11.1, 10),
                    "bid": np.nan, "net_asset": 1e9})


def _ms(day) -> float:
    return pd.Timestamp(day).value / 1e6


def _xs(rows) -> list[float]:
    return [r["x"] if isinstance(r["x"], float) else _ms(r["x"]) for r in rows]


def test_the_nav_chart_draws_each_days_nav_and_offer_and_marks_a_distribution_in_its_legend_colour():
    distributions = pd.DataFrame({"ex_date": [DAYS[4]], "pay_date": [DAYS[6]], "per_unit": [0.25]})
    picture = drawn(nav_charts.nav_chart(NAV, distributions))
    lines = [layer for layer in picture.layers if layer.kind == "Line"]
    nav_line = next(layer.rows for layer in lines if "nav" in layer.source and "offer" in layer.source and
                    layer.rows[0]["y"] == layer.rows[0]["nav"])
    assert _xs(nav_line) == [_ms(d) for d in DAYS] and [r["y"] for r in nav_line] == list(NAV["nav"])
    legend = picture.legend_colors()
    assert set(legend) == {"NAV", "Offer price", "Distribution (XD date)"}  # no bid published: no bid line
    assert legend["NAV"] == nav_charts.NAV_COLOR and legend["Offer price"] == nav_charts.OFFER_COLOR
    mark = picture.glyphs("Scatter")
    assert [(m["per_unit"], m["y"], m["fill_color"]) for m in mark] == [(0.25, NAV["nav"][4], nav_charts.DISTRIBUTION_COLOR)]
    assert _xs(mark) == [_ms(DAYS[4])] and legend["Distribution (XD date)"] == nav_charts.DISTRIBUTION_COLOR


def test_the_drawdown_chart_draws_each_days_fall_below_its_peak():
    drawdown = pd.Series([0.0, -1.0, -2.5, 0.0], index=DAYS[:4])
    picture = drawn(nav_charts.drawdown_chart(drawdown))
    area = picture.glyphs("Patch", "VArea")
    assert area, [layer.kind for layer in picture.layers]
    below = {r["x"]: r["y"] for r in area if r["y"] != 0.0}  # the outline, less its zero baseline
    assert below == {"2026-01-06": -1.0, "2026-01-07": -2.5}
    assert {r.get("fill_color") for r in area} == {nav_charts.DRAWDOWN_COLOR}


def test_the_nav_and_drawdown_pair_draws_both_charts():
    drawdown = pd.Series([0.0, -1.0], index=DAYS[:2])
    pictures = drawn(nav_charts.nav_with_drawdown(nav_charts.nav_chart(NAV), nav_charts.drawdown_chart(drawdown)))
    assert [p.title for p in pictures] == ["", "Drawdown: how far below its previous peak"]
    assert pictures[0].legend_colors()["NAV"] == nav_charts.NAV_COLOR


def test_the_rebased_chart_draws_each_fund_in_its_legend_colour_from_100():
    rebased = pd.DataFrame({"P1": [100.0, 102.0, 104.0], "P2": [100.0, 99.0, 98.5]}, index=DAYS[:3])
    picture = drawn(nav_charts.rebased_chart(rebased, date(2026, 1, 5), names={"P1": "DMK-EQ", "P2": "DMK-FI"}))
    legend = picture.legend_colors()
    assert legend == {"DMK-EQ": charts.SERIES_COLORS[0], "DMK-FI": charts.SERIES_COLORS[1]}
    lines = {tuple(r["y"] for r in layer.rows): layer.rows[0]["line_color"] for layer in picture.layers
             if layer.kind == "Line" and len(layer.rows) == 3}
    assert lines == {(100.0, 102.0, 104.0): legend["DMK-EQ"], (100.0, 99.0, 98.5): legend["DMK-FI"]}


# ---- the basket's risk ------------------------------------------------------------------------------

BASKET_RISK = pd.DataFrame({"fund": ["DLN-CX", "DDI-FI", "DDI-SSF"], "proj_id": list("ABC"), "name_en": list("xyz"),
                            "risk_level": ["8+", "4", "6"], "risk_rank": [9.0, 4.0, 6.0],
                            "risk_spectrum": ["RS81", "RS4", "RS6"],
                            "total_annual_fee": [0.79, 0.93, 1.62], "return_1y": [-3.3, 1.9, -8.6]})


def test_the_basket_spectrum_draws_each_fund_at_its_level_in_its_levels_colour():
    picture = drawn(risk_charts.risk_spectrum_chart(BASKET_RISK))
    points = [p for p in picture.glyphs("Scatter") if "fund" in p]
    assert {p["fund"]: p["x"] for p in points} == {"DLN-CX": 9.0, "DDI-FI": 4.0, "DDI-SSF": 6.0}
    for point in points:
        assert point["fill_color"] == risk_charts.RISK_COLORS[int(point["x"]) - 1]
    labels = {t["text"]: t["x"] for t in picture.glyphs("Text")}
    assert labels == {"DLN-CX": 9.0, "DDI-FI": 4.0, "DDI-SSF": 6.0}
    assert picture.x_ticks[9] == "RS8+" and picture.x_ticks[4] == "RS4"


@pytest.mark.parametrize("measure", ["total_annual_fee", "return_1y"])
def test_the_risk_scatter_draws_each_fund_at_its_level_and_figure(measure):
    picture = drawn(risk_charts.risk_scatter(BASKET_RISK, measure))
    points = [p for p in picture.glyphs("Scatter") if "fund" in p]
    assert {p["fund"]: (p["x"], p["y"]) for p in points} == {
        f: (r, v) for f, r, v in BASKET_RISK[["fund", "risk_rank", measure]].itertuples(index=False)}
    assert {t["text"] for t in picture.glyphs("Text")} == set(BASKET_RISK["fund"])


def test_fee_bars_without_a_published_unit_say_their_figures_are_percentages():
    """The current service sends no fee unit (issue 39: the Fees chart's axes had none)."""
    unitless = FEES.assign(actual_value_unit=None, rate_unit=None)
    for value, measure in (("actual_value_num", "Actual charge"), ("rate_num", "Prospectus ceiling")):
        assert drawn(charts.fee_bars(unitless, value=value)).y_label == f"{measure}, %"


# ---- the regular-investing plan (Plan tab, `plan dca`'s report) ---------------------------------------

def _dca_results():
    from dashboard.models.dca import simulate
    from tests.models.test_dca import DIST, NAV, PLAN

    first = simulate(NAV, DIST, PLAN, label="DEMO-A")
    second = simulate(NAV.assign(nav=[10.0, 10.0, 11.0, 12.0, 12.0, 13.0, 14.0, 15.0]), None, PLAN, label="DEMO-B")
    return first, second


def _lines(picture) -> dict[str, list[dict]]:
    """Each drawn line's rows under its legend entry (a line is one renderer; its legend item names it)."""
    colours = [layer for layer in picture.layers if layer.kind == "Line"]
    assert len(colours) == len(picture.legend), (len(colours), picture.legend)
    return {entry: layer.rows for (entry, _), layer in zip(picture.legend, colours)}


def test_the_dca_chart_draws_each_classs_plan_and_lump_sum_in_its_legend_colour_and_the_money_put_in():
    first, second = _dca_results()
    picture = drawn(dca_present.value_chart([first, second]))
    lines = _lines(picture)
    assert list(lines) == ["DEMO-A: monthly plan", "DEMO-A: all at the start", "DEMO-B: monthly plan",
                           "DEMO-B: all at the start", "Money put in"]
    day = lambda row: row["x"] if isinstance(row["x"], str) else pd.Timestamp(row["x"], unit="ms").strftime("%Y-%m-%d")
    # Worked by hand (tests/models/test_dca.py): 1,000 baht on 2 Jan (NAV 10, 100 units), 1 Feb (12.5, 80 units),
    # 4 Mar (8, 125 units); 0.50 a unit paid on 6 Feb for the 180 units held. The lump sum: 300 units on 2 Jan.
    assert [(day(r), r["y"]) for r in lines["DEMO-A: monthly plan"]] == [
        ("2024-01-02", 1000.0), ("2024-01-03", 1050.0), ("2024-02-01", 2250.0), ("2024-02-07", 1710.0),
        ("2024-03-04", 2530.0), ("2024-03-29", 3445.0)]
    assert [(day(r), r["y"]) for r in lines["DEMO-A: all at the start"]] == [
        ("2024-01-02", 3000.0), ("2024-01-03", 3150.0), ("2024-02-01", 3750.0), ("2024-02-07", 2850.0),
        ("2024-03-04", 2550.0), ("2024-03-29", 3450.0)]
    # The second class, row by row against its model's values.
    for entry, outcome in (("DEMO-B: monthly plan", second.regular), ("DEMO-B: all at the start", second.lump_sum)):
        expected = [(d.strftime("%Y-%m-%d"), t) for d, t in outcome.values[["nav_date", "total"]].itertuples(index=False)]
        assert [(day(r), r["y"]) for r in lines[entry]] == expected, entry
    # The money put in, a step up on each purchase day: every drawn point is a total put in by then.
    put_in = {(day(r), r["y"]) for r in lines["Money put in"]}
    assert {("2024-01-02", 1000.0), ("2024-02-01", 2000.0), ("2024-03-04", 3000.0)} <= put_in
    assert {y for _, y in put_in} == {1000.0, 2000.0, 3000.0}
    # Colours: a class's plan and lump sum in its colour (the lump sum dashed), the money put in grey.
    legend = picture.legend_colors()
    assert legend["DEMO-A: monthly plan"] == legend["DEMO-A: all at the start"] == charts.SERIES_COLORS[0]
    assert legend["DEMO-B: monthly plan"] == legend["DEMO-B: all at the start"] == charts.SERIES_COLORS[1]
    assert legend["Money put in"] == dca_present.INVESTED_COLOR
    for entry, rows in lines.items():
        assert {r["line_color"] for r in rows} == {legend[entry]}, entry
        assert {r["line_dash"] for r in rows} == {"dashed" if "all at the start" in entry else "solid"}, entry
    assert (picture.title, picture.x_label, picture.y_label) == ("Value over time (estimate)", "Date", "Baht")


def test_the_dca_chart_of_nothing_simulated_says_so():
    assert [t["text"] for t in drawn(dca_present.value_chart([])).glyphs("Text")] == ["Nothing simulated yet"]


# ---- fee drag (Fees tab, comparison report) ---------------------------------------------------------

def test_the_fee_drag_chart_draws_each_funds_value_year_by_year_in_its_legend_colour():
    from dashboard.models.fee_drag import basket_fee_drag
    from dashboard.present.siblings import fee_drag_chart
    from dashboard.records.labels import fee_type_text

    total, front = fee_type_text("total"), fee_type_text("front_end")
    fees = pd.DataFrame([
        {"fund": "AAA", "proj_id": "P1", "class_abbr_name": "AAA-A", "fee_type_desc": total, "actual_value_num": 1.0,
         "actual_value": "1"},
        {"fund": "BBB", "proj_id": "P2", "class_abbr_name": None, "fee_type_desc": total, "actual_value_num": 2.0,
         "actual_value": "2"},
        {"fund": "BBB", "proj_id": "P2", "class_abbr_name": None, "fee_type_desc": front, "actual_value_num": 1.0,
         "actual_value": "1"}])
    frame = basket_fee_drag(fees, 1_000, 2, 5.0)
    picture = drawn(fee_drag_chart(frame, 1_000, 2, 5.0))
    lines = _lines(picture)
    # By hand, 5 % a year before fees: AAA keeps 99 % a year (1 % expense); BBB pays 1 % on buying and keeps 98 %
    # a year; no fees grows 5 % a year.
    expected = {"AAA · AAA-A": [1000.0, 1039.5, 1080.56025], "BBB": [990.0, 1018.71, 1048.25259],
                "No fees": [1000.0, 1050.0, 1102.5]}
    assert list(lines) == list(expected)
    for entry, values in expected.items():
        assert [r["x"] for r in lines[entry]] == [0, 1, 2], entry
        assert [r["y"] for r in lines[entry]] == pytest.approx(values), entry
        # and row by row, the model's frame
        assert [r["y"] for r in lines[entry]] == list(frame.loc[frame["series"] == entry, "value"]), entry
    legend = picture.legend_colors()
    assert len(set(legend.values())) == 3  # a colour per line
    for entry, rows in lines.items():
        assert {r["line_color"] for r in rows} == {legend[entry]}, entry
        assert {r["line_dash"] for r in rows} == {"dashed" if entry == "No fees" else "solid"}, entry
    assert (picture.x_label, picture.y_label) == ("Years held", "Value (THB)")
    assert picture.title == "1,000 THB after charged fees"


def test_the_fee_drag_chart_without_a_charged_expense_says_so():
    from dashboard.present.siblings import fee_drag_chart

    picture = drawn(fee_drag_chart(pd.DataFrame(), 1_000, 2, 5.0))
    assert [t["text"] for t in picture.glyphs("Text")] == ["No charged total expense to compute a fee drag from"]

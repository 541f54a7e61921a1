"""Issue 30's on-screen items that need no browser: a running sync's label, the report's file name,
"who holds this" by a part of the issuer's name."""

from __future__ import annotations

from dashboard.config import ApiSettings
from dashboard.market.screen import MarketScreen
from dashboard.market.store import MarketStore
from dashboard.views.market_notes import snapshot_html
from tests.conftest import run


def _market(tmp_path) -> MarketScreen:
    return MarketScreen(settings=ApiSettings.from_env(demo=True, cache_dir=tmp_path, environ={}))


def test_a_running_sync_says_so_with_its_count_not_that_it_stopped(tmp_path):
    market = _market(tmp_path)
    market.param.update(has_store=True, complete=False, snapshot_at="2026-06-30T00:00:00Z")
    assert "a sync stopped part way" in snapshot_html(market)  # nothing runs: the snapshot is left half done
    # A sync in another process (`market sync` in a terminal): its progress file beside the snapshot.
    writer = MarketStore(settings=market.settings)
    try:
        writer.write_progress(running=True, started_at=0.0, total=11, done=3, dataset="fees", under_way=["fees"],
                              calls=40, rows=0)
        run(market.poll())
    finally:
        writer.close()
        market.close()
    assert market.syncing and (market.sync_done, market.sync_total) == (3, 11)
    market.param.update(has_store=True, complete=False)
    html = snapshot_html(market)
    assert "a sync is running: 3 of 11 datasets" in html
    assert "stopped part way" not in html


def test_the_first_snapshot_being_made_says_a_sync_is_running(tmp_path):
    """The demo's button on an empty cache: until the store's first datasets are in, the line said nothing beside the
    moving bar; it says a sync is running, with its count (issue 30)."""
    market = _market(tmp_path)
    try:
        assert snapshot_html(market) == ""  # no snapshot, no sync: the empty state speaks
        market.param.update(syncing=True, sync_done=2, sync_total=11)
        html = snapshot_html(market)
        assert "a sync is running: 2 of 11 datasets" in html and "stopped part way" not in html
    finally:
        market.close()


def test_the_screeners_filters_are_kept_in_the_link(tmp_path):
    """A link carries the Market tab's screener filters, and a link with them reopens them (issue 30)."""
    from dashboard.app import url_search
    from dashboard.models.dashboard_state import DashboardState

    state = DashboardState()
    ignored = state.apply_url({"tab": "market", "risk": "RS6,RS81", "max_fee": "1.5", "status": "RG",
                               "sort": "-return_1y", "policy": "equity", "company": "C0000000104", "tax": "XX"})
    market = _market(tmp_path)
    try:
        state.market = market  # the view layer sets it once it has made it: the link's filters waited for it
        assert (market.risk, market.max_fee, market.status, market.sort, market.policy, market.company) == (
            ["RS6", "RS81"], 1.5, "RG", "-return_1y", "equity", "C0000000104")
        assert market.tax == "" and "tax=XX" in state.ignored_url and not ignored
        query = url_search(state)
        for part in ("tab=market", "risk=RS6,RS81", "max_fee=1.5", "status=RG", "sort=-return_1y", "policy=equity",
                     "company=C0000000104"):
            assert part in query, query
        seen = []
        state.url_watch(lambda *events: seen.append([e.name for e in events]))
        market.min_return_1y = 2.0  # a filter changed on screen: the address follows
        assert seen == [["min_return_1y"]] and "min_return=2" in url_search(state)
        again = DashboardState()
        again.market = other = _market(tmp_path / "again")
        again.apply_url(dict(part.split("=", 1) for part in url_search(state)[1:].split("&")))
        assert (other.risk, other.max_fee, other.min_return_1y, other.sort) == (["RS6", "RS81"], 1.5, 2.0, "-return_1y")
    finally:
        market.close()


def test_the_basket_allocation_lies_with_fund_names_level_and_the_legend_underneath(tmp_path):
    """The basket's stacked allocation: bars lying, a fund a row named level on the left, the legend under the chart
    a name a row (standing bars were squeezed beside a legend on a phone, their slanted names overlapping)."""
    import holoviews as hv

    from dashboard.app import create_dashboard
    from dashboard.demo.connect import open_client
    from tests.conftest import TODAY

    client = open_client(ApiSettings.from_env(demo=True, cache_dir=tmp_path, environ={}), today=lambda: TODAY)
    try:
        app = create_dashboard(client=client)
        run(app.start())
        app.state.tab = "allocation"
        pane = app.views["allocation"]._stacked
        chart = pane.object() if callable(pane.object) else pane.object
        assert isinstance(chart, hv.Bars)
        plot = hv.render(chart)
        funds = {str(f) for f in chart.data["fund"]}
        assert set(plot.y_range.factors) == funds and plot.yaxis[0].major_label_orientation == "horizontal"
        assert not plot.right and all(legend.ncols == 1 for legend in plot.legend) and plot.legend[0] in plot.below
        assert plot.height >= 34 * len(funds)  # a row per fund, however many
        app.market.close()
    finally:
        client.close()


def test_names_at_the_top_risk_level_are_drawn_inside_the_chart():
    """A fund at RS8+ (the right edge) has its name drawn to the left of its point, not off the chart (cut on a phone)."""
    import holoviews as hv
    import pandas as pd

    from dashboard.present.risk_charts import risk_scatter, risk_spectrum_chart

    hv.extension("bokeh")
    risk = pd.DataFrame({"fund": ["EDGE", "MID"], "proj_id": ["A", "B"], "name_en": ["x", "y"], "risk_level": ["8+", "4"],
                         "risk_rank": [9.0, 4.0], "risk_spectrum": ["RS81", "RS4"], "total_annual_fee": [1.0, 2.0],
                         "return_1y": [3.0, 4.0]})

    def aligns(chart) -> dict[str, str]:
        out = {}
        for renderer in hv.render(chart).renderers:
            source = getattr(renderer, "data_source", None)
            names = (source.data.get("fund") if source is not None else None)
            if names is not None and hasattr(renderer.glyph, "text_align"):
                out.update({str(n): renderer.glyph.text_align for n in names})
        return out

    assert aligns(risk_spectrum_chart(risk)) == {"EDGE": "right", "MID": "center"}
    assert aligns(risk_scatter(risk, "return_1y")) == {"EDGE": "right", "MID": "left"}


def test_the_market_charts_fit_a_phone():
    """At 390 px the risk spectrum's legend ran off the screen in three columns, and the fee chart's axis names
    (English and Thai) took half the width: its title and axis label were cut and its ticks ran together."""
    import holoviews as hv
    import pandas as pd

    from dashboard.present.charts import market_fee_ranges, market_spectrum_bars

    hv.extension("bokeh")
    spectrum = pd.DataFrame({"risk_spectrum": ["RS4", "RS6", "RS8"], "risk_rank": [4, 6, 8],
                             "policy_type": ["ตราสารทุน", "ผสม", "ทรัพย์สินทางเลือก"], "funds": [3, 5, 1]})
    plot = hv.render(market_spectrum_bars(spectrum))
    assert [legend.ncols for legend in plot.legend] == [1] and plot.legend[0] in plot.below
    fees = pd.DataFrame({"policy_type": ["ทรัพย์สินทางเลือก", "ตราสารทุน"], "min": [0.2, 0.5], "p25": [0.4, 0.9],
                         "median": [0.6, 1.2], "p75": [0.8, 1.4], "max": [1.0, 1.9], "funds": [4, 9]})
    plot = hv.render(market_fee_ranges(fees))
    names = list(plot.yaxis[0].major_label_overrides.values())
    assert names and all(not any("\u0e00" <= ch <= "\u0e7f" for ch in n) for n in names), names
    assert max(len(n) for n in names) <= 24 and len(plot.title.text) <= 30
    assert plot.xaxis[0].ticker.desired_num_ticks <= 6

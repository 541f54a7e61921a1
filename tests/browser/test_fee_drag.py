"""The Fees tab's view (views.fees.FeesView) served alone with a basket of three demo feeders and the demo market
snapshot: the fee-drag chart ("What the charged fees take over the years") drawn with a line for each fund and the
no-fees line, its inputs stated in words; screenshotted at desktop and phone width, no errors.

Served alone, the view is made as the dashboard's shell makes a tab (`DashboardApp.start`): once its data is
ready (the basket loaded before the view is made). Made before, with an unloaded basket, its two fee charts side by
side drew broken when the data came (slanted names, no bars) and never reported drawn, so Bokeh never sent
"document ready" and no `pn.state.onload` callback ran: the earlier test's basket load, started in one, never ran.

Screenshots: test-artifacts/screen-fee-drag-<width>.png.
"""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import opened_page, serve_component, shoot
from tests.browser.dashboard_server import CANVAS_RIGHT_JS, wait_js
from tests.feeder_store import feeder_abbr, feeder_store_once

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
FEEDERS = ((1, "GQ-UH"), (2, "GQ"), (3, "GQ"))

# The fee-drag figure as Bokeh holds it in the page: its title and its legend's entries, in the order shown.
DRAG_JS = """() => { for (const doc of Bokeh.documents) {
    const models = doc._all_models instanceof Map ? [...doc._all_models.values()] : [...doc.all_models];
    for (const m of models) {
      if (!m.title || typeof m.title.text !== 'string' || !m.title.text.endsWith('THB after charged fees')) continue;
      const legends = [...(m.center || []), ...(m.right || []), ...(m.below || [])].filter(l => l.items);
      const labels = legends.flatMap(l => l.items.map(i => {
        const lab = i.label; return lab && typeof lab === 'object' ? (lab.value ?? lab.field) : lab; }));
      let width = null; try { width = m.inner_width; } catch (e) { /* not laid out yet */ }
      return {title: m.title.text, labels, width}; } }
  return null; }"""


# Bars drawn by the fee charts: the rows of their VBar/HBar glyphs' data.
BARS_JS = """() => { let n = 0; for (const doc of Bokeh.documents) {
    const models = doc._all_models instanceof Map ? [...doc._all_models.values()] : [...doc.all_models];
    for (const m of models) if (m.type === 'GlyphRenderer' && m.glyph && /Bar$/.test(m.glyph.type)) {
      const data = m.data_source.data; const first = Object.keys(data)[0]; n += first ? data[first].length : 0; } }
  return n; }"""


def fees_state(store_path, proj_ids: list[str]):
    """A demo dashboard state on the snapshot at `store_path` with `proj_ids` in its basket, not yet read."""
    import dashboard.app  # noqa: F401 - the extensions the dashboard's page loads (Tabulator)
    from dashboard.config import ApiSettings
    from dashboard.market.screen import MarketScreen
    from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, DashboardState
    from dashboard.models.source import default_client

    state = DashboardState(client=default_client(ApiSettings.from_env(demo=True, environ={})),
                           default_query=DEMO_DEFAULT_QUERY)
    state.market = MarketScreen(snapshot_dir=str(store_path))
    assert state.apply_url({"basket": ",".join(proj_ids)}) == []
    return state


def fees_view(store_path, proj_ids: list[str]):
    import panel as pn

    from dashboard.views.fees import FeesView

    state = fees_state(store_path, proj_ids)
    # the first load, before the view is made (the server's loop is this thread's: the load runs on a loop of its own)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, state.start()).result(timeout=120) == []
        view = FeesView(state=state)
        # (its own onload callback would read them: it never runs, the page never reporting ready)
        pool.submit(asyncio.run, view.refresh_returns()).result(timeout=120)  # the classes' 5-year NAV returns
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return feeder_store_once(tmp_path_factory, "fee-drag-browser")  # built once in the run, a copy


@pytest.fixture(scope="module")
def basket(store_path):
    """The three feeders' (proj_id, abbreviation)."""
    from dashboard.market.store import MarketStore

    with MarketStore(store_path, read_only=True) as reader:
        return [(reader.query("SELECT proj_id FROM funds WHERE proj_abbr_name = ?", [abbr])[0]["proj_id"], abbr)
                for abbr in (feeder_abbr(*f) for f in FEEDERS)]


@pytest.fixture(scope="module")
def server(store_path, basket):
    with serve_component(lambda: fees_view(store_path, [p for p, _ in basket])) as url:
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_the_fee_drag_chart_draws_each_fund_and_states_its_inputs(browser, server, artifacts_dir, basket, width):
    with opened_page(browser, server, width) as page:
        page.get_by_text("What the charged fees take over the years").wait_for(timeout=90_000)
        page.get_by_text("100,000 THB held 10 years", exact=False).first.wait_for(timeout=90_000)
        wait_js(page, f"() => {{ const d = ({DRAG_JS})(); return d && d.labels.length >= 2 && d.width; }}",
                      timeout=60_000)
        # the basket's two fee charts drew their bars (one per fund and class) beside the fee drag
        wait_js(page, f"() => ({BARS_JS})() >= {2 * len(basket)}", timeout=60_000)
        drawn = page.evaluate(DRAG_JS)
        # (not Bokeh idle: this view's document never reports idle, even made with its data; see the report)
        shoot(page, artifacts_dir / f"screen-fee-drag-{width}.png", full_page=True, idle=False)
        # a line for each fund of the basket (named by its abbreviation, not its id), and the no-fees line
        # a line for each fund (at each class's own return there is no one no-fees line)
        assert len(drawn["labels"]) == len(basket), drawn
        assert len(drawn["title"]) <= 40, drawn  # read whole on a phone: the inputs are said in the note above
        for proj_id, abbr in basket:
            assert any(label.startswith(abbr) for label in drawn["labels"]), (abbr, drawn)
            assert not any(proj_id in label for label in drawn["labels"]), drawn
        assert drawn["width"] >= (200 if width < 600 else 600), drawn
        assert page.evaluate(CANVAS_RIGHT_JS) <= width + 1  # no chart runs past the screen's right edge
        expect(page.get_by_text("Yearly return before fees (%)", exact=False).first).to_be_visible()

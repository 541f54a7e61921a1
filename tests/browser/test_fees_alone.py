"""The Fees tab's view (views.fees.FeesView) served alone and made as a session makes it: before its basket is read,
the basket read once the page is ready (`pn.state.onload(state.start)`). Its two fee charts draw their bars, laid out
to the page's width, the document goes idle (so `pn.state.onload` callbacks run) and nothing runs past a phone's edge.

Before: the two charts sat side by side in Panel's HTML flex box, beside the fee-drag chart in the same column. Served
alone, Bokeh never laid them out (names slanted in a corner, no bars, a plot 0 px wide), the document never went idle
and no `onload` callback ran, so the basket was never read. Screenshots: test-artifacts/screen-fees-alone-<width>.png.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import ConsoleLog, serve_component
from tests.browser.dashboard_server import CANVAS_RIGHT_JS, wait_idle
from tests.browser.test_fee_drag import BARS_JS, FEEDERS, fees_state
from tests.feeder_store import feeder_abbr, feeder_store_once

pytestmark = pytest.mark.browser

# The two fee charts' plot areas as Bokeh laid them out (0 x 0 when never laid out).
FEE_PLOTS_JS = """() => { const out = {}; for (const doc of Bokeh.documents) {
    const models = doc._all_models instanceof Map ? [...doc._all_models.values()] : [...doc.all_models];
    for (const m of models) if (m.type === 'Figure' && (m.name === 'fees-actual' || m.name === 'fees-ceiling')) {
      let w = -1; try { w = m.inner_width; } catch (e) { /* not laid out */ } out[m.name] = w; } }
  return out; }"""


def fees_view_unread(store_path, proj_ids: list[str]):
    """The Fees view made before its basket is read, the basket read when the page is ready (as the shell does)."""
    import panel as pn

    from dashboard.views.fees import FeesView

    state = fees_state(store_path, proj_ids)
    view = FeesView(state=state)
    pn.state.onload(state.start)
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return feeder_store_once(tmp_path_factory, "fees-alone")  # built once in the run, a copy


@pytest.fixture(scope="module")
def server(store_path):
    from dashboard.market.store import MarketStore

    with MarketStore(store_path, read_only=True) as reader:
        ids = [reader.query("SELECT proj_id FROM funds WHERE proj_abbr_name = ?", [feeder_abbr(*f)])[0]["proj_id"]
               for f in FEEDERS]
    with serve_component(lambda: fees_view_unread(store_path, ids)) as url:
        yield url


@pytest.mark.parametrize("width", (1280, 390))
def test_the_fee_charts_draw_when_the_view_is_served_alone(browser, server, artifacts_dir, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    log = ConsoleLog()
    page.on("console", log.on_console)
    page.on("pageerror", log.on_pageerror)
    try:
        page.goto(server, wait_until="domcontentloaded")
        # the basket read by the onload callback: its funds' fees in the table
        page.get_by_text("Management Fee").first.wait_for(timeout=90_000)
        wait_idle(page, 60_000)
        plots = page.evaluate(FEE_PLOTS_JS)
        page.screenshot(path=str(artifacts_dir / f"screen-fees-alone-{width}.png"), full_page=True)
        assert set(plots) == {"fees-actual", "fees-ceiling"}, plots
        assert all(w >= (200 if width < 600 else 600) for w in plots.values()), plots
        assert page.evaluate(f"() => ({BARS_JS})()") >= 2 * len(FEEDERS)
        assert page.evaluate(CANVAS_RIGHT_JS) <= width + 1
        assert not log.errors, log.errors
    finally:
        context.close()

"""The Market tab's view served alone (`serve_component`), on a demo market snapshot synced first into a temporary
cache directory: the screener's rows, a filter, and screenshots at 1280 and 390 px
(test-artifacts/screen-market-1280.png and screen-market-390.png)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import opened_page, serve_component, shoot
from tests.browser.dashboard_server import COUNT_JS, wait_count, wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
ROWS_JS = f"() => ({COUNT_JS})('.tabulator-row')"


SPILLING_CELLS_JS = """() => {
  const out = [];
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    if (e.shadowRoot) walk(e.shadowRoot);
    // a cell whose content overflows it and is cut with an ellipsis: a stray dot (or a cut value)
    if (e.classList && e.classList.contains('tabulator-cell') && e.querySelector('input')
        && e.scrollWidth > e.clientWidth && getComputedStyle(e).textOverflow === 'ellipsis') {
      out.push(e.getAttribute('tabulator-field') || 'tick box');
    }
  });
  walk(document);
  return [...new Set(out)];
}"""


def market_view(cache_dir):
    """The Market tab's view alone on the snapshot in `cache_dir`, read before the view is served (the dashboard reads
    it before the tab is shown)."""
    import asyncio
    import concurrent.futures

    import panel as pn

    import dashboard.app  # noqa: F401 - the extensions the dashboard's page loads (Tabulator)
    from dashboard.config import ApiSettings
    from dashboard.market.screen import MarketScreen
    from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, DashboardState
    from dashboard.models.source import default_client
    from dashboard.views.market import MarketView

    settings = ApiSettings.from_env(demo=True, cache_dir=cache_dir, environ={})  # as `--demo serve` with this cache
    state = DashboardState(client=default_client(settings), default_query=DEMO_DEFAULT_QUERY, tab="market")
    state.market = MarketScreen(settings=settings)
    view = MarketView(state=state, market=state.market, demo=True)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # (the server's loop is this thread's)
        pool.submit(asyncio.run, view.refresh()).result(timeout=120)
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def server(market_cache):
    """The Market tab's view served alone (the test is about it: the whole dashboard's first load is not)."""
    with serve_component(lambda: market_view(market_cache)) as url:
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_market_tab_screens_the_whole_market(browser, server, artifacts_dir, width):
    with opened_page(browser, server, width, errors="thrown") as page:
        page.get_by_text("Market snapshot from").first.wait_for(timeout=60_000)
        wait_count(page, ".tabulator-row", 11, timeout=30_000)
        wait_idle(page, 30_000)
        line = page.get_by_text("match the filters").first
        status = line.inner_text()
        assert "funds" in status
        # A filter: registered funds with a fee of at most 1 % a year.
        fee = page.get_by_label("Fee at most (% a year)")
        fee.fill("1")
        fee.press("Enter")
        expect(line).not_to_have_text(status, timeout=20_000)
        wait_idle(page, 30_000)
        assert page.evaluate(ROWS_JS) > 0
        # Nothing shows between the tick box and the fund: the box's cell cut with an ellipsis drew a dot
        # beside every box, which read as a narrow empty column before "Fund".
        spills = page.evaluate(SPILLING_CELLS_JS)
        assert not spills, spills
        shoot(page, artifacts_dir / f"screen-market-{width}.png", full_page=True, min_bytes=5_000)

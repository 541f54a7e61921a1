"""The Market tab in the served dashboard, on a demo market snapshot synced first into a temporary cache
directory: the screener's rows, a filter, and screenshots at 1280 and 390 px
(test-artifacts/screen-market-1280.png and screen-market-390.png)."""

from __future__ import annotations

import pytest

from tests.browser.dashboard_server import COUNT_JS, DashboardProcess, screenshot_full, wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
ROWS_JS = f"() => ({COUNT_JS})('.tabulator-row')"
MANY_ROWS_JS = f"() => ({COUNT_JS})('.tabulator-row') > 10"


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


@pytest.fixture(scope="module")
def server(market_cache, artifacts_dir):
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_CACHE_DIR": str(market_cache)},
                          log_path=artifacts_dir / "market-server.log") as server:
        yield server


@pytest.mark.parametrize("width", WIDTHS)
def test_market_tab_screens_the_whole_market(browser, server, artifacts_dir, width):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server.url + "?tab=market", wait_until="domcontentloaded")
        page.get_by_text("Market snapshot from").first.wait_for(timeout=60_000)
        page.wait_for_function(MANY_ROWS_JS, timeout=30_000)
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
        shot = artifacts_dir / f"screen-market-{width}.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 5_000
        assert not errors, errors
    finally:
        context.close()

"""The Plan tab's tax-saving planner served in Chromium at 1280 px and on a 390 px phone: the estimate note and
the rules' date on screen, the plan's table and the qualifying funds drawn, nothing past a phone's right edge.

Screenshots: test-artifacts/plan-tax-<width>.png.
"""

from __future__ import annotations

import pytest

from tests.browser.dashboard_server import COUNT_JS, DashboardProcess, screenshot_full, wait_idle

pytestmark = pytest.mark.browser
LONG = 60_000
# What is drawn past a phone's right edge (a table scrolls inside its own box: the box is what must fit).
WIDER_THAN_SCREEN_JS = """(width) => { const out = [];
  const walk = root => { for (const el of root.querySelectorAll('.tabulator, p, li, input, .bk-panel-models-markup-HTML')) {
      if (el.offsetParent === null) continue; const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 1) out.push(`${el.tagName}.${el.className}`.slice(0, 80) + ` ${Math.round(r.right)}`); }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return out.slice(0, 5); }"""


@pytest.fixture(scope="module")
def server(market_cache, artifacts_dir):
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_CACHE_DIR": str(market_cache)},
                          log_path=artifacts_dir / "plan-tax-server.log") as server:
        yield server


@pytest.mark.parametrize("width", [1280, 390])
def test_the_tax_planner_on_screen(browser, server, artifacts_dir, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server.url + "?tab=plan", wait_until="domcontentloaded")
        page.get_by_text("not tax or investment advice").first.wait_for(timeout=LONG)
        page.wait_for_function(f"() => ({COUNT_JS})(\".tabulator-cell[tabulator-field='tax_saved']\") > 0", timeout=LONG)
        page.wait_for_function(f"() => ({COUNT_JS})(\".tabulator-cell[tabulator-field='proj_abbr_name']\") > 0",
                               timeout=LONG)
        wait_idle(page, LONG)
        shot = artifacts_dir / f"plan-tax-{width}.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 5_000
        if width < 600:
            assert page.evaluate(WIDER_THAN_SCREEN_JS, width) == []
    finally:
        context.close()

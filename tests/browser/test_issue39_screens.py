"""Issue 39's evidence on screen: the Market tab at 1280 and 390 px, the Holdings tab of a fund whose newest
quarter is late, and the Licensee tab; saved as test-artifacts/i39-*.png.

What each checks: the Market tab names no directory of the server (item 8); at 1280 px a table wider than its
place scrolls sideways with a scrollbar a person can see (item 8: the right-hand columns were off-screen with no
sign of them); at 390 px nothing is drawn past the screen's edge; the late fund's Holdings tab shows the quarter
before and says why (item 3).
"""

from __future__ import annotations

import copy

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import opened_page
from tests.browser.dashboard_server import COUNT_JS, DashboardProcess, screenshot_full, wait_idle
from tests.browser.test_issue30 import OVERFLOW_JS

pytestmark = pytest.mark.browser

LONG = 60_000
KEY = "test-key"

# Each table that scrolls sideways: whether it scrolls (overflow-x not hidden) and whether the page's style gives
# its scrollbar a height and a thumb a person sees. (Headless Chromium under Playwright runs with --hide-scrollbars,
# so no scrollbar is ever drawn in these screenshots: the style is what can be checked; drawn without that flag, each
# such table shows a 10 px bar under it.)
HIDDEN_COLUMNS_JS = """() => { const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll('.tabulator-tableholder')) {
      if (el.offsetParent === null || el.scrollWidth <= el.clientWidth + 1) continue;
      const styled = [...root.querySelectorAll('style')].some(s => /tabulator-tableholder::-webkit-scrollbar\\s*\\{\\s*height:\\s*([89]|\\d\\d)px/.test(s.textContent));
      out.push({fields: [...el.closest('.tabulator').querySelectorAll('.tabulator-col[tabulator-field]')].slice(0, 2)
                  .map(c => c.getAttribute('tabulator-field')).join(','),
                scrolls: getComputedStyle(el).overflowX !== 'hidden', styled, hidden: el.scrollWidth - el.clientWidth}); }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return out; }"""
TEXT_JS = """() => { const out = [];
  const walk = (root) => { out.push(root.textContent || ''); for (const el of root.querySelectorAll('*'))
    if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document.body); return out.join(' '); }"""


# Where a column's title ends on screen (the largest right edge of the titles of that field), in px.
COLUMN_RIGHT_JS = """(field) => { let right = 0;
  const walk = (root) => { for (const el of root.querySelectorAll(`.tabulator-col[tabulator-field='${field}']`)) {
      if (el.offsetParent !== null) right = Math.max(right, el.getBoundingClientRect().right); }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return right; }"""


def _scrollbars_show(page) -> None:
    """Every table wider than its place at this width scrolls sideways, its scrollbar styled to be seen."""
    wide = page.evaluate(HIDDEN_COLUMNS_JS)
    assert all(t["scrolls"] and t["styled"] for t in wide), wide
    return wide


@pytest.mark.parametrize("width", (1280, 390))
def test_the_market_tab_at_each_width(browser, market_dashboard, market_cache, artifacts_dir, width):
    with opened_page(browser, market_dashboard.url + "?tab=market", width, errors="none") as page:
        page.get_by_text("Market snapshot from").first.wait_for(timeout=LONG)
        page.wait_for_function(f"() => ({COUNT_JS})('.tabulator-row') > 10", timeout=LONG)
        page.wait_for_function(f"() => ({COUNT_JS})('.bk-Figure') >= 2", timeout=LONG)
        wait_idle(page, LONG)
        text = page.evaluate(TEXT_JS)
        assert str(market_cache) not in text and "/tmp/" not in text  # the server's directories are its own
        if width >= 600:
            _scrollbars_show(page)
        else:
            assert page.evaluate(OVERFLOW_JS, width) == []
        shot = artifacts_dir / f"i39-market-{width}.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 20_000


def test_the_licensee_tab_with_a_persons_approvals(browser, market_dashboard, artifacts_dir):
    from dashboard.demo.generator import generate_demo_dataset

    person = sorted(generate_demo_dataset().approvals)[0]
    with opened_page(browser, market_dashboard.url + f"?tab=licensee&person={person}", 1280, errors="none") as page:
        expect(page.get_by_text("Licensed person (id)").first).to_be_visible(timeout=LONG)
        expect(page.get_by_label("Person identifier", exact=True)).to_have_value(person, timeout=LONG)
        page.wait_for_function(f"() => ({COUNT_JS})('.tabulator-row') > 3", timeout=LONG)
        wait_idle(page, LONG)
        _scrollbars_show(page)
        shot = artifacts_dir / "i39-licensee-1280.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 20_000


@pytest.fixture(scope="module")
def late_fund(tmp_path_factory, artifacts_dir):
    """A service (the simulator, over the demo data) on which one fund's company has not yet filed the quarter
    the rules make due today, and the dashboard served against it: (server, proj_id, due, before)."""
    from dashboard.api.periods import valid_periods
    from dashboard.demo.generator import generate_demo_dataset
    from dashboard.demo.loopback import SimulatorServer
    from dashboard.demo.simulator import create_app

    dataset = copy.deepcopy(generate_demo_dataset())
    due, before = valid_periods()[:2]
    proj_id = next(f["proj_id"] for f in dataset.funds if f["proj_abbr_name"] == "DCPEQ")
    assert dataset.holdings[proj_id].get(due) and dataset.holdings[proj_id].get(before)
    dataset.holdings[proj_id] = {p: rows for p, rows in dataset.holdings[proj_id].items() if p != due}
    with SimulatorServer(create_app(dataset, valid_keys={KEY})) as simulator:
        env = {"SEC_API_BASE_URL": simulator.base_url, "SEC_API_KEY": KEY,
               "SEC_DASHBOARD_CACHE_DIR": str(tmp_path_factory.mktemp("late-cache"))}
        with DashboardProcess(demo=False, env=env, log_path=artifacts_dir / "i39-late-server.log") as server:
            yield server, proj_id, due, before


def test_the_holdings_tab_of_a_fund_whose_newest_quarter_is_late(browser, late_fund, artifacts_dir):
    from dashboard.api.periods import quarter_name

    server, proj_id, due, before = late_fund
    with opened_page(browser, server.url + f"?fund={proj_id}&tab=holdings", 1280, errors="none") as page:
        note = f"{quarter_name(due)} is not published for this fund yet"
        expect(page.get_by_text(note, exact=False).first).to_be_visible(timeout=LONG)
        expect(page.get_by_text(f"{quarter_name(before)}: ", exact=False).first).to_be_visible(timeout=LONG)
        page.wait_for_function(f"() => ({COUNT_JS})('.tabulator-row') > 3", timeout=LONG)
        page.wait_for_function(f"() => ({COUNT_JS})('.bk-Figure') >= 3", timeout=LONG)
        wait_idle(page, LONG)
        assert page.get_by_text(f"No holdings published for {quarter_name(due)}").count() == 0
        # the holding's weight and value seen without scrolling sideways (they came after the long texts, off-screen)
        for field in ("percent_nav", "assetliab_value"):
            assert 0 < page.evaluate(COLUMN_RIGHT_JS, field) <= 1280, field
        _scrollbars_show(page)
        shot = artifacts_dir / "i39-holdings-late-1280.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 20_000

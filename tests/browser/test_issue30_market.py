"""Issue 30's Market tab items on screen: a running sync says so while its progress moves, the screener's filters
are kept in the page's link and reopened by it, and the company filter picks a company by its name.

Screenshots: test-artifacts/i30-market-sync-running.png, i30-market-link-reopened.png, i30-market-company.png.
"""

from __future__ import annotations

import re

from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import opened_page
from tests.browser.dashboard_server import DashboardProcess, wait_count, wait_idle, wait_js

pytestmark = pytest.mark.browser

LONG = 120_000  # generous: a first wait on a fresh page covers the server building it (over 60 s seen at load 12)
# The value of the progress bar shown in the main area (the sidebar's basket has a bar of its own); null when none.
PROGRESS_JS = """() => { let main = null, bar = null;
  const find = (root, test) => { for (const el of root.querySelectorAll('*')) {
      if (test(el)) return el; if (el.shadowRoot) { const got = find(el.shadowRoot, test); if (got) return got; } }
    return null; };
  main = find(document, el => el.classList && el.classList.contains('main-content'));
  bar = main && find(main, el => el.getAttribute && el.getAttribute('role') === 'progressbar' && el.offsetParent !== null);
  return bar ? Number(bar.getAttribute('aria-valuenow') || 0) : null; }"""

# The page's whole text, shadow roots included.
TEXT_JS = """() => { const parts = [];
  const walk = root => { parts.push(root.textContent || '');
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document.body); return parts.join(' '); }"""


@pytest.fixture(scope="module")
def server(market_dashboard):
    """The run's demo dashboard on the demo market's snapshot (conftest): this module only reads it."""
    return market_dashboard


@contextmanager
def market_page(browser, url: str, width: int = 1280):
    """A fresh page on the Market tab at `url`, once the snapshot's screen is drawn."""
    with opened_page(browser, url, width, height=900, errors="none") as page:
        page.get_by_text("Market snapshot from").first.wait_for(timeout=LONG)
        wait_count(page, ".tabulator-row", timeout=LONG)
        wait_idle(page, LONG)
        yield page


def _query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def test_a_running_sync_says_so_while_its_progress_moves(browser, tmp_path, artifacts_dir):
    """The demo's sync button on an empty cache: beside the moving progress bar the tab says "a sync is running:
    N of M datasets", never "incomplete: a sync stopped part way" (issue 30)."""
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_CACHE_DIR": str(tmp_path)},
                          log_path=artifacts_dir / "i30-market-sync-server.log") as server:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        try:
            page = context.new_page()
            page.goto(server.url + "?tab=market", wait_until="domcontentloaded")
            page.get_by_role("button", name="Make the demo market snapshot").click(timeout=LONG)
            # Each look reads the bar and the label at one moment; the looks end once the bar has moved while the
            # label said a sync runs, or when the bar is gone (the sync is over: the record says what was seen).
            seen = wait_js(page, f"""() => {{ const v = ({PROGRESS_JS})(), shown = ({TEXT_JS})();
                const all = window.__seen = window.__seen || [];
                if (v === null) return all.length ? all : null;
                const m = shown.match(/a sync is running: (\\d+) of (\\d+) datasets/);
                all.push([v, m ? Number(m[1]) : null, shown.includes('stopped part way')]);
                const labelled = all.filter(o => o[1] !== null);
                return labelled.length >= 2 && labelled[labelled.length - 1][0] > labelled[0][0] ? all : null; }}""",
                timeout=LONG * 2).json_value()  # (polled every POLL_MS: each look is one observation)
            labelled = [o for o in seen if o[1] is not None]
            assert len(labelled) >= 2 and labelled[-1][0] > labelled[0][0], seen  # the bar moved, the label beside it
            assert not any(stopped for _, _, stopped in seen), seen
            page.screenshot(path=str(artifacts_dir / "i30-market-sync-running.png"))
        finally:
            context.close()


def counts(status: str) -> str:
    """The screener status line's counts ("94 funds. 54 match the filters."), without the snapshot's age."""
    found = re.search(r"[\d,]+ funds?\. [\d,]+ match(es)? the filters\.", status)
    assert found, status
    return found.group(0)


def test_the_screeners_filters_are_kept_in_the_link_and_reopened_by_it(browser, server, artifacts_dir):
    """Filters set on screen go into the page's address; that address opened afresh shows the same filters and
    the same number of funds."""
    with market_page(browser, server.url + "?tab=market") as page:
        status = page.get_by_text("match the filters").first
        before = counts(status.inner_text())
        fee = page.get_by_label("Fee at most (% a year)")
        fee.fill("1.5")
        fee.press("Enter")
        expect(status).not_to_have_text(re.compile(re.escape(before)), timeout=LONG)
        returns = page.get_by_label("1-year return at least (%)")
        returns.fill("-5")
        returns.press("Enter")
        wait_js(page, "() => { const q = new URLSearchParams(location.search);"
                      " return q.get('max_fee') === '1.5' && q.get('min_return') === '-5'; }", timeout=LONG)
        wait_idle(page, LONG)
        # the screen after the last filter runs after the address changes: its count is the one that holds
        shown, settled = counts(status.inner_text()), 0
        for _ in range(40):
            page.wait_for_timeout(500)
            now = counts(status.inner_text())
            settled = settled + 1 if now == shown else 0
            shown = now
            if settled >= 3:
                break
        link = page.url
    with market_page(browser, link) as again:
        expect(again.get_by_label("Fee at most (% a year)")).to_have_value("1.5", timeout=LONG)
        expect(again.get_by_label("1-year return at least (%)")).to_have_value("-5", timeout=LONG)
        # the counts, not the snapshot's age: that can turn a minute older between the two pages
        expect(again.get_by_text("match the filters").first).to_contain_text(shown, timeout=LONG)
        assert _query(again)["max_fee"] == "1.5"
        again.screenshot(path=str(artifacts_dir / "i30-market-link-reopened.png"))


def test_the_company_filter_picks_a_company_by_its_name(browser, server, artifacts_dir):
    """Part of a company's name typed in the company filter's search finds it; picked, every fund listed is that
    company's and the link carries its id."""
    from dashboard.demo.generator import generate_demo_dataset

    amc = next(a for a in generate_demo_dataset().amcs if "Mekong" in a["name_en"])
    with market_page(browser, server.url + "?tab=market") as page:
        page.get_by_label("Management company").first.click()
        page.get_by_placeholder("Search...").fill("Mekong")
        choice = page.locator("li").filter(has_text=amc["name_en"])
        expect(choice).to_have_count(1, timeout=LONG)
        expect(page.locator("li").filter(has_text="Demo Lanna")).to_have_count(0)  # the search narrowed the list
        choice.click()
        wait_js(page, "(uid) => new URLSearchParams(location.search).get('company') === uid",
                      arg=amc["unique_id"], timeout=LONG)
        cells = page.locator(".tabulator-cell[tabulator-field='company_name_en']")
        wait_js(page, f"""(name) => {{ const out = [];
            const walk = root => {{ for (const el of root.querySelectorAll(".tabulator-cell[tabulator-field='company_name_en']"))
              out.push(el.textContent.trim()); for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); }};
            walk(document); return out.length > 0 && out.every(t => t === name); }}""", arg=amc["name_en"], timeout=LONG)
        assert cells.count() > 0
        expect(page.get_by_label("Management company").first).to_have_text(amc["name_en"])
        page.screenshot(path=str(artifacts_dir / "i30-market-company.png"))

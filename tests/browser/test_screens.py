"""Every tab at phone width (390 px) and desktop width (1280 px), screenshotted into test-artifacts/,
with what a person should never read there: endpoint codes, API field names, bare status codes.

Screenshots: test-artifacts/screen-<tab>-<width>.png and screen-report-fund-<width>.png.
"""

from __future__ import annotations

import re

import pytest

from dashboard.reports import fund_report_html, write_report
from tests.browser.dashboard_server import TABS, DashboardProcess, open_tab, screenshot_full, wait_for_overview
from tests.conftest import TODAY
from tests.reports.helpers import client_for, full_funds

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
# Words of developers, not of investors or compliance officers (the Licensee tab is checked by its owner).
DEVELOPER_WORDS = re.compile(r"\(E\d{1,2}\)|\bactual_value\b|\brate_num\b|\bunique_id\b|\bproj_id\b|inception date")
MY_TABS = ("Fund explorer", "Allocation", "Fees", "Risk", "Performance")


# Panel draws into shadow roots: gather the visible text of the whole tree, shadow roots included.
TEXT_JS = """() => { const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      for (const n of el.childNodes) if (n.nodeType === 3 && n.textContent.trim() && el.offsetParent !== null) out.push(n.textContent.trim()); } };
  walk(document); return out.join('\\n'); }"""


# The right edge of every drawn chart (Bokeh canvases live in shadow roots).
CANVAS_RIGHT_JS = """() => { let right = 0;
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName === 'CANVAS' && el.offsetParent !== null) {
        const box = el.getBoundingClientRect(); if (box.width > 0) right = Math.max(right, box.right); } } };
  walk(document); return right; }"""


def slug(name: str) -> str:
    return name.lower().replace(" ", "-")


@pytest.fixture(scope="module")
def server(artifacts_dir):
    with DashboardProcess(demo=True, log_path=artifacts_dir / "screens-server.log") as server:
        yield server


@pytest.mark.parametrize("width", WIDTHS)
def test_every_tab_screenshotted_and_in_words_for_people(browser, server, artifacts_dir, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server.url, wait_until="domcontentloaded")
        wait_for_overview(page)
        problems = []
        for name in TABS:
            open_tab(page, name, timeout=40_000)
            shot = artifacts_dir / f"screen-{slug(name)}-{width}.png"
            screenshot_full(page, shot)
            assert shot.stat().st_size > 5_000
            text = page.evaluate(TEXT_JS)
            if name in MY_TABS:
                problems += [f"{name}: {m.group(0)!r}" for m in DEVELOPER_WORDS.finditer(text)]
            if name == "Risk":
                cells = page.locator(".tabulator-cell[tabulator-field='fund_status']").all_inner_texts()
                cells = [c for c in cells if c.strip()]
                assert cells and all(re.fullmatch(r"[a-z ,]+ \([A-Z]{2}\)", c.strip()) for c in cells), cells
            if name in ("Allocation", "Risk") and width < 600:
                page.wait_for_timeout(500)
                right = page.evaluate(CANVAS_RIGHT_JS)
                assert 0 < right <= width + 1, f"{name}: a chart reaches {right} px on a {width} px screen"
            if name == "Performance":
                assert "since inception" in text
        assert not problems, problems
    finally:
        context.close()


def test_search_results_fit_beside_the_basket(browser, server):
    """At 1280 px with the basket drawer open, every results column is in view: no sideways
    scrolling to find a fund's company or registration date."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server.url, wait_until="domcontentloaded")
        wait_for_overview(page)
        holder = page.locator(".sd-results .tabulator-tableholder")
        client, scroll = holder.evaluate("t => [t.clientWidth, t.scrollWidth]")
        assert scroll <= client + 1, f"the results table needs {scroll} px in {client} px"
        box = holder.bounding_box()
        for field in ("company", "regis_date"):
            header = page.locator(f".sd-results .tabulator-col[tabulator-field='{field}']").bounding_box()
            assert header and header["x"] + header["width"] <= box["x"] + box["width"] + 1, field
        dates = page.locator(".sd-results .tabulator-cell[tabulator-field='regis_date']")
        assert any(re.fullmatch(r"\d{4}-\d{2}-\d{2}", t.strip()) for t in dates.all_inner_texts())
        assert all(d.evaluate("c => c.scrollWidth <= c.clientWidth") for d in dates.all())  # dates whole
    finally:
        context.close()


def test_factsheet_report_screenshots(browser, dataset, tmp_path, artifacts_dir):
    client = client_for(dataset, TODAY, layout="successor")
    try:
        path = write_report(fund_report_html(client, [full_funds(dataset)[0]["proj_id"]]), tmp_path / "fund.html")
    finally:
        client.close()
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
        page = context.new_page()
        try:
            page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
            page.goto(path.as_uri())
            page.wait_for_selector("section#holdings")
            shot = artifacts_dir / f"screen-report-fund-{width}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 5_000
            holdings = page.inner_text("section#holdings")
            assert "Asset type" in holdings and re.search(r"[a-z] · [\u0e00-\u0e7f]", holdings)
        finally:
            context.close()

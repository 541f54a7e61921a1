"""Generated reports opened from file:// in Chromium with every network request blocked.

Charts and tables must render, the console must stay clean, nothing may leave the file, and a
report built on hostile service text must run none of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from dashboard.demo.generator import generate_demo_dataset
from dashboard.reports import fund_report_html, licensee_report_html, write_report
from tests.conftest import TODAY
from tests.reports.helpers import HOSTILE_NAME, HOSTILE_PROJ_ID, HOSTILE_REMARK, client_for, full_funds, hostile_dataset

pytestmark = pytest.mark.browser

RENDER_TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def dataset_module():
    return generate_demo_dataset(today=TODAY)


@pytest.fixture(scope="module")
def reports(dataset_module, tmp_path_factory) -> dict[str, Path]:
    """The three kinds of report, and one built on hostile text, written to disk once."""
    out = tmp_path_factory.mktemp("reports")
    funds = [f["proj_id"] for f in full_funds(dataset_module)]
    person, case_id = next((uid, case) for (uid, case) in dataset_module.enforcement if uid.startswith("P"))
    client = client_for(dataset_module, TODAY)
    hostile = client_for(hostile_dataset(dataset_module), TODAY)
    try:
        return {
            "fund": write_report(fund_report_html(client, funds[:1]), out / "fund.html"),
            "comparison": write_report(fund_report_html(client, funds[:5]), out / "comparison.html"),
            "licensee": write_report(licensee_report_html(client, person, [case_id, next(iter(dataset_module.alerts))]),
                                     out / "licensee.html"),
            "hostile": write_report(fund_report_html(hostile, [HOSTILE_PROJ_ID]), out / "hostile.html"),
        }
    finally:
        client.close()
        hostile.close()


def open_offline(page, path: Path) -> list[str]:
    """Open a report from disk with every non-file request aborted; returns the requests tried."""
    tried: list[str] = []

    def handle(route):
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            tried.append(url)
            route.abort()

    page.route("**/*", handle)
    page.on("request", lambda r: None if r.url.startswith(("file://", "data:", "blob:")) or r.url in tried else tried.append(r.url))
    page.goto(path.as_uri(), wait_until="load")
    return tried


def assert_rendered(page, tried: list[str]) -> None:
    charts = page.locator("div.chart")
    n = charts.count()
    assert n > 0
    # Bokeh draws each plot into a canvas inside its shadow root (Playwright's locators pierce it); a chart of
    # two linked plots (the NAV over its drawdown) has two.
    drawn = charts.filter(has=page.locator(".bk-Canvas"))
    expect(drawn).to_have_count(n, timeout=RENDER_TIMEOUT_MS)
    canvases = page.locator("div.chart .bk-Canvas")
    for i in range(canvases.count()):
        box = canvases.nth(i).bounding_box()
        assert box and box["width"] > 50 and box["height"] > 50, f"canvas {i} has no size: {box}"
    tables = page.locator("table.data")
    assert tables.count() > 0
    expect(tables.first).to_be_visible()
    page.wait_for_timeout(200)  # let late errors surface
    assert page.console_log.errors == []
    assert tried == []
    assert page.dialogs == []


@pytest.mark.parametrize("kind, shot", [("fund", "report-fund.png"), ("comparison", "report-comparison.png"),
                                        ("licensee", "report-licensee.png")])
def test_report_renders_offline(page, reports, artifacts_dir, kind, shot):
    tried = open_offline(page, reports[kind])
    assert_rendered(page, tried)
    expect(page.locator("#demo-banner")).to_be_visible()
    expect(page.locator('[data-fact="generated"]')).to_contain_text("20")
    page.screenshot(path=str(artifacts_dir / shot), full_page=True)


def test_chart_hover_works_offline(page, reports):
    """The charts are interactive: hovering a bar shows Bokeh's tooltip."""
    tried = open_offline(page, reports["fund"])
    chart = page.locator("#holdings div.chart .bk-Canvas").first
    expect(chart).to_be_visible(timeout=RENDER_TIMEOUT_MS)
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    # The top bar of the top-holdings chart (bars are listed largest first from the top).
    page.mouse.move(box["x"] + box["width"] * 0.25, box["y"] + 40)
    tooltip = page.locator(".bk-Tooltip").first  # Bokeh attaches tooltips to the body
    expect(tooltip).to_be_visible(timeout=5_000)
    expect(tooltip).to_contain_text("% of NAV")
    assert tried == [] and page.console_log.errors == []


def test_hostile_report_runs_no_script(page, reports, artifacts_dir):
    tried = open_offline(page, reports["hostile"])
    assert_rendered(page, tried)
    # The markup shows as the literal text the service sent.
    expect(page.locator("header .names p").first).to_have_text(HOSTILE_NAME)
    expect(page.locator("#fees-table td", has_text='<svg onload=alert("svg")>').first).to_be_visible()
    assert page.locator("#fees-table").inner_text().count(HOSTILE_REMARK) >= 1
    assert page.locator("main svg, main img, main iframe").count() == 0
    assert page.locator('a[href^="javascript:"]').count() == 0
    page.mouse.move(10, 10)
    page.wait_for_timeout(300)
    assert page.dialogs == [] and page.console_log.errors == []
    page.screenshot(path=str(artifacts_dir / "report-hostile.png"), full_page=False)

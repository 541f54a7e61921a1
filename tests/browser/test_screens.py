"""What a person should never read on a tab (endpoint codes, API field names, bare status codes: checked
on every tab by tests/browser/test_issue30.py's screenshots), the search results beside the basket,
and the factsheet report at both widths.

Screenshots: test-artifacts/screen-report-fund-<width>.png.
"""

from __future__ import annotations

import re

import pytest

from dashboard.reports import fund_report_html, write_report
from tests.browser.dashboard_server import wait_for_overview
from tests.conftest import TODAY
from tests.reports.helpers import client_for, full_funds

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
def slug(name: str) -> str:
    return name.lower().replace(" ", "-")


@pytest.fixture(scope="module")
def server(demo_dashboard):
    """The run's demo dashboard (conftest): this module only reads it."""
    return demo_dashboard


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

"""The NAV & returns tab in a browser at desktop and phone width: the fund's NAV chart over its drawdown,
its figures beside the factsheet's, and the basket rebased on one chart, screenshotted and without errors.

Screenshots: test-artifacts/screen-nav-<width>.png (the whole tab) and screen-nav-basket-<width>.png.
"""

from __future__ import annotations

import re
from datetime import date

import pytest

from dashboard.demo.generator import generate_demo_dataset

from tests.browser.conftest import ConsoleLog
from tests.browser.dashboard_server import COUNT_JS, DashboardProcess, screenshot_full, wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
# The NAV and drawdown charts, and the basket's.
NAV_FIGURES = 3


@pytest.fixture(scope="module")
def server(artifacts_dir):
    with DashboardProcess(demo=True, log_path=artifacts_dir / "nav-server.log") as server:
        yield server


@pytest.fixture(scope="module")
def link():
    """A link to the tab on a fund with a distributing class (shown), and a basket of four funds with NAVs.
    The served demo's data follow the machine's date; these are chosen from the same data."""
    ds = generate_demo_dataset(today=date.today())
    registered = {f["proj_id"] for f in ds.funds if f["fund_status"] == "RG"}
    daily = [p for p, prof in ds.nav_profiles.items() if p in registered and prof["frequency"] == "daily"]
    fund = next(p for p in daily if len(ds.nav_profiles[p]["classes"]) >= 2
                and any(c["dividend_yield"] for c in ds.nav_profiles[p]["classes"]))
    paying = next(c["name"] for c in ds.nav_profiles[fund]["classes"] if c["dividend_yield"])
    basket = [fund, *[p for p in daily if p != fund][:3]]
    return f"?tab=nav&fund={fund}&nav_class={paying}&basket={','.join(basket)}", paying


@pytest.mark.parametrize("width", WIDTHS)
def test_the_nav_tab_draws_the_fund_and_the_basket(browser, server, artifacts_dir, link, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    log = ConsoleLog()
    page.on("console", log.on_console)
    page.on("pageerror", log.on_pageerror)
    try:
        query, paying = link
        page.goto(server.url + query, wait_until="domcontentloaded")
        page.wait_for_function(f"() => ({COUNT_JS})('.bk-Figure') >= {NAV_FIGURES}", timeout=60_000)
        published = page.locator(".tabulator-cell[tabulator-field='published']")
        published.first.wait_for(timeout=60_000)
        funds = page.locator(".tabulator-cell[tabulator-field='Fund']")
        funds.first.wait_for(timeout=60_000)
        wait_idle(page, 30_000)
        shot = artifacts_dir / f"screen-nav-{width}.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 20_000
        size = page.viewport_size  # the basket's chart, its notes and table in one picture
        page.set_viewport_size({"width": width, "height": 1500})
        page.get_by_text("The basket on one chart").evaluate("el => el.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(700)  # responsive plots re-layout to the new size
        page.screenshot(path=str(artifacts_dir / f"screen-nav-basket-{width}.png"))
        page.set_viewport_size(size)

        labels = page.locator(".tabulator-cell[tabulator-field='label']").all_inner_texts()
        assert "Return, 1 year" in labels
        assert any(re.fullmatch(r"-?\d+\.\d+ %", text.strip()) for text in published.all_inner_texts())
        assert len([t for t in funds.all_inner_texts() if t.strip()]) == 4  # the demo's basket, one row a fund
        assert page.get_by_text("Gaps in the series").count() == 1
        assert "range=" not in page.url and f"nav_class={paying}" in page.url
        assert page.get_by_text(paying, exact=True).count() >= 1  # the class picker shows the linked class
        page.get_by_role("button", name="3M").click()
        page.wait_for_function("() => new URLSearchParams(location.search).get('range') === '3M'", timeout=20_000)
        wait_idle(page, 20_000)
        assert not log.errors, log.errors
    finally:
        context.close()

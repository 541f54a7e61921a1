"""The basket with amounts on the Allocation tab of the served dashboard (the demo market synced first): amounts
typed, worked out, and screenshots at 1280 and 390 px (test-artifacts/screen-basket-amounts-1280.png, -390.png)."""

from __future__ import annotations

import pytest

from tests.browser.dashboard_server import DashboardProcess, wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def server(market_cache, artifacts_dir):
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_CACHE_DIR": str(market_cache)},
                          log_path=artifacts_dir / "basket-amounts-server.log") as server:
        yield server


@pytest.mark.parametrize("width", WIDTHS)
def test_the_basket_with_amounts_is_worked_out(browser, server, artifacts_dir, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server.url + "?tab=allocation", wait_until="domcontentloaded")
        page.get_by_text("The basket with amounts").first.wait_for(timeout=90_000)
        wait_idle(page, 60_000)
        boxes = page.locator("input[placeholder='amount']")
        boxes.first.wait_for(timeout=30_000)
        for i, amount in enumerate(("600,000", "250000", "100000", "50,000")[: boxes.count()]):
            boxes.nth(i).fill(amount)
            boxes.nth(i).press("Enter")
        page.get_by_role("button", name="Work it out").click()
        page.get_by_text("Holdings looked through across the funds").first.wait_for(timeout=60_000)
        page.get_by_text("The basket as one portfolio").first.wait_for(timeout=60_000)
        wait_idle(page, 60_000)
        assert page.get_by_text("not investment advice").count() >= 2  # above the boxes and with the results
        assert page.get_by_text("baht a year").count() >= 1
        page.set_viewport_size({"width": width, "height": 2600})
        page.get_by_text("The basket with amounts").first.evaluate("el => el.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(800)
        page.screenshot(path=str(artifacts_dir / f"screen-basket-amounts-{width}.png"))
        assert not errors, errors
    finally:
        context.close()


def test_the_market_tab_looks_through_the_fund_of_funds(browser, server, artifacts_dir):
    """The switch and the overlap of the demo's two funds of funds (test-artifacts/screen-market-lookthrough.png)."""
    from datetime import date

    from dashboard.demo.generator import generate_demo_dataset

    names = sorted(f["proj_abbr_name"] for f in generate_demo_dataset(today=date.today()).funds
                   if "Fund of Funds" in f["proj_name_en"])
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server.url + "?tab=market", wait_until="domcontentloaded")
        page.get_by_text("Market snapshot from").first.wait_for(timeout=90_000)
        wait_idle(page, 60_000)
        page.get_by_text("Direct holdings: a fund of funds shows").first.wait_for(timeout=30_000)
        page.get_by_label("Look through funds of Thai funds").check()
        page.get_by_text("Looked through.").first.wait_for(timeout=30_000)
        box = page.get_by_label("Funds (two or more)")
        box.fill(", ".join(names))
        page.get_by_role("button", name="Overlap").click()
        page.get_by_text("not a fund in the store").first.wait_for(timeout=30_000)
        wait_idle(page, 30_000)
        page.set_viewport_size({"width": 1280, "height": 2200})
        page.get_by_text("Most-held securities").first.evaluate("el => el.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(800)
        page.screenshot(path=str(artifacts_dir / "screen-market-lookthrough.png"))
        assert not errors, errors
    finally:
        context.close()

"""The basket with amounts on the Allocation tab of the served dashboard (the demo market synced first): amounts
typed, worked out, and screenshots at 1280 and 390 px (test-artifacts/screen-basket-amounts-1280.png, -390.png)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import opened_page, shoot
from tests.browser.dashboard_server import wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def server(market_dashboard):
    """The run's demo dashboard on the demo market's snapshot (conftest): this module only reads it."""
    return market_dashboard


@pytest.mark.parametrize("width", WIDTHS)
def test_the_basket_with_amounts_is_worked_out(browser, server, artifacts_dir, width):
    with opened_page(browser, server.url + "?tab=allocation", width, errors="thrown") as page:
        expect(page.get_by_text("The basket with amounts").first).to_be_visible(timeout=90_000)
        wait_idle(page, 60_000)
        boxes = page.locator("input[placeholder='amount']")
        expect(boxes.first).to_be_visible(timeout=30_000)
        for i, amount in enumerate(("600,000", "250000", "100000", "50,000")[: boxes.count()]):
            boxes.nth(i).fill(amount)
            boxes.nth(i).press("Enter")
        page.get_by_role("button", name="Work it out").click()
        expect(page.get_by_text("Holdings looked through across the funds").first).to_be_visible(timeout=60_000)
        expect(page.get_by_text("The basket as one portfolio").first).to_be_visible(timeout=60_000)
        wait_idle(page, 60_000)
        assert page.get_by_text("not investment advice").count() >= 2  # above the boxes and with the results
        assert page.get_by_text("baht a year").count() >= 1
        shoot(page, artifacts_dir / f"screen-basket-amounts-{width}.png", height=2600,
              scroll_to=page.get_by_text("The basket with amounts").first)


def test_the_market_tab_looks_through_the_fund_of_funds(browser, server, artifacts_dir):
    """The switch and the overlap of the demo's two funds of funds (test-artifacts/screen-market-lookthrough.png)."""
    from datetime import date

    from dashboard.demo.generator import generate_demo_dataset

    names = sorted(f["proj_abbr_name"] for f in generate_demo_dataset(today=date.today()).funds
                   if "Fund of Funds" in f["proj_name_en"])
    with opened_page(browser, server.url + "?tab=market", errors="thrown") as page:
        expect(page.get_by_text("Market snapshot from").first).to_be_visible(timeout=90_000)
        wait_idle(page, 60_000)
        expect(page.get_by_text("Direct holdings: a fund of funds shows").first).to_be_visible(timeout=30_000)
        page.get_by_label("Look through funds of Thai funds").check()
        expect(page.get_by_text("Looked through.").first).to_be_visible(timeout=30_000)
        box = page.get_by_label("Funds (two or more)")
        box.fill(", ".join(names))
        page.get_by_role("button", name="Overlap").click()
        expect(page.get_by_text("not a fund in the store").first).to_be_visible(timeout=30_000)
        wait_idle(page, 30_000)
        shoot(page, artifacts_dir / "screen-market-lookthrough.png", height=2200,
              scroll_to=page.get_by_text("Most-held securities").first)

"""The basket with amounts on the Allocation tab of the served dashboard (the demo market synced first): amounts
typed, worked out, and screenshots at 1280 and 390 px (test-artifacts/screen-basket-amounts-1280.png, -390.png).

On the same visit, at each width: the figures of the allocation and the holdings looked through are on screen, not
behind sideways scrolling (they were, on a phone: "% of the basket" was cut and "Held (baht)" off the page);
test-artifacts/screen-basket-amounts-phone-390.png, -1280.png. (They were a test of their own, which opened the same
page at the same widths and typed the same amounts.)"""

from __future__ import annotations

import pytest

from tests.browser.conftest import opened_page, settle, shoot
from tests.browser.dashboard_server import wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
FIGURES = ("percent_of_basket", "baht_held")  # the columns of this section's tables alone on the Allocation tab


@pytest.fixture(scope="module")
def server(market_dashboard):
    """The run's demo dashboard on the demo market's snapshot (conftest): this module only reads it."""
    return market_dashboard


@pytest.mark.parametrize("width", WIDTHS)
def test_the_basket_with_amounts_is_worked_out(browser, server, artifacts_dir, width):
    with opened_page(browser, server.url + "?tab=allocation", width, errors="thrown") as page:
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
        figures_are_on_screen(page, width, artifacts_dir)  # (first: it leaves the page 2600 px tall, as the shot is)
        shoot(page, artifacts_dir / f"screen-basket-amounts-{width}.png", height=2600,
              scroll_to=page.get_by_text("The basket with amounts").first)


def figures_are_on_screen(page, width: int, artifacts_dir) -> None:
    """Every figure cell of the weighted allocation and the holdings looked through lies wholly inside the page's
    width (nothing to scroll sideways for), seen 2600 px tall from the weighted allocation down."""
    page.set_viewport_size({"width": width, "height": 2600})
    page.get_by_text("Asset allocation, weighted by amount").first.evaluate("el => el.scrollIntoView({block: 'start'})")
    settle(page)
    page.screenshot(path=str(artifacts_dir / f"screen-basket-amounts-phone-{width}.png"))
    for field in FIGURES:
        cells = page.locator(f".tabulator-row .tabulator-cell[tabulator-field='{field}']")
        shown = [cells.nth(i).bounding_box() for i in range(cells.count())]
        shown = [box for box in shown if box and box["width"] > 0]
        assert len(shown) >= 6, field  # the allocation's rows and the holdings' first page
        # every figure cell lies wholly inside the page's width: nothing to scroll sideways for
        assert max(box["x"] + box["width"] for box in shown) <= width, field


def test_the_market_tab_looks_through_the_fund_of_funds(browser, server, artifacts_dir):
    """The switch and the overlap of the demo's two funds of funds (test-artifacts/screen-market-lookthrough.png)."""
    from datetime import date

    from dashboard.demo.generator import generate_demo_dataset

    names = sorted(f["proj_abbr_name"] for f in generate_demo_dataset(today=date.today()).funds
                   if "Fund of Funds" in f["proj_name_en"])
    with opened_page(browser, server.url + "?tab=market", errors="thrown") as page:
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
        shoot(page, artifacts_dir / "screen-market-lookthrough.png", height=2200,
              scroll_to=page.get_by_text("Most-held securities").first)

"""The basket with amounts on a phone (390 px): the figures of the allocation and the holdings looked through are
on screen, not behind sideways scrolling (they were: "% of the basket" was cut and "Held (baht)" off the page).
Screenshots at 390 and 1280 px: test-artifacts/screen-basket-amounts-phone-390.png, -1280.png."""

from __future__ import annotations

import pytest

from tests.browser.conftest import opened_page, settle
from tests.browser.dashboard_server import wait_idle

pytestmark = pytest.mark.browser

FIGURES = ("percent_of_basket", "baht_held")  # the columns of this section's tables alone on the Allocation tab


@pytest.mark.parametrize("width", (390, 1280))
def test_the_figures_are_on_screen(browser, market_dashboard, artifacts_dir, width):
    with opened_page(browser, market_dashboard.url + "?tab=allocation", width, errors="thrown") as page:
        page.get_by_text("The basket with amounts").first.wait_for(timeout=90_000)
        wait_idle(page, 60_000)
        boxes = page.locator("input[placeholder='amount']")
        boxes.first.wait_for(timeout=30_000)
        for i, amount in enumerate(("600,000", "250000", "100000", "50,000")[: boxes.count()]):
            boxes.nth(i).fill(amount)
            boxes.nth(i).press("Enter")
        page.get_by_role("button", name="Work it out").click()
        page.get_by_text("The basket as one portfolio").first.wait_for(timeout=60_000)
        wait_idle(page, 60_000)
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

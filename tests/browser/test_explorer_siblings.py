"""The Fund explorer's sibling-feeders card in the served dashboard (the demo market synced first), opened on a demo
feeder by its link (?fund=...&tab=explorer): the card drawn with its master and its count of Thai feeders;
screenshots at 1280 and 390 px (test-artifacts/screen-explorer-siblings-<width>.png)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.dashboard_server import DashboardProcess

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def feeder(market_cache):
    """A demo feeder of the Global Quality master (company 2's "GQ"): its proj_id."""
    from dashboard.market.store import MarketStore
    from tests.feeder_store import feeder_abbr

    store = next(market_cache.glob("*.duckdb"))
    with MarketStore(store, read_only=True) as reader:
        return reader.query("SELECT proj_id FROM funds WHERE proj_abbr_name = ?", [feeder_abbr(2, "GQ")])[0]["proj_id"]


@pytest.fixture(scope="module")
def server(market_cache, artifacts_dir):
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_CACHE_DIR": str(market_cache)},
                          log_path=artifacts_dir / "explorer-siblings-server.log") as server:
        yield server


@pytest.mark.parametrize("width", WIDTHS)
def test_the_explorer_draws_the_sibling_feeders_card_with_its_count(browser, server, artifacts_dir, feeder, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{server.url}?fund={feeder}&tab=explorer", wait_until="domcontentloaded")
        card = page.get_by_text("Sibling feeders (the same master fund)").first
        expect(card).to_be_visible(timeout=90_000)
        count = page.get_by_text(re.compile(r"^\d+ funds? at \d+ compan(ies|y), \d+ unit classes$")).first
        expect(count).to_be_visible(timeout=30_000)
        feeders = int(count.inner_text().split()[0])
        assert feeders >= 2, count.inner_text()  # a sibling card: the fund and at least one sibling
        expect(page.get_by_role("button", name="Compare the sibling feeders side by side")).to_be_visible()
        page.set_viewport_size({"width": width, "height": 2200})
        card.evaluate("el => el.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(800)
        page.screenshot(path=str(artifacts_dir / f"screen-explorer-siblings-{width}.png"))
        assert not errors, errors
    finally:
        context.close()

"""The Fund explorer's sibling-feeders card in the served dashboard (the demo market synced first), opened on a demo
feeder by its link (?fund=...&tab=explorer): the card drawn with its master and its count of Thai feeders;
screenshots at 1280 and 390 px (test-artifacts/screen-explorer-siblings-<width>.png)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import opened_page, shoot

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
def server(market_dashboard):
    """The run's demo dashboard on the demo market's snapshot (conftest): this module only reads it."""
    return market_dashboard


@pytest.mark.parametrize("width", WIDTHS)
def test_the_explorer_draws_the_sibling_feeders_card_with_its_count(browser, server, artifacts_dir, feeder, width):
    with opened_page(browser, f"{server.url}?fund={feeder}&tab=explorer", width, errors="thrown") as page:
        card = page.get_by_text("Sibling feeders (the same master fund)").first
        expect(card).to_be_visible(timeout=90_000)
        count = page.get_by_text(re.compile(r"^\d+ funds? at \d+ compan(ies|y), \d+ unit classes$")).first
        expect(count).to_be_visible(timeout=30_000)
        feeders = int(count.inner_text().split()[0])
        assert feeders >= 2, count.inner_text()  # a sibling card: the fund and at least one sibling
        expect(page.get_by_role("button", name="Compare the sibling feeders side by side")).to_be_visible()
        shoot(page, artifacts_dir / f"screen-explorer-siblings-{width}.png", height=2200, scroll_to=card)

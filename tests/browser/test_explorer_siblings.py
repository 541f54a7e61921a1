"""The Fund explorer's sibling-feeders card (the demo market synced first), the explorer opened on a demo feeder as its
link opens it (?fund=...&tab=explorer): the card drawn with its master and its count of Thai feeders; screenshots at
1280 and 390 px (test-artifacts/screen-explorer-siblings-<width>.png).

The Fund explorer's view is served alone (`serve_component`), made with its session's state and filled once the page
is drawn, as the dashboard does: the test is about the card, not the whole dashboard's page (~4 CPU-s of the server's
a visit); the dashboard's links are tests/browser/test_shared_links.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import opened_page, serve_component, shoot

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


def explorer_view(cache_dir, proj_id: str):
    """A session's Fund explorer alone, on the snapshot in `cache_dir`, for the link ?fund=<proj_id>&tab=explorer:
    the state's first load runs once the page is drawn (the view's own onload shows the fund's siblings)."""
    import panel as pn

    import dashboard.app  # noqa: F401 - the extensions the dashboard's page loads (Tabulator)
    from dashboard.config import ApiSettings
    from dashboard.market.screen import MarketScreen
    from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, DashboardState
    from dashboard.models.source import default_client
    from dashboard.views.explorer import FundExplorer

    settings = ApiSettings.from_env(demo=True, cache_dir=cache_dir, environ={})  # as `--demo serve` with this cache
    state = DashboardState(client=default_client(settings), default_query=DEMO_DEFAULT_QUERY)
    state.market = MarketScreen(settings=settings)
    assert state.apply_url({"fund": proj_id, "tab": "explorer"}) == []
    view = FundExplorer(state=state)
    pn.state.onload(state.start)
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def server(market_cache, feeder):
    with serve_component(lambda: explorer_view(market_cache, feeder)) as url:
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_the_explorer_draws_the_sibling_feeders_card_with_its_count(browser, server, artifacts_dir, feeder, width):
    with opened_page(browser, server, width, errors="thrown") as page:
        card = page.get_by_text("Sibling feeders (the same master fund)").first
        card.wait_for(timeout=90_000)
        count = page.get_by_text(re.compile(r"^\d+ funds? at \d+ compan(ies|y), \d+ unit classes$")).first
        count.wait_for(timeout=30_000)
        feeders = int(count.inner_text().split()[0])
        assert feeders >= 2, count.inner_text()  # a sibling card: the fund and at least one sibling
        expect(page.get_by_role("button", name="Compare the sibling feeders side by side")).to_be_visible()
        shoot(page, artifacts_dir / f"screen-explorer-siblings-{width}.png", height=2200, scroll_to=card)

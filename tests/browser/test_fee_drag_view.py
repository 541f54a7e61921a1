"""The Fees tab's view (views.fees.FeesView) served alone with a basket of three demo feeders and the demo market
snapshot: the fee-drag chart with its inputs, each class at its own 5-year NAV return (named with its day);
screenshotted at desktop and phone width, no errors.

Screenshots: test-artifacts/screen-fee-drag-<width>.png.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import ConsoleLog, serve_component
from tests.browser.dashboard_server import COUNT_JS, wait_idle
from tests.feeder_store import build_feeder_store, feeder_abbr

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


def fees_view(store_path, proj_ids: list[str]):
    import panel as pn

    import dashboard.app  # noqa: F401 - the extensions the dashboard's page loads (Tabulator)
    from dashboard.config import ApiSettings
    from dashboard.market.screen import MarketScreen
    from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, DashboardState
    from dashboard.models.source import default_client
    from dashboard.views.fees import FeesView

    state = DashboardState(client=default_client(ApiSettings.from_env(demo=True, environ={})),
                           default_query=DEMO_DEFAULT_QUERY)
    state.market = MarketScreen(snapshot_dir=str(store_path))
    assert state.apply_url({"basket": ",".join(proj_ids)}) == []
    view = FeesView(state=state)

    async def fill():
        await state.start()  # the basket's fees
        await view.refresh_returns()

    pn.state.onload(fill)
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return build_feeder_store(tmp_path_factory.mktemp("fee-drag-browser") / "cache")


@pytest.fixture(scope="module")
def basket(store_path):
    from dashboard.market.store import MarketStore

    with MarketStore(store_path, read_only=True) as reader:
        return [reader.query("SELECT proj_id FROM funds WHERE proj_abbr_name = ?", [feeder_abbr(*f)])[0]["proj_id"]
                for f in ((1, "GQ-UH"), (2, "GQ"), (3, "GQ"))]


@pytest.fixture(scope="module")
def server(store_path, basket):
    with serve_component(lambda: fees_view(store_path, basket)) as url:
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_the_fee_drag_chart_states_its_inputs(browser, server, artifacts_dir, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    log = ConsoleLog()
    page.on("console", log.on_console)
    page.on("pageerror", log.on_pageerror)
    try:
        page.goto(server, wait_until="domcontentloaded")
        page.get_by_text("its 5-year NAV return", exact=False).first.wait_for(timeout=90_000)
        page.wait_for_function(f"() => ({COUNT_JS})('.bk-Figure') >= 3", timeout=60_000)
        wait_idle(page, 30_000)
        shot = artifacts_dir / f"screen-fee-drag-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 20_000
        assert page.get_by_text("100,000 THB held 10 years", exact=False).count() >= 1
        assert page.get_by_text("Yearly return before fees (%)", exact=False).count() >= 1
        assert not log.errors, log.errors
    finally:
        context.close()

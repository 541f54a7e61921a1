"""The NAV & returns tab's view in a browser at desktop and phone width: the fund's NAV chart over its
drawdown, its figures beside the factsheet's, and the basket rebased on one chart, screenshotted and
without errors. The view is served alone (`serve_component`), made with its session's state and filled
once the page is drawn, as the dashboard does; the whole dashboard's links are tests/browser/test_shared_links.py.

Screenshots: test-artifacts/screen-nav-<width>.png (the whole tab) and screen-nav-basket-<width>.png.
"""

from __future__ import annotations

import re
from datetime import date

import pytest

from dashboard.demo.generator import generate_demo_dataset

from tests.browser.conftest import opened_page, serve_component, shoot
from tests.browser.dashboard_server import screenshot_full, wait_count, wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
# The NAV and drawdown charts, and the basket's.
NAV_FIGURES = 3


def nav_view(query: str):
    """A session's NAV tab view alone, for the link's fund, class and basket: the state's first load and the tab's
    fetch run once the page is drawn."""
    import urllib.parse

    import panel as pn

    import dashboard.app  # noqa: F401 - the extensions the dashboard's page loads (Tabulator)
    from dashboard.config import ApiSettings
    from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, DashboardState
    from dashboard.models.nav import FundNav
    from dashboard.models.source import default_client
    from dashboard.views.nav import NavView

    state = DashboardState(client=default_client(ApiSettings.from_env(demo=True, environ={})),
                           default_query=DEMO_DEFAULT_QUERY)
    state.nav = FundNav(state.factsheet.api)
    assert state.apply_url(dict(urllib.parse.parse_qsl(query.lstrip("?")))) == []
    view = NavView(state=state)

    async def fill():
        await state.start()
        await view.refresh()

    pn.state.onload(fill)
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def server(link):
    query, _ = link
    with serve_component(lambda: nav_view(query)) as url:
        yield url


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
    query, paying = link
    with opened_page(browser, server, width) as page:
        wait_count(page, ".bk-Figure", NAV_FIGURES, timeout=60_000)
        published = page.locator(".tabulator-cell[tabulator-field='published']")
        published.first.wait_for(timeout=60_000)
        funds = page.locator(".tabulator-cell[tabulator-field='Fund']")
        funds.first.wait_for(timeout=60_000)
        wait_idle(page, 30_000)
        shot = artifacts_dir / f"screen-nav-{width}.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 20_000
        # the basket's chart, its notes and table in one picture
        shoot(page, artifacts_dir / f"screen-nav-basket-{width}.png", height=1500,
              scroll_to=page.get_by_text("The basket on one chart"))

        labels = page.locator(".tabulator-cell[tabulator-field='label']").all_inner_texts()
        assert "Return, 1 year" in labels
        assert any(re.fullmatch(r"-?\d+\.\d+ %", text.strip()) for text in published.all_inner_texts())
        assert len([t for t in funds.all_inner_texts() if t.strip()]) == 4  # the demo's basket, one row a fund
        assert page.get_by_text("Gaps in the series").count() == 1
        assert page.get_by_text(paying, exact=True).count() >= 1  # the class picker shows the linked class
        years = page.locator(".tabulator-cell[tabulator-field='year']").all_inner_texts()
        page.get_by_role("button", name="3M").click()  # a shorter range: the chart and the tables made anew
        page.locator(".tabulator-cell[tabulator-field='year']").first.wait_for(timeout=20_000)
        wait_count(page, ".bk-Figure", NAV_FIGURES, timeout=20_000)
        wait_idle(page, 20_000)
        assert years

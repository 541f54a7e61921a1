"""The regular-investing view (views.plan_dca.DcaView) served alone in a browser at desktop and phone width: the
chart of the plan beside the lump sum and another class, the figures, the estimate note; screenshotted, no errors.

Screenshots: test-artifacts/screen-dca-<width>.png.
"""

from __future__ import annotations

from datetime import date

import pytest

from dashboard.demo.generator import generate_demo_dataset
from tests.browser.conftest import opened_page, serve_component
from tests.browser.dashboard_server import screenshot_full, wait_count, wait_idle

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


def dca_view(fund: str, other: str):
    import panel as pn

    import dashboard.app  # noqa: F401 - the extensions the dashboard's page loads (Tabulator)
    from dashboard.config import ApiSettings
    from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, DashboardState
    from dashboard.models.source import default_client
    from dashboard.views.plan_dca import DcaView

    state = DashboardState(client=default_client(ApiSettings.from_env(demo=True, environ={})),
                           default_query=DEMO_DEFAULT_QUERY)
    assert state.apply_url({"fund": fund}) == []
    view = DcaView(state=state)

    async def fill():
        await state.start()  # the factsheet: the classes' published front-end fees
        await view.refresh()
        view.compare_select.value = other

    pn.state.onload(fill)
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def chosen():
    ds = generate_demo_dataset(today=date.today())
    registered = {f["proj_id"] for f in ds.funds if f["fund_status"] == "RG"}
    fund = next(p for p, prof in ds.nav_profiles.items() if p in registered and prof["frequency"] == "daily"
                and len(prof["classes"]) >= 2 and any(c["dividend_yield"] for c in prof["classes"])
                and not any(c["former"] for c in prof["classes"]))
    names = [c["name"] for c in ds.nav_profiles[fund]["classes"]]
    return fund, names[1]


@pytest.fixture(scope="module")
def server(chosen):
    with serve_component(lambda: dca_view(*chosen)) as url:
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_the_plan_is_drawn_beside_the_lump_sum_and_another_class(browser, server, artifacts_dir, chosen, width):
    with opened_page(browser, server, width) as page:
        wait_count(page, ".bk-Figure", timeout=60_000)
        cells = page.locator(".tabulator-cell[tabulator-field='plan_1']")  # the other class's column
        cells.first.wait_for(timeout=90_000)
        wait_idle(page, 30_000)
        shot = artifacts_dir / f"screen-dca-{width}.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 20_000
        figures = page.locator(".tabulator-cell[tabulator-field='figure']").all_inner_texts()
        assert "Money-weighted return, a year (XIRR, %)" in figures
        assert page.get_by_text("not investment advice", exact=False).count() >= 1
        assert page.get_by_text(f"{chosen[1]}: monthly", exact=False).count() >= 1

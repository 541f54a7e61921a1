"""The sibling feeders' view (views.siblings.SiblingsView) served alone in a browser at desktop and phone width, on
the demo market snapshot: the masters with the most Thai feeders, one master's feeders side by side (the same
funds and classes `fund siblings --json` prints), the undecided feeders; screenshotted, no errors.

Screenshots: test-artifacts/screen-siblings-<width>.png.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tests.browser.conftest import opened_page, serve_component, shoot
from tests.browser.dashboard_server import wait_count
from tests.feeder_store import feeder_abbr, feeder_store_once

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


def siblings_view(store_path, fund: str):
    import panel as pn

    import dashboard.app  # noqa: F401 - the extensions the dashboard's page loads (Tabulator)
    from dashboard.market.feeder_family import FeederFamily
    from dashboard.market.screen import MarketScreen
    from dashboard.views.siblings import SiblingsView

    family = FeederFamily(market=MarketScreen(snapshot_dir=str(store_path)))
    view = SiblingsView(family=family)

    async def fill():
        await family.refresh(fund)

    pn.state.onload(fill)
    return pn.Column(view, sizing_mode="stretch_width")


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return feeder_store_once(tmp_path_factory, "siblings-browser")  # built once in the run, a copy


@pytest.fixture(scope="module")
def fund():
    return feeder_abbr(2, "GQ")


@pytest.fixture(scope="module")
def cli_rows(store_path, fund):
    """The master's feeders as the command line prints them (`fund siblings QUERY --json`)."""
    from dashboard.cli.main import main

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        assert main(["fund", "siblings", fund, "--json", "--store", str(store_path)]) == 0
    return [(r["proj_abbr_name"], r["class"] or "(only class)") for r in json.loads(sink.getvalue())["rows"]]


@pytest.fixture(scope="module")
def server(store_path, fund):
    with serve_component(lambda: siblings_view(store_path, fund)) as url:
        yield url


@pytest.mark.parametrize("width", WIDTHS)
def test_one_masters_feeders_side_by_side_as_the_command_line_prints_them(browser, server, artifacts_dir, cli_rows,
                                                                           width):
    with opened_page(browser, server, width) as page:
        # the unit class column is the sibling table's alone (the masters' and the undecided tables have none)
        cells = ".tabulator-cell[tabulator-field='class']"
        try:
            wait_count(page, cells, len(cli_rows), timeout=90_000)
        except Exception:
            page.screenshot(path=str(artifacts_dir / f"screen-siblings-{width}-failed.png"))
            raise
        shoot(page, artifacts_dir / f"screen-siblings-{width}.png", full_page=True)
        funds = page.locator(".sd-siblings-table .tabulator-cell[tabulator-field='proj_abbr_name']").all_inner_texts()
        if len(funds) != len(cli_rows):  # the class names the table where the page's CSS engine cannot
            funds = page.locator(".tabulator-cell[tabulator-field='proj_abbr_name']").all_inner_texts()[:len(cli_rows)]
        classes = page.locator(cells).all_inner_texts()
        assert list(zip(funds, classes)) == cli_rows
        assert page.get_by_text("Matched by", exact=False).count() >= 1
        assert page.get_by_text("Masters with the most Thai feeders").count() == 1
        assert page.get_by_text("not guessed", exact=False).count() >= 1  # an undecided feeder's reason

"""The basket with amounts on the Allocation tab, through its public hooks, on the demo data: amounts typed and
loaded from a CSV, bad input said and nothing changed, and the results made whole when worked out (an estimate)."""

from __future__ import annotations

import pytest

from dashboard.app import create_dashboard
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.market.screen import MarketScreen
from dashboard.views.allocation import AllocationView
from tests.conftest import TODAY, run
from tests.market.conftest import cli_synced_once


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    """The demo market's funds, companies and holdings synced by the command (with risk levels and fees besides:
    tests/market/conftest.py's `cli_synced_once`, synced once in the run, copied)."""
    return cli_synced_once(tmp_path_factory, "amounts") / "market-demo.duckdb"


@pytest.fixture(scope="module")
def app(snapshot, tmp_path_factory):
    client = open_client(ApiSettings.from_env(demo=True, cache_dir=tmp_path_factory.mktemp("c"), environ={}),
                         today=lambda: TODAY)
    made = create_dashboard(client=client)
    run(made.start())
    market = MarketScreen(snapshot_dir=str(snapshot))
    run(market.refresh())
    made.state.market = market
    yield made
    market.close()
    client.close()


def section(app):
    app.state.tab = "allocation"
    view = app.view("allocation") if hasattr(app, "view") else app.views["allocation"]
    assert isinstance(view, AllocationView)
    return view.amounts


def test_amounts_typed_then_worked_out(app):
    state = app.state
    amounts = section(app)
    ids = list(state.basket.proj_ids)
    assert len(ids) >= 2 and set(amounts._boxes) == set(ids)
    amounts._boxes[ids[0]].value = "600,000"
    amounts._boxes[ids[1]].value = "400000"
    assert state.amounts.amounts == {ids[0]: 600_000.0, ids[1]: 400_000.0}
    amounts._boxes[ids[1]].value = "four hundred"  # refused: the amount stays, the box shows it again
    assert state.amounts.amounts[ids[1]] == 400_000.0 and amounts._boxes[ids[1]].value == "400,000"
    run(amounts.work_out())
    names = [getattr(p, "name", "") for p in amounts.results.objects]
    assert "basket-amounts-result-estimate" in names and "basket-amounts-summary" in names
    summary = next(p for p in amounts.results.objects if getattr(p, "name", "") == "basket-amounts-summary").object
    assert "1,000,000.00 baht" in str(summary)
    frame = amounts.result_tables["holdings"].value
    assert len(frame) and frame["baht_held"].sum() == pytest.approx(1_000_000, rel=0.05)
    assert any(getattr(p, "name", "") == "basket-amounts-nav" for p in amounts.results.objects)
    # on a phone the figures are on screen: the name column frozen, the figures right after it, name and figures
    # narrower than a 390 px page (tests/browser/test_basket_amounts.py measures the page itself)
    for part, name in (("allocation", "asset_name"), ("holdings", "security")):
        table = amounts.result_tables[part].table
        columns = list(amounts.result_tables[part].value.columns)
        assert table.frozen_columns == [name] and set(columns[1:3]) == {"baht_held", "percent_of_basket"}
        assert sum(table.widths[c] for c in columns[:3]) <= 350
    assert "not investment advice" in str(amounts.__panel__()[1].object)


def test_a_csv_adds_its_funds_and_lists_the_unknown(app):
    state = app.state
    amounts = section(app)
    with MarketScreen(snapshot_dir=str(app.state.market.snapshot_dir)).reader() as reader:
        fof = reader.query("SELECT proj_id, proj_abbr_name FROM funds WHERE proj_name_en LIKE '%Multi-Manager%'")[0]
    text = f"fund,class,amount\n{fof['proj_abbr_name']},,250000\nNOT-A-FUND,,10\n".encode()
    amounts.csv_input.value = text
    assert fof["proj_id"] in state.basket.proj_ids
    assert state.amounts.amounts == {fof["proj_id"]: 250_000.0} and state.amounts.unknown == ["NOT-A-FUND"]
    before = dict(state.amounts.amounts)
    amounts.csv_input.value = b"fund,amount\nX,lots\n"  # malformed: said, nothing changed
    assert state.amounts.amounts == before

"""The sibling feeders' view and the explorer's section, on the demo market snapshot: the masters list, one
master's feeders side by side (equal to `fund siblings --json`), the undecided feeders, the overview's card."""

from __future__ import annotations

import json

import pytest

from dashboard.cli.main import main
from dashboard.market.feeder_family import FeederFamily
from dashboard.market.feeders import masters, siblings, undecided
from dashboard.market.screen import MarketScreen
from dashboard.market.store import MarketStore
from dashboard.present.text import COLUMN_TITLES
from dashboard.views.explorer import siblings_card
from dashboard.views.siblings import SiblingsView
from tests.conftest import run
from tests.feeder_store import feeder_abbr, feeder_store_once


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return feeder_store_once(tmp_path_factory, "siblings-view")


@pytest.fixture(scope="module")
def reader(store_path):
    with MarketStore(store_path, read_only=True) as store:
        yield store


@pytest.fixture
def family(store_path):
    screen = MarketScreen(snapshot_dir=str(store_path))
    yield FeederFamily(market=screen)
    screen.close()


def test_the_view_lists_the_masters_and_the_undecided_as_the_store_does(family, reader):
    view = SiblingsView(family=family)
    run(view.refresh())
    shown = view.masters.value
    expected = masters(reader, limit=20)
    assert shown["master_id"].tolist() == [m["master_id"] for m in expected]
    assert shown["feeders"].tolist()[0] == 4  # the Global Quality family: four feeders at three companies
    assert shown["total_expense_min"].tolist() == [m["total_expense_min"] for m in expected]
    assert set(view.undecided.value["proj_id"]) == {r["proj_id"] for r in undecided(reader)}
    reasons = set(view.undecided.value["undecided"])
    assert any("not guessed" in r for r in reasons) and any("60 % of NAV" in r for r in reasons)
    # every column under the product's one title for it
    assert view.table.titles == {} or all(t for t in view.table.titles.values())
    assert all(c in COLUMN_TITLES for c in view.masters.value.columns if c != "master_id")  # the id is hidden
    assert all(c in COLUMN_TITLES for c in view.undecided.value.columns)


def test_one_masters_feeders_in_the_view_equal_the_command_lines(family, store_path, capsys):
    abbr = feeder_abbr(2, "GQ")
    view = SiblingsView(family=family)
    run(family.refresh(abbr))
    table = view.table.value
    assert main(["fund", "siblings", abbr, "--json", "--store", str(store_path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    cli = [(r["proj_id"], r["class"] or "(only class)", r["total_expense"], r["total_return_1y"]) for r in printed["rows"]]
    dash = [(r.proj_id, r._2, r.total_expense, r.total_return_1y) for r in table.itertuples()]
    assert len(cli) == 6 and [d[:2] for d in dash] == [c[:2] for c in cli]
    for d, c in zip(dash, cli):
        assert d[2] == pytest.approx(c[2]) and d[3] == pytest.approx(c[3])
    assert "this fund" in table.loc[table["proj_abbr_name"] == abbr, "sibling_marks"].iloc[0]
    assert (table["sibling_marks"].str.contains("cheapest")).sum() == 1
    assert all(c in COLUMN_TITLES for c in table.columns)
    summary = view.summary.object
    summary = summary() if callable(summary) else summary
    assert "feeds" in str(summary) and "Matched by" in str(summary)


def test_picking_a_master_shows_its_feeders(family, reader):
    view = SiblingsView(family=family)
    run(view.refresh())
    asia = next(m for m in masters(reader) if m["master_id"] == "name:demo asia leaders master fund")
    run(family.show_master(asia["master_id"]))
    assert set(view.table.value["proj_abbr_name"]) == {feeder_abbr(4, "AL"), feeder_abbr(5, "AL")}
    assert set(view.table.value["matched_by"]) == {"the master's name alone (no feeder files the master's ISIN)"}
    # the master shown is the one selected in the masters' table
    ids = view.masters.value["master_id"].tolist()
    assert view.masters.selection == [ids.index(asia["master_id"])]


def test_a_fund_that_is_not_a_feeder_says_so_and_the_overview_has_no_section(family, reader):
    other = reader.query("SELECT proj_id, proj_abbr_name FROM funds "
                         "WHERE proj_id NOT IN (SELECT proj_id FROM feeders) LIMIT 1")[0]
    view = SiblingsView(family=family)
    run(family.refresh(other["proj_id"]))
    assert family.data is None and "is not a feeder fund" in family.message
    # the note alone: no table of column titles under it
    assert view.table.table is None and view.table.__panel__().objects == []
    # the fund is named by its abbreviation, not by the id the view passed
    assert other["proj_abbr_name"] in family.message and other["proj_id"] not in family.message
    assert siblings_card(family) == ""


def test_the_overview_card_names_the_master_the_matching_and_the_cheapest(family, reader):
    abbr = feeder_abbr(3, "GQ")
    run(family.show_fund(abbr))
    card = siblings_card(family)
    data = siblings(reader, abbr)
    assert "Sibling feeders" in card and data["master"]["master_name"] in card
    assert "the master&#39;s name, matched to a master other feeders hold by ISIN" in card
    assert f"{data['cheapest']['proj_abbr_name']}" in card and "Returns measured to" in card
    undecided_fund = feeder_abbr(4, "WI")
    run(family.show_fund(undecided_fund))
    assert "not decided" in siblings_card(family)

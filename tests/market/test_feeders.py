"""Masters, sibling feeders and fee drag over the demo market store: the demo's feeder families are matched as
designed (docs/feeders.md), the sibling table's returns agree with the NAV rule worked out on the stored series,
the fee drag is the model's on the stored fees, and the CLI prints what the store says."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard.cli.main import main
from dashboard.demo.feeders import FEEDERS
from dashboard.demo.generator import generate_demo_dataset
from dashboard.market.feeders import class_costs, class_fees, masters, siblings, undecided
from dashboard.market.nav_store import class_distributions, class_nav
from dashboard.market.store import MarketStore
from dashboard.models.fee_drag import ClassFees, fee_drag
from dashboard.models.feeders import BY_ISIN, BY_NAME, BY_NAME_TO_ISIN, NAME_FITS_SEVERAL, NO_MASTER
from dashboard.models.nav_windows import dividend_series, nav_series, total_return_index
from tests.conftest import TODAY
from tests.feeder_store import feeder_store_once


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The demo market's feeders, fees and whole NAV history synced and published (tests/feeder_store.py: built
    once in the run, copied)."""
    return feeder_store_once(tmp_path_factory, "feeders").parent


@pytest.fixture(scope="module")
def reader(cache):
    with MarketStore(cache / "market-demo.duckdb", read_only=True) as store:
        yield store


@pytest.fixture(scope="module")
def demo_feeders(reader):
    """abbreviation suffix -> the stored feeders row of each demo feeder, found by its abbreviation."""
    ds = generate_demo_dataset(today=TODAY)
    out = {}
    for feeder in FEEDERS:
        abbr = f"{ds.amcs[feeder.company % len(ds.amcs)]['abbr']}{feeder.suffix}"
        rows = reader.query("SELECT d.*, f.proj_abbr_name FROM feeders d JOIN funds f USING (proj_id) "
                            "WHERE f.proj_abbr_name = ?", [abbr])
        assert len(rows) == 1, abbr
        out[(feeder.company, feeder.suffix)] = rows[0]
    return out


def test_the_demo_families_are_matched_as_designed(demo_feeders):
    f = demo_feeders
    quality = [f[(1, "GQ-UH")], f[(1, "GQ-H")], f[(2, "GQ")], f[(3, "GQ")]]
    assert len({r["master_id"] for r in quality}) == 1 and quality[0]["master_id"].startswith("isin:LU")
    assert [r["matched_by"] for r in quality] == [BY_ISIN, BY_ISIN, BY_ISIN, BY_NAME_TO_ISIN]
    assert len(quality[0]["master_isins"].split(",")) == 2  # the I and A share classes of one master
    asia = [f[(4, "AL")], f[(5, "AL")]]
    assert asia[0]["master_id"] == asia[1]["master_id"] == "name:demo asia leaders master fund"
    assert {r["matched_by"] for r in asia} == {BY_NAME}
    assert f[(6, "FV")]["master_id"] == "name:demo frontier ventures fund"  # the unmatched name: a master of one
    assert f[(7, "WI")]["master_id"] != f[(8, "WI")]["master_id"]  # two domiciles: two masters
    assert f[(4, "WI")]["undecided"] == NAME_FITS_SEVERAL and f[(4, "WI")]["master_id"] is None
    assert f[(7, "GO")]["undecided"] == NO_MASTER and f[(7, "GO")]["holding_pct"] < 60


def test_masters_list_the_most_fed_first_with_the_fee_range(reader, demo_feeders):
    rows = masters(reader)
    top = rows[0]
    assert top["master_id"] == demo_feeders[(1, "GQ-UH")]["master_id"]
    assert (top["feeders"], top["companies"], top["classes"]) == (4, 3, 6)
    fees = class_fees(reader, [r["proj_id"] for r in demo_feeders.values() if r["master_id"] == top["master_id"]])
    charged = [f["charged"].total_expense for f in fees.values()]
    assert (top["total_expense_min"], top["total_expense_max"]) == (min(charged), max(charged))
    assert {r["proj_id"] for r in undecided(reader)} == {demo_feeders[(4, "WI")]["proj_id"],
                                                         demo_feeders[(7, "GO")]["proj_id"]}


def _tri(reader, proj_id, name):
    nav = class_nav(reader, proj_id, name)
    return total_return_index(nav_series(nav), dividend_series(class_distributions(reader, proj_id, name)))


def test_siblings_returns_follow_the_nav_rule_on_the_same_days(reader, demo_feeders):
    data = siblings(reader, demo_feeders[(2, "GQ")]["proj_abbr_name"])
    assert len(data["rows"]) == 6 and sum(r["is_cheapest"] for r in data["rows"]) == 1
    cheapest = data["cheapest"]
    assert cheapest["total_expense"] == min(r["total_expense"] for r in data["rows"])
    assert cheapest["diff_1y_vs_cheapest"] == 0
    end = data["nav_date"]
    base = _tri(reader, cheapest["proj_id"], cheapest["class"])
    for row in data["rows"]:
        tri = _tri(reader, row["proj_id"], row["class"])
        both = tri.to_frame("a").join(base.rename("b"), how="inner").loc[:str(end)]
        start = both.loc[:str(end.replace(year=end.year - 1))].iloc[-1]
        expected = 100 * (both["a"].iloc[-1] / start["a"] - 1) - 100 * (both["b"].iloc[-1] / start["b"] - 1)
        assert row["diff_1y_vs_cheapest"] == pytest.approx(expected, abs=1e-9)
        own = tri.loc[:str(end)]
        own_start = own.loc[:str(end.replace(year=end.year - 1))].iloc[-1]
        assert row["total_return_1y"] == pytest.approx(100 * (own.iloc[-1] / own_start - 1), abs=1e-9)
        assert np.isfinite(row["total_return_3y_ann"])


def test_fee_drag_is_the_models_on_the_stored_fees(reader, demo_feeders):
    abbr = demo_feeders[(1, "GQ-UH")]["proj_abbr_name"]
    data = class_costs(reader, f"{abbr}-A", amount=50_000, years=5, return_pct=6.0)
    mine, sibling, own_cheapest, peer = data["rows"]
    fees = class_fees(reader, [data["proj_id"]])[(data["proj_id"], f"{abbr}-A")]
    assert mine["cost"] == pytest.approx(fee_drag(50_000, 5, 6.0, fees["charged"]).cost)
    assert [r["comparison"] for r in data["rows"]] == ["this class", "cheapest sibling feeder",
                                                       "cheapest class of the fund", "peer median"]
    assert sibling["cost"] <= own_cheapest["cost"] <= mine["cost"]
    assert mine["extra_cost"] == 0 and sibling["extra_cost"] == pytest.approx(mine["cost"] - sibling["cost"])
    assert mine["total_expense_ceiling"] >= mine["total_expense"]  # ceilings beside, never used
    default = class_costs(reader, f"{abbr}-A")
    assert (default["amount"], default["years"]) == (100_000, 10) and default["return_basis"].startswith("5y_nav:")


def test_cli_siblings_json_is_the_store_answer(cache, reader, demo_feeders, capsys):
    abbr = demo_feeders[(3, "GQ")]["proj_abbr_name"]
    assert main(["fund", "siblings", abbr, "--demo", "--cache-dir", str(cache), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = json.loads(json.dumps(siblings(reader, abbr), default=str))
    assert printed == expected
    assert main(["fund", "siblings", abbr, "--demo", "--cache-dir", str(cache)]) == 0
    text = capsys.readouterr().out
    assert "Matched by the master's name, matched to a master other feeders hold by ISIN." in text
    assert "Total expense charged (% a year)" in text


@pytest.mark.parametrize("argv", [["fund", "costs", "XXNOFUND"], ["fund", "costs", "DAD-GOLD", "--years", "0"],
                                  ["fund", "costs", "DAD-GOLD", "--amount", "-5"], ["fund", "siblings", "nofund"],
                                  ["fund", "costs", "DAD-GOLD", "--amount", "1e30"]])
def test_cli_bad_input_is_one_line_and_exit_2(cache, capsys, argv):
    assert main([*argv, "--demo", "--cache-dir", str(cache)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_costs_takes_an_amount_written_with_commas(cache, demo_feeders, capsys):
    abbr = demo_feeders[(1, "GQ-UH")]["proj_abbr_name"]
    assert main(["fund", "costs", f"{abbr}-A", "--amount", "50,000", "--demo", "--cache-dir", str(cache), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["amount"] == 50_000


def test_the_screeners_cost_column_is_the_fee_drag_of_each_funds_first_class(reader):
    """The screener's "cost of 100,000 THB over 10 years" (SQL) is cost_column's figure (the models' fee drag on
    the stored fees) for every fund, and sorts the funds by it, least first, funds without a figure last."""
    from dashboard.market.feeders import cost_column
    from dashboard.market.queries import screen

    rows = screen(reader)
    expected = cost_column(reader, [r["proj_id"] for r in rows])
    assert len(expected) > 50
    for row in rows:
        if row["proj_id"] in expected:
            assert row["cost_100k_10y"] == pytest.approx(expected[row["proj_id"]], abs=1e-6), row["proj_id"]
        else:
            assert row["cost_100k_10y"] is None
    # one worked by hand: a first class charging 1 % front, 1.5 % a year, 0.5 % back
    by_hand = 100_000 * 1.05 ** 10 - 100_000 * 0.99 * (1.05 * 0.985) ** 10 * 0.995
    assert by_hand == pytest.approx(fee_drag(100_000, 10, 5.0, ClassFees(1.5, 1.0, 0.5)).cost)
    ranked = [r["cost_100k_10y"] for r in screen(reader, sort="cost_100k_10y")]
    known = [c for c in ranked if c is not None]
    assert known == sorted(known) and ranked[:len(known)] == known

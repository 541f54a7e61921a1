"""`market holders` and `market overlap` looked through, on the demo market: its fund of Thai funds two levels deep
(the multi-manager fund holds the fund of funds, which holds four Thai funds) is expanded, and what cannot be
(a property fund the service does not cover, a fund without holdings) is said."""

from __future__ import annotations

import json

import pytest

from dashboard.cli import market as cli
from dashboard.market.store import MarketStore
from tests.market.conftest import cli_synced_once


@pytest.fixture(scope="module")
def demo_cache(tmp_path_factory):
    """The demo market's funds, companies and holdings synced by the command (with risk levels and fees besides:
    tests/market/conftest.py's `cli_synced_once`, synced once in the run, copied)."""
    return cli_synced_once(tmp_path_factory, "lookthrough")


@pytest.fixture
def store_path(demo_cache, monkeypatch, capsys):
    capsys.readouterr()
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(demo_cache))
    return demo_cache / "market-demo.duckdb"


def funds_of_funds(store_path):
    with MarketStore(store_path, read_only=True) as store:
        rows = store.query("SELECT proj_abbr_name, proj_name_en FROM funds WHERE proj_name_en LIKE '%Fund of Funds%' "
                           "ORDER BY proj_name_en DESC")
        top = {r["proj_name_en"]: r["proj_abbr_name"] for r in rows}
        first = next(a for n, a in top.items() if "Thai Fund of Funds" in n)
        second = next(a for n, a in top.items() if "Multi-Manager" in n)
        latest = store.query("SELECT max(period) AS p FROM holdings")[0]["p"]
        # the largest holding of the first Thai fund the fund of funds holds
        held = store.query(
            "SELECT f.proj_id FROM holdings h JOIN funds x ON x.proj_abbr_name = ? AND x.proj_id = h.proj_id "
            "JOIN funds f ON upper(f.proj_abbr_name) = upper(h.issue_code) WHERE h.period = ? "
            "ORDER BY h.percent_nav DESC LIMIT 1", [first, latest])[0]["proj_id"]
        security = store.query("SELECT coalesce(nullif(isin_code, '-'), issue_code) AS s FROM holdings WHERE proj_id = ? "
                               "AND period = ? AND NOT is_nav_total AND issue_code <> '-' ORDER BY percent_nav DESC "
                               "LIMIT 1", [held, latest])[0]["s"]
    return first, second, security


def test_holders_looked_through_find_the_funds_of_funds(store_path, capsys):
    first, second, security = funds_of_funds(store_path)
    assert cli.main(["market", "holders", "--demo", security, "--json"]) == 0
    direct = {r["proj_abbr_name"] for r in json.loads(capsys.readouterr().out)}
    assert cli.main(["market", "holders", "--demo", security, "--looked-through", "--json"]) == 0
    rows = {r["proj_abbr_name"]: r for r in json.loads(capsys.readouterr().out)}
    assert first not in direct and second not in direct
    assert direct < set(rows)
    assert rows[first]["through"] and rows[second]["through"].startswith(first + " > ")  # two levels deep
    assert cli.main(["market", "holders", "--demo", security, "--looked-through"]) == 0
    printed = capsys.readouterr()
    assert "Through (funds between)" in printed.out and "looked through:" in printed.err


def test_overlap_looked_through_says_what_it_could_not_expand(store_path, capsys):
    first, second, _ = funds_of_funds(store_path)
    assert cli.main(["market", "overlap", "--demo", first, second, "--json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert cli.main(["market", "overlap", "--demo", first, second, "--looked-through", "--json"]) == 0
    through = json.loads(capsys.readouterr().out)
    pair = next(iter(direct["overlap_pct"]))
    # the multi-manager fund holds the fund of funds: looked through, they share what it holds
    assert through["overlap_pct"][pair] > direct["overlap_pct"][pair] + 20
    note = through["looked_through_note"]
    assert "DEMO-PROP" in note and "not a fund in the store" in note and "no holdings stored" in note
    assert cli.main(["market", "overlap", "--demo", first, second, "--looked-through"]) == 0
    assert "looked through: " in capsys.readouterr().out


def test_looked_through_bad_input_is_one_line(store_path, capsys):
    first, _, _ = funds_of_funds(store_path)
    assert cli.main(["market", "overlap", "--demo", first, "NO-SUCH-FUND", "--looked-through"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "NO-SUCH-FUND" in err[0]
    assert cli.main(["market", "holders", "--demo", "PTT", "--looked-through", "--period", "2026"]) == 2


def test_basket_with_amounts_from_a_csv(store_path, capsys, tmp_path):
    first, second, security = funds_of_funds(store_path)
    path = tmp_path / "amounts.csv"
    path.write_text(f"Fund,Class,Amount\n{second},,\"600,000\"\nNOT-A-FUND,,5\n{first},,400000\n", encoding="utf-8")
    assert cli.main(["market", "basket", "--demo", str(path), "--top", "1000", "--json"]) == 0
    printed = capsys.readouterr()
    answer = json.loads(printed.out)
    assert "NOT-A-FUND" in printed.err and answer["unknown"] == ["NOT-A-FUND"]
    assert answer["total"] == 1_000_000 and "not investment advice" in answer["estimate"]
    rows = answer["holdings"]
    # the baht of the holdings add up to the basket's amount as the funds' lines add up to their NAV (about 100 %)
    assert 0.97 * 1_000_000 < sum(r["baht"] for r in rows) < 1.01 * 1_000_000
    held = next(r for r in rows if r["security"] == security.upper())
    assert held["funds"] == 2  # through both funds of funds, added up
    assert set(answer["overlap_pct"]) == {next(iter(answer["overlap_pct"]))}
    path.write_text("fund,amount\nX,lots\n", encoding="utf-8")
    assert cli.main(["market", "basket", "--demo", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an amount" in err[0]


def test_the_market_tabs_model_looks_through_on_demand(store_path):
    """MarketScreen (the Market tab's model): the switch reads the most held, who holds and the overlap again."""
    from dashboard.errors import BadInputError
    from dashboard.market.screen import MarketScreen
    from dashboard.models.source import run

    first, second, security = funds_of_funds(store_path)
    market = MarketScreen(snapshot_dir=str(store_path))
    try:
        run(market.refresh())
        direct_most = market.most_held.copy()
        run(market.find_holders(security))
        direct_holders = set(market.holders["proj_abbr_name"])
        run(market.find_overlap([first, second]))
        direct_overlap = float(market.overlap_pairs["overlap_pct"].iloc[0])
        assert market.looked_through_note == ""
        run(market.set_looked_through(True))
        assert {first, second} <= set(market.holders["proj_abbr_name"]) and direct_holders < set(market.holders["proj_abbr_name"])
        assert float(market.overlap_pairs["overlap_pct"].iloc[0]) > direct_overlap + 20
        assert "DEMO-PROP" in market.overlap_note and "2 levels deep" in market.looked_through_note
        assert not market.most_held.equals(direct_most)
        # a fund not in the snapshot: one error, and the overlap shown stays
        shown = market.overlap_pairs.copy()
        with pytest.raises(BadInputError):
            run(market.find_overlap([first, "NO-SUCH-FUND"]))
        assert market.overlap_pairs.equals(shown)
        run(market.set_looked_through(False))
        assert set(market.holders["proj_abbr_name"]) == direct_holders and market.looked_through_note == ""
    finally:
        market.close()

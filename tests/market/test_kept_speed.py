"""Answers kept per snapshot (market/kept.py): a reader serves the sibling returns and the most held securities
computed once at publish time; they equal what is computed afresh, and a new snapshot never serves the old ones."""

from __future__ import annotations

import pytest

from dashboard.market import holdings
from dashboard.market.feeders import SIBLING_INPUTS, _kept_returns, siblings
from dashboard.market.holdings import MOST_HELD_INPUTS
from dashboard.market.lookthrough import look_through
from dashboard.market.snapshot import Publisher
from dashboard.market.store import MarketStore
from tests.feeder_store import feeder_store_once


@pytest.fixture
def store_path(tmp_path_factory):
    """A copy of its own of the demo feeder store (built once in the run): these tests change it."""
    return feeder_store_once(tmp_path_factory, "kept")


def _feeders(store) -> list[str]:
    """One feeder of every master (the first by proj_id)."""
    return [r["proj_id"] for r in store.query("SELECT min(proj_id) AS proj_id FROM feeders WHERE master_id IS NOT NULL "
                                               "GROUP BY master_id ORDER BY 1")]


def _returns(answer: dict) -> dict:
    return {(r["proj_id"], r["class"]): (r["total_return_1y"], r["total_return_3y_ann"], r["diff_1y_vs_cheapest"])
            for r in answer["rows"]}


def test_a_reader_serves_the_kept_siblings_and_they_equal_the_computed_afresh(store_path):
    with MarketStore(store_path) as writer, MarketStore(store_path, read_only=True) as reader:
        assert not writer.kept("sibling_returns", SIBLING_INPUTS)  # the writer always computes afresh
        assert reader.kept("sibling_returns", SIBLING_INPUTS)
        picks = _feeders(reader)
        assert len(picks) >= 3
        with_returns = 0
        for proj_id in picks:
            kept, fresh = siblings(reader, proj_id), siblings(writer, proj_id)
            assert kept == fresh, proj_id
            own = writer.query("SELECT master_id FROM feeders WHERE proj_id = ?", [proj_id])[0]["master_id"]
            assert _kept_returns(reader, own, kept["rows"]) is not None  # served from the kept table, not recomputed
            with_returns += any(r["total_return_1y"] is not None for r in kept["rows"])
        assert with_returns >= 2  # families with NAVs, not only empty figures compared


def _feeder_with_returns(reader) -> str:
    """A feeder whose family has a 1-year total return to change."""
    return next(p for p in _feeders(reader) if any(r["total_return_1y"] is not None for r in siblings(reader, p)["rows"]))


def _scale_newest_nav(writer, proj_id: str, factor: float) -> None:
    """The newest NAV of the fund's own classes times `factor` (its 1-year return changes), not yet published."""
    with writer.transaction() as con:
        con.execute("UPDATE nav SET nav = nav * ? WHERE proj_id = ? AND nav_date = "
                    "(SELECT max(nav_date) FROM nav WHERE proj_id = ?)", [factor, proj_id, proj_id])


def test_a_new_snapshot_serves_new_sibling_returns_not_the_old(store_path):
    with MarketStore(store_path) as writer, MarketStore(store_path, read_only=True) as reader:
        pick = _feeder_with_returns(reader)
        before = siblings(reader, pick)
        # the newest NAV of the pick's own classes 10 % higher: its 1-year return must change
        _scale_newest_nav(writer, pick, 1.1)
        writer.publish(["nav"])
        after = siblings(reader, pick)
        assert reader.kept("sibling_returns", SIBLING_INPUTS)
        assert after == siblings(writer, pick)
        own = [k for k in _returns(before) if k[0] == pick and _returns(before)[k][0] is not None]
        assert own and all(_returns(after)[k][0] != pytest.approx(_returns(before)[k][0]) for k in own)


def test_a_snapshot_publishing_the_nav_without_the_kept_returns_is_answered_afresh(store_path):
    """A publish that did not compute the kept answers again (an older version's writer on the same directory): the
    kept table is older than the NAV it was computed from, so a reader computes afresh."""
    with MarketStore(store_path) as writer, MarketStore(store_path, read_only=True) as reader:
        pick = _feeder_with_returns(reader)
        kept = siblings(reader, pick)
        _scale_newest_nav(writer, pick, 0.8)
        Publisher(writer.snapshot_dir).publish(writer.con, {"nav": "SELECT * FROM nav"})
        assert not reader.kept("sibling_returns", SIBLING_INPUTS)
        fresh = siblings(reader, pick)
        assert fresh == siblings(writer, pick) and _returns(fresh) != _returns(kept)


def _rows(rows: list[dict]) -> list[tuple]:
    return [(r["security"], r["funds"], r["issue_code"], r["isin_code"], r["issuer"], r["period"],
             pytest.approx(r["total_value"]), pytest.approx(r["percent_nav_avg"])) for r in rows]


def test_the_kept_most_held_equal_the_computed_afresh_direct_and_looked_through(store_path):
    with MarketStore(store_path) as writer, MarketStore(store_path, read_only=True) as reader:
        assert reader.kept("most_held_kept", MOST_HELD_INPUTS) and not writer.kept("most_held_kept", MOST_HELD_INPUTS)
        quarter = holdings.latest_period(reader)
        assert look_through(reader, quarter).expanded_roots  # the demo's funds of Thai funds: a look-through differs
        for looked in (False, True, look_through(reader, quarter)):
            for limit in (20, None):
                kept = holdings.most_held(reader, limit=limit, looked_through=looked)
                fresh = holdings.most_held(writer, limit=limit, looked_through=looked is not False)
                assert len(kept) == len(fresh) > 0
                assert _rows(kept) == _rows(fresh)
        direct = holdings.most_held(reader, limit=None)
        looked = holdings.most_held(reader, limit=None, looked_through=True)
        assert _rows(direct) != _rows(looked)
        # a look-through of some funds only is not the kept one: computed afresh
        some = look_through(reader, quarter, look_through(reader, quarter).expanded_roots[:1])
        assert holdings.most_held(reader, limit=5, looked_through=some) == holdings.most_held_afresh(
            reader, quarter, limit=5, looked_through=some)


def test_a_new_snapshot_of_holdings_serves_new_most_held_not_the_old(store_path):
    with MarketStore(store_path) as writer, MarketStore(store_path, read_only=True) as reader:
        quarter = holdings.latest_period(reader)
        top = holdings.most_held(reader, limit=1)[0]
        # every line of the most held security gone from the quarter: it is no longer the most held
        with writer.transaction() as con:
            con.execute("DELETE FROM holdings WHERE period = ? AND (upper(trim(isin_code)) = ? "
                        "OR upper(trim(issue_code)) = ?)", [quarter, top["security"], top["security"]])
        writer.publish(["holdings"], period=quarter)
        assert reader.kept("most_held_kept", MOST_HELD_INPUTS)
        after = holdings.most_held(reader, limit=None)
        assert top["security"] not in {r["security"] for r in after}
        assert _rows(after) == _rows(holdings.most_held(writer, limit=None))
        # and one published without the kept answers (an older writer): answered afresh
        with writer.transaction() as con:
            con.execute("DELETE FROM holdings WHERE period = ? AND proj_id = "
                        "(SELECT min(proj_id) FROM holdings WHERE period = ?)", [quarter, quarter])
        Publisher(writer.snapshot_dir).publish(writer.con, {f"holdings:{quarter}":
                                                            f"SELECT * FROM holdings WHERE period = '{quarter}'"})
        assert not reader.kept("most_held_kept", MOST_HELD_INPUTS)
        assert _rows(holdings.most_held(reader, limit=None)) == _rows(holdings.most_held(writer, limit=None))


def test_inside_kept_later_publishes_leave_the_kept_answers_to_its_end(store_path):
    """A sync publishes each dataset as it completes and keeps the answers once, at its end: meanwhile readers
    compute afresh from what is published, never the old kept answers."""
    with MarketStore(store_path) as writer, MarketStore(store_path, read_only=True) as reader:
        assert reader.kept("sibling_returns", SIBLING_INPUTS) and reader.kept("most_held_kept", MOST_HELD_INPUTS)
        pick = _feeder_with_returns(reader)
        before = siblings(reader, pick)
        with writer.kept_later():
            with writer.transaction() as con:
                con.execute("UPDATE nav SET nav = nav * 1.2 WHERE proj_id = ? AND nav_date = "
                            "(SELECT max(nav_date) FROM nav WHERE proj_id = ?)", [pick, pick])
            writer.publish(["nav"])
            assert not reader.kept("sibling_returns", SIBLING_INPUTS)
            assert reader.kept("most_held_kept", MOST_HELD_INPUTS)  # not computed from the NAVs: still current
            meanwhile = siblings(reader, pick)
            assert meanwhile == siblings(writer, pick) and _returns(meanwhile) != _returns(before)
        assert reader.kept("sibling_returns", SIBLING_INPUTS)
        assert siblings(reader, pick) == meanwhile

"""MarketScreen (the Market tab's model) against a store synced from the demo simulator: every frame it
holds is what the query functions answer on the same snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

from dashboard.config import ApiSettings
from dashboard.errors import BadInputError, SecApiError
from dashboard.market import queries
from dashboard.market import holdings
from dashboard.market.screen import (FEE_FIELDS, MOST_HELD_FIELDS, SPECTRUM_FIELDS, MarketScreen, holders_frame,
                                     market_frame, screen_frame)
from dashboard.market.store import open_reader
from tests.built_once import copy_built
from tests.conftest import run
from tests.market.conftest import synced_once


@pytest.fixture(scope="module")
def synced_store(tmp_path_factory):
    """The store file of a whole demo-market sync (successor layout), closed: readers read its snapshot. (The
    run's one such sync, tests/market/conftest.py's `synced_once`, copied.)"""
    built, _result = synced_once(tmp_path_factory, "successor")
    return copy_built(built, Path(tmp_path_factory.mktemp("screen-store")) / "store") / "market.duckdb"


@pytest.fixture(scope="module")
def reader(synced_store):
    with open_reader(path=synced_store) as store:
        yield store


@pytest.fixture
def screen(synced_store):
    model = MarketScreen(snapshot_dir=str(synced_store))
    yield model
    model.close()


def frame(rows, columns):
    """The query's rows as the model keeps them (counts as integers, figures as floats)."""
    expected = market_frame(rows, columns)
    assert len(expected) == len(rows) and list(expected.columns) == columns
    return expected


def test_refresh_reads_the_snapshot_and_every_market_frame(screen, reader):
    any_fund = queries.screen(reader, limit=1)[0]["proj_id"]
    screen.fund = any_fund
    run(screen.refresh())
    assert screen.has_store and screen.fund_count == reader.count("funds") > 0
    assert screen.snapshot_at and screen.age_s is not None and screen.error == ""
    assert_frame_equal(screen.results, screen_frame(queries.screen(reader, sort="proj_id")))
    assert_frame_equal(screen.spectrum, frame(queries.risk_spectrum(reader), SPECTRUM_FIELDS))
    assert_frame_equal(screen.fees, frame(queries.fees_by_policy(reader), FEE_FIELDS))
    assert_frame_equal(screen.most_held, frame(holdings.most_held(reader, limit=20), MOST_HELD_FIELDS))
    assert screen.fee_position == queries.fee_percentile(reader, any_fund)
    assert not screen.spectrum.empty and not screen.most_held.empty


def test_filters_are_the_screeners(screen, reader):
    run(screen.refresh())
    screen.param.update(status="RG", risk=["RS4", "RS5", "RS6"], max_fee=2.0, sort="-return_1y")
    run(screen.screen())
    expected = queries.screen(reader, status="RG", risk=["RS4", "RS5", "RS6"], max_fee=2.0, sort="-return_1y")
    assert_frame_equal(screen.results, screen_frame(expected))
    assert 0 < len(screen.results) < screen.fund_count
    assert screen.results["fund_status"].eq("RG").all()
    assert screen.results["total_fee_actual"].le(2.0).all()
    # The market-wide views follow the status filter.
    assert_frame_equal(screen.spectrum, frame(queries.risk_spectrum(reader, status="RG"), SPECTRUM_FIELDS))
    screen.param.update(status="", risk=[], max_fee=None, tax="SSF", min_return_1y=-5.0, sort="total_fee_actual")
    run(screen.screen())
    expected = queries.screen(reader, tax="SSF", min_return_1y=-5.0, sort="total_fee_actual")
    assert_frame_equal(screen.results, screen_frame(expected))


def test_a_policy_filter_with_no_match_is_empty_not_an_error(screen):
    run(screen.refresh())
    screen.policy = "no policy is called this"
    run(screen.screen())
    assert screen.results.empty and list(screen.results.columns) == [*queries.SCREEN_FIELDS, *queries.NAV_FIELDS]
    assert screen.error == ""


def test_who_holds_a_security(screen, reader):
    run(screen.refresh())
    security = screen.most_held.iloc[0]["security"]
    run(screen.find_holders(security))
    assert_frame_equal(screen.holders, holders_frame(holdings.holders(reader, security)))
    assert len(screen.holders) == screen.most_held.iloc[0]["funds"]
    with pytest.raises(BadInputError):
        run(screen.find_holders("  "))
    assert screen.holders.empty and "issue code or ISIN" in screen.error


def test_fee_position_and_basket_overlap(screen, reader):
    run(screen.refresh())
    holders = holdings.holders(reader, screen.most_held.iloc[0]["security"])
    a, b = holders[0]["proj_id"], holders[1]["proj_id"]
    assert run(screen.place_fund(a)) == queries.fee_percentile(reader, a) == screen.fee_position
    overlap = run(screen.basket_overlap(a, [b, "NOT_A_FUND_1"]))
    expected = holdings.overlap(reader, [a, b])
    assert overlap["proj_id"].tolist() == [b, "NOT_A_FUND_1"]
    assert overlap["overlap_pct"].iloc[0] == pytest.approx(expected["overlap_pct"][f"{a}|{b}"])
    assert overlap["common"].iloc[0] == len(expected["common"]) > 0
    assert overlap["in_snapshot"].tolist() == [True, False]
    records = run(screen.fund_records([a, "NOT_A_FUND_1"]))
    assert records[a]["proj_id"] == a and records["NOT_A_FUND_1"] is None


def test_no_snapshot_yet(tmp_path):
    model = MarketScreen(snapshot_dir=str(tmp_path / "market.duckdb"))
    try:
        run(model.refresh())
        assert not model.has_store and model.fund_count == 0 and model.results.empty
        assert list(model.results.columns) == [*queries.SCREEN_FIELDS, *queries.NAV_FIELDS] and model.snapshot_at == ""
        assert model.fee_position is None and model.spectrum.empty
    finally:
        model.close()


def test_demo_sync_fills_the_store_with_progress(market_factory, tmp_path):
    market = market_factory("successor")
    settings = ApiSettings.from_env(base_url="http://simulator.test", cache_dir=tmp_path, environ={})
    model = MarketScreen(settings=settings)
    seen: list[float] = []
    model.param.watch(lambda e: seen.append(e.new), "sync_progress")
    try:
        run(model.refresh())
        assert not model.has_store
        run(model.sync_demo(market.client(), quarters=1, nav_days=0))  # (the NAV part: tests/views/test_market.py)
        assert model.has_store and not model.syncing and model.sync_progress == 1.0
        assert model.fund_count == len(market.dataset.funds) and len(model.results) == model.fund_count
        assert len(seen) > 2 and seen == sorted(seen)
        assert "Synced" in model.sync_message
    finally:
        model.close()


def test_sync_words_count_only_what_is_stored():
    from dashboard.market.screen import _sync_words

    assert _sync_words("dealing", 212, 61) == "Dealing periods: fetching, 61 calls"  # no count of rows received
    assert "85 stored" in _sync_words("dealing", 85, 61, done=True)


def test_the_company_filter_picks_by_name(screen, reader):
    run(screen.refresh())
    from dashboard.market.queries import company_choices

    assert len(screen.companies) > 1  # name by unique_id, for the Market tab's picker
    first = company_choices(reader)[0]
    screen.company = str(first["name"])  # a whole name, as a picker gives it
    run(screen.screen())
    assert not screen.error and len(screen.results) == int(first["funds"])
    assert set(screen.results["unique_id"]) == {first["unique_id"]}
    screen.company = ""


def test_closing_while_a_read_runs_closes_the_reader_when_it_ends(screen):
    """A session that ends mid-read closes its model: the reader was closed under the worker thread's query."""
    import asyncio
    import threading

    started, release = threading.Event(), threading.Event()

    def slow_count(store):
        started.set()
        release.wait(10)
        return store.query("SELECT count(*) AS n FROM funds")[0]["n"]

    async def scenario():
        read = asyncio.ensure_future(screen._read(slow_count))
        await asyncio.to_thread(started.wait, 10)
        screen.close()  # what the session's end does
        assert screen._reader is not None  # still open: the read goes on
        release.set()
        return await read

    assert run(scenario()) > 0
    assert screen._reader is None and not screen.loading
    screen.close()  # again: nothing left to close
    # a read after the end (a view's next step) opens no reader that nothing would close
    with pytest.raises(SecApiError, match="session that read it has ended"):
        run(screen.refresh())
    assert screen._reader is None

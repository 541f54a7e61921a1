"""The market sync's NAV part against the loopback simulator: whole-market windows, paged and staged,
resumable, incremental, duplicates and bad NAVs counted; the schema-1 store migrated in place."""

from __future__ import annotations

import json
import re
import logging
import math
import random
import shutil
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import parse_qs

import duckdb
import httpx
import pytest

from dashboard.api.nav import clean_class
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.demo.simulator import create_app
from dashboard.demo.successor_nav import nav_rows
from dashboard.errors import BadInputError, SecApiError
from dashboard.market.nav_store import class_nav
from dashboard.market.nav_sync import OVERLAP_DAYS, check_nav_days, needed_days, windows
from dashboard.market.status import status
from dashboard.market.store import MarketStore
from dashboard.market.sync import sync_blocking
from dashboard.market.tables import SCHEMA_VERSION
from tests.conftest import TODAY
from tests.market.conftest import independent_copy

NAV_DAYS = 30


class Interrupted(Exception):
    pass


class NavMarket:
    """A successor-layout simulator over a copy of the demo data set, and clients of it on any day."""

    def __init__(self, dataset, **options):
        self.dataset = independent_copy(dataset)
        self.app = create_app(self.dataset, require_key=False, today=TODAY, layout="successor", **options)
        self.clients = []

    def sync(self, store, *, today: date = TODAY, **options):
        settings = ApiSettings.from_env(base_url="http://simulator.test", use_cache=False, layout="successor",
                                        environ={})
        client = open_client(settings, transport=httpx.ASGITransport(app=self.app), cache=None, require_keys=False,
                             today=lambda: today, rate_limit_calls=1_000_000, backoff_base=0.01, backoff_max=0.02)
        self.clients.append(client)
        options.setdefault("only", "nav")
        options.setdefault("nav_days", NAV_DAYS)
        return sync_blocking(store, client, **options)

    def nav_windows_asked(self) -> list[tuple[str, str]]:
        asked = []
        for _method, path, query in self.app.queries:
            if path.endswith("/daily-info/nav"):
                q = parse_qs(query)
                if "next_cursor" not in q:
                    asked.append((q["start_nav_date"][0], q["end_nav_date"][0]))
        return sorted(asked)

    def close(self):
        for client in self.clients:
            client.close()


@pytest.fixture
def nav_market(dataset):
    made = []

    def make(**options):
        market = NavMarket(dataset, **options)
        made.append(market)
        return market

    yield make
    for market in made:
        market.close()


@dataclass
class Synced:
    """One NAV sync of the demo market, made once a module for the tests that read it (each sync of the whole
    market's NAV is seconds of CPU): its closed store's directory, its result, the calls it sent and what it asked."""

    directory: Path
    result: object
    calls: int
    queries: list
    windows_asked: list
    rows: dict  # `stored` of its store

    @property
    def path(self) -> Path:
        return self.directory / "market.duckdb"

    def copy(self, destination: Path) -> Path:
        """A store of the test's own (the store file and its published snapshot copied): the path of its file."""
        shutil.copytree(self.directory, destination)
        return destination / "market.duckdb"


def sync_once(dataset, directory: Path, **options) -> Synced:
    market = NavMarket(dataset)
    try:
        with MarketStore(directory / "market.duckdb") as store:
            market.app.reset_counters()
            result = market.sync(store, **options)
            return Synced(directory, result, market.app.request_count, list(market.app.queries),
                          market.nav_windows_asked(), stored(store))
    finally:
        market.close()


@pytest.fixture(scope="module")
def nav_synced(dataset, tmp_path_factory) -> Synced:
    """A sync of NAV_DAYS of the whole market's NAV (the module's plain sync; read-only: `copy` it to write)."""
    return sync_once(dataset, tmp_path_factory.mktemp("nav-synced"))


@pytest.fixture(scope="module")
def long_synced(dataset, tmp_path_factory) -> Synced:
    """A sync of 200 days of NAV: long enough for the demo's distributions and a month's return (read-only)."""
    return sync_once(dataset, tmp_path_factory.mktemp("nav-synced-200"), nav_days=LONG_DAYS)


LONG_DAYS = 200


def service_rows(dataset, first: date, last: date, quirks=frozenset()) -> list[dict]:
    return nav_rows(dataset, {"start_nav_date": first.isoformat(), "end_nav_date": last.isoformat()}, quirks)


def stored(store) -> dict[tuple, tuple]:
    rows = store.query("SELECT proj_id, class, nav_date, nav, offer, bid, net_asset FROM nav")
    return {(r["proj_id"], r["class"], r["nav_date"]): (r["nav"], r["offer"], r["bid"], r["net_asset"]) for r in rows}


def expected(dataset, first: date, last: date) -> dict[tuple, tuple]:
    """What the store must hold: the simulator's own rows, 0 prices as not offered (None)."""
    price = lambda v: v if v > 0 else None  # noqa: E731
    return {(r["proj_id"], clean_class(r["fund_class_name"]), date.fromisoformat(r["nav_date"])):
            (r["last_val"], price(r["sell_price"]), price(r["buy_price"]), price(r["net_asset"]))
            for r in service_rows(dataset, first, last)}


def span(today: date = TODAY, days: int = NAV_DAYS) -> tuple[date, date]:
    return today - timedelta(days=days), today - timedelta(days=1)


def test_a_sync_stores_every_class_nav_of_the_window_as_the_service_sent(nav_synced, dataset):
    result = nav_synced.result
    with MarketStore(nav_synced.path) as store:  # (opened, read)
        assert result.complete and result.datasets == {"nav": "fetched"}
        want = expected(dataset, *span())
        assert len(want) > 1000 and stored(store) == want
        # one whole-market call sequence per window: no proj_id ever sent, pages of the one paging routine
        assert all("proj_id" not in q for _m, p, q in nav_synced.queries if "daily-info" in p)
        assert nav_synced.windows_asked == sorted((a.isoformat(), b.isoformat())
                                                    for _k, a, b in windows(TODAY, needed_days(TODAY, NAV_DAYS, {})))
        assert store.meta("nav")["nav"]["rows"] == len(want) and store.meta("nav")["nav"]["complete"]
        assert not [k for k in store.meta() if k.startswith("nav:")]  # no window left under way
        assert store.query("SELECT count(*) AS n FROM stage")[0]["n"] == 0
        entry = status(store)["datasets"]["nav"]  # `market status` counts the NAV rows as any dataset's
        assert entry["rows"] == len(want) and entry["complete"] and entry["fetched_at"]


def test_a_rerun_the_same_day_sends_nothing_and_the_next_day_only_the_new_day_and_the_overlap(nav_market, nav_synced,
                                                                                              tmp_path):
    market = nav_market()
    with MarketStore(nav_synced.copy(tmp_path / "store")) as store:  # a sync of today, made minutes ago at most
        market.app.reset_counters()
        again = market.sync(store)
        assert again.calls == 0 and market.app.request_count == 0 and again.datasets == {"nav": "fresh"}
        tomorrow = TODAY + timedelta(days=1)
        market.sync(store, today=tomorrow)
        asked = market.nav_windows_asked()
        # the new day (yesterday for tomorrow) and the days fetched before they settled; one day per window
        want = [TODAY - timedelta(days=n) for n in range(OVERLAP_DAYS - 1, -1, -1)]
        assert asked == [(d.isoformat(), d.isoformat()) for d in want]
        market.app.reset_counters()
        assert market.sync(store, today=tomorrow).calls == 0
        # a deeper --nav-days asks only the older days it adds
        market.app.reset_counters()
        market.sync(store, today=tomorrow, nav_days=NAV_DAYS + 10)
        asked = market.nav_windows_asked()
        first_new, last_new = tomorrow - timedelta(days=NAV_DAYS + 10), TODAY - timedelta(days=NAV_DAYS + 1)
        assert asked and min(a for a, _b in asked) == first_new.isoformat()
        assert max(b for _a, b in asked) == last_new.isoformat()


def test_needed_days_follow_the_settling_rule():
    today = date(2026, 11, 25)
    fetched = {today - timedelta(days=n): today - timedelta(days=1) for n in range(2, 40)}
    days = needed_days(today, 30, fetched)
    # never fetched: yesterday; fetched yesterday, less than OVERLAP_DAYS after its NAV date: asked again
    assert days == [today - timedelta(days=n) for n in range(OVERLAP_DAYS, 0, -1)]
    assert needed_days(today, 0, {}) == []
    assert needed_days(today, 30, {d: today for d in needed_days(today, 30, {})}) == []
    cut = windows(today, needed_days(today, 60, {}))
    assert all(a == b for _k, a, b in cut if a >= today - timedelta(days=14))
    assert all(a.weekday() == 0 or a == today - timedelta(days=60) for _k, a, b in cut if b < today - timedelta(days=14))
    for bad in (-1, 1.5, True, 10 ** 9):
        with pytest.raises(BadInputError, match="--nav-days"):
            check_nav_days(bad)


def test_duplicates_kept_once_the_later_winning_and_bad_navs_dropped_and_counted(nav_market, tmp_path, caplog):
    quirks = frozenset({"day_twice", "bad_nav"})
    market = nav_market(nav_quirks=quirks)
    with caplog.at_level(logging.WARNING, "dashboard.market"), MarketStore(tmp_path / "market.duckdb") as store:
        result = market.sync(store)
        said = [r.getMessage() for r in caplog.records]
        assert any(f"sent {result.duplicates['nav']} rows twice" in m for m in said)
        assert any(f"{result.dropped['nav']} rows with a NAV of 0" in m for m in said)
        raw = [r for _k, a, b in windows(TODAY, needed_days(TODAY, NAV_DAYS, {}))
               for r in service_rows(market.dataset, a, b, quirks)]
        latest: dict[tuple, dict] = {}
        for r in sorted(raw, key=lambda r: r["last_upd_date"]):
            latest[(r["proj_id"], clean_class(r["fund_class_name"]), r["nav_date"])] = r
        bad = sum(1 for r in latest.values() if not r["last_val"] > 0)
        assert result.duplicates["nav"] == len(raw) - len(latest) > 0
        assert result.dropped["nav"] == bad > 0
        got = stored(store)
        assert len(got) == len(latest) - bad
        # the rows sent twice whose later sending differs: each key's first sending found in one pass over the
        # rows (a search of every row for each key was 6,000 x 6,000 comparisons, seconds of CPU)
        earliest: dict[tuple, str] = {}
        for x in raw:
            key = (x["proj_id"], x["fund_class_name"], x["nav_date"])
            earliest[key] = min(earliest.get(key, x["last_upd_date"]), x["last_upd_date"])
        twice = [r for r in latest.values()
                 if r["last_upd_date"] != earliest[(r["proj_id"], r["fund_class_name"], r["nav_date"])]]
        assert twice and all(got[(r["proj_id"], clean_class(r["fund_class_name"]), date.fromisoformat(r["nav_date"]))][0]
                             == r["last_val"] for r in twice if r["last_val"] > 0)
        assert all(v[0] > 0 for v in got.values())


@pytest.mark.parametrize("how", ["interrupt", "failure"])
def test_an_interrupted_or_failed_sync_goes_on_from_the_pages_stored(nav_market, nav_synced, tmp_path, how):
    market = nav_market()
    total = nav_synced.calls  # an uninterrupted sync's calls
    in_flight = 8  # NAV_CONCURRENCY windows side by side, a page each
    # Stopped with calls still to send: past total - in_flight the last calls may all be out already, and
    # a failure injected then would meet none (seen once: "DID NOT RAISE").
    stop_at = random.Random().randrange(2, total - 2 * in_flight)
    store = MarketStore(tmp_path / "market.duckdb")
    market.app.reset_counters()

    def progress(p):
        if p.calls >= stop_at:
            if how == "interrupt":
                raise Interrupted
            market.app.inject("500", times=50)

    with pytest.raises(Interrupted if how == "interrupt" else SecApiError):
        market.sync(store, progress=progress)
    market.app.clear_faults()
    first_run = market.app.request_count
    market.app.reset_counters()
    result = market.sync(store)
    assert result.complete and result.datasets == {"nav": "fetched"}
    resumed = market.app.request_count
    assert first_run + resumed <= total + in_flight * (4 if how == "failure" else 1), (stop_at, first_run, resumed, total)
    assert stored(store) == nav_synced.rows  # no row lost, none doubled: what an uninterrupted sync stores
    store.close()


def test_the_older_layout_has_no_whole_market_nav_and_says_so(market_factory, tmp_path, caplog):
    market = market_factory("legacy")
    with caplog.at_level(logging.WARNING, "dashboard.market"), MarketStore(tmp_path / "market.duckdb") as store:
        result = market.sync(store, only="nav", nav_days=10)
    assert result.datasets == {"nav": "not offered"} and result.calls == 0
    assert any("one fund's NAV one day per call" in r.getMessage() for r in caplog.records)


def test_a_reader_sees_the_nav_and_its_figures_after_a_sync(long_synced):
    with MarketStore(long_synced.path) as store:  # the writer still open (opened, read)
        assert stored(store) == long_synced.rows and len(long_synced.rows) > 1000
        with MarketStore(store.path, read_only=True) as reader:
            assert reader.query("SELECT count(*) AS n FROM nav")[0]["n"] == store.query("SELECT count(*) AS n FROM nav")[0]["n"]
            proj_id, name = next(iter(stored(store)))[:2]
            assert class_nav(reader, proj_id, name).equals(class_nav(store, proj_id, name))
            figures = reader.query("SELECT * FROM nav_figures")
            assert len(figures) == store.query("SELECT count(DISTINCT (proj_id, class)) AS n FROM nav")[0]["n"]
            assert any(r["return_1m"] is not None and math.isfinite(r["return_1m"]) for r in figures)


def test_a_schema_1_store_is_migrated_in_place_with_one_line(tmp_path, caplog):
    path = tmp_path / "market.duckdb"
    with MarketStore(path) as store:
        store.swap("funds", {"funds": [{"proj_id": "M0001_2560", "proj_abbr_name": "F1"}]})
    con = duckdb.connect(str(path))  # as version 1 left it: no NAV tables
    for table in ("nav", "distributions", "nav_figures", "nav_days"):
        con.execute(f"DROP TABLE {table}")
    con.execute("UPDATE info SET value = '1' WHERE name = 'schema_version'")
    con.close()
    with caplog.at_level(logging.WARNING, "dashboard.market"), MarketStore(path) as store:
        assert store.moved_aside is None and store.count("funds") == 1
        assert store.info("schema_version") == str(SCHEMA_VERSION) and SCHEMA_VERSION >= 2  # to the current schema
        assert store.query("SELECT count(*) AS n FROM nav")[0]["n"] == 0
    lines = [r.getMessage() for r in caplog.records if "market store" in r.getMessage()]
    assert len(lines) == 1 and f"migrated from store schema 1 to {SCHEMA_VERSION}" in lines[0] and "rebuilt" not in lines[0]


def test_the_distributions_of_the_span_come_in_one_call_sequence_a_run(long_synced, dataset):
    from dashboard.demo.successor_nav import dividend_rows

    days = LONG_DAYS  # the demo's first distributions in the span (none in the last 60 days)
    with MarketStore(long_synced.path) as store:  # (opened, read)
        first, last = span(days=days)
        want = sorted((r["proj_id"], clean_class(r["class_abbr_name"]), date.fromisoformat(r["book_close_date"][:10]),
                       r["dividend_value"]) for r in dividend_rows(dataset, {})
                      if first.isoformat() <= r["book_close_date"][:10] <= last.isoformat())
        got = sorted((r["proj_id"], r["class"], r["ex_date"], r["per_unit"])
                     for r in store.query("SELECT * FROM distributions"))
        assert got == want and len(want) > 0
        asked = [parse_qs(q) for _m, p, q in long_synced.queries if p.endswith("/dividend-history")]
        firsts = [q for q in asked if "next_cursor" not in q]
        assert len(firsts) == 1 and firsts[0]["start_dividend_date"] == [first.isoformat()]


def test_market_sync_nav_days_on_the_command_line(tmp_path, monkeypatch, capsys):
    from dashboard.cli import market as cli
    from dashboard.cli import market_nav
    from dashboard.market import nav_sync

    assert (market_nav.DEFAULT_NAV_DAYS, market_nav.MAX_NAV_DAYS, market_nav.OVERLAP_DAYS) == \
        (nav_sync.DEFAULT_NAV_DAYS, nav_sync.MAX_NAV_DAYS, nav_sync.OVERLAP_DAYS)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cache"))
    for bad in ("-1", "abc", str(nav_sync.MAX_NAV_DAYS + 1)):
        with pytest.raises(SystemExit) as done:
            cli.main(["market", "sync", "--demo", "--only", "nav", "--nav-days", bad])
        assert done.value.code == 2
    assert not (tmp_path / "cache" / "market-demo.duckdb").exists()  # refused before anything was opened
    capsys.readouterr()
    assert cli.main(["market", "sync", "--demo", "--only", "funds,nav", "--nav-days", "12"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"^NAV: fetched, [\d,]+ rows stored", printed, re.M) and "stored: " in printed
    assert cli.main(["market", "sync", "--demo", "--only", "nav", "--nav-days", "12", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["calls"] == 0 and again["datasets"] == {"nav": "fresh"} and again["rows"]["nav"] > 0
    with pytest.raises(SystemExit):
        cli.main(["market", "sync", "--help"])
    from dashboard.market.nav_sync import DEFAULT_NAV_DAYS

    assert f"(default {DEFAULT_NAV_DAYS}" in " ".join(capsys.readouterr().out.split())

"""Sync of the demo market on both layouts: the store equals the demo data set; resume; incremental refresh."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from dashboard.api.periods import valid_periods
from dashboard.errors import BadInputError, SecApiError
from dashboard.market.store import MarketStore
from dashboard.market.datasets import DATASET_NAMES, parse_only
from dashboard.records.labels import FACTSHEET_FEE_KINDS, fee_type_key
from tests.conftest import TODAY
from tests.market import expected as X
from tests.market.conftest import QUARTERS, copy_of

TABLES = ("companies", "funds", "classes", "fees", "risk", "performance", "allocation", "minimums", "dealing",
          "links", "holdings")


class Interrupted(Exception):
    pass


def snapshot(store: MarketStore) -> dict[str, Counter]:
    """Every table as a multiset of its records (order-free), for comparing two stores."""
    return {t: Counter(r["record"] for r in store.query(f"SELECT record FROM {t}")) for t in TABLES}


def factsheet_line(fee: dict) -> bool:
    """A fee line the current service's factsheets carry (spec 4.14: no trustee or registrar line)."""
    return fee_type_key(fee["fee_type_desc"]) in FACTSHEET_FEE_KINDS


def test_whole_store_equals_the_demo_data_set(synced):
    market, store, result = synced
    ds = market.dataset
    assert result.complete
    funds = {r["proj_id"]: r for r in store.records("funds")}
    assert set(funds) == {f["proj_id"] for f in ds.funds}
    for f in ds.funds:
        assert funds[f["proj_id"]]["proj_abbr_name"] == f["proj_abbr_name"]
        record = store.fund(f["proj_id"])
        assert record["company_name_en"] == ds.amc_name(f["unique_id"]).strip()
    assert {r["unique_id"] for r in store.records("companies")} >= {f["unique_id"] for f in ds.funds}
    assert Counter((r["proj_id"], r["class_abbr_name"]) for r in store.records("classes")) == Counter(
        (pid, c["class_abbr_name"]) for pid, rows in ds.classes.items() for c in rows)
    assert Counter((r["proj_id"], X.class_of(r), r["fee_type_desc"]) for r in store.records("fees")) == Counter(
        (pid, X.class_of(r), r["fee_type_desc"]) for pid, rows in ds.fees.items() for r in rows
        if market.layout == "legacy" or factsheet_line(r))
    assert {r["proj_id"]: r["risk_spectrum"] for r in store.records("risk")} == {
        pid: s["risk_spectrum"].replace("RS8+", "RS81") for pid, s in ds.suitability.items()}
    assert Counter(r["proj_id"] for r in store.records("performance")) == Counter(
        {pid: len(rows) for pid, rows in ds.performance.items() if rows})
    assert Counter(r["proj_id"] for r in store.records("allocation")) == Counter(
        {pid: len(rows) for pid, rows in ds.allocation.items() if rows})
    periods = valid_periods(TODAY, market.layout)[: len({m for m in store.meta() if m.startswith("holdings:")})]
    for period in periods:
        stored = Counter((r["proj_id"], r["issue_code"], r["isin_code"], round(r["percent_nav"], 4))
                         for r in store.query("SELECT * FROM holdings WHERE period = ?", [period]))
        assert stored == Counter(X.holding_lines(ds, period)), period
    # nothing doubled: every dataset's row count is its meta's
    for name, meta in store.meta().items():
        table = name.split(":")[0]
        where = f" WHERE period = '{name.split(':')[1]}'" if ":" in name else ""
        assert meta["complete"] and meta["rows"] == store.query(f"SELECT count(*) AS n FROM {table}{where}")[0]["n"]


def test_both_layouts_fill_the_same_store(synced, synced_by_layout):
    market, store, _ = synced
    if market.layout != "successor":
        pytest.skip("compared once, from the successor's side")
    # the run's whole sync on the older layout (its newest quarter of holdings: QUARTERS["legacy"] is 1), not a
    # sync of the same datasets once more
    _legacy, other, _ = synced_by_layout("legacy")
    assert QUARTERS["legacy"] == 1
    key = {"funds": ("proj_id", "proj_abbr_name", "fund_status", "unique_id"),
           "classes": ("proj_id", "class_abbr_name"), "fees": ("proj_id", "class_abbr_name", "fee_type_desc", "rate_num",
                                                              "actual_value_num"),
           "risk": ("proj_id", "risk_spectrum"), "holdings": ("proj_id", "issue_code", "isin_code", "percent_nav")}
    period = valid_periods(TODAY)[0]
    for table, cols in key.items():
        where = f" WHERE period = '{period}'" if table == "holdings" else ""
        rows = lambda s: Counter(tuple(X.class_of(r) if c == "class_abbr_name" else r[c] for c in cols)  # noqa: E731
                                 for r in s.query(f"SELECT * FROM {table}{where}")
                                 if table != "fees" or factsheet_line(r))
        assert rows(store) == rows(other), table


def test_a_second_run_right_after_sends_nothing(synced):
    market, store, _ = synced
    market.app.reset_counters()
    result = market.sync(store)
    assert market.app.request_count == 0
    assert result.calls == 0 and set(result.datasets.values()) == {"fresh"}


@pytest.mark.slow  # a whole sync, a subprocess or whole reports: seconds each
def test_each_dataset_refreshes_on_its_own_interval(synced_by_layout, market_factory, tmp_path):
    # a copy of this session's whole sync (made minutes ago at most): every dataset fetched "now"
    store = copy_of(synced_by_layout("successor")[1], tmp_path / "market.duckdb")
    assert store.meta() and all(m["fetched_at"] <= time.time() for m in store.meta().values())
    market = market_factory("successor")
    now = [time.time()]
    periods = valid_periods(TODAY, market.layout)[:2]
    now[0] += 8 * 86400  # a week and a day later: weekly datasets and the newest quarter are due
    market.app.reset_counters()
    result = market.sync(store, clock=lambda: now[0])
    fetched = {k for k, v in result.datasets.items() if v == "fetched"}
    assert fetched == {"companies", "funds", "classes", "performance", "links", f"holdings:{periods[0]}"}
    asked = {path for _method, path in market.app.requests}
    assert not any(p.endswith(("/fees", "/risk-spectrum", "/asset-allocation")) for p in asked)
    now[0] += 400 * 86400  # more than a year: every dataset but the past quarter
    result = market.sync(store, clock=lambda: now[0])
    assert result.datasets[f"holdings:{periods[1]}"] == "fresh"
    assert result.datasets["fees"] == "fetched"
    store.close()


def resume_only(layout: str) -> str:
    return "funds,performance,holdings" if layout == "successor" else "funds,fees,holdings"


@pytest.fixture(scope="module")
def uninterrupted(market_factory, tmp_path_factory):
    """Per layout, an uninterrupted sync of `resume_only(layout)`: (calls it sent, snapshot of its store);
    made once a layout for both ways of interrupting it."""
    made: dict[str, tuple[int, dict[str, Counter]]] = {}

    def get(layout: str) -> tuple[int, dict[str, Counter]]:
        if layout not in made:
            market = market_factory(layout)
            with MarketStore(Path(tmp_path_factory.mktemp(f"full-{layout}")) / "full.duckdb") as full:
                market.app.reset_counters()
                market.sync(full, only=resume_only(layout))
                made[layout] = (market.app.request_count, snapshot(full))
        return made[layout]

    return get


@pytest.mark.slow  # a whole sync, a subprocess or whole reports: seconds each
@pytest.mark.parametrize("how", ["interrupt", "failure"])
def test_resume_after_an_interruption_at_a_random_page(synced, market_factory, uninterrupted, tmp_path, how):
    reference_market, reference, _ = synced
    layout = reference_market.layout
    market = market_factory(layout)
    only = resume_only(layout)
    total, want = uninterrupted(layout)
    in_flight = 4  # LEGACY_CONCURRENCY funds, or as many call sequences side by side
    # Stopped with calls still to send (past total - in_flight they may all be out already, and a failure
    # injected then would meet none).
    stop_at = random.Random().randrange(2, total - 2 * in_flight)
    store = MarketStore(tmp_path / "market.duckdb")
    market.app.reset_counters()
    if how == "interrupt":
        # stopped from outside (as Ctrl+C cancels it) right after a page is stored, at a random page
        def progress(p):
            if p.calls >= stop_at:
                raise Interrupted
        with pytest.raises(Interrupted):
            market.sync(store, only=only, progress=progress)
    else:
        # the service fails from a random call on, past every retry
        def progress(p):
            if p.calls >= stop_at:
                market.app.inject("500", times=50)
        with pytest.raises(SecApiError):
            market.sync(store, only=only, progress=progress)
        market.app.clear_faults()
    first_run = market.app.request_count
    market.app.reset_counters()
    result = market.sync(store, only=only)
    assert result.complete
    resumed = market.app.request_count
    # at most the pages in flight (one; on the legacy layout one batch of funds) are asked again, and
    # a failed one was tried max_attempts (4) times
    assert first_run + resumed <= total + in_flight * (4 if how == "failure" else 1), (stop_at, first_run, resumed, total)
    got = snapshot(store)
    for table in ("funds", "performance", "fees", "holdings"):
        assert got[table] == want[table], table  # no row lost, none doubled
    store.close()


@pytest.mark.slow  # a whole sync, a subprocess or whole reports: seconds each
def test_max_calls_stops_cleanly_and_the_next_run_goes_on(market_factory, tmp_path):
    market = market_factory("successor")
    store = MarketStore(tmp_path / "market.duckdb")
    market.app.reset_counters()
    first = market.sync(store, only="performance", max_calls=7)
    assert not first.complete and market.app.request_count == 7
    assert store.count("performance") == 0  # nothing half-swapped in
    second = market.sync(store, only="performance")
    assert second.complete and store.count("performance") == sum(len(v) for v in market.dataset.performance.values())
    assert first.calls + second.calls == 7 + second.calls and second.calls < 40
    store.close()


def test_a_reader_sees_the_old_or_the_new_dataset_whole(tmp_path):
    store = MarketStore(tmp_path / "market.duckdb")
    old = [{"proj_id": f"M{n:04d}_2560", "seq": 0, "fee_type_desc": "x", "actual_value_num": 1.0} for n in range(500)]
    new = [{"proj_id": f"M{n:04d}_2561", "seq": 0, "fee_type_desc": "y", "actual_value_num": 2.0} for n in range(1300)]
    store.swap("fees", {"fees": old})
    seen: set[tuple] = set()
    stop = threading.Event()

    def read():
        cur = store.reader()
        while not stop.is_set():
            seen.add(cur.execute("SELECT count(*), count(DISTINCT fee_type_desc) FROM fees").fetchone())
        cur.close()

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for n in range(30):
            store.swap("fees", {"fees": new if n % 2 == 0 else old})
            # a dataset being fetched is staged; the table keeps the snapshot before it
            store.begin("fees", "successor")
            store.stage_page("fees", "0", [{"proj_id": "M9999_2560"}], cursor="next", calls=1)
    finally:
        stop.set()
        reader.join()
    assert seen <= {(500, 1), (1300, 1)} and len(seen) == 2, seen
    store.close()


def test_only_names_datasets():
    assert parse_only("fees, risk") == ("fees", "risk")
    assert parse_only(None) == (*DATASET_NAMES, "nav")  # every class's NAV is named as a dataset (issue 27)
    assert parse_only("fees,nav") == ("fees", "nav")
    with pytest.raises(BadInputError, match="no dataset navs"):
        parse_only("fees,navs")


def test_a_corrupted_store_file_is_moved_aside_and_rebuilt(tmp_path, caplog):
    path = tmp_path / "market.duckdb"
    MarketStore(path).close()
    path.write_bytes(b"not a database" * 500)
    store = MarketStore(path)
    assert [r.message for r in caplog.records if "moved to market.duckdb.corrupt-" in r.message]
    assert store.moved_aside is not None and store.moved_aside.read_bytes() == b"not a database" * 500
    assert store.count("funds") == 0 and store.meta() == {}
    store.swap("funds", {"funds": [{"proj_id": "M0001_2560"}]})
    assert store.count("funds") == 1
    store.close()


def test_a_file_that_is_not_the_store_is_never_moved(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_bytes(b"my notes")
    with pytest.raises(SecApiError, match="left alone"):
        MarketStore(other)
    assert other.read_bytes() == b"my notes" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_export_writes_one_parquet_file_per_table(synced, tmp_path):
    import duckdb

    _market, store, _ = synced
    written = store.export(tmp_path / "snapshot")
    assert {p.stem for p in written} >= set(TABLES)
    for path in written:
        if path.stem in TABLES:
            n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0][0]
            assert n == store.count(path.stem), path.stem


def test_store_path_defaults_to_the_cache_directory(tmp_path):
    from dashboard.config import ApiSettings
    from dashboard.market.storefile import store_path

    settings = ApiSettings.from_env(cache_dir=tmp_path / "c", base_url="https://api.sec.or.th", api_key="0" * 32,
                                    environ={})
    assert store_path(settings) == tmp_path / "c" / "market.duckdb"
    demo = ApiSettings.from_env(cache_dir=tmp_path / "c", demo=True, environ={})
    assert store_path(demo) == tmp_path / "c" / "market-demo.duckdb"  # the demo market never mixes with a real one
    assert store_path(settings, tmp_path) == Path(tmp_path) / "market.duckdb"


CHILD = """
import sys
from datetime import date
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.market.store import MarketStore
from dashboard.market.sync import sync_blocking

client = open_client(ApiSettings.from_env(demo=True, layout="successor", environ={}), today=lambda: date(2026, 11, 21))
store = MarketStore(sys.argv[1])

def progress(p):
    print(p.calls, flush=True)

sync_blocking(store, client, only="performance,holdings", quarters=1, progress=progress)
print("done", flush=True)
"""


@pytest.mark.slow  # a whole sync, a subprocess or whole reports: seconds each
def test_resume_after_a_kill(tmp_path, market_factory):
    """SIGKILL at a random page: the next run goes on from the pages stored; nothing lost or doubled."""
    import signal
    import subprocess
    import sys

    path = tmp_path / "market.duckdb"
    stop_after = random.Random().randrange(2, 40)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).resolve().parents[2])
    try:
        for line in child.stdout:
            if line.strip() == "done" or int(line) >= stop_after:
                break
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        child.stdout.close()
    market = market_factory("successor")
    store = MarketStore(path)
    staged_pages = sum(m["pages"] or 0 for m in store.meta().values())
    market.app.reset_counters()
    result = market.sync(store, only="performance,holdings", quarters=1)
    assert result.complete
    full = MarketStore(tmp_path / "full.duckdb")
    market.app.reset_counters()
    market.sync(full, only="performance,holdings", quarters=1)
    total = market.app.request_count
    got, want = snapshot(store), snapshot(full)
    assert got["performance"] == want["performance"] and got["holdings"] == want["holdings"]
    assert result.calls <= total - staged_pages + 4 or staged_pages == 0, (stop_after, staged_pages, result.calls, total)
    store.close()
    full.close()


def test_a_late_quarter_is_not_kept_as_done_and_the_two_newest_with_data_are_stored(market_factory, tmp_path):
    """The quarter the rules make due had no rows yet: the sync stored "holdings:202609: 0" as done and the quarter
    before only, so "the newest two quarters" were one and the older never came (issue 39). The late quarter is
    not kept as done, the two newest quarters that have holdings are stored, and the next run asks again."""
    market = market_factory("successor")
    due, before, older = valid_periods(TODAY, "successor")[:3]
    late = {pid: quarters.pop(due) for pid, quarters in market.dataset.holdings.items() if due in quarters}
    assert late, "the demo data has no holdings for the due quarter"
    store = MarketStore(tmp_path / "market.duckdb")
    first = market.sync(store, only="holdings", quarters=2)
    assert first.datasets[f"holdings:{due}"] == "not published yet"
    assert first.datasets[f"holdings:{before}"] == first.datasets[f"holdings:{older}"] == "fetched"
    assert f"holdings:{due}" not in store.meta()  # never "0 rows, done"
    stored = {r["period"] for r in store.query("SELECT DISTINCT period FROM holdings")}
    assert stored == {before, older}
    for pid, rows in late.items():  # the companies file
        market.dataset.holdings[pid][due] = rows
    second = market.sync(store, only="holdings", quarters=2)
    assert second.datasets[f"holdings:{due}"] == "fetched" and second.datasets[f"holdings:{before}"] == "fresh"
    assert {r["period"] for r in store.query("SELECT DISTINCT period FROM holdings")} == {due, before, older}
    store.close()


def test_pandas_and_the_stores_sql_pick_the_same_first_unit_class(tmp_path):
    """"First unit class" was the class of a fund's first row in pandas (models.fund) and the first by name in the
    store's SQL (market.figures), so a fund listing class B before A had B's fee on its page and A's in the
    screener (issue 40). One rule: first by name."""
    import pandas as pd

    from dashboard.models.fund import first_class_rows, total_annual_fee

    def fee(cls, desc, value, seq):
        return {"proj_id": "P1", "seq": seq, "class_abbr_name": cls, "fee_type_desc": desc, "fee_type_en": None,
                "rate": None, "rate_num": value + 1, "rate_unit": "%", "actual_value": str(value),
                "actual_value_num": value, "actual_value_unit": "%"}

    management = "ค่าธรรมเนียมการจัดการ (Management Fee)"
    rows = [fee("B", management, 1.5, 1), fee("A", management, 0.75, 2)]  # the service lists B first
    store = MarketStore(tmp_path / "market.duckdb")
    store.swap("fees", {"fees": rows})
    sql_fee = store.query("SELECT total_fee_actual FROM fund_figures WHERE proj_id = 'P1'")[0]["total_fee_actual"]
    frame = pd.DataFrame(rows)
    assert set(first_class_rows(frame)["class_abbr_name"]) == {"A"}
    assert total_annual_fee(frame) == sql_fee == 0.75
    store.close()

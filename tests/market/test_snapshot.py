"""The published snapshot: readers in other processes never blocked by a writer, datasets seen whole,
a shared snapshot directory, the sync's progress file, and only the product's own files touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from dashboard.config import ApiSettings
from dashboard.errors import BadInputError
from dashboard.market import queries as Q
from dashboard.market import holdings as H
from dashboard.market import status as S
from dashboard.market.snapshot import MANIFEST, MARKET_DIR_ENV, PROGRESS, SnapshotError
from dashboard.market.store import MarketStore, open_reader
from dashboard.market.storefile import snapshot_dir

ROOT = Path(__file__).resolve().parents[2]


def funds(n: int, status: str) -> dict[str, list[dict]]:
    """A funds dataset of n funds (and one class each) whose every fund has `status`."""
    rows = [{"proj_id": f"M{i:04d}_2560", "proj_abbr_name": f"F{i}", "fund_status": status} for i in range(n)]
    return {"funds": rows, "classes": [{"proj_id": r["proj_id"], "class_abbr_name": "A"} for r in rows]}


READER = """
import json, sys, time
import duckdb
from dashboard.market.store import open_reader

db, deadline = sys.argv[1], time.time() + float(sys.argv[2])
try:
    duckdb.connect(db, read_only=True).close()
    blocked = False
except duckdb.Error:
    blocked = True  # the writer holds the file: the old way of reading fails here
seen, queries = set(), 0
with open_reader(path=db) as store:
    while time.time() < deadline and len(seen) < 2 or queries < 50:
        row = store.query("SELECT (SELECT count(*) FROM funds) AS funds, (SELECT count(*) FROM classes) AS classes, "
                          "(SELECT string_agg(DISTINCT fund_status, ',') FROM funds) AS status")[0]
        seen.add((row["funds"], row["classes"], row["status"]))
        queries += 1
print(json.dumps({"blocked": blocked, "seen": sorted(seen), "queries": queries}))
"""


def test_a_reader_in_another_process_is_never_blocked_and_sees_each_dataset_whole(tmp_path):
    path = tmp_path / "market.duckdb"
    writer = MarketStore(path)  # holds the DuckDB file for the whole test, as a running sync does
    writer.swap("funds", funds(300, "RG"), extra_meta=("classes",))
    child = subprocess.Popen([sys.executable, "-c", READER, str(path), "20"], stdout=subprocess.PIPE, text=True,
                             cwd=ROOT)
    swaps = 0
    try:
        while child.poll() is None:
            old = swaps % 2
            writer.swap("funds", funds(300, "RG") if old else funds(700, "SE"), extra_meta=("classes",))
            swaps += 1
            # a dataset being fetched is staged; the snapshot keeps the one before it
            writer.begin("fees", "successor")
            writer.stage_page("fees", str(swaps), [{"proj_id": "M9999_2560"}], cursor="next", calls=1)
        answer = json.loads(child.stdout.read())
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=30)
        child.stdout.close()
    assert answer["blocked"], "the writer should hold the store file"
    assert {tuple(s) for s in answer["seen"]} == {(300, 300, "RG"), (700, 700, "SE")}, answer
    assert swaps > 2
    # the command line reads the snapshot too, while the writer still holds the file
    done = subprocess.run([sys.executable, "-c", "import sys; from dashboard.cli.market import main; "
                           "sys.exit(main(sys.argv[1:]))", "market", "status", "--store", str(path), "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["funds"] == writer.count("funds")
    writer.close()


def test_a_reader_follows_each_publish_and_is_empty_before_the_first(tmp_path):
    path = tmp_path / "market.duckdb"
    reader = open_reader(path=path)  # before any store exists: empty, not an error
    assert not reader.has_snapshot() and reader.count("funds") == 0 and Q.screen(reader) == []
    assert S.snapshot_state(reader)["has_snapshot"] is False
    writer = MarketStore(path)
    assert not reader.has_snapshot()  # an empty store publishes empty tables: still nothing to read
    writer.swap("funds", funds(5, "RG"), extra_meta=("classes",))
    assert reader.has_snapshot() and reader.count("funds") == 5
    assert reader.fund("M0003_2560")["proj_abbr_name"] == "F3" and reader.resolve("f3") == "M0003_2560"
    writer.swap("funds", funds(8, "RG"), extra_meta=("classes",))
    assert reader.count("funds") == 8 and reader.meta()["funds"]["rows"] == 8
    writer.swap("holdings", {"holdings": [{"proj_id": "M0001_2560", "period": "202606", "issue_code": "PTT",
                                           "percent_nav": 5.0}]}, where={"period": "202606"})
    writer.swap("holdings", {"holdings": [{"proj_id": "M0002_2560", "period": "202603", "issue_code": "PTT",
                                           "percent_nav": 4.0}]}, where={"period": "202603"})
    assert H.periods(reader) == ["202606", "202603"]  # one file per quarter, read as one table
    assert [r["proj_id"] for r in H.holders(reader, "ptt", "202603")] == ["M0002_2560"]
    with pytest.raises(Exception, match="reader"):
        reader.swap("funds", funds(1, "RG"))
    reader.close()
    writer.close()


def test_old_generations_are_collected_and_only_the_products_files(tmp_path):
    path = tmp_path / "market.duckdb"
    writer = MarketStore(path)
    snap = writer.snapshot_dir
    foreign = snap / "funds.1.parquet"  # named like a part, but not the product's
    duckdb.execute(f"COPY (SELECT 42 AS answer) TO '{foreign}' (FORMAT parquet)")
    notes = snap / "notes.txt"
    notes.write_text("mine")
    for n in range(12):
        writer.swap("funds", funds(n + 1, "RG"), extra_meta=("classes",))
    names = sorted(p.name for p in snap.iterdir())
    assert len([n for n in names if n.startswith("funds.")]) <= 4, names  # the current one and a few before
    assert foreign.exists() and notes.read_text() == "mine"
    assert not [n for n in names if ".tmp-" in n]
    writer.close()


def test_export_is_a_snapshot_and_never_replaces_a_file_it_did_not_write(tmp_path):
    path = tmp_path / "market.duckdb"
    writer = MarketStore(path)
    writer.swap("funds", funds(7, "RG"), extra_meta=("classes",))
    reader = open_reader(path=path)
    written = reader.export(tmp_path / "shared")  # from the published snapshot, while the writer holds the file
    assert {p.name for p in written} >= {"funds.parquet", "classes.parquet", "holdings.parquet", "meta.parquet"}
    with open_reader(path=tmp_path / "shared") as shared:
        assert shared.count("funds") == 7 and shared.meta()["funds"]["complete"]
    other = tmp_path / "theirs"
    other.mkdir()
    (other / "funds.parquet").write_bytes(b"their data")
    with pytest.raises(SnapshotError, match="left alone"):
        reader.export(other)
    assert (other / "funds.parquet").read_bytes() == b"their data"
    assert sorted(p.name for p in other.iterdir()) == ["funds.parquet"]  # nothing written beside it either
    with pytest.raises(BadInputError, match="publishes"):
        reader.export(writer.snapshot_dir)
    from dashboard.cli.market import main
    assert main(["market", "export", "--store", str(path), str(other)]) == 2  # one error line, nothing replaced
    assert (other / "funds.parquet").read_bytes() == b"their data"
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / MANIFEST).write_text('{"their": "manifest"}')
    with pytest.raises(SnapshotError, match="left alone"):
        writer.export(tmp_path / "odd")
    reader.close()
    writer.close()


def test_a_shared_snapshot_directory_from_the_environment(tmp_path, monkeypatch):
    shared = tmp_path / "team" / "market"
    monkeypatch.setenv(MARKET_DIR_ENV, str(shared))
    settings = ApiSettings.from_env(cache_dir=tmp_path / "cache", base_url="https://api.sec.or.th", api_key="0" * 32,
                                    environ={})
    assert snapshot_dir(settings) == shared
    with MarketStore(settings=settings) as writer:  # the one machine that syncs publishes to the shared place
        writer.swap("funds", funds(4, "RG"), extra_meta=("classes",))
    assert (shared / MANIFEST).exists() and (tmp_path / "cache" / "market.duckdb").exists()
    with open_reader(settings) as reader:  # every other dashboard reads it
        assert reader.count("funds") == 4
    demo = ApiSettings.from_env(cache_dir=tmp_path / "cache", demo=True, environ={})
    assert snapshot_dir(demo) == tmp_path / "cache" / "market-demo-snapshot"  # never mixed with the demo market


def test_a_lost_snapshot_is_published_again_when_the_writer_opens(tmp_path):
    path = tmp_path / "market.duckdb"
    with MarketStore(path) as writer:
        writer.swap("funds", funds(3, "RG"), extra_meta=("classes",))
        snap = writer.snapshot_dir
    (snap / MANIFEST).unlink()
    MarketStore(path).close()
    with open_reader(path=path) as reader:
        assert reader.count("funds") == 3


def test_sync_progress_is_seen_from_the_snapshot_while_a_sync_runs(market_factory, tmp_path):
    market = market_factory("successor")
    store = MarketStore(tmp_path / "market.duckdb")
    reader = open_reader(path=tmp_path / "market.duckdb")
    seen = []

    def progress(p):
        state = S.snapshot_state(reader)
        if state["sync"] is not None:
            seen.append(state["sync"])

    result = market.sync(store, only="fees,risk,holdings", progress=progress)
    assert seen, "the progress file should say a sync runs"
    total = 3  # fees, risk and holdings (its two quarters one dataset, as `market status` lists it: issue 39)
    assert {s["total"] for s in seen} == {total}
    assert all(0 <= s["done"] <= total and s["running"] for s in seen)
    assert max(s["done"] for s in seen) >= 1 and any(s["dataset"] for s in seen)
    assert S.snapshot_state(reader)["sync"] is None  # finished
    data = json.loads((store.snapshot_dir / PROGRESS).read_text())
    assert data["running"] is False and data["done"] == total and data["complete"] is result.complete
    # a sync that was killed leaves its file saying "running": its process is gone, so it is not believed
    store.write_progress(running=True, done=1, total=4, dataset="fees")
    data = json.loads((store.snapshot_dir / PROGRESS).read_text())
    data["pid"] = _dead_pid()
    (store.snapshot_dir / PROGRESS).write_text(json.dumps(data))
    assert S.snapshot_state(reader)["sync"] is None
    data["updated_at"] = time.time() - 3600
    data["pid"] = os.getpid()
    (store.snapshot_dir / PROGRESS).write_text(json.dumps(data))
    assert S.snapshot_state(reader)["sync"] is None  # silent for an hour
    reader.close()
    store.close()


def test_readers_in_threads_while_the_writer_swaps(tmp_path):
    path = tmp_path / "market.duckdb"
    writer = MarketStore(path)
    writer.swap("funds", funds(100, "RG"), extra_meta=("classes",))
    reader = open_reader(path=path)
    seen: set = set()
    errors: list = []
    stop = threading.Event()

    def read():
        try:
            while not stop.is_set():
                row = reader.query("SELECT (SELECT count(*) FROM funds) AS f, (SELECT count(*) FROM classes) AS c")[0]
                seen.add((row["f"], row["c"]))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for n in range(20):
            writer.swap("funds", funds(250 if n % 2 == 0 else 100, "RG"), extra_meta=("classes",))
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors and seen <= {(100, 100), (250, 250)}, (errors, seen)
    reader.close()
    writer.close()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid

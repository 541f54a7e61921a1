"""A damaged, foreign, busy or read-only store: each is told apart by what it is (DuckDB's exception type,
the operating system's lock and permissions, the schema version), never by the words of a message."""

from __future__ import annotations

import errno
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import duckdb
import pytest

from dashboard.cli.market import main as market_main
from dashboard.market.store import MarketStore
from dashboard.market.storefile import StoreBusyError
from dashboard.market.tables import SCHEMA_VERSION

REPO = Path(__file__).resolve().parents[2]


def _filled(path: Path) -> None:
    with MarketStore(path) as store:
        store.swap("funds", {"funds": [{"proj_id": f"M{n:04d}_2560", "proj_abbr_name": f"F{n}"} for n in range(3000)]})


def _rebuilt_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "was rebuilt" in r.getMessage()]


def test_random_bytes_inside_the_store_are_damage_not_a_busy_store(tmp_path, caplog):
    path = tmp_path / "market.duckdb"
    _filled(path)
    with open(path, "r+b") as f:  # DuckDB's checksum error names a "block": it was taken for a lock before
        f.seek(8192)
        f.write(os.urandom(256 * 1024))
    damaged = path.read_bytes()
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        store = MarketStore(path)
    with store:
        assert store.moved_aside is not None and store.moved_aside.read_bytes() == damaged
        assert store.count("funds") == 0
    assert len(_rebuilt_lines(caplog)) == 1 and not raised  # one line, no raw Python warning besides


def test_a_store_held_by_a_writer_in_another_process_is_busy_and_left_alone(tmp_path):
    path = tmp_path / "market.duckdb"
    _filled(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('open', flush=True); time.sleep(60)", str(path)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"open"
        with pytest.raises(StoreBusyError, match="in use by another process"):
            MarketStore(path)
    finally:
        holder.kill()
        holder.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing moved aside, nothing started anew


@pytest.mark.parametrize("version", ["0", str(SCHEMA_VERSION + 1), None])
def test_a_store_of_another_schema_version_is_rebuilt_with_one_line_saying_so(tmp_path, caplog, version):
    path = tmp_path / "market.duckdb"
    _filled(path)
    con = duckdb.connect(str(path))
    if version is None:
        con.execute("DELETE FROM info WHERE name = 'schema_version'")
    else:
        con.execute("UPDATE info SET value = ? WHERE name = 'schema_version'", [version])
    con.close()
    with MarketStore(path) as store:
        assert store.moved_aside is not None
        assert store.count("funds") == 0 and store.info("schema_version") == str(SCHEMA_VERSION)
    [line] = _rebuilt_lines(caplog)
    assert f"store schema {version or 'unknown'}, this version's is {SCHEMA_VERSION}" in line


def test_a_store_whose_columns_are_not_this_versions_is_rebuilt(tmp_path, caplog):
    path = tmp_path / "market.duckdb"
    _filled(path)
    con = duckdb.connect(str(path))  # same version number, two columns swapped: the screener found nothing
    con.execute("ALTER TABLE funds RENAME COLUMN proj_name_en TO swap_tmp")
    con.execute("ALTER TABLE funds RENAME COLUMN proj_name_th TO proj_name_en")
    con.execute("ALTER TABLE funds RENAME COLUMN swap_tmp TO proj_name_th")
    con.close()
    with MarketStore(path) as store:
        assert store.moved_aside is not None
    [line] = _rebuilt_lines(caplog)
    assert "funds table is not this version's" in line


def test_the_store_written_by_this_version_opens_as_it_is(tmp_path, caplog):
    path = tmp_path / "market.duckdb"
    _filled(path)
    with MarketStore(path) as store:
        assert store.moved_aside is None and store.count("funds") == 3000
    assert not _rebuilt_lines(caplog)


def test_sync_into_a_new_cache_directory_makes_it_private(tmp_path):
    cache = tmp_path / "new" / "cache"
    code = market_main(["market", "sync", "--demo", "--cache-dir", str(cache), "--only", "companies", "--json"])
    assert code == 0
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700


def test_a_rebuild_is_one_line_on_the_command_line(tmp_path, capfd):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / "market-demo.duckdb").write_bytes(b"not a database" * 500)
    code = subprocess.run([sys.executable, "-m", "dashboard", "market", "sync", "--demo", "--cache-dir", str(cache),
                           "--only", "companies", "--json"], cwd=REPO, capture_output=True, text=True)
    assert code.returncode == 0, code.stderr
    lines = [line for line in code.stderr.splitlines() if "rebuilt" in line or "Warning" in line]
    assert len(lines) == 1 and "moved to market-demo.duckdb.corrupt-" in lines[0]


def _unprivileged() -> list[str]:
    """A command prefix that runs as a user whom file permissions bind (root is not bound by them)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only file cannot be made")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


def _contents(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() if p.is_file() else b"" for p in directory.rglob("*")}


@pytest.fixture
def open_tmp():
    """A temporary directory any user can enter (pytest's own is private to its user)."""
    path = Path(tempfile.mkdtemp(prefix="sec-readonly-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_read_only_store_is_refused_with_exit_2_and_nothing_is_touched(open_tmp):
    prefix = _unprivileged()
    tmp_path = open_tmp
    cache = tmp_path / "cache"
    cache.mkdir()
    _filled(cache / "market-demo.duckdb")
    os.chmod(cache / "market-demo.duckdb", 0o444)
    os.chmod(cache, 0o555)
    before = _contents(cache)
    try:
        done = subprocess.run([*prefix, sys.executable, "-m", "dashboard", "market", "sync", "--demo", "--cache-dir",
                               str(cache), "--only", "companies"], cwd=REPO, capture_output=True, text=True,
                              env={**os.environ, "HOME": str(tmp_path)})
        after = _contents(cache)
    finally:
        os.chmod(cache, 0o755)
    assert done.returncode == 2, done.stderr
    assert after == before  # not moved aside, no new store, no write-ahead log
    assert "cannot be written" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_full_disk_during_sync_names_the_cause_the_place_and_what_to_do(tmp_path):
    """Issue 39: a full disk ended the sync with "TransactionException: ... cannot rollback - no transaction
    is active", DuckDB's failed rollback hiding its failed write. The disk here is really full for the store:
    its write-ahead log is /dev/full, where every write fails with the kernel's ENOSPC."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    cache = tmp_path / "cache"
    assert market_main(["market", "sync", "--demo", "--cache-dir", str(cache), "--only", "companies", "--json"]) == 0
    store = cache / "market-demo.duckdb"
    assert store.exists() and not Path(f"{store}.wal").exists()
    os.symlink("/dev/full", f"{store}.wal")
    done = subprocess.run([sys.executable, "-m", "dashboard", "market", "sync", "--demo", "--cache-dir", str(cache),
                           "--only", "funds,fees"], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "TransactionException" not in done.stderr
    assert "rollback" not in done.stderr
    said = done.stderr.strip().splitlines()[-1]
    assert "no space left" in said.lower() and str(cache) in said
    assert "free some space" in said.lower() and "market sync" in said


def test_a_write_refused_for_want_of_room_is_the_error_raised_not_the_failed_rollback(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    path = tmp_path / "market.duckdb"
    _filled(path)
    os.symlink("/dev/full", f"{path}.wal")
    with MarketStore(path) as store:
        with pytest.raises(duckdb.Error, match=os.strerror(errno.ENOSPC)):
            store.swap("funds", {"funds": [{"proj_id": "M0001_2560", "proj_abbr_name": "F1"}]})
    os.unlink(f"{path}.wal")  # room again: nothing half-written was kept, and the store goes on
    with MarketStore(path) as store:
        assert store.count("funds") == 3000
        store.swap("funds", {"funds": [{"proj_id": "M0001_2560", "proj_abbr_name": "F1"}]})
        assert store.count("funds") == 1

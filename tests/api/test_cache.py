import logging
import os
import stat

from dashboard.api.cache import ResponseCache, damaged


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


def test_fresh_then_expired_but_still_available(tmp_path):
    clock = Clock()
    cache = ResponseCache(tmp_path / "c", clock=clock)
    cache.set("k", [{"a": "ก"}], ttl=60)
    hit = cache.get("k")
    assert hit.fresh and hit.data == [{"a": "ก"}]
    clock.now += 61
    stale = cache.get("k")
    assert stale is not None and not stale.fresh and stale.data == [{"a": "ก"}]
    assert cache.info()["stale"] == 1


def test_no_data_is_cached_as_none(tmp_path):
    cache = ResponseCache(tmp_path / "c")
    cache.set("empty", None, ttl=60)
    assert cache.get("empty").data is None and cache.get("missing") is None


def test_directory_is_private(tmp_path):
    cache = ResponseCache(tmp_path / "private")
    assert stat.S_IMODE(os.stat(cache.directory).st_mode) == 0o700


def test_entries_are_json_not_pickles(tmp_path):
    cache = ResponseCache(tmp_path / "c")
    cache.set("k", {"x": 1}, ttl=60)
    cache.close()
    import sqlite3

    con = sqlite3.connect(tmp_path / "c" / "cache.db")
    modes = {row[0] for row in con.execute("select mode from Cache")}
    con.close()
    # diskcache modes: 1 raw, 2 binary, 3 text, 4 pickle; JSONDisk stores raw/binary bytes
    assert 4 not in modes


def test_corrupted_cache_is_rebuilt_with_a_warning(tmp_path, caplog):
    directory = tmp_path / "c"
    cache = ResponseCache(directory)
    cache.set("k", [1], ttl=60)
    cache.close()
    (directory / "cache.db").write_bytes(b"this is not a sqlite database" * 100)
    with caplog.at_level(logging.WARNING, logger="dashboard.cache"):
        rebuilt = ResponseCache(directory)
    assert "rebuilding" in caplog.text
    assert rebuilt.get("k") is None
    rebuilt.set("k", [2], ttl=60)
    assert rebuilt.get("k").data == [2]


def test_clear(tmp_path):
    cache = ResponseCache(tmp_path / "c")
    cache.set("a", 1, ttl=60)
    cache.set("b", 2, ttl=60)
    assert cache.clear() == 2 and cache.info()["entries"] == 0


# ---- the user's own files and directories --------------------------------------------------------

import json as _json  # noqa: E402
import sqlite3 as _sqlite3  # noqa: E402

import diskcache  # noqa: E402
import pytest  # noqa: E402

from dashboard.errors import CacheUnavailableError  # noqa: E402


def _incompressible(n: int) -> str:
    return os.urandom(n).hex()  # stored by diskcache as a separate .val file


def test_repairing_a_corrupted_database_deletes_only_the_cache_s_own_files(tmp_path, caplog):
    shared = tmp_path / "my-folder"
    (shared / "ab").mkdir(parents=True)
    (shared / "notes.txt").write_text("mine")
    (shared / "ab" / "photo.jpg").write_bytes(b"mine too")
    (shared / "cache.db.bak").write_text("also mine")
    cache = ResponseCache(shared)
    cache.set("big", _incompressible(100_000), ttl=60)
    cache.close()
    value_files = list(shared.rglob("*.val"))
    assert value_files
    (shared / "cache.db").write_bytes(b"this is not a sqlite database" * 100)
    with caplog.at_level(logging.WARNING, logger="dashboard.cache"):
        rebuilt = ResponseCache(shared)
    assert "rebuilding" in caplog.text and rebuilt.get("big") is None
    assert (shared / "notes.txt").read_text() == "mine"
    assert (shared / "ab" / "photo.jpg").read_bytes() == b"mine too"
    assert (shared / "cache.db.bak").read_text() == "also mine"
    assert not any(path.exists() for path in value_files)  # what the cache wrote is gone


def test_an_existing_directory_keeps_its_mode_and_one_warning_says_it_is_readable(tmp_path, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    with caplog.at_level(logging.WARNING, logger="dashboard.cache"):
        ResponseCache(shared).close()
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o755
    assert len(caplog.records) == 1 and "readable by other users" in caplog.text
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="dashboard.cache"):
        ResponseCache(private).close()
    assert caplog.records == []


def _a_file(tmp_path):
    path = tmp_path / "a-file"
    path.write_text("not a directory")
    return path


@pytest.mark.parametrize("where", [
    pytest.param(lambda tmp: _a_file(tmp), id="a-regular-file"),
    pytest.param(lambda tmp: _a_file(tmp) / "cache", id="under-a-file"),
    pytest.param(lambda tmp: __import__("pathlib").Path("/proc/sec-dashboard-cache"), id="in-a-pseudo-file-system"),
    pytest.param(lambda tmp: __import__("pathlib").Path("/proc/self"), id="a-pseudo-file-system-directory"),
])
def test_an_unusable_directory_is_one_clear_error(where, tmp_path):
    directory = where(tmp_path)
    before = directory.read_text() if directory.is_file() else None
    with pytest.raises(CacheUnavailableError) as err:
        ResponseCache(directory)
    message = str(err.value)
    assert err.value.exit_code == 2 and "\n" not in message
    assert str(directory) in message and "--no-cache" in message
    if before is not None:
        assert directory.read_text() == before  # the user's file is untouched


def test_a_directory_another_process_makes_meanwhile_is_shared_not_refused(tmp_path, monkeypatch):
    """Two server processes starting on a fresh cache directory: one looked (no directory), the other made it,
    and the first one's mkdir then failed ("file exists"). It went on without the disk cache, and so without the
    rate limit the processes share through it (seen once under load in tests/scaleout)."""
    directory = tmp_path / "cache"
    first = ResponseCache(directory)  # the other process's
    first.set("shared", {"a": 1}, ttl=60)
    real = os.path.lexists
    looked = []

    def looked_before_it_was_made(path):
        if str(path) == str(directory) and not looked:
            looked.append(path)
            return False  # this process's look came before the other's mkdir
        return real(path)

    monkeypatch.setattr(os.path, "lexists", looked_before_it_was_made)
    second = ResponseCache(directory)
    assert looked and second.get("shared").data == {"a": 1}
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not bind root")
def test_a_directory_without_write_permission_is_one_clear_error(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(CacheUnavailableError, match="readable and writable"):
        ResponseCache(locked)


# ---- damaged entries -----------------------------------------------------------------------------


def _raw(directory) -> diskcache.Cache:
    """The cache's files opened directly, as another program (or a disk fault) would change them."""
    return diskcache.Cache(str(directory), disk=diskcache.JSONDisk)


@pytest.mark.parametrize("damage", ["not-zlib", "timestamp", "value-file"])
def test_a_damaged_entry_is_dropped_with_a_warning(damage, tmp_path, caplog):
    directory = tmp_path / "c"
    cache = ResponseCache(directory)
    cache.set("k", _incompressible(50_000) if damage == "value-file" else [1, 2], ttl=60)
    cache.set("other", [3], ttl=60)
    cache.close()
    if damage == "not-zlib":
        con = _sqlite3.connect(directory / "cache.db")
        # keys are compressed too; "k" is the first row written
        con.execute("update Cache set value = ? where rowid = (select min(rowid) from Cache)", (b"\x00garbage",))
        con.commit()
        con.close()
    elif damage == "timestamp":
        raw = _raw(directory)
        raw.set("k", {"data": [1, 2], "stored_at": "yesterday", "ttl": 60})
        raw.close()
    else:
        (value_file,) = directory.rglob("*.val")
        value_file.write_bytes(b"broken")
    reopened = ResponseCache(directory)
    with caplog.at_level(logging.WARNING, logger="dashboard.cache"):
        assert reopened.get("k") is None
    assert "dropped" in caplog.text and len(caplog.records) == 1
    assert reopened.get("other").data == [3]  # the rest of the cache is kept
    assert reopened.info()["entries"] == 1
    reopened.set("k", [4], ttl=60)
    assert reopened.get("k").data == [4]


def test_the_client_fetches_a_damaged_entry_again(make_client, simulator, tmp_path, caplog):
    directory = tmp_path / "damaged"
    first = make_client(cache_dir=directory)
    good = first.fetch("E16")
    first.close()
    raw = _raw(directory)
    for key in list(raw.iterkeys()):
        entry = raw.get(key)
        raw.set(key, dict(entry, stored_at="not a time"))
    raw.close()
    simulator.app.reset_counters()
    with caplog.at_level(logging.WARNING):
        again = make_client(cache_dir=directory).fetch("E16")
    assert again == good and simulator.app.request_count == 1
    assert "dropped" in caplog.text


def test_the_client_runs_without_an_unusable_cache_with_one_warning(make_client, simulator, tmp_path, caplog):
    with caplog.at_level(logging.WARNING):
        client = make_client(cache_dir=_a_file(tmp_path))
        assert client.cache is None
        assert client.fetch("E16") and client.fetch("E16")
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "without the disk cache" in warnings[0].getMessage()
    assert simulator.app.request_count == 1  # the memory cache still answers the second call
    assert _json.dumps(client.known_fund("M0001_2560")) == "null"


def test_many_damaged_entries_are_one_warning_line(make_client, simulator, tmp_path, caplog):
    directory = tmp_path / "many-damaged"
    cache = ResponseCache(directory)
    cache.set_many([(f"k{n}", [n]) for n in range(60)], ttl=60)
    cache.close()
    raw = _raw(directory)
    for key in list(raw.iterkeys()):
        raw.set(key, dict(raw.get(key), stored_at="not a time"))
    raw.close()
    first = make_client(cache_dir=directory)
    first.fetch("E16")
    first.close()
    raw = _raw(directory)
    for key in list(raw.iterkeys()):  # the client's own answer too: its records no longer read
        if not key.startswith("k"):
            raw.set(key, dict(raw.get(key), data={"not": "records"}))
    raw.close()
    reopened = ResponseCache(directory)
    with caplog.at_level(logging.WARNING):
        assert all(reopened.get(f"k{n}") is None for n in range(60))
        make_client(cache_dir=directory).fetch("E16")
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "could not be read" in r.getMessage()]
    assert len(lines) == 1 and str(directory) in lines[0]
    assert damaged.count(directory) == 61

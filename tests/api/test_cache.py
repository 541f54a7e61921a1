import logging
import os
import stat

from dashboard.api.cache import ResponseCache


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

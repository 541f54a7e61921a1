"""Redis is validated like any other service: a wrong reply is a Redis fault (one warning, the fallback),
the fallback never lets a host pass the limit, and the shared limits file is repaired but never someone else's."""

from __future__ import annotations

import logging
import socket
import sqlite3

import pytest

from dashboard.api.cache import ResponseCache
from dashboard.api.ratelimit import APPLICATION_ID, LIMITS_FILE, FileRateLimiter, key_ident
from dashboard.api.redis_store import RedisLink, RedisRateLimiter, RedisResponseCache
from tests.scaleout.fake_redis import FakeRedis

WRONG_REPLIES = {"+OK to everything": b"+OK\r\n", "RESP3 null": b"_\r\n", ":0": b":0\r\n", ":-5": b":-5\r\n",
                 "text -5": b"$2\r\n-5\r\n", "an error": b"-ERR unknown command\r\n"}


def _warnings(caplog, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger and r.levelno == logging.WARNING]


@pytest.mark.parametrize("greet", [True, False], ids=["greeting answered", "greeting wrong too"])
@pytest.mark.parametrize("reply", list(WRONG_REPLIES.values()), ids=list(WRONG_REPLIES))
def test_a_wrong_reply_is_one_warning_and_the_fallback_keeps_the_limit(reply, greet, caplog):
    with FakeRedis(reply, greet=greet) as fake, caplog.at_level(logging.WARNING):
        limiter = RedisRateLimiter(RedisLink(fake.url), key_ident("fault"), 3, 2.0)
        taken = [limiter._reserve_slot(ahead=False) for _ in range(21)]
        reached = list(fake.commands)
    assert reached  # it did speak to the fake Redis
    # 3 per 2 s: `:0` let all 21 through before, `:-5` never let one through (a command ran for ever)
    assert sum(slot is not None for _wait, slot in taken) == 3
    assert all(0 <= wait <= 2.5 for wait, slot in taken if slot is None)
    [warning] = _warnings(caplog, "dashboard.redis")
    assert "Redis at redis://127.0.0.1:" in warning and "cannot be used" in warning


@pytest.mark.parametrize("reply", list(WRONG_REPLIES.values()), ids=list(WRONG_REPLIES))
def test_a_cache_in_a_redis_that_answers_wrongly_goes_on_on_the_disk(reply, tmp_path, caplog):
    disk = ResponseCache(tmp_path / "disk")
    with FakeRedis(reply) as fake, caplog.at_level(logging.WARNING):
        cache = RedisResponseCache(RedisLink(fake.url, retry_after_s=60), fallback=disk)
        cache.set("v1|a", {"rows": [1]}, ttl=60)
        got = cache.get("v1|a")
    if reply == b"+OK\r\n":
        # "OK" reads as a stored value, which no entry of this program can be: dropped, never answered
        assert got is None
    else:
        assert got is not None and got.data == {"rows": [1]}  # from the disk, where the fallback kept it
    assert len(_warnings(caplog, "dashboard.redis") + _warnings(caplog, "dashboard.cache")) == 1


def _refusing_redis() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"redis://127.0.0.1:{sock.getsockname()[1]}/0"


def test_with_redis_down_twelve_processes_never_pass_ten_calls_between_them(tmp_path, caplog):
    """10 calls per 5 s over 12 processes: each process's own share could not stop all twelve calling at
    once; the host's shared file holds the whole limit."""
    url = _refusing_redis()
    ident = key_ident("twelve")
    processes = [RedisRateLimiter(RedisLink(url), ident, 10, 5.0, num_procs=12, directory=tmp_path)
                 for _ in range(12)]
    taken = 0
    for _round in range(3):
        for limiter in processes:
            _wait, slot = limiter._reserve_slot(ahead=False)
            taken += slot is not None
    assert taken == 10


def test_a_damaged_limits_file_is_made_again_and_still_shared(tmp_path, caplog):
    (tmp_path / LIMITS_FILE).write_bytes(b"this is not a database, it was damaged" * 100)
    ident = key_ident("damaged")
    a = FileRateLimiter(tmp_path, ident, 3, 10.0)
    b = FileRateLimiter(tmp_path, ident, 3, 10.0)
    with caplog.at_level(logging.WARNING):
        taken = [x._reserve_slot(ahead=False)[1] is not None for x in (a, b, a, b, a)]
    assert taken == [True, True, True, False, False]  # shared through the file, not each process alone
    assert a.fallback is None and b.fallback is None
    con = sqlite3.connect(tmp_path / LIMITS_FILE)
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()
    assert len([w for w in _warnings(caplog, "dashboard.ratelimit") if "made again" in w]) == 1


def _someone_elses_database(path) -> bytes:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (text TEXT)")
    con.execute("INSERT INTO notes VALUES ('mine')")
    con.commit()
    con.close()
    return path.read_bytes()


@pytest.mark.parametrize("how", ["a link to it", "in its place"])
def test_a_limits_file_the_program_did_not_make_is_never_written(tmp_path, caplog, how):
    cache = tmp_path / "cache"
    cache.mkdir()
    other = tmp_path / "other.db" if how == "a link to it" else cache / LIMITS_FILE
    before = _someone_elses_database(other)
    if how == "a link to it":
        (cache / LIMITS_FILE).symlink_to(other)
    limiter = FileRateLimiter(cache, key_ident("not-ours"), 3, 10.0)
    with caplog.at_level(logging.WARNING):
        taken = [limiter._reserve_slot(ahead=False)[1] is not None for _ in range(4)]
    assert taken == [True, True, True, False]  # this process's share, in memory
    assert other.read_bytes() == before  # no new table, no WAL mode
    assert not any(p.name.endswith(("-wal", "-shm")) for p in other.parent.iterdir())
    [warning] = [w for w in _warnings(caplog, "dashboard.ratelimit")]
    assert "cannot be used" in warning

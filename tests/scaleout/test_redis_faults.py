"""Redis is validated like any other service: a wrong reply is a Redis fault (one warning, the fallback),
the fallback never lets a host pass the limit, and the shared limits file is repaired but never someone else's."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard.api.cache import ResponseCache
from dashboard.api.limit_shares import TurnLimiter, share_limiter
from dashboard.api.ratelimit import APPLICATION_ID, LIMITS_FILE, FileRateLimiter, key_ident, safety_margin
from dashboard.api.redis_store import RedisLink, RedisRateLimiter, RedisResponseCache
from tests.helpers import free_port
from tests.scaleout.conftest import max_in_window
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


@pytest.mark.parametrize("reply", [b"+OK\r\n", b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n"],
                         ids=["+OK to everything", "an HTTP answer"])
def test_a_redis_that_answers_wrongly_is_one_warning_for_the_cache_and_the_limit_together(reply, tmp_path, caplog):
    """Issue 39: `+OK` read back as a cached value was told as a damaged entry (dashboard.cache), then the
    limiter's wrong reply as Redis unusable (dashboard.redis): two lines for one fault, as a client has them
    (its cache read first, then its call's reservation, on the process's one link)."""
    with FakeRedis(reply) as fake, caplog.at_level(logging.WARNING):
        link = RedisLink(fake.url, retry_after_s=60)
        cache = RedisResponseCache(link, fallback=ResponseCache(tmp_path / "disk"))
        limiter = RedisRateLimiter(link, key_ident("one-line"), 3, 2.0)
        got = [cache.get(f"v1|{n}") for n in range(3)]
        taken = [limiter._reserve_slot(ahead=False)[1] is not None for _ in range(5)]
    assert got == [None, None, None] and taken == [True, True, True, False, False]
    said = _warnings(caplog, "dashboard.redis") + _warnings(caplog, "dashboard.cache")
    assert len(said) == 1 and "cannot be used" in said[0], said


def _refusing_redis() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"


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


class WallClock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("how", ["Redis down", "no shared store"])
def test_with_nothing_shared_twelve_processes_never_pass_ten_calls_between_them(monkeypatch, caplog, how):
    """10 calls per 5 s over 12 processes, Redis down and no cache directory: each process's share (1 call
    per 10 s) let all twelve call at the same moment. With each process's place (SEC_DASHBOARD_PROC_INDEX,
    set by `serve` in the processes it forks) they take turns on the wall clock: never more than 10 in a
    period, every process calling. Twelve limiters sharing nothing, on one pinned clock, each trying
    every 10 ms for a minute."""
    url = _refusing_redis()
    clock = WallClock(1_800_000_000.0)
    processes = []
    for index in range(12):
        monkeypatch.setenv("SEC_DASHBOARD_PROC_INDEX", str(index))
        if how == "Redis down":
            limiter = RedisRateLimiter(RedisLink(url, retry_after_s=600), key_ident("twelve-alone"), 10, 5.0,
                                       num_procs=12, margin=safety_margin(5.0))
            limiter.fallback._clock = clock
        else:
            limiter = share_limiter(10, 5.0, 12, margin=safety_margin(5.0), clock=clock)
        processes.append(limiter)
    starts: dict[int, list[float]] = {index: [] for index in range(12)}
    end = clock.now + 60
    with caplog.at_level(logging.WARNING):
        while clock.now < end:
            for index, limiter in enumerate(processes):
                if limiter._reserve_slot(ahead=False)[1] is not None:
                    starts[index].append(clock.now)
            clock.now += 0.01
    every = [t for mine in starts.values() for t in mine]
    assert max_in_window(every, 5.0) <= 10
    # the limit is used, not starved: about 10 per 6.1 s (the period, the opening and a second for calls that
    # arrive late: test_taking_turns_holds_the_limit_...), each process about one in twelve of them
    assert len(every) >= 90
    assert all(len(mine) >= 8 for mine in starts.values()), {i: len(m) for i, m in starts.items()}


def test_taking_turns_holds_the_limit_when_calls_arrive_up_to_half_a_second_late(monkeypatch):
    """Issue 39: twelve real processes (Redis down, each told its place) had 11 calls arrive in a window of 10:
    a busy host delays some calls between their turn's start and the service. Turns leave room for that.
    Twelve limiters on one pinned clock, each trying every 10 ms for a minute; every third process's calls
    reach the service 0.5 s after they start, the rest at once."""
    clock = WallClock(1_800_000_000.0)
    processes = [share_limiter(10, 5.0, 12, margin=safety_margin(5.0), index=i, clock=clock) for i in range(12)]
    assert all(isinstance(p, TurnLimiter) for p in processes)
    arrivals: list[float] = []
    per_process = [0] * 12
    end = clock.now + 60
    while clock.now < end:
        for index, limiter in enumerate(processes):
            if limiter._reserve_slot(ahead=False)[1] is not None:
                arrivals.append(clock.now + (0.5 if index % 3 == 0 else 0.0))
                per_process[index] += 1
        clock.now += 0.01
    assert max_in_window(arrivals, 5.0) <= 10
    assert len(arrivals) >= 90 and min(per_process) >= 7, per_process  # the limit still used by every process


def test_a_process_place_outside_the_processes_is_ignored_with_a_warning(monkeypatch, caplog):
    monkeypatch.setenv("SEC_DASHBOARD_PROC_INDEX", "12")
    with caplog.at_level(logging.WARNING):
        limiter = share_limiter(10, 5.0, 12)
    assert not isinstance(limiter, TurnLimiter)
    assert any("SEC_DASHBOARD_PROC_INDEX='12' is not a whole number from 0 to 11" in m
               for m in _warnings(caplog, "dashboard.ratelimit"))


def test_a_damaged_limits_file_is_made_again_and_still_shared(tmp_path, caplog):
    (tmp_path / LIMITS_FILE).write_bytes(b"this is not a database, it was damaged" * 100)
    # damaged an hour ago: it can hold no start of the current window (one written within it is counted as
    # used when made again: test_a_limits_file_overwritten_with_garbage_...)
    os.utime(tmp_path / LIMITS_FILE, (time.time() - 3600, time.time() - 3600))
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


LIMITER_PROCESS = """
import json, os, sys, time
from dashboard.api.ratelimit import FileRateLimiter, key_ident
directory, go, until = sys.argv[1], sys.argv[2], float(sys.argv[3])
limiter = FileRateLimiter(directory, key_ident("overwritten"), 3, 2.0, margin=0.25)
starts = []

def take(end):
    while time.time() < end:
        if limiter._reserve_slot(ahead=False)[1] is not None:
            starts.append(time.time())
        time.sleep(0.01)

take(time.time() + 0.3)
print("waiting", flush=True)
while not os.path.exists(go):
    time.sleep(0.01)
take(until)
print(json.dumps({"starts": starts, "alone": limiter.fallback is not None}), flush=True)
"""


def test_a_limits_file_overwritten_with_garbage_under_running_processes_never_lets_the_limit_pass(tmp_path):
    """Issue 39: with the limits file (and its log) overwritten under running processes, the service saw 14
    calls in a window of 10: a process that made the file again started a fresh limit beside the calls just
    made, one that found it unreadable ('disk I/O error') went on alone at the whole limit, and the others
    kept counting in the removed file. 3 calls per 2 s, three processes, two of them mid-window."""
    go, until = tmp_path / "go", time.time() + 8
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def process():
        return subprocess.Popen([sys.executable, "-c", LIMITER_PROCESS, str(tmp_path), str(go), str(until)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    running = [process(), process()]
    assert [p.stdout.readline().strip() for p in running] == ["waiting", "waiting"]
    for suffix in ("", "-wal"):
        (tmp_path / f"{LIMITS_FILE}{suffix}").write_bytes(b"overwritten with garbage " * 400)
    late = process()
    assert late.stdout.readline().strip() == "waiting"
    go.touch()
    said = [(*p.communicate(timeout=30), p.returncode) for p in [*running, late]]
    assert all(code == 0 for _out, _err, code in said), said
    results = [json.loads(out.strip().splitlines()[-1]) for out, _err, _code in said]
    every = sorted(t for r in results for t in r["starts"])
    assert max_in_window(every, 2.0) <= 3, every
    assert not any(r["alone"] for r in results)  # still shared, through the file made again
    assert len(every) >= 6  # and still used: the limit passes again after the window it counted as used
    warnings = [line for _out, err, _code in said for line in err.splitlines() if "made again" in line]
    assert len(warnings) <= 1, warnings


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

"""Several client processes share one rate limit and one cache: through the cache directory on one host,
through Redis across hosts; Redis going away mid-run falls back with one warning, within each process's share."""

from __future__ import annotations

import time

import redis

from tests.scaleout.conftest import finish, max_in_window, start_workers

LIMIT, PERIOD = 20, 2.0
ENV = {"SEC_API_RATE_LIMIT": f"{LIMIT}/{PERIOD:g}"}
BURSTS = ("--concurrency", "10")


def assert_within_limit(arrivals, results, total):
    times = arrivals.times()
    assert len(times) == total, f"{len(times)} calls arrived, {total} expected"
    # a process that left the shared store (one warning) would go on alone at the whole limit
    assert all(not r["warnings"] for r in results), [r["warnings"] for r in results]
    assert arrivals.throttled == 0, f"the quota throttled {arrivals.throttled} calls"
    assert max_in_window(times, PERIOD) <= LIMIT
    assert all(not r["failures"] for r in results), [r["failures"] for r in results]
    # 60 calls at 20 per 2 s: the third batch could not start before two windows had passed
    assert times[-1] - times[0] >= 2 * PERIOD


def test_two_processes_share_the_limit_through_the_cache_directory(quota_server, arrivals, tmp_path):
    shared = tmp_path / "cache"
    # ten calls at a time, as a fund switch sends them
    workers = start_workers(quota_server.base_url, [("C1", shared, 30), ("C2", shared, 30)], ENV, extra=BURSTS)
    results = finish(workers)
    assert_within_limit(arrivals, results, 60)
    # both really ran side by side: each one's calls arrived in more than one window
    for prefix in ("/C1", "/C2"):
        mine = arrivals.times(prefix)
        assert len(mine) == 30 and mine[-1] - mine[0] > PERIOD
    assert (shared / "ratelimit.sqlite3").is_file()


def test_two_processes_share_the_limit_through_redis(quota_server, arrivals, tmp_path, redis_server):
    env = {**ENV, "SEC_DASHBOARD_REDIS_URL": redis_server.url}
    workers = start_workers(quota_server.base_url, [("C1", tmp_path / "a", 30), ("C2", tmp_path / "b", 30)], env,
                            extra=BURSTS)
    results = finish(workers)
    assert_within_limit(arrivals, results, 60)
    # the limiter's state is under a hash of the key, never the key
    client = redis.Redis.from_url(redis_server.url)
    names = [k.decode() for k in client.keys("*")]
    assert any(k.startswith("sec-dashboard:ratelimit:") for k in names)
    assert not any("5e1f0c2a" in k for k in names)
    client.close()


def test_without_a_shared_store_each_process_keeps_to_its_share(quota_server, arrivals, tmp_path):
    """--no-cache and no Redis: nothing to share, so each of 2 processes holds half the limit."""
    env = {**ENV, "SEC_DASHBOARD_NUM_PROCS": "2"}
    workers = start_workers(quota_server.base_url, [("C1", tmp_path / "a", 20), ("C2", tmp_path / "b", 20)], env,
                            extra=("--no-cache", *BURSTS))
    results = finish(workers)
    assert all(not r["failures"] for r in results)
    assert arrivals.throttled == 0
    for prefix in ("/C1", "/C2"):
        assert max_in_window(arrivals.times(prefix), PERIOD) <= LIMIT // 2
    assert max_in_window(arrivals.times(), PERIOD) <= LIMIT


def test_an_answer_fetched_by_one_process_is_a_cache_hit_for_the_other_through_redis(quota_server, arrivals, tmp_path,
                                                                                    redis_server):
    env = {**ENV, "SEC_DASHBOARD_REDIS_URL": redis_server.url}
    first = finish(start_workers(quota_server.base_url, [("C3", tmp_path / "a", 8)], env, start_in=0))[0]
    # another process with its own (empty) disk cache: every answer comes from Redis
    second = finish(start_workers(quota_server.base_url, [("C3", tmp_path / "b", 8)], env, start_in=0))[0]
    assert first["sent"] == 8 and first["cache_hits"] == 0
    assert second["sent"] == 0 and second["cache_hits"] == 8
    assert len(arrivals.times("/C3")) == 8
    client = redis.Redis.from_url(redis_server.url)
    for name in client.keys("sec-dashboard:cache:*"):
        assert b"5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8c" not in (client.get(name) or b"") + name
    client.close()


def test_an_answer_fetched_by_one_process_is_a_cache_hit_for_the_other_through_the_disk(quota_server, arrivals,
                                                                                      tmp_path):
    shared = tmp_path / "cache"
    first = finish(start_workers(quota_server.base_url, [("C4", shared, 8)], ENV, start_in=0))[0]
    second = finish(start_workers(quota_server.base_url, [("C4", shared, 8)], ENV, start_in=0))[0]
    assert (first["sent"], second["sent"], second["cache_hits"]) == (8, 0, 8)
    assert len(arrivals.times("/C4")) == 8


def test_redis_going_away_mid_run_falls_back_with_one_warning(quota_server, arrivals, tmp_path, redis_server):
    env = {**ENV, "SEC_DASHBOARD_REDIS_URL": redis_server.url, "SEC_DASHBOARD_NUM_PROCS": "2"}
    # a few calls at a time, so that each process keeps reserving after Redis has gone
    workers = start_workers(quota_server.base_url, [("C5", tmp_path / "a", 40), ("C6", tmp_path / "b", 40)], env,
                            start_in=1.5, extra=("--concurrency", "4"))
    time.sleep(1.5 + PERIOD + 0.5)  # well into the second window
    redis_server.stop()
    killed = time.time()
    results = finish(workers)
    assert all(not r["failures"] for r in results), [r["failures"] for r in results]
    for result in results:
        redis_warnings = [w for w in result["warnings"] if "Redis" in w]
        assert len(redis_warnings) == 1, result["warnings"]
        assert "redis://127.0.0.1" in redis_warnings[0]
    times = arrivals.times()
    assert len(times) == 80 and arrivals.throttled == 0
    assert any(t > killed for t in times), "Redis was stopped after the run, not during it"
    # before Redis went away both together kept the limit; a window after it, each keeps half of it
    assert max_in_window([t for t in times if t < killed], PERIOD) <= LIMIT
    for prefix in ("/C5", "/C6"):
        assert max_in_window(arrivals.times(prefix), PERIOD, since=killed + PERIOD + 0.2) <= LIMIT // 2
    assert max_in_window(times, PERIOD, since=killed + PERIOD + 0.2) <= LIMIT

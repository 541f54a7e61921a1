import asyncio
import logging

import pytest

from dashboard.api.ratelimit import FileRateLimiter, RateLimiter, key_ident, limiter_for, local_share


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_sliding_window_admits_calls_then_makes_the_next_wait():
    clock = FakeClock()
    limiter = RateLimiter(3, 10.0, clock=clock)
    assert [limiter._reserve() for _ in range(3)] == [0, 0, 0]
    assert limiter._reserve() == pytest.approx(10.0)
    clock.now += 4
    # two reservations beyond the window are queued one after the other
    assert limiter._reserve() == pytest.approx(6.0)
    clock.now += 6.5
    assert limiter.in_window() == 2


def test_acquire_really_waits():
    limiter = RateLimiter(2, 0.3)

    async def go():
        loop = asyncio.get_running_loop()
        start = loop.time()
        for _ in range(5):
            await limiter.acquire()
        return loop.time() - start

    elapsed = asyncio.run(go())
    # 5 calls at 2 per 0.3 s need two full windows of waiting
    assert elapsed >= 0.55
    assert limiter.waited_s >= 0.55


def test_one_limiter_per_key_shared_process_wide_and_keyed_by_hash():
    a = limiter_for("key-one", 10, 1.0)
    assert limiter_for("key-one", 10, 1.0) is a
    assert limiter_for("key-two", 10, 1.0) is not a
    from dashboard.api import ratelimit

    assert all("key-one" not in ident for ident, *_ in ratelimit._registry)


def test_invalid_limits_are_refused():
    with pytest.raises(ValueError):
        RateLimiter(0, 1)


def test_limiter_for_picks_the_store_and_adds_the_margin(tmp_path):
    shared = limiter_for("key-three", 10, 2.0, directory=tmp_path)
    assert isinstance(shared, FileRateLimiter) and shared.window == pytest.approx(2.25)
    alone = limiter_for("key-three", 10, 2.0, num_procs=4)
    assert isinstance(alone, RateLimiter) and (alone.calls, alone.period) == (2, 2.0)


def test_the_share_of_a_limit_never_adds_up_to_more_than_the_limit():
    for calls, period, procs in [(3000, 300, 1), (3000, 300, 4), (20, 2, 3), (2, 10, 5), (1, 1, 2)]:
        share, share_period = local_share(calls, period, procs)
        assert share >= 1 and procs * share / share_period <= calls / period + 1e-9


def test_file_limiters_of_two_processes_share_one_window(tmp_path):
    """Two limiters on one directory (as two processes have): together at most 3 starts per 10 s."""
    clock = FakeClock()
    ident = key_ident("shared-key")
    a = FileRateLimiter(tmp_path, ident, 3, 10.0, clock=clock)
    b = FileRateLimiter(tmp_path, ident, 3, 10.0, clock=clock)
    assert [a._reserve(), b._reserve(), a._reserve()] == [0, 0, 0]
    assert b._reserve() == pytest.approx(10.0)
    clock.now += 4
    assert a._reserve() == pytest.approx(6.0)
    other = FileRateLimiter(tmp_path, key_ident("another-key"), 3, 10.0, clock=clock)
    assert other._reserve() == 0  # another key has its own window
    a.close(), b.close(), other.close()
    content = (tmp_path / "ratelimit.sqlite3").read_bytes()
    assert b"shared-key" not in content and ident.encode() in content


def test_file_limiter_keeps_the_spacing_across_processes(tmp_path):
    clock = FakeClock()
    a = FileRateLimiter(tmp_path, "k", 1000, 300.0, min_interval=0.05, clock=clock)
    b = FileRateLimiter(tmp_path, "k", 1000, 300.0, min_interval=0.05, clock=clock)
    waits = [limiter._reserve() for limiter in (a, b, a, b)]
    assert waits == pytest.approx([0.0, 0.05, 0.1, 0.15])


def test_a_file_limiter_that_fails_goes_on_with_this_process_share_after_one_warning(tmp_path, caplog):
    (tmp_path / "ratelimit.sqlite3").mkdir()  # the database cannot be opened
    clock = FakeClock()
    limiter = FileRateLimiter(tmp_path, "k", 4, 10.0, num_procs=2, clock=clock)
    with caplog.at_level(logging.WARNING, logger="dashboard.ratelimit"):
        waits = [limiter._reserve() for _ in range(3)]
    assert waits[:2] == [0, 0] and waits[2] > 9  # 2 of the 4 calls: this process's half
    assert len(caplog.records) == 1 and "goes on alone at 2 calls per 10 s" in caplog.text


def _open_together(directory, barrier, answers):
    limiter = FileRateLimiter(directory, "k", 100, 10.0)
    barrier.wait()
    for _ in range(3):
        limiter._reserve_slot(ahead=False)
    answers.put(limiter.fallback is None)


def test_processes_opening_a_new_limit_file_at_once_all_share_it(tmp_path):
    """A fresh file switched to WAL mode by one process answers "database is locked" to the others at
    once, whatever the busy timeout: that is contention, and no process may go on alone because of it."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    for round_ in range(8):
        directory = tmp_path / f"round{round_}"
        directory.mkdir()
        barrier = context.Barrier(4)
        processes = [context.Process(target=_open_together, args=(directory, barrier, answers)) for _ in range(4)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(30)
            assert process.exitcode == 0
        shared = [answers.get(timeout=5) for _ in processes]
        assert all(shared), f"round {round_}: {shared.count(False)} of 4 processes left the shared file"

import asyncio

import pytest

from dashboard.api.ratelimit import RateLimiter, limiter_for


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

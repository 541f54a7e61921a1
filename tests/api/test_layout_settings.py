"""Settings of the current service: layout choice, rate limit and minimum spacing between calls."""

from __future__ import annotations

import asyncio

import pytest

from dashboard.api.ratelimit import RateLimiter
from dashboard.config import ApiSettings, parse_rate_limit


def test_layout_from_environment_or_parameter():
    assert ApiSettings.from_env(environ={}).layout == "auto"
    assert ApiSettings.from_env(environ={"SEC_API_LAYOUT": " Legacy "}).layout == "legacy"
    assert ApiSettings.from_env(layout="successor", environ={"SEC_API_LAYOUT": "legacy"}).layout == "successor"
    with pytest.raises(ValueError, match="auto, legacy, successor"):
        ApiSettings.from_env(environ={"SEC_API_LAYOUT": "v3"})


@pytest.mark.parametrize("text, expected", [("3000/300", (3000, 300.0)), (" 5000 / 300s ", (5000, 300.0)),
                                            ("10/1.5", (10, 1.5))])
def test_rate_limit_text(text, expected):
    assert parse_rate_limit(text) == expected
    assert ApiSettings.from_env(environ={"SEC_API_RATE_LIMIT": text}).rate_limit == expected


@pytest.mark.parametrize("text", ["3000", "0/300", "3000/0", "fast", "-1/5"])
def test_a_bad_rate_limit_is_a_clear_error(text):
    with pytest.raises(ValueError, match="CALLS/SECONDS"):
        ApiSettings.from_env(environ={"SEC_API_RATE_LIMIT": text})


def test_minimum_spacing_setting():
    assert ApiSettings.from_env(environ={"SEC_API_MIN_INTERVAL_MS": "20"}).min_interval_s == pytest.approx(0.02)
    with pytest.raises(ValueError, match="milliseconds"):
        ApiSettings.from_env(environ={"SEC_API_MIN_INTERVAL_MS": "-5"})


def test_the_secondary_key_never_shows():
    settings = ApiSettings.from_env(api_key="a" * 32, secondary_key="b" * 32, environ={})
    assert "b" * 32 not in repr(settings) and "secondary_key=set" in repr(settings)


def test_minimum_spacing_spreads_a_burst():
    """Ten calls at once with 50 ms spacing: their starts are at least 50 ms apart (a fake clock)."""
    now = [0.0]
    limiter = RateLimiter(1000, 300, min_interval=0.05, clock=lambda: now[0])
    waits = [limiter._reserve() for _ in range(10)]
    assert waits == pytest.approx([0.05 * n for n in range(10)])
    starts = [w + now[0] for w in waits]
    assert all(b - a >= 0.05 - 1e-9 for a, b in zip(starts, starts[1:]))


def test_spacing_and_window_together():
    """The window still holds: 3 calls per 1 s with 0.1 s spacing, the 4th waits for the window."""
    now = [0.0]
    limiter = RateLimiter(3, 1.0, min_interval=0.1, clock=lambda: now[0])
    waits = [limiter._reserve() for _ in range(4)]
    assert waits[:3] == pytest.approx([0.0, 0.1, 0.2]) and waits[3] == pytest.approx(1.0)


def test_acquire_sleeps_for_the_spacing():
    limiter = RateLimiter(1000, 300, min_interval=0.03)

    async def burst():
        loop = asyncio.get_running_loop()
        started = loop.time()
        for _ in range(4):
            await limiter.acquire()
        return loop.time() - started

    elapsed = asyncio.run(burst())
    # four starts 30 ms apart cannot take less than 90 ms; how much of it was sleeping depends on how busy
    # the machine was between the calls (a loaded one sleeps less), so only that it was not more
    assert elapsed >= 0.09 - 0.005
    assert 0 <= limiter.waited_s <= elapsed

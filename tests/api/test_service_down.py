"""A service that is down (silent, refusing, 500 for ever): every run ends by its deadline, and once the
service is known down the calls that follow fail at once instead of each waiting out its own timeouts."""

from __future__ import annotations

import asyncio
import time

import pytest

from dashboard.api.client import AsyncSecClient
from dashboard.api.deadline import ServiceHealth, run_deadline
from dashboard.cli.main import main
from dashboard.config import ApiSettings
from dashboard.errors import ServiceError
from tests.api.down_services import FailingService, SilentService, refusing_url
from tests.conftest import KEY, TODAY

FUNDS = [f"M{n:04d}_2560" for n in range(1, 7)]


def _client(base_url: str, **options) -> AsyncSecClient:
    settings = ApiSettings.from_env(base_url=base_url, api_key=KEY, layout="successor", use_cache=False, environ={})
    options.setdefault("backoff_base", 0.05)
    options.setdefault("backoff_max", 0.1)
    options.setdefault("rate_limit_calls", 1_000_000)
    return AsyncSecClient(settings, cache=None, today=lambda: TODAY, **options)


async def _many_calls(client: AsyncSecClient) -> list:
    """What a factsheet does: a burst of parts at once, then more calls one after another."""
    outcomes = list(await client.fetch_many([("E8", {"proj_id": p}) for p in FUNDS]))
    for proj_id in FUNDS:
        try:
            outcomes.append(await client.fetch("E10", proj_id=proj_id))
        except ServiceError as exc:
            outcomes.append(exc)
    await client.aclose()
    return outcomes


def _run_timed(coro, deadline_s: float) -> tuple[list, float]:
    async def timed():
        with run_deadline(deadline_s):
            return await coro
    start = time.monotonic()
    outcomes = asyncio.run(timed())
    return outcomes, time.monotonic() - start


def test_a_silent_service_ends_the_run_by_its_deadline_and_is_asked_no_more():
    with SilentService() as service:
        client = _client(service.base_url, timeout=1.0)
        outcomes, took = _run_timed(_many_calls(client), deadline_s=3.0)
    assert all(isinstance(o, ServiceError) for o in outcomes)
    # 12 calls of 4 attempts of 1 s each took 30 s and more before; the run's bound is 3 s (plus a loaded
    # machine's margin), and the calls after the service was known down were never sent.
    assert took < 3.0 * 2
    assert client.stats.requests_sent <= len(FUNDS) + 2
    assert any("not sent" in str(o) for o in outcomes)


def test_after_one_call_found_the_service_silent_the_next_is_not_sent():
    """fund show asked the company list once for the layout and again to resolve the fund: 15 s more each."""
    with SilentService() as service:
        client = _client(service.base_url, timeout=1.0)

        async def one_after_another():
            outcomes = []
            for _ in range(3):
                try:
                    outcomes.append(await client.fetch("S7"))
                except ServiceError as exc:
                    outcomes.append(exc)
            await client.aclose()
            return outcomes

        outcomes, _took = _run_timed(one_after_another(), deadline_s=30.0)
    assert client.stats.requests_sent == 2  # the first call's two silent attempts; the others are not sent
    assert ["not sent" in str(o) for o in outcomes] == [False, True, True]


def test_a_refusing_service_is_tried_twice_then_every_call_fails_at_once():
    client = _client(refusing_url())
    outcomes, took = _run_timed(_many_calls(client), deadline_s=30.0)
    assert all(isinstance(o, ServiceError) for o in outcomes)
    assert client.stats.requests_sent <= len(FUNDS) + 2  # 48 attempts before
    assert took < 30.0 / 2
    assert "could not be reached" in str(outcomes[-1])


def test_a_service_failing_for_ever_is_asked_a_bounded_number_of_times():
    with FailingService() as service:
        client = _client(service.base_url)
        outcomes, _took = _run_timed(_many_calls(client), deadline_s=30.0)
        sent = service.requests
    assert all(isinstance(o, ServiceError) for o in outcomes)
    assert sent == client.stats.requests_sent
    assert sent <= len(FUNDS) + 2  # 48 before: 4 attempts for each of 12 calls
    assert "keeps failing (500)" in str(outcomes[-1])


def test_without_a_run_each_call_has_its_own_bound():
    with SilentService() as service:
        client = _client(service.base_url, timeout=30.0, deadline_s=1.5)

        async def one():
            try:
                return await client.fetch("E8", proj_id=FUNDS[0])
            finally:
                await client.aclose()

        start = time.monotonic()
        with pytest.raises(ServiceError, match="no answer within 1.5 s"):
            asyncio.run(one())
        assert time.monotonic() - start < 30.0 / 2  # the 30 s read timeout was cut by the call's 1.5 s bound


def test_a_service_known_down_is_asked_again_after_the_cool_off_and_recovers():
    now = [1000.0]
    health = ServiceHealth(down_after=2, cool_off_s=30.0, clock=lambda: now[0])
    health.failed("no answer")
    assert health.down() is None  # one failure is not yet "down"
    health.failed("no answer")
    assert health.down() == "no answer"
    now[0] += 29.0
    assert health.down() == "no answer"
    now[0] += 2.0
    assert health.down() is None  # cooled off: one call goes through
    health.failed("still no answer")
    assert health.down() == "still no answer"  # and one more failure makes it down again at once
    now[0] += 31.0
    assert health.down() is None
    health.answered()
    health.failed("a blip")
    assert health.down() is None  # it answered: back to counting from zero


def test_a_call_rides_out_its_own_blip_while_others_fail_at_once():
    health = ServiceHealth(down_after=2, cool_off_s=30.0, clock=lambda: 0.0)
    mine, other = object(), object()
    health.failed("500", mine)
    health.failed("500", mine)
    assert health.down(mine) is None  # its own retries go on
    assert health.down(other) == "500"  # a call that has not failed yet is not sent
    health.failed("500", other)
    assert health.down(mine) == "500"  # failures of several calls: down for every call


def test_fund_show_against_a_silent_service_ends_by_sec_api_deadline_s(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SEC_API_DEADLINE_S", "3")
    monkeypatch.setenv("SEC_API_KEY", KEY)
    with SilentService() as service:
        start = time.monotonic()
        code = main(["--base-url", service.base_url, "--cache-dir", str(tmp_path / "cache"), "fund", "show",
                     "M0001_2560"])
        took = time.monotonic() - start
    assert code == 4
    # The client's own read timeout is 15 s (x 4 attempts, part after part): only the run's deadline ends it this soon.
    assert took < 3.0 * 3
    assert "SEC_API_DEADLINE_S" in capsys.readouterr().err


def test_a_deadline_that_is_not_a_number_of_seconds_is_refused(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SEC_API_DEADLINE_S", "nan")
    code = main(["--demo", "--cache-dir", str(tmp_path / "cache"), "fund", "show", "M0001_2560"])
    assert code == 2
    assert "SEC_API_DEADLINE_S" in capsys.readouterr().err


def test_a_context_a_finished_run_left_behind_starts_a_run_of_its_own():
    """A served page's later callbacks can run in a context copied while its first load's run was on (a
    task that load started). After the service came back, a search there still found the old run's
    "down" verdict and was not sent; a run is over when its own block ends."""
    import contextvars

    from dashboard.api.deadline import current_run, within_run

    with run_deadline(60.0) as first:
        first.health.failed("the service keeps failing (503)")
        first.health.failed("the service keeps failing (503)")
        assert first.health.down() and current_run() is first
        left_behind = contextvars.copy_context()  # what a task started inside the run carries
    assert current_run() is None

    def later():
        assert current_run() is None  # the run is over, even here
        with within_run(60.0) as run:
            return run

    run = left_behind.run(later)
    assert run is not first and run.health.down() is None  # asked afresh: the service may be back


def test_a_run_that_waits_out_its_deadline_on_our_own_rate_limit_says_so(simulator):
    """The service answers at once, but the run's two calls a minute are spent: the run ends by its deadline
    saying it waited for the rate limit, not that the service may be overloaded or down (the service was
    never asked)."""
    client = _client(simulator.base_url, rate_limit_calls=2, rate_limit_period=60.0)

    async def three_calls():
        outcomes = []
        for proj_id in ("M0001_2560", "M0002_2560", "M0003_2560"):
            try:
                outcomes.append(await client.fetch("E8", proj_id=proj_id))
            except ServiceError as exc:
                outcomes.append(exc)
        await client.aclose()
        return outcomes

    outcomes, _took = _run_timed(three_calls(), deadline_s=1.5)
    assert simulator.app.request_count == 2
    message = str(outcomes[-1])
    assert isinstance(outcomes[-1], ServiceError) and "rate limit of 2 calls per 60 s" in message, message
    assert "overloaded" not in message and "down" not in message

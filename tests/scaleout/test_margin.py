"""The limiter's safety margin: the service counts from arrival, the client from sending; network jitter
between the two must not cost throttling answers at the window's edge."""

from __future__ import annotations

import asyncio
import copy
import random

import httpx
import pytest

from dashboard.api import ratelimit
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.demo.simulator import create_app
from tests.conftest import TODAY
from tests.scaleout.conftest import ArrivalLog, max_in_window


class JitterTransport(httpx.AsyncBaseTransport):
    """Each request spends 0 to `jitter_s` seconds on its way, as on a network."""

    def __init__(self, inner: httpx.AsyncBaseTransport, jitter_s: float, seed: int):
        self.inner, self.jitter_s, self._rng = inner, jitter_s, random.Random(seed)

    async def handle_async_request(self, request):
        await asyncio.sleep(self._rng.uniform(0, self.jitter_s))
        return await self.inner.handle_async_request(request)


def sync_through_quota(dataset, key: str) -> tuple[ArrivalLog, object]:
    quota = ArrivalLog(create_app(copy.deepcopy(dataset), require_key=False, today=TODAY), calls=20, period=2.0)
    settings = ApiSettings.from_env(base_url="http://quota.test", api_key=key, use_cache=False, layout="legacy",
                                    rate_limit="20/2", environ={})
    client = open_client(settings, transport=JitterTransport(httpx.ASGITransport(app=quota), 0.08, seed=1), cache=None,
                         today=lambda: TODAY, max_attempts=1)
    try:
        # 50 calls at 20 per 2 s cross the window's edge twice; all sent at once, as a sync sends a batch
        results = client.fetch_many([("E2", {"unique_id": f"C9{i:09d}"}) for i in range(50)])
    finally:
        client.close()
    return quota, results


def test_no_throttling_at_the_window_edge(dataset):
    quota, results = sync_through_quota(dataset, "margin-test-key-with-margin")
    assert quota.throttled == 0
    assert not [r for r in results if isinstance(r, BaseException)]
    times = quota.times()
    assert len(times) == 50 and times[-1] - times[0] > 2 * 2.0  # the run really crossed two window edges
    assert max_in_window(times, 2.0) <= 20


def test_counted_from_the_answer_no_margin_is_needed(dataset, monkeypatch):
    """A call counts from when its answer came back (by then it surely arrived), and a start is taken
    only when free at that moment: the jitter cannot push two windows' calls into one."""
    monkeypatch.setattr(ratelimit, "safety_margin", lambda period: 0.0)
    quota, results = sync_through_quota(dataset, "margin-test-key-answer-time")
    assert quota.throttled == 0
    assert not [r for r in results if isinstance(r, BaseException)]


def test_counted_from_the_send_without_a_margin_the_same_run_is_throttled(dataset, monkeypatch):
    """The control: starts reserved ahead and counted from the send, with a window of exactly the
    period, get throttling answers from the same jitter (so the two tests above can fail)."""
    import contextlib

    @contextlib.asynccontextmanager
    async def from_the_send(self):
        yield await self.acquire()

    monkeypatch.setattr(ratelimit, "safety_margin", lambda period: 0.0)
    monkeypatch.setattr(ratelimit.LimiterBase, "hold", from_the_send)
    quota, results = sync_through_quota(dataset, "margin-test-key-send-time")
    assert quota.throttled > 0
    assert any(isinstance(r, BaseException) for r in results)


def test_the_margin_is_a_small_share_of_the_period():
    assert ratelimit.safety_margin(300) == pytest.approx(1.0)
    assert ratelimit.safety_margin(2) == pytest.approx(0.25)
    assert ratelimit.limiter_for("margin-window-key", 3000, 300.0).window == pytest.approx(301.0)

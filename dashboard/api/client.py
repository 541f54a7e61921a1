"""HTTP client for the service: one object owns the pool, timeouts, retries, rate limit, cache and keys."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import random
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, stop_before_delay

from dashboard.api.cache import MemoryCache, ResponseCache
from dashboard.api.endpoints import Endpoint, endpoint
from dashboard.api.errors import (
    AuthenticationError,
    BadInputError,
    MalformedResponseError,
    NotFoundError,
    RateLimitError,
    SecApiError,
    ServiceError,
)
from dashboard.api.periods import check_period
from dashboard.api.ratelimit import DEFAULT_CALLS, DEFAULT_PERIOD_S, limiter_for
from dashboard.config import FUND_GROUP, ApiSettings, SubscriptionKey

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("dashboard.api")

KEY_HEADER = "Ocp-Apim-Subscription-Key"
RETRY_STATUSES = frozenset({421, 429, 500, 502, 503, 504})
THROTTLE_STATUSES = frozenset({421, 429})
MAX_MESSAGE_CHARS = 300


class _Retryable(Exception):
    """An attempt that failed in a way worth trying again; carries the error to raise at the end."""

    def __init__(self, error: SecApiError, retry_after: float | None = None):
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


@dataclass
class ApiResult:
    """One answered call: the raw payload (None when the service has no data) and where it came from."""

    endpoint: Endpoint
    params: dict[str, str]
    data: Any
    from_cache: bool = False
    stale: bool = False
    fetched_at: float = field(default_factory=time.time)
    cache_key: str = ""

    @property
    def identity(self) -> tuple[str, float]:
        """Same request, same answer: the key under which derived forms can be memoised."""
        return (self.cache_key, self.fetched_at)


@dataclass
class ClientStats:
    requests_sent: int = 0
    cache_hits: int = 0
    stale_served: int = 0
    retries: int = 0


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _demo_transport(today: date | None) -> httpx.AsyncBaseTransport:
    # Imported here: the simulator is only needed in demo mode, and it builds on this layer.
    from dashboard.demo.generator import generate_demo_dataset
    from dashboard.demo.simulator import create_app

    return httpx.ASGITransport(app=create_app(generate_demo_dataset(today=today), require_key=False, today=today))


class AsyncSecClient:
    """Asynchronous client for all 20 endpoints.

    `request()` returns the raw payload; `fetch()` the normalised records. Calls run concurrently
    (`fetch_many`), bounded by the connection pool and the per-key rate limiter.
    """

    def __init__(
        self,
        settings: ApiSettings | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        cache: ResponseCache | None | bool = True,
        timeout: float = 15.0,
        total_timeout: float = 45.0,
        max_attempts: int = 4,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        max_connections: int = 32,
        rate_limit_calls: int = DEFAULT_CALLS,
        rate_limit_period: float = DEFAULT_PERIOD_S,
        today: Callable[[], date] | None = None,
    ):
        self.settings = settings or ApiSettings.from_env()
        self._today = today or date.today
        self.timeout = timeout
        self.total_timeout = total_timeout
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.rate_limit = (rate_limit_calls, rate_limit_period)
        self.stats = ClientStats()
        if transport is None and self.settings.demo:
            transport = _demo_transport(self._today())
        if cache is True:
            # Demo answers are generated in-process; caching them on disk would only mix them
            # with real data, so demo mode caches nothing unless a cache is passed in.
            use_disk = self.settings.use_cache and not self.settings.demo and self.settings.cache_dir is not None
            cache = ResponseCache(self.settings.cache_dir) if use_disk else None
        self.cache: ResponseCache | None = cache or None
        self.memory = MemoryCache(clock=self.cache.now if self.cache else time.time) if self.settings.use_cache else None
        self._http = httpx.AsyncClient(
            base_url=self.settings.base_url,
            transport=transport,
            timeout=httpx.Timeout(timeout, pool=total_timeout),
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
            follow_redirects=False,
            headers={"Accept": "application/json", "User-Agent": "sec-dashboard/0.1"},
        )

    def __repr__(self) -> str:
        return f"AsyncSecClient({self.settings!r})"

    @property
    def today(self) -> date:
        return self._today()

    async def __aenter__(self) -> "AsyncSecClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # ---- the calls -------------------------------------------------------------------------

    async def request(self, key: str, *, name: str | None = None, **path_params: str) -> ApiResult:
        """Call one endpoint (by id `E6` or name `holdings`) and return its raw payload."""
        ep = endpoint(key)
        if ep.id == "E6" and "period" in path_params:
            path_params["period"] = check_period(path_params["period"], self.today)
        path = ep.build_path(path_params)
        body = ep.build_body(name)
        cache_key = self._cache_key(ep, path, body)
        params = dict(path_params)
        remembered = self.memory.get(cache_key) if self.memory else None
        if remembered is not None:
            self.stats.cache_hits += 1
            return ApiResult(ep, params, remembered[0], from_cache=True, fetched_at=remembered[1], cache_key=cache_key)
        cached = self.cache.get(cache_key) if self.cache else None
        if cached is not None and cached.fresh:
            self.stats.cache_hits += 1
            if self.memory:
                self.memory.put(cache_key, cached.data, cached.stored_at, ep.ttl)
            return ApiResult(ep, params, cached.data, from_cache=True, fetched_at=cached.stored_at, cache_key=cache_key)
        try:
            data = await self._send(ep, path, body)
        except (ServiceError, RateLimitError, MalformedResponseError) as exc:
            if cached is None:
                raise
            self.stats.stale_served += 1
            log.warning("%s %s failed (%s); serving the copy cached at %s, marked stale",
                        ep.id, ep.name, type(exc).__name__, time.strftime("%Y-%m-%d %H:%M", time.localtime(cached.stored_at)))
            return ApiResult(ep, params, cached.data, from_cache=True, stale=True, fetched_at=cached.stored_at,
                             cache_key=cache_key)
        stored_at = self.cache.set(cache_key, data, ep.ttl) if self.cache is not None else time.time()
        if self.memory:
            self.memory.put(cache_key, data, stored_at, ep.ttl)
        return ApiResult(ep, params, data, fetched_at=stored_at, cache_key=cache_key)

    async def fetch(self, key: str, *, name: str | None = None, **path_params: str) -> Any:
        """Call one endpoint and return normalised records: a list, a dict, or None for no data."""
        result = await self.request(key, name=name, **path_params)
        return normalise(result)

    async def fetch_many(self, calls: Iterable[tuple[str, dict[str, Any]]], *, return_exceptions: bool = True) -> list[Any]:
        """Run many `(endpoint, params)` calls concurrently; results (or exceptions) in order."""
        coros = [self.request(key, **params) for key, params in calls]
        return await asyncio.gather(*coros, return_exceptions=return_exceptions)

    # ---- internals -------------------------------------------------------------------------

    def _cache_key(self, ep: Endpoint, path: str, body: dict | None) -> str:
        body_text = json.dumps(body, sort_keys=True, ensure_ascii=False) if body else ""
        return f"v1|{self.settings.base_url}|{ep.method} {path}|{body_text}"

    def _key_for(self, ep: Endpoint) -> SubscriptionKey | None:
        key = self.settings.key_for(ep.group)
        if key is None and not self.settings.demo:
            group = "fund" if ep.group == FUND_GROUP else "licence"
            var = "SEC_FUND_API_KEY" if ep.group == FUND_GROUP else "SEC_LICENSE_API_KEY"
            raise AuthenticationError(
                f"no subscription key for the {group} API: set SEC_API_KEY (or {var}), "
                "or run with --demo to use the embedded demo data",
                endpoint=ep.id,
            )
        return key

    def _redact(self, text: str) -> str:
        """Remove any echo of a key from service text: as sent, in any case, or percent-encoded."""
        for key in (self.settings.api_key, self.settings.fund_api_key, self.settings.license_api_key):
            if key is not None:
                for form in {key.reveal(), urllib.parse.quote(key.reveal(), safe="")}:
                    text = re.sub(re.escape(form), "***", text, flags=re.IGNORECASE)
        return text

    def _wait(self, state) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            return float(retry_after)
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** (state.attempt_number - 1)))
        return random.uniform(ceiling / 2, ceiling)  # "equal jitter": never zero, never in lockstep

    async def _send(self, ep: Endpoint, path: str, body: dict | None) -> Any:
        key = self._key_for(ep)
        headers = {KEY_HEADER: key.reveal()} if key is not None else {}
        limiter = limiter_for(key.reveal() if key else None, *self.rate_limit)

        def before_sleep(state) -> None:
            self.stats.retries += 1
            log.info("%s %s: attempt %d failed (%s); retrying in %.2f s", ep.id, ep.name, state.attempt_number,
                     state.outcome.exception(), state.upcoming_sleep)

        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda e: isinstance(e, _Retryable)),
            stop=stop_after_attempt(self.max_attempts) | stop_before_delay(self.total_timeout),
            wait=self._wait,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    await limiter.acquire()
                    return await self._attempt(ep, path, body, headers)
        except _Retryable as final:
            raise final.error from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    async def _attempt(self, ep: Endpoint, path: str, body: dict | None, headers: dict) -> Any:
        where = f"{ep.id} {ep.method} {path}"
        started = time.perf_counter()
        self.stats.requests_sent += 1
        try:
            async with asyncio.timeout(self.timeout):
                response = await self._http.request(ep.method, path, json=body, headers=headers)
        except (TimeoutError, httpx.TimeoutException):
            raise _Retryable(ServiceError(
                f"{where}: no answer within {self.timeout:g} s; the service may be overloaded, try again later",
                endpoint=ep.id)) from None
        except (httpx.UnsupportedProtocol, httpx.LocalProtocolError, httpx.ProxyError) as exc:
            # Nothing that trying again can mend.
            raise ServiceError(f"{where}: the request could not be made ({type(exc).__name__}); "
                               "check SEC_API_BASE_URL and any proxy settings", endpoint=ep.id) from None
        except httpx.TransportError as exc:
            raise _Retryable(ServiceError(
                f"{where}: could not connect to {self.settings.base_url} ({type(exc).__name__}); "
                "check the network or SEC_API_BASE_URL", endpoint=ep.id)) from None
        log.debug("%s -> %d in %.0f ms", where, response.status_code, 1000 * (time.perf_counter() - started))
        return self._interpret(ep, where, response)

    def _server_message(self, response: httpx.Response) -> str:
        text = response.text.strip()
        try:
            payload = response.json()
            if isinstance(payload, dict):
                text = str(payload.get("message") or payload.get("Message") or payload.get("error") or text)
        except ValueError:
            if "<html" in text[:500].lower():
                text = "an HTML error page"
        text = " ".join(self._redact(text).split())
        return text[:MAX_MESSAGE_CHARS] + ("…" if len(text) > MAX_MESSAGE_CHARS else "")

    def _interpret(self, ep: Endpoint, where: str, response: httpx.Response) -> Any:
        status = response.status_code
        if status == 204:
            return None
        if status == 200:
            return self._parse_body(ep, where, response)
        message = self._server_message(response)
        if status in (401, 403):
            raise AuthenticationError(
                f"{where}: the service rejected the subscription key ({status}: {message}). "
                "Check SEC_API_KEY / SEC_FUND_API_KEY / SEC_LICENSE_API_KEY; the fund and licence APIs may need different keys",
                status_code=status, endpoint=ep.id)
        if status == 404:
            raise NotFoundError(
                f"{where}: {self.settings.base_url} has no such path (404). The legacy API paths closed with the old "
                "developer portal on 30 June 2026; check SEC_API_BASE_URL and the path layout",
                status_code=status, endpoint=ep.id)
        if status in THROTTLE_STATUSES:
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            wait_note = f" (asked to wait {retry_after:g} s)" if retry_after is not None else ""
            raise _Retryable(RateLimitError(
                f"{where}: the service is throttling calls ({status}){wait_note}; wait a minute and try again",
                status_code=status, endpoint=ep.id, retry_after=retry_after), retry_after)
        if status in RETRY_STATUSES:
            raise _Retryable(ServiceError(
                f"{where}: the service failed ({status}: {message}); try again later",
                status_code=status, endpoint=ep.id), parse_retry_after(response.headers.get("Retry-After")))
        if status == 400:
            raise BadInputError(f"{where}: the service refused the request (400: {message})", status_code=status, endpoint=ep.id)
        raise ServiceError(f"{where}: unexpected answer {status} ({message})", status_code=status, endpoint=ep.id)

    def _parse_body(self, ep: Endpoint, where: str, response: httpx.Response) -> Any:
        raw = response.content
        if not raw.strip():
            return None  # the real service sometimes says "no data" as 200 with an empty body
        content_type = response.headers.get("content-type", "")
        if "html" in content_type or raw.lstrip()[:1] == b"<":
            raise MalformedResponseError(
                f"{where}: the service answered an HTML page instead of JSON; it may be down for maintenance, try again later",
                status_code=200, endpoint=ep.id)
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise MalformedResponseError(
                f"{where}: the answer is not valid JSON ({len(raw)} bytes); try again later",
                status_code=200, endpoint=ep.id) from None
        check_shape(ep, data, where)
        return data


def check_shape(ep: Endpoint, data: Any, where: str) -> None:
    """Refuse payloads that are not the specification's shape, so they are never cached."""
    if data is None:
        return
    if ep.returns_list:
        ok = isinstance(data, list) and all(isinstance(item, dict) for item in data)
        expected = "a list of records"
    else:
        ok = isinstance(data, dict) or (isinstance(data, list) and len(data) <= 1 and all(isinstance(i, dict) for i in data))
        expected = "one record"
    if not ok:
        raise MalformedResponseError(
            f"{where}: expected {expected}, got {type(data).__name__}; the service's format may have changed",
            status_code=200, endpoint=ep.id)


_derived_lock = threading.Lock()
_derived: "OrderedDict[tuple, Any]" = OrderedDict()
_DERIVED_MAX = 2048


def _memoised(tag: str, result: ApiResult, build: Callable[[], Any]) -> Any:
    """Memoise a form derived from a cached answer; fresh (uncached) answers are always rebuilt."""
    if not result.cache_key:
        return build()
    key = (tag, *result.identity)
    with _derived_lock:
        if key in _derived:
            _derived.move_to_end(key)
            return _derived[key]
    value = build()
    with _derived_lock:
        _derived[key] = value
        while len(_derived) > _DERIVED_MAX:
            _derived.popitem(last=False)
    return value


def normalise(result: ApiResult) -> Any:
    """The answer as normalised records. Shared between callers: treat it as read-only."""
    from dashboard.records import normalise_payload

    ep = result.endpoint
    return _memoised("records", result, lambda: normalise_payload(ep.record_kind, result.data, list_expected=ep.returns_list))


def result_frame(result: ApiResult) -> "pd.DataFrame":
    """The answer as a typed DataFrame (a copy: callers may change it freely)."""
    from dashboard.records import records_frame

    return _memoised("frame", result, lambda: records_frame(result.endpoint.record_kind, normalise(result) or [])).copy()


# ---- synchronous facade ----------------------------------------------------------------------


class _LoopThread:
    """One background event loop for every synchronous client in the process.

    Running the async core there (instead of `asyncio.run`) makes the facade work where a loop is
    already running: Jupyter cells and Panel callbacks.
    """

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def loop(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None or cls._loop.is_closed():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="sec-api-loop", daemon=True)
                thread.start()
                cls._loop = loop
            return cls._loop


class SecClient:
    """Synchronous facade over `AsyncSecClient`; safe to call from notebooks and Panel callbacks."""

    def __init__(self, settings: ApiSettings | None = None, **options: Any):
        self._loop = _LoopThread.loop()
        self._async = self._run(self._make(settings, options))

    @staticmethod
    async def _make(settings, options) -> AsyncSecClient:
        return AsyncSecClient(settings, **options)

    def _run(self, coro: Awaitable[Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def __repr__(self) -> str:
        return f"SecClient({self.settings!r})"

    @property
    def settings(self) -> ApiSettings:
        return self._async.settings

    @property
    def stats(self) -> ClientStats:
        return self._async.stats

    @property
    def cache(self) -> ResponseCache | None:
        return self._async.cache

    @property
    def today(self) -> date:
        return self._async.today

    @property
    def async_client(self) -> AsyncSecClient:
        return self._async

    def request(self, key: str, *, name: str | None = None, **path_params: str) -> ApiResult:
        return self._run(self._async.request(key, name=name, **path_params))

    def fetch(self, key: str, *, name: str | None = None, **path_params: str) -> Any:
        return self._run(self._async.fetch(key, name=name, **path_params))

    def fetch_many(self, calls: Iterable[tuple[str, dict[str, Any]]], *, return_exceptions: bool = True) -> list[Any]:
        return self._run(self._async.fetch_many(list(calls), return_exceptions=return_exceptions))

    def run(self, coro: Awaitable[Any]) -> Any:
        """Run a coroutine that uses `async_client` on the client's loop and wait for it."""
        return self._run(coro)

    def submit(self, coro: Awaitable[Any]) -> "concurrent.futures.Future[Any]":
        """Start a coroutine on the client's loop; returns a future to wait on."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def arun(self, coro: Awaitable[Any]) -> Any:
        """Await a coroutine on the client's loop from another running loop without blocking it."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def close(self) -> None:
        self._run(self._async.aclose())

    def __enter__(self) -> "SecClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

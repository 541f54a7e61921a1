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
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, stop_before_delay

from dashboard.api.cache import MemoryCache, ResponseCache
from dashboard.api.endpoints import Endpoint, endpoint, validate_proj_id
from dashboard.api.layouts import MAX_PAGES, PROBE_PATH, PROBE_QUERY, SuccessorCall, successor_calls
from dashboard.errors import (
    AuthenticationError,
    BadInputError,
    CacheUnavailableError,
    MalformedResponseError,
    NotFoundError,
    RateLimitError,
    SecApiError,
    ServiceError,
)
from dashboard.api.periods import check_period
from dashboard.api.ratelimit import limiter_for
from dashboard.config import (
    FUND_GROUP,
    LAYOUT_AUTO,
    LAYOUT_LEGACY,
    LAYOUT_SUCCESSOR,
    ApiSettings,
    SubscriptionKey,
    check_base_url,
)

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("dashboard.api")

KEY_HEADER = "Ocp-Apim-Subscription-Key"
RETRY_STATUSES = frozenset({421, 429, 500, 502, 503, 504})
THROTTLE_STATUSES = frozenset({421, 429})
MAX_MESSAGE_CHARS = 300
LAYOUT_TTL_S = 24 * 3600  # how long a detected layout is remembered per base URL
LAYOUT_LABELS = {
    LAYOUT_SUCCESSOR: "current service paths (/v2/fund, /v1/license-check)",
    LAYOUT_LEGACY: "legacy paths (/FundFactsheet, /LicenseCheck)",
}
# Bounds on one answer. The largest real answers (the former-licensee list, a big fund house's
# funds) are a few MB of JSON nested 5 deep; these sit far above that and stop a decompression
# bomb, an endless body or a body nested thousands deep before it costs memory or a crash.
MAX_BODY_BYTES = 64 * 1024 * 1024  # after decompression
MAX_ERROR_BODY_BYTES = 64 * 1024  # of a non-200 answer: only its message is read
MAX_JSON_DEPTH = 64
ACCEPT_ENCODING = "gzip, deflate"  # what the client decodes itself, with the bound above
# A fund record seen in any fund search or company list (E1/E2), kept by proj_id so a shared link
# to the fund finds its names and status again.
FUND_INDEX_TTL_S = 30 * 24 * 3600
FUND_INDEX_MAX = 50_000
FUND_INDEX_ENDPOINTS = ("E1", "E2")

RETIRED_LEGACY_MESSAGE = ("this service no longer serves the legacy paths; use --layout successor or auto "
                          "(SEC_API_LAYOUT)")


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
    layout: str = LAYOUT_LEGACY
    # Fields the service that answered does not publish at all (every field of a retired endpoint).
    not_published: tuple[str, ...] = ()

    @property
    def identity(self) -> tuple[str, float]:
        """Same request, same answer: the key under which derived forms can be memoised."""
        return (self.cache_key, self.fetched_at)


@dataclass
class ClientStats:
    requests_sent: int = 0
    pages: int = 0
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


def _demo_transport(today: date | None, layout: str) -> httpx.AsyncBaseTransport:
    # Imported here: the simulator is only needed in demo mode, and it builds on this layer.
    from dashboard.demo.generator import generate_demo_dataset
    from dashboard.demo.simulator import create_app

    app = create_app(generate_demo_dataset(today=today), require_key=False, today=today, layout=layout)
    return httpx.ASGITransport(app=app)


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
        rate_limit_calls: int | None = None,
        rate_limit_period: float | None = None,
        min_interval: float | None = None,
        max_pages: int = MAX_PAGES,
        max_body_bytes: int = MAX_BODY_BYTES,
        today: Callable[[], date] | None = None,
    ):
        self.settings = settings or ApiSettings.from_env()
        check_base_url(self.settings.base_url)  # settings built directly are checked too, before any call
        self._today = today or date.today
        self.timeout = timeout
        self.total_timeout = total_timeout
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        calls, period = self.settings.rate_limit
        self.rate_limit = (rate_limit_calls or calls, rate_limit_period or period)
        self.min_interval = self.settings.min_interval_s if min_interval is None else float(min_interval)
        self.max_pages = int(max_pages)
        self.max_body_bytes = int(max_body_bytes)
        self._key_pattern = _key_pattern(self.settings.all_keys())
        self.stats = ClientStats()
        # The layout in use: fixed by the settings, or detected on the first call ("auto").
        self._layout: str | None = None if self.settings.layout == LAYOUT_AUTO else self.settings.layout
        if self._layout is None and self.settings.demo:
            self._layout = LAYOUT_SUCCESSOR  # the demo plays the current service
        self._layout_lock: asyncio.Lock | None = None
        self._inflight: dict[tuple, asyncio.Future] = {}
        self._secondary_for: set[str] = set()  # groups whose primary key was rejected and secondary worked
        if transport is None and self.settings.demo:
            transport = _demo_transport(self._today(), self._layout or LAYOUT_SUCCESSOR)
        if cache is True:
            # Demo answers are generated in-process; caching them on disk would only mix them
            # with real data, so demo mode caches nothing unless a cache is passed in.
            use_disk = self.settings.use_cache and not self.settings.demo and self.settings.cache_dir is not None
            cache = _open_disk_cache(self.settings.cache_dir) if use_disk else None
        self.cache: ResponseCache | None = cache or None
        clock = self._clock = self.cache.now if self.cache else time.time
        self.memory = MemoryCache(clock=clock) if self.settings.use_cache else None
        # Fund records by proj_id from every E1/E2 answer (in memory always; on disk with the cache).
        self._fund_index = MemoryCache(maxsize=FUND_INDEX_MAX, clock=clock)
        self._http = httpx.AsyncClient(
            base_url=self.settings.base_url,
            transport=transport,
            timeout=httpx.Timeout(timeout, pool=total_timeout),
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
            follow_redirects=False,
            headers={"Accept": "application/json", "Accept-Encoding": ACCEPT_ENCODING, "User-Agent": "sec-dashboard/0.1"},
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
        """Call one endpoint (by id `E6` or name `holdings`) and return its payload in the legacy shape.

        An answer is checked, stripped of any echo of the key and normalised before it is cached:
        what does not parse is never cached, and a cached entry that no longer parses is dropped.
        """
        ep = endpoint(key)
        path_params = ep.clean_params(path_params)  # validated, in ASCII digits, on either layout
        if ep.id == "E6" and "period" in path_params:
            path_params["period"] = check_period(path_params["period"], self.today)
        path = ep.build_path(path_params)
        body = ep.build_body(name)
        params = dict(path_params)
        if name is not None:
            params["name"] = body[ep.body_field] if body else name
        layout = await self.layout()
        if layout == LAYOUT_LEGACY and ep.successor_only:
            raise BadInputError(f"{ep.summary} are published only by the current service; this service answers on "
                                "the legacy paths (use --layout successor or auto with the current service)",
                                endpoint=ep.id)
        if layout == LAYOUT_SUCCESSOR and not successor_calls(ep, params):
            from dashboard.records.successor import DROPPED_FIELDS

            # Retired with the legacy API (E9): nothing to ask, nothing to cache.
            return ApiResult(ep, params, None, layout=layout, not_published=DROPPED_FIELDS.get(ep.id, ()))
        cache_key = self._cache_key(ep, layout, path, body, params)
        remembered = self.memory.get(cache_key) if self.memory else None
        if remembered is not None:
            self.stats.cache_hits += 1
            return ApiResult(ep, params, remembered[0], from_cache=True, fetched_at=remembered[1], cache_key=cache_key,
                             layout=layout)
        cached = self.cache.get(cache_key) if self.cache else None
        if cached is not None:
            try:
                cached_records = _checked_records(ep, cached.data, f"{ep.id} {ep.name}")
            except MalformedResponseError as exc:
                # Stored by an older version, or damaged: never served, fetched again.
                log.warning("%s %s: a cached answer no longer reads (%s); it was dropped and is fetched again",
                            ep.id, ep.name, exc)
                self.cache.delete(cache_key)
                cached = None
        if cached is not None and cached.fresh:
            self.stats.cache_hits += 1
            if self.memory:
                self.memory.put(cache_key, cached.data, cached.stored_at, ep.ttl)
            result = ApiResult(ep, params, cached.data, from_cache=True, fetched_at=cached.stored_at,
                               cache_key=cache_key, layout=layout)
            self._index_funds(ep, _remember_records(result, cached_records), store=False)
            return result
        try:
            if layout == LAYOUT_SUCCESSOR:
                data = await self._successor(ep, params)
            else:
                data = await self._send(ep, ep.method, path, body)
            records = _checked_records(ep, data, f"{ep.id} {ep.name}")
        except (ServiceError, RateLimitError, MalformedResponseError) as exc:
            if cached is None:
                raise
            self.stats.stale_served += 1
            log.warning("%s %s failed (%s); serving the copy cached at %s, marked stale",
                        ep.id, ep.name, type(exc).__name__, time.strftime("%Y-%m-%d %H:%M", time.localtime(cached.stored_at)))
            result = ApiResult(ep, params, cached.data, from_cache=True, stale=True, fetched_at=cached.stored_at,
                               cache_key=cache_key, layout=layout)
            _remember_records(result, cached_records)
            return result
        stored_at = self.cache.set(cache_key, data, ep.ttl) if self.cache is not None else time.time()
        if self.memory:
            self.memory.put(cache_key, data, stored_at, ep.ttl)
        result = ApiResult(ep, params, data, fetched_at=stored_at, cache_key=cache_key, layout=layout)
        self._index_funds(ep, _remember_records(result, records), store=True)
        return result

    async def fetch(self, key: str, *, name: str | None = None, **path_params: str) -> Any:
        """Call one endpoint and return normalised records: a list, a dict, or None for no data."""
        result = await self.request(key, name=name, **path_params)
        return normalise(result)

    async def fetch_many(self, calls: Iterable[tuple[str, dict[str, Any]]], *, return_exceptions: bool = True) -> list[Any]:
        """Run many `(endpoint, params)` calls concurrently; results (or exceptions) in order."""
        coros = [self.request(key, **params) for key, params in calls]
        return await asyncio.gather(*coros, return_exceptions=return_exceptions)

    # ---- funds seen before ------------------------------------------------------------------

    def _fund_key(self, proj_id: str) -> str:
        return f"fund|{self.settings.base_url}|{proj_id}"

    def _index_funds(self, ep: Endpoint, records: Any, *, store: bool) -> None:
        """Remember every fund record of an E1/E2 answer by proj_id (on disk too when `store`)."""
        if ep.id not in FUND_INDEX_ENDPOINTS or not isinstance(records, list):
            return
        entries = [(self._fund_key(r["proj_id"]), r) for r in records
                   if isinstance(r, dict) and isinstance(r.get("proj_id"), str) and r["proj_id"]]
        if not entries:
            return
        stored_at = self.cache.set_many(entries, FUND_INDEX_TTL_S) if store and self.cache is not None else None
        stored_at = self._clock() if stored_at is None else stored_at
        for index_key, record in entries:
            self._fund_index.put(index_key, record, stored_at, FUND_INDEX_TTL_S)

    def known_fund(self, proj_id: str) -> dict | None:
        """The fund record (E1/E2 form) last seen for `proj_id` in any answer, or None. Sends nothing."""
        try:
            proj_id = validate_proj_id(proj_id)
        except BadInputError:
            return None
        index_key = self._fund_key(proj_id)
        hit = self._fund_index.get(index_key)
        if hit is not None:
            return dict(hit[0])
        stored = self.cache.get(index_key) if self.cache is not None else None
        if stored is None or not isinstance(stored.data, dict) or stored.data.get("proj_id") != proj_id:
            return None
        self._fund_index.put(index_key, stored.data, stored.stored_at, FUND_INDEX_TTL_S)
        return dict(stored.data)

    # ---- layouts ---------------------------------------------------------------------------

    @property
    def layout_name(self) -> str | None:
        """The layout in use once known (None before an "auto" client's first call)."""
        return self._layout

    async def layout(self) -> str:
        """The path layout this client speaks: as configured, or asked of the service once per base URL.

        A cheap successor call answers: 404 means the legacy layout; any other answer (data, no
        data, a rejected key) means the successor. The answer is remembered for a day in the cache.
        """
        if self._layout is not None:
            return self._layout
        if self._layout_lock is None:
            self._layout_lock = asyncio.Lock()
        async with self._layout_lock:
            if self._layout is not None:
                return self._layout
            remember = f"layout|{self.settings.base_url}"
            cached = self.cache.get(remember) if self.cache else None
            if cached is not None and cached.fresh and cached.data in (LAYOUT_LEGACY, LAYOUT_SUCCESSOR):
                self._layout = cached.data
                log.info("using the %s at %s (detected earlier, remembered for a day)", LAYOUT_LABELS[self._layout],
                         self.settings.base_url)
                return self._layout
            detected = await self._probe_layout()
            if self.cache is not None:
                self.cache.set(remember, detected, LAYOUT_TTL_S)
            self._layout = detected
            log.info("using the %s at %s (detected)", LAYOUT_LABELS[detected], self.settings.base_url)
            return detected

    async def _probe_layout(self) -> str:
        probe = endpoint("S7")
        try:
            await self._send(probe, "GET", PROBE_PATH, None, query=dict(PROBE_QUERY), layout=LAYOUT_SUCCESSOR,
                             probe=True)
        except NotFoundError:
            return LAYOUT_LEGACY
        except (AuthenticationError, BadInputError):
            return LAYOUT_SUCCESSOR  # the path exists; the key is a separate question
        return LAYOUT_SUCCESSOR

    async def _successor(self, ep: Endpoint, params: dict[str, str]) -> Any:
        """Ask every successor call of a logical endpoint, join their items, map them to the legacy shape."""
        from dashboard.records.successor import to_legacy

        items: list = []
        for call in successor_calls(ep, params):
            items.extend(await self._shared_pages(ep, call, params))
        data = to_legacy(ep.id, items, params)
        check_shape(ep, data, f"{ep.id} {ep.name}")
        return data

    async def _shared_pages(self, ep: Endpoint, call: SuccessorCall, params: dict[str, str]) -> list:
        """All items of one successor call; identical calls in flight at once are sent once (E4 and E7)."""
        path, query, body = call.build(params)
        ident = (call.method, path, tuple(sorted(query.items())), json.dumps(body, sort_keys=True))
        running = self._inflight.get(ident)
        if running is not None:
            return list(await asyncio.shield(running))
        future = asyncio.get_running_loop().create_future()
        self._inflight[ident] = future
        try:
            items = await self._all_pages(ep, call, path, query, body)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved here, so an unshared failure is not reported as unhandled
            raise
        else:
            future.set_result(items)
            return list(items)
        finally:
            self._inflight.pop(ident, None)

    async def _all_pages(self, ep: Endpoint, call: SuccessorCall, path: str, query: dict, body: dict | None) -> list:
        """Follow `next_cursor` until it is empty or null, with the same filters; never stop on a short page."""
        items: list = []
        cursor: str | None = None
        seen: set[str] = set()
        restarted = False
        pages = 0
        while True:
            page_query = dict(query)
            if cursor:
                page_query["next_cursor"] = cursor
            try:
                payload = await self._send(ep, call.method, path, body, query=page_query, layout=LAYOUT_SUCCESSOR)
            except BadInputError:
                if cursor is None or restarted:
                    raise
                # A cursor the service no longer accepts (they expire): start the call again once.
                log.info("%s %s: the page cursor was refused; starting again from the first page", ep.id, ep.name)
                items, cursor, seen, restarted, pages = [], None, set(), True, 0
                continue
            pages += 1
            self.stats.pages += 1
            page_items, cursor = unwrap_envelope(payload, f"{ep.id} {ep.name}", paginated=call.paginated)
            items.extend(page_items)
            if not cursor:
                return items
            if cursor in seen:
                raise MalformedResponseError(
                    f"{ep.id} {ep.name}: the service sent the same page cursor twice; its answer would never end",
                    endpoint=ep.id)
            seen.add(cursor)
            if pages >= self.max_pages:
                raise MalformedResponseError(
                    f"{ep.id} {ep.name}: the answer ran past {self.max_pages} pages ({len(items)} rows) and was "
                    "stopped; narrow the request", endpoint=ep.id)

    # ---- internals -------------------------------------------------------------------------

    def _cache_key(self, ep: Endpoint, layout: str, path: str, body: dict | None, params: dict[str, str]) -> str:
        if layout == LAYOUT_SUCCESSOR:
            return f"v2|successor|{self.settings.base_url}|{ep.id}|{json.dumps(params, sort_keys=True, ensure_ascii=False)}"
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
        return self._key_pattern.sub("***", text) if self._key_pattern is not None else text

    def _wait(self, state) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            return float(retry_after)
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** (state.attempt_number - 1)))
        return random.uniform(ceiling / 2, ceiling)  # "equal jitter": never zero, never in lockstep

    async def _send(self, ep: Endpoint, method: str, path: str, body: dict | None, *, query: dict | None = None,
                    layout: str = LAYOUT_LEGACY, probe: bool = False) -> Any:
        """One request with retries; on a rejected key, the secondary key is tried once."""
        primary = self._key_for(ep) if not probe else self.settings.key_for(ep.group) or self._any_key()
        secondary = self.settings.secondary_key
        use_secondary = secondary is not None and ep.group in self._secondary_for
        key = secondary if use_secondary else primary
        try:
            return await self._send_with(ep, method, path, body, query, layout, key, probe)
        except AuthenticationError as exc:
            if probe or secondary is None or use_secondary or exc.status_code not in (401, 403) or secondary == primary:
                raise
            log.info("%s %s: the key was rejected (%d); trying the secondary key once", ep.id, ep.name, exc.status_code)
            result = await self._send_with(ep, method, path, body, query, layout, secondary, probe)
            self._secondary_for.add(ep.group)
            return result

    def _any_key(self) -> SubscriptionKey | None:
        return next(iter(self.settings.all_keys()), None)

    async def _send_with(self, ep: Endpoint, method: str, path: str, body: dict | None, query: dict | None,
                         layout: str, key: SubscriptionKey | None, probe: bool) -> Any:
        headers = {KEY_HEADER: key.reveal()} if key is not None else {}
        limiter = limiter_for(key.reveal() if key else None, *self.rate_limit, self.min_interval)

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
                    return await self._attempt(ep, method, path, body, query, headers, layout, probe)
        except _Retryable as final:
            raise final.error from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    async def _attempt(self, ep: Endpoint, method: str, path: str, body: dict | None, query: dict | None,
                       headers: dict, layout: str, probe: bool) -> Any:
        where = f"{ep.id} {method} {path}"
        started = time.perf_counter()
        self.stats.requests_sent += 1
        try:
            async with asyncio.timeout(self.timeout):
                request = self._http.build_request(method, path, params=query or None, json=body, headers=headers)
                response = await self._http.send(request, stream=True)
                try:
                    content = await self._read_body(ep, where, response)
                finally:
                    await response.aclose()
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
        return self._interpret(ep, where, response, content, layout, probe)

    async def _read_body(self, ep: Endpoint, where: str, response: httpx.Response) -> bytearray:
        """The body, decompressed here with a bound: a bomb or an endless body stops at the limit.

        A 200 answer past `max_body_bytes`, or whose compression is corrupt, is a malformed answer
        (tried again, never cached); of any other answer only the first bytes are kept, for its message.
        """
        strict = response.status_code == 200
        limit = self.max_body_bytes if strict else MAX_ERROR_BODY_BYTES
        encoding = response.headers.get("content-encoding", "")
        body = bytearray()
        try:
            decoder = _BodyDecoder(encoding)
            async for chunk in _raw_chunks(response):
                if chunk is None:
                    decoder = _BodyDecoder("")
                    chunk = response.content
                for piece in decoder.feed(chunk, limit - len(body)):
                    body += piece
                if len(body) > limit:
                    if not strict:
                        del body[limit:]
                        return body
                    raise _Retryable(MalformedResponseError(
                        f"{where}: the answer grew past {limit / 2**20:g} MB and was stopped; no real answer is "
                        "that large, try again later", status_code=200, endpoint=ep.id))
            decoder.finish()
        except (zlib.error, ValueError) as exc:
            if not strict:
                return body
            log.debug("%s: undoing the body's %r encoding failed: %s", where, encoding, exc)
            raise _Retryable(MalformedResponseError(
                f"{where}: the answer's compressed body is corrupt or in an unknown encoding; try again later",
                status_code=200, endpoint=ep.id)) from None
        return body

    def _server_message(self, content: bytes | bytearray) -> str:
        text = bytes(content[:MAX_ERROR_BODY_BYTES]).decode("utf-8", errors="replace").strip()
        try:
            payload = json.loads(text)
            if isinstance(payload, dict):
                text = str(payload.get("message") or payload.get("Message") or payload.get("error") or text)
        except (ValueError, RecursionError):
            if "<html" in text[:500].lower():
                text = "an HTML error page"
        text = " ".join(self._redact(text).split())
        return text[:MAX_MESSAGE_CHARS] + ("…" if len(text) > MAX_MESSAGE_CHARS else "")

    def _interpret(self, ep: Endpoint, where: str, response: httpx.Response, content: bytearray,
                   layout: str = LAYOUT_LEGACY, probe: bool = False) -> Any:
        status = response.status_code
        if status == 204:
            return None
        if status == 200:
            return self._parse_body(ep, where, response, content, check=layout == LAYOUT_LEGACY)
        message = self._server_message(content)
        if status in (401, 403):
            raise AuthenticationError(
                f"{where}: the service rejected the subscription key ({status}: {message}). "
                "Check SEC_API_KEY / SEC_FUND_API_KEY / SEC_LICENSE_API_KEY; the fund and licence APIs may need different keys",
                status_code=status, endpoint=ep.id)
        if status == 404:
            if probe:
                raise NotFoundError(f"{where}: no such path (404)", status_code=status, endpoint=ep.id)
            if layout == LAYOUT_SUCCESSOR:
                if _is_empty_envelope(content) or (ep.group != FUND_GROUP and ep.path_params):
                    # "not found" said as an empty envelope, or for one person's or case's id: no data
                    return None
                raise NotFoundError(
                    f"{where}: {self.settings.base_url} does not serve the current service's paths (404); "
                    "use --layout legacy or auto (SEC_API_LAYOUT), and check SEC_API_BASE_URL",
                    status_code=status, endpoint=ep.id)
            raise NotFoundError(f"{where}: {RETIRED_LEGACY_MESSAGE}; if it should, check SEC_API_BASE_URL",
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

    def _parse_body(self, ep: Endpoint, where: str, response: httpx.Response, raw: bytearray,
                    check: bool = True) -> Any:
        """The JSON of a 200 answer, bounded in nesting and with every echo of a key removed."""
        start = _FIRST_NON_SPACE.match(raw).end()
        if start == len(raw):
            return None  # the real service sometimes says "no data" as 200 with an empty body
        content_type = response.headers.get("content-type", "")
        if "html" in content_type or raw[start:start + 1] == b"<":
            raise _Retryable(MalformedResponseError(
                f"{where}: the service answered an HTML page instead of JSON; it may be down for maintenance, try again later",
                status_code=200, endpoint=ep.id))
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise _Retryable(MalformedResponseError(
                f"{where}: the answer is not valid JSON ({len(raw)} bytes); try again later",
                status_code=200, endpoint=ep.id)) from None
        except RecursionError:
            data = _TOO_DEEP
        if data is _TOO_DEEP or not _within_depth_redacted(data, MAX_JSON_DEPTH, self._key_pattern):
            raise _Retryable(MalformedResponseError(
                f"{where}: the answer is nested deeper than {MAX_JSON_DEPTH} levels, which no real answer is; "
                "try again later", status_code=200, endpoint=ep.id))
        if isinstance(data, str) and self._key_pattern is not None:
            data = self._redact(data)
        if check:
            check_shape(ep, data, where)
        return data


async def _raw_chunks(response: httpx.Response):
    """The body as it came off the wire; None for a response built in memory (a mock transport),
    whose content httpx has already read and decoded."""
    try:
        async for chunk in response.aiter_raw():
            yield chunk
    except httpx.StreamConsumed:
        yield None


_FIRST_NON_SPACE = re.compile(rb"[ \t\r\n]*")
_TOO_DEEP = object()


class _BodyDecoder:
    """Undoes gzip or deflate with a cap on what comes out of each piece, so a bomb stops at the bound."""

    def __init__(self, encoding: str):
        codings = [c.strip().lower() for c in encoding.split(",") if c.strip() and c.strip().lower() != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            raise ValueError(f"unsupported content encoding {encoding[:40]!r}")
        self.coding = codings[0] if codings else ""
        self._z = None
        if self.coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif self.coding == "deflate":
            self._z = zlib.decompressobj()
        self._first = True  # "deflate" is zlib-wrapped by the standard and raw by some servers
        self._fed = False

    PIECE = 1024 * 1024  # decoded at a time, so memory stays near the bound, not twice it

    def feed(self, data: bytes, room: int) -> Iterator[bytes]:
        """What `data` decodes to, in pieces, but at most `room` + 1 bytes (one more than fits tells the caller)."""
        if self._z is None:
            yield data[:room + 1]
            return
        if not data:
            return
        self._fed = True
        first, self._first = self._first, False
        produced = 0
        while data and produced <= room and not self._z.eof:
            try:
                piece = self._z.decompress(data, min(self.PIECE, room + 1 - produced))
            except zlib.error:
                if not (first and produced == 0 and self.coding == "deflate"):
                    raise
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                first = False
                continue
            produced += len(piece)
            data = self._z.unconsumed_tail
            yield piece

    def finish(self) -> None:
        if self._z is not None and self._fed and not self._z.eof:
            raise zlib.error("the compressed body ends early")


def _within_depth_redacted(data: Any, max_depth: int, key_pattern: "re.Pattern[str] | None") -> bool:
    """False when `data` nests deeper than `max_depth`; else True, with every key echo in its text
    (values and object keys) replaced in place. One pass, no recursion."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if isinstance(node, dict):
            for name, value in node.items():
                if isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
                elif key_pattern is not None and isinstance(value, str) and key_pattern.search(value):
                    node[name] = key_pattern.sub("***", value)
            if key_pattern is not None and any(key_pattern.search(name) for name in node if isinstance(name, str)):
                items = list(node.items())
                node.clear()
                node.update((key_pattern.sub("***", k) if isinstance(k, str) else k, v) for k, v in items)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
                elif key_pattern is not None and isinstance(value, str) and key_pattern.search(value):
                    node[index] = key_pattern.sub("***", value)
    return True


def _key_pattern(keys: Iterable[SubscriptionKey]) -> "re.Pattern[str] | None":
    """One pattern for every form a key can be echoed in: as sent, in any case, or percent-encoded."""
    forms = {form for key in keys for form in (key.reveal(), urllib.parse.quote(key.reveal(), safe=""))}
    if not forms:
        return None
    return re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)), re.IGNORECASE)


def _open_disk_cache(directory) -> ResponseCache | None:
    """The disk cache, or None (one warning line) when its directory cannot be used."""
    try:
        return ResponseCache(directory)
    except CacheUnavailableError as exc:
        log.warning("%s; going on without the disk cache", exc)
        return None


def _checked_records(ep: Endpoint, data: Any, where: str) -> Any:
    """The answer's normalised records, or MalformedResponseError: what does not normalise is not cached."""
    from dashboard.records import normalise_payload

    try:
        return normalise_payload(ep.record_kind, data, list_expected=ep.returns_list)
    except MalformedResponseError as exc:
        raise MalformedResponseError(f"{where}: {exc}", status_code=200, endpoint=ep.id) from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        log.debug("%s: the answer does not normalise: %r", where, exc)
        raise MalformedResponseError(
            f"{where}: the answer's records are not of the form the service publishes ({type(exc).__name__}); "
            "the service's format may have changed", status_code=200, endpoint=ep.id) from None


def _is_empty_envelope(content: bytes | bytearray) -> bool:
    try:
        payload = json.loads(content)
    except (ValueError, RecursionError):
        return False
    return isinstance(payload, dict) and isinstance(payload.get("items"), list) and not payload["items"]


def unwrap_envelope(payload: Any, where: str, *, paginated: bool = True) -> tuple[list, str | None]:
    """(items, next cursor) of one successor answer.

    Accepted: the cursor envelope {message, page_size, next_cursor, items}, {"items": ...}, a bare
    array, a bare object (one record, licence answers), and no body at all (no data). A cursor is
    followed only when present and non-empty.
    """
    if payload is None:
        return [], None
    if isinstance(payload, list):
        return payload, None
    if isinstance(payload, dict):
        if "items" in payload:
            items = payload["items"]
            if items is None:
                items = []
            elif isinstance(items, dict):
                items = [items]
            elif not isinstance(items, list):
                raise MalformedResponseError(
                    f"{where}: the answer's items are {type(items).__name__}, not a list; the service's format may have changed")
            cursor = payload.get("next_cursor")
            if cursor is not None and not isinstance(cursor, str):
                raise MalformedResponseError(f"{where}: the page cursor is {type(cursor).__name__}, not text")
            return items, (cursor.strip() or None) if cursor else None
        if paginated:
            raise MalformedResponseError(
                f"{where}: expected the paged answer (items and next_cursor), got an object without items; "
                "the service's format may have changed")
        return [payload], None
    raise MalformedResponseError(
        f"{where}: expected a list of records, got {type(payload).__name__}; the service's format may have changed")


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


def _remember_records(result: ApiResult, records: Any) -> Any:
    """Keep the records normalised while checking an answer, so `normalise(result)` does not redo them."""
    if result.cache_key:
        with _derived_lock:
            _derived[("records", *result.identity)] = records
            while len(_derived) > _DERIVED_MAX:
                _derived.popitem(last=False)
    return records


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

    def layout(self) -> str:
        """The path layout in use (asks the service once when it is "auto")."""
        return self._run(self._async.layout())

    @property
    def layout_label(self) -> str:
        """Which paths answer, for footers and report headers; asks the service once if not known yet."""
        return LAYOUT_LABELS[self.layout()]

    def request(self, key: str, *, name: str | None = None, **path_params: str) -> ApiResult:
        return self._run(self._async.request(key, name=name, **path_params))

    def known_fund(self, proj_id: str) -> dict | None:
        """The fund record last seen for `proj_id` in a fund search or company list, or None. Sends nothing."""
        return self._async.known_fund(proj_id)

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

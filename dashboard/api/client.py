"""HTTP client for the service: one object owns the pool, timeouts, retries, rate limit, cache and keys.

Answers are read off the wire in `wire`, their records made in `dashboard.records.answers`, the
funds they list remembered in `funds`; `sync.SecClient` is the blocking facade over this client.
What to ask (layout, cache, the calls) is decided here; `sending` sends one call (keys, retries,
deadline, rate limit, status) and `listing` follows the current service's calls page by page.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import ssl
import time
from collections.abc import Callable, Iterable
from datetime import date
from typing import Any

import httpx

from dashboard.api.cache import MemoryCache, ResponseCache, damaged
from dashboard.api.deadline import within_run
from dashboard.api.endpoints import Endpoint, endpoint
from dashboard.api.funds import FundIndex
from dashboard.api.layouts import LAYOUT_LABELS, MAX_PAGES, PROBE_PATH, PROBE_QUERY, successor_calls
from dashboard.api.listing import SuccessorListing
from dashboard.api.periods import check_period, check_period_any_layout
from dashboard.api.result import ApiResult, ClientStats
from dashboard.api.sending import Sending
from dashboard.api.wire import ACCEPT_ENCODING, MAX_BODY_BYTES, key_pattern_for
from dashboard.config import (
    LAYOUT_AUTO,
    LAYOUT_LEGACY,
    LAYOUT_SUCCESSOR,
    ApiSettings,
    check_base_url,
    check_layout,
)
from dashboard.errors import (
    AuthenticationError,
    BadInputError,
    CacheUnavailableError,
    MalformedResponseError,
    NotFoundError,
    RateLimitError,
    ServiceError,
)
from dashboard.records.answers import checked_records, normalise, remember_records
from dashboard.records.successor import DROPPED_FIELDS

log = logging.getLogger("dashboard.api")

LAYOUT_TTL_S = 24 * 3600  # how long a detected layout is remembered per base URL


class AsyncSecClient(Sending, SuccessorListing):
    """Asynchronous client for all 20 endpoints.

    `request()` returns the raw payload; `fetch()` the normalised records. Calls run concurrently
    (`fetch_many`), bounded by the connection pool and the per-key rate limiter.

    `transport` replaces the network (the demo hands in its simulator here); `layout` fixes the
    path layout over the settings' one; `require_keys=False` sends calls without a key where none
    is configured instead of refusing them; `cache=None` keeps nothing on disk.
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
        layout: str | None = None,
        require_keys: bool = True,
        deadline_s: float | None = None,
    ):
        self.settings = settings or ApiSettings.from_env()
        check_base_url(self.settings.base_url)  # settings built directly are checked too, before any call
        self._today = today or date.today
        self.timeout = timeout
        self.total_timeout = total_timeout
        self.max_attempts = max_attempts
        # Outside a run with a deadline (`deadline.run_deadline`), each call's own bound: its attempts,
        # waits and retries.
        self.deadline_s = float(deadline_s if deadline_s is not None else self.settings.deadline_s)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        calls, period = self.settings.rate_limit
        self.rate_limit = (rate_limit_calls or calls, rate_limit_period or period)
        self.min_interval = self.settings.min_interval_s if min_interval is None else float(min_interval)
        self.max_pages = int(max_pages)
        self.max_body_bytes = int(max_body_bytes)
        self._key_pattern = key_pattern_for(self.settings.all_keys())
        self.stats = ClientStats()
        self.require_keys = require_keys
        # The layout in use: fixed by the option or the settings, or detected on the first call ("auto").
        chosen = check_layout(layout) if layout is not None else self.settings.layout
        self._layout: str | None = None if chosen == LAYOUT_AUTO else chosen
        self._layout_lock: asyncio.Lock | None = None
        self._inflight: dict[tuple, asyncio.Future] = {}
        self._secondary_for: set[str] = set()  # groups whose primary key was rejected and secondary worked
        if cache is True:
            cache = _configured_cache(self.settings)
        self.cache: ResponseCache | None = cache or None
        # Where the rate limit is kept: Redis when configured (every host), else beside the disk cache
        # (every process using that directory), else in this process alone.
        self._limit_dir = self.cache.directory if isinstance(self.cache, ResponseCache) else None
        self._keyless_limiter = None  # a client without a key keeps a limit of its own (`_limiter`)
        clock = self.cache.now if self.cache else time.time
        self.memory = MemoryCache(clock=clock) if self.settings.use_cache else None
        # Fund records by proj_id from every E1/E2 answer (in memory always; on disk with the cache).
        self.funds = FundIndex(self.settings.base_url, self.cache, clock)
        self._http = _http_client(self.settings.base_url, transport, timeout, total_timeout, max_connections)

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
            # Refused before anything is sent (even the layout probe) when no layout offers it; then by this layout's lag.
            check_period_any_layout(path_params["period"], self.today, self._layout)
        layout = await self.layout()
        if ep.id == "E6" and "period" in path_params:
            path_params["period"] = check_period(path_params["period"], self.today, layout)
        path = ep.build_path(path_params)
        body = ep.build_body(name)
        params = dict(path_params)
        if name is not None:
            params["name"] = body[ep.body_field] if body else name
        if layout == LAYOUT_LEGACY and ep.successor_only:
            raise BadInputError(f"{ep.summary} are published only by the current service; this service answers on "
                                "the legacy paths (use --layout successor or auto with the current service)",
                                endpoint=ep.id)
        if layout == LAYOUT_SUCCESSOR and not successor_calls(ep, params):
            # Retired with the legacy API (E9): nothing to ask, nothing to cache.
            return ApiResult(ep, params, None, layout=layout, not_published=DROPPED_FIELDS.get(ep.id, ()))
        cache_key = self._cache_key(ep, layout, path, body, params)
        fresh, cached, cached_records = self._remembered(ep, params, layout, cache_key)
        if fresh is not None:
            return fresh
        try:
            if layout == LAYOUT_SUCCESSOR:
                data = await self._successor(ep, params)
            else:
                data = await self._send(ep, ep.method, path, body)
            records = checked_records(ep, data, f"{ep.id} {ep.name}")
        except (ServiceError, RateLimitError, MalformedResponseError) as exc:
            if cached is None:
                raise
            self.stats.stale_served += 1
            log.warning("%s %s failed (%s); serving the copy cached at %s, marked stale",
                        ep.id, ep.name, type(exc).__name__, time.strftime("%Y-%m-%d %H:%M", time.localtime(cached.stored_at)))
            result = ApiResult(ep, params, cached.data, from_cache=True, stale=True, fetched_at=cached.stored_at,
                               cache_key=cache_key, layout=layout)
            remember_records(result, cached_records)
            return result
        stored_at = self.cache.set(cache_key, data, ep.ttl) if self.cache is not None else time.time()
        if self.memory:
            self.memory.put(cache_key, data, stored_at, ep.ttl)
        result = ApiResult(ep, params, data, fetched_at=stored_at, cache_key=cache_key, layout=layout)
        self.funds.remember(ep, remember_records(result, records), store=True)
        return result

    def _remembered(self, ep: Endpoint, params: dict[str, str], layout: str,
                    cache_key: str) -> tuple[ApiResult | None, Any, Any]:
        """A fresh answer kept in memory or in the cache, as `(result, None, None)`; else `(None, entry, records)`
        with the cached entry (or None) that a failed call may still serve, marked stale."""
        remembered = self.memory.get(cache_key) if self.memory else None
        if remembered is not None:
            self.stats.cache_hits += 1
            return ApiResult(ep, params, remembered[0], from_cache=True, fetched_at=remembered[1], cache_key=cache_key,
                             layout=layout), None, None
        cached = self.cache.get(cache_key) if self.cache else None
        cached_records = None
        if cached is not None:
            try:
                cached_records = checked_records(ep, cached.data, f"{ep.id} {ep.name}")
            except MalformedResponseError as exc:
                # Stored by an older version, or damaged: never served, fetched again.
                damaged.note(_place(self.cache), f"{ep.id} {ep.name} no longer reads: {exc}")
                self.cache.delete(cache_key)
                cached = None
        if cached is not None and cached.fresh:
            self.stats.cache_hits += 1
            if self.memory:
                self.memory.put(cache_key, cached.data, cached.stored_at, ep.ttl)
            result = ApiResult(ep, params, cached.data, from_cache=True, fetched_at=cached.stored_at,
                               cache_key=cache_key, layout=layout)
            self.funds.remember(ep, remember_records(result, cached_records), store=False)
            return result, None, None
        return None, cached, cached_records

    async def fetch(self, key: str, *, name: str | None = None, **path_params: str) -> Any:
        """Call one endpoint and return normalised records: a list, a dict, or None for no data."""
        result = await self.request(key, name=name, **path_params)
        return normalise(result)

    async def fetch_many(self, calls: Iterable[tuple[str, dict[str, Any]]], *, return_exceptions: bool = True) -> list[Any]:
        """Run many `(endpoint, params)` calls concurrently; results (or exceptions) in order."""
        with within_run(None):  # calls made together are one run: a service down for one is down for all
            return await asyncio.gather(*(self.request(key, **params) for key, params in calls),
                                        return_exceptions=return_exceptions)

    # ---- funds seen before ------------------------------------------------------------------

    def known_fund(self, proj_id: str) -> dict | None:
        """The fund record (E1/E2 form) last seen for `proj_id` in any answer, or None. Sends nothing."""
        return self.funds.get(proj_id)

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


    # ---- internals -------------------------------------------------------------------------

    def _cache_key(self, ep: Endpoint, layout: str, path: str, body: dict | None, params: dict[str, str]) -> str:
        if layout == LAYOUT_SUCCESSOR:
            return f"v2|successor|{self.settings.base_url}|{ep.id}|{json.dumps(params, sort_keys=True, ensure_ascii=False)}"
        body_text = json.dumps(body, sort_keys=True, ensure_ascii=False) if body else ""
        return f"v1|{self.settings.base_url}|{ep.method} {path}|{body_text}"


def _configured_cache(settings: ApiSettings) -> ResponseCache | None:
    """The answers' store the settings ask for: Redis (over the disk cache), the disk cache, or none."""
    use_disk = settings.use_cache and settings.cache_dir is not None
    cache = _open_disk_cache(settings.cache_dir) if use_disk else None
    if settings.use_cache and settings.redis_url:
        from dashboard.api.redis_store import RedisResponseCache

        cache = RedisResponseCache(settings.redis_url, fallback=cache)
    return cache


@functools.lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """The verifying TLS context every connection pool shares: httpx builds one per client otherwise,
    loading the whole CA bundle each time (~20 ms a client)."""
    return httpx.create_ssl_context()


def _http_client(base_url: str, transport: httpx.AsyncBaseTransport | None, timeout: float, total_timeout: float,
                 max_connections: int) -> httpx.AsyncClient:
    """The connection pool: JSON asked for, compressed answers accepted, redirects never followed."""
    return httpx.AsyncClient(
        base_url=base_url,
        transport=transport,
        verify=tls_context(),
        timeout=httpx.Timeout(timeout, pool=total_timeout),
        limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        follow_redirects=False,
        headers={"Accept": "application/json", "Accept-Encoding": ACCEPT_ENCODING, "User-Agent": "sec-dashboard/0.1"},
    )


def _place(cache) -> object:
    """Where a cache keeps its answers, as its damage notes name it."""
    return cache.directory if isinstance(cache, ResponseCache) else f"Redis at {cache.link.label}"


def _open_disk_cache(directory) -> ResponseCache | None:
    """The disk cache, or None (one warning line) when its directory cannot be used."""
    try:
        return ResponseCache(directory)
    except CacheUnavailableError as exc:
        log.warning("%s; going on without the disk cache", exc)
        return None

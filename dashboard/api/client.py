"""HTTP client for the service: one object owns the pool, timeouts, retries, rate limit, cache and keys.

Answers are read off the wire in `wire`, their records made in `dashboard.records.answers`, the
funds they list remembered in `funds`; `sync.SecClient` is the blocking facade over this client.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, stop_before_delay

from dashboard.api.cache import MemoryCache, ResponseCache, damaged
from dashboard.api.deadline import SILENT_ATTEMPTS, ServiceHealth, current_run, run_end, within_run
from dashboard.api.endpoints import Endpoint, endpoint
from dashboard.api.funds import FundIndex
from dashboard.api.layouts import MAX_PAGES, PROBE_PATH, PROBE_QUERY, SuccessorCall, successor_calls
from dashboard.api.paging import PageWalk, dedupe
from dashboard.api.periods import check_period, check_period_any_layout
from dashboard.api.ratelimit import limiter_for
from dashboard.api.wire import (
    ACCEPT_ENCODING,
    MAX_BODY_BYTES,
    Retryable,
    check_shape,
    is_empty_envelope,
    key_pattern_for,
    parse_body,
    parse_retry_after,
    read_body,
    server_message,
    unwrap_envelope,
)
from dashboard.config import (
    FUND_GROUP,
    LAYOUT_AUTO,
    LAYOUT_LEGACY,
    LAYOUT_SUCCESSOR,
    ApiSettings,
    SubscriptionKey,
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
from dashboard.records.successor import DROPPED_FIELDS, to_legacy

log = logging.getLogger("dashboard.api")

KEY_HEADER = "Ocp-Apim-Subscription-Key"
RETRY_STATUSES = frozenset({421, 429, 500, 502, 503, 504})
THROTTLE_STATUSES = frozenset({421, 429})
SERVER_FAULTS = frozenset({500, 502, 503, 504})  # answers that say the service is failing, not busy
LAYOUT_TTL_S = 24 * 3600  # how long a detected layout is remembered per base URL
LAYOUT_LABELS = {
    LAYOUT_SUCCESSOR: "current service paths (/v2/fund, /v1/license-check)",
    LAYOUT_LEGACY: "legacy paths (/FundFactsheet, /LicenseCheck)",
}
RETIRED_LEGACY_MESSAGE = ("this service no longer serves the legacy paths; use --layout successor or auto "
                          "(SEC_API_LAYOUT)")


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
    duplicates: int = 0  # rows the service sent twice (same key), dropped


class AsyncSecClient:
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
            use_disk = self.settings.use_cache and self.settings.cache_dir is not None
            cache = _open_disk_cache(self.settings.cache_dir) if use_disk else None
            if self.settings.use_cache and self.settings.redis_url:
                from dashboard.api.redis_store import RedisResponseCache

                cache = RedisResponseCache(self.settings.redis_url, fallback=cache)
        self.cache: ResponseCache | None = cache or None
        # Where the rate limit is kept: Redis when configured (every host), else beside the disk cache
        # (every process using that directory), else in this process alone.
        self._limit_dir = self.cache.directory if isinstance(self.cache, ResponseCache) else None
        clock = self.cache.now if self.cache else time.time
        self.memory = MemoryCache(clock=clock) if self.settings.use_cache else None
        # Fund records by proj_id from every E1/E2 answer (in memory always; on disk with the cache).
        self.funds = FundIndex(self.settings.base_url, self.cache, clock)
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
            # Refused before anything is sent (even the layout probe) when no layout offers it; then by this layout's lag.
            check_period_any_layout(path_params["period"], self.today)
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
        remembered = self.memory.get(cache_key) if self.memory else None
        if remembered is not None:
            self.stats.cache_hits += 1
            return ApiResult(ep, params, remembered[0], from_cache=True, fetched_at=remembered[1], cache_key=cache_key,
                             layout=layout)
        cached = self.cache.get(cache_key) if self.cache else None
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
            return result
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

    async def _successor(self, ep: Endpoint, params: dict[str, str]) -> Any:
        """Ask every successor call of a logical endpoint, join their items, map them to the legacy shape."""
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
        """Follow `next_cursor` until it is empty or null, with the same filters; never stop on a short page.
        Rows the service sent twice (the same key on two pages) are dropped and counted."""
        items: list = []
        walk = PageWalk(f"{ep.id} {ep.name}", self.max_pages)
        restarted = False
        while not walk.done:
            page_query = dict(query)
            if walk.cursor:
                page_query["next_cursor"] = walk.cursor
            try:
                payload = await self._send(ep, call.method, path, body, query=page_query, layout=LAYOUT_SUCCESSOR)
            except BadInputError:
                if walk.cursor is None or restarted:
                    raise
                # A cursor the service no longer accepts (they expire): start the call again once.
                log.info("%s %s: the page cursor was refused; starting again from the first page", ep.id, ep.name)
                items, restarted = [], True
                walk.restart()
                continue
            self.stats.pages += 1
            page_items, cursor = unwrap_envelope(payload, f"{ep.id} {ep.name}", paginated=call.paginated)
            items.extend(page_items)
            walk.page(len(page_items), cursor)
        items, dropped = dedupe(path, items)
        if dropped:
            self.stats.duplicates += dropped
            log.warning("%s %s: the service sent %d rows twice (same key on more than one page); each was kept once",
                        ep.id, ep.name, dropped)
        return items

    # ---- internals -------------------------------------------------------------------------

    def _cache_key(self, ep: Endpoint, layout: str, path: str, body: dict | None, params: dict[str, str]) -> str:
        if layout == LAYOUT_SUCCESSOR:
            return f"v2|successor|{self.settings.base_url}|{ep.id}|{json.dumps(params, sort_keys=True, ensure_ascii=False)}"
        body_text = json.dumps(body, sort_keys=True, ensure_ascii=False) if body else ""
        return f"v1|{self.settings.base_url}|{ep.method} {path}|{body_text}"

    def _key_for(self, ep: Endpoint) -> SubscriptionKey | None:
        key = self.settings.key_for(ep.group)
        if key is None and self.require_keys:
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

    async def send_page(self, endpoint_id: str, path: str, query: dict[str, str]) -> Any:
        """One GET of one page on the current service's layout, as every call is sent (rate limit, retries,
        keys, bounded reading, key removal), not cached: the parsed body. For callers that keep their own
        place in a long listing (the market sync stores each page before asking for the next)."""
        return await self._send(endpoint(endpoint_id), "GET", path, None, query=query, layout=LAYOUT_SUCCESSOR)

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
        limiter = limiter_for(key.reveal() if key else None, *self.rate_limit, self.min_interval,
                              directory=self._limit_dir, redis_url=self.settings.redis_url,
                              num_procs=self.settings.num_procs)

        def before_sleep(state) -> None:
            self.stats.retries += 1
            log.info("%s %s: attempt %d failed (%s); retrying in %.2f s", ep.id, ep.name, state.attempt_number,
                     state.outcome.exception(), state.upcoming_sleep)

        where = f"{ep.id} {method} {path}"
        # The run's deadline bounds everything, waits for the rate limit too. A call on its own (a market
        # sync's page, a dashboard call outside a model) is bounded in the service's time only: a wait for
        # the rate limit, which a long sync spends by design, moves its end on.
        run_ends = run_end()
        own_end = [time.monotonic() + self.deadline_s]

        def end() -> float:
            return run_ends if run_ends is not None else own_end[0]

        def past_end(state) -> bool:
            return time.monotonic() + (state.upcoming_sleep or 0.0) >= end()

        run = current_run()
        health = run.health if run is not None else ServiceHealth()  # a call on its own is its own run
        caller = object()  # this call, to the run's health: its own retries ride out a blip
        silent = [0]

        def worth_retrying(exc: BaseException) -> bool:
            if not isinstance(exc, Retryable):
                return False
            silent[0] += exc.silent
            return silent[0] < SILENT_ATTEMPTS  # each silent attempt waited the whole read timeout

        retrying = AsyncRetrying(
            retry=retry_if_exception(worth_retrying),
            stop=stop_after_attempt(self.max_attempts) | stop_before_delay(self.total_timeout) | past_end,
            wait=self._wait,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    self._check_up(ep, where, health, caller)
                    if end() <= time.monotonic():
                        raise self._past_deadline(ep, where)
                    in_limit = [True]  # still waiting for this process's rate limit (nothing sent yet)
                    try:
                        async with asyncio.timeout(run_ends - time.monotonic() if run_ends is not None else None):
                            # Held: the call counts from when its answer came back, when it surely reached the service.
                            async with limiter.hold() as waited:
                                in_limit[0] = False
                                own_end[0] += waited
                                left = end() - time.monotonic()
                                if left <= 0:
                                    raise self._limit_deadline(ep, where) if waited else self._past_deadline(ep, where)
                                return await self._attempt(ep, method, path, body, query, headers, layout, probe,
                                                           timeout=min(self.timeout, left), health=health,
                                                           caller=caller)
                    except TimeoutError:
                        raise (self._limit_deadline(ep, where) if in_limit[0] else self._past_deadline(ep, where)) from None
        except Retryable as final:
            raise final.error from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    @staticmethod
    def _check_up(ep: Endpoint, where: str, health: ServiceHealth, caller: object) -> None:
        """Fail at once, without sending, while the service is known down in this run."""
        reason = health.down(caller)
        if reason is not None:
            raise ServiceError(f"{where}: not sent: {reason}; try again later", endpoint=ep.id)

    def _past_deadline(self, ep: Endpoint, where: str) -> ServiceError:
        bound = f"{self.deadline_s:g} s" if run_end() is None else "this run's deadline"
        return ServiceError(f"{where}: no answer within {bound} (SEC_API_DEADLINE_S); the service may be overloaded "
                            "or down, try again later", endpoint=ep.id)

    def _limit_deadline(self, ep: Endpoint, where: str) -> ServiceError:
        """The run's time went waiting for our own rate limit: the service was never asked, so it is not
        called overloaded or down."""
        calls, period = self.rate_limit
        return ServiceError(f"{where}: not sent: the time allowed (SEC_API_DEADLINE_S) ran out waiting for the rate "
                            f"limit of {calls} calls per {period:g} s (SEC_API_RATE_LIMIT), used up by this run's "
                            "earlier calls; try again in a few minutes", endpoint=ep.id)

    async def _attempt(self, ep: Endpoint, method: str, path: str, body: dict | None, query: dict | None,
                       headers: dict, layout: str, probe: bool, *, timeout: float | None = None,
                       health: ServiceHealth | None = None, caller: object = None) -> Any:
        where = f"{ep.id} {method} {path}"
        timeout = self.timeout if timeout is None else timeout
        health = health or ServiceHealth()
        started = time.perf_counter()
        self.stats.requests_sent += 1
        try:
            async with asyncio.timeout(timeout):
                request = self._http.build_request(method, path, params=query or None, json=body, headers=headers)
                response = await self._http.send(request, stream=True)
                try:
                    content = await read_body(ep, where, response, self.max_body_bytes)
                finally:
                    await response.aclose()
        except (TimeoutError, httpx.TimeoutException):
            health.failed(f"the service at {self.settings.base_url} did not answer within {timeout:.3g} s", caller)
            if timeout < self.timeout:  # cut short by the deadline: nothing is left to try again in
                raise self._past_deadline(ep, where) from None
            raise Retryable(ServiceError(
                f"{where}: no answer within {timeout:g} s; the service may be overloaded, try again later",
                endpoint=ep.id), silent=True) from None
        except (httpx.UnsupportedProtocol, httpx.LocalProtocolError, httpx.ProxyError) as exc:
            # Nothing that trying again can mend.
            raise ServiceError(f"{where}: the request could not be made ({type(exc).__name__}); "
                               "check SEC_API_BASE_URL and any proxy settings", endpoint=ep.id) from None
        except httpx.TransportError as exc:
            health.failed(f"the service at {self.settings.base_url} could not be reached ({type(exc).__name__})",
                               caller)
            raise Retryable(ServiceError(
                f"{where}: could not connect to {self.settings.base_url} ({type(exc).__name__}); "
                "check the network or SEC_API_BASE_URL", endpoint=ep.id)) from None
        log.debug("%s -> %d in %.0f ms", where, response.status_code, 1000 * (time.perf_counter() - started))
        if response.status_code in SERVER_FAULTS:
            health.failed(f"the service at {self.settings.base_url} keeps failing ({response.status_code})", caller)
        else:
            health.answered()
        return self._interpret(ep, where, response, content, layout, probe)

    def _interpret(self, ep: Endpoint, where: str, response: httpx.Response, content: bytearray,
                   layout: str = LAYOUT_LEGACY, probe: bool = False) -> Any:
        status = response.status_code
        if status == 204:
            return None
        if status == 200:
            return parse_body(ep, where, response, content, self._key_pattern, check=layout == LAYOUT_LEGACY)
        message = server_message(content, self._redact)
        if status in (401, 403):
            raise AuthenticationError(
                f"{where}: the service rejected the subscription key ({status}: {message}). "
                "Check SEC_API_KEY / SEC_FUND_API_KEY / SEC_LICENSE_API_KEY; the fund and licence APIs may need different keys",
                status_code=status, endpoint=ep.id)
        if status == 404:
            if probe:
                raise NotFoundError(f"{where}: no such path (404)", status_code=status, endpoint=ep.id)
            if layout == LAYOUT_SUCCESSOR:
                if is_empty_envelope(content) or (ep.group != FUND_GROUP and ep.path_params):
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
            raise Retryable(RateLimitError(
                f"{where}: the service is throttling calls ({status}){wait_note}; wait a minute and try again",
                status_code=status, endpoint=ep.id, retry_after=retry_after), retry_after)
        if status in RETRY_STATUSES:
            raise Retryable(ServiceError(
                f"{where}: the service failed ({status}: {message}); try again later",
                status_code=status, endpoint=ep.id), parse_retry_after(response.headers.get("Retry-After")))
        if status == 400:
            raise BadInputError(f"{where}: the service refused the request (400: {message})", status_code=status, endpoint=ep.id)
        raise ServiceError(f"{where}: unexpected answer {status} ({message})", status_code=status, endpoint=ep.id)



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

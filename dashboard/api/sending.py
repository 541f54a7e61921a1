"""Sending one call to the service: its key, its attempts within the deadline, the rate limit, the answer read.

`Sending` is the part of `client.AsyncSecClient` that talks to the wire; the client decides what to ask
(layout, cache, pages) and this sends it: with the group's key (the secondary once on a rejected key),
retried with jittered backoff while the service is busy or failing, bounded by the run's deadline and
the rate limit, and each answer's status turned into data or a specific error.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, stop_before_delay

from dashboard.api.deadline import SILENT_ATTEMPTS, ServiceHealth, current_run, run_end
from dashboard.api.endpoints import Endpoint, endpoint
from dashboard.api.ratelimit import LimiterBase, limiter_for, own_limiter
from dashboard.api.result import ClientStats
from dashboard.api.wire import Retryable, is_empty_envelope, parse_body, parse_retry_after, read_body, server_message
from dashboard.config import FUND_GROUP, LAYOUT_LEGACY, LAYOUT_SUCCESSOR, ApiSettings, SubscriptionKey
from dashboard.errors import AuthenticationError, BadInputError, NotFoundError, RateLimitError, ServiceError

log = logging.getLogger("dashboard.api")

KEY_HEADER = "Ocp-Apim-Subscription-Key"
RETRY_STATUSES = frozenset({421, 429, 500, 502, 503, 504})
THROTTLE_STATUSES = frozenset({421, 429})
SERVER_FAULTS = frozenset({500, 502, 503, 504})  # answers that say the service is failing, not busy
RETIRED_LEGACY_MESSAGE = ("this service no longer serves the legacy paths; use --layout successor or auto "
                          "(SEC_API_LAYOUT)")


class Sending:
    """Sends one call (see the module's text); mixed into `AsyncSecClient`, which sets what it reads."""

    settings: ApiSettings
    require_keys: bool
    timeout: float
    total_timeout: float
    max_attempts: int
    deadline_s: float
    backoff_base: float
    backoff_max: float
    rate_limit: tuple[int, float]
    min_interval: float
    max_body_bytes: int
    stats: ClientStats
    _http: httpx.AsyncClient
    _key_pattern: re.Pattern | None
    _limit_dir: object
    _keyless_limiter: LimiterBase | None
    _secondary_for: set[str]

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

    def _limiter(self, key: SubscriptionKey | None) -> LimiterBase:
        """The rate limit this call keeps: the service counts calls per subscription key, so every client
        of a key, in this process, on this host or (with Redis) on every host, keeps one limit together.
        A client without a key (the demo's embedded simulator, a local stand-in) keeps one of its own:
        sharing one process-wide made unrelated demo sessions and runs wait for each other's calls."""
        if key is None:
            if self._keyless_limiter is None:
                self._keyless_limiter = own_limiter(*self.rate_limit, self.min_interval)
            return self._keyless_limiter
        return limiter_for(key.reveal(), *self.rate_limit, self.min_interval, directory=self._limit_dir,
                           redis_url=self.settings.redis_url, num_procs=self.settings.num_procs)

    def _any_key(self) -> SubscriptionKey | None:
        return next(iter(self.settings.all_keys()), None)

    async def _send_with(self, ep: Endpoint, method: str, path: str, body: dict | None, query: dict | None,
                         layout: str, key: SubscriptionKey | None, probe: bool) -> Any:
        headers = {KEY_HEADER: key.reveal()} if key is not None else {}
        limiter = self._limiter(key)

        where = f"{ep.id} {method} {path}"
        # The run's deadline bounds everything, waits for the rate limit too. A call on its own (a market
        # sync's page, a dashboard call outside a model) is bounded in the service's time only: a wait for
        # the rate limit, which a long sync spends by design, moves its end on.
        run_ends = run_end()
        own_end = [time.monotonic() + self.deadline_s]

        def end() -> float:
            return run_ends if run_ends is not None else own_end[0]

        run = current_run()
        health = run.health if run is not None else ServiceHealth()  # a call on its own is its own run
        caller = object()  # this call, to the run's health: its own retries ride out a blip
        retrying = self._retrying(ep, end)
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

    def _retrying(self, ep: Endpoint, end: Callable[[], float]) -> AsyncRetrying:
        """The attempts of one call: retried while worth it, within the attempts, the total time and `end()`."""
        silent = [0]

        def before_sleep(state) -> None:
            self.stats.retries += 1
            log.info("%s %s: attempt %d failed (%s); retrying in %.2f s", ep.id, ep.name, state.attempt_number,
                     state.outcome.exception(), state.upcoming_sleep)

        def past_end(state) -> bool:
            return time.monotonic() + (state.upcoming_sleep or 0.0) >= end()

        def worth_retrying(exc: BaseException) -> bool:
            if not isinstance(exc, Retryable):
                return False
            silent[0] += exc.silent
            return silent[0] < SILENT_ATTEMPTS  # each silent attempt waited the whole read timeout

        return AsyncRetrying(
            retry=retry_if_exception(worth_retrying),
            stop=stop_after_attempt(self.max_attempts) | stop_before_delay(self.total_timeout) | past_end,
            wait=self._wait,
            before_sleep=before_sleep,
            reraise=True,
        )

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

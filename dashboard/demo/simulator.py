"""The SEC Open API as a local HTTP service over the demo data: a hand-written ASGI app.

The same app runs in-process (`httpx.ASGITransport(app=app)`) and on a socket (uvicorn, see
`loopback.SimulatorServer` and `loopback.serve`). It answers like the real gateway: 204 or an empty 200 for no
data, the gateway's 401 JSON for a missing or wrong key, 404 for unknown paths, and, on request,
the failures seen in the wild (throttling, 5xx, slow answers, broken or wrongly shaped bodies).

It serves two path layouts over the same data (`layout`): the legacy one (`/FundFactsheet`,
`/LicenseCheck`, shared/spec/sec-open-api.md) and the successor one (`/v2/fund`,
`/v1/license-check`, shared/spec/successor-api.md; see dashboard/demo/successor.py). The legacy
layout's answers are in `legacy_answers`, the gateway's bodies and faults in `gateway`.
"""

from __future__ import annotations

import asyncio
import random
import threading
import urllib.parse
from collections import deque
from collections.abc import Iterable
from datetime import date
from typing import Any

from dashboard.api.endpoints import DAILY_ENDPOINTS, ENDPOINTS, Endpoint
from dashboard.demo import successor
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.gateway import (
    DEFAULT_FAULTS,
    DEFAULT_TIMEOUT_S,
    FAULT_KINDS,
    INVALID_KEY_BODY,
    JSON_TYPE,
    METHOD_NOT_ALLOWED_BODY,
    MISSING_KEY_BODY,
    NOT_FOUND_BODY,
    normalise_keys,
    send_body,
    send_fault,
    send_json,
)
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.legacy_answers import LegacyAnswers
from dashboard.demo.successor import LAYOUTS, LICENCE_SHAPES
from dashboard.demo.successor import BadRequest as _BadRequest
from dashboard.demo.successor_nav import check_quirks
from dashboard.records.labels import FEE_SPELLING_FORMS


class SimulatorApp(LegacyAnswers):
    """An ASGI application that serves the 20 endpoints over a `DemoDataset`, in either path layout.

    Attributes tests may read or set at any time: `dataset` (read live, so records added after
    creation are served), `latency_ms`, `fault_rate`, `faults`, `timeout_s`, `legacy_gone`,
    `require_key`, `request_count`, `requests` (a list of (method, path)) and `queries` (a list of
    (method, path, query string)), and for the layouts:

    - `layout`: "legacy" (the successor paths answer 404), "successor" (the legacy paths answer 404:
      the service as it is today) or "both";
    - `licence_shape`: how the successor licence endpoints answer: "envelope" (the fund endpoints'
      paginated envelope; the single-record E19/E20 as a one-item list), "items" (`{"items": list}`,
      or `{"items": object}` for E19/E20) or "bare" (a bare list, or a bare object for E19/E20);
    - `end_cursor_null`: the last page's `next_cursor` is null instead of "".
    - `fee_spelling`: the form of the fee lines on both layouts, each a documented spelling
      (records/labels.py FEE_SPELLING_FORMS): "thai_english" (`<Thai> (<English>)`, as the factsheets
      send them), "english" or "thai".
    - `nav_quirks`: the daily NAV's misbehaviours to show (dashboard/demo/successor_nav.py NAV_QUIRKS):
      "class_filter_ignored", "date_filter_ignored", "day_twice", "bad_nav".

    `legacy_gone` answers 404 on every path of both layouts, as a wrong base URL would.
    """

    def __init__(
        self,
        dataset: DemoDataset,
        *,
        valid_keys: Any = None,
        require_key: bool = True,
        latency_ms: float = 0.0,
        fault_rate: float = 0.0,
        faults: Iterable[str] = DEFAULT_FAULTS,
        seed: int = 0,
        legacy_gone: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        layout: str = "both",
        licence_shape: str = "envelope",
        end_cursor_null: bool = False,
        fee_spelling: str = "thai_english",
        nav_quirks: Iterable[str] = (),
    ):
        self.nav_quirks = check_quirks(nav_quirks)
        faults = _checked_options(fee_spelling, fault_rate, faults, licence_shape)
        self.fee_spelling = fee_spelling
        self.layout = layout  # checked by the property
        self.licence_shape = licence_shape
        self.end_cursor_null = bool(end_cursor_null)
        self.cursor_key = successor.cursor_key(seed)
        self.dataset = dataset
        self.valid_keys = normalise_keys(valid_keys)
        self.require_key = require_key
        self.latency_ms = float(latency_ms)
        self.fault_rate = float(fault_rate)
        self.faults = faults
        self.legacy_gone = legacy_gone
        self.timeout_s = float(timeout_s)
        self.request_count = 0
        self.requests: list[tuple[str, str]] = []
        self.queries: list[tuple[str, str, str]] = []
        # requests inside their latency together now, and the most since the counters were reset: how
        # many went out in one round trip (counted, not timed)
        self.in_flight = self.most_in_flight = 0
        self._rng = random.Random(seed)
        # fund answers over a market-scale data set, and daily NAVs, built once per filter set (dashboard/demo/successor.py)
        self.answer_cache: dict[tuple, list[dict]] = {}
        self._injected: deque[list] = deque()  # [kind, times left, retry_after]
        self._lock = threading.Lock()
        self._sleepers: set[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = set()
        self._routes = [(e, e.path.strip("/").split("/")) for e in (*ENDPOINTS, *DAILY_ENDPOINTS)]
        self._handlers = self._legacy_handlers()

    def __repr__(self) -> str:
        keys = "any key" if self.valid_keys is None else "configured keys"
        return (f"SimulatorApp({len(self.dataset.funds)} funds, {keys}, layout={self.layout!r}, "
                f"latency_ms={self.latency_ms}, fault_rate={self.fault_rate})")

    @property
    def layout(self) -> str:
        return self._layout

    @layout.setter
    def layout(self, value: str) -> None:
        if value not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {value!r}")
        self._layout = value

    # ---- test controls ----------------------------------------------------------------------------

    def inject(self, kind: str, times: int = 1, retry_after: float | None = None) -> None:
        """Make the next `times` requests answer the fault `kind` (queued after earlier injections)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; known: {', '.join(FAULT_KINDS)}")
        if times < 1:
            raise ValueError("times must be at least 1")
        with self._lock:
            self._injected.append([kind, int(times), retry_after])

    def clear_faults(self) -> None:
        with self._lock:
            self._injected.clear()

    def reset_counters(self) -> None:
        self.request_count = 0
        self.requests = []
        self.queries = []
        self.most_in_flight = self.in_flight

    def _next_fault(self) -> tuple[str, float | None] | None:
        with self._lock:
            if self._injected:
                entry = self._injected[0]
                entry[1] -= 1
                if entry[1] <= 0:
                    self._injected.popleft()
                return entry[0], entry[2]
        if self.fault_rate > 0 and self._rng.random() < self.fault_rate:
            kind = self._rng.choice(self.faults)
            retry_after = self._rng.choice((None, 1)) if kind in ("429", "421", "503") else None
            return kind, retry_after
        return None

    # ---- ASGI -------------------------------------------------------------------------------------

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = await self._read_body(receive)
        method = scope["method"].upper()
        path = scope.get("path", "")
        self.request_count += 1
        self.requests.append((method, path))
        self.queries.append((method, path, scope.get("query_string", b"").decode("latin-1")))
        if self.latency_ms > 0:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            try:
                await asyncio.sleep(self.latency_ms / 1000.0)
            finally:
                self.in_flight -= 1
        if self.legacy_gone:
            await send_json(send, 404, NOT_FOUND_BODY)
            return
        in_successor = successor.is_successor_path(path)
        if self._layout == ("legacy" if in_successor else "successor"):
            await send_json(send, 404, NOT_FOUND_BODY)
            return
        if in_successor:
            await self._successor(scope, method, path, body, receive, send)
            return
        matches = self._match(scope)
        fault = self._next_fault()
        chosen = await self._gate(scope, method, matches, fault, receive, send, successor_path=False)
        if chosen is None:
            return
        endpoint, params = chosen
        try:
            payload = self._handlers[endpoint.id](params, self._search_body(endpoint, body))
        except _BadRequest as exc:
            await send_json(send, 400, {"statusCode": 400, "message": str(exc)})
            return
        if payload:
            await send_json(send, 200, payload)
            return
        first_param = next(iter(params.values()), "")
        if (first_param, endpoint.id) in self.dataset.empty_200:
            await send_body(send, 200, b"", [(b"content-type", JSON_TYPE.encode())])
        else:
            await send_body(send, 204, b"", [])

    async def _gate(self, scope, method: str, matches: list, fault, receive, send, *, successor_path: bool):
        """The steps every request passes on either layout: an injected fault, 404 for no route, 405 for
        another method, 401 for a missing or wrong key. Returns (route, params), or None once answered."""
        if fault is not None:
            kind, retry_after = fault
            if kind != "timeout":
                await send_fault(send, kind, retry_after, matches[0][0] if matches else None,
                                 successor_path=successor_path)
                return None
            # A slow answer: the correct response, after the client has probably given up.
            if await self._sleep_or_disconnect(self.timeout_s, receive):
                return None
        if not matches:
            await send_json(send, 404, NOT_FOUND_BODY)
            return None
        chosen = next(((r, p) for r, p in matches if r.method == method), None)
        if chosen is None:
            allow = ", ".join(sorted({r.method for r, _ in matches}))
            await send_json(send, 405, METHOD_NOT_ALLOWED_BODY, [(b"allow", allow.encode())])
            return None
        denied = self._check_key(scope, chosen[0].group)
        if denied is not None:
            await send_json(send, 401, denied)
            return None
        return chosen

    async def _successor(self, scope, method: str, path: str, body: bytes, receive, send) -> None:
        """A request on the successor layout: the same steps as a legacy one, its own routes and answers."""
        matches = successor.match(self._segments(scope))
        fault = self._next_fault()
        chosen = await self._gate(scope, method, matches, fault, receive, send, successor_path=True)
        if chosen is None:
            return
        route, params = chosen
        try:
            result = successor.answer(self, route, params, path, scope.get("query_string", b"").decode("latin-1"), body)
        except _BadRequest as exc:
            await send_json(send, 400, {"statusCode": 400, "message": str(exc)})
            return
        if result.status == 204:
            await send_body(send, 204, b"", [])
        elif result.empty_body:
            await send_body(send, result.status, b"", [(b"content-type", JSON_TYPE.encode())])
        else:
            await send_json(send, result.status, result.payload)

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    async def _read_body(receive) -> bytes:
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def _sleep_or_disconnect(self, seconds: float, receive) -> bool:
        """Sleep `seconds`; True if the client went away first. Cancellable; `wake_sleepers` ends it."""
        async def disconnected() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        loop = asyncio.get_running_loop()
        wake = loop.create_future()
        watcher = asyncio.ensure_future(disconnected())
        entry = (loop, wake)
        with self._lock:
            self._sleepers.add(entry)
        try:
            await asyncio.wait({watcher, wake}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
            return watcher.done()
        finally:
            watcher.cancel()
            with self._lock:
                self._sleepers.discard(entry)

    def wake_sleepers(self) -> None:
        """End every slow ('timeout') answer now; safe to call from any thread."""
        with self._lock:
            sleepers = list(self._sleepers)
        for loop, wake in sleepers:
            try:
                loop.call_soon_threadsafe(lambda w=wake: w.done() or w.set_result(None))
            except RuntimeError:  # that loop is already closed
                pass

    @staticmethod
    def _segments(scope) -> list[str]:
        """The percent-decoded path segments; [] for a path with a trailing slash (never a route)."""
        raw = scope.get("raw_path") or scope.get("path", "").encode("utf-8")
        raw = raw.split(b"?", 1)[0].decode("latin-1")
        if raw.endswith("/") and raw != "/":
            return []
        return [urllib.parse.unquote(s, encoding="utf-8", errors="replace") for s in raw.strip("/").split("/")]

    def _match(self, scope) -> list[tuple[Endpoint, dict[str, str]]]:
        """Endpoints whose path template matches, with their percent-decoded parameters."""
        segments = self._segments(scope)
        if not segments:
            return []
        matches = []
        for endpoint, template in self._routes:
            fit = successor.match_template(template, segments)
            if fit is not None:
                matches.append((endpoint, fit[0]))
        return matches

    def _check_key(self, scope, group: str) -> dict | None:
        """The gateway's 401 body, or None when the key is accepted. The key is never echoed."""
        if not self.require_key:
            return None
        key = ""
        for name, value in scope.get("headers", ()):
            if name.lower() == b"ocp-apim-subscription-key":
                key = value.decode("latin-1").strip()
                break
        if not key:
            return MISSING_KEY_BODY
        accepted = self.valid_keys
        if isinstance(accepted, dict):
            if group not in accepted:
                return INVALID_KEY_BODY
            accepted = accepted[group]
        if accepted is not None and key not in accepted:
            return INVALID_KEY_BODY
        return None

def _checked_options(fee_spelling: str, fault_rate: float, faults: Iterable[str], licence_shape: str) -> tuple[str, ...]:
    """Refuse options the simulator does not know; the fault kinds as a tuple."""
    if fee_spelling not in FEE_SPELLING_FORMS:
        raise ValueError(f"fee_spelling must be one of {', '.join(FEE_SPELLING_FORMS)}, not {fee_spelling!r}")
    if not 0.0 <= fault_rate <= 1.0:
        raise ValueError("fault_rate must be between 0 and 1")
    faults = tuple(faults)
    unknown = [k for k in faults if k not in FAULT_KINDS]
    if unknown or not faults:
        raise ValueError(f"unknown fault kinds {unknown}; known: {', '.join(FAULT_KINDS)}")
    if licence_shape not in LICENCE_SHAPES:
        raise ValueError(f"licence_shape must be one of {', '.join(LICENCE_SHAPES)}, not {licence_shape!r}")
    return faults


def create_app(
    dataset: DemoDataset | None = None,
    *,
    valid_keys: Any = None,
    require_key: bool = True,
    latency_ms: float = 0.0,
    fault_rate: float = 0.0,
    faults: Iterable[str] = DEFAULT_FAULTS,
    seed: int = 0,
    today: date | None = None,
    legacy_gone: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    layout: str = "both",
    licence_shape: str = "envelope",
    end_cursor_null: bool = False,
    fee_spelling: str = "thai_english",
    nav_quirks: Iterable[str] = (),
) -> SimulatorApp:
    """A simulator over `dataset` (the default demo data set for `today` when None).

    `valid_keys`: None accepts any non-empty key; a set accepts those keys for every endpoint;
    {"fund": set, "license": set} gives each endpoint group its own keys (None for a group: any).
    `layout`: "legacy", "successor" or "both" path layouts (see `SimulatorApp`).
    """
    if dataset is None:
        dataset = generate_demo_dataset(today=today)
    return SimulatorApp(
        dataset, valid_keys=valid_keys, require_key=require_key, latency_ms=latency_ms, fault_rate=fault_rate,
        faults=faults, seed=seed, legacy_gone=legacy_gone, timeout_s=timeout_s, layout=layout,
        licence_shape=licence_shape, end_cursor_null=end_cursor_null, fee_spelling=fee_spelling, nav_quirks=nav_quirks,
    )

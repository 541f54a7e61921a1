"""The SEC Open API as a local HTTP service over the demo data: a hand-written ASGI app.

The same app runs in-process (`httpx.ASGITransport(app=app)`) and on a socket (uvicorn, see
`SimulatorServer` and `serve`). It answers like the real gateway: 204 or an empty 200 for no
data, the gateway's 401 JSON for a missing or wrong key, 404 for unknown paths, and, on request,
the failures seen in the wild (throttling, 5xx, slow answers, broken or wrongly shaped bodies).

It serves two path layouts over the same data (`layout`): the legacy one (`/FundFactsheet`,
`/LicenseCheck`, shared/spec/sec-open-api.md) and the successor one (`/v2/fund`,
`/v1/license-check`, shared/spec/successor-api.md; see dashboard/demo/successor.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import socket
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from dashboard.api.endpoints import DAILY_ENDPOINTS, ENDPOINTS, Endpoint
from dashboard.config import FUND_GROUP, LICENSE_GROUP
from dashboard.demo import successor
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.successor import LAYOUTS, LICENCE_SHAPES
from dashboard.demo.successor import BadRequest as _BadRequest
from dashboard.demo.successor_nav import check_quirks, legacy_daily_nav
from dashboard.records.labels import FEE_SPELLING_FORMS, fee_type_key, fee_type_text

KEY_HEADER = "Ocp-Apim-Subscription-Key"
FAULT_KINDS = ("429", "421", "500", "502", "503", "504", "timeout", "malformed_json", "html", "wrong_shape")
# What random faults (fault_rate) draw from by default: the transient failures a client retries.
# Slow answers and broken bodies are for tests, which inject them on purpose.
DEFAULT_FAULTS = ("429", "421", "500", "502", "503", "504")
DEFAULT_TIMEOUT_S = 30.0

MISSING_KEY_BODY = {
    "statusCode": 401,
    "message": "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.",
}
INVALID_KEY_BODY = {
    "statusCode": 401,
    "message": "Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.",
}
NOT_FOUND_BODY = {"statusCode": 404, "message": "Resource not found"}
METHOD_NOT_ALLOWED_BODY = {"statusCode": 405, "message": "Method not allowed"}

JSON_TYPE = "application/json; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"
_PERIOD = re.compile(r"^\d{4}(03|06|09|12)$")

_HTML_PAGES = {
    "502": ("502 Bad Gateway", "The gateway received an invalid response from the backend."),
    "503": ("503 Service Unavailable", "The service is temporarily unavailable. Please try again later."),
    "504": ("504 Gateway Timeout", "The gateway did not receive a response from the backend in time."),
    "html": ("Service Unavailable", "The site is under maintenance. We apologise for the inconvenience."),
}


def _html_page(kind: str) -> bytes:
    title, text = _HTML_PAGES[kind]
    return (
        f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{text}</p><hr><p>demo simulator</p></body></html>\n"
    ).encode("utf-8")


def _normalise_keys(valid_keys: Any) -> Any:
    """None (any non-empty key), a set of keys, or {group: None | set of keys}."""
    if valid_keys is None:
        return None
    if isinstance(valid_keys, str):
        return {valid_keys}
    if isinstance(valid_keys, Mapping):
        out = {}
        for group, keys in valid_keys.items():
            out[group] = None if keys is None else _normalise_keys(keys)
        return out
    if isinstance(valid_keys, Iterable):
        return {str(k) for k in valid_keys}
    raise TypeError("valid_keys must be None, a string, a set of strings or a dict {group: set}")


class SimulatorApp:
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
        if fee_spelling not in FEE_SPELLING_FORMS:
            raise ValueError(f"fee_spelling must be one of {', '.join(FEE_SPELLING_FORMS)}, not {fee_spelling!r}")
        self.fee_spelling = fee_spelling
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError("fault_rate must be between 0 and 1")
        faults = tuple(faults)
        unknown = [k for k in faults if k not in FAULT_KINDS]
        if unknown or not faults:
            raise ValueError(f"unknown fault kinds {unknown}; known: {', '.join(FAULT_KINDS)}")
        if licence_shape not in LICENCE_SHAPES:
            raise ValueError(f"licence_shape must be one of {', '.join(LICENCE_SHAPES)}, not {licence_shape!r}")
        self.layout = layout  # checked by the property
        self.licence_shape = licence_shape
        self.end_cursor_null = bool(end_cursor_null)
        self.cursor_key = successor.cursor_key(seed)
        self.dataset = dataset
        self.valid_keys = _normalise_keys(valid_keys)
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
        self._handlers = {
            "E1": self._fund_search, "E2": self._amc_funds, "E3": self._class_search,
            "E4": lambda p, b: self.dataset.classes.get(p["proj_id"]),
            "E5": lambda p, b: self.dataset.investment.get(p["proj_id"]),
            "E6": self._holdings,
            "E7": lambda p, b: self.dataset.project_type.get(p["proj_id"]),
            "E8": lambda p, b: self.dataset.suitability.get(p["proj_id"]),
            "E9": lambda p, b: self.dataset.return_estimate.get(p["proj_id"]),
            "E10": lambda p, b: self.dataset.performance.get(p["proj_id"]),
            "E11": lambda p, b: self.dataset.redemption.get(p["proj_id"]),
            "E12": self._fees,
            "E13": lambda p, b: self.dataset.allocation.get(p["proj_id"]),
            "E14": lambda p, b: self.dataset.urls.get(p["proj_id"]),
            "E15": self._licensee_search,
            "E16": lambda p, b: self.dataset.company_register(),
            "E17": lambda p, b: self.dataset.approvals.get(p["unique_id"]),
            "E18": lambda p, b: self.dataset.duties.get(p["unique_id"]),
            "E19": lambda p, b: self.dataset.enforcement.get((p["unique_id"], p["case_id"])),
            "E20": lambda p, b: self.dataset.alerts.get(p["case_id"]),
            "D1": self._daily_nav,
        }

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
            await _send_json(send, 404, NOT_FOUND_BODY)
            return
        in_successor = successor.is_successor_path(path)
        if self._layout == ("legacy" if in_successor else "successor"):
            await _send_json(send, 404, NOT_FOUND_BODY)
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
            await _send_json(send, 400, {"statusCode": 400, "message": str(exc)})
            return
        if payload:
            await _send_json(send, 200, payload)
            return
        first_param = next(iter(params.values()), "")
        if (first_param, endpoint.id) in self.dataset.empty_200:
            await _send(send, 200, b"", [(b"content-type", JSON_TYPE.encode())])
        else:
            await _send(send, 204, b"", [])

    async def _gate(self, scope, method: str, matches: list, fault, receive, send, *, successor_path: bool):
        """The steps every request passes on either layout: an injected fault, 404 for no route, 405 for
        another method, 401 for a missing or wrong key. Returns (route, params), or None once answered."""
        if fault is not None:
            kind, retry_after = fault
            if kind != "timeout":
                await self._send_fault(send, kind, retry_after, matches[0][0] if matches else None,
                                       successor_path=successor_path)
                return None
            # A slow answer: the correct response, after the client has probably given up.
            if await self._sleep_or_disconnect(self.timeout_s, receive):
                return None
        if not matches:
            await _send_json(send, 404, NOT_FOUND_BODY)
            return None
        chosen = next(((r, p) for r, p in matches if r.method == method), None)
        if chosen is None:
            allow = ", ".join(sorted({r.method for r, _ in matches}))
            await _send_json(send, 405, METHOD_NOT_ALLOWED_BODY, [(b"allow", allow.encode())])
            return None
        denied = self._check_key(scope, chosen[0].group)
        if denied is not None:
            await _send_json(send, 401, denied)
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
            await _send_json(send, 400, {"statusCode": 400, "message": str(exc)})
            return
        if result.status == 204:
            await _send(send, 204, b"", [])
        elif result.empty_body:
            await _send(send, result.status, b"", [(b"content-type", JSON_TYPE.encode())])
        else:
            await _send_json(send, result.status, result.payload)

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

    @staticmethod
    def _search_body(endpoint: Endpoint, body: bytes) -> str | None:
        if endpoint.method != "POST":
            return None
        try:
            data = json.loads(body.decode("utf-8")) if body.strip() else None
        except (UnicodeDecodeError, ValueError):
            raise _BadRequest("The request body is not valid JSON.") from None
        if not isinstance(data, dict):
            raise _BadRequest("The request body must be a JSON object with a 'name' field.")
        name = data.get("name")
        if name is None and endpoint.id == "E15":
            name = data.get("Name")
        if not isinstance(name, str) or not name.strip():
            raise _BadRequest("The 'name' field is required and must be a non-empty string.")
        return name.strip()

    async def _send_fault(self, send, kind: str, retry_after: float | None, endpoint: Any,
                          successor_path: bool = False) -> None:
        headers = []
        if retry_after is not None:
            value = str(int(retry_after)) if float(retry_after).is_integer() else str(retry_after)
            headers.append((b"retry-after", value.encode()))
        if kind == "429":
            wait = f"in {value} seconds" if retry_after is not None else "later"
            await _send_json(send, 429, {"statusCode": 429, "message": f"Rate limit is exceeded. Try again {wait}."}, headers)
        elif kind == "421":
            await _send_json(send, 421, {"statusCode": 421, "message": "Too many requests. The call quota of this subscription is exceeded."}, headers)
        elif kind == "500":
            await _send_json(send, 500, {"statusCode": 500, "message": "Internal server error"}, headers)
        elif kind in ("502", "503", "504"):
            await _send(send, int(kind), _html_page(kind), headers + [(b"content-type", HTML_TYPE.encode())])
        elif kind == "html":
            await _send(send, 200, _html_page("html"), headers + [(b"content-type", HTML_TYPE.encode())])
        elif kind == "malformed_json":
            if successor_path:  # a cut-off envelope
                start = b'{"message": "success", "page_size": 100, "next_cursor": "", "items": ['
            else:
                start = b"[" if endpoint is None or endpoint.returns_list else b""
            text = start + '{"last_upd_date": "2025-07-02T06:47:30.35", "proj_name_th": "กองทุนเปิด เดโม'.encode("utf-8")
            await _send(send, 200, text, headers + [(b"content-type", JSON_TYPE.encode())])
        else:  # wrong_shape: an object where a list is expected, a bare string where an object is
            payload: Any
            if successor_path:
                # fund envelope expected: an object without items; licence answers: a bare string
                payload = {"statusCode": 200, "message": "OK", "data": None} if endpoint is None or endpoint.is_fund else "OK"
            elif endpoint is not None and endpoint.returns_list:
                payload = {"statusCode": 200, "message": "OK", "data": None}
            else:
                payload = "OK"
            await _send_json(send, 200, payload, headers)

    # ---- endpoint handlers ------------------------------------------------------------------------

    def _fund_search(self, params, name: str) -> list[dict]:
        return _search(self.dataset.funds, name, ("proj_name_th", "proj_name_en", "proj_abbr_name"))

    def _amc_funds(self, params, body) -> list[dict]:
        return [f for f in self.dataset.funds if f.get("unique_id") == params["unique_id"]]

    def _class_search(self, params, name: str) -> list[dict]:
        records = [c for classes in self.dataset.classes.values() for c in classes]
        return _search(records, name, ("proj_abbr_name", "class_abbr_name"))

    def _fees(self, p: dict, b: Any) -> list[dict] | None:
        """E12 with its fee lines in the form `fee_spelling` names."""
        rows = self.dataset.fees.get(p["proj_id"])
        if rows is None:
            return None
        out = []
        for row in rows:
            kind = fee_type_key(row.get("fee_type_desc"))
            out.append({**row, "fee_type_desc": fee_type_text(kind, self.fee_spelling)} if kind else row)
        return out

    def _holdings(self, params, body) -> list[dict] | None:
        period = params["period"]
        if not _PERIOD.match(period):
            raise _BadRequest(f"Invalid period {period!r}: use YYYYMM with a quarter-end month (03, 06, 09 or 12).")
        return self.dataset.holdings.get(params["proj_id"], {}).get(period)

    def _daily_nav(self, params, body) -> list[dict] | None:
        try:
            date.fromisoformat(params["nav_date"])
        except ValueError:
            raise _BadRequest(f"Invalid nav_date {params['nav_date']!r}: use YYYY-MM-DD.") from None
        return legacy_daily_nav(self.dataset, params["proj_id"], params["nav_date"])

    def _licensee_search(self, params, name: str) -> list[dict]:
        return _search(self.dataset.licensees, name, ("name_th", "name_en"))


def _search(records: list[dict], name: str, keys: tuple[str, ...]) -> list[dict]:
    needle = name.casefold()
    return [r for r in records if any(needle in str(r.get(k) or "").casefold() for k in keys)]


async def _send(send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    if status != 204:
        headers = headers + [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body if status != 204 else b""})


async def _send_json(send, status: int, payload: Any, headers: list | None = None) -> None:
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    await _send(send, status, body, (headers or []) + [(b"content-type", JSON_TYPE.encode())])


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


# ---- on a socket ----------------------------------------------------------------------------------


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class SimulatorServer:
    """Runs the simulator with uvicorn in a daemon thread: `with SimulatorServer() as server: ...`.

    `port=0` picks a free port; `base_url` has the real one. Options other than host and port go
    to `create_app` when no app is given.
    """

    def __init__(self, app: SimulatorApp | None = None, *, host: str = "127.0.0.1", port: int = 0,
                 startup_timeout: float = 10.0, **app_options):
        self.app = app if app is not None else create_app(**app_options)
        self.host = host
        self.port = port
        self.startup_timeout = startup_timeout
        self._server = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return _url(self.host, self.port)

    def start(self) -> "SimulatorServer":
        import uvicorn

        if self._thread is not None:
            return self
        config = uvicorn.Config(
            self.app, host=self.host, port=self.port, log_level="warning", lifespan="off",
            access_log=False, timeout_graceful_shutdown=1,
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="sec-demo-simulator", daemon=True)
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the demo simulator could not start on {_url(self.host, self.port)}")
            time.sleep(0.01)
        self.port = server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        self.app.wake_sleepers()  # slow answers would otherwise hold the shutdown
        server.should_exit = True
        thread.join(timeout=5)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> "SimulatorServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self._thread is not None else "stopped"
        return f"SimulatorServer({self.base_url}, {state})"


def keys_from_env(environ: Mapping[str, str] | None = None) -> dict | None:
    """Per-group keys from SEC_API_KEY / SEC_FUND_API_KEY / SEC_LICENSE_API_KEY; None when none is set.

    A group's own key and the shared key are both accepted, as the dashboard falls back from one to
    the other; a group with neither accepts any non-empty key.
    """
    env = os.environ if environ is None else environ
    shared, fund, lic = (env.get(name, "").strip() for name in ("SEC_API_KEY", "SEC_FUND_API_KEY", "SEC_LICENSE_API_KEY"))
    if not (shared or fund or lic):
        return None
    return {
        FUND_GROUP: {k for k in (fund, shared) if k} or None,
        LICENSE_GROUP: {k for k in (lic, shared) if k} or None,
    }


def serve(port: int = 8765, host: str = "127.0.0.1", latency_ms: float = 0, fault_rate: float = 0, seed: int = 0,
          valid_keys: Any = None, layout: str = "both") -> None:
    """Serve the simulator until interrupted (the `sec-dashboard demo-server` command)."""
    import uvicorn

    if valid_keys is None:
        valid_keys = keys_from_env()
    app = create_app(valid_keys=valid_keys, latency_ms=latency_ms, fault_rate=fault_rate, seed=seed, layout=layout)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))  # bound here so the printed URL has the real port, also for port 0
    bound = sock.getsockname()[1]
    keys = "keys from SEC_*API_KEY" if valid_keys is not None else "any non-empty subscription key"
    print(f"{app.dataset.label}: SEC Open API simulator on {_url(host, bound)} ({keys}; {layout} layout; Ctrl+C stops)",
          flush=True)
    config = uvicorn.Config(app, host=host, port=bound, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])

"""The successor layout (`/v2/fund/...`, `/v1/license-check/licensee/...`) over the demo data set.

The legacy records of a `DemoDataset` stay the single source: every successor answer is converted
from them on request, with the successor's names and formats (shared/spec/successor-api.md):
status words instead of codes, JSON numbers, one profile row per unit class (`main` for a fund
without classes), Thai dealing-period text, currencies padded to 50 characters, plain risk text,
dropped fields gone. What only the successor publishes (company names, policy class, tax incentive,
ISIN, factsheet dates, company licences...) comes from the data set's successor fields
(`fund_details`, `successor_amcs`, `company_licences`, `business_acts`, `alert_details`); a fund
added after generation gets plain defaults.

Fund endpoints answer the cursor envelope `{"message", "page_size", "next_cursor", "items"}` in a
deterministic but shuffled row order; the cursor is opaque and bound to the endpoint and its
filters. Licence endpoints answer in the shape the app's `licence_shape` names. `SimulatorApp`
(dashboard/demo/simulator.py) routes requests here; this module knows nothing about ASGI. The rows
themselves are built in successor_funds.py and successor_licences.py (value conversions in
successor_values.py); this module routes, filters, pages and wraps them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import random
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from dashboard.config import FUND_GROUP, LICENSE_GROUP
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.successor_funds import ASSETLIAB_DESC, MAIN_CLASS, FundRows  # noqa: F401 (ASSETLIAB_DESC, MAIN_CLASS: re-exported)
from dashboard.demo.successor_licences import LicenceRows, split_person_name  # noqa: F401 (re-exported)
from dashboard.demo.successor_nav import dividend_rows, nav_rows

FUND_PREFIX = "/v2/fund"
LICENCE_ROOT = "/v1/license-check"
LAYOUTS = ("legacy", "successor", "both")
LICENCE_SHAPES = ("envelope", "items", "bare")
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 100
INVALID_CURSOR = "invalid cursor"
ANSWER_CACHE_SIZE = 32  # whole-market answers kept for the pages after the first (a sync pages a few at once)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PERIOD = re.compile(r"^\d{4}(0[1-9]|1[0-2])$")


class BadRequest(Exception):
    """The request is malformed: answered 400 with this message."""


@dataclass(frozen=True)
class Route:
    """One successor endpoint: method, path template, key group and what it accepts."""

    id: str  # the path below the prefix, e.g. "factsheet/fees", "licensee/person/{unique_id}/license"
    method: str
    path: str
    group: str
    filters: tuple[str, ...] = ()  # query parameters it reads (page_size and next_cursor aside)
    legacy: tuple[str, ...] = ()  # legacy endpoints it replaces (their empty_200 pairs answer an empty 200)
    single: bool = False  # one record (E19, E20) rather than a list

    @property
    def is_fund(self) -> bool:
        return self.group == FUND_GROUP

    @property
    def returns_list(self) -> bool:
        return not self.single


_FACTSHEET = ("proj_id", "start_date", "end_date", "latest")


def _fund(id_: str, filters: tuple[str, ...], legacy: tuple[str, ...] = ()) -> Route:
    return Route(id_, "GET", f"{FUND_PREFIX}/{id_}", FUND_GROUP, filters, legacy)


def _licence(method: str, id_: str, legacy: tuple[str, ...] = (), single: bool = False) -> Route:
    return Route(id_, method, f"{LICENCE_ROOT}/{id_}", LICENSE_GROUP, (), legacy, single)


FUND_ROUTES = (
    _fund("general-info/amcs", ()),
    _fund("general-info/profiles", ("fund_class_name", "fund_status", "project_info", "company_info"),
          ("E1", "E2", "E3", "E4", "E7")),
    _fund("factsheet/subscription-redemption-minimums", _FACTSHEET + ("fund_class_name",), ("E5",)),
    _fund("factsheet/subscription-redemption-periods", _FACTSHEET + ("fund_class_name",), ("E11",)),
    _fund("factsheet/risk-spectrum", _FACTSHEET, ("E8",)),
    _fund("factsheet/performance", _FACTSHEET + ("fund_class_name",), ("E10",)),
    _fund("factsheet/fees", _FACTSHEET + ("fund_class_name",), ("E12",)),
    # fund_class_name: only sec-go documents it here; accepted, and meaningless for project-level rows
    _fund("factsheet/asset-allocation", _FACTSHEET + ("fund_class_name",), ("E13",)),
    _fund("factsheet/urls", ("proj_id", "fund_class_name"), ("E14",)),
    _fund("outstanding/portfolio", ("proj_id", "start_period", "end_period"), ("E6",)),
    _fund("daily-info/nav", ("proj_id", "start_nav_date", "end_nav_date", "fund_class_name")),
    # the date and class filters: only sec-go documents them (successor-api.md 2.1, 21)
    _fund("daily-info/dividend-history", ("proj_id", "start_dividend_date", "end_dividend_date", "class_abbr_name")),
)
LICENCE_ROUTES = (
    _licence("POST", "licensee/person"),
    _licence("GET", "licensee/company", ("E16",)),
    _licence("POST", "licensee/company", ("E15",)),
    _licence("GET", "licensee/person/{unique_id}/license", ("E17",)),
    _licence("GET", "licensee/company/{unique_id}/personnel"),
    _licence("GET", "licensee/person/{unique_id}/work_info", ("E18",)),
    _licence("GET", "licensee/company/{unique_id}/license"),
    _licence("GET", "licensee/company/{unique_id}/business_act"),
    _licence("GET", "licensee/{unique_id}/enforcement"),
    _licence("GET", "licensee/{unique_id}/enforcement/{case_id}", ("E19",), single=True),
    _licence("GET", "licensee/investoralert/alertdetail"),
    _licence("GET", "licensee/investoralert/{case_id}/alertaction", ("E20",), single=True),
)
ROUTES = FUND_ROUTES + LICENCE_ROUTES
_TEMPLATES = [(r, r.path.strip("/").split("/")) for r in ROUTES]


def is_successor_path(path: str) -> bool:
    """Whether a request path lies in the successor layout (`/v2/fund...`, `/v1/license-check...`)."""
    return any(path == p or path.startswith(p + "/") for p in (FUND_PREFIX, LICENCE_ROOT))


def match_template(template: list[str], segments: list[str]) -> tuple[dict[str, str], int] | None:
    """(path parameters, literal segments matched) when a path template fits the segments, else None."""
    if len(template) != len(segments):
        return None
    params: dict[str, str] = {}
    literals = 0
    for want, got in zip(template, segments):
        if want.startswith("{"):
            if not got:
                return None
            params[want[1:-1]] = got
        elif want != got:
            return None
        else:
            literals += 1
    return params, literals


def match(segments: list[str]) -> list[tuple[Route, dict[str, str]]]:
    """Routes whose template matches the decoded path segments; only the most specific ones."""
    found = []
    for route, template in _TEMPLATES:
        fit = match_template(template, segments)
        if fit is not None:
            found.append((fit[1], route, fit[0]))
    if not found:
        return []
    best = max(n for n, _, _ in found)
    return [(route, params) for n, route, params in found if n == best]


def no_data_status(proj_id: str) -> int:
    """How a per-fund query without rows answers, fixed per fund: 204, or 200 with `items: []`."""
    return 204 if hashlib.sha256(proj_id.encode("utf-8")).digest()[0] % 2 else 200


def cursor_key(seed: int) -> bytes:
    return hashlib.sha256(f"sec-demo-simulator-cursor:{seed}".encode()).digest()


def make_cursor(key: bytes, binding: str, offset: int) -> str:
    """base64("<offset>|<base64 of an HMAC-SHA256 over the endpoint and its filters>")."""
    mac = hmac.new(key, binding.encode("utf-8"), hashlib.sha256).digest()
    return base64.b64encode(f"{offset}|{base64.b64encode(mac).decode('ascii')}".encode("ascii")).decode("ascii")


def read_cursor(key: bytes, binding: str, cursor: str) -> int:
    """The offset a cursor carries; BadRequest when it is not one of ours for this endpoint and filters."""
    try:
        text = base64.b64decode(cursor.strip().replace(" ", "+"), validate=True).decode("ascii")
        offset, mac = text.split("|", 1)
        given = base64.b64decode(mac, validate=True)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise BadRequest(INVALID_CURSOR) from None
    want = hmac.new(key, binding.encode("utf-8"), hashlib.sha256).digest()
    if not offset.isdigit() or not hmac.compare_digest(given, want):
        raise BadRequest(INVALID_CURSOR)
    return int(offset)


@dataclass
class Answer:
    """What the app sends: a status, a JSON payload, or (200) no body at all."""

    status: int
    payload: Any = None
    empty_body: bool = False


class SuccessorView(FundRows, LicenceRows):
    """Successor rows of one request, converted from the legacy records of `dataset`."""

    def __init__(self, dataset: DemoDataset, fee_spelling: str = "thai_english", nav_quirks: frozenset = frozenset()):
        self.ds = dataset
        self.fee_spelling = fee_spelling
        self.nav_quirks = nav_quirks

    def nav(self, filters: dict) -> list[dict]:
        return nav_rows(self.ds, filters, self.nav_quirks)

    def dividends(self, filters: dict) -> list[dict]:
        return dividend_rows(self.ds, filters)


FUND_HANDLERS: dict[str, Callable[[SuccessorView, dict], list[dict]]] = {
    "general-info/amcs": SuccessorView.amcs,
    "general-info/profiles": SuccessorView.profiles,
    "factsheet/subscription-redemption-minimums": SuccessorView.minimums,
    "factsheet/subscription-redemption-periods": SuccessorView.periods,
    "factsheet/risk-spectrum": SuccessorView.risk,
    "factsheet/performance": SuccessorView.performance,
    "factsheet/fees": SuccessorView.fees,
    "factsheet/asset-allocation": SuccessorView.allocation,
    "factsheet/urls": SuccessorView.urls,
    "outstanding/portfolio": SuccessorView.portfolio,
    "daily-info/nav": SuccessorView.nav,
    "daily-info/dividend-history": SuccessorView.dividends,
}
LICENCE_HANDLERS: dict[tuple[str, str], Callable[[SuccessorView, dict, dict], list[dict]]] = {
    ("POST", "licensee/person"): SuccessorView.person_search,
    ("GET", "licensee/company"): SuccessorView.companies,
    ("POST", "licensee/company"): SuccessorView.company_search,
    ("GET", "licensee/person/{unique_id}/license"): SuccessorView.person_licences,
    ("GET", "licensee/company/{unique_id}/personnel"): SuccessorView.personnel,
    ("GET", "licensee/person/{unique_id}/work_info"): SuccessorView.work_info,
    ("GET", "licensee/company/{unique_id}/license"): SuccessorView.company_licences,
    ("GET", "licensee/company/{unique_id}/business_act"): SuccessorView.business_acts,
    ("GET", "licensee/{unique_id}/enforcement"): SuccessorView.enforcement_cases,
    ("GET", "licensee/{unique_id}/enforcement/{case_id}"): SuccessorView.enforcement,
    ("GET", "licensee/investoralert/alertdetail"): SuccessorView.alert_details,
    ("GET", "licensee/investoralert/{case_id}/alertaction"): SuccessorView.alert_action,
}


# ---- one request ---------------------------------------------------------------------------------


def parse_query(query_string: str) -> dict[str, str]:
    """Query parameters, the last value winning."""
    return dict(urllib.parse.parse_qsl(query_string, keep_blank_values=True, encoding="utf-8", errors="replace"))


def page_size_of(query: dict[str, str]) -> int:
    text = query.get("page_size")
    if text is None:
        return DEFAULT_PAGE_SIZE
    if not re.fullmatch(r"\s*\d{1,6}\s*", text) or not 1 <= int(text) <= MAX_PAGE_SIZE:
        raise BadRequest(f"Invalid page_size {text!r}: use an integer from 1 to {MAX_PAGE_SIZE}.")
    return int(text)


def fund_filters(route: Route, query: dict[str, str]) -> dict[str, str]:
    """The endpoint's filters that carry a value, checked; unknown parameters are ignored."""
    filters = {k: query[k].strip() for k in route.filters if k in query and query[k].strip()}
    for key in ("start_date", "end_date", "start_nav_date", "end_nav_date", "start_dividend_date", "end_dividend_date"):
        if key in filters:
            try:
                if not _DATE.match(filters[key]):
                    raise ValueError
                date.fromisoformat(filters[key])
            except ValueError:
                raise BadRequest(f"Invalid {key} {filters[key]!r}: use YYYY-MM-DD.") from None
    for key in ("start_period", "end_period"):
        if key in filters and not _PERIOD.match(filters[key]):
            raise BadRequest(f"Invalid {key} {filters[key]!r}: use YYYYMM.")
    if "latest" in filters:
        word = filters["latest"].lower()
        if word not in ("true", "false", "1", "0"):
            raise BadRequest(f"Invalid latest {filters['latest']!r}: use true or false.")
        filters["latest"] = "true" if word in ("true", "1") else "false"
    return filters


def apply_factsheet_filters(rows: list[dict], filters: dict[str, str]) -> list[dict]:
    """latest=true: the factsheet in force only (dates ignored); else start_date/end_date bounds."""
    if filters.get("latest") == "true":
        return [r for r in rows if r.get("end_date") is None]
    if "start_date" in filters:
        rows = [r for r in rows if str(r.get("start_date") or "") >= filters["start_date"]]
    if "end_date" in filters:
        rows = [r for r in rows if r.get("end_date") is not None and str(r["end_date"]) <= filters["end_date"]]
    return rows


def _licence_body(route: Route, body: bytes) -> dict:
    if route.method != "POST":
        return {}
    try:
        data = json.loads(body.decode("utf-8")) if body.strip() else None
    except (UnicodeDecodeError, ValueError):
        raise BadRequest("The request body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise BadRequest("The request body must be a JSON object with a 'Name' field.")
    fields = {}
    for key in ("Name", "name", "regis_sale_no"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise BadRequest(f"The '{key}' field must be a string.")
        if value and value.strip():
            fields[key] = value.strip()
    if route.id == "licensee/company" and not (fields.get("Name") or fields.get("name")):
        raise BadRequest("The 'Name' field is required and must be a non-empty string.")
    if route.id == "licensee/person" and not (fields.get("Name") or fields.get("name") or fields.get("regis_sale_no")):
        raise BadRequest("Give a non-empty 'Name' or 'regis_sale_no'.")
    return fields


def handler_rows(view: SuccessorView, route: Route, params: dict[str, str], filters: dict[str, str]) -> list[dict]:
    """The rows the route's handler gives for these filters (a fund route's query filters, a licence route's
    body fields as `body.NAME`), a factsheet's narrowed by unit class name and by its dates."""
    if not route.is_fund:
        body_fields = {k[5:]: v for k, v in filters.items()}
        return LICENCE_HANDLERS[(route.method, route.id)](view, params, body_fields)
    rows = FUND_HANDLERS[route.id](view, filters)
    if route.id.startswith("factsheet/"):
        if "fund_class_name" in filters:
            needle = filters["fund_class_name"].casefold()
            rows = [r for r in rows if "fund_class_name" not in r or needle in str(r["fund_class_name"]).casefold()]
        rows = apply_factsheet_filters(rows, filters)
    return rows


def answer(app: Any, route: Route, params: dict[str, str], path: str, query_string: str, body: bytes) -> Answer:
    """The answer of one successor request. `app` gives `dataset`, `licence_shape`, `end_cursor_null`
    and `cursor_key`; all are read now, so tests may change them between requests."""
    query = parse_query(query_string)
    nav_quirks = frozenset(getattr(app, "nav_quirks", ()))
    view = SuccessorView(app.dataset, getattr(app, "fee_spelling", "thai_english"), nav_quirks)
    shape = app.licence_shape if app.licence_shape in LICENCE_SHAPES else "envelope"
    paged = route.is_fund or shape == "envelope"
    page_size = page_size_of(query) if paged else DEFAULT_PAGE_SIZE
    if route.is_fund:
        filters = fund_filters(route, query)
    else:
        filters = {f"body.{k}": v for k, v in _licence_body(route, body).items()}
    binding = path + "?" + "&".join(f"{k}={v}" for k, v in sorted(filters.items()))
    cursor = query.get("next_cursor", "") if paged else ""
    offset = read_cursor(app.cursor_key, binding, cursor) if cursor.strip() else 0

    # A market-scale data set is read-only to the simulator: each fund answer (rows built, filtered
    # and shuffled) is built once per filter set and kept, so paging through 50,000 rows does not
    # rebuild them for every page. The small data set is read live, as tests change it: a first page
    # builds its answer again; the pages after it (a cursor given) read the answer their first page
    # built, as the market-scale one does (rebuilding every fund's rows for each page of a whole-market
    # answer made a demo sync's paging quadratic: a third of its time). Its daily NAVs (thousands of
    # rows a window, computed from the NAV profiles) are built once per filter set.
    live = getattr(app.dataset, "scale", "small") != "market" and not route.id.startswith("daily-info/")
    cache = getattr(app, "answer_cache", None) if route.is_fund else None
    cache_key = (id(app.dataset), binding, tuple(sorted(nav_quirks)) if route.id.startswith("daily-info/") else ())
    shuffled = cache is not None and cache_key in cache and not (live and offset == 0)
    if shuffled:
        rows = cache[cache_key] = cache.pop(cache_key)  # the most recently used last
    else:
        rows = handler_rows(view, route, params, filters)

    end = None if app.end_cursor_null else ""
    if not rows:
        if not route.is_fund:
            return Answer(204)
        pid = filters.get("proj_id")
        if pid is not None and any((pid, e) in app.dataset.empty_200 for e in route.legacy):
            return Answer(200, empty_body=True)
        if no_data_status(pid if pid is not None else binding) == 204:
            return Answer(204)
        return Answer(200, _envelope(page_size, end, []))

    if route.single and not paged:
        return Answer(200, rows[0] if shape == "bare" else {"items": rows[0]})
    if not shuffled:
        rows = list(rows)
        random.Random(hashlib.sha256(binding.encode("utf-8")).hexdigest()).shuffle(rows)
        if cache is not None and (not live or (paged and offset + page_size < len(rows))):  # pages to come
            cache[cache_key] = rows
            while len(cache) > ANSWER_CACHE_SIZE:
                cache.pop(next(iter(cache)))
    if not paged:
        return Answer(200, rows if shape == "bare" else {"items": rows})
    page = rows[offset: offset + page_size]
    more = offset + page_size < len(rows)
    return Answer(200, _envelope(page_size, make_cursor(app.cursor_key, binding, offset + page_size) if more else end, page))


def _envelope(page_size: int, next_cursor: str | None, items: list[dict]) -> dict:
    return {"message": "success", "page_size": page_size, "next_cursor": next_cursor, "items": items}

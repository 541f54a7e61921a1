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
(dashboard/demo/simulator.py) routes requests here; this module knows nothing about ASGI.
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
from datetime import date, timedelta
from typing import Any

from dashboard.config import FUND_GROUP, LICENSE_GROUP
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.pools import DUTY_NAMES, ENFORCEMENT_TYPE_TH, FIRST_NAMES, LICENCE_NAMES, SUCCESSOR_STATUS

FUND_PREFIX = "/v2/fund"
LICENCE_ROOT = "/v1/license-check"
LAYOUTS = ("legacy", "successor", "both")
LICENCE_SHAPES = ("envelope", "items", "bare")
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 100
CURRENCY_WIDTH = 50  # the `*_cur` fields of the minimums come right-padded with spaces to this width
INVALID_CURSOR = "invalid cursor"
ANSWER_CACHE_SIZE = 32  # whole-market answers kept for a market-scale data set (a sync pages a few at once)
MAIN_CLASS = "main"  # fund_class_name of a fund without unit classes

# holdings asset/liability code -> its Thai description (assetliab_desc)
ASSETLIAB_DESC = {
    "101": "หุ้นสามัญ",
    "201": "พันธบัตรรัฐบาล",
    "202": "ตั๋วเงินคลังและพันธบัตรธนาคารแห่งประเทศไทย",
    "211": "หุ้นกู้",
    "221": "ตราสารหนี้ต่างประเทศ",
    "301": "เงินฝากธนาคาร",
    "401": "หน่วยลงทุนของกองทุนต่างประเทศ",
    "501": "สัญญาซื้อขายล่วงหน้า (Forward)",
    "601": "หุ้นกู้อนุพันธ์ (Structured Note)",
    "701": "สินทรัพย์อื่นๆ/หนี้สินอื่นๆ",
    "903": "มูลค่าทรัพย์สินสุทธิ (NAV)",
}
SUBSCRIPTION_OPEN = "ทุกวันทำการ"
SUBSCRIPTION_IPO_ONLY = "เฉพาะช่วงเสนอขายครั้งแรก (IPO)"

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PERIOD = re.compile(r"^\d{4}(0[1-9]|1[0-2])$")
_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


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


# ---- value conversions ---------------------------------------------------------------------------


def _placeholder(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip() in ("", "-", "0000-00-00"))


def _number(value: object) -> int | float | None:
    """A JSON number from a legacy numeric text ("1,000", "1.605"); None for any other text."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value
    text = str(value).strip()
    if not _NUMBER.match(text):
        return None
    text = text.replace(",", "")
    return float(text) if "." in text else int(text)


def _int_or_null(value: object) -> int | None:
    number = _number(value)
    return int(number) if number is not None else None


def _date_or_null(value: object) -> str | None:
    return value if isinstance(value, str) and _DATE.match(value) and value != "0000-00-00" else None


def _null_or_empty(value: object) -> str | None:
    """Legacy missing-value spellings as the successor writes them: "-" and None -> null, "" and " " -> ""."""
    if value is None or (isinstance(value, str) and value.strip() == "-"):
        return None
    if isinstance(value, str) and not value.strip():
        return ""
    return value


def _pad(currency: object) -> str | None:
    if _placeholder(currency):
        return None
    code = "THB" if currency == "บาท" else str(currency).strip()
    return code.ljust(CURRENCY_WIDTH)


def _plain(text: object) -> object:
    """The legacy Base64 description as plain text; text that is not Base64 passes through."""
    if not isinstance(text, str) or not text:
        return text
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return text


def _number_text(value: float, like: str) -> str:
    decimals = len(like.split(".", 1)[1]) if "." in like else 0
    return f"{value:.{decimals}f}"


def _drift(seed: int | None, *parts: object) -> random.Random | None:
    return None if seed is None else random.Random(":".join(str(p) for p in (seed, *parts)))


def _nudge(rng: random.Random | None, value: int | float | None, spread: float = 0.06) -> int | float | None:
    """An older factsheet's figure: the current one moved by a few percent."""
    if rng is None or value is None:
        return value
    return round(value * (1 + rng.uniform(-spread, spread)) + rng.choice((-0.01, 0.01)), 4)


def _month_end_before(day: date) -> date:
    return day.replace(day=1) - timedelta(days=1)


# ---- the view --------------------------------------------------------------------------------------


class SuccessorView:
    """Successor rows of one request, converted from the legacy records of `dataset`."""

    def __init__(self, dataset: DemoDataset):
        self.ds = dataset

    # ---- per-fund basics ----

    def details(self, proj_id: str) -> dict:
        found = self.ds.fund_details.get(proj_id)
        if found is not None:
            return found
        today = self.ds.today or date.today()
        start = _month_end_before(today)
        fund = self.ds.fund(proj_id) or {}
        stamp = fund.get("last_upd_date") or f"{start.isoformat()}T00:00:00"
        return {
            "init_date": None, "policy_desc": None, "investment_policy_desc": None, "management_style": None,
            "feederfund_master_fund": None, "feederfund_country": None, "exchange_rate_protection_policy": None,
            "last_upd_date": stamp,
            "classes": {name: {"fund_class_tax_incentive_type": "", "fund_class_isin_code": None}
                        for name in self.class_names(proj_id)},
            "factsheet": {"start_date": start.isoformat(), "end_date": None, "prospectus_type": "Monthly",
                          "last_upd_date": stamp},
            "older_factsheet": None,
            "url_dates": [start.isoformat(), _month_end_before(start).isoformat()],
            "holdings_keys": ("assetliab_id", "assetliab_value"),
            "performance_as_numbers": False,
        }

    def class_names(self, proj_id: str) -> list[str]:
        return [c.get("class_abbr_name") for c in self.ds.classes.get(proj_id) or [] if c.get("class_abbr_name")] or [MAIN_CLASS]

    def class_label(self, proj_id: str, legacy_label: object) -> str:
        """The successor class name of a legacy class_abbr_name ("-", "1", "main" -> main)."""
        if not self.ds.classes.get(proj_id) or _placeholder(legacy_label):
            return MAIN_CLASS
        return str(legacy_label)

    def versions(self, proj_id: str) -> list[tuple[dict, int | None]]:
        """The factsheet versions of a fund, newest (in force, end_date null) first, with a drift seed."""
        details = self.details(proj_id)
        out = [(details["factsheet"], None)]
        older = details.get("older_factsheet")
        if older:
            out.append((older, older.get("drift_seed", 0)))
        return out

    def proj_ids(self, filters: dict[str, str], payload: dict) -> list[str]:
        if "proj_id" in filters:
            return [filters["proj_id"]] if filters["proj_id"] in payload else []
        ordered = [f.get("proj_id") for f in self.ds.funds]
        known = set(ordered)
        return [p for p in ordered if p in payload] + [p for p in payload if p not in known]

    @staticmethod
    def dated(proj_id: str, version: dict, **fields) -> dict:
        return {"proj_id": proj_id, **fields, "start_date": version["start_date"], "end_date": version["end_date"],
                "prospectus_type": version["prospectus_type"]}

    # ---- fund endpoints ----

    def amcs(self, filters: dict) -> list[dict]:
        if self.ds.successor_amcs:
            return [dict(a) for a in self.ds.successor_amcs]
        return [{"unique_id": a["unique_id"], "comp_name_en": a["name_en"], "comp_name_th": a["name_th"],
                 "last_upd_date": None} for a in self.ds.amcs]

    def profiles(self, filters: dict) -> list[dict]:
        companies = {a["unique_id"]: a for a in self.amcs({})}
        rows = []
        for fund in self.ds.funds:
            pid = fund.get("proj_id")
            company = companies.get(fund.get("unique_id"), {})
            if not self._project_matches(fund, filters) or not self._company_matches(fund, company, filters):
                continue
            details = self.details(pid)
            ptype = self.ds.project_type.get(pid) or {}
            status = SUCCESSOR_STATUS.get(fund.get("fund_status"), fund.get("fund_status"))
            if "fund_status" in filters and status != filters["fund_status"]:
                continue
            legacy_classes = {c.get("class_abbr_name"): c for c in self.ds.classes.get(pid) or []}
            flag = fund.get("invest_country_flage", fund.get("invest_country_flag"))
            cancel = fund.get("cancel_date")
            for name in self.class_names(pid):
                if "fund_class_name" in filters and filters["fund_class_name"].casefold() not in name.casefold():
                    continue
                legacy = legacy_classes.get(name)
                extra = details["classes"].get(name, {})
                rows.append({
                    "unique_id": fund.get("unique_id"),
                    "comp_name_th": company.get("comp_name_th"),
                    "comp_name_en": company.get("comp_name_en"),
                    "proj_id": pid,
                    "regis_id": None if _placeholder(fund.get("regis_id")) else fund.get("regis_id"),
                    "init_date": details.get("init_date"),
                    "regis_date": _date_or_null(fund.get("regis_date")),
                    "cancel_date": _date_or_null(cancel) or ("" if cancel == "" else None),
                    "proj_name_th": fund.get("proj_name_th"),
                    "proj_name_en": fund.get("proj_name_en"),
                    "proj_abbr_name": fund.get("proj_abbr_name"),
                    "fund_status": status,
                    "invest_country_flag": None if _placeholder(flag) else flag,
                    "proj_retail_type": ptype.get("proj_retail_type"),
                    "proj_term_flag": ptype.get("proj_term_flag"),
                    "proj_term_day": _int_or_null(ptype.get("proj_term_dd")),
                    "proj_term_month": _int_or_null(ptype.get("proj_term_mm")),
                    "proj_term_year": _int_or_null(ptype.get("proj_term_yy")),
                    "policy_desc": details.get("policy_desc"),
                    "investment_policy_desc": details.get("investment_policy_desc"),
                    "management_style": details.get("management_style"),
                    "feederfund_master_fund": details.get("feederfund_master_fund"),
                    "feederfund_country": details.get("feederfund_country"),
                    "exchange_rate_protection_policy": details.get("exchange_rate_protection_policy"),
                    "fund_class_name": name,
                    "fund_class_detail": legacy.get("class_name") if legacy else None,
                    "fund_class_description": _null_or_empty(legacy.get("class_additional_desc")) if legacy else None,
                    "fund_class_tax_incentive_type": extra.get("fund_class_tax_incentive_type", ""),
                    "fund_class_isin_code": extra.get("fund_class_isin_code"),
                    "last_upd_date": details.get("last_upd_date"),
                })
        return rows

    @staticmethod
    def _project_matches(fund: dict, filters: dict) -> bool:
        text = filters.get("project_info")
        if text is None:
            return True
        needle = text.casefold()
        return text == fund.get("proj_id") or any(
            needle in str(fund.get(k) or "").casefold() for k in ("proj_name_th", "proj_name_en", "proj_abbr_name"))

    @staticmethod
    def _company_matches(fund: dict, company: dict, filters: dict) -> bool:
        text = filters.get("company_info")
        if text is None:
            return True
        needle = text.casefold()
        return text == fund.get("unique_id") or any(
            needle in str(company.get(k) or "").casefold() for k in ("comp_name_th", "comp_name_en"))

    def minimums(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.investment):
            names = self.class_names(pid)
            for version, seed in self.versions(pid):
                for n, rec in enumerate(self.ds.investment[pid]):
                    rows.append({
                        **self.dated(pid, version, fund_class_name=names[n] if n < len(names) else MAIN_CLASS),
                        "minimum_sub_ipo": _number(rec.get("minimum_sub_ipo")),
                        "minimum_sub_ipo_cur": _pad(rec.get("minimum_sub_ipo_cur")),
                        "minimum_sub": _number(rec.get("minimum_sub")),
                        "minimum_sub_cur": _pad(rec.get("minimum_sub_cur")),
                        "minimum_sub_unit": "",
                        "minimum_redempt": _number(rec.get("minimum_redempt")),
                        "minimum_redempt_cur": _pad(rec.get("minimum_redempt_cur")),
                        "minimum_redempt_unit": "" if _placeholder(rec.get("minimum_redempt_unit")) else str(rec.get("minimum_redempt_unit")),
                        "lowbal_val": _number(rec.get("lowbal_val")),
                        "lowbal_val_cur": "THB" if rec.get("lowbal_val_cur") == "บาท" else rec.get("lowbal_val_cur"),
                        "lowbal_unit": _lowbal_unit(rec.get("lowbal_unit")),
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def periods(self, filters: dict) -> list[dict]:
        from dashboard.records.labels import REDEMP_PERIOD  # imported late: it pulls in pandas

        rows = []
        for pid in self.proj_ids(filters, self.ds.redemption):
            rec = self.ds.redemption[pid]
            code = str(rec.get("redemp_period") or "").strip().upper()
            redeem_text = REDEMP_PERIOD[code][0] if code in REDEMP_PERIOD else rec.get("redemp_period")
            subscribe_text = SUBSCRIPTION_IPO_ONLY if code in ("E", "T") else SUBSCRIPTION_OPEN
            for version, _ in self.versions(pid):
                for name in self.class_names(pid):
                    rows.append({**self.dated(pid, version, fund_class_name=name), "type": "subscription",
                                 "period": subscribe_text, "redemp_period_oth": "", "settlement_period": "",
                                 "last_upd_date": version["last_upd_date"]})
                    rows.append({**self.dated(pid, version, fund_class_name=name), "type": "redemption",
                                 "period": redeem_text, "redemp_period_oth": _null_or_empty(rec.get("redemp_period_oth")),
                                 "settlement_period": rec.get("settlement_period"),
                                 "last_upd_date": version["last_upd_date"]})
        return rows

    def risk(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.suitability):
            rec = self.ds.suitability[pid]
            for version, _ in self.versions(pid):
                rows.append({**self.dated(pid, version), "risk_spectrum_desc": _plain(rec.get("risk_spectrum_desc")),
                             "risk_spectrum": rec.get("risk_spectrum"), "last_upd_date": version["last_upd_date"]})
        return rows

    def performance(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.performance):
            as_numbers = self.details(pid).get("performance_as_numbers", False)
            for version, seed in self.versions(pid):
                rng = _drift(seed, pid, "performance")
                for rec in self.ds.performance[pid]:
                    legacy = rec.get("performance_val")
                    number = _number(legacy)
                    if rng is not None and number is not None:
                        number = number + rng.gauss(0, 0.6)
                    if number is None:
                        value: Any = None if _placeholder(legacy) else legacy
                    else:
                        value = float(_number_text(number, str(legacy))) if as_numbers else _number_text(number, str(legacy))
                    rows.append({
                        **self.dated(pid, version, fund_class_name=self.class_label(pid, rec.get("class_abbr_name"))),
                        "performance_type_desc": rec.get("performance_type_desc"),
                        "reference_period": rec.get("reference_period"),
                        "performance_value": value,
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def fees(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.fees):
            for version, seed in self.versions(pid):
                rng = _drift(seed, pid, "fees")
                for rec in self.ds.fees[pid]:
                    rows.append({
                        **self.dated(pid, version, fund_class_name=self.class_label(pid, rec.get("class_abbr_name"))),
                        "fee_type_desc": rec.get("fee_type_desc"),
                        "rate": _float(_fee_number(rec.get("rate"))),
                        "actual_value": _float(_nudge(rng, _fee_number(rec.get("actual_value")))),
                        "fee_other_desc": _null_or_empty(rec.get("fee_other_desc")),
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def allocation(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.allocation):
            for version, seed in self.versions(pid):
                rng = _drift(seed, pid, "allocation")
                for rec in self.ds.allocation[pid]:
                    ratio = _nudge(rng, _number(rec.get("asset_ratio")), 0.1)
                    rows.append({
                        **self.dated(pid, version),
                        "asset_seq": _int_or_null(rec.get("asset_seq")),
                        "asset_name": rec.get("asset_name"),
                        "asset_ratio": round(float(ratio), 2) if ratio is not None else None,
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def urls(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.urls):
            rec = self.ds.urls[pid]
            details = self.details(pid)
            current = details["factsheet"]
            link = rec.get("url_factsheet")
            linked = not _placeholder(link)
            for n, as_of in enumerate(details.get("url_dates") or [current["start_date"]]):
                rng = random.Random(f"urls:{pid}:{as_of}")
                stamp = current["last_upd_date"] if n == 0 else (
                    f"{date.fromisoformat(as_of) + timedelta(days=rng.randint(2, 12))}T{rng.randrange(24):02d}:"
                    f"{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(1, 1000):03d}")
                for name in self.class_names(pid):
                    rows.append({
                        "proj_id": pid, "fund_class_name": name, "prospectus_type": current["prospectus_type"] if n == 0 else "Monthly",
                        "amc_url_factsheet": link if linked else "",
                        "pdf_factsheet": f"https://demo.invalid/fundfactsheet/{pid}.pdf" if linked else None,
                        "as_of_date": as_of, "last_upd_date": stamp,
                    })
        return rows

    def portfolio(self, filters: dict) -> list[dict]:
        low = int(filters.get("start_period", 0))
        high = int(filters.get("end_period", 999999))
        rows = []
        for pid in self.proj_ids(filters, self.ds.holdings):
            code_key, value_key = self.details(pid).get("holdings_keys", ("assetliab_id", "assetliab_value"))
            for period, records in self.ds.holdings[pid].items():
                if not (period.isdigit() and low <= int(period) <= high):
                    continue
                for rec in records:
                    code = rec.get("assetliab_id")
                    rows.append({
                        "proj_id": pid, "period": int(period), "as_of_date": rec.get("as_of_date"),
                        code_key: code, "assetliab_desc": ASSETLIAB_DESC.get(code, ""),
                        # verbatim, "-" included: derivative and cash lines have no ISIN or issuer
                        "issue_code": rec.get("issue_code"), "isin_code": rec.get("isin_code"), "issuer": rec.get("issuer"),
                        value_key: _float(_number(rec.get("assetliab_value"))),
                        "percent_nav": _float(_number(rec.get("percent_nav"))),
                        "last_upd_date": rec.get("last_upd_date"),
                    })
        return rows

    # ---- licence endpoints ----

    def person_search(self, params: dict, body: dict) -> list[dict]:
        name = (body.get("Name") or body.get("name") or "").strip()
        number = (body.get("regis_sale_no") or "").strip()
        needle = name.casefold()
        rows = []
        for person in self.ds.persons:
            pid = person.get("unique_id")
            approvals = self.ds.approvals.get(pid) or []
            numbers = [a["regis_sale_no"] for a in approvals if not _placeholder(a.get("regis_sale_no"))]
            parts = split_person_name(person)
            texts = [person.get("name_th"), person.get("name_en"), *parts.values()]
            if (needle and any(needle in str(t or "").casefold() for t in texts)) or (number and any(number in n for n in numbers)):
                stamps = [a.get("last_upd_date") for a in approvals if a.get("last_upd_date")]
                rows.append({"last_upd_date": max(stamps) if stamps else None, "unique_id": pid,
                             "regis_sale_no": numbers[0] if numbers else "", **parts})
        return rows

    def companies(self, params: dict, body: dict) -> list[dict]:
        return [dict(r) for r in self.ds.former_licensees]

    def company_search(self, params: dict, body: dict) -> list[dict]:
        needle = (body.get("Name") or body.get("name") or "").strip().casefold()
        return [dict(r) for r in self.ds.licensees
                if any(needle in str(r.get(k) or "").casefold() for k in ("name_th", "name_en"))]

    def person_licences(self, params: dict, body: dict) -> list[dict]:
        out = []
        for rec in self.ds.approvals.get(params["unique_id"]) or []:
            th, en = LICENCE_NAMES.get(rec.get("lic_code"), (None, None))
            out.append(_insert_after(rec, "lic_code", lic_name_th=th, lic_name_en=en))
        return out

    def _with_duty_names(self, records: list[dict]) -> list[dict]:
        out = []
        for rec in records:
            th, en = DUTY_NAMES.get(rec.get("lic_action_code"), (None, None))
            out.append(_insert_after(rec, "lic_action_code", lic_action_name_th=th, lic_action_name_en=en))
        return out

    def work_info(self, params: dict, body: dict) -> list[dict]:
        return self._with_duty_names(self.ds.duties.get(params["unique_id"]) or [])

    def personnel(self, params: dict, body: dict) -> list[dict]:
        uid = params["unique_id"]
        return self._with_duty_names([d for duties in self.ds.duties.values() for d in duties
                                      if d.get("company_unique_id") == uid])

    def company_licences(self, params: dict, body: dict) -> list[dict]:
        return [dict(r) for r in self.ds.company_licences.get(params["unique_id"]) or []]

    def business_acts(self, params: dict, body: dict) -> list[dict]:
        return [dict(r) for r in self.ds.business_acts.get(params["unique_id"]) or []]

    def enforcement_cases(self, params: dict, body: dict) -> list[dict]:
        uid = params["unique_id"]
        return [{"last_upd_date": rec.get("last_upd_date"),
                 "enforcement_type": ENFORCEMENT_TYPE_TH.get(self.ds.enforcement_types.get(key), ENFORCEMENT_TYPE_TH[1]),
                 "case_id": key[1]}
                for key, rec in self.ds.enforcement.items() if key[0] == uid]

    def enforcement(self, params: dict, body: dict) -> list[dict]:
        rec = self.ds.enforcement.get((params["unique_id"], params["case_id"]))
        return [dict(rec)] if rec else []

    def alert_details(self, params: dict, body: dict) -> list[dict]:
        if self.ds.alert_details:
            return [dict(r) for r in self.ds.alert_details.values()]
        return [{"last_upd_date": a.get("last_upd_date"), "case_id": case_id, "disclosure_date": str(a.get("last_upd_date") or "")[:10],
                 "name_th": None, "name_en": None, "address_th": None, "address_en": None, "persuade_desc": a.get("license_th"),
                 "website": None, "facebook": None, "line": None, "remark": None}
                for case_id, a in self.ds.alerts.items()]

    def alert_action(self, params: dict, body: dict) -> list[dict]:
        rec = self.ds.alerts.get(params["case_id"])
        return [dict(rec)] if rec else []


def _fee_number(value: object) -> int | float | None:
    """A fee as the current service's float: the one number a legacy text holds ("ไม่เกิน 1.50" -> 1.5);
    None for words ("ยกเว้น", waived) and ranges, which a float cannot carry."""
    from dashboard.records.values import single_number

    number = _number(value)
    return number if number is not None else single_number(value)


def _float(value: int | float | None) -> float | None:
    return None if value is None else float(value)


def _lowbal_unit(value: object) -> str:
    """The successor documents lowbal_unit as text: 0 -> "0", 0.0001 -> "0.0001", 50.0 -> "50"."""
    number = _number(value)
    if number is None:
        return ""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def _insert_after(record: dict, key: str, **extra) -> dict:
    out: dict = {}
    for k, v in record.items():
        out[k] = v
        if k == key:
            out.update(extra)
    if key not in record:
        out.update(extra)
    return out


def split_person_name(person: dict) -> dict:
    """prefix/given name/surname in Thai and English from the demo person's full names."""
    name_th, name_en = str(person.get("name_th") or ""), str(person.get("name_en") or "")
    for title_th, title_en, first_th, first_en in sorted(FIRST_NAMES, key=lambda f: -len(f[0] + f[2])):
        head_th, head_en = f"{title_th}{first_th} ", f"{title_en} {first_en} "
        if name_th.startswith(head_th) and name_en.startswith(head_en):
            return {"prefix_th": title_th, "givenname_th": first_th, "surname_th": name_th[len(head_th):],
                    "prefix_en": title_en, "givenname_en": first_en, "surname_en": name_en[len(head_en):]}
    th = name_th.split(" ", 1) + [""]
    en = name_en.split(" ")
    prefix_en = en.pop(0) if en and en[0].endswith(".") else ""
    return {"prefix_th": "", "givenname_th": th[0], "surname_th": th[1], "prefix_en": prefix_en,
            "givenname_en": en[0] if en else "", "surname_en": " ".join(en[1:])}


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
    for key in ("start_date", "end_date"):
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


def answer(app: Any, route: Route, params: dict[str, str], path: str, query_string: str, body: bytes) -> Answer:
    """The answer of one successor request. `app` gives `dataset`, `licence_shape`, `end_cursor_null`
    and `cursor_key`; all are read now, so tests may change them between requests."""
    query = parse_query(query_string)
    view = SuccessorView(app.dataset)
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
    # rebuild them for every page. The small data set is read live, as tests change it.
    cache = getattr(app, "answer_cache", None) if route.is_fund and getattr(app.dataset, "scale", "small") == "market" else None
    cache_key = (id(app.dataset), binding)
    shuffled = cache is not None and cache_key in cache
    if shuffled:
        rows = cache[cache_key] = cache.pop(cache_key)  # the most recently used last
    elif route.is_fund:
        rows = FUND_HANDLERS[route.id](view, filters)
        if route.id.startswith("factsheet/"):
            if "fund_class_name" in filters:
                needle = filters["fund_class_name"].casefold()
                rows = [r for r in rows if "fund_class_name" not in r or needle in str(r["fund_class_name"]).casefold()]
            rows = apply_factsheet_filters(rows, filters)
    else:
        body_fields = {k[5:]: v for k, v in filters.items()}
        rows = LICENCE_HANDLERS[(route.method, route.id)](view, params, body_fields)

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
        if cache is not None:
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

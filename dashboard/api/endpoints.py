"""The service's 20 endpoints as data: method, path template, body, group, record kind, cache life."""

from __future__ import annotations

import re
import unicodedata
import urllib.parse
from dataclasses import dataclass

from dashboard.errors import BadInputError, quoted
from dashboard.config import FUND_GROUP, LICENSE_GROUP

MAX_PATH_PARAM_LENGTH = 64
MAX_SEARCH_NAME_LENGTH = 200

# Cache lives (seconds) by kind of data: searches and lists change often; a published past
# quarter's portfolio never changes.
TTL_SEARCH = 6 * 3600
TTL_FACTSHEET = 24 * 3600
TTL_HOLDINGS = 30 * 24 * 3600
TTL_LICENCE = 12 * 3600
TTL_NAV = 6 * 3600  # a new NAV comes each business morning

# Full-width forms of the ASCII letters, digits and signs (U+FF01 to U+FF5E), as typed by an
# East Asian keyboard or pasted from a Thai document.
_FULL_WIDTH_OFFSET = 0xFEE0
_FULL_WIDTH = range(0xFF01, 0xFF5F)

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# Fund project ids as the service writes them: {Type}{ID}_YYYY, in one place {Type}-{ID}-YYYY.
PROJ_ID_PATTERN = re.compile(r"^[A-Za-z]{1,3}-?[0-9]{1,6}[_-][0-9]{4}$")


@dataclass(frozen=True)
class Endpoint:
    """One endpoint of the service, as the specification defines it."""

    id: str
    name: str
    method: str
    path: str
    group: str
    record_kind: str
    returns_list: bool
    ttl: int
    body_field: str | None = None
    summary: str = ""
    successor_only: bool = False
    query_params: tuple[str, ...] = ()  # filters sent as query parameters (the successor's daily-info)

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(_PLACEHOLDER.findall(self.path))

    def clean_params(self, params: dict[str, object]) -> dict[str, object]:
        """The path parameters validated and in ASCII digits (others are left for `build_path` to refuse)."""
        return {name: validate_path_param(name, value) if name in self.path_params else value
                for name, value in params.items()}

    def build_path(self, params: dict[str, str]) -> str:
        """The request path with every parameter validated and percent-encoded."""
        missing = [p for p in self.path_params if p not in params]
        if missing:
            raise BadInputError(f"{self.id} {self.name} needs {', '.join(missing)}")
        extra = set(params) - set(self.path_params) - set(self.query_params)
        if extra:
            raise BadInputError(f"{self.id} {self.name} takes no parameter {', '.join(sorted(extra))}")
        return _PLACEHOLDER.sub(
            lambda m: urllib.parse.quote(validate_path_param(m.group(1), params[m.group(1)]), safe=""),
            self.path,
        )

    def build_body(self, name: str | None) -> dict | None:
        if self.body_field is None:
            if name is not None:
                raise BadInputError(f"{self.id} {self.name} takes no search text")
            return None
        return {self.body_field: validate_search_name(name)}


def ascii_digits(text: str) -> str:
    """Digits of any script (Thai ๐-๙, full-width ０-９) and full-width letters and signs, as ASCII.

    The service only knows ASCII identifiers; the same id typed on a Thai or full-width keyboard
    must reach it (and the cache) as the same text.
    """
    if text.isascii():
        return text
    out = []
    for char in text:
        if char.isdecimal() and not char.isascii():
            out.append(str(unicodedata.decimal(char)))
        elif ord(char) in _FULL_WIDTH:
            out.append(chr(ord(char) - _FULL_WIDTH_OFFSET))
        else:
            out.append(char)
    return "".join(out)


# What each identifier is called for the people who type it.
PARAM_NAMES = {"unique_id": ("identifier", ", like C0000000021 or P0000010001"), "proj_id": ("fund id", ", like M0123_2564"),
               "case_id": ("case reference", ""), "period": ("quarter", " as YYYYMM"), "nav_date": ("NAV date", " as YYYY-MM-DD")}


def validate_path_param(label: str, value: object) -> str:
    """Refuse path values that would change the path or that the service cannot hold."""
    if not isinstance(value, str):
        raise BadInputError(f"{label} must be text, not {type(value).__name__}")
    text = ascii_digits(value.strip())
    if not text:
        name, example = PARAM_NAMES.get(label, (label.replace("_", " "), ""))
        raise BadInputError(f"the {name} is empty: type one{example}")
    if len(text) > MAX_PATH_PARAM_LENGTH:
        raise BadInputError(f"{label} is {len(text)} characters long; at most {MAX_PATH_PARAM_LENGTH} are allowed")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise BadInputError(f"{label} contains a control character")
    if "/" in text or "\\" in text:
        raise BadInputError(f"{label} {quoted(text)} contains a slash; identifiers never do")
    if text in {".", ".."} or ".." in text:
        raise BadInputError(f"{label} {quoted(text)} contains '..'; identifiers never do")
    return text


def looks_like_proj_id(text: object) -> bool:
    return isinstance(text, str) and PROJ_ID_PATTERN.match(ascii_digits(text.strip())) is not None


def validate_proj_id(value: object) -> str:
    """A fund project id of the service's form (M0123_2564), or a clear refusal."""
    text = validate_path_param("proj_id", value)
    if not PROJ_ID_PATTERN.match(text):
        raise BadInputError(f"{quoted(text)} is not a fund project id; ids look like M0123_2564 (find one with `fund search`)")
    return text


def validate_search_name(name: object) -> str:
    if not isinstance(name, str):
        raise BadInputError("search text must be text")
    text = name.strip()
    if not text:
        raise BadInputError("search text is empty: type part of a name or abbreviation")
    if len(text) > MAX_SEARCH_NAME_LENGTH:
        raise BadInputError(f"search text is {len(text)} characters long; at most {MAX_SEARCH_NAME_LENGTH} are allowed")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise BadInputError("search text contains a control character")
    return text


_F = "/FundFactsheet/fund"
_L = "/LicenseCheck/licensee"

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("E1", "fund_search", "POST", _F, FUND_GROUP, "fund", True, TTL_SEARCH, "name", "funds by part of a name or abbreviation"),
    Endpoint("E2", "amc_funds", "GET", _F + "/amc/{unique_id}", FUND_GROUP, "fund", True, TTL_SEARCH, None, "all funds of an asset management company"),
    Endpoint("E3", "class_search", "POST", _F + "/class_fund", FUND_GROUP, "unit_class", True, TTL_SEARCH, "name", "unit classes by part of an abbreviation"),
    Endpoint("E4", "fund_classes", "GET", _F + "/{proj_id}/class_fund", FUND_GROUP, "unit_class", True, TTL_FACTSHEET, None, "unit classes of a fund"),
    Endpoint("E5", "investment", "GET", _F + "/{proj_id}/investment", FUND_GROUP, "investment", True, TTL_FACTSHEET, None, "investment minimums"),
    Endpoint("E6", "holdings", "GET", _F + "/{proj_id}/FundPort/{period}", FUND_GROUP, "holding", True, TTL_HOLDINGS, None, "portfolio holdings of one quarter"),
    Endpoint("E7", "project_type", "GET", _F + "/{proj_id}/project_type", FUND_GROUP, "project_type", False, TTL_FACTSHEET, None, "project type and term"),
    Endpoint("E8", "suitability", "GET", _F + "/{proj_id}/suitability", FUND_GROUP, "suitability", False, TTL_FACTSHEET, None, "suitability and risk"),
    Endpoint("E9", "return_estimate", "GET", _F + "/{proj_id}/return", FUND_GROUP, "return_estimate", False, TTL_FACTSHEET, None, "estimated return"),
    Endpoint("E10", "performance", "GET", _F + "/{proj_id}/performance", FUND_GROUP, "performance", True, TTL_FACTSHEET, None, "past performance"),
    Endpoint("E11", "redemption", "GET", _F + "/{proj_id}/redemption", FUND_GROUP, "redemption", False, TTL_FACTSHEET, None, "redemption terms"),
    Endpoint("E12", "fees", "GET", _F + "/{proj_id}/fee", FUND_GROUP, "fee", True, TTL_FACTSHEET, None, "fees"),
    Endpoint("E13", "allocation", "GET", _F + "/{proj_id}/asset", FUND_GROUP, "allocation", True, TTL_FACTSHEET, None, "asset allocation"),
    Endpoint("E14", "urls", "GET", _F + "/{proj_id}/URLs", FUND_GROUP, "urls", False, TTL_FACTSHEET, None, "report links"),
    Endpoint("E15", "licensee_search", "POST", _L + "/company", LICENSE_GROUP, "licensee", True, TTL_SEARCH, "name", "licensed entities by part of a name"),
    Endpoint("E16", "former_licensees", "GET", _L + "/company", LICENSE_GROUP, "licensee", True, TTL_LICENCE, None, "entities that once held a licence"),
    Endpoint("E17", "person_approvals", "GET", _L + "/person/{unique_id}/license", LICENSE_GROUP, "approval", True, TTL_LICENCE, None, "a person's approvals"),
    Endpoint("E18", "person_duties", "GET", _L + "/person/{unique_id}/work_info", LICENSE_GROUP, "duty", True, TTL_LICENCE, None, "a person's current duties"),
    Endpoint("E19", "enforcement", "GET", _L + "/{unique_id}/enforcement/{case_id}", LICENSE_GROUP, "enforcement", False, TTL_LICENCE, None, "an enforcement action"),
    Endpoint("E20", "investor_alert", "GET", _L + "/investoralert/{case_id}/alertaction", LICENSE_GROUP, "alert", False, TTL_LICENCE, None, "an investor-alert case"),
)

_V1 = "/v1/license-check/licensee"
_V2 = "/v2/fund"

# Logical endpoints only the current service (the successor layout) has: the licence register's
# new lists and the fund side's company list. Their `path` is the successor path.
SUCCESSOR_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("S1", "person_search", "POST", _V1 + "/person", LICENSE_GROUP, "person", True, TTL_SEARCH, "Name", "approved persons by part of a name or registration number", True),
    Endpoint("S2", "company_licences", "GET", _V1 + "/company/{unique_id}/license", LICENSE_GROUP, "company_licence", True, TTL_LICENCE, None, "a company's licences and registrations", True),
    Endpoint("S3", "company_personnel", "GET", _V1 + "/company/{unique_id}/personnel", LICENSE_GROUP, "duty", True, TTL_LICENCE, None, "people on duty at a company", True),
    Endpoint("S4", "company_business", "GET", _V1 + "/company/{unique_id}/business_act", LICENSE_GROUP, "business_activity", True, TTL_LICENCE, None, "a company's business activities", True),
    Endpoint("S5", "enforcement_cases", "GET", _V1 + "/{unique_id}/enforcement", LICENSE_GROUP, "enforcement_case", True, TTL_LICENCE, None, "enforcement cases of a person or company", True),
    Endpoint("S6", "alert_cases", "GET", _V1 + "/investoralert/alertdetail", LICENSE_GROUP, "alert_case", True, TTL_LICENCE, None, "every investor-alert case", True),
    Endpoint("S7", "companies", "GET", _V2 + "/general-info/amcs", FUND_GROUP, "amc", True, TTL_SEARCH, None, "asset management companies", True),
    Endpoint("S8", "daily_nav", "GET", _V2 + "/daily-info/nav", FUND_GROUP, "nav", True, TTL_NAV, None,
             "daily NAV", True, ("proj_id", "start_nav_date", "end_nav_date", "fund_class_name")),
    Endpoint("S9", "dividend_history", "GET", _V2 + "/daily-info/dividend-history", FUND_GROUP, "dividend", True,
             TTL_FACTSHEET, None, "distributions", True, ("proj_id",)),
)

# The older service's daily NAV: one fund and one day per call (the FundDailyInfo product, its own
# path; replaced by S8 on the current service). Not among the 20 factsheet and licence endpoints.
DAILY_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("D1", "legacy_daily_nav", "GET", "/FundDailyInfo/{proj_id}/dailynav/{nav_date}", FUND_GROUP, "nav", True,
             TTL_NAV, None, "one day's NAV (older service)"),
)

_ALL = (*ENDPOINTS, *SUCCESSOR_ENDPOINTS, *DAILY_ENDPOINTS)
_BY_KEY = {e.id: e for e in _ALL} | {e.name: e for e in _ALL}

# The fund factsheet: every per-fund endpoint but the quarterly holdings (E6), which has its own
# period rules.
FACTSHEET_ENDPOINTS = ("E4", "E5", "E7", "E8", "E9", "E10", "E11", "E12", "E13", "E14")


def endpoint(key: str) -> Endpoint:
    """Look an endpoint up by id (`E6`) or name (`holdings`)."""
    try:
        return _BY_KEY[key]
    except KeyError:
        known = ", ".join(e.id for e in _ALL)
        raise BadInputError(f"unknown endpoint {quoted(key)}; known: {known}") from None

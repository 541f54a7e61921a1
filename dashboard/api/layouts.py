"""Request recipes of the successor layout: how each logical endpoint (E1..E20, S1..S7) is asked.

The legacy layout's recipe is the endpoint itself (`endpoints.py`: method, path, body). The
successor (shared/spec/successor-api.md, 2.3 and 3.2) serves the same data from other paths, with
query parameters and a paginated envelope; some legacy calls take two successor calls (E3), some
share one (E4 and E7 both read the fund's profile rows), and E9 has none at all.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field

from dashboard.api.endpoints import Endpoint, validate_path_param
from dashboard.config import LAYOUT_LEGACY, LAYOUT_SUCCESSOR

V2 = "/v2/fund"
V1 = "/v1/license-check/licensee"

# Only this many items per page are allowed (1..100); the largest page is the fewest calls.
PAGE_SIZE = 100
# A bound on the pages one logical call may take: 500 pages is 50,000 rows, over ten times the
# largest single answer a fund or company lookup gives (one company's profiles, ~6,000 rows).
MAX_PAGES = 500

# The cheap call that tells the layouts apart: one company row of the successor's company list.
PROBE_PATH = V2 + "/general-info/amcs"
PROBE_QUERY = {"page_size": "1"}

# The layouts as a person reads them (the log, `doctor`, the dashboard's status line).
LAYOUT_LABELS = {
    LAYOUT_SUCCESSOR: "current service paths (/v2/fund, /v1/license-check)",
    LAYOUT_LEGACY: "legacy paths (/FundFactsheet, /LicenseCheck)",
}

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class SuccessorCall:
    """One successor request: method, path template, fixed query, query filled from parameters, body."""

    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    from_params: dict[str, str] = field(default_factory=dict)  # query name -> logical parameter
    body: dict[str, str] | None = None  # body field -> logical parameter ("" for an empty string)
    paginated: bool = True  # fund endpoints: page_size + next_cursor; licence: follow a cursor if sent

    def build(self, params: dict[str, str]) -> tuple[str, dict[str, str], dict | None]:
        """(path, query, body) with every path value validated and percent-encoded."""
        path = _PLACEHOLDER.sub(
            lambda m: urllib.parse.quote(validate_path_param(m.group(1), params[m.group(1)]), safe=""), self.path)
        query = dict(self.query)
        for name, source in self.from_params.items():
            query[name] = str(params[source]).strip()
        if self.paginated:
            query["page_size"] = str(PAGE_SIZE)
        body = None
        if self.body is not None:
            body = {name: (str(params.get(source, "")).strip() if source else "") for name, source in self.body.items()}
        return path, query, body


def _profiles(**from_params: str) -> SuccessorCall:
    return SuccessorCall("GET", V2 + "/general-info/profiles", from_params=from_params)


def _factsheet(part: str, *, latest: bool = True) -> SuccessorCall:
    return SuccessorCall("GET", f"{V2}/factsheet/{part}", query={"latest": "true"} if latest else {},
                         from_params={"proj_id": "proj_id"})


def _licence(method: str, path: str, body: dict[str, str] | None = None) -> SuccessorCall:
    return SuccessorCall(method, V1 + path, body=body, paginated=False)


# logical endpoint -> the successor calls whose items, joined, make its answer. E9 has none.
SUCCESSOR_RECIPES: dict[str, tuple[SuccessorCall, ...]] = {
    "E1": (_profiles(project_info="name"),),
    "E2": (_profiles(company_info="unique_id"),),
    # Whether fund_class_name matches part of a name is not published: ask both ways (spec 7.12).
    "E3": (_profiles(project_info="name"), _profiles(fund_class_name="name")),
    "E4": (_profiles(project_info="proj_id"),),
    "E5": (_factsheet("subscription-redemption-minimums"),),
    "E6": (SuccessorCall("GET", V2 + "/outstanding/portfolio",
                         from_params={"proj_id": "proj_id", "start_period": "period", "end_period": "period"}),),
    "E7": (_profiles(project_info="proj_id"),),
    "E8": (_factsheet("risk-spectrum"),),
    "E10": (_factsheet("performance"),),
    "E11": (_factsheet("subscription-redemption-periods"),),
    "E12": (_factsheet("fees"),),
    "E13": (_factsheet("asset-allocation"),),
    "E14": (_factsheet("urls", latest=False),),  # no `latest` here: the newest as_of_date is kept
    "E15": (_licence("POST", "/company", {"Name": "name"}),),
    "E16": (_licence("GET", "/company"),),
    "E17": (_licence("GET", "/person/{unique_id}/license"),),
    "E18": (_licence("GET", "/person/{unique_id}/work_info"),),
    "E19": (_licence("GET", "/{unique_id}/enforcement/{case_id}"),),
    "E20": (_licence("GET", "/investoralert/{case_id}/alertaction"),),
    "S1": (_licence("POST", "/person", {"Name": "name", "regis_sale_no": ""}),),
    "S2": (_licence("GET", "/company/{unique_id}/license"),),
    "S3": (_licence("GET", "/company/{unique_id}/personnel"),),
    "S4": (_licence("GET", "/company/{unique_id}/business_act"),),
    "S5": (_licence("GET", "/{unique_id}/enforcement"),),
    "S6": (_licence("GET", "/investoralert/alertdetail"),),
    "S7": (SuccessorCall("GET", PROBE_PATH),),
}


def successor_calls(ep: Endpoint, params: dict[str, str]) -> tuple[SuccessorCall, ...]:
    """The successor calls of a logical endpoint; () when the current service does not publish it."""
    if ep.query_params and ep.successor_only:
        # The daily-info filters: each sent only when given (an empty filter is no filter).
        present = {name: name for name in ep.query_params if str(params.get(name) or "").strip()}
        return (SuccessorCall("GET", ep.path, from_params=present),)
    calls = SUCCESSOR_RECIPES.get(ep.id, ())
    if ep.id == "S1" and params.get("name", "").replace(" ", "").isdigit():
        # Digits are a registration number, which the person search takes in its own field.
        return (_licence("POST", "/person", {"Name": "", "regis_sale_no": "name"}),)
    return calls

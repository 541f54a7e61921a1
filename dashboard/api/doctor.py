"""`sec-dashboard doctor`: which layout answers at the base URL, and whether each key opens its group."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from typing import Any

from dashboard.api.client import AsyncSecClient
from dashboard.api.layouts import LAYOUT_LABELS
from dashboard.errors import AuthenticationError, RateLimitError, SecApiError, ServiceError
from dashboard.config import FUND_GROUP, LAYOUT_SUCCESSOR, LICENSE_GROUP, ApiSettings

OK, REJECTED, MISSING, FAILED, DEMO = "ok", "rejected", "missing", "failed", "demo"
GROUP_WORDS = {FUND_GROUP: "fund data", LICENSE_GROUP: "licence register"}
# "S7 GET /v2/...: ..." -> "GET /v2/...: ...": the endpoint codes are the program's, not the reader's.
_ENDPOINT_CODE = re.compile(r"(^|(?<=: ))[ES]\d{1,2} (?=(?:GET|POST|PUT|PATCH|DELETE|HEAD) /|[a-z_ ]+:)")


def without_endpoint_code(message: str) -> str:
    """A message for people: the program's own endpoint code (S7, E15) taken off its front."""
    return _ENDPOINT_CODE.sub("", str(message))
# A search text no company name holds: the licence check answers "no data" quickly.
_LICENCE_PROBE_NAME = "zz-sec-dashboard-doctor"


async def _check(client: AsyncSecClient, group: str, layout: str) -> tuple[str, float | None, str]:
    if client.settings.key_for(group) is None and client.require_keys:
        return MISSING, None, ""

    if group == FUND_GROUP:
        key, params = ("S7", {}) if layout == LAYOUT_SUCCESSOR else ("E4", {"proj_id": "M0000_0000"})
    else:
        key, params = "E15", {"name": _LICENCE_PROBE_NAME}
    state = DEMO if client.settings.demo and client.settings.key_for(group) is None else OK
    started = time.perf_counter()
    try:
        await client.request(key, **params)
    except AuthenticationError:
        return REJECTED, None, (f"the service rejected the key set for the {GROUP_WORDS[group]}: check it "
                                "(SEC_API_KEY, or SEC_FUND_API_KEY / SEC_LICENSE_API_KEY for one group)")
    except SecApiError as exc:
        return FAILED, None, without_endpoint_code(str(exc))
    return state, 1000 * (time.perf_counter() - started), ""


async def diagnose(settings: ApiSettings, *, connect: Callable[..., AsyncSecClient] = AsyncSecClient,
                   **client_options: Any) -> dict:
    """The doctor's findings: base_url, layout, fund_key, licence_key, latency_ms (+ notes).

    `connect` builds the client (`dashboard.api.connect.open_async_client` where demo settings may come).
    """
    settings = dataclasses.replace(settings, use_cache=False)  # a key check must reach the service
    report: dict[str, Any] = {"base_url": settings.source_label, "layout": None, "fund_key": None,
                              "licence_key": None, "latency_ms": None, "notes": []}
    async with connect(settings, cache=False, **client_options) as client:
        try:
            layout = await client.layout()
        except (ServiceError, RateLimitError) as exc:
            report["notes"].append(without_endpoint_code(str(exc)))
            report["reachable"] = False
            return report
        report["reachable"] = True
        report["layout"] = layout
        report["layout_label"] = LAYOUT_LABELS[layout]
        times = []
        for group, field in ((FUND_GROUP, "fund_key"), (LICENSE_GROUP, "licence_key")):
            state, ms, note = await _check(client, group, layout)
            report[field] = state
            if ms is not None:
                times.append(ms)
            if note:
                report["notes"].append(note)
        report["latency_ms"] = round(min(times), 1) if times else None
    return report


def exit_code(report: dict) -> int:
    """0 when both groups answer, 3 when a key is missing or rejected, 4 when the service fails."""
    if not report.get("reachable"):
        return 4
    states = (report.get("fund_key"), report.get("licence_key"))
    if any(s in (MISSING, REJECTED) for s in states):
        return 3
    if any(s == FAILED for s in states):
        return 4
    return 0

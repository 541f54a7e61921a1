"""The legacy layout's answers of the demo simulator (`/FundFactsheet`, `/LicenseCheck`,
shared/spec/sec-open-api.md): one handler per endpoint over the demo data set, and the search body
read as the gateway reads it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from typing import Any

from dashboard.api.endpoints import Endpoint
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.successor import BadRequest as _BadRequest
from dashboard.demo.successor_nav import legacy_daily_nav
from dashboard.records.labels import fee_type_key, fee_type_text

_PERIOD = re.compile(r"^\d{4}(03|06|09|12)$")


class LegacyAnswers:
    """The legacy endpoints' handlers, mixed into `simulator.SimulatorApp` (which holds `dataset` and
    `fee_spelling`): each takes the path parameters and the searched name and returns the payload."""

    dataset: DemoDataset
    fee_spelling: str

    def _legacy_handlers(self) -> dict[str, Callable[[dict, Any], Any]]:
        """The handler of each legacy endpoint id, E1..E20 and the daily NAV (D1)."""
        return {
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

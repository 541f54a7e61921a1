"""FundSearch: funds by name or abbreviation (E1), unit classes (E3), or all of one company (E2)."""

from __future__ import annotations

import pandas as pd
import param

from dashboard.api.endpoints import ascii_digits, looks_like_proj_id, validate_path_param, validate_search_name
from dashboard.errors import BadInputError
from dashboard.models.source import ServiceModel, outcome
from dashboard.records import records_frame
from dashboard.records.answers import result_frame


class FundSearch(ServiceModel):
    """A fund search and its results."""

    query = param.String(default="", doc="Part of a fund name or abbreviation (E1), or a unit-class abbreviation (E3).")
    results = param.DataFrame(default=None, allow_None=True, doc="Funds found (E1), or all funds of a company (E2).")
    classes = param.DataFrame(default=None, allow_None=True, doc="Unit classes whose abbreviation matches the query (E3).")
    amc_id = param.String(default="", doc="Asset management company whose funds were listed (E2), when that was the search.")
    records = param.List(default=[], doc="The funds found as normalised, JSON-ready records.")
    message = param.String(default="", doc="What the search found when it found nothing.")

    def __init__(self, **params):
        super().__init__(**params)
        if self.results is None:
            self.results = records_frame("fund", [])
        if self.classes is None:
            self.classes = records_frame("unit_class", [])

    async def _search(self, name: str) -> dict:
        found, matched = await self.api.async_client.fetch_many([("E1", {"name": name}), ("E3", {"name": name})],
                                                                return_exceptions=False)
        (funds, _, stale_f), (classes, _, stale_c) = outcome(found), outcome(matched)
        # (each session's default search is the same cached answer: its frame is built once, see result_frame)
        return {"query": name, "amc_id": "", "results": result_frame(found) if funds else records_frame("fund", []),
                "records": funds or [],
                "classes": result_frame(matched) if classes else records_frame("unit_class", []),
                "stale": stale_f or stale_c,
                "message": "" if funds or classes else f"no fund or unit class matches {name!r}"}

    async def _amc(self, unique_id: str) -> dict:
        funds = await self.api.async_client.fetch("E2", unique_id=unique_id)
        return {"amc_id": unique_id, "results": records_frame("fund", funds or []), "records": funds or [],
                "classes": records_frame("unit_class", []),
                "message": "" if funds else f"no funds are listed for company {unique_id}"}

    async def search(self, name: str | None = None) -> pd.DataFrame:
        """Funds (E1) and unit classes (E3) whose name or abbreviation matches."""
        await self._apply(self._search(validate_search_name(self.query if name is None else name)))
        return self.results

    async def company_funds(self, unique_id: str) -> pd.DataFrame:
        """Every fund of one asset management company (E2), as the results."""
        await self._apply(self._amc(validate_path_param("unique_id", unique_id)))
        return self.results

    def fund_record(self, proj_id: str) -> dict | None:
        """The normalised record of one fund among the results, or None."""
        return next((r for r in self.records if r.get("proj_id") == proj_id), None)

    async def resolve(self, query: str) -> str:
        """A proj_id for QUERY: itself when it looks like one, else the exact abbreviation among E1 results."""
        text = validate_search_name(query)
        if looks_like_proj_id(text):  # "m0001_2560" is M0001_2560: the service's project ids are upper case
            return ascii_digits(text.strip()).upper()
        await self.search(text)
        if not self.results.empty:
            exact = self.results[self.results["proj_abbr_name"].fillna("").str.upper() == text.upper()]
            if not exact.empty:
                return str(exact.iloc[0]["proj_id"])
        near = ", ".join(self.results["proj_abbr_name"].dropna().astype(str).head(5)) if not self.results.empty else ""
        raise BadInputError(f"no fund has the abbreviation {text!r}" + (f"; similar: {near}" if near else "; try `fund search`"))

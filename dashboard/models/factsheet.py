"""FundFactsheet: every part of one fund's factsheet, loaded concurrently in about one round trip."""

from __future__ import annotations

import time
from typing import Any

import pandas as pd
import param

from dashboard.records.answers import result_frame
from dashboard.api.endpoints import FACTSHEET_ENDPOINTS, endpoint, validate_proj_id
from dashboard.errors import BadInputError, SecApiError
from dashboard.api.periods import late_quarter_note, valid_periods
from dashboard.models.fund import performance_pivot, project_term, risk_frame, risk_row, total_annual_fee
from dashboard.models.source import FAILED, PartStatus, ServiceModel, outcome, part_status, record_by_abbreviation, unpublished_fields
from dashboard.records import records_frame

# Factsheet part (parameter name) for each endpoint.
PART_OF = {
    "E4": "classes",
    "E5": "investment",
    "E7": "project_type",
    "E8": "suitability",
    "E9": "return_estimate",
    "E10": "performance",
    "E11": "redemption",
    "E12": "fees",
    "E13": "allocation",
    "E14": "urls",
}
LIST_PARTS = tuple(PART_OF[e] for e in FACTSHEET_ENDPOINTS if endpoint(e).returns_list)
OBJECT_PARTS = tuple(PART_OF[e] for e in FACTSHEET_ENDPOINTS if not endpoint(e).returns_list)
# Every part a status is kept for: the endpoints' parts, and the holdings of every quarter as one.
PARTS = (*(PART_OF[e] for e in FACTSHEET_ENDPOINTS), "holdings")


def _empty(kind: str) -> pd.DataFrame:
    return records_frame(kind, [])


class FundFactsheet(ServiceModel):
    """One fund's factsheet (E4, E5, E6 for every valid quarter, E7 to E14).

    Parts the service has no data for are empty frames or None; parts that failed are named in
    `errors` with the reason, and the rest still load. `status` says for every part which of the
    three it is. A load the service fails as a whole clears the factsheet (it then shows the fund
    asked for, every part failed with the reason), so nothing of the previous fund stays on view.
    """

    proj_id = param.String(default=None, allow_None=True, doc="Fund project id, e.g. M0123_2564.")
    fund = param.Dict(default=None, allow_None=True, doc="The fund record (E1/E2), when known.")

    classes = param.DataFrame(default=None, allow_None=True, doc="Unit classes (E4); empty for a single-class fund.")
    investment = param.DataFrame(default=None, allow_None=True, doc="Investment minimums (E5).")
    performance = param.DataFrame(default=None, allow_None=True, doc="Past performance by class, type and period (E10).")
    fees = param.DataFrame(default=None, allow_None=True, doc="Fees by class and type (E12); rate and actual kept apart.")
    allocation = param.DataFrame(default=None, allow_None=True, doc="Asset allocation (E13).")
    project_type = param.Dict(default=None, allow_None=True, doc="Project type and term (E7).")
    suitability = param.Dict(default=None, allow_None=True, doc="Suitability, warnings and risk level (E8), decoded.")
    return_estimate = param.Dict(default=None, allow_None=True, doc="Estimated return (E9).")
    redemption = param.Dict(default=None, allow_None=True, doc="Redemption terms (E11).")
    urls = param.Dict(default=None, allow_None=True, doc="Report links (E14).")
    holdings = param.Dict(default={}, doc="Portfolio holdings (E6) by period YYYYMM, for every valid quarter with data.")
    records = param.Dict(default={}, doc="The normalised, JSON-ready records of every part, as the service sent them.")

    periods = param.List(default=[], item_type=str, doc="Valid E6 periods on the client's date, newest first.")
    errors = param.Dict(default={}, doc="Parts that failed to load, with the reason.")
    unpublished = param.Dict(default={}, doc="Fields the service that answered does not publish, by part "
                                             "(every field of a part the current service retired).")
    status = param.Dict(default={}, doc="Every part's PartStatus after a load: loaded, not published (the service "
                                        "has no data) or failed with the reason; `holdings` covers every quarter.")
    loaded_at = param.Number(default=None, allow_None=True, doc="When the factsheet finished loading (epoch seconds).")

    def __init__(self, **params: Any):
        super().__init__(**params)
        self._clear_parts()

    def _clear_parts(self) -> None:
        kinds = {PART_OF[e]: endpoint(e).record_kind for e in FACTSHEET_ENDPOINTS}
        self.param.update(
            **{part: _empty(kinds[part]) for part in LIST_PARTS},
            **{part: None for part in OBJECT_PARTS},
            holdings={}, records={}, errors={}, unpublished={}, status={}, stale=False,
        )

    # ---- loading -----------------------------------------------------------------------------

    def _calls(self, proj_id: str, periods: list[str]) -> list[tuple[str, dict]]:
        calls = [(e, {"proj_id": proj_id}) for e in FACTSHEET_ENDPOINTS]
        calls += [("E6", {"proj_id": proj_id, "period": p}) for p in periods]
        return calls

    def _prepare(self, proj_id: str | None) -> tuple[str, list[str]]:
        """The fund to load and the valid quarters; changes nothing (a failed load leaves all as it was)."""
        target = validate_proj_id(proj_id if proj_id is not None else self.proj_id or "")
        return target, valid_periods(self.api.today, self.api.async_client.layout_name)

    async def load(self, proj_id: str | None = None, fund: dict | None = None) -> "FundFactsheet":
        """Fetch every part concurrently and update the parameters once.

        The requests run on the client's loop; the parameters change here, in the caller's
        context, so Panel sees the update on its own session thread. When the service fails the
        load as a whole, the factsheet is cleared to the fund asked for, every part failed, and the
        error raised; an id it does not know is refused (BadInputError) and the factsheet stays.
        """
        target, periods = self._prepare(proj_id)
        try:
            await self._apply(self._fetch(target, periods, fund))
        except BadInputError:
            raise  # an id the service does not know is refused like a malformed one: the factsheet stays
        except SecApiError as exc:
            self.clear(target, str(exc), fund=fund, periods=periods)
            raise
        return self

    def clear(self, proj_id: str | None, reason: str, *, fund: dict | None = None, periods: list[str] | None = None) -> None:
        """The factsheet of a fund that could not be loaded: no data, every part failed with `reason`."""
        self._clear_parts()
        self.param.update(proj_id=proj_id, loaded_at=None, periods=list(periods or []),
                          fund=fund if fund and fund.get("proj_id") == proj_id else None,
                          errors={part: reason for part in PARTS}, status={part: PartStatus(FAILED, reason) for part in PARTS})

    async def _fetch(self, proj_id: str, periods: list[str], fund: dict | None) -> dict:
        """All parts of the factsheet as a parameter update (runs on the client's loop)."""
        if fund is None and self.fund is not None and self.fund.get("proj_id") == proj_id:
            fund = self.fund
        # The quarters of the layout that answers (the current service publishes 15 days sooner).
        periods = valid_periods(self.api.today, await self.api.async_client.layout())
        calls = self._calls(proj_id, periods)
        if fund is None:
            # A fund search for the id itself, in the same batch: where the service matches ids in its
            # search (the current one does, from the very answer the unit classes come from) this finds
            # the record at no extra round trip; elsewhere the abbreviation lookup below does.
            calls.append(("E1", {"name": proj_id}))
        results = await self.api.async_client.fetch_many(calls)
        if fund is None:
            found, _error, _stale = outcome(results.pop())
            fund = next((f for f in found or [] if f.get("proj_id") == proj_id), None)
        update = self._assemble(proj_id, periods, results)
        if fund is None:
            fund = await self._find_fund_record(proj_id, update.get("classes"))
        if fund is None and not update["errors"] and not _has_data(update):
            # Every part answered "no data" and no search knows the id: most likely a wrong id.
            # Refuse it rather than show an empty factsheet that looks like a real fund.
            raise BadInputError(f"the service has no data for fund {proj_id}: check the id (`sec-dashboard fund search NAME`)")
        return dict(update, proj_id=proj_id, periods=periods, fund=fund, loaded_at=time.time())

    def _assemble(self, proj_id: str, periods: list[str], results: list) -> dict:
        update: dict[str, Any] = {}
        records: dict[str, Any] = {"holdings": {}}
        errors: dict[str, str] = {}
        unpublished: dict[str, list[str]] = {}
        stale = False
        holdings: dict[str, pd.DataFrame] = {}
        n_parts = len(FACTSHEET_ENDPOINTS)
        for ep_id, result in zip(FACTSHEET_ENDPOINTS, results[:n_parts]):
            part = PART_OF[ep_id]
            kind = endpoint(ep_id).record_kind
            data, error, was_stale = outcome(result)
            stale |= was_stale
            if error:
                errors[part] = error
            dropped = unpublished_fields(result, data)
            if dropped:
                unpublished[part] = dropped
            records[part] = data if data is not None or part not in LIST_PARTS else []
            if part in LIST_PARTS:
                update[part] = result_frame(result) if error is None else records_frame(kind, [])
            else:
                update[part] = data
        for period, result in zip(periods, results[n_parts:]):
            data, error, was_stale = outcome(result)
            stale |= was_stale
            if error:
                errors[f"holdings {period}"] = error
            elif data:
                holdings[period] = result_frame(result)
                records["holdings"][period] = data
        if len(errors) == len(results):
            # Nothing loaded at all: one clear error (a rejected key, a closed service), not a blank page.
            raise next(r for r in results if isinstance(r, SecApiError))
        status = {part: part_status(update[part], errors.get(part)) for part in PARTS if part != "holdings"}
        failed_quarters = [reason for key, reason in errors.items() if key.startswith("holdings ")]
        status["holdings"] = part_status(holdings, None if holdings or not failed_quarters else failed_quarters[0])
        update.update(holdings=holdings, records=records, errors=errors, unpublished=unpublished, status=status, stale=stale)
        return update

    async def _find_fund_record(self, proj_id: str, classes: pd.DataFrame | None) -> dict | None:
        """The fund record for a proj_id: as seen in any earlier fund search or company list (no request),
        else the E1 record found through its abbreviation (E4), when that is known.

        The first is what a shared link to a single-class fund on the legacy layout relies on: its
        E4 answers no data, and the legacy search does not match ids.
        """
        known = self.api.async_client.known_fund(proj_id)
        if known is not None:
            return known
        return await record_by_abbreviation(self.api.async_client, proj_id, classes)

    # ---- derived views of the data -----------------------------------------------------------

    def part_status(self, part: str) -> PartStatus | None:
        """What became of one part (a parameter name, or "holdings") in the last load; None before any."""
        return self.status.get(part)

    @property
    def periods_with_data(self) -> list[str]:
        """Quarters with published holdings, newest first."""
        valid = list(self.periods) or sorted(self.holdings or {}, reverse=True)
        return [p for p in valid if p in (self.holdings or {})]

    @property
    def latest_period(self) -> str | None:
        """The newest quarter with published holdings, or None."""
        return next(iter(self.periods_with_data), None)

    @property
    def holdings_note(self) -> str:
        """Why the quarter shown is not the newest the rules make due: "Q3 2026 is not published for this fund yet
        ...: showing Q2 2026, ..." (api.periods.late_quarter_note); "" when the due quarter has holdings or before
        a load. Every output of the fund's holdings says it (the Holdings tab, `fund show`, reports)."""
        if not self.periods or not self.proj_id:
            return ""
        due = self.periods[0]
        return late_quarter_note(due, self.latest_period, (self.errors or {}).get(f"holdings {due}"))

    @property
    def term(self) -> str:
        """The project's term as text (`fund.project_term`); "" when it states no length."""
        return project_term(self.project_type)

    def has_data(self) -> bool:
        """Whether anything is known of the fund: its record or any part with data."""
        return self.fund is not None or _has_data(self.param.values())

    def performance_table(self, class_name: str | None = None) -> pd.DataFrame:
        """Past performance of one unit class by period and kind (`fund.performance_pivot`)."""
        return performance_pivot(self.performance, class_name)

    def risk_frame(self) -> pd.DataFrame:
        """The fund's one row of a risk frame, as `FundBasket.risk_frame` has a row per fund."""
        if self.proj_id is None:
            return risk_frame([])
        return risk_frame([risk_row(self.proj_id, self.fund, self.suitability, self.fees, self.performance)])

    def holdings_for(self, period: str | None = None) -> pd.DataFrame:
        """Holdings of one period (the latest with data by default); an invalid period is refused."""
        if period is None:
            period = self.latest_period
            if period is None:
                return _empty("holding")
        if period not in self.periods:
            raise BadInputError(
                f"period {period!r} is not a valid quarter here; valid periods are "
                f"{self.periods[-1]} to {self.periods[0]}" if self.periods else f"period {period!r}: no factsheet loaded"
            )
        return self.holdings.get(period, _empty("holding"))

    def as_dict(self) -> dict:
        """The factsheet as one JSON-ready object (the `fund show --json` contract)."""
        rec = self.records
        return {
            "proj_id": self.proj_id,
            "fund": self.fund,
            "classes": rec.get("classes") or [],
            "investment": rec.get("investment") or [],
            "holdings": dict(sorted(rec.get("holdings", {}).items(), reverse=True)),
            "project_type": rec.get("project_type"),
            "suitability": rec.get("suitability"),
            "return_estimate": rec.get("return_estimate"),
            "performance": rec.get("performance") or [],
            "redemption": rec.get("redemption"),
            "fees": rec.get("fees") or [],
            # The one total the screener, the Risk tab and the reports show too (`fund.total_annual_fee`).
            "total_annual_fee": total_annual_fee(self.fees) if self.fees is not None else None,
            "allocation": rec.get("allocation") or [],
            "urls": rec.get("urls"),
        }


def _has_data(update: dict) -> bool:
    """Whether any part of an assembled factsheet holds data."""
    if update.get("holdings"):
        return True
    frames = (update.get(part) for part in LIST_PARTS)
    objects = (update.get(part) for part in OBJECT_PARTS)
    return any(f is not None and not f.empty for f in frames) or any(o is not None for o in objects)

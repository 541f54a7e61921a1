"""FundBasket: funds compared side by side on fees, risk, allocation and performance."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pandas as pd
import param

from dashboard.api.endpoints import PROJ_ID_PATTERN, validate_path_param, validate_proj_id
from dashboard.errors import BadInputError, SecApiError
from dashboard.config import LAYOUT_SUCCESSOR
from dashboard.models import fund as rules
from dashboard.models.fund import RISK_COLUMNS, fee_type_name, fund_label, risk_frame, risk_row
from dashboard.models.source import PartStatus, ServiceModel, outcome, part_status, record_by_abbreviation
from dashboard.records import records_frame

# What a comparison needs from each fund; the full factsheet is not loaded for a basket.
BASKET_PARTS = {"E8": "suitability", "E10": "performance", "E12": "fees", "E13": "allocation"}
MAX_BASKET = 30

FEE_COLUMNS = ["fund", "proj_id", "class_abbr_name", "fee_type_en", "fee_type_th", "fee_type_desc", "rate", "rate_num",
               "rate_unit", "actual_value", "actual_value_num", "actual_value_unit", "fee_other_desc"]
ALLOCATION_COLUMNS = ["fund", "proj_id", "asset_seq", "asset_name", "asset_ratio"]
PERFORMANCE_COLUMNS = ["fund", "proj_id", "class_abbr_name", "performance_kind", "performance_type_desc",
                       "reference_period", "reference_period_order", "performance_val", "as_of_date"]
__all__ = ["BASKET_PARTS", "MAX_BASKET", "PREFERRED_FEE_TYPES", "RISK_COLUMNS", "FundBasket", "fee_type_name", "parse_proj_ids"]
# The fee types a fee comparison starts with, in order of preference (English names as published).
PREFERRED_FEE_TYPES = ("Management Fee", "Total Fee and Expense")


def parse_proj_ids(text: str | list | tuple | None, limit: int = MAX_BASKET) -> list[str]:
    """proj_ids from a comma- or space-separated text (the URL form): well-formed ones only, deduplicated, in order."""
    if text is None:
        return []
    parts = text if isinstance(text, (list, tuple)) else re.split(r"[\s,;]+", str(text))
    out: list[str] = []
    for part in parts:
        item = str(part).strip()
        if item and PROJ_ID_PATTERN.match(item) and item not in out:
            out.append(item)
    return out[:limit]


class FundBasket(ServiceModel):
    """A basket of funds and the comparison frames across it.

    Funds come from search results or from all funds of one asset management company (E2).
    Loading runs every fund's calls concurrently and reports `progress` as funds complete; a fund
    added by proj_id alone (from a shared link) gets its record through its abbreviation (E4, E1).
    """

    proj_ids = param.List(default=[], item_type=str, doc="Funds in the basket, by proj_id, in the order added.")
    funds = param.Dict(default={}, doc="Fund records (E1/E2) by proj_id, when known, for names and status.")
    parts = param.Dict(default={}, doc="Loaded data by proj_id: suitability, performance, fees, allocation.")
    errors = param.Dict(default={}, doc="Per fund, the parts that failed and why.")
    status = param.Dict(default={}, doc="Per loaded fund, each part's PartStatus: loaded, not published "
                                        "(the service has no data) or failed, with the reason.")
    progress = param.Number(default=1.0, bounds=(0, 1), doc="Share of the basket loaded, 0 to 1.")
    loaded = param.List(default=[], item_type=str, doc="proj_ids whose data is loaded (or failed to load).")
    unknown = param.List(default=[], item_type=str, doc="proj_ids the service has no data and no record for: most likely wrong ids.")
    company_id = param.String(default="", doc="Asset management company whose funds filled the basket (E2), if that is how it was filled.")
    revision = param.Integer(default=0, doc="Increases whenever the basket's funds or data change; comparison frames are cached per revision.")

    def __init__(self, **params: Any):
        super().__init__(**params)
        self._first_errors: dict[str, SecApiError] = {}
        # Derived frames, each stored with the revision it was computed for.
        self._memo: dict[tuple, tuple[int, pd.DataFrame]] = {}
        # Each fund's part frames, kept until that fund's data is replaced (so a fund added to a
        # full basket converts only its own rows).
        self._fund_frames: dict[str, dict[str, pd.DataFrame]] = {}
        self.param.watch(self._drop_replaced_frames, "parts")

    @param.depends("proj_ids", "parts", "funds", watch=True)
    def _bump_revision(self) -> None:
        self.revision += 1

    @param.depends("loaded", "parts", "errors", watch=True, on_init=True)
    def _derive_status(self) -> None:
        status = {}
        for proj_id in self.loaded:
            data, errors = self.parts.get(proj_id) or {}, self.errors.get(proj_id) or {}
            status[proj_id] = {part: part_status(data.get(part), errors.get(part)) for part in BASKET_PARTS.values()}
        if status != self.status:
            self.status = status

    def _drop_replaced_frames(self, event: param.parameterized.Event) -> None:
        old, new = event.old or {}, event.new or {}
        for proj_id in list(self._fund_frames):
            if new.get(proj_id) is not old.get(proj_id):
                del self._fund_frames[proj_id]

    def _cached(self, key: tuple, build) -> pd.DataFrame:
        """A comparison frame computed once per revision (views ask for the same frame several times)."""
        stored = self._memo.get(key)
        if stored is None or stored[0] != self.revision:
            stored = self._memo[key] = (self.revision, build())
        return stored[1].copy()

    # ---- membership ----------------------------------------------------------------------------

    def known_records(self, proj_ids: list[str]) -> dict[str, dict]:
        """Records of these funds as seen in any earlier answer of the client (no request sent).

        Only a client the model already has is asked: changing a basket's membership never
        creates one (the first load does)."""
        client = self.client
        if client is None or not proj_ids:
            return {}
        return {p: record for p in proj_ids if (record := client.known_fund(p))}

    def add(self, proj_id: str, fund: dict | None = None) -> None:
        proj_id = validate_proj_id(proj_id)
        funds = dict(self.funds)
        if not fund and proj_id not in funds:
            fund = self.known_records([proj_id]).get(proj_id)
        if fund:
            funds[proj_id] = fund
        if proj_id in self.proj_ids:
            if fund:
                self.funds = funds
            return
        if len(self.proj_ids) >= MAX_BASKET:
            raise BadInputError(f"a basket holds at most {MAX_BASKET} funds; remove one first")
        self.param.update(proj_ids=[*self.proj_ids, proj_id], funds=funds, company_id="")

    def remove(self, proj_id: str) -> None:
        if proj_id not in self.proj_ids:
            return
        keep = lambda d: {k: v for k, v in d.items() if k != proj_id}  # noqa: E731
        self.param.update(proj_ids=[p for p in self.proj_ids if p != proj_id], parts=keep(self.parts),
                          errors=keep(self.errors), loaded=[p for p in self.loaded if p != proj_id], company_id="")

    def set_funds(self, proj_ids: list[str], funds: dict[str, dict] | None = None) -> None:
        """Make the basket exactly these funds, keeping what is already loaded for the ones that stay."""
        ids = parse_proj_ids(list(proj_ids), limit=MAX_BASKET)
        records = {**self.funds, **(funds or {})}
        # A basket from a shared link names its funds at once when any earlier answer carried them.
        records.update(self.known_records([p for p in ids if p not in records]))
        keep = lambda d: {k: v for k, v in d.items() if k in ids}  # noqa: E731
        if ids == self.proj_ids and records == self.funds:
            return
        self.param.update(proj_ids=ids, funds=records, parts=keep(self.parts), errors=keep(self.errors),
                          loaded=[p for p in self.loaded if p in ids])

    def clear(self) -> None:
        self.param.update(proj_ids=[], funds={}, parts={}, errors={}, loaded=[], progress=1.0, company_id="", stale=False)

    # ---- loading -------------------------------------------------------------------------------

    async def _fetch_fund(self, proj_id: str) -> tuple:
        """One fund's comparison data; runs on the client's loop. Two round trips at most."""
        client = self.api.async_client
        known = None if proj_id in self.funds else client.known_fund(proj_id)
        need_record = proj_id not in self.funds and known is None
        # The current service finds a fund's record by its proj_id in one call (the fund search
        # matches ids there); the legacy one only through its abbreviation (E4, then E1), and
        # not at all for a single-class fund, whose E4 answers no data.
        by_id = need_record and await client.layout() == LAYOUT_SUCCESSOR
        calls = [(e, {"proj_id": proj_id}) for e in BASKET_PARTS]
        if by_id:
            calls.append(("E1", {"name": proj_id}))
        elif need_record:
            calls.append(("E4", {"proj_id": proj_id}))  # its abbreviation, to find its record
        results = await client.fetch_many(calls)
        data: dict[str, Any] = {}
        errors: dict[str, str] = {}
        stale = False
        first_error = next((r for r in results if isinstance(r, SecApiError)), None)
        for ep_id, result in zip(BASKET_PARTS, results):
            value, error, was_stale = outcome(result)
            stale |= was_stale
            data[BASKET_PARTS[ep_id]] = value
            if error:
                errors[BASKET_PARTS[ep_id]] = error
        record = known
        if by_id:
            found, _, _ = outcome(results[-1])
            record = next((f for f in found or [] if isinstance(f, dict) and f.get("proj_id") == proj_id), None)
        elif need_record:
            classes, _, _ = outcome(results[-1])
            record = await record_by_abbreviation(client, proj_id, classes)
        unknown = need_record and record is None and not errors and not any(data.values())
        return proj_id, data, errors, stale, record, unknown, first_error

    def pending(self) -> list[str]:
        """Funds in the basket whose data is not loaded yet."""
        return [p for p in self.proj_ids if p not in self.loaded]

    def _collect(self, done: tuple, total: int, finished: int) -> None:
        proj_id, data, errors, stale, record, unknown, first_error = done
        if proj_id not in self.proj_ids:  # removed while it loaded
            self.progress = finished / total
            return
        if first_error is not None:
            self._first_errors[proj_id] = first_error
        self.param.update(
            unknown=[p for p in self.unknown if p != proj_id] + ([proj_id] if unknown else []),
            parts={**self.parts, proj_id: data},
            errors={**self.errors, proj_id: errors} if errors else {k: v for k, v in self.errors.items() if k != proj_id},
            funds={**self.funds, proj_id: record} if record else self.funds,
            loaded=[*self.loaded, proj_id],
            stale=self.stale or stale,
            progress=finished / total,
        )

    def _raise_if_all_failed(self, pending: list[str], failures: list[BaseException]) -> None:
        """Every fund failed on every part: one clear error (a rejected key, a closed service)."""
        if failures and len(failures) == len(pending):
            raise failures[0]
        failed = self.failed()
        if pending and all(p in failed for p in pending):
            # Keep the kind of the first failure (a rejected key stays an AuthenticationError).
            cause = self._first_errors.get(pending[0]) or SecApiError(next(iter(failed.values())))
            raise type(cause)(f"none of the {len(pending)} funds in the basket could be loaded: {cause}",
                              status_code=cause.status_code, endpoint=cause.endpoint)

    def _start_load(self) -> list[str]:
        """What a load fetches: funds not loaded yet, and funds whose every part failed last time
        (so a load after an outage fetches them again)."""
        failed = self.failed()
        if failed:
            self.loaded = [p for p in self.loaded if p not in failed]
        return self.pending()

    async def load(self) -> "FundBasket":
        """Load every fund not yet loaded, all concurrently; `progress` rises as funds complete."""
        pending = self._start_load()
        if not pending:
            return self
        failures: list[BaseException] = []
        with self._loading():
            self.progress = 0.0
            try:
                tasks = [asyncio.ensure_future(self.api.arun(self._fetch_fund(p))) for p in pending]
                for finished, task in enumerate(asyncio.as_completed(tasks), 1):
                    try:
                        self._collect(await task, len(pending), finished)
                    except SecApiError as exc:
                        failures.append(exc)
                self._raise_if_all_failed(pending, failures)
            finally:
                self.progress = 1.0
        return self

    def unresolved(self) -> list[str]:
        """Funds in the basket whose record (name, status) is not known."""
        return [p for p in self.proj_ids if p not in self.funds]

    async def _company_records(self, companies: list[str]) -> dict[str, dict]:
        client = self.api.async_client
        results = await client.fetch_many([("E2", {"unique_id": c}) for c in companies])
        found: dict[str, dict] = {}
        for result in results:
            records, _error, _stale = outcome(result)
            for record in records or []:
                if record.get("proj_id"):
                    found[record["proj_id"]] = record
        return found

    def _apply_records(self, found: dict[str, dict]) -> list[str]:
        matched = {p: found[p] for p in self.unresolved() if p in found}
        if matched:
            self.funds = {**self.funds, **matched}
        return list(matched)

    def _companies_to_ask(self, companies) -> list[str]:
        known = [f.get("unique_id") for f in self.funds.values()]
        return [c for c in dict.fromkeys([*(companies or ()), *known]) if c][:MAX_BASKET]

    async def resolve_records(self, companies=()) -> list[str]:
        """Find the records of funds known only by proj_id (a shared link) among the fund lists (E2)
        of the companies already in view; one round trip. Returns the proj_ids resolved."""
        asked = self._companies_to_ask(companies)
        if not self.unresolved() or not asked:
            return []
        return self._apply_records(await self._fetched(self._company_records(asked)))

    @staticmethod
    def _company_funds(funds: list[dict] | None, statuses: tuple[str, ...], limit: int) -> list[dict]:
        return [f for f in funds or [] if f.get("proj_id") and (not statuses or f.get("fund_status") in statuses)][:limit]

    def _fill(self, unique_id: str, chosen: list[dict]) -> list[str]:
        self.clear()
        self.param.update(proj_ids=[f["proj_id"] for f in chosen], funds={f["proj_id"]: f for f in chosen},
                          company_id=unique_id)
        return self.proj_ids

    async def from_company(self, unique_id: str, *, statuses: tuple[str, ...] = ("RG",), limit: int = MAX_BASKET) -> list[str]:
        """Fill the basket with one company's funds (E2), registered ones by default; data not loaded yet."""
        unique_id = validate_path_param("unique_id", unique_id)
        funds = await self._fetched(self.api.async_client.fetch("E2", unique_id=unique_id))
        return self._fill(unique_id, self._company_funds(funds, statuses, limit))

    # ---- comparison frames ----------------------------------------------------------------------

    def label(self, proj_id: str) -> str:
        """The fund's abbreviation, or its proj_id when its record is unknown."""
        return fund_label(self.funds.get(proj_id), proj_id)

    def _stack(self, part: str, kind: str) -> pd.DataFrame:
        frames = []
        for proj_id in self.proj_ids:
            rows = (self.parts.get(proj_id) or {}).get(part)
            if rows:
                known = self._fund_frames.setdefault(proj_id, {})
                if part not in known:
                    known[part] = records_frame(kind, rows)
                frames.append(known[part].assign(proj_id=proj_id, fund=self.label(proj_id)))
        if not frames:
            return records_frame(kind, []).assign(proj_id=pd.Series(dtype="string"), fund=pd.Series(dtype="string"))
        out = pd.concat(frames, ignore_index=True)
        return out.astype({"proj_id": "string", "fund": "string"})

    def fee_frame(self, fee_type: str | None = None) -> pd.DataFrame:
        """Fees across the basket; `rate` (prospectus ceiling) and `actual_value` (charged) stay separate columns.

        `fee_type` keeps one type (its English name or full text). The free text of the service
        is kept next to the numbers read from it.
        """
        return self._cached(("fees", fee_type), lambda: self._fee_frame(fee_type))

    def _fee_frame(self, fee_type: str | None) -> pd.DataFrame:
        frame = self._stack("fees", "fee")
        frame = frame[[c for c in FEE_COLUMNS if c in frame.columns]]
        if fee_type:
            frame = frame[fee_type_name(frame) == fee_type].reset_index(drop=True)
        return frame

    def fee_types(self) -> list[str]:
        """The fee types present in the basket, in the order first seen."""
        frame = self.fee_frame()
        return list(dict.fromkeys(fee_type_name(frame).tolist())) if not frame.empty else []

    def preferred_fee_type(self) -> str | None:
        """The fee type a comparison starts with: the management fee, else the total expense (what
        investors compare first), when the basket has it; None when it has neither."""
        types = self.fee_types()
        return next((t for t in PREFERRED_FEE_TYPES if t in types), None)

    def allocation_frame(self) -> pd.DataFrame:
        return self._cached(("allocation",), lambda: self._stack("allocation", "allocation")[ALLOCATION_COLUMNS])

    def performance_frame(self) -> pd.DataFrame:
        def build() -> pd.DataFrame:
            frame = self._stack("performance", "performance")
            return frame[[c for c in PERFORMANCE_COLUMNS if c in frame.columns]]

        return self._cached(("performance",), build)

    def total_annual_fee(self, proj_id: str) -> float | None:
        """The fund's total annual fee (`fund.total_annual_fee`): actual charges of its first unit class."""
        fees = self.fee_frame()
        return rules.total_annual_fee(fees[fees["proj_id"] == proj_id])

    def fund_returns(self) -> pd.DataFrame:
        """Each fund's fund return by period, first unit class, long (`fund.fund_returns`)."""
        return self._cached(("returns",), lambda: rules.fund_returns(self.performance_frame()))

    def returns_by_fund(self) -> pd.DataFrame:
        """Each fund's fund return by period, first unit class: a row per fund in basket order (`fund.returns_by_fund`)."""
        return self._cached(("returns by fund",), lambda: rules.returns_by_fund(self.performance_frame(), self.proj_ids))

    def risk_frame(self) -> pd.DataFrame:
        """One row per fund: risk level, total annual fee (actual) and 1-year return (`fund.risk_row`)."""
        return self._cached(("risk",), self._risk_frame)

    def _risk_frame(self) -> pd.DataFrame:
        fees, perf = self.fee_frame(), self.performance_frame()
        fees_of, perf_of = dict(tuple(fees.groupby("proj_id", sort=False))), dict(tuple(perf.groupby("proj_id", sort=False)))
        return risk_frame([
            risk_row(proj_id, self.funds.get(proj_id), (self.parts.get(proj_id) or {}).get("suitability"),
                     fees_of.get(proj_id, fees.iloc[:0]), perf_of.get(proj_id, perf.iloc[:0]))
            for proj_id in self.proj_ids
        ])

    def without_risk_level(self) -> list[str]:
        """The loaded funds the service publishes no risk level for (a failed load is not counted: it is
        reported as a failure), by their labels in basket order."""
        if not self.loaded:
            return []
        risk = self.risk_frame()
        failed = self.failed_part("suitability")
        return risk.loc[risk["risk_rank"].isna() & ~risk["proj_id"].isin(failed), "fund"].astype(str).tolist()

    def part_status(self, proj_id: str, part: str) -> PartStatus | None:
        """What became of one fund's `part` (suitability, performance, fees, allocation); None before it loads."""
        return (self.status.get(proj_id) or {}).get(part)

    def _in_state(self, part: str, state: str) -> list[str]:
        return [p for p in self.proj_ids if (s := self.part_status(p, part)) is not None and s.state == state]

    def failed_part(self, part: str) -> list[str]:
        """Loaded funds whose `part` (fees, suitability, performance, allocation) failed to load."""
        return self._in_state(part, "failed")

    def unpublished(self, part: str) -> list[str]:
        """Loaded funds for which the service has no `part`: "no data", not a failure."""
        return self._in_state(part, "not published")

    def failed(self) -> dict[str, str]:
        """Funds whose every part failed, with the first reason (for a notification)."""
        return {p: next(iter(e.values())) for p, e in self.errors.items() if len(e) == len(BASKET_PARTS)}

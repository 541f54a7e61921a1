"""MarketScreen: the Market tab's model (no Panel): the screener's filters, its results, the snapshot's age,
the market's risk spectrum, fees by policy type, the most-held securities and who holds a security.

Every operation is one `async def`; the store's questions are quick local DuckDB queries, run in a
worker thread (`asyncio.to_thread`) so the page never waits on them. The model reads through one
reader (`open_reader`: the Parquet snapshot a sync publishes), so a `market sync` in another process
is never locked out and every dataset is seen whole. `sync_demo` fills the demo market's store from
the in-process simulator.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd
import param

from dashboard.errors import BadInputError, SecApiError
from dashboard.market import queries
from dashboard.market import holdings
from dashboard.market.lookthrough import look_through
from dashboard.market import status as market_status
from dashboard.config import ApiSettings
from dashboard.market import store as market_store
from dashboard.market.store import MarketStore
from dashboard.market.nav_filters import NAV_FILTERS, TAB_FILTERS
from dashboard.market.nav_sync import DEFAULT_NAV_DAYS
from dashboard.market.sync import SyncProgress, sync_market
from dashboard.records.labels import FUND_STATUS, RISK_LEVEL

T = TypeVar("T")

RISK_CODES = list(RISK_LEVEL)  # RS1 .. RS8, RS81
STATUS_CODES = ["", *FUND_STATUS]
TAX_CHOICES = ["", "SSF", "ThaiESG"]
SORT_FIELDS = ["proj_id", "proj_abbr_name", "company_name_en", "risk_spectrum", "total_fee_actual", "-total_fee_actual",
               "cost_100k_10y",  # what the fees take from 100,000 THB over 10 years (queries' cost column), least first
               "return_1y", "-return_1y",
               # by the figures from the NAV history (queries.NAV_FIELDS; a drawdown is a fall, -12.5, so the
               # shallowest first is descending); funds without the figure last
               "-nav_return_1y", "-nav_total_return_1y", "-return_3y_ann", "volatility_1y", "-max_drawdown_1y",
               "-sharpe_1y"]
# The NAV figure filters the tab offers: nav_filters.TAB_FILTERS, the one list the command line reads too.
NAV_FILTER_NAMES = tuple(f.name for f in TAB_FILTERS)
# The screener's frame: the fund's fields, then its figures from the NAV history (numbers as floats).
RESULT_FIELDS = list(queries.SCREEN_FIELDS) + list(queries.NAV_FIELDS)
NAV_NUMBER_FIELDS = [f for f in queries.NAV_FIELDS if f not in ("nav_class", "last_nav_date", "peers")]
# The NAV filters in words (an error names a filter as the tab labels it, not by its option or field).
NAV_FILTER_LABELS = {f.name: f.label for f in NAV_FILTERS}
PAGE_SIZES = [10, 20, 50, 100]


def empty_results() -> pd.DataFrame:
    """The screener's frame with no rows (the columns of `RESULT_FIELDS`)."""
    return screen_frame([])


def screen_frame(rows: list[dict]) -> pd.DataFrame:
    """Screener rows as a frame: one row per fund, tax incentives as "SSF, ThaiESG" text, the figures (fees,
    returns, the NAV history's figures and percentiles) as float64 (NaN without one), the last NAV date a date."""
    frame = pd.DataFrame(rows, columns=RESULT_FIELDS)
    frame["tax_incentives"] = frame["tax_incentives"].map(
        lambda v: ", ".join(v) if isinstance(v, (list, tuple)) else ("" if v is None else str(v))).astype(object)
    for col in ("total_fee_actual", "total_fee_ceiling", "return_1y", "cost_100k_10y", *NAV_NUMBER_FIELDS):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
    frame["peers"] = pd.to_numeric(frame["peers"], errors="coerce").astype("Int64")
    frame["last_nav_date"] = frame["last_nav_date"].astype(object).where(frame["last_nav_date"].notna(), None)
    return frame


def overlap_pairs_frame(pairs: dict[str, float], names: dict[str, str] | None = None) -> pd.DataFrame:
    """Each pair's overlap as rows (fund, other, overlap_pct), from holdings.overlap's "a|b" -> percent."""
    names = names or {}
    rows = []
    for pair, pct in pairs.items():
        a, b = pair.split("|")
        rows.append({"fund": names.get(a, a), "other": names.get(b, b), "overlap_pct": pct})
    frame = pd.DataFrame(rows, columns=["fund", "other", "overlap_pct"])
    frame["overlap_pct"] = pd.to_numeric(frame["overlap_pct"], errors="coerce").astype("float64")
    return frame


def holders_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(holdings.HOLDER_FIELDS))
    for col in ("percent_nav", "assetliab_value"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
    return frame


def market_frame(rows: list[dict], columns: list[str]) -> pd.DataFrame:
    """Rows as a frame with these columns, counts as nullable integers and figures as floats (also when empty)."""
    frame = pd.DataFrame(rows, columns=columns)
    for col in frame.columns:
        if col in COUNT_FIELDS:
            frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("Int64")
        elif col in FIGURE_FIELDS:
            frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
    return frame


COUNT_FIELDS = {"funds", "risk_rank", "common"}
FIGURE_FIELDS = {"min", "p25", "median", "p75", "max", "mean", "total_value", "percent_nav_avg", "overlap_pct"}


SPECTRUM_FIELDS = ["risk_spectrum", "risk_rank", "policy_type", "funds"]
FEE_FIELDS = ["policy_type", "funds", "min", "p25", "median", "p75", "max", "mean"]
MOST_HELD_FIELDS = ["security", "issue_code", "isin_code", "issuer", "period", "funds", "total_value", "percent_nav_avg"]
MOST_HELD_LIMIT = 20
OVERLAP_FIELDS = ["proj_id", "period", "overlap_pct", "common", "in_snapshot"]


class MarketScreen(param.Parameterized):
    """The whole market from the local snapshot: a screener and market-wide views, for the Market tab."""

    settings = param.ClassSelector(class_=ApiSettings, default=None, allow_None=True,
                                   doc="Where the snapshot is (the cache directory; the demo market in demo mode).")
    snapshot_dir = param.String(default="", doc="A snapshot directory or store file to read instead of the settings' one.")

    # ---- the screener's filters ------------------------------------------------------------------
    company = param.String(default="", doc="Only the funds of this management company: its unique_id, or a part of its "
                                           "name that only one company has (queries.company_id); empty for all.")
    status = param.Selector(default="", objects=STATUS_CODES,
                            doc="Only funds with this status (RG registered, SE in filing, EX expired, CA cancelled, "
                                "LI liquidated); empty for all. Also limits the market-wide views.")
    risk = param.ListSelector(default=[], objects=RISK_CODES, doc="Only funds at these risk levels (RS1 to RS8+); none for all.")
    policy = param.String(default="", doc="Only funds whose policy type contains this text, in English or Thai (any case; "
                                                 "'equity' finds ตราสารทุน).")
    tax = param.Selector(default="", objects=TAX_CHOICES, doc="Only funds with this tax incentive (SSF, ThaiESG); empty for all.")
    retail_type = param.String(default="", doc="Only funds of this retail type (as the service writes it); empty for all.")
    max_fee = param.Number(default=None, allow_None=True, bounds=(0, None),
                           doc="Only funds whose total annual fee, as actually charged, is at most this (% a year).")
    min_return_1y = param.Number(default=None, allow_None=True,
                                 doc="Only funds whose 1-year return as the factsheet publishes it is at least this (%).")
    # The NAV figure filters (nav_filters.TAB_FILTERS) are added below the class, one parameter each.
    sort = param.Selector(default="proj_id", objects=SORT_FIELDS,
                          doc="Order of the results: a field, descending when it starts with '-'.")
    page_size = param.Selector(default=20, objects=PAGE_SIZES, doc="Funds per page of the results table.")

    # ---- what the snapshot answered --------------------------------------------------------------
    results = param.DataFrame(default=None, allow_None=True, doc="The funds that pass every filter (queries.screen rows).")
    missing = param.List(default=[], item_type=str,
                         doc="For each NAV filter on a figure no fund in the snapshot has: a sentence saying so and "
                             "how many days of NAV it needs (queries.missing_nav_figures); empty otherwise.")
    has_store = param.Boolean(default=False, doc="Whether a market snapshot has been published (a sync ran).")
    snapshot_at = param.String(default="", doc="When the snapshot's newest dataset was fetched (ISO time, UTC); "
                                                "empty without one.")
    age_s = param.Number(default=None, allow_None=True, doc="The snapshot's age in seconds; None without one.")
    fund_count = param.Integer(default=0, doc="Funds in the snapshot.")
    nav_funds = param.Integer(default=0, doc="Funds with figures from the snapshot's NAV history (0: it holds none).")
    nav_until = param.String(default="", doc="The newest last NAV date of those figures (ISO date); empty without one.")
    companies = param.Dict(default={}, doc="The snapshot's management companies: name by unique_id, in name order.")
    complete = param.Boolean(default=False, doc="Whether every dataset of the snapshot is complete.")
    error = param.String(default="", doc="Why the last operation failed (a bad filter, an unreadable store); "
                                          "empty when it worked.")
    loading = param.Boolean(default=False, doc="True while the snapshot is read.")

    fund = param.String(default="", doc="proj_id of the fund whose fee is placed among its peers.")
    spectrum = param.DataFrame(default=None, allow_None=True,
                               doc="Funds per risk level and policy type (queries.risk_spectrum rows).")
    fees = param.DataFrame(default=None, allow_None=True,
                           doc="Total annual fees as charged, by policy type: quartiles (queries.fees_by_policy rows).")
    fee_position = param.Dict(default=None, allow_None=True,
                              doc="The fund's fee percentile among its policy type's peers (queries.fee_percentile); "
                                  "None without one.")
    most_held = param.DataFrame(default=None, allow_None=True,
                                doc="The securities held by the most funds in the latest quarter (holdings.most_held rows).")
    security = param.String(default="", doc="The security (issue code or ISIN) whose holders are listed.")
    holders = param.DataFrame(default=None, allow_None=True,
                              doc="Every fund holding `security` in the latest quarter: a row per fund and security "
                                  "(a name finds several securities, so a fund may have several rows).")
    holders_summary = param.String(default="", doc="Who holds `security`, counted as distinct funds, in words "
                                                   "(market.holdings.holders_summary); empty before a search.")
    looked_through = param.Boolean(default=False, doc="Whether the most-held securities, who holds a security and the "
                                   "overlap look through funds of Thai funds (market.lookthrough): units of a fund in "
                                   "the snapshot count as that fund's latest holdings, scaled by weight.")
    looked_through_note = param.String(default="", doc="What the look-through expanded and what it could not, in words "
                                                       "(LookThrough.summary); empty when not looked through.")
    overlap_funds = param.List(default=[], item_type=str, doc="The funds whose overlap is shown (proj_ids), two or more.")
    overlap_labels = param.Dict(default={}, doc="The overlap funds' abbreviations by proj_id (the proj_id without one).")
    overlap_pairs = param.DataFrame(default=None, allow_None=True,
                                    doc="Each pair's overlap (fund, other, overlap_pct: the sum over common holdings "
                                        "of the smaller weight, % of NAV).")
    overlap_common = param.DataFrame(default=None, allow_None=True,
                                     doc="The securities the overlap funds hold in common: issue_code, isin_code, "
                                         "issuer and a weight column per fund, named by its proj_id (% of NAV).")
    overlap_note = param.String(default="", doc="The overlap's quarter, funds without a profile and (looked through) "
                                                "what could not be expanded, in words.")

    # ---- a sync --------------------------------------------------------------------------------------
    syncing = param.Boolean(default=False, doc="True while a sync runs (this one's demo sync, or one seen in the snapshot).")
    sync_progress = param.Number(default=0.0, bounds=(0, 1), doc="How far the running sync has gone (0 to 1).")
    sync_message = param.String(default="", doc="What the running sync is fetching, in words.")
    sync_done = param.Integer(default=0, doc="Datasets (as `market status` lists them) the running sync has stored or found fresh.")
    sync_total = param.Integer(default=0, doc="Datasets (as `market status` lists them) the running sync goes through (0 when not known).")

    def __init__(self, **params: Any):
        super().__init__(**params)
        self._reset_frames()
        self._running = 0  # reads and questions in flight (the reader is closed only once none is)
        self._reads = 0  # this model's own reads in flight: `loading` is True while there is one
        self._counting = threading.Lock()  # the counts are changed by the worker threads that end the reads
        self._closed = False  # closed (the reader too, once the reads in flight have ended)
        self._opening = threading.Lock()  # two reads starting together open one reader
        self._reader: MarketStore | None = None
        self._own_sync = False

    def _reset_frames(self) -> None:
        self.param.update(results=empty_results(), holders=holders_frame([]), spectrum=market_frame([], SPECTRUM_FIELDS),
                          fees=market_frame([], FEE_FIELDS), most_held=market_frame([], MOST_HELD_FIELDS),
                          companies={}, overlap_pairs=overlap_pairs_frame({}), looked_through_note="")

    # ---- reading the snapshot --------------------------------------------------------------------

    def reader(self) -> MarketStore:
        """The snapshot's reader (opened on first use, by one thread; it sees each new publish by itself)."""
        with self._opening:
            if self._closed:
                raise SecApiError("The market snapshot is closed: the session that read it has ended.")
            if self._reader is None:
                self._reader = market_store.open_reader(self.settings or ApiSettings.from_env(),
                                                        path=self.snapshot_dir or None)
            return self._reader

    def close(self) -> None:
        """Close the snapshot's reader for good (a session has ended). One still read in a worker thread is closed
        when the last read ends: closed under it, DuckDB raised "connection is busy" and the read failed."""
        self._closed = True
        if self._running:
            return
        with self._opening:
            reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()

    def filters(self) -> dict[str, Any]:
        """The screener's filters as `queries.screen` takes them."""
        return {"company": self.company or None, "status": self.status or None, "risk": list(self.risk),
                "policy": self.policy or None, "tax": self.tax or None, "retail_type": self.retail_type or None,
                "max_fee": self.max_fee, "min_return_1y": self.min_return_1y, "sort": self.sort or None,
                **{name: getattr(self, name) for name in NAV_FILTER_NAMES}}

    async def _in_worker(self, work: Callable[[MarketStore], T], busy: bool) -> T:
        """`work(reader)` in a worker thread, counted from the moment it is asked until the thread has ended it.

        The worker thread itself ends the count (and so `loading`), not the coroutine that awaits it: a coroutine
        whose event loop stops being run never resumes (a task left pending on a loop Panel ran only until its own
        callback ended, or one closed by `asyncio.run`), and a count ended there kept `loading` True for good.
        A read cancelled before its thread started is ended by the coroutine, and its thread then does nothing."""
        loop = asyncio.get_running_loop()
        read = {"started": False, "ended": False}
        with self._counting:
            self._running += 1
            self._reads += busy
        if busy:
            self.loading = True

        def run() -> T:
            with self._counting:
                if read["ended"]:
                    raise asyncio.CancelledError()
                read["started"] = True
            try:
                return work(self.reader())
            finally:
                self._end(read, busy, loop)

        try:
            return await asyncio.to_thread(run)
        except BaseException:
            with self._counting:
                abandoned = not read["started"]
            if abandoned:
                self._end(read, busy, None)
            raise

    def _end(self, read: dict, busy: bool, loop: asyncio.AbstractEventLoop | None) -> None:
        with self._counting:
            if read["ended"]:
                return
            read["ended"] = True
            self._running -= 1
            self._reads -= busy

        def settle() -> None:
            with self._counting:
                reads, running = self._reads, self._running
            if busy:
                self.loading = reads > 0
            if self._closed and not running:
                self.close()

        # on the loop that asked, while it runs (the session's own thread); else here, at once
        if loop is not None and loop.is_running():
            try:
                loop.call_soon_threadsafe(settle)
                return
            except RuntimeError:  # closed meanwhile
                pass
        settle()

    async def _read(self, work: Callable[[MarketStore], T]) -> T:
        """`work(reader)` in a worker thread, `loading` set meanwhile; a failure is kept in `error` and raised."""
        try:
            return await self._in_worker(work, busy=True)
        except (BadInputError, SecApiError) as exc:
            self.error = str(exc)
            raise

    async def ask(self, question: Callable[[MarketStore], T]) -> T:
        """Another model's question of the snapshot (`question(reader)`): in a worker thread, on this model's one
        reader (closed only once it has answered), without this model's `loading` or `error`: the asker keeps
        its own (the sibling feeders' model asks this way, for the explorer too, whose page is not the market's
        to mark busy). (Counted with the reads, a question never answered kept `loading` up after every read.)"""
        return await self._in_worker(question, busy=False)

    def _state(self, store: MarketStore) -> dict[str, Any]:
        state = market_status.snapshot_state(store)
        out = {"has_store": bool(state["has_snapshot"]), "snapshot_at": state["fetched_at"] or "",
               "age_s": state["age_s"], "complete": bool(state["complete"])}
        sync = state.get("sync")
        if not self._own_sync:
            out["syncing"] = bool(sync)
            if sync:
                out["sync_progress"] = min(1.0, sync["done"] / sync["total"]) if sync.get("total") else 0.0
                out["sync_message"] = _sync_words(sync.get("dataset"), sync.get("rows") or 0, sync.get("calls") or 0)
                out["sync_done"], out["sync_total"] = int(sync.get("done") or 0), int(sync.get("total") or 0)
        return out

    def _market(self, store: MarketStore, fund: str, status: str | None) -> dict[str, Any]:
        return {"spectrum": market_frame(queries.risk_spectrum(store, status=status), SPECTRUM_FIELDS),
                "fees": market_frame(queries.fees_by_policy(store, status=status), FEE_FIELDS),
                "fee_position": queries.fee_percentile(store, fund, status=status) if fund else None,
                **self._most_held(store, self.looked_through)}

    @staticmethod
    def _most_held(store: MarketStore, looked_through: bool) -> dict[str, Any]:
        """The most-held securities, direct or looked through (with the note of what was looked through)."""
        view, note = None, ""
        if looked_through:
            quarter = holdings.latest_period(store)
            if quarter is not None:
                view = look_through(store, quarter)
                note = view.summary()
        rows = holdings.most_held(store, limit=MOST_HELD_LIMIT, looked_through=view if view is not None else False)
        return {"most_held": market_frame(rows, MOST_HELD_FIELDS), "looked_through_note": note}

    # ---- operations ------------------------------------------------------------------------------

    async def refresh(self) -> pd.DataFrame:
        """Read the snapshot's state and run the screener and the market-wide questions; the results."""
        filters, fund, status = self.filters(), self.fund, self.status or None

        def work(store: MarketStore) -> dict[str, Any]:
            out = self._state(store)
            if not out["has_store"]:
                return out
            out["fund_count"] = int(store.count("funds"))
            out["companies"] = queries.company_names(store)
            out.update(_nav_state(store))
            out["results"] = screen_frame(queries.screen(store, **filters))
            out["missing"] = queries.missing_nav_figures(store, filters)
            out.update(self._market(store, fund, status))
            return out

        update = await self._read(work)
        if not update["has_store"]:
            self._reset_frames()
            update.update(fund_count=0, fee_position=None, nav_funds=0, nav_until="")
        self.param.update(error="", **update)
        return self.results

    async def poll(self) -> bool:
        """Look at the snapshot's state only (cheap: for a periodic check); True when a new snapshot appeared."""
        before = self.snapshot_at
        update = await self._read(self._state)
        self.param.update(**update)
        return bool(update["has_store"]) and update["snapshot_at"] != before

    async def screen(self) -> pd.DataFrame:
        """Run the screener only (after a filter changed)."""
        if not self.has_store:
            return await self.refresh()
        filters, status = self.filters(), self.status or None
        fund = self.fund

        def work(store: MarketStore) -> dict[str, Any]:
            out = {"results": screen_frame(queries.screen(store, **filters)),
                   "missing": queries.missing_nav_figures(store, filters)}
            out.update(self._market(store, fund, status))
            return out

        update = await self._read(work)
        self.param.update(error="", **update)
        return self.results

    async def place_fund(self, proj_id: str | None = None) -> dict | None:
        """Place a fund's fee among its policy type's peers (`fee_position`; None when the fund is not in the snapshot)."""
        if proj_id is not None:
            self.fund = proj_id
        fund, status = self.fund, self.status or None
        position = None
        if fund and self.has_store:
            position = await self._read(lambda store: queries.fee_percentile(store, fund, status=status))
        self.fee_position = position
        return position

    async def find_holders(self, security: str | None = None) -> pd.DataFrame:
        """Every fund holding a security (issue code or ISIN) in the latest quarter (`holders`)."""
        text = (self.security if security is None else security).strip()
        self.security = text
        through = self.looked_through
        try:
            rows = await self._read(lambda store: holdings.holders(store, text, looked_through=through))
        except (BadInputError, SecApiError):
            self.param.update(holders=holders_frame([]), holders_summary="")
            raise
        frame = holders_frame(rows)
        self.param.update(holders=frame, holders_summary=holdings.holders_summary(rows, text) if text else "", error="")
        return self.holders

    async def overlap(self, funds: list[str], period: str | None = None) -> dict:
        """How much funds overlap in one quarter (holdings.overlap), looked through when `looked_through`."""
        through = self.looked_through
        return await self._read(lambda store: holdings.overlap(store, funds, period, looked_through=through))

    async def find_overlap(self, funds: list[str] | None = None) -> pd.DataFrame:
        """The overlap of `funds` (proj_ids or exact abbreviations; the last asked when None) in the latest quarter:
        `overlap_pairs`, `overlap_common` and `overlap_note`. Bad input (one fund, an unknown one) raises and changes
        nothing."""
        asked = list(self.overlap_funds if funds is None else funds)
        if not asked:
            self.param.update(overlap_funds=[], overlap_pairs=overlap_pairs_frame({}), overlap_common=None,
                              overlap_note="")
            return self.overlap_pairs

        through = self.looked_through

        def work(store: MarketStore) -> dict[str, Any]:
            data = holdings.overlap(store, asked, None, looked_through=through)
            marks = ", ".join("?" * len(data["funds"]))
            names = {r["proj_id"]: r["proj_abbr_name"] for r in store.query(
                f"SELECT proj_id, proj_abbr_name FROM funds WHERE proj_id IN ({marks})", list(data["funds"]))}
            return {"data": data, "names": names}

        answer = await self._read(work)
        data, names = answer["data"], answer["names"]
        label = {p: names.get(p) or p for p in data["funds"]}
        common = pd.DataFrame([{"issue_code": c["issue_code"], "isin_code": c["isin_code"], "issuer": c["issuer"],
                                **{p: c["weights"].get(p) for p in data["funds"]}} for c in data["common"]],
                              columns=["issue_code", "isin_code", "issuer", *data["funds"]])
        for proj_id in data["funds"]:
            common[proj_id] = pd.to_numeric(common[proj_id], errors="coerce").astype("float64")
        notes = [f"{label[p]}: {why}" for p, why in data["missing"].items()]
        if data.get("looked_through_note"):
            notes.append(data["looked_through_note"])
        self.param.update(overlap_funds=list(data["funds"]), overlap_labels=label, overlap_pairs=overlap_pairs_frame(data["overlap_pct"], label),
                          overlap_common=common, overlap_note=" ".join(notes), error="")
        return self.overlap_pairs

    async def basket_lookthrough(self, amounts: dict[str, float]) -> dict[str, Any]:
        """A basket with amounts in the latest quarter, looked through (market.basket_holdings): `holdings` (a frame:
        security, issuer, baht, percent of the basket, funds, through), `note` (what could not be expanded),
        `no_holdings` (basket funds without holdings in the quarter), `pairs` (each pair's overlap, looked through,
        fund and other by abbreviation) and `period`."""
        from dashboard.market.basket_holdings import BASKET_HOLDING_FIELDS, basket_holdings

        amounts = dict(amounts)

        def work(store: MarketStore) -> dict[str, Any]:
            rows, view, no_holdings = basket_holdings(store, amounts)
            ids = [p for p in amounts if p not in no_holdings]
            pairs = holdings.overlap(store, ids, view.period, looked_through=True) if view is not None and len(ids) > 1 else None
            names = view.names if view is not None else {}
            missing = [p for p in ids if p not in names]
            if missing:
                marks = ", ".join("?" * len(missing))
                names = {**names, **{r["proj_id"]: r["proj_abbr_name"] for r in store.query(
                    f"SELECT proj_id, proj_abbr_name FROM funds WHERE proj_id IN ({marks})", missing)
                    if r["proj_abbr_name"]}}
            frame = pd.DataFrame(rows, columns=list(BASKET_HOLDING_FIELDS))
            for column in ("baht", "percent"):
                frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("float64")
            return {"holdings": frame, "note": view.summary() if view is not None else "",
                    "no_holdings": no_holdings, "period": view.period if view is not None else None,
                    "pairs": overlap_pairs_frame(pairs["overlap_pct"] if pairs else {}, names)}

        return await self._read(work)

    async def set_looked_through(self, looked_through: bool) -> None:
        """Look through funds of Thai funds, or not: the most-held securities, who holds the security asked and the
        overlap asked are read again."""
        self.looked_through = bool(looked_through)
        if not self.has_store:
            return
        update = await self._read(lambda store: self._most_held(store, self.looked_through))
        self.param.update(**update)
        if self.security:
            await self.find_holders()
        if self.overlap_funds:
            await self.find_overlap()

    async def basket_overlap(self, fund: str, others: list[str], period: str | None = None) -> pd.DataFrame:
        """The fund's overlap with each of `others` in one quarter (the latest stored when None): one row per
        other fund, `overlap_pct` (the sum over common holdings of the smaller weight), `common` (securities
        held by both) and `in_snapshot` (False when either fund is not in the snapshot, figures then missing)."""
        def work(store: MarketStore) -> pd.DataFrame:
            quarters = holdings.periods(store)
            quarter = period if period in quarters else None if period else (quarters[0] if quarters else None)
            rows = []
            for other in others:
                row = {"proj_id": other, "period": quarter, "overlap_pct": None, "common": None, "in_snapshot": False}
                if quarter is not None and other != fund:
                    try:
                        answer = holdings.overlap(store, [fund, other], quarter)
                    except BadInputError:
                        pass
                    else:
                        a, b = answer["funds"]
                        row.update(overlap_pct=answer["overlap_pct"].get(f"{a}|{b}"), common=len(answer["common"]),
                                   in_snapshot=True)
                rows.append(row)
            return market_frame(rows, OVERLAP_FIELDS)

        return await self._read(work)

    async def fund_records(self, proj_ids: list[str]) -> dict[str, dict | None]:
        """The fund record of each proj_id from the snapshot (None for one it does not hold)."""
        return await self._read(lambda store: {p: queries.fund_record(p, store) for p in proj_ids})

    async def sync_demo(self, client: Any, **options: Any) -> None:
        """Fill the store from `client` (the demo simulator's SecClient), with `sync_progress` meanwhile; then refresh.

        With the daily NAV of the last DEFAULT_NAV_DAYS days unless `nav_days` says otherwise, as `market sync`
        does: the screener's NAV figures are part of what the demo shows."""
        if self.syncing:
            return
        options.setdefault("nav_days", DEFAULT_NAV_DAYS)
        settings = self.settings or client.settings
        loop = asyncio.get_running_loop()

        def progress(step: SyncProgress) -> None:  # on the client's thread
            # N of M as the sync counts them (SyncProgress.datasets_done/_total), as `market sync` and `market
            # status` name them: the quarters of holdings one dataset, the NAV one.
            total = step.datasets_total or 1
            fraction = min(0.99, step.datasets_done / total)
            message = _sync_words(step.dataset.split(":")[0], step.rows, step.calls, step.done, step.detail)
            loop.call_soon_threadsafe(lambda: self.param.update(
                sync_progress=max(self.sync_progress, fraction), sync_message=message,
                sync_done=step.datasets_done, sync_total=step.datasets_total))

        self._own_sync = True
        self.param.update(syncing=True, sync_progress=0.0, sync_message="Starting", sync_done=0, sync_total=0)
        started = time.monotonic()
        writer: MarketStore | None = None
        try:
            writer = await asyncio.to_thread(MarketStore, settings=settings)
            await client.arun(sync_market(writer, client.async_client, progress=progress, **options))
        finally:
            if writer is not None:
                await asyncio.to_thread(writer.close)
            self._own_sync = False
            self.param.update(syncing=False, sync_progress=1.0,
                              sync_message=f"Synced in {time.monotonic() - started:.0f} s")
        await self.refresh()


def _nav_filter_parameter(spec) -> param.Number:
    """A NAV filter's parameter, bounded as queries.screen bounds it, so a value past sense (a link's
    max_drawdown=150) is refused by the parameter: the view checks a typed value with queries.nav_filter_value
    first, to say why in the command line's words. A drawdown is a fall: 20 and -20 alike."""
    low, high = spec.bounds
    bounds = (-high, high) if spec.name == "max_drawdown" else (low, high)
    unit = f" ({spec.unit})" if spec.unit else ""
    return param.Number(default=None, allow_None=True, bounds=bounds,
                        doc=f"Only funds whose {spec.figure[4:] if spec.figure.startswith('the ') else spec.figure} is "
                            f"{'at least' if spec.op == '>=' else 'at most'} this{unit}; empty for any.")


for _spec in TAB_FILTERS:
    MarketScreen.param.add_parameter(_spec.name, _nav_filter_parameter(_spec))


def _nav_state(store: MarketStore) -> dict[str, Any]:
    """How many funds have figures from the snapshot's NAV history, and to which day."""
    row = store.query("SELECT count(*) AS n, max(last_nav_date) AS last FROM nav_figures WHERE fund_figure")[0]
    return {"nav_funds": int(row["n"] or 0), "nav_until": row["last"].isoformat() if row["last"] is not None else ""}


DATASET_WORDS = {"companies": "Companies", "funds": "Funds", "classes": "Unit classes", "fees": "Fees",
                 "risk": "Risk levels", "performance": "Performance", "allocation": "Asset allocation",
                 "minimums": "Investment minimums", "dealing": "Dealing periods", "links": "Report links",
                 "holdings": "Holdings", "nav": "Daily NAV"}


def _sync_words(dataset: str | None, rows: int, calls: int, done: bool = False, detail: str = "") -> str:
    """A running sync in words; a count only once a dataset is stored (the records `market status` counts,
    not the service's rows received so far); how far a long one is, when the sync says."""
    from dashboard.records.counts import count_text

    name = DATASET_WORDS.get(dataset or "", dataset or "Starting")
    if done:
        return f"{name}: {rows:,} stored, {count_text(calls, 'call')}"
    return f"{name}: fetching{f', {detail}' if detail else ''}, {count_text(calls, 'call')}"

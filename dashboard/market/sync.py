"""Filling and refreshing the market store from the service, resumably and incrementally.

On the successor layout every dataset is one whole-market call (no proj_id; `latest=true` on the
factsheet parts; holdings one quarter per call), paged by its cursor: each page is kept in the
store with the cursor of the next one before the next is asked, so an interrupted sync goes on from
the last page stored. On the legacy layout the companies are walked (E16 and E15 for the register's
companies, E2 for each one's funds), then each fund's endpoints; each fund's answer is kept as it
comes. A dataset is swapped in whole when it completes (`MarketStore.swap`).

A dataset fetched within its refresh interval is not asked again; a past quarter's holdings never
change, so once stored they are never asked again.

While it runs, a sync keeps a small progress file beside the published snapshot (replaced in one
rename, at most once a second), so a dashboard in another process can say "a sync is running:
N of M datasets" (`dashboard.market.status.snapshot_state`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import duckdb

from dashboard.api.client import AsyncSecClient
from dashboard.api.deadline import within_run
from dashboard.api.layouts import PAGE_SIZE
from dashboard.api.paging import PageWalk, dedupe
from dashboard.api.periods import valid_periods
from dashboard.api.wire import unwrap_envelope
from dashboard.config import LAYOUT_LEGACY, LAYOUT_SUCCESSOR
from dashboard.errors import BadInputError
from dashboard.market.datasets import DATASET_NAMES, DATASETS, DEFAULT_QUARTERS, NEVER, SYNC_NAMES, Dataset, parse_only
from dashboard.market.nav_sync import NAV_KEY, NavSync, check_nav_days
from dashboard.market.rows import keyed, successor_tables
from dashboard.market.store import MarketStore
from dashboard.market.storefile import store_full

log = logging.getLogger("dashboard.market")

# Words that find every fund management company in the licence register's company search (E15).
COMPANY_SEARCH_WORDS = ("จัดการกองทุน", "Asset Management")
# Funds asked at once on the legacy layout (the rate limiter paces them; a few hide the latency).
LEGACY_CONCURRENCY = 4
# Pages one dataset's call sequence may take: the whole market's 21 datasets took about 2,000 calls
# together (successor-api.md section 5), a quarter of holdings about 640 pages. Past it, the cursor
# is taken to never end.
MAX_PAGES = 2_000
PROGRESS_EVERY_S = 1.0  # how often the progress file is replaced at most (and on every dataset done)


@dataclass
class SyncProgress:
    """Where a sync stands: sent to the progress callback after every page or fund."""

    dataset: str
    rows: int  # while running: rows (or funds) received so far; when done: the records stored
    calls: int  # requests sent by this sync so far
    elapsed_s: float
    eta_s: float | None  # time left, when it can be told
    done: bool = False  # this dataset was swapped in
    pages: int = 0  # pages of this dataset's paged answer so far (0: not a paged answer)
    max_pages: int = 0  # where that answer would be stopped (0: not a paged answer)
    # The datasets as `market status` names them (each quarter of holdings part of "holdings"): how many of
    # this run's are stored or still fresh, of how many. The CLI's progress and the Market tab's read these.
    datasets_done: int = 0
    datasets_total: int = 0
    detail: str = ""  # how far a dataset of many calls is, in words ("12 of 58 days' NAVs stored")


# A quarter of holdings the rules make due that the service has no rows for yet: asked for again next run.
NOT_PUBLISHED_YET = "not published yet"
# Datasets the funds' calls fill: unit classes from the current service's profiles, companies on the older
# service's walk of the register.
FILLED_WITH_FUNDS = ("classes", "companies")


@dataclass
class SyncResult:
    calls: int = 0
    throttled: int = 0
    seconds: float = 0.0
    datasets: dict[str, str] = field(default_factory=dict)  # dataset key -> fetched | fresh | stopped | not published yet
    complete: bool = True  # False when --max-calls stopped it before the end
    duplicates: dict[str, int] = field(default_factory=dict)  # dataset key -> rows the service sent twice
    dropped: dict[str, int] = field(default_factory=dict)  # dataset key -> rows left out as unusable (NAV <= 0)

    plan: list[str] = field(default_factory=list)  # this run's datasets, as `market status` names them
    keys: list[str] = field(default_factory=list)  # the dataset keys the run goes through (a quarter of holdings each)

    def by_dataset(self) -> dict[str, str]:
        """Each dataset of the run, as `market status` names it, and where it stands: the quarters of holdings
        are one dataset (stopped if one is, else fetched if one was, else fresh); unit classes (current service)
        and companies (older service) come with the funds' calls and stand as they do."""
        states: dict[str, str] = {}
        for name in self.plan:
            parts = [state for key, state in self.datasets.items() if key.split(":")[0] == name]
            parts += ["stopped" for key in self.keys if key.split(":")[0] == name and key not in self.datasets]
            if not parts and name in FILLED_WITH_FUNDS:
                parts = [state for key, state in self.datasets.items() if key == "funds"]
            states[name] = next((s for s in ("stopped", "fetched", "fresh") if s in parts), parts[0] if parts else "")
        return states

    def datasets_stored(self) -> int:
        """How many of the run's datasets are stored (fetched, or still fresh)."""
        return sum(1 for state in self.by_dataset().values() if state in ("fetched", "fresh"))

    def as_dict(self) -> dict:
        return {"calls": self.calls, "throttled": self.throttled, "seconds": round(self.seconds, 3),
                "complete": self.complete, "datasets": dict(self.datasets), "duplicates": dict(self.duplicates),
                "dropped": dict(self.dropped)}


class _Budget(Exception):
    """The call budget (--max-calls) is spent: stop cleanly, everything stored so far stays."""


class MarketSync:
    """One sync run over an async client and a store."""

    def __init__(self, store: MarketStore, client: AsyncSecClient, *, max_calls: int | None = None,
                 progress: Callable[[SyncProgress], None] | None = None, clock: Callable[[], float] = time.time,
                 concurrency: int = LEGACY_CONCURRENCY, quarters: int | None = DEFAULT_QUARTERS,
                 max_pages: int = MAX_PAGES, nav_days: int | None = None):
        if max_calls is not None and max_calls < 0:
            raise BadInputError("--max-calls must be 0 or more")
        if quarters is not None and quarters < 1:
            raise BadInputError("--quarters must be 1 or more (the holdings of the newest N quarters)")
        self.store = store
        self.client = client
        self.max_calls = max_calls
        self.progress = progress
        self.clock = clock
        self.concurrency = max(1, int(concurrency))
        self.max_pages = max(1, int(max_pages))
        self.quarters = quarters  # holdings of the newest N quarters only (None: all that are published)
        self.nav_days = check_nav_days(nav_days)  # every class's NAVs of the last N days (None or 0: none)
        self._sent0 = client.stats.requests_sent
        self._retries0 = client.stats.retries
        self._started = time.monotonic()
        self._claimed = 0  # pages claimed from the budget (sent, or about to be)
        self.result = SyncResult()
        self._plan: list[str] = []  # the dataset keys this run goes through (holdings one per quarter)
        self._begun = time.time()
        self._progress_at = 0.0

    # ---- accounting ----------------------------------------------------------------------------

    @property
    def calls(self) -> int:
        return self.client.stats.requests_sent - self._sent0

    def _check_budget(self) -> None:
        if self.max_calls is not None and max(self.calls, self._claimed) >= self.max_calls:
            raise _Budget()

    def _reserve(self) -> None:
        """Claim one call of the budget before sending it (calls run side by side)."""
        self._check_budget()
        self._claimed += 1

    def _report(self, dataset: str, rows: int, *, done: bool = False, remaining: int | None = None,
                pages: int = 0, detail: str = "") -> None:
        elapsed = time.monotonic() - self._started
        eta = None
        if remaining is not None and self.calls:
            eta = max(0.0, remaining * elapsed / self.calls)
        self._write_progress(dataset, rows, eta, force=done)
        if self.progress is None:
            return
        self.progress(SyncProgress(dataset, rows, self.calls, elapsed, eta, done, pages, self.max_pages if pages else 0,
                                   self.result.datasets_stored(), len(self.result.plan), detail))

    def _write_progress(self, dataset: str | None = None, rows: int = 0, eta: float | None = None, *,
                        force: bool = False, running: bool = True) -> None:
        """The progress file for other processes: N of M dataset keys done, the one under way, calls."""
        now = time.monotonic()
        if not force and now - self._progress_at < PROGRESS_EVERY_S:
            return
        self._progress_at = now
        # N of M datasets as `market status` names them (SyncResult.by_dataset), as the CLI's progress says
        done = self.result.datasets_stored()
        under_way = [key for key in self._plan if self.result.datasets.get(key) == "stopped"]
        # the one under way, else the one just worked on (a dataset that finished between two writes)
        current = dataset if dataset in under_way else (under_way[0] if under_way else dataset)
        fields = {"running": running, "started_at": self._begun, "total": len(self.result.plan), "done": done,
                  "dataset": current if running else None, "under_way": under_way if running else [],
                  "calls": self.calls, "rows": rows, "eta_s": eta}
        if not running:
            fields.update(finished_at=time.time(), complete=self.result.complete)
        self.store.write_progress(**fields)

    def _plan_keys(self, layout: str, names: list[str]) -> list[str]:
        keys = []
        for name in DATASET_NAMES:
            if name not in names or name == ("classes" if layout == LAYOUT_SUCCESSOR else "companies"):
                continue  # filled by the same calls as funds
            if name == "holdings":
                keys.extend(f"holdings:{period}" for period in self._periods())
            else:
                keys.append(name)
        if NAV_KEY in names and self.nav_days and layout == LAYOUT_SUCCESSOR:
            keys.append(NAV_KEY)
        return keys

    # ---- the run -------------------------------------------------------------------------------

    async def run(self, only: tuple[str, ...] = SYNC_NAMES) -> SyncResult:
        layout = await self.client.layout()
        names = list(only)
        if layout == LAYOUT_SUCCESSOR and "classes" in names and "funds" not in names:
            names.insert(names.index("classes"), "funds")  # one call sequence fills both
        self._plan = self.result.keys = self._plan_keys(layout, names)  # one list: a late quarter's older one joins both
        self.result.plan = [n for n in DATASET_NAMES if n in names]
        if NAV_KEY in names and self.nav_days and layout == LAYOUT_SUCCESSOR:
            self.result.plan.append(NAV_KEY)
        self._write_progress(force=True)
        try:
            with self.store.kept_later():  # the answers kept per snapshot: once, when the datasets are in
                if layout == LAYOUT_SUCCESSOR:
                    await self._successor_all([DATASETS[n] for n in DATASET_NAMES if n in names])
                    if NAV_KEY in names and self.nav_days:
                        await NavSync(self, self.nav_days).run()
                else:
                    for name in DATASET_NAMES:
                        if name in names:
                            await self._legacy_dataset(DATASETS[name])
                    if NAV_KEY in names and self.nav_days:
                        self.result.datasets[NAV_KEY] = "not offered"
                        log.warning("the older service gives one fund's NAV one day per call, so the market's NAV "
                                    "history is not synced on it; the current service's whole-market NAV is")
        except _Budget:
            self.result.complete = False
            log.info("market sync stopped after %d calls (--max-calls); run it again to go on", self.calls)
        finally:
            self.result.calls = self.calls
            self.result.throttled = self.client.stats.retries - self._retries0
            self.result.seconds = time.monotonic() - self._started
            self.store.set_info("last_sync_calls", self.result.calls, publish=False)
            self.store.set_info("last_sync_at", self.clock(), publish=False)
            self.store.set_info("layout", layout)
            self._write_progress(force=True, running=False)
        return self.result

    def _fresh(self, key: str, refresh_s: float) -> bool:
        meta = self.store.meta(key).get(key)
        if meta is None or not meta["complete"] or meta["started_at"] is not None or meta["fetched_at"] is None:
            return False
        return self.clock() - meta["fetched_at"] < refresh_s

    def _periods(self) -> list[str]:
        periods = valid_periods(self.client.today, self.client.layout_name)  # the layout's own publication lag
        return periods[: self.quarters] if self.quarters is not None else periods

    # ---- successor: whole-market calls, paged and kept page by page ------------------------------

    async def _successor_all(self, datasets: list[Dataset]) -> None:
        """Every dataset's call sequence, a few at once: each is sequential (a cursor leads to the next
        page), so several side by side keep the rate limiter, not the latency, the bound."""
        units: list[tuple] = []
        for ds in datasets:
            if ds.name == "classes":
                continue  # filled with the funds, from the same profile rows
            if ds.name == "holdings":
                continue  # one chain of quarters, below
            else:
                units.append((ds, ds.name, {"latest": "true"} if ds.latest else {}, ds.refresh_s, None))
        gate = asyncio.Semaphore(self.concurrency)

        async def one(unit: tuple) -> int:
            async with gate:
                return await self._successor_unit(*unit)

        async def quarters(ds: Dataset) -> None:
            """The newest `quarters` quarters that have holdings: a quarter the rules make due but the service has
            nothing for yet (companies file late) is not kept as done, and the quarter before it is fetched in its
            place; the next run asks for the late one again."""
            periods = valid_periods(self.client.today, self.client.layout_name)
            wanted, have = self.quarters or len(periods), 0
            for i, period in enumerate(periods):
                if have >= wanted:
                    break
                key = f"holdings:{period}"
                if key not in self._plan:
                    self._plan.append(key)
                refresh = ds.refresh_s if i == 0 else NEVER
                if await one((ds, key, {"start_period": period, "end_period": period}, refresh, {"period": period})):
                    have += 1

        try:
            async with asyncio.TaskGroup() as group:
                for unit in units:
                    group.create_task(one(unit))
                if any(ds.name == "holdings" for ds in datasets):
                    group.create_task(quarters(DATASETS["holdings"]))
        except BaseExceptionGroup as failed:
            # The first failure that is not the call budget is the one to report.
            errors = _leaves(failed)
            raise next((e for e in errors if not isinstance(e, _Budget)), errors[0]) from None

    async def _successor_unit(self, ds: Dataset, key: str, query: dict[str, str], refresh_s: float,
                              where: dict | None = None) -> int:
        """Fetch one dataset key whole (or leave it, fresh); the records it holds."""
        if self._fresh(key, refresh_s):
            self.result.datasets[key] = "fresh"
            return int(self.store.meta(key)[key]["rows"] or 0)
        self.result.datasets[key] = "stopped"
        meta = self.store.begin(key, LAYOUT_SUCCESSOR)
        walk = PageWalk(key, self.max_pages, path=ds.path, cursor=meta["cursor"], pages=meta["pages"] or 0)
        if walk.pages:
            kept = [page for _u, page in self.store.staged(key)]
            walk.rows = sum(len(p) for p in kept)
            for page in kept:
                walk.seen_rows(page)
        restarted = False
        while not walk.done:
            self._reserve()
            page_query = {**query, "page_size": str(PAGE_SIZE)}
            if walk.cursor:
                page_query["next_cursor"] = walk.cursor
            try:
                payload = await self._page(ds.endpoint, ds.path, page_query)
            except BadInputError:
                if not walk.cursor or restarted:
                    raise
                # The kept cursor is no longer accepted (they expire): this dataset starts again, once.
                log.info("%s: the kept page cursor was refused; fetching this dataset again from its first page", key)
                self.store.restart(key)
                walk.restart()
                restarted = True
                continue
            items, cursor = unwrap_envelope(payload, f"{key} page {walk.pages + 1}")
            self.store.stage_page(key, str(walk.pages), items, cursor=cursor, calls=1)
            try:
                walk.page(items, cursor)
            finally:
                self._report(key, walk.rows, pages=walk.pages)
        staged, dropped = dedupe(ds.path, (item for _unit, page in self.store.staged(key) for item in page))
        if dropped:
            self.result.duplicates[key] = dropped
            log.warning("%s: the service sent %d rows twice (same key on more than one page); each was kept once",
                        key, dropped)
        if ds.name == "holdings" and not staged:
            # Nothing for this quarter yet: not a quarter with 0 holdings, a quarter not out yet. Never kept as done.
            self.store.forget(key)
            self.result.datasets[key] = NOT_PUBLISHED_YET
            self._report(key, 0, pages=walk.pages)
            log.info("%s: the service has no holdings for this quarter yet; it is asked for again on the next run", key)
            return 0
        tables = successor_tables(ds, staged, self.client.today)
        extra = ("classes",) if ds.name == "funds" else ()
        self.store.swap(key, tables, where=where, fetched_at=self.clock(), extra_meta=extra)
        self.result.datasets[key] = "fetched"
        for name in extra:  # counted on their own line below, as `market status` lists them
            self.result.datasets[name] = "stopped"
        # Done: the records stored, as `market status` counts them (the service's rows become one
        # record per fund for links and dealing, and profile rows one per fund and one per class).
        self._report(key, len(tables[ds.tables[0]]), done=True, pages=walk.pages)
        for name in extra:
            self.result.datasets[name] = "fetched"
            self._report(name, len(tables.get(name) or ()), done=True)
        return len(tables[ds.tables[0]])

    async def _page(self, endpoint_id: str, path: str, query: dict[str, str]) -> Any:
        return await self.client.send_page(endpoint_id, path, query)

    # ---- legacy: companies, then each fund -------------------------------------------------------

    async def _legacy_dataset(self, ds: Dataset) -> None:
        if ds.name == "companies":
            return  # walked with the funds (E16/E15, then E2 per company)
        if ds.name == "funds":
            await self._legacy_companies(ds)
            return
        if ds.name == "holdings":
            periods = self._periods()
            for period in periods:
                refresh = ds.refresh_s if period == periods[0] else NEVER
                await self._legacy_per_fund(ds, f"holdings:{period}", refresh, {"period": period})
            return
        await self._legacy_per_fund(ds, ds.name, ds.refresh_s, {})

    async def _legacy_companies(self, ds: Dataset) -> None:
        key = "funds"
        if self._fresh(key, ds.refresh_s) and self._fresh("companies", DATASETS["companies"].refresh_s):
            self.result.datasets[key] = self.result.datasets["companies"] = "fresh"
            return
        self.result.datasets[key] = "stopped"
        self.store.begin(key, LAYOUT_LEGACY)
        done = self.store.staged_units(key)
        if "register" not in done:
            self._check_budget()
            found: dict[str, dict] = {}
            for record in await self._fetch("E16") or []:
                found.setdefault(record.get("unique_id"), record)
            for word in COMPANY_SEARCH_WORDS:
                for record in await self._fetch("E15", name=word) or []:
                    found.setdefault(record.get("unique_id"), record)
            register = [r for uid, r in sorted(found.items()) if uid]
            self.store.stage_page(key, "register", register, cursor=None, calls=0)
        register = next(p for u, p in self.store.staged(key) if u == "register")
        todo = [r for r in register if f"company:{r['unique_id']}" not in done]
        await self._legacy_units(key, todo, lambda r: f"company:{r['unique_id']}",
                                 lambda r: self._fetch("E2", unique_id=r["unique_id"]), len(register))
        companies, funds = [], []
        for unit, payload in self.store.staged(key):
            if not unit.startswith("company:") or not payload:
                continue
            uid = unit.split(":", 1)[1]
            company = next((r for r in register if r.get("unique_id") == uid), {})
            companies.append({"unique_id": uid, "comp_name_en": company.get("name_en"),
                              "comp_name_th": company.get("name_th"), "last_upd_date": company.get("last_upd_date")})
            funds.extend(payload)
        funds.sort(key=lambda r: str(r.get("proj_id")))
        companies.sort(key=lambda r: r["unique_id"])
        self.store.swap(key, {"funds": funds, "companies": companies}, fetched_at=self.clock(), extra_meta=("companies",))
        self.result.datasets[key], self.result.datasets["companies"] = "fetched", "stopped"
        self._report(key, len(funds), done=True)
        self.result.datasets["companies"] = "fetched"  # its own line, as `market status` lists it
        self._report("companies", len(companies), done=True)

    async def _legacy_per_fund(self, ds: Dataset, key: str, refresh_s: float, params: dict) -> None:
        if self._fresh(key, refresh_s):
            self.result.datasets[key] = "fresh"
            return
        self.result.datasets[key] = "stopped"
        proj_ids = [r["proj_id"] for r in self.store.query("SELECT proj_id FROM funds ORDER BY proj_id")]
        self.store.begin(key, LAYOUT_LEGACY)
        done = self.store.staged_units(key)
        todo = [p for p in proj_ids if p not in done]
        await self._legacy_units(key, todo, lambda p: p, lambda p: self._fetch(ds.endpoint, proj_id=p, **params),
                                 len(proj_ids))
        period = params.get("period")
        records: list[dict] = []
        for proj_id, payload in self.store.staged(key):
            records.extend(keyed(payload, proj_id, period))
        self.store.swap(key, {ds.tables[0]: records}, where={"period": period} if period else None,
                        fetched_at=self.clock())
        self.result.datasets[key] = "fetched"
        self._report(key, len(records), done=True)

    async def _legacy_units(self, key: str, units: list, unit_key: Callable, call: Callable, total: int) -> None:
        """Ask each unit (a company, a fund), a few at a time, keeping each answer as it comes."""
        kept = total - len(units)
        start = 0
        while start < len(units):
            self._check_budget()
            room = self.concurrency if self.max_calls is None else max(1, min(self.concurrency, self.max_calls - self.calls))
            batch = units[start:start + room]
            start += len(batch)
            before = self.calls
            answers = await asyncio.gather(*(call(u) for u in batch), return_exceptions=True)
            spent = self.calls - before
            for unit, answer in zip(batch, answers):
                if isinstance(answer, BaseException):
                    raise answer
                self.store.stage_page(key, unit_key(unit), answer, cursor=None, calls=spent)
                spent = 0
            kept += len(batch)
            self._report(key, kept, remaining=total - kept)

    async def _fetch(self, endpoint_id: str, **params: str) -> Any:
        """One logical call's normalised records; "no data" is an empty answer, not a failure."""
        try:
            return await self.client.fetch(endpoint_id, **params)
        except BadInputError as exc:
            if endpoint_id == "E6":
                log.debug("%s %s: %s", endpoint_id, params, exc)
                return []
            raise


def _leaves(group: BaseException) -> list[BaseException]:
    if isinstance(group, BaseExceptionGroup):
        return [leaf for e in group.exceptions for leaf in _leaves(e)]
    return [group]


async def sync_market(store: MarketStore, client: AsyncSecClient, *, only: str | tuple[str, ...] | None = None,
                      max_calls: int | None = None, progress: Callable[[SyncProgress], None] | None = None,
                      clock: Callable[[], float] = time.time, **options: Any) -> SyncResult:
    """Fill or refresh the store; `only` names datasets (text "a,b" or a tuple); `options` go to MarketSync
    (`concurrency`, `quarters`, `nav_days`)."""
    names = parse_only(only) if not isinstance(only, tuple) else parse_only(",".join(only))
    sync = MarketSync(store, client, max_calls=max_calls, progress=progress, clock=clock, **options)
    with within_run(None):  # one run: a service found down stops every dataset's calls at once
        try:
            return await sync.run(names)
        except (duckdb.Error, OSError) as exc:
            full = store_full(exc, store.path.parent)
            if full is None:
                raise
            raise full from exc


def sync_blocking(store: MarketStore, client: Any, **options: Any) -> SyncResult:
    """`sync_market` from synchronous code, with a `SecClient` (the CLI, notebooks).

    Ctrl+C cancels the run on the client's loop: what was stored stays, the next run goes on from it.
    """
    future = client.submit(sync_market(store, client.async_client, **options))
    try:
        return future.result()
    except KeyboardInterrupt:
        future.cancel()
        try:
            future.result(timeout=5)
        except BaseException:  # noqa: BLE001 - cancelled, or failed while stopping: either way it stopped
            pass
        raise


__all__ = ["MarketSync", "SyncProgress", "SyncResult", "sync_blocking", "sync_market"]

"""The market sync's NAV part: every class's daily NAV (and distributions) by whole-market calls.

The current service's `/v2/fund/daily-info/nav` without proj_id answers every fund's NAVs of a date
window (a whole-market day is thousands of rows: about 47 pages of 100); each window is one unit of
work, paged through the client's paging routine (`send_page`), its pages kept in the
store with the cursor of the next as they come (as every dataset's are), so a killed or failed sync
goes on from the last page stored; a window's rows replace the stored rows of its days in one
transaction when it completes (`nav_store.store_window`). The distributions come from
`daily-info/dividend-history` once a run for the span of the days asked: its date filters are not in
the service's own documentation (successor-api.md 4.12), so an answer that ignores them costs one
whole-market history a run, never one per window; what lies outside the span is left out.

Which days are asked (`needed_days`): the days of the last `nav_days` days up to yesterday that were
never fetched, or were fetched less than `OVERLAP_DAYS` after the NAV date and not yet today (a late
publication or correction can still come). So a daily update asks the new day and the last few days
again, and a re-run the same day asks nothing.

Windows: a single day for the last `DAY_WINDOW_SPAN` days (a daily update's few days go out side by
side, so the rate limiter, not the latency, bounds it), calendar weeks before that (a first fill).
The older layout has no whole-market NAV (one fund and day per call): the NAV part is skipped there,
and says so.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import date, timedelta
from typing import TYPE_CHECKING

from dashboard.api.layouts import PAGE_SIZE, V2
from dashboard.api.paging import PageWalk
from dashboard.api.wire import unwrap_envelope
from dashboard.errors import BadInputError
from dashboard.market.nav_figures_table import refresh_nav_figures
from dashboard.market.nav_filters import ONE_YEAR_DAYS
from dashboard.market.nav_store import (WindowRows, days_between, fetched_days, store_distributions, store_window,
                                        window_rows)

if TYPE_CHECKING:
    from dashboard.market.sync import MarketSync

log = logging.getLogger("dashboard.market")

NAV_PATH = V2 + "/daily-info/nav"
DIVIDEND_PATH = V2 + "/daily-info/dividend-history"
# The default depth of `market sync --nav-days`: every 1-year figure of a daily, weekly or monthly fund
# (nav_filters.ONE_YEAR_DAYS: a year before the last NAV, the NAV on or before the day a year earlier, up to
# a month and a half back for a monthly NAV, and a monthly NAV published up to two months late). 400 days
# left a monthly fund whose last NAV lags without its 1-year return and volatility (issue 38).
DEFAULT_NAV_DAYS = ONE_YEAR_DAYS
MAX_NAV_DAYS = 20 * 366  # the service keeps NAVs from the 2000s; past that the window is a typing slip
OVERLAP_DAYS = 5  # a day is asked again until it has been fetched this many days after its NAV date
DAY_WINDOW_SPAN = 14  # the last 14 days go out one day per window; earlier days one calendar week per window
NAV_CONCURRENCY = 8  # windows asked side by side (each is a chain of pages, one after another)
NAV_KEY = "nav"  # the meta row of the NAV dataset as a whole; windows under way are "nav:<first day>"
DIVIDEND_KEY = "nav:distributions"  # the run's distribution call, under way


def check_nav_days(days: int | None) -> int | None:
    if days is None:
        return None
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_NAV_DAYS:
        raise BadInputError(f"--nav-days must be a whole number from 0 to {MAX_NAV_DAYS:,} (0: no NAV)")
    return days


def needed_days(today: date, nav_days: int, fetched: dict[date, date]) -> list[date]:
    """The days to ask: of the `nav_days` days up to yesterday, those never fetched, or fetched before
    they had settled (less than OVERLAP_DAYS after the NAV date) and not already today."""
    if nav_days <= 0:
        return []
    last = today - timedelta(days=1)
    out = []
    for day in days_between(today - timedelta(days=nav_days), last):
        on = fetched.get(day)
        if on is None or (on < day + timedelta(days=OVERLAP_DAYS) and on < today):
            out.append(day)
    return out


def windows(today: date, days: list[date]) -> list[tuple[str, date, date]]:
    """(key, first, last) of each window the needed days fall in: one day each for the last
    DAY_WINDOW_SPAN days, a calendar week (Monday to Sunday) each before; a window spans its needed days."""
    recent = today - timedelta(days=DAY_WINDOW_SPAN)
    slots: dict[date, list[date]] = {}
    for day in days:
        slot = day if day >= recent else day - timedelta(days=day.weekday())
        slots.setdefault(slot, []).append(day)
    return [(f"{NAV_KEY}:{slot.isoformat()}", min(group), max(group)) for slot, group in sorted(slots.items())]


class NavSync:
    """The NAV part of one MarketSync run (its client, store, call budget and progress)."""

    def __init__(self, sync: "MarketSync", nav_days: int, *, concurrency: int = NAV_CONCURRENCY):
        self.sync = sync
        self.store = sync.store
        self.nav_days = nav_days
        self.concurrency = max(1, int(concurrency))
        self.stored_windows = 0
        self.days_asked = self.days_stored = 0  # the days of NAV this run asks, and of them those stored

    async def run(self) -> None:
        result = self.sync.result
        today = self.sync.client.today
        plan = windows(today, needed_days(today, self.nav_days, fetched_days(self.store)))
        self.days_asked = sum((b - a).days + 1 for _k, a, b in plan)
        self.days_stored = 0
        dividends = self._dividend_span(plan)
        self._forget_other_windows({key for key, _a, _b in plan} | ({DIVIDEND_KEY} if dividends else set()))
        if not plan and dividends is None:
            result.datasets[NAV_KEY] = "fresh"
            return
        result.datasets[NAV_KEY] = "stopped"
        gate = asyncio.Semaphore(self.concurrency)

        async def one(unit, *args) -> None:
            async with gate:  # the coroutine is made only when its turn comes (a cancelled run leaves none unawaited)
                await unit(*args)

        try:
            async with asyncio.TaskGroup() as group:
                if dividends is not None:
                    group.create_task(one(self._dividends, *dividends))
                for window in plan:
                    group.create_task(one(self._window, *window))
            result.datasets[NAV_KEY] = "fetched"
        except BaseExceptionGroup as failed:
            from dashboard.market.sync import _Budget  # noqa: PLC0415 - sync imports this module

            # the first failure that is not the call budget is the one to report, as for every dataset
            errors = _leaves(failed)
            raise next((e for e in errors if not isinstance(e, _Budget)), errors[0]) from None
        finally:
            if self.stored_windows:
                self._finish()
        # Stored: its own line with its count, as every other dataset has (the progress stopped at "11 of 12").
        count = self.store.query("SELECT count(*) AS n FROM nav")[0]["n"]
        self.sync._report(NAV_KEY, int(count), done=True, detail=self._how_far())

    def _how_far(self) -> str:
        return f"{self.days_stored:,} of {self.days_asked:,} days' NAVs stored"

    def _dividend_span(self, plan: list[tuple[str, date, date]]) -> tuple[date, date] | None:
        """The days whose distributions this run asks: those of the NAV windows, else the span of a
        distribution call left under way by an earlier run (its NAVs all stored since)."""
        if plan:
            return min(a for _k, a, _b in plan), max(b for _k, _a, b in plan)
        kept = self.store.meta(DIVIDEND_KEY).get(DIVIDEND_KEY)
        if kept is None or kept["started_at"] is None or not str(kept["layout"] or "").startswith("successor "):
            return None
        first, _, last = str(kept["layout"]).split(" ", 1)[1].partition("..")
        return date.fromisoformat(first), date.fromisoformat(last)

    def _forget_other_windows(self, planned: set[str]) -> None:
        """Pages kept for windows this run does not ask (a run of another day or depth) are dropped."""
        stale = [k for k in self.store.meta() if k.startswith(f"{NAV_KEY}:") and k not in planned]
        if stale:
            with self.store.transaction() as con:
                for key in stale:
                    con.execute("DELETE FROM stage WHERE dataset = ?", [key])
                    con.execute("DELETE FROM meta WHERE dataset = ?", [key])

    async def _window(self, key: str, first: date, last: date) -> None:
        """One window's NAV pages, each kept as it comes; then its rows stored in place of its days'."""
        items = await self._pages(key, first, last, NAV_PATH, "S8", "nav_date")
        rows = await asyncio.to_thread(self._store_window, key, first, last, items)
        self._count(rows)
        if rows.outside:
            log.info("%s: %d rows dated outside %s..%s came back (the date filter was ignored) and were left out",
                     key, rows.outside, first, last)
        self.days_stored += (last - first).days + 1
        self.sync._report(NAV_KEY, len(rows.nav), pages=0, detail=self._how_far())

    async def _dividends(self, first: date, last: date) -> None:
        """The whole market's distributions with a book-close date in first..last: one paged answer a run
        (the service documents no date filter here: sent anyway, and what else comes is left out)."""
        items = await self._pages(DIVIDEND_KEY, first, last, DIVIDEND_PATH, "S9", "dividend_date")

        def keep() -> None:
            store_distributions(self.store, window_rows([], items, first, last).distributions, first, last,
                                key=DIVIDEND_KEY)

        await asyncio.to_thread(keep)
        self.stored_windows += 1

    def _count(self, rows: WindowRows) -> None:
        self.stored_windows += 1
        for name, count in (("duplicates", rows.duplicates), ("dropped", rows.dropped)):
            if count:
                tally = getattr(self.sync.result, name)
                tally[NAV_KEY] = tally.get(NAV_KEY, 0) + count

    def _store_window(self, key: str, first: date, last: date, items: list) -> WindowRows:
        """The window's items (its staged pages', in order) as rows, stored in place of its days' rows (in a
        worker thread)."""
        rows = window_rows(items, [], first, last)
        store_window(self.store, rows, first, last, fetched_on=self.sync.client.today, key=key)
        return rows

    async def _pages(self, key: str, first: date, last: date, path: str, endpoint_id: str, field: str) -> list:
        """One paged answer for first..last, from the page an earlier run stopped at, each page kept with
        the cursor of the next as it comes (none kept with pages stored: the answer is whole). Its items,
        the pages stored by an earlier run first: those of this run are the ones just parsed, never read
        back from the store (parsed once: reading a window's pages back cost a JSON parse of each)."""
        meta = self.store.begin(key, f"successor {first.isoformat()}..{last.isoformat()}")
        if meta["pages"]:
            kept = await asyncio.to_thread(self.store.staged, key)
            items = [i for _unit, page in kept for i in page]
            if not meta["cursor"]:
                return items
        else:
            kept, items = [], []
        query = {f"start_{field}": first.isoformat(), f"end_{field}": last.isoformat()}
        walk = PageWalk(key, self.sync.max_pages, path=path, cursor=meta["cursor"], pages=meta["pages"] or 0)
        for _unit, page in kept:
            walk.seen_rows(page)
        while not walk.done:
            self.sync._reserve()
            page_query = {**query, "page_size": str(PAGE_SIZE)}
            if walk.cursor:
                page_query["next_cursor"] = walk.cursor
            payload = await self.sync._page(endpoint_id, path, page_query)
            page_items, next_cursor = unwrap_envelope(payload, f"{key} page {walk.pages + 1}")
            walk.page(page_items, next_cursor)
            # in a worker thread: the store's write does not hold up the other windows' pages meanwhile
            await asyncio.to_thread(self.store.stage_page, key, str(walk.pages), page_items,
                                    cursor=next_cursor or None, calls=1)
            items.extend(page_items)
            # Windows go side by side: one window's page numbers would jump from window to window, so the
            # progress says how many of the days asked are stored.
            self.sync._report(NAV_KEY, walk.rows, pages=0, detail=self._how_far())
        return items

    def _finish(self) -> None:
        """The NAV dataset's meta row, the figures of every class, and a publish of the NAV tables."""
        rows = self.store.query("SELECT count(*) AS n FROM nav")[0]["n"]
        with self.store.transaction() as con:
            con.execute(
                "INSERT INTO meta (dataset, rows, fetched_at, complete, cursor, pages, calls, started_at, layout) "
                "VALUES (?, ?, ?, ?, NULL, 0, 0, NULL, NULL) ON CONFLICT (dataset) DO UPDATE SET "
                "rows = excluded.rows, fetched_at = excluded.fetched_at, complete = excluded.complete",
                [NAV_KEY, rows, self.sync.clock(), self.sync.result.datasets.get(NAV_KEY) == "fetched"])
        twice, bad = self.sync.result.duplicates.get(NAV_KEY, 0), self.sync.result.dropped.get(NAV_KEY, 0)
        if twice:
            log.warning("nav: the service sent %d rows twice (same class and NAV date); each was kept once, "
                        "the later update's", twice)
        if bad:
            log.warning("nav: %d rows with a NAV of 0, below 0 or none were left out", bad)
        classes = refresh_nav_figures(self.store)
        log.info("NAV: %d rows stored, figures of %d classes", rows, classes)
        self.store.publish(["nav", "distributions", "nav_figures", "meta", "info"])


def _leaves(group: BaseException) -> list[BaseException]:
    if isinstance(group, BaseExceptionGroup):
        return [leaf for e in group.exceptions for leaf in _leaves(e)]
    return [group]


__all__ = ["DEFAULT_NAV_DAYS", "NavSync", "OVERLAP_DAYS", "check_nav_days", "needed_days", "windows"]

"""Following the service's page cursors, the one way every caller that pages does it, and dropping the
rows a service sends twice (by each dataset's key, successor-api.md §2.1)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from dashboard.errors import MalformedResponseError

# What makes one row of each whole-market path (the reference's "one row per ..."); a factsheet's
# period is its validity (start_date, end_date) and kind (prospectus_type). Paths not named here
# (a portfolio's holding lines have no key of their own) count a row twice only when it is the same row.
_PERIOD = ("start_date", "end_date", "prospectus_type")
ROW_KEYS: dict[str, tuple[str, ...]] = {
    "/general-info/amcs": ("unique_id",),
    "/general-info/profiles": ("proj_id", "fund_class_name"),
    "/factsheet/urls": ("proj_id", "fund_class_name", "as_of_date"),
    "/factsheet/subscription-redemption-minimums": ("proj_id", "fund_class_name", *_PERIOD),
    "/factsheet/subscription-redemption-periods": ("proj_id", "fund_class_name", *_PERIOD, "type"),
    "/factsheet/risk-spectrum": ("proj_id", *_PERIOD),
    "/factsheet/fees": ("proj_id", "fund_class_name", *_PERIOD, "fee_type_desc"),
    "/factsheet/performance": ("proj_id", "fund_class_name", *_PERIOD, "performance_type_desc", "reference_period"),
    "/factsheet/asset-allocation": ("proj_id", *_PERIOD, "asset_seq", "asset_name"),
}


def row_key_fields(path: str) -> tuple[str, ...] | None:
    """The key fields of the rows a path answers with (None: the whole row is its key)."""
    return next((fields for suffix, fields in ROW_KEYS.items() if path.rstrip("/").endswith(suffix)), None)


def row_key(fields: tuple[str, ...] | None, item: dict) -> Any:
    """What makes `item` one row of its path: its key fields' values (None: the whole row)."""
    if fields is not None:
        return tuple(json.dumps(item.get(f), sort_keys=True, default=str) for f in fields)
    return json.dumps(item, sort_keys=True, default=str)


def dedupe(path: str, items: Iterable[Any]) -> tuple[list, int]:
    """The rows with every later row of the same key dropped (the first kept, in the order sent), and how
    many were dropped."""
    items = list(items)
    fields = row_key_fields(path)
    seen: set = set()
    kept: list = []
    for item in items:
        if not isinstance(item, dict):
            kept.append(item)  # not a row: the shape checks refuse it later, with their own message
            continue
        key = row_key(fields, item)
        if key in seen:
            continue
        seen.add(key)
        kept.append(item)
    return kept, len(items) - len(kept)


class PageWalk:
    """Where one paged answer stands: counts its pages, refuses a cursor sent twice and a page whose every
    row came before (either way the answer would never end), and stops past `max_pages` with a message
    that says so.

    `path` names the rows' key (ROW_KEYS); `cursor` and `pages` go on from a walk kept elsewhere (the
    market sync resumes from its store, and hands the rows of the pages it kept to `seen_rows`).
    """

    def __init__(self, what: str, max_pages: int, *, path: str = "", cursor: str | None = None, pages: int = 0):
        self.what = what
        self.max_pages = int(max_pages)
        self.cursor = cursor
        self.pages = int(pages)
        self.rows = 0
        self._seen: set[str] = {cursor} if cursor else set()
        self._fields = row_key_fields(path) if path else None
        # Hashes of the keys of the rows so far: a whole market's NAV rows are many, their keys long.
        self._row_keys: set[int] = set()

    def seen_rows(self, items: Iterable[Any]) -> None:
        """Rows that came on pages before this walk went on (kept by an earlier run)."""
        self._new_rows(items)

    def _new_rows(self, items: Iterable[Any]) -> int:
        """How many of `items` are rows not seen before (anything not a row counts as new: the shape
        checks refuse it with their own message)."""
        new = 0
        for item in items:
            if not isinstance(item, dict):
                new += 1
                continue
            key = hash(row_key(self._fields, item))
            if key not in self._row_keys:
                self._row_keys.add(key)
                new += 1
        return new

    @property
    def done(self) -> bool:
        """Whether the last page has come (a walk that has not started is not done)."""
        return self.pages > 0 and not self.cursor

    def restart(self) -> None:
        """From the first page again (a cursor the service no longer accepts)."""
        self.cursor, self.pages, self.rows = None, 0, 0
        self._seen.clear()
        self._row_keys.clear()

    def page(self, items: list, cursor: str | None) -> None:
        """One page came with these rows and this next cursor: go on from it, or refuse to."""
        self.pages += 1
        self.rows += len(items)
        new = self._new_rows(items)
        self.cursor = cursor or None
        if self.cursor is None:
            return
        if items and not new:
            # A new cursor with rows all sent before: a service that repeats itself sends the same page
            # under a fresh cursor for ever (2,000 pages per dataset before the cap stopped it).
            raise MalformedResponseError(
                f"{self.what}: the service repeated itself: page {self.pages} held only rows it had already sent "
                f"({len(items):,}), with a cursor to yet another page; its answer would never end, so it was "
                "stopped. Try again later; if it goes on, the service is at fault")
        if self.cursor in self._seen:
            raise MalformedResponseError(
                f"{self.what}: the service sent the same page cursor twice (after page {self.pages}); "
                "its answer would never end, so it was stopped")
        self._seen.add(self.cursor)
        if self.pages >= self.max_pages:
            raise MalformedResponseError(
                f"{self.what}: the answer ran past {self.max_pages:,} pages ({self.rows:,} rows) and was stopped; "
                "the service may be sending a cursor that never ends")


__all__ = ["PageWalk", "ROW_KEYS", "dedupe", "row_key_fields"]

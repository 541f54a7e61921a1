"""The funds seen before: every fund record of a fund search or company list (E1/E2), kept by proj_id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dashboard.api.cache import MemoryCache, ResponseCache
from dashboard.api.endpoints import Endpoint, validate_proj_id
from dashboard.errors import BadInputError

# Kept long, so a shared link to a fund finds its names and status again.
FUND_INDEX_TTL_S = 30 * 24 * 3600
FUND_INDEX_MAX = 50_000
FUND_INDEX_ENDPOINTS = ("E1", "E2")


class FundIndex:
    """Fund records by proj_id, in memory always and on disk with the response cache."""

    def __init__(self, base_url: str, cache: ResponseCache | None, clock: Callable[[], float]):
        self.base_url = base_url
        self.cache = cache
        self._clock = clock
        self._memory = MemoryCache(maxsize=FUND_INDEX_MAX, clock=clock)

    def _key(self, proj_id: str) -> str:
        return f"fund|{self.base_url}|{proj_id}"

    def remember(self, ep: Endpoint, records: Any, *, store: bool) -> None:
        """Remember every fund record of an E1/E2 answer by proj_id (on disk too when `store`)."""
        if ep.id not in FUND_INDEX_ENDPOINTS or not isinstance(records, list):
            return
        entries = [(self._key(r["proj_id"]), r) for r in records
                   if isinstance(r, dict) and isinstance(r.get("proj_id"), str) and r["proj_id"]]
        if not entries:
            return
        stored_at = self.cache.set_many(entries, FUND_INDEX_TTL_S) if store and self.cache is not None else None
        stored_at = self._clock() if stored_at is None else stored_at
        for index_key, record in entries:
            self._memory.put(index_key, record, stored_at, FUND_INDEX_TTL_S)

    def get(self, proj_id: str) -> dict | None:
        """The fund record (E1/E2 form) last seen for `proj_id` in any answer, or None."""
        try:
            proj_id = validate_proj_id(proj_id)
        except BadInputError:
            return None
        index_key = self._key(proj_id)
        hit = self._memory.get(index_key)
        if hit is not None:
            return dict(hit[0])
        stored = self.cache.get(index_key) if self.cache is not None else None
        if stored is None or not isinstance(stored.data, dict) or stored.data.get("proj_id") != proj_id:
            return None
        self._memory.put(index_key, stored.data, stored.stored_at, FUND_INDEX_TTL_S)
        return dict(stored.data)

"""On-disk response cache: JSON entries with a time-to-live, stale fallback and self-repair."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import diskcache

log = logging.getLogger("dashboard.cache")

# Expired entries stay this long so that they can be served, marked stale, when the service fails.
STALE_GRACE_S = 90 * 24 * 3600


@dataclass(frozen=True)
class CachedResponse:
    data: Any
    stored_at: float
    ttl: float
    fresh: bool


class ResponseCache:
    """Responses by request (endpoint, path, body, base URL) — never by or with the key.

    Values are stored with diskcache's JSONDisk, not pickles: pickle loading from a cache
    directory is a code-execution risk (diskcache's unfixed CVE-2025-69872).
    """

    def __init__(self, directory: str | Path, *, clock=time.time):
        self.directory = Path(directory).expanduser()
        self._clock = clock
        self._cache = self._open()

    def _open(self) -> diskcache.Cache:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.directory, 0o700)
        try:
            cache = diskcache.Cache(str(self.directory), disk=diskcache.JSONDisk, disk_compress_level=1)
            cache.get("__probe__")  # a cheap read that fails on a corrupted database
            return cache
        except (sqlite3.DatabaseError, OSError, json.JSONDecodeError, ValueError) as exc:
            return self._rebuild(exc)

    def _rebuild(self, exc: BaseException) -> diskcache.Cache:
        log.warning("cache at %s was unreadable (%s); rebuilding it empty", self.directory, type(exc).__name__)
        try:
            self._cache.close()  # type: ignore[has-type]
        except (AttributeError, sqlite3.Error, OSError) as close_exc:
            log.debug("closing the broken cache failed: %s", type(close_exc).__name__)
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.directory, 0o700)
        return diskcache.Cache(str(self.directory), disk=diskcache.JSONDisk, disk_compress_level=1)

    def get(self, key: str) -> CachedResponse | None:
        try:
            entry = self._cache.get(key)
        except (sqlite3.DatabaseError, OSError, json.JSONDecodeError, ValueError) as exc:
            self._cache = self._rebuild(exc)
            return None
        if not isinstance(entry, dict) or "stored_at" not in entry or "ttl" not in entry:
            return None
        age = self._clock() - float(entry["stored_at"])
        return CachedResponse(entry.get("data"), float(entry["stored_at"]), float(entry["ttl"]), age < float(entry["ttl"]))

    def now(self) -> float:
        return self._clock()

    def set(self, key: str, data: Any, ttl: float) -> float:
        """Store `data` for `ttl` seconds; returns when it was stored (the cache's clock)."""
        entry = {"data": data, "stored_at": self._clock(), "ttl": ttl}
        try:
            self._cache.set(key, entry, expire=ttl + STALE_GRACE_S)
        except (sqlite3.DatabaseError, OSError) as exc:
            self._cache = self._rebuild(exc)
            self._cache.set(key, entry, expire=ttl + STALE_GRACE_S)
        return entry["stored_at"]

    def info(self) -> dict:
        now = self._clock()
        entries = fresh = 0
        for key in self._cache.iterkeys():
            entry = self._cache.get(key)
            if isinstance(entry, dict) and "stored_at" in entry:
                entries += 1
                fresh += (now - float(entry["stored_at"])) < float(entry.get("ttl", 0))
        return {
            "directory": str(self.directory),
            "entries": entries,
            "fresh": fresh,
            "stale": entries - fresh,
            "size_bytes": int(self._cache.volume()),
        }

    def clear(self) -> int:
        return int(self._cache.clear())

    def close(self) -> None:
        self._cache.close()


class MemoryCache:
    """A small in-process layer in front of the disk cache (and the only one in demo mode).

    A warm fund switch then costs no SQLite read and no JSON decoding. Same TTLs and clock as
    the disk cache, so expiry behaves the same; nothing here outlives the process.
    """

    def __init__(self, maxsize: int = 4096, *, clock=time.time):
        self.maxsize = maxsize
        self._clock = clock
        self._entries: "OrderedDict[str, tuple[Any, float, float]]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[Any, float] | None:
        """(data, stored_at) while fresh, else None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            data, stored_at, ttl = entry
            if self._clock() - stored_at >= ttl:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return data, stored_at

    def put(self, key: str, data: Any, stored_at: float, ttl: float) -> None:
        with self._lock:
            self._entries[key] = (data, stored_at, ttl)
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

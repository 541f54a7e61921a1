"""On-disk response cache: JSON entries with a time-to-live, stale fallback and self-repair."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import time
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

    def set(self, key: str, data: Any, ttl: float) -> None:
        entry = {"data": data, "stored_at": self._clock(), "ttl": ttl}
        try:
            self._cache.set(key, entry, expire=ttl + STALE_GRACE_S)
        except (sqlite3.DatabaseError, OSError) as exc:
            self._cache = self._rebuild(exc)
            self._cache.set(key, entry, expire=ttl + STALE_GRACE_S)

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

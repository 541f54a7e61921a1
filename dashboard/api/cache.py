"""On-disk response cache: JSON entries with a time-to-live, stale fallback and self-repair."""

from __future__ import annotations

import logging
import math
import os
import re
import sqlite3
import stat
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import diskcache

from dashboard.errors import CacheUnavailableError

log = logging.getLogger("dashboard.cache")

# Expired entries stay this long so that they can be served, marked stale, when the service fails.
STALE_GRACE_S = 90 * 24 * 3600

# What diskcache writes into its directory, and so all that a repair may ever delete: the SQLite
# database with its journals, and large values as <2 hex>/<2 hex>/<28 hex>.val files. A cache
# directory may hold the user's own files too; those are never touched.
_DATABASE_FILES = ("cache.db", "cache.db-wal", "cache.db-shm", "cache.db-journal")
_HEX_DIR = re.compile(r"^[0-9a-f]{2}$")
_VALUE_FILE = re.compile(r"^[0-9a-f]{28}\.val$")
# A single entry that cannot be read: not zlib, not UTF-8, not JSON, or nested past recursion.
_ENTRY_ERRORS = (zlib.error, ValueError, TypeError, RecursionError)
_NO_FIX = "set SEC_DASHBOARD_CACHE_DIR (or --cache-dir) to a writable directory, or use --no-cache"


class DamageNotes:
    """Cached answers found damaged, per cache: the first in a process is one warning line, the rest are
    counted (a cache with a thousand damaged entries says so once, not a thousand times)."""

    def __init__(self):
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def note(self, where: object, why: str) -> None:
        place = str(where)
        with self._lock:
            seen = self._counts[place] = self._counts.get(place, 0) + 1
        if seen == 1:
            log.warning("a cached answer in %s could not be read (%s); it was dropped and will be fetched again, as "
                        "will any other found damaged (counted, not each shown)", place, why)
        else:
            log.debug("damaged cached answer %d in %s dropped (%s)", seen, place, why)

    def count(self, where: object) -> int:
        with self._lock:
            return self._counts.get(str(where), 0)


damaged = DamageNotes()  # for the whole process: every client of one cache shares its one line


@dataclass(frozen=True)
class CachedResponse:
    data: Any
    stored_at: float
    ttl: float
    fresh: bool


def _reason(exc: BaseException) -> str:
    """A short cause for a message: the OS's words without the path (already named), or the type."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    text = str(exc).strip()
    return text if isinstance(exc, sqlite3.Error) and text else type(exc).__name__


class ResponseCache:
    """Responses by request (endpoint, path, body, base URL) — never by or with the key.

    Values are stored with diskcache's JSONDisk, not pickles: pickle loading from a cache
    directory is a code-execution risk (diskcache's unfixed CVE-2025-69872).

    A directory that cannot be used raises `CacheUnavailableError` here; one that fails later
    (a full disk, a read-only remount) switches the cache off with one warning. A damaged
    database is rebuilt, deleting only the files the cache itself writes; a damaged entry is
    dropped with a warning and fetched again.
    """

    def __init__(self, directory: str | Path, *, clock=time.time):
        self.directory = Path(directory).expanduser()
        self._clock = clock
        self._lock = threading.Lock()
        self._prepare_directory()
        self._cache: diskcache.Cache | None = self._open()

    # ---- opening and repair --------------------------------------------------------------------

    def _unavailable(self, why: str) -> CacheUnavailableError:
        return CacheUnavailableError(f"the cache directory {self.directory} cannot be used ({why}); {_NO_FIX}")

    def _prepare_directory(self) -> None:
        """Create the directory (mode 0700) if missing; an existing one keeps its mode."""
        directory = self.directory
        try:
            if not os.path.lexists(directory):
                directory.parent.mkdir(parents=True, exist_ok=True)
                try:
                    directory.mkdir(mode=0o700)
                except FileExistsError:
                    pass  # another process (a server's second worker) made it just now: checked below as any
                else:
                    os.chmod(directory, 0o700)  # the umask may have taken bits away; this one is ours
                    return
            info = directory.stat()
        except NotADirectoryError:
            raise self._unavailable("a file stands where a directory is needed") from None
        except OSError as exc:
            raise self._unavailable(_reason(exc)) from None
        if not stat.S_ISDIR(info.st_mode):
            raise self._unavailable("it is a file, not a directory")
        if not os.access(directory, os.R_OK | os.W_OK | os.X_OK):
            raise self._unavailable("it is not readable and writable by this user")
        if info.st_mode & (stat.S_IRGRP | stat.S_IROTH):
            log.warning("the cache directory %s is readable by other users (mode %o); cached answers are kept "
                        "there, consider chmod 700", directory, stat.S_IMODE(info.st_mode))

    def _connect(self) -> diskcache.Cache:
        cache = diskcache.Cache(str(self.directory), disk=diskcache.JSONDisk, disk_compress_level=1)
        try:
            cache.get("__probe__")  # a cheap read that fails on a corrupted database
        except BaseException:
            cache.close()
            raise
        return cache

    def _open(self) -> diskcache.Cache:
        try:
            return self._connect()
        except (sqlite3.OperationalError, OSError) as exc:
            # Cannot open or write at all (read-only, pseudo file system, no space): not a repair case.
            raise self._unavailable(_reason(exc)) from None
        except (sqlite3.DatabaseError, *_ENTRY_ERRORS) as exc:
            return self._rebuild(exc)

    def _rebuild(self, exc: BaseException) -> diskcache.Cache:
        log.warning("the cache at %s was unreadable (%s); rebuilding it empty", self.directory, type(exc).__name__)
        old, self._cache = getattr(self, "_cache", None), None
        if old is not None:
            try:
                old.close()
            except (sqlite3.Error, OSError) as close_exc:
                log.debug("closing the broken cache failed: %s", type(close_exc).__name__)
        try:
            self._remove_own_files()
            return self._connect()
        except (sqlite3.Error, OSError) as again:
            raise self._unavailable(f"it could not be rebuilt: {_reason(again)}") from None

    def _remove_own_files(self) -> None:
        """Delete what diskcache writes here (database, journals, value files), nothing else."""
        for name in _DATABASE_FILES:
            path = self.directory / name
            if path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)
        for top in self.directory.iterdir():
            if not (_HEX_DIR.match(top.name) and top.is_dir() and not top.is_symlink()):
                continue
            for sub in top.iterdir():
                if not (_HEX_DIR.match(sub.name) and sub.is_dir() and not sub.is_symlink()):
                    continue
                for value_file in sub.iterdir():
                    if _VALUE_FILE.match(value_file.name) and value_file.is_file() and not value_file.is_symlink():
                        value_file.unlink()
                _remove_if_empty(sub)
            _remove_if_empty(top)

    def _switch_off(self, exc: BaseException) -> None:
        """The directory failed after opening: go on without it (one warning), never crash a call."""
        if self._cache is None:
            return
        log.warning("the cache at %s stopped working (%s); going on without the disk cache", self.directory,
                    _reason(exc))
        try:
            self._cache.close()
        except (sqlite3.Error, OSError):
            log.debug("closing the failed cache failed too")
        self._cache = None

    def _recover(self, exc: BaseException) -> None:
        """After a database error: rebuild a damaged database, switch off an unusable one."""
        if isinstance(exc, (sqlite3.OperationalError, OSError)):
            self._switch_off(exc)
            return
        try:
            self._cache = self._rebuild(exc)
        except CacheUnavailableError as unavailable:
            log.warning("%s; going on without the disk cache", unavailable)
            self._cache = None

    @property
    def available(self) -> bool:
        """False once the directory failed and the cache switched itself off."""
        return self._cache is not None

    # ---- entries -------------------------------------------------------------------------------

    def _drop(self, key: str, why: str) -> None:
        damaged.note(self.directory, why)
        try:
            if self._cache is not None:
                self._cache.delete(key)
        except (sqlite3.Error, OSError) as exc:
            self._recover(exc)

    def _entry(self, key: str) -> tuple[Any, float, float] | None:
        """(data, stored_at, ttl) of a well-formed entry; a damaged one is dropped."""
        if self._cache is None:
            return None
        try:
            entry = self._cache.get(key)
        except (sqlite3.Error, OSError) as exc:
            self._recover(exc)
            return None
        except _ENTRY_ERRORS as exc:
            self._drop(key, type(exc).__name__)
            return None
        if entry is None:
            return None
        try:
            if not isinstance(entry, dict):
                raise TypeError("not an entry")
            stored_at, ttl = float(entry["stored_at"]), float(entry["ttl"])
            if not (math.isfinite(stored_at) and math.isfinite(ttl)):
                raise ValueError("not a finite time")
        except (KeyError, TypeError, ValueError):
            self._drop(key, "its time stamp or lifetime is missing or not a number")
            return None
        return entry.get("data"), stored_at, ttl

    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            found = self._entry(key)
        if found is None:
            return None
        data, stored_at, ttl = found
        return CachedResponse(data, stored_at, ttl, self._clock() - stored_at < ttl)

    def now(self) -> float:
        return self._clock()

    def set(self, key: str, data: Any, ttl: float) -> float:
        """Store `data` for `ttl` seconds; returns when it was stored (the cache's clock)."""
        return self.set_many([(key, data)], ttl)

    def set_many(self, items: Iterable[tuple[str, Any]], ttl: float) -> float:
        """Store several entries in one transaction; returns when they were stored."""
        stored_at = self._clock()
        entries = [(key, {"data": data, "stored_at": stored_at, "ttl": ttl}) for key, data in items]
        with self._lock:
            for attempt in (1, 2):
                if self._cache is None or not entries:
                    break
                try:
                    with self._cache.transact():
                        for key, entry in entries:
                            self._cache.set(key, entry, expire=ttl + STALE_GRACE_S)
                    break
                except (sqlite3.Error, OSError) as exc:
                    self._recover(exc)  # a rebuilt database gets the second attempt
        return stored_at

    def delete(self, key: str) -> None:
        with self._lock:
            if self._cache is None:
                return
            try:
                self._cache.delete(key)
            except (sqlite3.Error, OSError) as exc:
                self._recover(exc)

    def _require(self) -> diskcache.Cache:
        if self._cache is None:
            raise self._unavailable("it stopped working earlier in this run")
        return self._cache

    def info(self) -> dict:
        now = self._clock()
        entries = fresh = 0
        with self._lock:
            try:
                keys = list(self._require().iterkeys())
                for key in keys:
                    found = self._entry(key)
                    if found is not None:
                        entries += 1
                        fresh += (now - found[1]) < found[2]
                size = int(self._require().volume())
            except (sqlite3.Error, OSError) as exc:
                raise self._unavailable(_reason(exc)) from None
        return {
            "directory": str(self.directory),
            "entries": entries,
            "fresh": fresh,
            "stale": entries - fresh,
            "size_bytes": size,
        }

    def clear(self) -> int:
        with self._lock:
            try:
                return int(self._require().clear())
            except (sqlite3.Error, OSError) as exc:
                raise self._unavailable(_reason(exc)) from None

    def close(self) -> None:
        with self._lock:
            if self._cache is not None:
                try:
                    self._cache.close()
                except (sqlite3.Error, OSError) as exc:
                    log.debug("closing the cache failed: %s", type(exc).__name__)


def _remove_if_empty(directory: Path) -> None:
    if not any(directory.iterdir()):  # anything else living there stays, and so does its folder
        directory.rmdir()


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

"""Client-side rate limiters per subscription key: in one process, across the processes of one host, or in Redis.

Every limiter has the same reserve-then-sleep semantics: a caller reserves the earliest start that
keeps at most `calls` starts in any window, then sleeps until it. The client counts from when it
sends and the service from when a call arrives, which may be later by any delay of the network or
of a busy event loop; so a call held through `hold()` has its reservation moved to the moment its
answer came back (the call surely arrived by then), and the window is the service's period plus a
small safety margin. Without that, calls sent a period apart could arrive a little less than a
period apart and be throttled at the window's edge.

Which limiter a client gets (`limiter_for`): the Redis one when a Redis URL is configured, else
the file-backed one in the cache directory (shared by every process using that directory: the
dashboard's processes, command-line runs, notebooks, a market sync), else the in-process one.
A shared limiter that fails falls back, with one warning, to an in-process limiter holding this
process's share of the limit (`dashboard.api.limit_shares`: `calls // num_procs`; with fewer calls
than processes, turns on the wall clock): never an unbounded rate, never more than the limit together.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import hashlib
import logging
import math
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger("dashboard.ratelimit")

DEFAULT_CALLS = 3000
DEFAULT_PERIOD_S = 300.0
# The safety margin: a share of the period, at least a quarter of a second (a first call opens its
# connection before it arrives) and at most a second (300 s -> 1 s, 2 s -> 0.25 s).
MARGIN_SHARE = 0.05
MIN_MARGIN_S = 0.25
MAX_MARGIN_S = 1.0
LIMITS_FILE = "ratelimit.sqlite3"
# Marks the limits file as this program's (SQLite's application id, "SECD"): a file without it that
# holds anything but this program's table is someone else's, and is never written.
APPLICATION_ID = 0x53454344
_OWN_TABLES = {"starts", "starts_by_key"}
_OWN_FILES = ("", "-wal", "-shm", "-journal")
# How long a process keeps retrying a file that another process holds locked. SQLite's busy timeout
# does not cover every case: switching a new file to WAL mode, or reading it while another process
# does so, answers "database is locked" at once. That is contention, not a failing file.
LOCKED_RETRY_S = 10.0


class NotOursError(Exception):
    """The limits file's place holds something this program did not make: it is left alone."""


def safety_margin(period: float) -> float:
    """How much longer than the service's period a limiter's window is."""
    return min(MAX_MARGIN_S, max(MIN_MARGIN_S, MARGIN_SHARE * float(period)))


def key_ident(key_material: str | None) -> str:
    """What identifies a key in a limiter's state: a hash, never the key itself."""
    return hashlib.sha256(key_material.encode()).hexdigest()[:16] if key_material else "no-key"


def local_share(calls: int, period: float, num_procs: int) -> tuple[int, float]:
    """One process's share of a limit that `num_procs` processes cannot share: at most calls/num_procs.

    With fewer calls than processes no share can hold when every process calls at the same moment
    (each may make one call): `share_limiter` gives such processes turns when each knows its place;
    without it, that is said once, and a shared store (the cache directory or Redis) is what keeps
    such a limit."""
    num_procs = max(1, int(num_procs))
    if num_procs == 1:
        return calls, period
    if calls >= num_procs:
        return calls // num_procs, period
    log.warning("a limit of %d calls per %g s cannot be split over %d processes without a shared store or each "
                "process's place (SEC_DASHBOARD_PROC_INDEX): give them a cache directory or SEC_DASHBOARD_REDIS_URL",
                calls, period, num_procs)
    return 1, period * math.ceil(num_procs / calls)


def check_limit(calls: int, period: float, min_interval: float) -> None:
    if calls < 1 or period <= 0:
        raise ValueError("a rate limit needs at least 1 call in a positive period")
    if min_interval < 0:
        raise ValueError("the minimum spacing between calls cannot be negative")


def next_start(now: float, window: float, calls: int, min_interval: float, starts_desc: list[float]) -> float:
    """The earliest start that keeps at most `calls` starts in any `window`.

    `starts_desc` holds the starts still inside the window (and any reserved ahead), latest first;
    only its first `calls` entries matter. The slot frees when the call `calls` places back leaves
    the window.
    """
    start = now if len(starts_desc) < calls else starts_desc[calls - 1] + window
    if min_interval and starts_desc:
        start = max(start, starts_desc[0] + min_interval)
    return start


class Limiter(Protocol):
    calls: int
    period: float
    waited_s: float

    async def acquire(self) -> float: ...

    def hold(self) -> contextlib.AbstractAsyncContextManager[float]: ...


class LimiterBase:
    """Reserve a start, then sleep until it: what every limiter shares."""

    waited_s: float = 0.0

    def _set_limit(self, calls: int, period: float, min_interval: float, margin: float) -> None:
        """Check and keep the limit: at most `calls` starts in any `period` + `margin` seconds."""
        check_limit(calls, period, min_interval)
        self.calls = int(calls)
        self.period = float(period)
        self.min_interval = float(min_interval)
        self.margin = float(margin)
        self.window = self.period + self.margin

    def _reserve_slot(self, ahead: bool = True) -> tuple[float, Any]:  # pragma: no cover - each limiter has its own
        """Reserve a start: how long to wait for it, and what names the reservation (for `_finish`).
        With `ahead` false only a start free now is taken: otherwise nothing is kept, and the answer is
        how long to wait before asking again (with None)."""
        raise NotImplementedError

    def _finish(self, slot: Any) -> None:  # pragma: no cover - each limiter has its own
        """Move a reservation to now (never earlier): its call has had its answer, so it arrived."""
        raise NotImplementedError

    def _reserve(self) -> float:
        """Reserve a start; return how long to wait before using it (0 when free now)."""
        return self._reserve_slot()[0]

    async def acquire(self) -> float:
        """Wait for a start (counted from it)."""
        wait, _slot = self._reserve_slot()
        await self._sleep(wait)
        return wait

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[float]:
        """Wait for a start, make the call inside, and count the call from when it ended.

        No start is reserved ahead: one is taken only when free at that moment, so that it is
        checked against the calls that ended meanwhile (a start reserved ahead was computed from
        calls still in flight, counted from when they were sent)."""
        waited = 0.0
        while True:
            wait, slot = self._reserve_slot(ahead=False)
            if slot is not None:
                break
            waited += wait
            await self._sleep(max(wait, 0.001))
        try:
            yield waited
        finally:
            self._finish(slot)

    async def _sleep(self, wait: float) -> None:
        if wait > 0:
            self.waited_s += wait
            await asyncio.sleep(wait)


class RateLimiter(LimiterBase):
    """Sliding-window limiter in this process: at most `calls` starts in any `period` + `margin` seconds.

    Thread-safe rather than loop-bound, because the synchronous facade, Panel sessions and
    notebooks may each drive their own event loop against the same key. (Async-only limiters
    such as aiolimiter bind to one loop, so a hand-written one is the simpler correct choice.)
    """

    def __init__(self, calls: int = DEFAULT_CALLS, period: float = DEFAULT_PERIOD_S, *, min_interval: float = 0.0,
                 margin: float = 0.0, clock=time.monotonic):
        self._set_limit(calls, period, min_interval, margin)
        self._clock = clock
        self._starts: list[float] = []  # in order, earliest first
        self._lock = threading.Lock()
        self.waited_s = 0.0

    def _forget_old(self, now: float) -> None:
        cut = bisect.bisect_right(self._starts, now - self.window)
        if len(self._starts) - cut > 2 * self.calls:
            cut = len(self._starts) - self.calls  # only the last `calls` starts matter
        if cut:
            del self._starts[:cut]

    def _reserve_slot(self, ahead: bool = True) -> tuple[float, float | None]:
        with self._lock:
            now = self._clock()
            self._forget_old(now)
            latest = self._starts[::-1][: self.calls]
            start = next_start(now, self.window, self.calls, self.min_interval, latest)
            if start > now and not ahead:
                return start - now, None
            bisect.insort(self._starts, start)
            return max(0.0, start - now), start

    def _finish(self, slot: float) -> None:
        with self._lock:
            now = self._clock()
            if now <= slot:
                return
            i = bisect.bisect_left(self._starts, slot)
            if i < len(self._starts) and self._starts[i] == slot:
                del self._starts[i]
                bisect.insort(self._starts, now)

    def note(self, offset: float) -> None:
        """Count a start made elsewhere (through a shared limiter), `offset` seconds from now."""
        with self._lock:
            now = self._clock()
            bisect.insort(self._starts, now + offset)
            self._forget_old(now)

    def assume_used(self) -> None:
        """Count the whole limit as used now (a shared store went away: what the other processes used in
        the current window is unknown); the next start is a window from now."""
        with self._lock:
            now = self._clock()
            self._starts = sorted(self._starts + [now] * self.calls)
            self._forget_old(now)

    def in_window(self) -> int:
        with self._lock:
            now = self._clock()
            return sum(1 for s in self._starts if now - self.period < s <= now)


class FileRateLimiter(LimiterBase):
    """The limit shared by every process using one cache directory: a small SQLite table of starts.

    Each reservation is one `BEGIN IMMEDIATE` transaction (the database's write lock serialises
    processes), in WAL mode so that it costs well under a millisecond. Starts are kept per key
    hash and window, on the wall clock that every process of the host shares. The connection is
    reopened in a forked child. When the file fails (a full disk, a read-only remount), this
    process goes on with its share of the limit in memory, after one warning.
    """

    def __init__(self, directory: str | Path, ident: str, calls: int = DEFAULT_CALLS, period: float = DEFAULT_PERIOD_S,
                 *, min_interval: float = 0.0, margin: float = 0.0, num_procs: int = 1, clock=time.time):
        self._set_limit(calls, period, min_interval, margin)
        self.path = Path(directory).expanduser() / LIMITS_FILE
        self.ident = ident
        self.num_procs = num_procs
        self._clock = clock
        self._lock = threading.Lock()
        self._con: sqlite3.Connection | None = None
        self._pid = -1
        self._file: tuple[int, int] | None = None  # (device, inode) of the file the connection has open
        self._used = False  # whether this process has kept a start in the file
        self.fallback: RateLimiter | None = None
        self.waited_s = 0.0

    def _on_disk(self) -> tuple[int, int] | None:
        """(device, inode) of the file now at the limits file's place; None when there is none."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return st.st_dev, st.st_ino

    def _replaced(self) -> bool:
        """Whether the file at the limits file's place is no longer the one this process has open: another
        process made it again (a damaged file). Its starts are in the new file, and this process's belong there."""
        return self._con is not None and self._pid == os.getpid() and self._on_disk() != self._file

    def _connection(self) -> sqlite3.Connection:
        if self._replaced():
            log.info("the shared rate limit file %s was made again by another process; going on with it", self.path)
            self._drop_connection()
        if self._con is None or self._pid != os.getpid():
            # After a fork the parent's connection is not ours to use (or close); open our own.
            self._con, self._pid = self._open_file(), os.getpid()
            self._file = self._on_disk()
        return self._con

    def _drop_connection(self) -> None:
        if self._con is not None and self._pid == os.getpid():
            with contextlib.suppress(sqlite3.Error):  # a connection to a damaged or removed file: let go of it
                self._con.close()
        self._con, self._file = None, None

    def _open_file(self) -> sqlite3.Connection:
        if os.path.islink(self.path) or (os.path.lexists(self.path) and not self.path.is_file()):
            raise NotOursError(f"{self.path} is not a file this program made")
        con = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                found = {row[0] for row in con.execute("SELECT name FROM sqlite_master")}
                if found - _OWN_TABLES:
                    raise NotOursError(f"{self.path} holds another program's tables")
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            con.execute("CREATE TABLE IF NOT EXISTS starts (ident TEXT NOT NULL, win REAL NOT NULL, "
                        "start REAL NOT NULL)")
            con.execute("CREATE INDEX IF NOT EXISTS starts_by_key ON starts (ident, win, start)")
        except BaseException:
            con.close()
            raise
        return con

    def _switch_to_memory(self, exc: BaseException) -> LimiterBase:
        from dashboard.api.limit_shares import describe_share, share_limiter

        self.fallback = share_limiter(self.calls, self.period, self.num_procs, min_interval=self.min_interval,
                                      margin=self.margin)
        if self._used:
            # Mid-run: the other processes' starts in the current window, kept in the file, are unknown now.
            # (A file unusable from the first call held none of this process's company: nothing to wait for.)
            self.fallback.assume_used()
        log.warning("the shared rate limit file %s cannot be used (%s: %s); this process goes on alone at %s",
                    self.path, type(exc).__name__, exc, describe_share(self.fallback))
        return self.fallback

    def _rebuild(self, exc: BaseException) -> None:
        """A damaged limits file is made again, as the cache rebuilds itself: only its own files are removed
        (never through a link). The starts it held are lost, so the new file starts with the window counted
        as used (every process then waits for it, as after Redis going away), never a fresh limit beside the
        calls just made. A file another process has made again already is used, not removed."""
        mine = self._file
        self._drop_connection()
        if mine is not None and self._on_disk() != mine:
            log.info("the shared rate limit file %s was made again by another process; going on with it", self.path)
            return
        own = [Path(f"{self.path}{suffix}") for suffix in _OWN_FILES]
        own = [f for f in own if f.is_file() and not f.is_symlink()]
        # Starts of the current window can be in it only if it was written within the window.
        recent = any(f.stat().st_mtime > self._clock() - self.window for f in own) or self._used
        log.warning("the shared rate limit file %s was damaged (%s); it was made again%s", self.path,
                    type(exc).__name__, ", its window counted as used" if recent else "")
        for f in own:
            f.unlink(missing_ok=True)
        con = self._connection()
        if recent:
            self._fill_window(con)

    def _fill_window(self, con) -> None:
        """Count the whole window as used now: `calls` starts, in one transaction."""
        con.execute("BEGIN IMMEDIATE")
        try:
            con.executemany("INSERT INTO starts (ident, win, start) VALUES (?, ?, ?)",
                            [(self.ident, self.window, self._clock())] * self.calls)
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise

    def _in_file(self, step):
        """`step` against the file; a damaged file is made again once; a file that cannot be used (or is
        not ours) leaves this process its share of the limit in memory."""
        for attempt in (1, 2):
            try:
                return self._while_locked(step)
            except NotOursError as exc:
                raise _UseMemory(exc) from None
            except sqlite3.DatabaseError as exc:
                if attempt == 1 and self._replaced():
                    # Another process made the file again under this connection ("disk I/O error",
                    # "readonly database" from the removed file): go on with the new one.
                    self._drop_connection()
                    continue
                # OperationalError: cannot be opened or written (read-only, full disk); the rest, and a file
                # shorter than it says (a log overwritten), damaged.
                if not _damaged(exc) or attempt == 2:
                    raise _UseMemory(exc) from None
                try:
                    self._rebuild(exc)
                except (OSError, sqlite3.Error) as gone:
                    raise _UseMemory(gone) from None
            except OSError as exc:
                raise _UseMemory(exc) from None
        raise AssertionError("unreachable")

    def _reserve_slot(self, ahead: bool = True) -> tuple[float, Any]:
        if self.fallback is not None:
            return self.fallback._reserve_slot(ahead)
        with self._lock:
            if self.fallback is not None:
                return self.fallback._reserve_slot(ahead)
            try:
                return self._in_file(lambda: self._reserve_in_file(ahead))
            except _UseMemory as failed:
                return self._switch_to_memory(failed.cause)._reserve_slot(ahead)

    def note(self, offset: float) -> None:
        """Count a start made elsewhere (through Redis), `offset` seconds from now, in the host's file."""
        with self._lock:
            if self.fallback is not None:
                self.fallback.note(offset)
                return
            try:
                self._in_file(lambda: self._connection().execute(
                    "INSERT INTO starts (ident, win, start) VALUES (?, ?, ?)",
                    (self.ident, self.window, self._clock() + offset)))
            except _UseMemory as failed:
                self._switch_to_memory(failed.cause).note(offset)

    def assume_used(self) -> None:
        """Count the whole limit as used now, in the host's file (see `RateLimiter.assume_used`)."""
        with self._lock:
            if self.fallback is not None:
                self.fallback.assume_used()
                return

            try:
                self._in_file(lambda: self._fill_window(self._connection()))
            except _UseMemory as failed:
                self._switch_to_memory(failed.cause).assume_used()

    def _finish(self, slot: Any) -> None:
        if not isinstance(slot, tuple):  # reserved in memory, after the file failed
            if self.fallback is not None:
                self.fallback._finish(slot)
            return
        with self._lock:
            if self.fallback is not None or self._pid != os.getpid():
                return
            try:
                self._in_file(lambda: self._connection().execute(
                    "UPDATE starts SET start = max(start, ?) WHERE rowid = ?", (self._clock(), slot[1])))
            except _UseMemory as failed:
                self._switch_to_memory(failed.cause)

    @staticmethod
    def _while_locked(step):
        """Run `step`, again while another process holds the file locked (for up to LOCKED_RETRY_S)."""
        deadline = time.monotonic() + LOCKED_RETRY_S
        pause = 0.002
        while True:
            try:
                return step()
            except sqlite3.OperationalError as exc:
                text = str(exc).lower()
                if not ("locked" in text or "busy" in text) or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def _reserve_in_file(self, ahead: bool) -> tuple[float, tuple[str, int] | None]:
        con = self._connection()
        key = (self.ident, self.window)
        con.execute("BEGIN IMMEDIATE")
        try:
            now = self._clock()
            con.execute("DELETE FROM starts WHERE ident = ? AND win = ? AND start <= ?", (*key, now - self.window))
            latest = [row[0] for row in con.execute(
                "SELECT start FROM starts WHERE ident = ? AND win = ? ORDER BY start DESC LIMIT ?", (*key, self.calls))]
            start = next_start(now, self.window, self.calls, self.min_interval, latest)
            if start > now and not ahead:
                con.execute("COMMIT")
                return start - now, None
            row = con.execute("INSERT INTO starts (ident, win, start) VALUES (?, ?, ?)", (*key, start)).lastrowid
            con.execute("COMMIT")
            self._used = True
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        return max(0.0, start - now), ("file", row)

    def close(self) -> None:
        with self._lock:
            if self._con is not None and self._pid == os.getpid():
                self._con.close()
            self._con = None


# SQLite's own name for a file shorter than its header says: a limits file (or its log) overwritten, read as
# "disk I/O error" but damage like any other, made again.
_SHORT_READ = "SQLITE_IOERR_SHORT_READ"


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite's error says the file is damaged (made again) rather than unusable (read-only, full)."""
    return not isinstance(exc, sqlite3.OperationalError) or getattr(exc, "sqlite_errorname", None) == _SHORT_READ


class _UseMemory(Exception):
    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


_registry: dict[tuple, Limiter] = {}
_registry_lock = threading.Lock()


def limiter_for(key_material: str | None, calls: int = DEFAULT_CALLS, period: float = DEFAULT_PERIOD_S,
                min_interval: float = 0.0, *, directory: str | Path | None = None, redis_url: str | None = None,
                num_procs: int = 1) -> Limiter:
    """The limiter for one key (identified by a hash, never the key itself), one per process and store,
    its window the period plus the safety margin.

    With `redis_url`, every process on every host shares it; with `directory` (the cache
    directory), every process on this host that uses the directory; with neither, this process
    alone holds `calls / num_procs` of it.
    """
    ident = key_ident(key_material)
    where = f"redis:{redis_url}" if redis_url else f"file:{Path(directory).expanduser()}" if directory else "memory"
    entry = (ident, calls, period, min_interval, where, num_procs)
    with _registry_lock:
        limiter = _registry.get(entry)
        if limiter is None:
            limiter = _registry[entry] = _make(ident, calls, period, min_interval, directory, redis_url, num_procs)
        return limiter


def own_limiter(calls: int = DEFAULT_CALLS, period: float = DEFAULT_PERIOD_S, min_interval: float = 0.0) -> Limiter:
    """A limiter nobody else shares (for a client without a key), its window the period plus the margin."""
    return RateLimiter(calls, period, min_interval=min_interval, margin=safety_margin(period))


def _make(ident: str, calls: int, period: float, min_interval: float, directory, redis_url: str | None,
          num_procs: int) -> Limiter:
    margin = safety_margin(period)
    if redis_url:
        from dashboard.api.redis_store import RedisRateLimiter

        return RedisRateLimiter(redis_url, ident, calls, period, min_interval=min_interval, margin=margin,
                                num_procs=num_procs, directory=directory)
    if directory is not None:
        return FileRateLimiter(directory, ident, calls, period, min_interval=min_interval, margin=margin,
                               num_procs=num_procs)
    from dashboard.api.limit_shares import share_limiter

    return share_limiter(calls, period, num_procs, min_interval=min_interval, margin=margin)


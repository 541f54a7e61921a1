"""How long a run may wait for the service, and what the client has learnt about the service being down.

A run (one command; the parts of one dashboard load) has one deadline: every attempt, every wait for
the rate limit and every pause between attempts ends by it. Once the service is known down within a
run (connections refused, no answer, 5xx after 5xx), the calls that follow in that run fail at once
instead of each waiting out its own timeouts; the next run asks the service again, so a served
dashboard recovers as soon as the service returns (and a long run lets one call through after a
cool-off).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from dashboard.config import DEFAULT_DEADLINE_S, parse_deadline

# Failed attempts in a row (no answer, a refused connection, a 5xx) after which the service is down.
DOWN_AFTER = 2
# Attempts of one call that may end without an answer (each waits the whole read timeout).
SILENT_ATTEMPTS = 2
# How long a service known down is not asked; then the next call tries it again.
COOL_OFF_S = 30.0


@dataclass(frozen=True)
class Run:
    """One run: when it must end (time.monotonic(), None: no deadline) and what its calls learnt of the service."""

    end: float | None
    health: "ServiceHealth"
    # Set when the run's own block has ended. A task it started, or a context copied from it (a served
    # page's later callbacks), may outlive it; what runs there later is a run of its own.
    over: threading.Event = field(default_factory=threading.Event, compare=False)


# The run this code belongs to. A context variable, so it follows the run into the tasks it starts and
# onto the client's loop (run_coroutine_threadsafe copies the caller's context).
_RUN: ContextVar[Run | None] = ContextVar("sec_api_run", default=None)


@contextmanager
def run_deadline(seconds: float | None) -> Iterator[Run]:
    """A run: the calls made inside (and in the tasks they start) share what they learn of the service, and
    end within `seconds` from now (None: each call keeps its own bound)."""
    run = Run(None if seconds is None else time.monotonic() + float(seconds), ServiceHealth())
    token = _RUN.set(run)
    try:
        yield run
    finally:
        run.over.set()
        _RUN.reset(token)


@contextmanager
def within_run(seconds: float | None) -> Iterator[Run]:
    """The current run, or (outside one) a new run of `seconds` for what is done inside."""
    run = _RUN.get()
    if run is not None and not run.over.is_set():
        yield run
        return
    with run_deadline(seconds) as started:
        yield started


def current_run() -> Run | None:
    """The run the current code belongs to, or None (a call on its own, or in a context a finished run left)."""
    run = _RUN.get()
    return run if run is not None and not run.over.is_set() else None


def run_end() -> float | None:
    """The monotonic time the current run must end by, or None."""
    run = current_run()
    return run.end if run is not None else None


class ServiceHealth:
    """Whether the service answers, as this client has seen it: down after `down_after` failed attempts
    in a row, for `cool_off_s` seconds; any answer (other than a 5xx) makes it up again.

    A call whose own attempts are the whole of the failures so far goes on with its retries (a blip that
    one call rides out is not an outage); every other call fails at once while the service is down.
    """

    def __init__(self, *, down_after: int = DOWN_AFTER, cool_off_s: float = COOL_OFF_S,
                 clock: Callable[[], float] = time.monotonic):
        self.down_after = max(1, int(down_after))
        self.cool_off_s = float(cool_off_s)
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._callers: set[int] = set()  # the calls whose attempts make up the failures in a row
        self._down_at: float | None = None
        self.reason = ""

    def down(self, caller: object = None) -> str | None:
        """Why the service counts as down for `caller` now (one line), or None when it may send."""
        with self._lock:
            if self._down_at is None:
                return None
            if self._clock() - self._down_at >= self.cool_off_s:
                # cooled off: let calls through; one more failure makes it down again at once
                self._down_at = None
                self._failures = self.down_after - 1
                self._callers.clear()
                return None
            if caller is not None and self._callers == {id(caller)}:
                return None
            return self.reason

    def failed(self, reason: str, caller: object = None) -> None:
        with self._lock:
            self._failures += 1
            self._callers.add(id(caller))
            if self._failures >= self.down_after and self._down_at is None:
                self._down_at = self._clock()
                self.reason = reason

    def answered(self) -> None:
        with self._lock:
            self._failures = 0
            self._callers.clear()
            self._down_at = None
            self.reason = ""


__all__ = ["COOL_OFF_S", "DEFAULT_DEADLINE_S", "DOWN_AFTER", "SILENT_ATTEMPTS", "Run", "ServiceHealth", "current_run",
           "parse_deadline", "run_deadline", "run_end", "within_run"]

"""A process's part of a limit that several processes keep with nothing shared (no cache directory, Redis
away): its share of the calls, or, with fewer calls than processes, its turns on the wall clock.

`num_procs` processes that each keep `calls // num_procs` per window never pass `calls` together.
With fewer calls than processes no share holds (each may make one call, all at the same moment),
so each process takes turns (`TurnLimiter`), which needs its place among them:
SEC_DASHBOARD_PROC_INDEX, which `serve` sets in each process it forks.
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Any

from dashboard.api.ratelimit import LimiterBase, RateLimiter, local_share, log

PROC_INDEX_ENV = "SEC_DASHBOARD_PROC_INDEX"
# Turns leave at least this much (or a tenth of the period) beyond the period between turns `calls` apart:
# the processes share nothing, so a call that reaches the service late (a busy host, a slow first
# connection) cannot move the turns of the others. Twelve processes on two cores arrived more than the
# safety margin's opening apart from their turns' starts, and a window of 10 saw 11 (issue 39).
TURN_SLACK_S = 1.0


def process_index(num_procs: int) -> int | None:
    """This process's place among the `num_procs` that keep one limit with nothing shared (0-based, from
    SEC_DASHBOARD_PROC_INDEX, which `serve` sets in each process it forks); None when not known."""
    text = os.environ.get(PROC_INDEX_ENV, "").strip()
    if not text:
        return None
    index = int(text) if text.isdigit() else -1
    if not 0 <= index < num_procs:
        log.warning("%s=%r is not a whole number from 0 to %d; ignored", PROC_INDEX_ENV, text[:20], num_procs - 1)
        return None
    return index


def share_limiter(calls: int, period: float, num_procs: int, *, min_interval: float = 0.0, margin: float = 0.0,
                  index: int | None = None, clock=None) -> LimiterBase:
    """This process's part of a limit that `num_procs` processes keep with nothing shared: its share
    (`calls // num_procs` per window); with fewer calls than processes, its turns (`TurnLimiter`) when it
    knows its place (`index`, else `process_index`). Together they never pass the limit."""
    num_procs = max(1, int(num_procs))
    if 1 < num_procs and calls < num_procs:
        index = process_index(num_procs) if index is None else index
        if index is not None:
            return TurnLimiter(calls, period, num_procs, index, min_interval=min_interval, margin=margin,
                               clock=clock or time.time)
    share_calls, share_period = local_share(calls, period, num_procs)
    return RateLimiter(share_calls, share_period, min_interval=min_interval, margin=margin,
                       clock=clock or time.monotonic)


class TurnLimiter(LimiterBase):
    """One of `num_procs` processes keeping a limit of fewer calls than processes, with nothing shared.

    The wall clock (which the host's processes share) is cut into `calls` turns per window; turn k
    belongs to process k mod `num_procs`, which may start one call in it, and only in its opening
    (half the safety margin). The window is the period, the opening and a slack (TURN_SLACK_S, at
    least) for calls that reach the service late: every start is in a turn of its own, and the starts
    of turns `calls` apart are the period and the slack apart, so together the processes never have
    more than `calls` arrivals in a period while no call arrives the slack later than another.
    A process makes one call per `num_procs` turns.
    """

    def __init__(self, calls: int, period: float, num_procs: int, index: int, *, min_interval: float = 0.0,
                 margin: float = 0.0, clock=time.time):
        self._set_limit(calls, period, min_interval, margin)
        if not 0 <= index < num_procs:
            raise ValueError(f"a process's place must be from 0 to {num_procs - 1}")
        self.num_procs, self.index = int(num_procs), int(index)
        self.opening = (min(self.window / self.calls, self.margin) if self.margin > 0 else self.window / self.calls) / 2
        # The turns' window: the period, the opening and the slack for a call that arrives late.
        self.window = self.period + self.opening + max(self.margin - self.opening, TURN_SLACK_S, self.period / 10)
        self.turn = self.window / self.calls
        self._clock = clock
        self._lock = threading.Lock()
        self._last_turn = -math.inf  # the last turn this process used
        self._last_start = -math.inf
        self._not_before = -math.inf
        self.waited_s = 0.0

    def _reserve_slot(self, ahead: bool = True) -> tuple[float, int | None]:
        with self._lock:
            now = self._clock()
            earliest = max(now, self._last_start + self.min_interval, self._not_before)
            k = math.floor(earliest / self.turn)
            k += (self.index - k) % self.num_procs  # this process's first turn from there
            if earliest >= k * self.turn + self.opening:
                k += self.num_procs  # that turn's opening has passed
            while k <= self._last_turn:
                k += self.num_procs
            start = max(k * self.turn, earliest)
            if start > now and not ahead:
                return start - now, None
            self._last_turn, self._last_start = k, start
            return start - now, k

    def _finish(self, slot: Any) -> None:
        """Nothing to move: a turn is counted from its opening."""

    def note(self, offset: float) -> None:
        """Starts made through a shared store do not change the turns."""

    def assume_used(self) -> None:
        """A shared store went away: no turn is taken in the window that follows (others may have filled it)."""
        with self._lock:
            self._not_before = max(self._not_before, self._clock() + self.window)


def describe_share(limiter: LimiterBase) -> str:
    """A share's limit, in words."""
    if isinstance(limiter, TurnLimiter):
        return f"1 call per {limiter.turn * limiter.num_procs:.3g} s (its turns: {limiter.num_procs} processes share " \
               f"{limiter.calls} calls per {limiter.period:g} s)"
    return f"{limiter.calls} calls per {limiter.period:g} s"

"""A client-side rate limiter per subscription key, shared by every client in the process."""

from __future__ import annotations

import asyncio
import collections
import hashlib
import threading
import time

DEFAULT_CALLS = 3000
DEFAULT_PERIOD_S = 300.0


class RateLimiter:
    """Sliding-window limiter: at most `calls` starts in any `period` seconds.

    Thread-safe rather than loop-bound, because the synchronous facade, Panel sessions and
    notebooks may each drive their own event loop against the same key. (Async-only limiters
    such as aiolimiter bind to one loop, so a hand-written one is the simpler correct choice.)
    """

    def __init__(self, calls: int = DEFAULT_CALLS, period: float = DEFAULT_PERIOD_S, *, min_interval: float = 0.0,
                 clock=time.monotonic):
        if calls < 1 or period <= 0:
            raise ValueError("a rate limit needs at least 1 call in a positive period")
        if min_interval < 0:
            raise ValueError("the minimum spacing between calls cannot be negative")
        self.calls = int(calls)
        self.period = float(period)
        self.min_interval = float(min_interval)
        self._clock = clock
        self._starts: collections.deque[float] = collections.deque()
        self._lock = threading.Lock()
        self.waited_s = 0.0

    def _reserve(self) -> float:
        """Reserve a slot; return how long to wait before using it (0 when free now)."""
        with self._lock:
            now = self._clock()
            while self._starts and self._starts[0] <= now - self.period:
                self._starts.popleft()
            if len(self._starts) < self.calls:
                start = now
            else:
                # The slot frees when the call `calls` places back leaves the window.
                start = self._starts[-self.calls] + self.period
            if self.min_interval and self._starts:
                start = max(start, self._starts[-1] + self.min_interval)
            self._starts.append(start)
            if len(self._starts) > 2 * self.calls:
                # Keep the deque bounded; only the last `calls` starts matter.
                for _ in range(len(self._starts) - self.calls):
                    self._starts.popleft()
            return max(0.0, start - now)

    async def acquire(self) -> float:
        wait = self._reserve()
        if wait > 0:
            self.waited_s += wait
            await asyncio.sleep(wait)
        return wait

    def in_window(self) -> int:
        with self._lock:
            now = self._clock()
            return sum(1 for s in self._starts if now - self.period < s <= now)


_registry: dict[tuple[str, int, float, float], RateLimiter] = {}
_registry_lock = threading.Lock()


def limiter_for(key_material: str | None, calls: int = DEFAULT_CALLS, period: float = DEFAULT_PERIOD_S,
                min_interval: float = 0.0) -> RateLimiter:
    """The process-wide limiter for one key (identified by a hash, never the key itself)."""
    ident = hashlib.sha256((key_material or "").encode()).hexdigest()[:16] if key_material else "no-key"
    with _registry_lock:
        limiter = _registry.get((ident, calls, period, min_interval))
        if limiter is None:
            limiter = _registry[(ident, calls, period, min_interval)] = RateLimiter(calls, period, min_interval=min_interval)
        return limiter

"""The rate limit and the response cache in Redis, shared by every process on every host (SEC_DASHBOARD_REDIS_URL).

Redis going away (at start or mid-run) costs one warning: the limiter goes on in this process
with its share of the limit (`share_limiter`: `calls // num_procs`, or turns with fewer calls than
processes), after counting the window it shared as used up when Redis went mid-run (the others'
starts in it are unknown); the cache goes on on the disk cache; Redis is tried
again every `RETRY_AFTER_S` seconds, and calls made meanwhile are counted in Redis once it is
back. Redis keys hold a hash of the subscription key (the limiter) or of the request (the
cache), never the key; cached values are the same answers the disk cache keeps, with the key
already removed from them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from dashboard.api.cache import STALE_GRACE_S, CachedResponse, ResponseCache, damaged
from dashboard.api.limit_shares import share_limiter
from dashboard.api.ratelimit import DEFAULT_CALLS, DEFAULT_PERIOD_S, FileRateLimiter, LimiterBase
from dashboard.config import redis_label

log = logging.getLogger("dashboard.redis")

T = TypeVar("T")
PREFIX = "sec-dashboard"
RETRY_AFTER_S = 30.0
SOCKET_TIMEOUT_S = 1.0

# One reservation, atomically, on the Redis server's clock (hosts' clocks may disagree): drop the
# starts that left the window, find the start `calls` places back and the latest, reserve the
# earliest start that keeps the window's count. ARGV[5] is 1 to reserve a start ahead, 0 to take
# one only when free now (else the negative wait, nothing kept). ARGV[6..] are starts made while
# Redis was away, as offsets from now, counted first.
RESERVE_SCRIPT = """
local key = KEYS[1]
local calls = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local spacing = tonumber(ARGV[3])
local member = ARGV[4]
local ahead = ARGV[5] == '1'
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
for i = 6, #ARGV do
  redis.call('ZADD', key, now + tonumber(ARGV[i]), member .. ':' .. i)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local start = now
local back = redis.call('ZREVRANGE', key, calls - 1, calls - 1, 'WITHSCORES')
if #back > 0 then
  start = tonumber(back[2]) + window
end
if spacing > 0 then
  local latest = redis.call('ZREVRANGE', key, 0, 0, 'WITHSCORES')
  if #latest > 0 then
    start = math.max(start, tonumber(latest[2]) + spacing)
  end
end
if start > now and not ahead then
  return tostring(now - start)
end
redis.call('ZADD', key, start, member)
redis.call('PEXPIRE', key, math.ceil((start - now + window) * 1000) + 1000)
return tostring(start - now)
"""


# A call has had its answer: its reservation moves to now on the server's clock (never earlier).
FINISH_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local start = redis.call('ZSCORE', KEYS[1], ARGV[1])
if start and tonumber(start) < now then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  local keep = math.ceil(tonumber(ARGV[2]) * 1000) + 1000
  if redis.call('PTTL', KEYS[1]) < keep then
    redis.call('PEXPIRE', KEYS[1], keep)
  end
end
return 1
"""


class RedisUnavailable(Exception):
    """Redis cannot be used now; the caller goes on with its local fallback."""


class RedisReplyError(Exception):
    """Redis (or whatever answers on its port) sent a reply the command never returns: a Redis fault."""


def wait_reply(reply: Any, *, ahead: bool, longest: float) -> float:
    """The wait the reservation script answered: text of a finite number, never more than `longest` seconds
    to wait again, 0 for a start taken now; anything else is a fault (`:0` once let every call through,
    `:-5` made a command wait for ever)."""
    if not isinstance(reply, (bytes, str)):
        raise RedisReplyError(f"the rate-limit script answered {_shown(reply)}, not its text reply")
    try:
        wait = float(reply)
    except ValueError:
        raise RedisReplyError(f"the rate-limit script answered {_shown(reply)}, not a number") from None
    fits = 0.0 <= wait <= longest * 10_000 if ahead else -longest <= wait <= 0.0
    if not (math.isfinite(wait) and fits):
        raise RedisReplyError(f"the rate-limit script answered {_shown(reply)}, outside what it can answer")
    return wait


def _shown(reply: Any) -> str:
    text = repr(reply)
    return text if len(text) <= 40 else text[:39] + "…"


def _raised_inside_redis(exc: BaseException) -> bool:
    """Whether an exception came from inside the redis package (a reply it could not read), by where it
    was raised: the deepest frame of its traceback."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    module = tb.tb_frame.f_globals.get("__name__", "") if tb is not None else ""
    return module == "redis" or module.startswith("redis.")


class RedisLink:
    """One connection pool to one Redis per process, and whether Redis is up.

    Short socket timeouts and no retries inside the library: a Redis that does not answer costs
    at most about a second, then this process works locally and asks again `RETRY_AFTER_S` later.
    redis-py reopens its pool in a forked child.
    """

    def __init__(self, url: str, *, retry_after_s: float = RETRY_AFTER_S, clock=time.monotonic):
        self.url = url
        self.label = redis_label(url)
        self.retry_after_s = retry_after_s
        self._clock = clock
        self._client = None
        self._lock = threading.Lock()
        self.down = False
        self._retry_at = 0.0
        self.warnings = 0

    def __repr__(self) -> str:
        return f"RedisLink({self.label}, {'down' if self.down else 'up'})"

    def _connect(self):
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        return redis.Redis.from_url(self.url, socket_timeout=SOCKET_TIMEOUT_S, socket_connect_timeout=SOCKET_TIMEOUT_S,
                                    retry=Retry(NoBackoff(), 0), health_check_interval=0)

    def client(self):
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._connect()
        return self._client

    def run(self, operation: Callable[[Any], T]) -> T:
        """`operation(redis_client)`, or RedisUnavailable (one warning when Redis goes away)."""
        if self.down and self._clock() < self._retry_at:
            raise RedisUnavailable
        try:
            result = operation(self.client())
        except ImportError:
            self._went_down("the redis package is not installed: pip install 'sec-dashboard[redis]'", forever=True)
            raise RedisUnavailable from None
        except Exception as exc:  # noqa: BLE001 - every failure of the link is told apart below
            if isinstance(exc, RedisReplyError):
                self._went_down(f"a wrong reply: {exc}")
            elif _is_redis_failure(exc):
                self._went_down(type(exc).__name__)
            elif _raised_inside_redis(exc):
                self._went_down(f"a reply the Redis client could not read: {type(exc).__name__}")
            else:
                raise
            raise RedisUnavailable from None
        if self.down:
            self.down = False
            log.warning("Redis at %s is reachable again; the rate limit and the response cache are shared again",
                        self.label)
        return result

    def _went_down(self, why: str, *, forever: bool = False) -> None:
        with self._lock:
            self._retry_at = math.inf if forever else self._clock() + self.retry_after_s
            if self.down:
                return
            self.down = True
            self.warnings += 1
        log.warning("Redis at %s cannot be used (%s); going on with this process's share of the rate limit and the "
                    "disk cache, trying Redis again every %g s", self.label, why, self.retry_after_s)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def _is_redis_failure(exc: BaseException) -> bool:
    try:
        import redis
    except ImportError:
        return isinstance(exc, OSError)
    return isinstance(exc, (redis.RedisError, OSError))


_links: dict[str, RedisLink] = {}
_links_lock = threading.Lock()


def redis_link(url: str) -> RedisLink:
    """The process's link to the Redis at `url` (shared by its limiters and caches: one warning, not one each)."""
    with _links_lock:
        link = _links.get(url)
        if link is None:
            link = _links[url] = RedisLink(url)
        return link


class RedisRateLimiter(LimiterBase):
    """The limit for one key shared through Redis: a sorted set of starts under the key's hash."""

    def __init__(self, url: str | RedisLink, ident: str, calls: int = DEFAULT_CALLS, period: float = DEFAULT_PERIOD_S, *,
                 min_interval: float = 0.0, margin: float = 0.0, num_procs: int = 1, directory=None):
        self._set_limit(calls, period, min_interval, margin)
        self.link = url if isinstance(url, RedisLink) else redis_link(url)
        self.ident = ident
        self.key = f"{PREFIX}:ratelimit:{ident}:{self.window:g}"
        # Used while Redis is away: the limit shared by this host's processes through the cache directory
        # (the whole limit, never passed however many processes fall back at once), else this process's
        # share. It also notes the starts reserved through Redis, so that a process (or host) that just
        # used its share does not start a fresh one when Redis fails.
        if directory is not None:
            self.fallback = FileRateLimiter(directory, ident, self.calls, self.period, min_interval=self.min_interval,
                                            margin=self.margin, num_procs=num_procs)
        else:
            self.fallback = share_limiter(self.calls, self.period, num_procs, min_interval=self.min_interval,
                                          margin=self.margin)
        self._unsent: list[float] = []  # starts reserved locally while Redis was away (monotonic clock)
        self._shared = False  # whether the last reservation went through Redis
        self._lock = threading.Lock()
        self._scripts: dict[str, Any] = {}
        self.waited_s = 0.0

    def __repr__(self) -> str:
        return f"RedisRateLimiter({self.link.label}, {self.calls}/{self.period:g}s)"

    def _reserve_slot(self, ahead: bool = True) -> tuple[float, Any]:
        with self._lock:
            now = time.monotonic()
            seeds = [f"{s - now:.6f}" for s in self._unsent if s > now - self.window]
            member = f"{os.getpid()}:{os.urandom(8).hex()}"
            try:
                wait = self.link.run(lambda r: wait_reply(self._script(r, "reserve", RESERVE_SCRIPT)(
                    keys=[self.key], args=[self.calls, self.window, self.min_interval, member, int(ahead), *seeds]),
                    ahead=ahead, longest=self.window + self.min_interval))
            except RedisUnavailable:
                if self._shared:
                    # Redis just went away: the other processes' starts in the current window are unknown,
                    # so the window counts as used up and the fallback's first window starts now.
                    self._shared = False
                    self.fallback.assume_used()
                wait, slot = self.fallback._reserve_slot(ahead)
                if slot is None:
                    return wait, None
                self._unsent.append(now + wait)
                del self._unsent[:-self.calls]  # at most `calls` of them can still matter
                return wait, slot
            self._unsent.clear()  # counted in Redis now
            self._shared = True
            if wait < 0:  # not free now (and not reserved ahead): ask again after -wait seconds
                return -wait, None
            self.fallback.note(wait)
            return wait, ("redis", member)

    def _finish(self, slot: Any) -> None:
        if not (isinstance(slot, tuple) and slot[0] == "redis"):  # reserved by the fallback while Redis was away
            self.fallback._finish(slot)
            return
        def finish(r) -> None:
            reply = self._script(r, "finish", FINISH_SCRIPT)(keys=[self.key], args=[slot[1], self.window])
            if reply != 1 or isinstance(reply, bool):
                raise RedisReplyError(f"the finishing script answered {_shown(reply)}, not 1")

        try:
            self.link.run(finish)
        except RedisUnavailable:
            pass  # counted from its start: this process's share of the limit holds meanwhile

    def _script(self, client, name: str, text: str):
        if name not in self._scripts:
            self._scripts[name] = client.register_script(text)
        return self._scripts[name]


class RedisResponseCache:
    """Responses by request in Redis, with the disk cache's interface, lifetimes and stale fallback.

    Entries live `ttl + STALE_GRACE_S` in Redis, as on disk, so that an expired answer can still
    be served, marked stale, when the service fails. While Redis is away the disk cache (when
    there is one) answers instead.
    """

    def __init__(self, url: str | RedisLink, fallback: ResponseCache | None = None, *, clock=time.time):
        self.link = url if isinstance(url, RedisLink) else redis_link(url)
        self.fallback = fallback
        self._clock = clock

    def __repr__(self) -> str:
        return f"RedisResponseCache({self.link.label})"

    @property
    def directory(self):
        return self.fallback.directory if self.fallback is not None else None

    @property
    def available(self) -> bool:
        return not self.link.down or (self.fallback is not None and self.fallback.available)

    def now(self) -> float:
        return self._clock()

    @staticmethod
    def redis_key(key: str) -> str:
        """Where an entry lives: a hash of the request (bounded length, nothing of the request readable)."""
        return f"{PREFIX}:cache:{hashlib.sha256(key.encode()).hexdigest()}"

    def get(self, key: str) -> CachedResponse | None:
        def read(r) -> bytes | None:
            raw = r.get(self.redis_key(key))
            if raw is not None and not isinstance(raw, bytes):
                raise RedisReplyError(f"GET answered {_shown(raw)}, not a value or nothing")
            return raw

        try:
            raw = self.link.run(read)
        except RedisUnavailable:
            return self.fallback.get(key) if self.fallback is not None else None
        if raw is None:
            return None
        try:
            entry = json.loads(zlib.decompress(raw).decode())
            if not isinstance(entry, dict) or entry.get("key") != key:
                raise ValueError("not this request's entry")
            stored_at, ttl = float(entry["stored_at"]), float(entry["ttl"])
            if not (math.isfinite(stored_at) and math.isfinite(ttl)):
                raise ValueError("not a finite time")
        except (zlib.error, ValueError, TypeError, KeyError, RecursionError) as exc:
            if not self._answers_truly():
                # Not a damaged entry: a Redis (or whatever is on its port) that answers wrongly, `+OK` to a GET.
                # Said once, by the link; the disk cache answers meanwhile.
                return self.fallback.get(key) if self.fallback is not None else None
            damaged.note(f"Redis at {self.link.label}", type(exc).__name__)
            self.delete(key)
            return None
        return CachedResponse(entry.get("data"), stored_at, ttl, self._clock() - stored_at < ttl)

    def _answers_truly(self) -> bool:
        """Whether Redis echoes what it is sent (an entry that cannot be read is damaged only if so)."""
        token = os.urandom(8).hex()

        def echo(r) -> None:
            reply = r.echo(token)
            if reply not in (token, token.encode()):
                raise RedisReplyError(f"ECHO answered {_shown(reply)}, not what it was sent")

        try:
            self.link.run(echo)
        except RedisUnavailable:
            return False
        return True

    def set(self, key: str, data: Any, ttl: float) -> float:
        return self.set_many([(key, data)], ttl)

    def set_many(self, items: Iterable[tuple[str, Any]], ttl: float) -> float:
        items = list(items)
        stored_at = self._clock()
        if not items:
            return stored_at
        expire_ms = int((ttl + STALE_GRACE_S) * 1000)

        def write(r) -> None:
            with r.pipeline(transaction=False) as pipe:
                for key, data in items:
                    entry = {"key": key, "data": data, "stored_at": stored_at, "ttl": ttl}
                    pipe.set(self.redis_key(key), zlib.compress(json.dumps(entry).encode(), 1), px=expire_ms)
                replies = pipe.execute()
            if len(replies) != len(items) or not all(reply is True for reply in replies):
                raise RedisReplyError(f"SET answered {_shown(replies)}, not OK")

        try:
            self.link.run(write)
        except RedisUnavailable:
            if self.fallback is not None:
                return self.fallback.set_many(items, ttl)
        return stored_at

    def delete(self, key: str) -> None:
        try:
            self.link.run(lambda r: r.delete(self.redis_key(key)))
        except RedisUnavailable:
            if self.fallback is not None:
                self.fallback.delete(key)

    def close(self) -> None:
        if self.fallback is not None:
            self.fallback.close()

"""Where the data comes from: base URL, subscription keys, demo mode and cache location."""

from __future__ import annotations

import functools
import os
import platform
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dashboard.errors import AuthenticationError

PRODUCTION_BASE_URL = "https://api.sec.or.th"
# Host name used for the in-process demo simulator; `.invalid` can never resolve, so a bug that
# let a demo request escape to the network would fail loudly instead of reaching someone.
DEMO_BASE_URL = "http://demo.sec-simulator.invalid"

FUND_GROUP = "fund"
LICENSE_GROUP = "license"

# Path layouts of the service: the legacy one of the specification (retired 30 June 2026) and the
# successor (/v2/fund, /v1/license-check) that the service answers on today. "auto" asks once.
LAYOUT_AUTO, LAYOUT_LEGACY, LAYOUT_SUCCESSOR = "auto", "legacy", "successor"
LAYOUTS = (LAYOUT_AUTO, LAYOUT_LEGACY, LAYOUT_SUCCESSOR)

# The conservative published figure (the legacy portal's); the successor's pages cost more.
DEFAULT_RATE_LIMIT = (3000, 300.0)
# How long one run (a command, a dashboard load) may wait for the service in all (SEC_API_DEADLINE_S).
DEFAULT_DEADLINE_S = 60.0
MAX_DEADLINE_S = 24 * 3600.0


class SubscriptionKey:
    """A subscription key that never shows itself in a repr, str, f-string or log line."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        if not isinstance(value, str) or not value.strip():
            raise ValueError("a subscription key must be a non-empty string")
        value = value.strip()
        if not all("!" <= c <= "~" for c in value):
            # Never echo the key, not even the offending character: the message names the fix.
            raise AuthenticationError("the subscription key holds a space, a non-ASCII or an invisible character, which no "
                             "HTTP header can carry; copy it again from your profile on the SEC developer portal")
        self._value = value

    def reveal(self) -> str:
        """The key itself, for the request header and nothing else."""
        return self._value

    def __repr__(self) -> str:
        return "SubscriptionKey('***')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SubscriptionKey) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("SubscriptionKey", self._value))

    def __reduce__(self):
        raise TypeError("a SubscriptionKey cannot be pickled")


def _key_from(value: str | SubscriptionKey | None) -> SubscriptionKey | None:
    if value is None or isinstance(value, SubscriptionKey):
        return value
    value = value.strip()
    return SubscriptionKey(value) if value else None


def check_base_url(url: str) -> str:
    """Refuse base URLs the client cannot use, or that would carry a secret into logs and footers."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the base URL must start with https:// (or http:// for a local simulator) and name a host, "
                         f"e.g. {PRODUCTION_BASE_URL}")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("the base URL may not hold a user name, password, query or fragment; "
                         "the key goes in SEC_API_KEY, never in the URL")
    try:
        port = parts.port  # urllib refuses a port that is not a number, or above 65535
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f"the base URL's port {parts.netloc.rpartition(':')[2][:20]!r} is not a number from 1 to 65535; "
                         f"give it as e.g. {PRODUCTION_BASE_URL} or http://127.0.0.1:8765 (SEC_API_BASE_URL / --base-url)")
    return url


def check_layout(value: object) -> str:
    text = str(value or "").strip().lower()
    if text not in LAYOUTS:
        raise ValueError(f"unknown path layout {value!r}; use one of {', '.join(LAYOUTS)} (SEC_API_LAYOUT / --layout)")
    return text


def parse_rate_limit(text: str) -> tuple[int, float]:
    """CALLS/SECONDS, e.g. 3000/300, as (calls, seconds); a clear error for anything else."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*s?\s*", text or "")
    if not match or int(match[1]) < 1 or float(match[2]) <= 0:
        raise ValueError(f"the rate limit {text!r} is not CALLS/SECONDS with both above zero, e.g. 3000/300 (SEC_API_RATE_LIMIT)")
    return int(match[1]), float(match[2])


def parse_min_interval_ms(text: str) -> float:
    """Milliseconds between the starts of two calls (SEC_API_MIN_INTERVAL_MS), as seconds."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = -1.0
    if not 0 <= value <= 60_000:
        raise ValueError(f"the minimum spacing {text!r} is not a number of milliseconds between 0 and 60000 (SEC_API_MIN_INTERVAL_MS)")
    return value / 1000.0


def parse_deadline(text: object) -> float:
    """Seconds a run may take (SEC_API_DEADLINE_S): a number from 1 to 86400; a clear error for anything else."""
    try:
        value = float(str(text).strip())
    except ValueError:
        value = float("nan")
    if not 1.0 <= value <= MAX_DEADLINE_S:  # NaN fails this too
        raise ValueError(f"the deadline {str(text)[:20]!r} is not a number of seconds from 1 to 86400 (SEC_API_DEADLINE_S)")
    return value


# The risk-free rate the Sharpe ratios of NAV histories use, percent a year (issue 27): `--risk-free PCT`
# on the command line, else this variable, else 0.
RISK_FREE_ENV = "SEC_DASHBOARD_RISK_FREE_PCT"
RISK_FREE_BOUNDS = (-10.0, 50.0)


def parse_risk_free_pct(text: object, source: str = RISK_FREE_ENV) -> float:
    """A risk-free rate in percent a year (2.5 = 2.5 %), from -10 to 50; a clear error naming `source` otherwise."""
    raw = str(text).strip().removesuffix("%").strip()
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    low, high = RISK_FREE_BOUNDS
    if not low <= value <= high:  # NaN and infinities fail this too
        raise ValueError(f"the risk-free rate {str(text)[:20]!r} is not a percent a year from {low:g} to {high:g}, "
                         f"e.g. 2.5 ({source})")
    return value


def risk_free_pct_from_env(environ: Mapping[str, str] | None = None) -> float:
    """The risk-free rate of SEC_DASHBOARD_RISK_FREE_PCT (percent a year), 0 when unset; ValueError when unreadable."""
    text = (os.environ if environ is None else environ).get(RISK_FREE_ENV, "").strip()
    return parse_risk_free_pct(text) if text else 0.0


def check_redis_url(url: str) -> str:
    """A Redis URL the client library can open (redis://, rediss:// or unix://); a clear error for anything else."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix") or not (parts.hostname or parts.path):
        raise ValueError("SEC_DASHBOARD_REDIS_URL must look like redis://HOST:6379/0 (or rediss:// or unix:///path)")
    try:
        parts.port  # noqa: B018 - read for its check: a port that is not a number raises here
    except ValueError:
        raise ValueError("SEC_DASHBOARD_REDIS_URL has a port that is not a number from 1 to 65535; it must look like "
                         "redis://HOST:6379/0") from None
    # The database: the path of a redis:// URL, or ?db=. The client library quietly takes database 0 for a
    # path it cannot read, so the processes meant to share database 2 would each keep their limit elsewhere.
    databases = urllib.parse.parse_qs(parts.query).get("db", [])
    if parts.scheme != "unix":
        databases.append(urllib.parse.unquote(parts.path).strip("/"))
    for db in databases:
        if db and not (db.isascii() and db.isdigit()):
            raise ValueError(f"SEC_DASHBOARD_REDIS_URL names the database {db[:20]!r}, which is not a number: a Redis "
                             "database is a whole number, as the 0 in redis://HOST:6379/0")
    return url


def redis_label(url: str | None) -> str:
    """Where a Redis URL points, for messages: scheme, host, port and database, never a user name or password."""
    if not url:
        return "none"
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


def parse_num_procs(text: str) -> int:
    """How many processes serve the dashboard on this host (SEC_DASHBOARD_NUM_PROCS, --num-procs)."""
    try:
        value = int(str(text).strip())
    except ValueError:
        value = 0
    if not 1 <= value <= 1024:
        raise ValueError(f"the number of processes {str(text)[:20]!r} is not a whole number from 1 to 1024 "
                         "(SEC_DASHBOARD_NUM_PROCS / --num-procs)")
    return value


def default_cache_dir() -> Path:
    """Per-user cache directory (`SEC_DASHBOARD_CACHE_DIR` overrides)."""
    override = os.environ.get("SEC_DASHBOARD_CACHE_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "sec-dashboard"


def _cache_dir(cache_dir: str | Path | None, env: Mapping[str, str]) -> Path:
    """The cache directory: the one given, else SEC_DASHBOARD_CACHE_DIR, else the user's cache folder."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    override = env.get("SEC_DASHBOARD_CACHE_DIR", "").strip()
    return Path(override).expanduser() if override else default_cache_dir()


def _limits(env: Mapping[str, str], *, rate_limit: str | tuple[int, float] | None, min_interval_ms: float | str | None,
            redis_url: str | None, num_procs: int | str | None, deadline_s: float | str | None) -> dict:
    """How calls are paced and shared (ApiSettings' rate_limit, min_interval_s, redis_url, num_procs and
    deadline_s): each the value given, else its environment variable's, else the default; checked in that order."""
    if rate_limit is None:
        rate_limit = env.get("SEC_API_RATE_LIMIT", "").strip() or None
    limit = parse_rate_limit(rate_limit) if isinstance(rate_limit, str) else (rate_limit or DEFAULT_RATE_LIMIT)
    if min_interval_ms is None:
        min_interval_ms = env.get("SEC_API_MIN_INTERVAL_MS", "").strip() or "0"
    spacing = parse_min_interval_ms(str(min_interval_ms))
    redis = (redis_url if redis_url is not None else env.get("SEC_DASHBOARD_REDIS_URL", "")).strip() or None
    if redis:
        check_redis_url(redis)
    procs = parse_num_procs(num_procs if num_procs is not None else env.get("SEC_DASHBOARD_NUM_PROCS", "").strip() or "1")
    if deadline_s is None:
        deadline_s = env.get("SEC_API_DEADLINE_S", "").strip() or DEFAULT_DEADLINE_S
    return {"rate_limit": (int(limit[0]), float(limit[1])), "min_interval_s": spacing, "redis_url": redis,
            "num_procs": procs, "deadline_s": parse_deadline(deadline_s)}


@dataclass(frozen=True, repr=False)
class ApiSettings:
    """Connection settings, from parameters or the environment.

    Demo mode is on when asked for, or when neither a key nor a base URL is configured: a new
    user sees the embedded demo data and nothing touches the network.
    """

    base_url: str = PRODUCTION_BASE_URL
    api_key: SubscriptionKey | None = None
    fund_api_key: SubscriptionKey | None = None
    license_api_key: SubscriptionKey | None = None
    demo: bool = False
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    use_cache: bool = True
    layout: str = LAYOUT_AUTO
    secondary_key: SubscriptionKey | None = None
    rate_limit: tuple[int, float] = DEFAULT_RATE_LIMIT
    min_interval_s: float = 0.0
    # Shared by every process on every host when set: the rate limit and the response cache live there.
    redis_url: str | None = None
    # Processes serving on this host; a limiter that cannot be shared takes this share of the limit.
    num_procs: int = 1
    # How long one run may wait for the service in all (every attempt, retry and rate-limit wait).
    deadline_s: float = DEFAULT_DEADLINE_S

    @classmethod
    def from_env(
        cls,
        *,
        base_url: str | None = None,
        api_key: str | SubscriptionKey | None = None,
        fund_api_key: str | SubscriptionKey | None = None,
        license_api_key: str | SubscriptionKey | None = None,
        demo: bool | None = None,
        cache_dir: str | Path | None = None,
        use_cache: bool = True,
        layout: str | None = None,
        secondary_key: str | SubscriptionKey | None = None,
        rate_limit: str | tuple[int, float] | None = None,
        min_interval_ms: float | str | None = None,
        redis_url: str | None = None,
        num_procs: int | str | None = None,
        deadline_s: float | str | None = None,
        environ: dict[str, str] | None = None,
    ) -> "ApiSettings":
        env = os.environ if environ is None else environ
        base = (base_url or env.get("SEC_API_BASE_URL", "")).strip()
        key = _key_from(api_key) or _key_from(env.get("SEC_API_KEY"))
        fund_key = _key_from(fund_api_key) or _key_from(env.get("SEC_FUND_API_KEY"))
        lic_key = _key_from(license_api_key) or _key_from(env.get("SEC_LICENSE_API_KEY"))
        second_key = _key_from(secondary_key) or _key_from(env.get("SEC_API_KEY_SECONDARY"))
        chosen_layout = check_layout(layout or env.get("SEC_API_LAYOUT", "").strip() or LAYOUT_AUTO)
        limits = _limits(env, rate_limit=rate_limit, min_interval_ms=min_interval_ms, redis_url=redis_url,
                         num_procs=num_procs, deadline_s=deadline_s)
        if demo is None:
            demo = env.get("SEC_DASHBOARD_DEMO", "").strip().lower() in {"1", "true", "yes", "on"}
            if not demo and not base and not (key or fund_key or lic_key or second_key):
                demo = True
        if base:
            check_base_url(base)
        return cls(
            base_url=(DEMO_BASE_URL if demo else (base or PRODUCTION_BASE_URL)).rstrip("/"),
            api_key=key,
            fund_api_key=fund_key,
            license_api_key=lic_key,
            demo=bool(demo),
            cache_dir=_cache_dir(cache_dir, env),
            use_cache=use_cache,
            layout=chosen_layout,
            secondary_key=second_key,
            **limits,
        )

    def key_for(self, group: str) -> SubscriptionKey | None:
        """The key for an endpoint group: its own key if set, else the shared one."""
        own = self.fund_api_key if group == FUND_GROUP else self.license_api_key
        return own or self.api_key

    @property
    def source_label(self) -> str:
        """Where the data comes from, for footers and report headers (never the key)."""
        return "demo data (embedded simulator)" if self.demo else self.base_url

    def __repr__(self) -> str:
        keys = ", ".join(
            f"{name}={'set' if getattr(self, name) else 'unset'}"
            for name in ("api_key", "fund_api_key", "license_api_key", "secondary_key")
        )
        return (
            f"ApiSettings(base_url={self.base_url!r}, demo={self.demo}, layout={self.layout!r}, {keys}, "
            f"cache_dir={str(self.cache_dir)!r}, use_cache={self.use_cache}, "
            f"rate_limit={self.rate_limit[0]}/{self.rate_limit[1]:g}s, min_interval_s={self.min_interval_s:g}, "
            f"redis={redis_label(self.redis_url)}, num_procs={self.num_procs}, deadline_s={self.deadline_s:g})"
        )

    def all_keys(self) -> tuple[SubscriptionKey, ...]:
        """Every key configured, for redaction."""
        return tuple(k for k in (self.api_key, self.fund_api_key, self.license_api_key, self.secondary_key) if k is not None)

    __str__ = __repr__


@functools.cache
def on_glibc() -> bool:
    """Whether this process runs on Linux with glibc, whose malloc a served process uses and trims
    (`sec-dashboard serve`'s allocator, `dashboard.heap.trim_heap`). Asked once: it reads the binary."""
    return platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

"""Where the data comes from: base URL, subscription keys, demo mode and cache location."""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from dashboard.api.errors import AuthenticationError

PRODUCTION_BASE_URL = "https://api.sec.or.th"
# Host name used for the in-process demo simulator; `.invalid` can never resolve, so a bug that
# let a demo request escape to the network would fail loudly instead of reaching someone.
DEMO_BASE_URL = "http://demo.sec-simulator.invalid"

FUND_GROUP = "fund"
LICENSE_GROUP = "license"


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
    return url


def default_cache_dir() -> Path:
    """Per-user cache directory (`SEC_DASHBOARD_CACHE_DIR` overrides)."""
    override = os.environ.get("SEC_DASHBOARD_CACHE_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "sec-dashboard"


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
        environ: dict[str, str] | None = None,
    ) -> "ApiSettings":
        env = os.environ if environ is None else environ
        base = (base_url or env.get("SEC_API_BASE_URL", "")).strip()
        key = _key_from(api_key) or _key_from(env.get("SEC_API_KEY"))
        fund_key = _key_from(fund_api_key) or _key_from(env.get("SEC_FUND_API_KEY"))
        lic_key = _key_from(license_api_key) or _key_from(env.get("SEC_LICENSE_API_KEY"))
        if demo is None:
            demo = env.get("SEC_DASHBOARD_DEMO", "").strip().lower() in {"1", "true", "yes", "on"}
            if not demo and not base and not (key or fund_key or lic_key):
                demo = True
        if base:
            check_base_url(base)
        if cache_dir is None:
            override = env.get("SEC_DASHBOARD_CACHE_DIR", "").strip()
            cache = Path(override).expanduser() if override else default_cache_dir()
        else:
            cache = Path(cache_dir).expanduser()
        return cls(
            base_url=(DEMO_BASE_URL if demo else (base or PRODUCTION_BASE_URL)).rstrip("/"),
            api_key=key,
            fund_api_key=fund_key,
            license_api_key=lic_key,
            demo=bool(demo),
            cache_dir=cache,
            use_cache=use_cache,
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
            for name in ("api_key", "fund_api_key", "license_api_key")
        )
        return (
            f"ApiSettings(base_url={self.base_url!r}, demo={self.demo}, {keys}, "
            f"cache_dir={str(self.cache_dir)!r}, use_cache={self.use_cache})"
        )

    __str__ = __repr__

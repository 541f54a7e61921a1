"""What a call gives back (`ApiResult`) and what a client counts (`ClientStats`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from dashboard.api.endpoints import Endpoint
from dashboard.config import LAYOUT_LEGACY


@dataclass
class ApiResult:
    """One answered call: the raw payload (None when the service has no data) and where it came from."""

    endpoint: Endpoint
    params: dict[str, str]
    data: Any
    from_cache: bool = False
    stale: bool = False
    fetched_at: float = field(default_factory=time.time)
    cache_key: str = ""
    layout: str = LAYOUT_LEGACY
    # Fields the service that answered does not publish at all (every field of a retired endpoint).
    not_published: tuple[str, ...] = ()

    @property
    def identity(self) -> tuple[str, float]:
        """Same request, same answer: the key under which derived forms can be memoised."""
        return (self.cache_key, self.fetched_at)


@dataclass
class ClientStats:
    requests_sent: int = 0
    pages: int = 0
    cache_hits: int = 0
    stale_served: int = 0
    retries: int = 0
    duplicates: int = 0  # rows the service sent twice (same key), dropped

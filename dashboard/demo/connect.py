"""Where a client is built: the real service, or (in demo mode) the embedded simulator handed in as the transport."""

from __future__ import annotations

from typing import Any

from dashboard.api.client import AsyncSecClient, SecClient
from dashboard.config import ApiSettings


def open_client(settings: ApiSettings | None = None, **options: Any) -> SecClient:
    """A synchronous client for these settings (from the environment when not given)."""
    return SecClient(settings, **options)


def open_async_client(settings: ApiSettings | None = None, **options: Any) -> AsyncSecClient:
    """An asynchronous client for these settings (from the environment when not given)."""
    return AsyncSecClient(settings, **options)

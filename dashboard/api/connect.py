"""Where a client is built: for the real service, or in demo mode with the embedded simulator as the
transport (the demo package is imported here only then: it is an edge, like the command line)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from dashboard.api.client import AsyncSecClient
from dashboard.api.sync import SecClient
from dashboard.config import LAYOUT_AUTO, LAYOUT_SUCCESSOR, ApiSettings


def open_client(settings: ApiSettings | None = None, **options: Any) -> SecClient:
    """A synchronous client for these settings (from the environment when not given)."""
    settings = settings or ApiSettings.from_env()
    return SecClient(settings, **client_options(settings, options))


def open_async_client(settings: ApiSettings | None = None, **options: Any) -> AsyncSecClient:
    """An asynchronous client for these settings (from the environment when not given)."""
    settings = settings or ApiSettings.from_env()
    return AsyncSecClient(settings, **client_options(settings, options))


def client_options(settings: ApiSettings, options: dict[str, Any]) -> dict[str, Any]:
    """The client options these settings imply: unchanged for the real service; for demo settings the
    in-process simulator as the transport, the current service's layout unless one is chosen, no
    key required and no disk cache (demo answers would only mix with real data there)."""
    if not settings.demo:
        return options
    options = dict(options)
    layout = options.get("layout") or settings.layout
    options["layout"] = LAYOUT_SUCCESSOR if layout == LAYOUT_AUTO else layout  # the demo plays the current service
    options.setdefault("require_keys", False)
    if options.get("cache", True) is True:
        options["cache"] = None
    if options.get("transport") is None:
        # Demo mode only: the simulator (and its data generator) is loaded here and nowhere else below the edges.
        from dashboard.demo.connect import demo_transport

        today: Callable[[], date] = options.get("today") or date.today
        options["transport"] = demo_transport(today(), options["layout"])
    return options

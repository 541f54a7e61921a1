"""The demo transport: the embedded simulator over the demo data set, handed to a client in demo mode
(`dashboard.api.connect` builds every client and imports this only when demo mode is on)."""

from __future__ import annotations

from datetime import date

import httpx

# The client constructors live in dashboard.api.connect; the names stay here for the edges that used them.
from dashboard.api.connect import client_options, open_async_client, open_client
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.simulator import create_app

__all__ = ["client_options", "demo_transport", "open_async_client", "open_client"]


def demo_transport(today: date, layout: str) -> httpx.AsyncBaseTransport:
    """The embedded simulator over the demo data set as it looks on `today`, answering on `layout`."""
    app = create_app(generate_demo_dataset(today=today), require_key=False, today=today, layout=layout)
    return httpx.ASGITransport(app=app)

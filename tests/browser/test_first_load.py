"""The served dashboard with a real key (the simulator on loopback): the first load reaches the browser.

The session starts loading while the browser still fetches the scripts. With a real key the
answers come over HTTP, and the load can end after the browser has pulled the page but before it
has drawn it; what changed in that window must still reach the page (the basket sidebar kept its
"loading…" marks and spinner forever). The simulator here answers only once the page's websocket
has received the document, so the load always ends in that window.
"""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from playwright.sync_api import expect

from tests.browser.dashboard_server import DashboardProcess, count, wait_for_overview
from tests.browser.test_dashboard import assert_clean_log

pytestmark = pytest.mark.browser

KEY = "first-load-test-key"


class GatedService:
    """The simulator's ASGI app, answering HTTP requests only while `gate` is set."""

    def __init__(self, app):
        self.app = app
        self.gate = threading.Event()
        self.gate.set()

    async def __call__(self, scope, receive, send):
        while scope["type"] == "http" and not self.gate.is_set():
            await asyncio.sleep(0.02)
        await self.app(scope, receive, send)

    def wake_sleepers(self) -> None:
        self.gate.set()
        self.app.wake_sleepers()


def default_basket(base_url: str, cache_dir) -> list[str]:
    """The labels of the funds a fresh session puts in its basket (the models on their own)."""
    from dashboard.config import ApiSettings
    from dashboard.demo.connect import open_client
    from dashboard.models.dashboard_state import DashboardState
    from dashboard.models.source import run

    settings = ApiSettings.from_env(base_url=base_url, api_key=KEY, cache_dir=cache_dir, environ={})
    client = open_client(settings)
    try:
        state = DashboardState(client=client, default_query="Demo")
        assert run(state.start()) == []
        return [state.basket.label(p) for p in state.basket.proj_ids]
    finally:
        client.close()


def test_a_real_key_session_shows_its_basket_loaded(page, artifacts_dir, tmp_path):
    from dashboard.demo.loopback import SimulatorServer
    from dashboard.demo.simulator import create_app

    service = GatedService(create_app(valid_keys={KEY}))
    with SimulatorServer(service) as simulator:
        labels = default_basket(simulator.base_url, tmp_path / "expected-cache")
        assert len(labels) == 4
        env = {"SEC_API_BASE_URL": simulator.base_url, "SEC_API_KEY": KEY,
               "SEC_DASHBOARD_CACHE_DIR": str(tmp_path / "cache"), "SEC_DASHBOARD_DEFAULT_QUERY": "Demo"}
        log = artifacts_dir / "dashboard-first-load-server.log"
        with DashboardProcess(demo=False, env=env, log_path=log) as server:
            service.gate.clear()
            # the document arrives in the websocket's first frames: only then may the service answer
            page.on("websocket", lambda ws: ws.on("framereceived", lambda _frame: service.gate.set()))
            page.goto(server.url)
            wait_for_overview(page, timeout=45_000)
            title = page.get_by_text(re.compile(r"Comparison basket: \d+ funds?"))
            expect(title).to_have_text(re.compile("Comparison basket: 4 funds"))
            for label in labels:
                expect(page.locator("b").filter(has_text=re.compile(f"^{re.escape(label)}$")).first).to_be_visible()
            expect(page.get_by_text("loading…")).to_have_count(0, timeout=15_000)
            expect(page.locator(".pn-loading")).to_have_count(0, timeout=15_000)
            assert count(page, ".pn-loading") == 0
            assert service.app.request_count > 0
    assert page.console_log.errors == [], "\n".join(page.console_log.errors)
    assert page.dialogs == []
    assert_clean_log(log)

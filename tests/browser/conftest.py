"""Playwright on Debian's Chromium: one browser per test session, a fresh page per test.

The browser is Debian's (`/usr/bin/chromium`): Playwright's own browser downloads are not
available here. In CI a missing Chromium is a failure, not a skip; the set-up script installs it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("SEC_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# Console messages that come from the browser itself, not from the page under test.
BENIGN_CONSOLE = ("favicon.ico", "Download the React DevTools", "[Deprecation]")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def market_cache(tmp_path_factory):
    """A cache directory holding the demo market's snapshot (`sec-dashboard --demo market sync --nav-days 0`), made
    once a session."""
    root = Path(__file__).resolve().parents[2]
    cache = tmp_path_factory.mktemp("market-cache")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    env.update(SEC_DASHBOARD_CACHE_DIR=str(cache), PYTHONPATH=str(root))
    # without the daily NAV (about 350 calls and 12 s fewer): the Market tab then says its NAV figures need one
    done = subprocess.run([sys.executable, "-m", "dashboard", "--demo", "market", "sync", "--nav-days", "0"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return cache


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is not installed at {CHROMIUM}; scripts/setup.sh --test installs it")
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium fonts-thai-tlwg)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class ConsoleLog:
    """Errors the page logged or threw, so a test can assert there were none."""

    def __init__(self):
        self.errors: list[str] = []

    def on_console(self, msg) -> None:
        if msg.type == "error" and not any(b in msg.text for b in BENIGN_CONSOLE):
            self.errors.append(msg.text)

    def on_pageerror(self, exc) -> None:
        # the script's stack says where, when the failure is rare (it is in the test's report)
        stack = (getattr(exc, "stack", None) or "").strip().splitlines()[1:6]
        self.errors.append(f"page error: {exc}" + ("".join(f"\n    {line.strip()}" for line in stack)))


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    log = ConsoleLog()
    page.on("console", log.on_console)
    page.on("pageerror", log.on_pageerror)
    page.console_log = log
    # Any dialog (alert/confirm) would mean injected script ran; record it and dismiss it.
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()


def pytest_collection_modifyitems(config, items):
    """Every test in this folder drives the browser: mark it so, so `-m browser` / `-m "not browser"` split the suite."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing browser test's report ends with the last lines of each running server's log (CI shows
    only the report: a server-side error behind a page that never filled is read there)."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when in ("setup", "call"):
        from tests.browser.dashboard_server import DashboardProcess

        for server in list(DashboardProcess.running):
            tail = server.log_tail()
            if tail:
                report.sections.append((f"server log {server.log_path} (last lines)", tail))


@contextlib.contextmanager
def serve_component(factory) -> Iterator[str]:
    """One component served alone (as Panel's own UI tests do with `serve_component`), in this process on a
    free loopback port: `factory()` makes each session's component. Yields the page's address."""
    import panel as pn

    from tests.helpers import free_port, wait_until_live

    port = free_port()
    server = pn.serve({"/": factory}, port=port, address="127.0.0.1", threaded=True, show=False, liveness=True,
                      websocket_origin=[f"127.0.0.1:{port}"])
    try:
        wait_until_live(f"http://127.0.0.1:{port}/", 60)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.stop()

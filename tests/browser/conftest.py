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

# How long a page may take to arrive (ms), for the pages of `page` and `opened_page`: a view served alone is built
# while its page is fetched (the Market view's took over Playwright's default 30 s on a loaded machine).
GOTO_TIMEOUT = 120_000
# Console messages that come from the browser itself, not from the page under test.
BENIGN_CONSOLE = ("favicon.ico", "Download the React DevTools", "[Deprecation]")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def market_cache(tmp_path_factory):
    """A cache directory holding the demo market's snapshot (`sec-dashboard --demo market sync --nav-days 0`): synced
    once in the whole run for every xdist worker (tests/built_once.py: each worker synced it before, 10-20 CPU-s
    each), each worker's a copy of its own (its server may write beside the store)."""
    from tests.built_once import built_once, copy_built

    root = Path(__file__).resolve().parents[2]

    def build(cache: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
        env.update(SEC_DASHBOARD_CACHE_DIR=str(cache), PYTHONPATH=str(root))
        # without the daily NAV (about 350 calls and 12 s fewer): the Market tab then says its NAV figures need one
        done = subprocess.run([sys.executable, "-m", "dashboard", "--demo", "market", "sync", "--nav-days", "0"],
                              cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]

    built, _ = built_once(tmp_path_factory, "browser-market-cache", build)
    return copy_built(built, tmp_path_factory.mktemp("market-cache") / "cache")


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
        _WARM.pop(id(browser), None)
        browser.close()


class ConsoleLog:
    """Errors the page logged or threw, so a test can assert there were none (`page_errors`: those it threw)."""

    def __init__(self):
        self.errors: list[str] = []
        self.page_errors: list[str] = []

    def on_console(self, msg) -> None:
        if msg.type == "error" and not any(b in msg.text for b in BENIGN_CONSOLE):
            self.errors.append(msg.text)

    def on_pageerror(self, exc) -> None:
        # the script's stack says where, when the failure is rare (it is in the test's report)
        stack = (getattr(exc, "stack", None) or "").strip().splitlines()[1:6]
        error = f"page error: {exc}" + ("".join(f"\n    {line.strip()}" for line in stack))
        self.errors.append(error)
        self.page_errors.append(error)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_navigation_timeout(GOTO_TIMEOUT)
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


def phone_or_desktop(width: int) -> dict[str, int]:
    """A viewport `width` px wide: a phone's height below 600 px, a desktop's above."""
    return {"width": width, "height": 844 if width < 600 else 900}


@contextlib.contextmanager
def opened_page(browser, url: str | None, width: int = 1280, *, height: int | None = None, errors: str = "all"):
    """A new page `width` px wide in the browser's warm context (`warm_context`: caches shared, storage cleared), at
    `url` (when given) once its document has loaded. Its errors are in `page.console_log`; when the test's body ends without failing there must
    be none (`errors="thrown"`: none the page threw; "none": not checked). On a failure the page's tables are
    noted. Closed after."""
    from tests.browser.dashboard_server import tables_state

    viewport = phone_or_desktop(width) if height is None else {"width": width, "height": height}
    page = warm_context(browser).new_page()
    page.set_viewport_size(viewport)
    log = ConsoleLog()
    page.on("console", log.on_console)
    page.on("pageerror", log.on_pageerror)
    page.console_log = log
    try:
        if url is not None:
            page.goto(url, wait_until="domcontentloaded")
        yield page
        found = {"all": log.errors, "thrown": log.page_errors, "none": []}[errors]
        assert not found, found
    except Exception as exc:
        exc.add_note(f"The page's tables when it failed:\n{tables_state(page)}")
        raise
    finally:
        page.close()


_WARM: dict[int, object] = {}  # id(browser) -> its warm context


def warm_context(browser):
    """The browser's one context for `opened_page`: its HTTP and compiled-script caches keep the dashboard's
    scripts (several MB of JavaScript) between pages, where a context of each page's own loaded and compiled
    them for every page: Chromium spent 7.6-9.0 CPU-s on a visit of the Fees tab in a fresh context, 1.1-3.7 in one
    that had loaded it before (measured at load 16; CPU that the served dashboard needs at the same time). What a
    page leaves in storage is cleared before each page's scripts run (the theme's choice is kept in localStorage),
    so pages share nothing but the caches; a test about a first, cold load opens a context of its own."""
    context = _WARM.get(id(browser))
    if context is None:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        context.set_default_navigation_timeout(GOTO_TIMEOUT)
        context.add_init_script("try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}")
        _WARM[id(browser)] = context
    return context


def settle(page, *, idle: bool = True, timeout: float = 30_000) -> None:
    """Until what the page lays out anew has been drawn: three frames (a resize observer's callbacks run before the
    next frame is painted, Bokeh draws on the one after) and, with `idle`, Bokeh idle. No fixed sleep."""
    from tests.browser.dashboard_server import wait_idle

    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => "
                  "requestAnimationFrame(done))))")
    if idle:
        wait_idle(page, timeout)


def shoot(page, path: Path, *, height: int | None = None, scroll_to=None, full_page: bool = False,
          idle: bool = True, min_bytes: int = 20_000) -> Path:
    """A screenshot once the page has settled: at `height` px tall (the width kept) with `scroll_to` (a locator)
    at the top when given, the whole page with `full_page` (a component served alone: the page is what scrolls).
    Checks the picture is not blank (`min_bytes`); the viewport is put back after."""
    size = page.viewport_size
    if height is not None:
        page.set_viewport_size({"width": size["width"], "height": height})
    try:
        if scroll_to is not None:
            scroll_to.evaluate("el => el.scrollIntoView({block: 'start'})")
        settle(page, idle=idle)
        page.screenshot(path=str(path), full_page=full_page)
    finally:
        if height is not None:
            page.set_viewport_size(size)
    assert path.stat().st_size > min_bytes, (path, path.stat().st_size)
    return path


@contextlib.contextmanager
def cpu_noted(server, artifacts_dir: Path, name: str):
    """Around a shared server's life: the CPU seconds it used, appended to test-artifacts/server-cpu.txt (what the
    browser tests cost the server, per worker: docs/test-speed-browser.md)."""
    try:
        yield server
    finally:
        with contextlib.suppress(OSError, AssertionError, ValueError):
            used = server.cpu_seconds()
            with open(artifacts_dir / "server-cpu.txt", "a") as out:
                out.write(f"{name} {os.environ.get('PYTEST_XDIST_WORKER', 'main')} {used:.1f} CPU-s\n")


def _server_log(artifacts_dir: Path, name: str) -> Path:
    """A log of its own for each xdist worker (a session fixture runs once in each)."""
    return artifacts_dir / f"{name}-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"


@pytest.fixture(scope="session")
def demo_dashboard(artifacts_dir):
    """The demo dashboard (`--demo serve`), one for the run (for each worker): the tests that only read it share it,
    each page a session of its own (a server's start is ~10 s of a loaded machine, once each module before)."""
    from tests.browser.dashboard_server import DashboardProcess

    with DashboardProcess(demo=True, log_path=_server_log(artifacts_dir, "demo-dashboard")) as server, \
            cpu_noted(server, artifacts_dir, "demo-dashboard"):
        yield server


@pytest.fixture(scope="session")
def market_dashboard(market_cache, artifacts_dir):
    """The demo dashboard on the demo market's snapshot (the Market tab shows the market, not its empty state), one for
    the run (for each worker), shared as `demo_dashboard` is."""
    from tests.browser.dashboard_server import DashboardProcess

    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_CACHE_DIR": str(market_cache)},
                          log_path=_server_log(artifacts_dir, "market-dashboard")) as server, \
            cpu_noted(server, artifacts_dir, "market-dashboard"):
        yield server

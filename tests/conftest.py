"""Shared fixtures: a simulator of the service on loopback and clients pointed at it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
from datetime import date

import pytest

from dashboard.api.sync import SecClient
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.loopback import SimulatorServer
from dashboard.demo.simulator import create_app

# A fixed "today" so period rules and the demo data agree in every run.
TODAY = date(2026, 11, 21)
KEY = "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8c"  # a test value, never a real key


def run(coro):
    """asyncio.run, also when a loop already runs in this thread (the session's Playwright keeps one)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch, tmp_path_factory):
    """No test reads the developer's keys or writes to the real per-user cache."""
    for var in ("SEC_API_KEY", "SEC_FUND_API_KEY", "SEC_LICENSE_API_KEY", "SEC_API_BASE_URL", "SEC_DASHBOARD_DEMO",
                "SEC_API_LAYOUT", "SEC_API_KEY_SECONDARY", "SEC_API_RATE_LIMIT", "SEC_API_MIN_INTERVAL_MS",
                "SEC_DASHBOARD_REDIS_URL", "SEC_DASHBOARD_NUM_PROCS", "SEC_DASHBOARD_MARKET_DIR", "SEC_DASHBOARD_RISK_FREE_PCT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path_factory.mktemp("user-cache")))


@pytest.fixture(scope="session")
def dataset():
    return generate_demo_dataset(today=TODAY)


@pytest.fixture(scope="session")
def simulator_server(dataset):
    server = SimulatorServer(create_app(copy.deepcopy(dataset), valid_keys={KEY}, timeout_s=5.0))
    with server:
        yield server


@pytest.fixture
def simulator(simulator_server):
    """The loopback simulator, with faults, latency and counters reset for each test."""
    app = simulator_server.app
    app.clear_faults()
    app.latency_ms = 0.0
    app.fault_rate = 0.0
    app.legacy_gone = False
    app.layout = "both"
    app.licence_shape = "envelope"
    app.end_cursor_null = False
    app.reset_counters()
    yield simulator_server
    app.clear_faults()
    app.latency_ms = 0.0
    app.layout = "both"
    app.valid_keys = {KEY}


@pytest.fixture
def make_client(simulator, tmp_path):
    """Clients of the loopback simulator with fast retries; closed after the test."""
    made: list[SecClient] = []

    def factory(*, api_key: str | None = KEY, cache_dir=None, use_cache: bool = True, layout: str = "legacy",
                secondary_key: str | None = None, **options) -> SecClient:
        settings = ApiSettings.from_env(
            base_url=simulator.base_url, api_key=api_key, cache_dir=cache_dir or tmp_path / "cache", use_cache=use_cache,
            layout=layout, secondary_key=secondary_key, environ={},
        )
        options.setdefault("today", lambda: TODAY)
        options.setdefault("backoff_base", 0.01)
        options.setdefault("backoff_max", 0.05)
        # The process-wide limiter for KEY would otherwise count every test's calls together.
        options.setdefault("rate_limit_calls", 1_000_000)
        client = open_client(settings, **options)
        made.append(client)
        return client

    yield factory
    for client in made:
        client.close()


@pytest.fixture(params=["legacy", "successor"])
def demo_client(request):
    """The embedded demo mode: in-process simulator, no network, no disk cache; every test that uses it
    runs on both path layouts."""
    client = open_client(ApiSettings.from_env(demo=True, layout=request.param, environ={}), today=lambda: TODAY)
    yield client
    client.close()


#: Folders whose every test serves the dashboard, starts processes or runs a notebook: marked
#: `slow`, so `-m "not slow"` runs the rest in a few minutes (the modules elsewhere that serve say so
#: themselves with `pytestmark = pytest.mark.slow`).
SLOW_FOLDERS = ("tests/browser/", "tests/notebooks/", "tests/scaleout/")


#: The longest files (tens of seconds each), longest first: with two workers taking a file at a time, one
#: of these started last made the run wait for it alone (the workers used 1.5 of the 2 cores).
LONG_FILES = (
    "tests/notebooks/test_notebooks.py", "tests/market/test_sync.py", "tests/views/test_sessions.py",
    "tests/scaleout/test_shared_limit.py", "tests/market/test_nav_sync.py", "tests/market/test_nav_screen.py",
    "tests/demo/test_market_scale.py", "tests/demo/test_nav_demo.py", "tests/reports/test_reports.py",
    "tests/cli/test_cli.py", "tests/market/test_market_questions.py", "tests/market/test_queries.py",
    "tests/browser/test_issue30.py", "tests/browser/test_dashboard.py", "tests/browser/test_nav.py",
    "tests/browser/test_issue30_market.py", "tests/browser/test_server_paths.py", "tests/browser/test_market.py",
)


def pytest_collection_modifyitems(config, items):
    """Browser tests run last: Playwright's sync API leaves its event loop set on the main
    thread for the rest of the session, and tests that call asyncio.run must come first. Within
    each, the longest files first."""
    def order(item) -> tuple[bool, int]:
        path = item.nodeid.replace("\\", "/").split("::")[0]
        return "tests/browser/" in path, LONG_FILES.index(path) if path in LONG_FILES else len(LONG_FILES)

    for item in items:
        if item.nodeid.replace("\\", "/").startswith(SLOW_FOLDERS):
            item.add_marker(pytest.mark.slow)
    items.sort(key=order)

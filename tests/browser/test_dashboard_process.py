"""The served dashboard's environment in browser tests: never the real per-user cache.

A server made by a module-scoped fixture starts before the autouse isolated environment of the module's first
test exists (pytest sets up wider fixtures first): without a cache directory of its own it read and wrote
~/.cache/sec-dashboard, shared by every run and every checkout on the machine.
"""

from __future__ import annotations

from pathlib import Path

from dashboard.config import default_cache_dir
from tests.browser.dashboard_server import DashboardProcess


def test_a_server_without_a_cache_directory_gets_one_of_its_own_and_it_goes_when_it_stops(monkeypatch):
    monkeypatch.delenv("SEC_DASHBOARD_CACHE_DIR", raising=False)
    user_cache = default_cache_dir()
    server = DashboardProcess(demo=True)
    cache = Path(server.environment()["SEC_DASHBOARD_CACHE_DIR"])
    assert cache.is_dir() and cache != user_cache and user_cache not in cache.parents
    assert server.environment()["SEC_DASHBOARD_CACHE_DIR"] == str(cache)  # one directory a server
    server.stop()
    assert not cache.exists()


def test_a_cache_directory_given_is_kept(monkeypatch, tmp_path):
    monkeypatch.delenv("SEC_DASHBOARD_CACHE_DIR", raising=False)
    server = DashboardProcess(demo=True, env={"SEC_DASHBOARD_CACHE_DIR": str(tmp_path)})
    assert server.environment()["SEC_DASHBOARD_CACHE_DIR"] == str(tmp_path)
    server.stop()
    assert tmp_path.is_dir()

"""A served process gives the memory of ended sessions back: it runs on C's malloc (few arenas) and
trims the heap a few seconds after sessions end. The figures are `benchmarks/bench_sessions.py`'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard import app
from dashboard.cli.serving import serving_environment
from tests.browser.dashboard_server import DashboardProcess


def test_serve_runs_on_malloc_unless_told_otherwise():
    env = serving_environment({"PATH": "/usr/bin"})
    assert env == {"PATH": "/usr/bin", "PYTHONMALLOC": "malloc", "MALLOC_ARENA_MAX": "2"}
    assert serving_environment(env) is None  # already so: no second run
    assert serving_environment({"PYTHONMALLOC": "pymalloc_debug"}) is None  # the user's choice stands
    assert serving_environment({"SEC_DASHBOARD_ALLOCATOR": "Python"}) is None
    assert serving_environment({"MALLOC_ARENA_MAX": "8"})["MALLOC_ARENA_MAX"] == "8"


def process_environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_the_served_process_runs_on_malloc_and_trims_after_sessions_end():
    with DashboardProcess(demo=True) as server:
        env = process_environment(server.pid)
        assert env.get("PYTHONMALLOC") == "malloc" and env.get("MALLOC_ARENA_MAX") == "2"
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_ALLOCATOR": "python"}) as server:
        assert "PYTHONMALLOC" not in process_environment(server.pid)


def test_a_crowd_leaving_is_trimmed_once(monkeypatch):
    import asyncio

    calls = []
    monkeypatch.setattr(app, "TRIM_DELAY_S", 0.05)
    monkeypatch.setattr(app, "trim_heap", lambda: calls.append(1) or True)

    async def crowd():
        for _ in range(20):
            app.trim_heap_soon(None)
        await asyncio.sleep(0.3)
        app.trim_heap_soon(None)
        await asyncio.sleep(0.3)

    asyncio.run(crowd())
    assert calls == [1, 1]


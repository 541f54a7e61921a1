"""A served process gives the memory of ended sessions back: it runs on jemalloc where installed (C's
malloc in few arenas otherwise) and purges the heap a few seconds after sessions end. The figures
are `benchmarks/bench_sessions.py`'s."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dashboard import heap
from dashboard.cli.serving import JEMALLOC_CONF, find_jemalloc, serving_environment
from tests.browser.dashboard_server import DashboardProcess


JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"


def test_serve_runs_on_jemalloc_where_installed():
    env = serving_environment({"PATH": "/usr/bin"}, jemalloc=lambda: JEMALLOC)
    assert env == {"PATH": "/usr/bin", "PYTHONMALLOC": "malloc", "LD_PRELOAD": JEMALLOC, "MALLOC_CONF": JEMALLOC_CONF}
    assert serving_environment(env, jemalloc=lambda: JEMALLOC) is None  # already so: no second run
    # the user's own preload and jemalloc settings stand
    env = serving_environment({"LD_PRELOAD": "/opt/x.so", "MALLOC_CONF": "narenas:2"}, jemalloc=lambda: JEMALLOC)
    assert env["LD_PRELOAD"] == f"{JEMALLOC} /opt/x.so" and env["MALLOC_CONF"] == "narenas:2"
    env = serving_environment({"LD_PRELOAD": JEMALLOC}, jemalloc=lambda: JEMALLOC)
    assert env["LD_PRELOAD"] == JEMALLOC
    env = serving_environment({"LD_PRELOAD": f"/opt/x.so:{JEMALLOC}"}, jemalloc=lambda: JEMALLOC)
    assert env["LD_PRELOAD"] == f"/opt/x.so:{JEMALLOC}"  # already there, colon-separated


def test_serve_runs_on_malloc_without_jemalloc_or_when_told(capsys):
    env = serving_environment({"PATH": "/usr/bin"}, jemalloc=lambda: None)
    assert env == {"PATH": "/usr/bin", "PYTHONMALLOC": "malloc", "MALLOC_ARENA_MAX": "2"}
    assert serving_environment(env, jemalloc=lambda: None) is None  # already so: no second run
    assert serving_environment({"MALLOC_ARENA_MAX": "8"}, jemalloc=lambda: None)["MALLOC_ARENA_MAX"] == "8"
    told = serving_environment({"SEC_DASHBOARD_ALLOCATOR": "malloc"}, jemalloc=lambda: JEMALLOC)
    assert "LD_PRELOAD" not in told and told["MALLOC_ARENA_MAX"] == "2"
    assert capsys.readouterr().err == ""
    serving_environment({"SEC_DASHBOARD_ALLOCATOR": "jemalloc"}, jemalloc=lambda: None)
    assert "no libjemalloc.so.2 was found" in capsys.readouterr().err
    assert "LD_PRELOAD" in serving_environment({"SEC_DASHBOARD_ALLOCATOR": "tcmalloc"}, jemalloc=lambda: JEMALLOC)
    assert "is not one of jemalloc, malloc, python" in capsys.readouterr().err


def test_the_users_allocator_choice_stands():
    assert serving_environment({"PYTHONMALLOC": "pymalloc_debug"}, jemalloc=lambda: JEMALLOC) is None
    assert serving_environment({"SEC_DASHBOARD_ALLOCATOR": "Python"}, jemalloc=lambda: JEMALLOC) is None


def process_environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def mapped_libraries(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_the_served_process_runs_on_the_allocator_that_gives_memory_back():
    library = find_jemalloc()
    with DashboardProcess(demo=True) as server:
        env = process_environment(server.pid)
        assert env.get("PYTHONMALLOC") == "malloc"
        if library is not None:  # the test command installs it (libjemalloc2)
            assert "libjemalloc" in mapped_libraries(server.pid) and env["MALLOC_CONF"] == JEMALLOC_CONF
        else:
            assert env.get("MALLOC_ARENA_MAX") == "2"
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_ALLOCATOR": "malloc"}) as server:
        assert process_environment(server.pid).get("PYTHONMALLOC") == "malloc"
        assert "libjemalloc" not in mapped_libraries(server.pid)
    with DashboardProcess(demo=True, env={"SEC_DASHBOARD_ALLOCATOR": "python"}) as server:
        assert "PYTHONMALLOC" not in process_environment(server.pid)
        assert "libjemalloc" not in mapped_libraries(server.pid)


@pytest.mark.skipif(find_jemalloc() is None, reason="jemalloc is not installed")
def test_on_jemalloc_a_forked_process_purges_and_keeps_its_background_threads():
    """What `trim_heap` does on jemalloc, in a process like a served one (jemalloc preloaded, then
    forked, as `--num-procs` does): background purging restored in the child, and the purge works."""
    script = textwrap.dedent("""
        import os, sys
        from dashboard import heap
        mallctl = heap.jemalloc_mallctl()
        assert mallctl is not None, "jemalloc not loaded"
        assert heap._jemalloc_flag(mallctl, b"background_thread")
        pid = os.fork()
        if pid == 0:
            lost = not heap._jemalloc_flag(mallctl, b"background_thread")
            trimmed = heap.trim_heap()
            back = heap._jemalloc_flag(mallctl, b"background_thread")
            os._exit(0 if (lost and trimmed and back) else 3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
    """)
    env = serving_environment({k: v for k, v in os.environ.items() if k not in ("PYTHONMALLOC", "LD_PRELOAD")})
    assert env is not None and "LD_PRELOAD" in env
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_crowd_leaving_is_trimmed_once(monkeypatch):
    import asyncio

    calls = []
    monkeypatch.setattr(heap, "TRIM_DELAY_S", 0.05)
    monkeypatch.setattr(heap, "trim_heap", lambda: calls.append(1) or True)

    async def crowd():
        for _ in range(20):
            heap.trim_heap_soon(None)
        await asyncio.sleep(0.3)
        heap.trim_heap_soon(None)
        await asyncio.sleep(0.3)

    asyncio.run(crowd())
    assert calls == [1, 1]



def test_the_heap_trim_drops_the_dead_references_copies_left_on_a_kept_frame():
    """Sessions copy the process's cached frames; with copy-on-write each copy leaves a weak
    reference on the original's data that pandas keeps until their number doubles. The trim
    after sessions end drops them (here: 1,000 copies of one kept frame, as 1,000 sessions)."""
    import weakref

    import pandas as pd

    kept = pd.DataFrame({"proj_id": [f"M{i:04d}" for i in range(50)], "nav": [float(i) for i in range(50)]})
    index = kept.index

    def weak_references() -> int:
        gc.collect()
        return sum(isinstance(o, weakref.ReferenceType) for o in gc.get_objects())

    for _ in range(1000):
        copy = kept.copy(deep=False)
        copy["nav2"] = copy["nav"]  # what a session does with its copy
        del copy
    before = weak_references()
    heap.trim_heap()
    assert weak_references() <= before - 1000
    assert heap.prune_dead_frame_references() == 0  # nothing left to drop
    assert kept.index is index and kept["nav"].sum() == sum(range(50))  # the kept frame is as it was

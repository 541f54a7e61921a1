"""The benchmarks still start: each one's imports (the dashboard's, the tests' helpers, the minimal
reference page beside them) resolve and its options parse. They are not run here: they print figures
and take minutes (see docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(path.name for path in BENCHMARKS.glob("bench_*.py"))


def test_there_are_benchmarks():
    assert "bench_sessions.py" in SCRIPTS and "bench_first_paint.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_starts(script):
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"], capture_output=True, text=True,
                          timeout=120, cwd=BENCHMARKS.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:")


def test_minimal_page_releases_its_sessions_only_when_asked():
    """The memory reference (`--release-sessions`) unbinds its page from Panel's process-wide busy
    flag, which otherwise keeps every page alive; the first-paint reference is the page as shipped."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import minimal_page
    finally:
        sys.path.remove(str(BENCHMARKS))
    import panel as pn

    watchers = lambda: len(pn.state.param.watchers.get("busy", {}).get("value", []))  # noqa: E731
    before = watchers()
    shipped = minimal_page.page(release_sessions=False)
    assert watchers() == before + 1  # panel-material-ui's binding: it stays for the process's life
    released = minimal_page.page(release_sessions=True)
    assert watchers() == before + 1  # the released page's binding went with the rebinding
    assert released.busy is False and shipped is not released
    from panel.util import edit_readonly

    with edit_readonly(shipped):  # leave nothing bound in this process
        shipped.busy = pn.bind(bool, shipped.param.loading)
    assert watchers() == before

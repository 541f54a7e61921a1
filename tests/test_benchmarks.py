"""The benchmarks still start: each one's imports (the dashboard's, the tests' helpers, the minimal
reference page beside them) resolve and its options parse. They are not run here: they print figures
and take minutes (see docs/performance.md)."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(path.name for path in BENCHMARKS.glob("bench_*.py"))


def test_there_are_benchmarks():
    assert "bench_sessions.py" in SCRIPTS and "bench_first_paint.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_starts(script, monkeypatch, capsys):
    """`python benchmarks/SCRIPT --help`, run in this process as Python runs a script (its folder first on the
    path, as `__main__`): a fresh process each cost a second or more of CPU for imports this process has made
    (seventeen of them). The next test starts one in a fresh process of its own."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # (and sys.path as it was afterwards: the scripts add the root)
    monkeypatch.setattr(sys, "argv", [str(BENCHMARKS / script), "--help"])
    monkeypatch.chdir(BENCHMARKS.parent)
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
    assert done.value.code in (0, None)
    assert capsys.readouterr().out.startswith("usage:")


def test_a_benchmark_starts_in_a_fresh_process():
    done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_sessions.py"), "--help"], capture_output=True,
                          text=True, timeout=120, cwd=BENCHMARKS.parent)
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

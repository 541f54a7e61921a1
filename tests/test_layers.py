"""The package's layering holds: import-linter's contracts in pyproject.toml (each layer imports only
the layers below it; models, presentation, reports and the API layer never import Panel; reports draw
with the presentation package)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports() -> list[str]:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe, "import-linter is part of the test extras (bash scripts/setup.sh --test installs it)"
    return [exe, "--no-cache", "--config", str(ROOT / "pyproject.toml")]


def test_imports_only_point_down():
    result = subprocess.run(_lint_imports(), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    # The contract is live: a copy of the package where the API layer imports a view fails it.
    copy = tmp_path / "dashboard"
    shutil.copytree(ROOT / "dashboard", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "api" / "upward.py").write_text("from dashboard.views import common  # noqa: F401\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    cmd = _lint_imports()[:-2] + ["--config", str(tmp_path / "pyproject.toml")]
    result = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.returncode != 0 and "dashboard.api.upward" in result.stdout

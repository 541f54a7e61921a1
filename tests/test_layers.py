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


# The serving layer: the only package that may import Bokeh's server or Tornado.
SERVING = ("dashboard.server",)
SERVER_LIBRARIES = ("bokeh.server", "tornado")


def _imports(path: Path) -> list[str]:
    import ast

    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return names


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def test_only_the_serving_layer_imports_bokeh_server_or_tornado():
    """import-linter forbids only whole libraries (not bokeh.server), so this reads the imports itself."""
    found, serving = {}, []
    for path in sorted((ROOT / "dashboard").rglob("*.py")):
        module = _module_name(path)
        names = [name for name in _imports(path)
                 if any(name == lib or name.startswith(lib + ".") for lib in SERVER_LIBRARIES)]
        if names and not any(module == s or module.startswith(s + ".") for s in SERVING):
            found[module] = names
        elif names:
            serving.append(module)
    assert not found, found
    assert serving, "no module imports the server libraries: the check reads no imports"


def test_the_demo_is_loaded_only_in_demo_mode():
    script = ("import sys\n"
              "from dashboard.config import ApiSettings\n"
              "from dashboard.models.source import default_client\n"
              "default_client(ApiSettings.from_env(base_url='http://127.0.0.1:9', environ={'SEC_API_KEY': 'k'}))\n"
              "print(sorted(m for m in sys.modules if m.startswith('dashboard.demo')))\n"
              "default_client(ApiSettings.from_env(demo=True, environ={}))\n"
              "print('dashboard.demo.simulator' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split("\n")[:2] == ["[]", "True"], result.stdout

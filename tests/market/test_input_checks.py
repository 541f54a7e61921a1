"""Bad input to the market commands: exit 2, one error line that does not echo a whole input, nothing written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from dashboard.cli.main import main
from dashboard.errors import BadInputError, quoted
from dashboard.market.queries import screen
from dashboard.market.store import MarketStore
from tests.market.conftest import cli_synced_once

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The demo market's funds, companies, fees and risk levels synced by the command (with holdings besides:
    tests/market/conftest.py's `cli_synced_once`, synced once in the run, copied)."""
    return cli_synced_once(tmp_path_factory, "inputs")


def _error_lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if "error" in line]


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf"])
def test_a_fee_or_return_that_is_not_a_finite_number_is_refused(cache, capsys, value):
    for option in ("--max-fee", "--min-return-1y"):
        with pytest.raises(SystemExit) as done:
            main(["market", "screen", "--demo", "--cache-dir", str(cache), f"{option}={value}"])
        assert done.value.code == 2
        [line] = _error_lines(capsys)
        assert "not a finite number" in line
    with MarketStore(cache / "market-demo.duckdb", read_only=True) as store:  # the library refuses it too
        with pytest.raises(BadInputError, match="finite"):
            screen(store, max_fee=float("nan"))


def test_a_limit_past_any_count_is_bad_input_not_a_store_failure(cache, capsys):
    with pytest.raises(SystemExit) as done:
        main(["market", "screen", "--demo", "--cache-dir", str(cache), "--limit", "1" * 23])
    assert done.value.code == 2
    assert "too large" in _error_lines(capsys)[0]
    with MarketStore(cache / "market-demo.duckdb", read_only=True) as store:
        with pytest.raises(BadInputError, match="--limit must be from 1"):
            screen(store, limit=10 ** 22)


def test_an_empty_export_directory_writes_nothing_into_the_current_one(cache, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["market", "export", "--demo", "--cache-dir", str(cache), ""]) == 2
    [line] = _error_lines(capsys)
    assert "empty" in line
    assert list(tmp_path.iterdir()) == []


def test_errors_cut_what_they_quote(cache, capsys):
    long = "x" * 100_000
    assert main(["market", "screen", "--demo", "--cache-dir", str(cache), "--risk", long]) == 2
    [line] = _error_lines(capsys)
    assert len(line) < 300 and "(100,000 characters)" in line
    assert main(["market", "overlap", "--demo", "--cache-dir", str(cache), long, "other"]) == 2
    [line] = _error_lines(capsys)
    assert len(line) < 300
    assert quoted("abc") == "'abc'" and quoted("y" * 81).endswith("… (81 characters)")


def test_an_export_into_a_read_only_directory_is_bad_input_and_writes_nothing(cache):
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: a read-only directory cannot be made")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    else:
        prefix = []
    place = Path(tempfile.mkdtemp(prefix="sec-export-"))
    try:
        snapshot = place / "snapshot"
        shutil.copytree(cache / "market-demo-snapshot", snapshot)
        target = place / "out"
        target.mkdir()
        for path in (place, snapshot, *snapshot.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        os.chmod(target, 0o555)
        done = subprocess.run([*prefix, sys.executable, "-m", "dashboard", "market", "export", "--demo", "--store",
                               str(snapshot), str(target)], cwd=REPO, capture_output=True, text=True,
                              env={**os.environ, "HOME": str(place), "SEC_DASHBOARD_CACHE_DIR": str(place / "cache")})
        assert done.returncode == 2, done.stderr
        assert "not writable" in done.stderr and len(done.stderr.strip().splitlines()) == 1
        assert list(target.iterdir()) == []
    finally:
        os.chmod(place / "out", 0o755)
        shutil.rmtree(place, ignore_errors=True)

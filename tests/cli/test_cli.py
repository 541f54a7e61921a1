"""The command line as a contract: JSON shapes, exit codes, one-line errors, never the key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.cli.main import main
from tests.conftest import KEY

ROOT = Path(__file__).resolve().parents[2]
SHOW_KEYS = ["proj_id", "fund", "classes", "investment", "holdings", "project_type", "suitability",
             "return_estimate", "performance", "redemption", "fees", "allocation", "urls"]


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real entry point in a fresh process, as a user or another tool runs it."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    full_env.update(env or {})
    full_env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "dashboard", *args], capture_output=True, text=True,
                          env=full_env, timeout=120, cwd=ROOT)


@pytest.fixture(params=["legacy", "successor"])
def cli(request, simulator, tmp_path, monkeypatch, capsys):
    """Run the command line in-process against the loopback simulator playing one layout (each test runs
    on both); the command line finds the layout itself. Returns (code, stdout, stderr)."""
    simulator.app.layout = request.param
    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_API_BASE_URL", simulator.base_url)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cli-cache"))

    def invoke(*args: str):
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    return invoke


def test_demo_fund_show_in_a_fresh_process(dataset):
    fund = next(f for f in dataset.funds if f["proj_id"] in dataset.holdings)
    result = run("--demo", "fund", "show", fund["proj_abbr_name"].lower(), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == SHOW_KEYS
    assert data["proj_id"] == fund["proj_id"] and data["fund"]["proj_abbr_name"] == fund["proj_abbr_name"]
    assert len(data["holdings"]) == 12 and all(len(p) == 6 for p in data["holdings"])


def test_fund_commands(cli, dataset):
    fund = dataset.funds[0]
    code, out, _ = cli("fund", "search", fund["proj_abbr_name"], "--json")
    assert code == 0 and fund["proj_id"] in {r["proj_id"] for r in json.loads(out)}
    code, out, _ = cli("fund", "amc", fund["unique_id"], "--json")
    assert code == 0 and {r["unique_id"] for r in json.loads(out)} == {fund["unique_id"]}
    cls = next(iter(dataset.classes.values()))[0]["class_abbr_name"]
    code, out, _ = cli("fund", "classes", cls, "--json")
    assert code == 0 and cls in {r["class_abbr_name"] for r in json.loads(out)}
    code, out, _ = cli("fund", "search", fund["proj_abbr_name"])
    assert code == 0 and fund["proj_id"] in out and "rows" in out  # readable table


def test_holdings_default_and_given_period(cli, dataset):
    from dashboard.api.periods import latest_period, valid_periods

    proj_id = next(iter(dataset.holdings))
    # the command line judges periods by the real date; the simulator's data is for the tests' date
    shared = [p for p in valid_periods() if p in dataset.holdings[proj_id]]
    assert shared, "the demo data and today's valid periods no longer overlap"
    code, out, _ = cli("fund", "holdings", proj_id, "--period", shared[-1], "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(dataset.holdings[proj_id][shared[-1]])
    assert all(isinstance(r["percent_nav"], float) for r in rows if r["percent_nav"] is not None)
    code, out, _ = cli("fund", "holdings", proj_id, "--json")
    assert code == 0 and (json.loads(out) != []) == (latest_period() in dataset.holdings[proj_id])
    code, _, err = cli("fund", "holdings", proj_id, "--period", "202605", "--json")
    assert code == 2 and "quarter end" in err and err.count("\n") == 1


def test_licensee_commands(cli, dataset):
    code, out, _ = cli("licensee", "former", "--json")
    assert code == 0 and len(json.loads(out)) == len(dataset.former_licensees)
    person = next(p for p in dataset.approvals if dataset.approvals[p])
    code, out, _ = cli("licensee", "person", person, "--json")
    data = json.loads(out)
    assert code == 0 and list(data) == ["unique_id", "approvals", "duties"] and data["approvals"]
    (uid, case), _ = next(iter(dataset.enforcement.items()))
    code, out, _ = cli("licensee", "enforcement", uid, case, "--json")
    assert code == 0 and json.loads(out)["enforcement_date"]
    code, out, _ = cli("licensee", "alert", next(iter(dataset.alerts)), "--json")
    assert code == 0 and json.loads(out)["case_id"]
    code, out, _ = cli("licensee", "search", dataset.licensees[0]["name_en"][:8], "--json")
    assert code == 0 and json.loads(out)


def test_no_data_exits_zero_and_says_so_on_stderr(cli):
    code, out, err = cli("licensee", "alert", "IA-0000-000", "--json")
    assert code == 0 and json.loads(out) is None and "no data" in err


def test_exit_codes_and_one_line_errors(cli, simulator, monkeypatch):
    code, _, err = cli("fund", "show", "../etc", "--json")
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    simulator.app.inject("503", times=100)
    code, _, err = cli("licensee", "former")
    assert code == 4 and "503" in err and err.count("\n") == 1
    simulator.app.clear_faults()
    monkeypatch.setenv("SEC_API_KEY", "wrong-but-harmless-test-value")
    code, _, err = cli("licensee", "former")
    assert code == 3 and "rejected" in err and "wrong-but-harmless-test-value" not in err


def test_missing_key_exits_3_without_a_traceback(simulator):
    result = run("--base-url", simulator.base_url, "licensee", "former")
    assert result.returncode == 3 and "SEC_API_KEY" in result.stderr and "Traceback" not in result.stderr


def test_usage_errors_exit_2():
    assert run("fund").returncode == 2


def test_cache_info_and_clear(cli, dataset, tmp_path):
    cli("licensee", "former", "--json")
    code, out, _ = cli("cache", "info", "--json")
    info = json.loads(out)
    assert code == 0 and info["entries"] >= 1 and info["directory"].endswith("cli-cache")
    code, out, _ = cli("cache", "clear")
    assert code == 0 and "removed" in out
    code, out, _ = cli("cache", "info", "--json")
    assert json.loads(out)["entries"] == 0
    for path in (tmp_path / "cli-cache").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes()


def test_no_cache_writes_nothing(cli, tmp_path):
    cli("--no-cache", "licensee", "former", "--json")
    code, out, _ = cli("cache", "info", "--json")
    assert json.loads(out)["entries"] == 0


def test_demo_mode_touches_no_network(monkeypatch, capsys, dataset):
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError(f"demo mode opened a network connection to {args[1:]}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    code = main(["fund", "search", "Demo", "--json"])  # no key, no base URL: demo mode by default
    assert code == 0 and len(json.loads(capsys.readouterr().out)) >= 60


def test_demo_server_command_serves_the_api_on_loopback(tmp_path):
    import socket
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    env.update(PYTHONPATH=str(ROOT), SEC_API_KEY=KEY)
    proc = subprocess.Popen([sys.executable, "-m", "dashboard", "demo-server", "--port", str(port), "--latency-ms", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = httpx.get(f"{base}/LicenseCheck/licensee/company", headers={"Ocp-Apim-Subscription-Key": KEY})
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "timeout"
                time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()
        assert httpx.get(f"{base}/LicenseCheck/licensee/company").status_code == 401
        # and the command line talks to it like to the real service
        result = run("--base-url", base, "licensee", "former", "--json", env={"SEC_API_KEY": KEY,
                                                                              "SEC_DASHBOARD_CACHE_DIR": str(tmp_path)})
        assert result.returncode == 0 and json.loads(result.stdout)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    assert KEY not in out + err

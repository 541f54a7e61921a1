"""The command line as a contract: JSON shapes, exit codes, one-line errors, never the key."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.cli.main import main
from tests.conftest import KEY

ROOT = Path(__file__).resolve().parents[2]
SHOW_KEYS = ["proj_id", "fund", "classes", "investment", "holdings", "project_type", "suitability",
             "return_estimate", "performance", "redemption", "fees", "total_annual_fee", "allocation", "urls"]


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
    return in_process_cli(simulator, request.param, tmp_path / "cli-cache", monkeypatch, capsys)


def in_process_cli(server, layout: str, cache_dir, monkeypatch, capsys):
    """The command line run in-process against a loopback server playing `layout`: (code, stdout, stderr)."""
    server.app.layout = layout
    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_API_BASE_URL", server.base_url)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(cache_dir))

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
    assert code == 0 and fund["proj_id"] in out and ("rows)" in out or "(1 row)" in out)  # readable table, counted


def test_holdings_default_and_given_period(cli, dataset, simulator):
    from dashboard.api.periods import latest_period, valid_periods

    proj_id = next(iter(dataset.holdings))
    # the command line judges periods by the real date; the simulator's data is for the tests' date;
    # a quarter both layouts offer (the current service publishes 15 days sooner)
    shared = [p for p in valid_periods() if p in valid_periods(layout="successor") and p in dataset.holdings[proj_id]]
    assert shared, "the demo data and today's valid periods no longer overlap"
    code, out, _ = cli("fund", "holdings", proj_id, "--period", shared[-1], "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(dataset.holdings[proj_id][shared[-1]])
    assert all(isinstance(r["percent_nav"], float) for r in rows if r["percent_nav"] is not None)
    code, out, _ = cli("fund", "holdings", proj_id, "--json")
    latest = latest_period(layout=simulator.app.layout)  # each layout's own publication lag
    assert code == 0 and (json.loads(out) != []) == (latest in dataset.holdings[proj_id])
    code, _, err = cli("fund", "holdings", proj_id, "--period", "202605", "--json")
    assert code == 2 and "quarter end" in err and err.count("\n") == 1


def test_quarter_messages_give_one_range_and_the_layouts_own_rule(cli, simulator):
    """`--period 202605` said "valid periods are 202309 to 202606" (the legacy range), `--period 202309` "202312 to
    202609" and `--period 202612` "offered 60 days after it ends" on the current service, whose rule is 45 (issue 39).
    Every refusal names the range of the layout that answers, and its rule."""
    from dashboard.api.periods import PUBLICATION_DELAY_DAYS, _previous_quarter, valid_periods

    layout = simulator.app.layout
    valid = valid_periods(layout=layout)  # the command line judges periods by the real date
    span = f"valid periods are {valid[-1]} to {valid[0]}"
    older = "{:04d}{:02d}".format(*_previous_quarter(int(valid[-1][:4]), int(valid[-1][4:])))
    newest_next = f"{int(valid[0][:4]) + 1}{valid[0][4:]}"  # a year ahead: no layout offers it, whatever the day
    assert cli("fund", "search", "DMK")[0] == 0  # the layout is known once the service has answered once
    for period, words in ((valid[0][:4] + "05", "not a quarter end"), (older, "more than 3 years back"),
                          (newest_next, f"offered {PUBLICATION_DELAY_DAYS[layout]} days after it ends")):
        code, _, err = cli("fund", "holdings", "DMK-EQ", "--period", period)
        assert code == 2 and words in err and span in err, err
        assert err.count("\n") == 1


def test_readable_holdings_leave_the_nav_total_line_out_as_every_other_output_does(cli, dataset):
    from dashboard.api.periods import valid_periods

    proj_id, period = next((pid, p) for pid, quarters in dataset.holdings.items() for p in valid_periods()
                           if any(str(r.get("assetliab_id")) == "903" for r in quarters.get(p, [])))
    code, out, _ = cli("fund", "holdings", proj_id, "--period", period, "--json")
    rows = json.loads(out)
    holdings = [r for r in rows if not r["is_nav_total"]]
    assert code == 0 and len(holdings) == len(rows) - 1  # JSON: every line as sent, the NAV total flagged
    code, out, _ = cli("fund", "holdings", proj_id, "--period", period)
    table, _, after = out.partition(f"({len(holdings)} rows)")
    assert code == 0 and after, out  # the count is of holdings only
    assert "(NAV)" not in table
    assert "(903)" not in table  # the asset code as the table writes one, e.g. "bank deposits (301)"
    assert "net asset value" in after and "not a holding" in after


def test_every_fund_json_output_gives_a_quarter_as_text_yyyymm(cli, dataset):
    """One type for a period in every JSON output: the text "YYYYMM" (README), whatever type the service sent."""
    from dashboard.api.periods import valid_periods

    proj_id, period = next((pid, p) for pid, quarters in dataset.holdings.items() for p in valid_periods() if quarters.get(p))
    code, out, _ = cli("fund", "holdings", proj_id, "--period", period, "--json")
    rows = json.loads(out)
    # The legacy rows carry no period (the path names it); the current service's do, as a number.
    sent = {r.get("period", period) for r in rows}
    assert code == 0 and rows and sent == {period}  # a string equal to the quarter asked
    code, out, _ = cli("fund", "show", proj_id, "--json")
    shown = json.loads(out)["holdings"]
    assert code == 0 and shown and all(isinstance(p, str) and len(p) == 6 and p.isdigit() for p in shown)
    assert all(r.get("period", p) == p for p, lines in shown.items() for r in lines)


def test_licensee_commands(cli, dataset, simulator):
    code, out, _ = cli("licensee", "former", "--json")
    register = {r["unique_id"] for r in dataset.company_register()}
    if simulator.app.layout == "successor":  # the fund management companies it lists hold licences now (issue 39)
        register -= {a["unique_id"] for a in dataset.amcs}
    assert code == 0 and {r["unique_id"] for r in json.loads(out)} == register
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


def test_an_alert_and_a_case_list_read_with_the_dashboards_titles_and_dates(cli, dataset, simulator, tmp_path,
                                                                           monkeypatch, capsys):
    """Issue 39: `licensee alert` printed "Seq no", "License th" and "2026-02-05T01:38:35.930000" where the
    dashboard says "Sequence", "Act (Thai)" and a date; `licensee cases` raw timestamps."""
    code, out, _ = cli("licensee", "alert", next(iter(dataset.alerts)))
    assert code == 0
    titles = [line.split("  ")[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert titles == ["Updated", "Case", "Sequence", "Act (Thai)", "Act (English)"]
    assert re.search(r"^Updated +\d{4}-\d{2}-\d{2}$", out, re.M) and not re.search(r"\d{2}:\d{2}", out)
    uid, case = next(iter(dataset.enforcement))
    cases = in_process_cli(simulator, "successor", tmp_path / "cases-cache", monkeypatch, capsys)  # current service only
    code, out, _ = cases("licensee", "cases", uid)
    assert code == 0
    lines = out.strip().splitlines()
    assert re.split(r"  +", lines[0]) == ["Case", "Kind of action", "Updated"]
    assert re.fullmatch(rf"{case} +.+ +\d{{4}}-\d{{2}}-\d{{2}}", lines[1]) and lines[-1] == "(1 row)"


def test_a_company_with_nobody_on_duty_says_so_under_its_heading(dataset, simulator, tmp_path, monkeypatch, capsys):
    """Issue 39: `licensee company` printed the 'personnel on duty' heading with nothing under it."""
    on_duty = {d.get("company_unique_id") for duties in dataset.duties.values() for d in duties}
    uid = next(a["unique_id"] for a in dataset.amcs if a["unique_id"] not in on_duty)
    company = in_process_cli(simulator, "successor", tmp_path / "company-cache", monkeypatch, capsys)
    code, out, _ = company("licensee", "company", uid)
    lines = out.splitlines()
    heading = next(i for i, line in enumerate(lines) if line.endswith(": personnel on duty"))
    assert code == 0 and lines[heading + 1] == "  (nobody is recorded on duty at this company)"
    assert lines[heading + 2].endswith(": business activities")


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


def test_demo_server_command_serves_the_api_on_loopback(tmp_path, monkeypatch, capsys):
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
        # and the command line (in this process: the server is the fresh process here) talks to it like to
        # the real service
        monkeypatch.setenv("SEC_API_KEY", KEY)
        monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))
        capsys.readouterr()
        assert main(["--base-url", base, "licensee", "former", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    assert KEY not in out + err


# ---- the current service's layout ------------------------------------------------------------------


def _ordered(rows) -> list:
    """Rows in one order whatever order the service sent them in (None sorts like any value)."""
    return sorted(rows, key=lambda row: json.dumps(row, ensure_ascii=False, default=str))


def _comparable(show: dict) -> dict:
    """What both layouts must agree on in `fund show --json`: every value the legacy layout had, apart
    from the parts and fields the current service dropped, in an order-free form."""
    fund = show["fund"] or {}
    same = {
        "fund": {k: fund.get(k) for k in ("proj_id", "proj_abbr_name", "proj_name_en", "proj_name_th", "fund_status",
                                          "unique_id", "regis_id", "regis_date", "cancel_date", "invest_country_flage")},
        "classes": _ordered((c["class_abbr_name"], c["class_name"]) for c in show["classes"]),
        "holdings": {p: _ordered((r["isin_code"] or "", r["percent_nav"], r["assetliab_value"], r["is_nav_total"])
                               for r in rows) for p, rows in show["holdings"].items()},
        "performance": _ordered((p["class_abbr_name"] or "", p["performance_kind"], p["reference_period"],
                               p["performance_val"]) for p in show["performance"]),
        # the current service's factsheets carry no trustee or registrar line (spec 4.14)
        "fees": _ordered((f["class_abbr_name"] or "", f["fee_type_desc"], f["rate_num"], f["actual_value_num"])
                       for f in show["fees"] if f["fee_kind"] not in ("trustee", "registrar")),
        "total_annual_fee": show["total_annual_fee"],
        "allocation": _ordered((a["asset_name"], a["asset_ratio"]) for a in show["allocation"]),
        "risk": {k: (show["suitability"] or {}).get(k) for k in ("risk_spectrum", "risk_spectrum_desc")},
        "redemption": {k: (show["redemption"] or {}).get(k) for k in ("redemp_period", "settlement_period")},
        "project_type": {k: (show["project_type"] or {}).get(k) for k in ("proj_retail_type", "proj_term_flag")},
        "minimums": _ordered({(i["minimum_sub_ipo"], i["minimum_sub"], i["minimum_redempt"]) for i in show["investment"]}),
    }
    return same


def test_fund_show_gives_the_same_values_on_both_layouts(simulator, dataset, monkeypatch, capsys, tmp_path):
    from dashboard.api.periods import valid_periods
    from tests.reports.helpers import full_funds

    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_API_BASE_URL", simulator.base_url)
    shows = {}
    for n, proj_id in enumerate(f["proj_id"] for f in full_funds(dataset)[:3]):
        for layout in ("legacy", "successor"):
            simulator.app.layout = layout
            monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / f"{layout}-{n}"))
            assert main(["fund", "show", proj_id, "--json"]) == 0
            shows[layout] = json.loads(capsys.readouterr().out)
        legacy, successor = shows["legacy"], shows["successor"]
        assert list(successor) == SHOW_KEYS == list(legacy)
        # The current service publishes a quarter 45 days after its end, the legacy 60: compared on the quarters
        # both offer (the command line judges by the real date), each layout's own quarters asked for.
        current, old = _comparable(successor), _comparable(legacy)
        both = set(valid_periods(layout="successor")) & set(valid_periods(layout="legacy"))
        for side in (current, old):
            side["holdings"] = {p: rows for p, rows in side["holdings"].items() if p in both}
        assert current == old
        assert set(successor["holdings"]) <= set(valid_periods(layout="successor"))
        assert set(legacy["holdings"]) <= set(valid_periods(layout="legacy"))
        # dropped: the estimate, the suitability texts; added: the company's name, policy type
        assert bool(legacy["return_estimate"]) == (proj_id in dataset.return_estimate)
        assert successor["return_estimate"] is None
        assert successor["fund"]["comp_name_en"] and "comp_name_en" not in legacy["fund"]
        assert successor["suitability"]["not_published"] and "not_published" not in legacy["suitability"]


@pytest.mark.parametrize("layout, words", [("successor", "current service paths"), ("legacy", "legacy paths")])
def test_verbose_output_says_which_layout_answers(simulator, layout, words, tmp_path):
    simulator.app.layout = layout
    result = run("-v", "--base-url", simulator.base_url, "licensee", "former", "--json",
                 env={"SEC_API_KEY": KEY, "SEC_DASHBOARD_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 0 and words in result.stderr and KEY not in result.stderr


def test_new_licence_lookups_on_the_current_service(cli, dataset, simulator):
    person = dataset.persons[0]
    surname = person["name_en"].split()[-1]
    company = dataset.amcs[0]["unique_id"]
    (uid, case), _ = next(iter(dataset.enforcement.items()))
    commands = {
        "person-search": ("licensee", "person-search", surname, "--json"),
        "company": ("licensee", "company", company, "--json"),
        "cases": ("licensee", "cases", uid, "--json"),
        "alerts": ("licensee", "alerts", "--json"),
    }
    if simulator.app.layout == "legacy":
        for args in commands.values():
            code, out, err = cli(*args)
            assert code == 2 and out == "" and "current service" in err and err.count("\n") == 1
        return
    code, out, _ = cli(*commands["person-search"])
    assert code == 0 and person["unique_id"] in {p["unique_id"] for p in json.loads(out)}
    code, out, _ = cli(*commands["company"])
    data = json.loads(out)
    assert code == 0 and list(data) == ["unique_id", "licences", "personnel", "business"]
    assert data["unique_id"] == company and data["licences"] and all(r["lic_name_en"] for r in data["licences"])
    code, out, _ = cli(*commands["cases"])
    cases = json.loads(out)
    assert code == 0 and case in {c["case_id"] for c in cases}
    assert all(c["enforcement_type_label_en"] for c in cases)
    code, out, _ = cli(*commands["alerts"])
    assert code == 0 and {a["case_id"] for a in json.loads(out)} == set(dataset.alerts)
    code, out, err = cli("licensee", "company", "C9999999999", "--json")
    assert code == 0 and "no data" in err


DOCTOR_KEYS = ["base_url", "layout", "fund_key", "licence_key", "latency_ms"]


@pytest.mark.parametrize("layout", ["successor", "legacy"])
def test_doctor_reports_layout_keys_and_round_trip(simulator, layout, tmp_path, monkeypatch, capsys):
    simulator.app.layout = layout
    env = {"SEC_API_BASE_URL": simulator.base_url, "SEC_API_KEY": KEY, "SEC_DASHBOARD_CACHE_DIR": str(tmp_path)}
    result = run("doctor", "--json", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert list(report) == DOCTOR_KEYS
    assert report["layout"] == layout and report["fund_key"] == report["licence_key"] == "ok"
    assert report["base_url"] == simulator.base_url and report["latency_ms"] >= 0
    assert KEY not in result.stdout + result.stderr
    # the readable report from the same main() in this process (a fresh process costs seconds)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    code = main(["doctor"])
    readable = capsys.readouterr().out
    assert code == 0 and "layout" in readable and KEY not in readable


def test_doctor_exit_codes_for_missing_and_rejected_keys_and_no_service(simulator, tmp_path, monkeypatch, capsys):
    simulator.app.layout = "successor"
    base = {"SEC_API_BASE_URL": simulator.base_url, "SEC_DASHBOARD_CACHE_DIR": str(tmp_path)}
    # a fresh process where the key must stay out of everything printed, log lines included
    rejected = run("doctor", "--json", env=dict(base, SEC_API_KEY="0" * 32))
    report = json.loads(rejected.stdout)
    assert rejected.returncode == 3 and report["fund_key"] == report["licence_key"] == "rejected"
    assert report["layout"] == "successor" and "0" * 32 not in rejected.stdout + rejected.stderr
    # the other exit codes from the same main() in this process (a fresh process each costs seconds)
    for name, value in base.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SEC_FUND_API_KEY", KEY)
    capsys.readouterr()
    code = main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 3 and report["fund_key"] == "ok" and report["licence_key"] == "missing"
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.delenv("SEC_FUND_API_KEY")
    monkeypatch.setenv("SEC_API_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("SEC_API_KEY", KEY)
    code = main(["doctor", "--json"])  # a traceback would fail the test here
    assert code == 4 and json.loads(capsys.readouterr().out)["layout"] is None


def test_demo_server_plays_the_current_service(tmp_path, monkeypatch, capsys):
    import socket
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    env.update(PYTHONPATH=str(ROOT), SEC_API_KEY=KEY)
    proc = subprocess.Popen([sys.executable, "-m", "dashboard", "demo-server", "--port", str(port), "--layout", "successor"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        base = f"http://127.0.0.1:{port}"
        headers = {"Ocp-Apim-Subscription-Key": KEY}
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = httpx.get(f"{base}/v2/fund/general-info/amcs", headers=headers)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()["items"]
        assert httpx.get(f"{base}/LicenseCheck/licensee/company", headers=headers).status_code == 404
        monkeypatch.setenv("SEC_API_KEY", KEY)  # the command line in this process: the server is the fresh one
        monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))
        capsys.readouterr()
        assert main(["--base-url", base, "fund", "search", "Demo", "--json"]) == 0
        assert len(json.loads(capsys.readouterr().out)) >= 60
    finally:
        proc.terminate()
        proc.communicate(timeout=20)


@pytest.mark.parametrize("port", ["99999", "0", "-1", "http", "1" * 40])
@pytest.mark.parametrize("command", [["serve", "--num-procs", "2"], ["demo-server"]])
def test_a_port_out_of_range_is_refused_before_anything_starts(command, port, capsys):
    with pytest.raises(SystemExit) as done:
        main([*command, f"--port={port}"])
    assert done.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "is not a port: use a whole number from 1 to 65535" in error and len(error) < 200


def test_doctor_in_demo_mode_says_no_key_is_needed(tmp_path, monkeypatch, capsys):
    result = run("--demo", "doctor", env={"SEC_DASHBOARD_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert "fund key     not needed: this is the demo" in result.stdout
    assert "key     ok" not in result.stdout
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))  # --json through the same main() in process
    capsys.readouterr()
    assert main(["--demo", "doctor", "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert as_json["fund_key"] == as_json["licence_key"] == "demo"


def test_doctor_says_a_set_key_was_rejected_without_internal_codes(simulator, tmp_path):
    simulator.app.layout = "successor"
    env = {"SEC_API_BASE_URL": simulator.base_url, "SEC_DASHBOARD_CACHE_DIR": str(tmp_path), "SEC_API_KEY": "0" * 32}
    result = run("doctor", env=env)
    assert result.returncode == 3
    assert "rejected" in result.stderr and "set SEC_API_KEY" not in result.stderr
    import re as _re
    assert not _re.search(r"\b[ES]\d{1,2}\b", result.stdout + result.stderr), result.stderr


def test_error_messages_leave_out_the_endpoint_codes():
    from dashboard.api.doctor import without_endpoint_code

    assert without_endpoint_code("S7 GET /v2/fund/general-info/amcs: the service failed") == \
        "GET /v2/fund/general-info/amcs: the service failed"
    assert without_endpoint_code("note: E15 POST /v1/x: no") == "note: POST /v1/x: no"
    assert without_endpoint_code("E15 to E20 here") == "E15 to E20 here"  # only a code in front of a request
    assert without_endpoint_code("E4 fund policy: malformed") == "fund policy: malformed"


def _flagged_person(dataset):
    """A demo person the compliance rule flags on the pinned day (a duty held after its approval expired)."""
    from dashboard.models.licensee import duties_past_approval
    from dashboard.records import records_frame
    from tests.conftest import TODAY

    for pid, approvals in sorted(dataset.approvals.items()):
        flagged = duties_past_approval(records_frame("approval", approvals),
                                       records_frame("duty", dataset.duties.get(pid) or []), TODAY)
        if not flagged.empty:
            return pid, flagged.iloc[0]
    raise AssertionError("the demo data set has no such person")


def test_licensee_person_flags_a_duty_past_its_approval(cli, dataset):
    pid, row = _flagged_person(dataset)
    code, stdout, _ = cli("licensee", "person", pid)
    assert code == 0
    assert f"but the approval for it expired on {row['approval_expired']}" in stdout and "warning:" in stdout
    code, stdout, _ = cli("licensee", "person", pid, "--json")
    assert any(row["approval_expired"] in w for w in json.loads(stdout)["warnings"])


def test_readable_tables_show_names_and_titles_not_field_names(simulator, dataset, tmp_path, monkeypatch, capsys):
    cli = in_process_cli(simulator, "successor", tmp_path / "cache", monkeypatch, capsys)
    code, stdout, _ = cli("fund", "search", "Mekong")
    assert code == 0
    header = stdout.splitlines()[0]
    assert "proj_abbr_name" not in header and "unique_id" not in header and "Company" in header
    assert "Demo Mekong Asset Management Co., Ltd." in stdout
    # a person's duty at an asset management company names the company (the current service lists them)
    pid = next(p for p, duties in sorted(dataset.duties.items())
               if any(d["company_unique_id"] in {a["unique_id"] for a in dataset.amcs} for d in duties))
    code, stdout, _ = cli("licensee", "person", pid)
    assert "lic_code" not in stdout and "company_unique_id" not in stdout
    assert "Asset Management Co., Ltd. (C0" in stdout


def test_readable_enforcement_wraps_long_texts_whole_or_keeps_them_on_one_line_with_wide(cli, dataset, monkeypatch):
    monkeypatch.setenv("COLUMNS", "70")
    (uid, case_id), record = next(iter(dataset.enforcement.items()))
    code, stdout, _ = cli("licensee", "enforcement", uid, case_id)
    assert code == 0 and "…" not in stdout
    assert "enforcement_relevant_section_law" not in stdout and "Law broken" in stdout
    facts = " ".join(record["enforcement_summarized_facts"].split())
    # the wrapped lines, joined again, give the whole text: no word is cut
    assert facts in " ".join(" ".join(stdout.split()).split())
    assert max(len(line) for line in stdout.splitlines()) <= 70 + 10  # Thai marks take no column; a long word may pass
    code, wide, _ = cli("licensee", "enforcement", uid, case_id, "--wide")
    assert any(facts in " ".join(line.split()) for line in wide.splitlines())


def test_readable_fund_show_has_the_investment_policy(simulator, dataset, tmp_path, monkeypatch, capsys):
    cli = in_process_cli(simulator, "successor", tmp_path / "cache", monkeypatch, capsys)  # the legacy layout has none
    fund = next(f for f in dataset.funds if f.get("proj_abbr_name") == "DMK-EQ")
    code, stdout, _ = cli("fund", "show", fund["proj_id"])
    assert code == 0
    assert "Investment policy" in stdout and "Management style" in stdout and "Policy" in stdout


def test_fund_show_gives_english_beside_thai_and_keeps_the_waived_fee_remark(cli, dataset):
    proj_id = next(p for p, rows in sorted(dataset.fees.items())
                   if any(r.get("fee_other_desc") == "ปัจจุบันยกเว้นการเรียกเก็บ" for r in rows) and dataset.allocation.get(p))
    code, stdout, _ = cli("fund", "show", proj_id)
    assert code == 0
    assert "currently waived · ปัจจุบันยกเว้นการเรียกเก็บ" in stdout
    allocation = stdout.split("\nALLOCATION\n", 1)[1].split("\n\n", 1)[0]
    import re as _re
    assert all(_re.search(r"[a-z]{3}", line) for line in allocation.splitlines()[1:]), allocation  # English beside the Thai
    risk = next(line for line in stdout.splitlines() if line.strip().startswith("About the risk"))
    assert " of 8, " in risk
    assert "HOLDINGS 20" not in stdout  # a quarter reads as "Q3 2026", not 202609


def test_help_and_cache_info_speak_words_not_codes(tmp_path, monkeypatch, capsys):
    import re as _re

    result = run("--help")  # the real entry point once; the subcommands' help through the same parser
    assert result.returncode == 0
    assert not _re.search(r"\(E\d+", result.stdout), result.stdout
    for args in (["fund", "--help"], ["licensee", "--help"], ["market", "screen", "--help"]):
        with pytest.raises(SystemExit) as done:
            main(args)
        assert done.value.code == 0
        text = capsys.readouterr().out
        assert not _re.search(r"\(E\d+", text), text
    assert "general investors" in text and "8+" in text  # the screen's help
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))
    assert main(["--demo", "cache", "info"]) == 0
    info = capsys.readouterr().out
    assert "size_bytes" not in info and "Size" in info


def test_csv_bytes_of_a_fund_search_and_a_screen(simulator, tmp_path, monkeypatch, capsys):
    import csv
    import io

    env = {"SEC_DASHBOARD_CACHE_DIR": str(tmp_path)}
    # the bytes a user's terminal or file gets: the real entry point in a fresh process
    result = subprocess.run([sys.executable, "-m", "dashboard", "--demo", "licensee", "search", "Mekong", "--csv"],
                            capture_output=True, env={**{k: v for k, v in os.environ.items() if not k.startswith("SEC_")},
                                                      **env, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(result.stdout.decode("utf-8-sig"))))
    assert rows[0] == ["Identifier", "Name", "Name (Thai)"]
    assert any("แม่โขง" in cell for cell in rows[1])
    # the rest in this process (a fresh process each costs seconds): the same main() and exit codes
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))
    capsys.readouterr()
    assert main(["--demo", "fund", "search", "Mekong", "--csv"]) == 0
    header, first = list(csv.reader(io.StringIO(capsys.readouterr().out.lstrip("\ufeff"))))[:2]
    assert "proj_abbr_name" not in header and "Company" in header
    assert first[header.index("Status")].endswith(")") and "(" in first[header.index("Status")]  # "registered (RG)"
    assert main(["--demo", "fund", "search", "Mekong", "--csv", "--json"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["--demo", "licensee", "person", "P0000010016", "--csv"]) == 2
    assert "use --json" in capsys.readouterr().err


def test_licensee_company_is_titled_by_name_and_says_licensed_in_english(simulator, dataset, tmp_path, monkeypatch, capsys):
    cli = in_process_cli(simulator, "successor", tmp_path / "cache", monkeypatch, capsys)
    amc = dataset.amcs[0]
    code, stdout, _ = cli("licensee", "company", amc["unique_id"])
    assert code == 0
    assert f"{amc['name_en']} ({amc['unique_id']}): licences and registrations" in stdout
    assert "licensed (ใบอนุญาต)" in stdout or "registered (จดทะเบียน)" in stdout
    assert "apply_type" not in stdout and "lic_code" not in stdout
    # a company that is not an asset manager: named from the service's company list (it was "company C0000000216")
    amcs = {a["unique_id"] for a in dataset.amcs}
    other = next(d["company_unique_id"] for _, duties in sorted(dataset.duties.items()) for d in duties
                 if d["company_unique_id"] not in amcs)
    name = next(r["name_en"] for r in dataset.licensees if r["unique_id"] == other)
    code, stdout, _ = cli("licensee", "company", other)
    assert code == 0 and f"{name} ({other}): licences and registrations" in stdout and f"company {other}" not in stdout


def test_readable_enforcement_names_the_kind_of_action_from_the_case_list(cli, dataset, simulator):
    """`licensee enforcement` says what kind of action the case is (the case list names it on the current service)
    and how its date and details read, as the Licensee tab and the licence report do (issue 30)."""
    from dashboard.demo.pools import ENFORCEMENT_TYPE_TH

    (uid, case_id), _ = next(iter(dataset.enforcement.items()))
    code, stdout, _ = cli("licensee", "enforcement", uid, case_id)
    assert code == 0
    if simulator.app.layout == "legacy":  # no case list there: the kind is not known, and nothing is made up
        assert "Kind of action" not in stdout
        return
    kind_line = next(line for line in stdout.splitlines() if line.startswith("Kind of action"))
    assert ENFORCEMENT_TYPE_TH[dataset.enforcement_types[(uid, case_id)]] in kind_line
    assert "How to read it" in stdout and "the date is the" in " ".join(stdout.split())
    code, as_json, _ = cli("licensee", "enforcement", uid, case_id, "--json")
    assert code == 0 and "enforcement_type" not in json.loads(as_json)  # the service's record as sent


def test_people_on_duty_are_titled_as_ids(simulator, dataset, tmp_path, monkeypatch, capsys):
    """The service names no person by id: `licensee company` titles the column so, its CSV too (issue 30)."""
    cli = in_process_cli(simulator, "successor", tmp_path / "cache", monkeypatch, capsys)
    code, stdout, _ = cli("licensee", "company", dataset.amcs[0]["unique_id"])
    assert code == 0 and "Licensed person (id)" in stdout


def test_licensee_person_names_companies_that_are_not_asset_managers(cli, dataset):
    """A duty at a securities company (no asset manager) showed its bare identifier (C0000000216): the service's
    company list (E16, read once) names it, on either layout."""
    amcs = {a["unique_id"] for a in dataset.amcs}
    pid, company = next((p, d["company_unique_id"]) for p, duties in sorted(dataset.duties.items()) for d in duties
                        if d["company_unique_id"] not in amcs)
    name = next(r["name_en"] for r in dataset.licensees if r["unique_id"] == company)
    code, stdout, _ = cli("licensee", "person", pid)
    assert code == 0
    assert f"{name} ({company})" in stdout
    assert all(f"{company}" not in line or name in line for line in stdout.splitlines())  # never the id alone


def test_a_late_quarter_falls_back_to_the_one_before_with_a_note_in_every_output(cli, simulator, monkeypatch, tmp_path):
    """On the day the rules make a quarter due, a fund whose company has not filed it printed "no holdings ... in
    202609" and an empty list (issue 39). `fund holdings`, `fund show` and the report show the quarter before and
    say why; the Holdings tab's model carries the same note."""
    from dashboard.api.periods import quarter_name, valid_periods

    layout = simulator.app.layout
    due, before = valid_periods(layout=layout)[:2]  # the command line judges periods by the real date
    dataset = simulator.app.dataset
    proj_id = next(pid for pid, quarters in dataset.holdings.items() if quarters.get(due) and quarters.get(before))
    monkeypatch.setitem(dataset.holdings, proj_id, {p: rows for p, rows in dataset.holdings[proj_id].items() if p != due})
    note = f"{quarter_name(due)} is not published for this fund yet"
    code, out, err = cli("fund", "holdings", proj_id, "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(dataset.holdings[proj_id][before])
    assert note in err and f"showing {quarter_name(before)}" in err and "no data" not in err
    code, out, err = cli("fund", "holdings", proj_id)
    assert code == 0 and note in err and f"{proj_id} holdings for {quarter_name(before)}" in err
    code, out, err = cli("fund", "show", proj_id)
    assert code == 0 and f"HOLDINGS {quarter_name(before).upper()}, TOP 10" in out and note in out
    code, out, err = cli("fund", "show", proj_id, "--json")
    assert code == 0 and due not in json.loads(out)["holdings"] and note in err
    report = tmp_path / "fund.html"
    code, _, err = cli("report", "fund", proj_id, "-o", str(report))
    assert code == 0, err
    assert note in report.read_text(encoding="utf-8")
    # asked for by name, the late quarter is what was asked for: no fallback, "no data"
    code, out, err = cli("fund", "holdings", proj_id, "--period", due, "--json")
    assert code == 0 and json.loads(out) == [] and "no data" in err



def test_the_command_line_does_not_import_panel_or_holoviews():
    """A command that draws nothing starts without the plotting stack (2-3 s of CPU a command when
    `plan dca`'s charts module was imported with the parser)."""
    code = "import sys, dashboard.cli.main; print(sorted({'panel', 'holoviews', 'bokeh'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.stdout.strip() == "[]"

"""What the command line prints and writes: terminal-safe service text, readable factsheets and
holdings, hints for names typed as ids, report output paths, unusable cache directories, --version."""

from __future__ import annotations

import copy
import json
import logging
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dashboard.cli.main import main
from dashboard.cli.terminal import baht, percent, terminal_text
from dashboard.demo.loopback import SimulatorServer
from dashboard.demo.simulator import create_app
from tests.cli.test_cli import ROOT, in_process_cli, run
from tests.conftest import KEY

# Characters a terminal acts on: C0 but tab and newline, DEL, C1, bidi overrides and isolates.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b]52;c;ZWNobyBvd25lZA==\x07\x9b31m\u202etxt.exe\u2066"
HOSTILE_PROJ_ID = "M9997_2569"
HUGE = 1_000_000


def _errors_are_one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture(params=["legacy", "successor"])
def cli(request, simulator, tmp_path, monkeypatch, capsys):
    """The command line in-process against the loopback simulator playing one layout; (code, stdout, stderr)."""
    simulator.app.layout = request.param
    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_API_BASE_URL", simulator.base_url)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cli-cache"))

    def invoke(*args: str):
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    return invoke


# ---- --version ----------------------------------------------------------------------------------------


def test_version_is_the_package_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"sec-dashboard {version}"


# ---- terminal safety and long cells -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_server():
    """A service whose fund names, holdings and fee texts carry escape sequences, and one 1 MB name."""
    from dashboard.demo.generator import generate_demo_dataset
    from tests.conftest import TODAY
    from tests.reports.helpers import full_funds

    ds = copy.deepcopy(generate_demo_dataset(today=TODAY))
    src = full_funds(ds)[0]["proj_id"]
    record = dict(ds.fund(src), proj_id=HOSTILE_PROJ_ID, proj_abbr_name="EVILFUND",
                  proj_name_en="Evil " + ESCAPES + "x" * HUGE, proj_name_th="ร้าย" + ESCAPES)
    holdings = {p: [dict(r) for r in rows] for p, rows in ds.holdings[src].items()}
    for rows in holdings.values():
        rows[1]["issuer"] = "Issuer " + ESCAPES
    fees = [dict(r) for r in ds.fees[src]]
    fees[0]["fee_type_desc"] = "Fee " + ESCAPES
    ds.add_fund(record, holdings=holdings, fees=fees, allocation=ds.allocation[src], performance=ds.performance[src],
                suitability=ds.suitability[src], classes=ds.classes.get(src) or [])
    with SimulatorServer(create_app(ds, valid_keys={KEY}, today=TODAY)) as server:
        yield server


@pytest.fixture(params=["legacy", "successor"])
def hostile_cli(request, hostile_server, tmp_path, monkeypatch, capsys):
    return in_process_cli(hostile_server, request.param, tmp_path / "cache", monkeypatch, capsys)


def test_readable_output_strips_escapes_and_cuts_long_cells(hostile_cli):
    code, out, err = hostile_cli("fund", "search", "EVILFUND")
    assert code == 0 and "EVILFUND" in out
    assert not UNSAFE.search(out + err), "a control character reached the terminal"
    assert len(out) < 5_000, "a 1 MB name was printed whole"
    assert "Evil owned" not in out and "Evil txt.exe" in out and "…" in out  # the sequences went, the text stayed


def test_json_output_keeps_the_whole_text_as_exact_json(hostile_cli):
    code, out, _ = hostile_cli("fund", "search", "EVILFUND", "--json")
    rows = json.loads(out)
    name = next(r["proj_name_en"] for r in rows if r["proj_id"] == HOSTILE_PROJ_ID)
    assert code == 0 and name == "Evil " + ESCAPES + "x" * HUGE
    assert not UNSAFE.search(out), "JSON text carried a raw control character; it must be a \\u escape"


def test_factsheet_and_holdings_are_terminal_safe(hostile_cli):
    for args in (("fund", "show", HOSTILE_PROJ_ID), ("fund", "holdings", HOSTILE_PROJ_ID, "--period", "202606")):
        code, out, err = hostile_cli(*args)
        assert code == 0 and not UNSAFE.search(out + err), args
        assert max(len(line) for line in out.splitlines()) < 600, args
    assert "Issuer" in out


@pytest.mark.parametrize("text, shown", [
    ("a\x1b[31mred\x1b[0m", "ared"),
    ("title\x1b]0;owned\x07!", "title!"),
    ("clip\x1b]52;c;ZGF0YQ==\x1b\\!", "clip!"),
    ("c1\x9b2Jx\x85", "c1x"),
    ("bidi\u202egnp.exe\u2069", "bidignp.exe"),
    ("bell\x07nul\x00del\x7f", "bellnuldel"),
    ("tab\tand\nnewline", "tab\tand\nnewline"),
    ("ไทย ok", "ไทย ok"),
])
def test_terminal_text(text, shown):
    assert terminal_text(text) == shown


def test_error_lines_are_single_safe_lines(capsys):
    from dashboard.cli.terminal import err

    err("service said:\x1b]0;owned\x07 line one\nline two\u202e")
    assert capsys.readouterr().err == "service said: line one line two\n"


def test_log_lines_are_terminal_safe():
    """-v output and library warnings carry service text (a URL, an answer): the log formatter filters it."""
    script = ("import logging, sys\n"
              "from dashboard.cli.terminal import TerminalFormatter\n"
              "h = logging.StreamHandler(sys.stderr); h.setFormatter(TerminalFormatter('%(message)s'))\n"
              "logging.getLogger('t').addHandler(h)\n"
              "logging.getLogger('t').warning('answer %s', '\\x1b[2J\\u202eowned\\nnext')\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.stderr == "answer owned next\n"


def test_a_log_line_keeps_its_exceptions_cause_after_a_long_message():
    """Bokeh logs "error handling message" with the whole message it failed on, then the error: one log line
    cut to its width lost the cause (a reloading page's disconnect could not be told from a real fault)."""
    from dashboard.cli.terminal import MESSAGE_WIDTH, TerminalFormatter

    def fail():
        # as a bare `assert` raises outside pytest's rewritten modules: no message
        raise AssertionError

    try:
        fail()
    except AssertionError:
        exc_info = sys.exc_info()
    record = logging.LogRecord("bokeh.server.protocol_handler", logging.ERROR, __file__, 1,
                               "error handling message\n message: %r \n error: %r", ("x" * 5000, exc_info[1]), exc_info)
    line = TerminalFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert "\n" not in line and len(line) <= MESSAGE_WIDTH
    assert line.startswith("ERROR bokeh.server.protocol_handler: error handling message")
    assert line.endswith("| AssertionError at `raise AssertionError`"), line[-160:]
    try:
        raise ValueError("the \x1b[2Jcause")
    except ValueError:
        record.exc_info = sys.exc_info()
    assert TerminalFormatter("%(message)s").format(record).endswith("| ValueError: the cause")


# ---- readable factsheet and holdings ------------------------------------------------------------------------


def test_fund_show_prints_readable_sections(cli, dataset, simulator):
    from dashboard.api.periods import valid_periods
    from tests.reports.helpers import full_funds

    fund = full_funds(dataset)[0]
    code, out, err = cli("fund", "show", fund["proj_id"])
    assert code == 0, err
    for heading in ("FUND", "REGISTRATION", "RISK AND SUITABILITY", "FEES BY CLASS", "ALLOCATION", "HOLDINGS",
                    "PERFORMANCE (%)", "REDEMPTION", "INVESTMENT MINIMUMS", "REPORTS"):
        assert f"\n{heading}" in out, heading
    assert " rows" not in out  # counts were all it printed before
    assert fund["proj_name_en"] in out and "registered (RG)" in out
    # the newest quarter this layout offers (the current service publishes 15 days sooner than the legacy one)
    offered = valid_periods(layout=simulator.app.layout)
    latest = max(p for p in dataset.holdings[fund["proj_id"]] if p in offered)
    top = max((r for r in dataset.holdings[fund["proj_id"]][latest]
               if r.get("percent_nav") is not None), key=lambda r: float(r["percent_nav"]))
    redemption = dataset.redemption[fund["proj_id"]]
    if simulator.app.layout == "successor":
        company = next(a["name_en"] for a in dataset.amcs if a["unique_id"] == fund["unique_id"])
        assert company in out
        assert re.search(r"Buying cut-off\s+not published by the current service", out)
        assert re.search(r"Annual report\s+not published by the current service", out)
    else:
        assert "not published" not in out
        assert re.search(rf"Buying cut-off\s+{re.escape(redemption['buying_cut_off_time'])}", out)
    assert baht(float(top["assetliab_value"])) in out or percent(float(top["percent_nav"])) in out
    assert "websitehttp" not in out  # the longest label ran into its value


def test_a_label_longer_than_its_column_stays_apart_from_its_value(capsys):
    from dashboard.cli.factsheet import LABEL_WIDTH, _line

    _line("On the company's website", "https://example.invalid/a.pdf")
    _line("x" * (LABEL_WIDTH + 5), "value")
    _line("Short", "value")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "  On the company's website  https://example.invalid/a.pdf"
    assert lines[1].endswith("x  value") and lines[2].startswith("  Short ") and lines[2].endswith(" value")


def test_holdings_are_plain_numbers(cli, dataset):
    from dashboard.api.periods import valid_periods

    both = [p for p in valid_periods() if p in valid_periods(layout="successor")]  # offered on either layout
    proj_id, by_period = next((p, h) for p, h in dataset.holdings.items() if any(v in h for v in both))
    period = next(p for p in reversed(both) if p in by_period)
    code, out, _ = cli("fund", "holdings", proj_id, "--period", period)
    assert code == 0
    assert not re.search(r"\b(NaN|nan)\b", out) and not re.search(r"\de[+-]\d", out)
    for row in by_period[period]:
        assert baht(float(row["assetliab_value"])) in out
        shown = percent(float(row["percent_nav"]))
        assert shown in out and 2 <= len(shown.split(".")[1]) <= 5
    assert re.search(r"\d{1,3}(,\d{3})+\.\d{2}", out), "amounts have thousands separators"


# ---- names typed where an id is expected --------------------------------------------------------------------


@pytest.mark.parametrize("args, hint", [
    (("licensee", "person", "Somchai"), "licensee person-search"),
    (("licensee", "cases", "somchai jaidee"), "licensee person-search"),
    (("fund", "amc", "mekong"), "licensee search"),
    (("licensee", "company", "Mekong Asset"), "licensee search"),
])
def test_a_name_where_an_id_belongs_gets_a_hint_and_sends_nothing(cli, simulator, args, hint):
    simulator.app.reset_counters()
    code, out, err = cli(*args)
    assert code == 2 and out == "" and _errors_are_one_line(err)
    assert hint in err and "C0000000021" in err
    assert simulator.app.request_count == 0


def test_a_lower_case_id_is_read_in_upper_case_like_a_fund_id(cli, dataset):
    # Ids are upper case by their form, so a lower-case one means the same person, company and fund.
    person = next(p for p in dataset.approvals if dataset.approvals[p])
    assert cli("licensee", "person", person.lower(), "--json") == cli("licensee", "person", person, "--json")
    code, out, _ = cli("licensee", "person", person.lower())
    assert code == 0 and "approvals" in out
    fund = dataset.funds[0]["proj_id"]
    lower, upper = cli("fund", "show", fund.lower(), "--json"), cli("fund", "show", fund, "--json")
    assert lower == upper and lower[0] == 0


# ---- report output paths ------------------------------------------------------------------------------------


def _report(*output: str) -> list[str]:
    return ["--demo", "--no-cache", "report", "licensee", "C0000000101", "-o", *output]


def _may_drop_root_override() -> list[str]:
    """A prefix that runs a command without root's permission override, so mode bits count for it too."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: permission bits cannot be tested")
    return ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]


def _run_unprivileged(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    full_env.update(env or {}, PYTHONPATH=str(ROOT))
    return subprocess.run([*_may_drop_root_override(), sys.executable, "-m", "dashboard", *args], capture_output=True,
                          text=True, env=full_env, timeout=120, cwd=ROOT)


def test_report_into_a_missing_directory_creates_nothing(tmp_path, capsys):
    for target in (tmp_path / "missing" / "deeper" / "r.html", Path("/nonexistent-sec-dashboard/dir/r.html")):
        assert not target.parent.parent.exists()
        code = main(_report(str(target)))
        err = capsys.readouterr().err
        assert code == 2 and _errors_are_one_line(err) and "does not exist" in err
        assert not target.parent.parent.exists(), "the missing directory was created"


@pytest.mark.parametrize("where", ["under_a_file", "proc", "directory", "fifo"])
def test_report_to_an_unusable_path_is_one_line(tmp_path, capsys, where):
    (tmp_path / "file").write_text("mine")
    os.mkfifo(tmp_path / "fifo")
    target = {"under_a_file": tmp_path / "file" / "r.html", "proc": Path("/proc/r.html"),
              "directory": tmp_path, "fifo": tmp_path / "fifo"}[where]
    code = main(_report(str(target)))
    err = capsys.readouterr().err
    assert code == 2 and _errors_are_one_line(err)
    assert (tmp_path / "file").read_text() == "mine" and stat.S_ISFIFO((tmp_path / "fifo").stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "file"]


@pytest.mark.parametrize("mode", [0o000, 0o555, 0o644], ids=["no-access", "read-only", "no-x-bit"])
def test_report_into_a_directory_without_permission_is_one_line(tmp_path, mode):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(mode)
    try:
        result = _run_unprivileged(*_report(str(locked / "r.html")))
    finally:
        locked.chmod(0o755)
    assert result.returncode == 2 and _errors_are_one_line(result.stderr), result.stderr
    assert list(locked.iterdir()) == []


def test_report_replaces_the_named_file_whole_or_not_at_all(tmp_path, capsys, monkeypatch, simulator):
    target = tmp_path / "r.html"
    target.write_text("the previous report")
    assert main(_report(str(target))) == 0
    written = target.read_text()
    assert written.startswith("<!DOCTYPE html>") and "C0000000101" in written
    # a failure while the report is built leaves the old file as it was and no temporary file behind
    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cache"))
    simulator.app.inject("503", times=1000)
    code = main(["--base-url", simulator.base_url, "--no-cache", "report", "licensee", "C0000000101", "-o", str(target)])
    capsys.readouterr()
    assert code == 4 and target.read_text() == written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


# ---- unusable cache directories ------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["a_file", "under_a_file", "proc"])
@pytest.mark.parametrize("action", ["info", "clear"])
def test_cache_commands_with_an_unusable_directory_are_one_line(tmp_path, capsys, where, action):
    (tmp_path / "file").write_text("mine")
    directory = {"a_file": tmp_path / "file", "under_a_file": tmp_path / "file" / "cache",
                 "proc": Path("/proc/sec-dashboard-cache")}[where]
    code = main(["--cache-dir", str(directory), "cache", action])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and _errors_are_one_line(err) and "cache directory" in err
    assert (tmp_path / "file").read_text() == "mine"


@pytest.mark.parametrize("mode", [0o000, 0o300], ids=["no-access", "unreadable"])
def test_cache_commands_with_a_locked_directory_leave_it_alone(tmp_path, mode):
    locked = tmp_path / "cache"
    locked.mkdir()
    (locked / "my-notes.txt").write_text("mine")
    locked.chmod(mode)
    try:
        results = [_run_unprivileged("--cache-dir", str(locked), "cache", action) for action in ("info", "clear")]
    finally:
        locked.chmod(0o755)
    for result in results:
        assert result.returncode == 2 and _errors_are_one_line(result.stderr), result.stderr
    assert sorted(p.name for p in locked.iterdir()) == ["my-notes.txt"]
    assert stat.S_IMODE(locked.stat().st_mode) == 0o755

"""A served process nobody is using starts afresh when its allocator holds a crowd's leftover memory
(`dashboard.renewal`): the rule, the sockets it hands on, the parent of `--num-procs` processes, and
real served processes renewing while the port keeps answering."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from dashboard import renewal
from dashboard.cli.main import main
from dashboard.cli.serving import find_jemalloc
from dashboard.renewal import RenewalPolicy, Watch, inherited_sockets
from dashboard.spare_sessions import SPARE_PREFIX
from tests.browser.dashboard_server import DashboardProcess
from tests.scaleout.test_memory import process_environment

MB = 2**20
ROOT = Path(__file__).resolve().parents[2]


# ---- the policy, from the environment ----------------------------------------------------------

def test_the_policy_reads_the_environment_and_names_a_bad_variable():
    assert RenewalPolicy.from_env({}) == RenewalPolicy(slack_mb=16.0, quiet_s=120.0)
    assert RenewalPolicy.from_env({}).on
    for off in ("off", "0", "No", " false "):
        assert not RenewalPolicy.from_env({"SEC_DASHBOARD_RENEW": off}).on
    policy = RenewalPolicy.from_env({"SEC_DASHBOARD_RENEW_SLACK_MB": "32", "SEC_DASHBOARD_RENEW_QUIET_S": "600"})
    assert (policy.slack_mb, policy.quiet_s) == (32.0, 600.0)
    for name, value in [("SEC_DASHBOARD_RENEW_SLACK_MB", "lots"), ("SEC_DASHBOARD_RENEW_SLACK_MB", "-1"),
                        ("SEC_DASHBOARD_RENEW_SLACK_MB", "nan"), ("SEC_DASHBOARD_RENEW_QUIET_S", "2"),
                        ("SEC_DASHBOARD_RENEW_QUIET_S", "1e9")]:
        with pytest.raises(ValueError, match=name):
            RenewalPolicy.from_env({name: value})


def test_serve_refuses_a_bad_renewal_setting_before_starting(monkeypatch, capsys):
    monkeypatch.setenv("SEC_DASHBOARD_RENEW_QUIET_S", "soon\x1b[31m")
    assert main(["--demo", "serve", "--port", "5999"]) == 2
    err = capsys.readouterr().err
    assert "SEC_DASHBOARD_RENEW_QUIET_S" in err and "\x1b" not in err and "Traceback" not in err


# ---- the rule ----------------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Session:
    def __init__(self, id_: str):
        self.id = id_


class Server:
    """What a Bokeh server context offers the watch: its sessions."""

    def __init__(self):
        self.sessions: list[Session] = []


class Context:
    def __init__(self, server: Server):
        self.server_context = server


def watch_with(slack_mb=16.0, quiet_s=120.0):
    clock, heap, server = Clock(), {"resident": 200 * MB, "allocated": 190 * MB}, Server()
    watch = Watch(RenewalPolicy(slack_mb=slack_mb, quiet_s=quiet_s),
                  slack=lambda: (heap["resident"], heap["allocated"]), clock=clock, trim=lambda: None)
    watch.measure_start()
    return watch, clock, heap, server


def test_an_idle_process_is_due_only_when_its_slack_grew_past_the_limit_and_nobody_came_for_long():
    watch, clock, heap, server = watch_with()
    assert watch.start_slack == 10 * MB
    watch.saw(Context(server))
    server.sessions = [Session("visitor-1"), Session(f"{SPARE_PREFIX}abc")]
    heap["resident"] = 260 * MB  # a crowd's leftovers: 70 MB unused
    clock.now += 600
    assert watch.due() is None  # a visitor is there
    server.sessions = [Session(f"{SPARE_PREFIX}abc")]  # only the spare: nobody
    clock.now += 119
    assert watch.due() is None  # not quiet for long enough since the visitor was last seen
    clock.now += 1
    reason = watch.due()
    assert reason is not None and "60.0 MB more than when it started" in reason and "limit 16 MB" in reason
    heap["resident"] = 215 * MB  # 25 MB unused: only 15 more than at the start
    assert watch.due() is None


def test_a_session_seen_starts_the_quiet_period_again():
    watch, clock, heap, server = watch_with(quiet_s=30)
    heap["resident"] = 300 * MB
    clock.now += 29
    watch.saw(Context(server))  # a session made or ended
    clock.now += 29
    assert watch.due() is None
    clock.now += 1
    assert watch.due() is not None


def test_off_the_allocator_it_can_measure_a_process_is_never_due():
    clock = Clock()
    watch = Watch(RenewalPolicy(slack_mb=1, quiet_s=10), slack=lambda: None, clock=clock, trim=lambda: None)
    watch.measure_start()
    clock.now += 10_000
    assert watch.start_slack is None and watch.due() is None and watch.due() is None


def test_a_forked_process_measures_its_own_start_once_nothing_has_happened_in_it_for_a_while():
    watch, clock, heap, server = watch_with(quiet_s=30)
    watch.saw(Context(server))
    watch.start_slack = None  # what mark_forked does in the child
    server.sessions = [Session("visitor")]
    heap["resident"] = 230 * MB
    clock.now += 60
    assert watch.due() is None and watch.start_slack is None  # a visitor: not a start
    server.sessions = [Session(f"{SPARE_PREFIX}being-built")]
    watch.saw(Context(server))
    clock.now += 9
    assert watch.due() is None and watch.start_slack is None  # its spare was just made
    clock.now += 1
    assert watch.due() is None and watch.start_slack == 40 * MB
    clock.now += 60
    assert watch.due() is None  # 40 MB unused now, as at its start
    heap["resident"] = 260 * MB
    assert watch.due() is not None


# ---- the sockets handed on ---------------------------------------------------------------------

def test_a_renewed_process_takes_over_the_listening_socket_it_was_handed():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    fd = os.dup(listener.fileno())
    try:
        env = {renewal.LISTEN_FDS_ENV: str(fd)}
        (taken,) = inherited_sockets(port, env)
        assert renewal.LISTEN_FDS_ENV not in env  # nothing started from here takes it again
        assert taken.fileno() == fd and not os.get_inheritable(fd)
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            conn, _ = taken.accept()  # the connection reaches the socket taken over
            conn.close()
        taken.close()
    finally:
        listener.close()


def test_a_handed_on_descriptor_that_is_not_the_listening_socket_is_left_alone():
    listener = socket.create_server(("127.0.0.1", 0))
    other = socket.create_server(("127.0.0.1", 0))
    read_end, write_end = os.pipe()
    try:
        port = listener.getsockname()[1]
        for text in (str(other.fileno()), str(read_end), "seven", f"{listener.fileno()},99999"):
            assert inherited_sockets(port, {renewal.LISTEN_FDS_ENV: text}) == []
        # nothing it was handed was closed: they belong to whoever made them
        assert other.getsockname()[1] != port and os.fstat(read_end) and listener.fileno() >= 0
        os.write(write_end, b"x")
        assert os.read(read_end, 1) == b"x"
    finally:
        listener.close(), other.close(), os.close(read_end), os.close(write_end)


# ---- the parent of `--num-procs` processes -----------------------------------------------------

PARENT = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from dashboard.renewal import RENEW_EXIT, fork_processes
    marks = Path(sys.argv[1])
    task = fork_processes(2, max_restarts=int(sys.argv[3]))
    starts = len(list(marks.glob(f"{task}-*")))
    (marks / f"{task}-{starts}-{os.getpid()}").touch()
    if sys.argv[2] == "renew":
        os._exit(RENEW_EXIT if starts < 150 else 0)  # renewed 150 times each, then done
    os._exit(3)  # a crash, every time
""")


def test_the_parent_replaces_renewed_processes_without_limit_and_still_gives_up_on_crashes(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    renewed = tmp_path / "renew"
    renewed.mkdir()
    done = subprocess.run([sys.executable, "-c", PARENT, str(renewed), "renew", "3"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for task in (0, 1):  # each slot started 151 times: far past the 3 restarts a crash is allowed
        assert len(list(renewed.glob(f"{task}-*"))) == 151
    crashed = tmp_path / "crash"
    crashed.mkdir()
    done = subprocess.run([sys.executable, "-c", PARENT, str(crashed), "crash", "3"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Too many child restarts" in done.stderr
    assert len(list(crashed.iterdir())) == 2 + 3  # the first two and 3 restarts; the 4th crash gives up


# ---- real served processes ---------------------------------------------------------------------

class Liveness:
    """Asks the server's health check every 0.1 s from a thread, noting every failure."""

    def __init__(self, url: str):
        self.url, self.failures, self.answers = url + "liveness", [], 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            try:
                with urllib.request.urlopen(self.url, timeout=15) as answer:
                    assert answer.status == 200
                    self.answers += 1
            except Exception as exc:  # noqa: BLE001 - every failure is what the test reports
                self.failures.append(repr(exc))
            time.sleep(0.1)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=30)


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"not within {timeout:g} s: {what}")


RENEW_SOON = {"SEC_DASHBOARD_RENEW_SLACK_MB": "0.001", "SEC_DASHBOARD_RENEW_QUIET_S": "10"}

needs_jemalloc = pytest.mark.skipif(find_jemalloc() is None or not sys.platform.startswith("linux"),
                                    reason="renewal measures jemalloc's heap (the test command installs it)")


@needs_jemalloc
def test_a_served_process_renews_in_place_after_its_visitor_leaves_and_the_port_never_refuses(tmp_path):
    from tests.views.test_sessions import ServedSession

    log = tmp_path / "serve.log"
    with DashboardProcess(demo=True, env=RENEW_SOON, log_path=log) as server, Liveness(server.url) as liveness:
        pid = server.pid

        async def visit():
            session = await ServedSession.open(server.port, timeout=120)
            await session.first_load(timeout=120)
            assert any(session.labels)  # the page arrived with its results
            await session.close()

        asyncio.run(visit())
        wait_for(lambda: "starting afresh (renewal 1)" in log.read_text(), 120, "the process renewed")
        wait_for(lambda: process_environment(pid).get(renewal.RENEWALS_ENV, "0") != "0", 30, "the program started again")
        assert server.process.poll() is None and psutil.pid_exists(pid)  # the same process, in place
        asyncio.run(visit())  # the renewed process serves a visitor
        assert liveness.answers > 50
    assert liveness.failures == [], liveness.failures[:3]
    text = log.read_text()
    assert "nobody connected for" in text and "more than when it started" in text and "Traceback" not in text


@needs_jemalloc
def test_a_forked_process_that_renews_is_replaced_by_its_parent(tmp_path):
    log = tmp_path / "serve.log"
    with DashboardProcess(demo=True, env=RENEW_SOON, log_path=log, serve_args=("--num-procs", "2")) as server, \
            Liveness(server.url) as liveness:
        parent = psutil.Process(server.pid)
        first = {child.pid for child in parent.children()}
        assert len(first) == 2

        async def visits():  # an idle process whose heap does not change is not renewed, even on this limit
            from tests.views.test_sessions import ServedSession

            for _ in range(6):  # the kernel spreads them over the two processes
                session = await ServedSession.open(server.port, timeout=120)
                await session.first_load(timeout=120)
                await session.close()

        asyncio.run(visits())
        wait_for(lambda: "starting afresh" in log.read_text(), 120, "a process renewed")
        # Wait for the renewed one's replacement, not for both: one may have had no visitor.
        now = wait_for(lambda: (lambda pids: pids if len(pids) == 2 and pids != first else None)(
            {child.pid for child in parent.children() if child.status() != psutil.STATUS_ZOMBIE}), 60,
            "a fresh process in the renewed one's place, beside the other")
        assert parent.is_running() and len(now) == 2
    assert liveness.failures == [], liveness.failures[:3]
    assert "Too many child restarts" not in log.read_text() and "Traceback" not in log.read_text()


def test_a_renewed_program_does_not_open_another_browser_tab(monkeypatch):
    import dashboard.app

    seen = []
    # stands in for the web server only: what the command hands it is what is checked
    monkeypatch.setattr(dashboard.app, "serve", lambda **kwargs: seen.append(kwargs))
    monkeypatch.delenv(renewal.RENEWALS_ENV, raising=False)
    monkeypatch.delenv("SEC_DASHBOARD_NUM_PROCS", raising=False)  # the command sets it; put back after
    assert main(["--demo", "serve", "--port", "5999", "--show"]) == 0
    monkeypatch.setenv(renewal.RENEWALS_ENV, "3")
    assert main(["--demo", "serve", "--port", "5999", "--show"]) == 0
    assert [kwargs["show"] for kwargs in seen] == [True, False]
    assert seen[0]["renew"] is None  # called from Python, not its own command line: never renewed

"""`sec-dashboard serve --num-procs N`: the number reaches Panel and every process's settings, and
the processes end together."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import dashboard.server.serve
from dashboard.cli.main import build_parser, main
from dashboard.config import ApiSettings


def test_num_procs_reaches_the_server_and_the_environment(monkeypatch):
    seen = {}

    def record(**kwargs):  # stands in for the web server only; the command's own work runs for real
        seen.update(kwargs, env=os.environ.get("SEC_DASHBOARD_NUM_PROCS"))

    monkeypatch.setattr(dashboard.server.serve, "serve", record)
    monkeypatch.delenv("SEC_DASHBOARD_NUM_PROCS", raising=False)
    assert main(["serve", "--demo", "--num-procs", "3", "--port", "5999"]) == 0
    assert seen["num_procs"] == 3 and seen["env"] == "3" and seen["port"] == 5999
    assert seen["settings"].num_procs == 3
    monkeypatch.delenv("SEC_DASHBOARD_NUM_PROCS")


@pytest.mark.parametrize("value", ["0", "-2", "two", "5000"])
def test_a_bad_number_of_processes_is_a_one_line_usage_error(value, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["serve", "--num-procs", value])
    assert stop.value.code == 2
    assert "whole number from 1 to 1024" in capsys.readouterr().err


def test_settings_read_the_scale_out_variables_and_never_show_a_redis_password():
    settings = ApiSettings.from_env(environ={"SEC_DASHBOARD_REDIS_URL": "redis://:s3cret-pass@cache.internal:6380/2",
                                             "SEC_DASHBOARD_NUM_PROCS": "4"})
    assert settings.num_procs == 4 and settings.redis_url.endswith("/2")
    assert "s3cret-pass" not in repr(settings) and "redis://cache.internal:6380/2" in repr(settings)
    with pytest.raises(ValueError, match="SEC_DASHBOARD_REDIS_URL"):
        ApiSettings.from_env(environ={"SEC_DASHBOARD_REDIS_URL": "http://cache.internal"})


BAD_REDIS_URLS = [
    ("redis://127.0.0.1:6379/notanumber", "names the database 'notanumber', which is not a number"),
    ("redis://127.0.0.1:6379/?db=two", "names the database 'two', which is not a number"),
    ("redis://127.0.0.1:notaport/0", "has a port that is not a number"),
]


def test_a_redis_url_the_client_cannot_mean_is_one_line_at_once_with_exit_2(redis_server, monkeypatch, capsys):
    """Issue 39: redis://HOST/notanumber was taken (the client library quietly reads it as database 0) and the
    command ran on past 60 s; a Redis is listening here, so nothing but the URL is wrong. The first URL through
    the real entry point in a fresh process, every one through the same main() in this process (a fresh process
    each cost seconds of imports)."""
    port = redis_server.url.rsplit(":", 1)[1].split("/")[0]
    command = ["fund", "search", "equity", "--base-url", "http://127.0.0.1:9"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    env.update({"SEC_DASHBOARD_REDIS_URL": BAD_REDIS_URLS[0][0].replace("6379", port), "SEC_API_KEY": "k" * 32,
                "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "dashboard", *command], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"sec-dashboard: error: SEC_DASHBOARD_REDIS_URL {BAD_REDIS_URLS[0][1]}")
    assert time.monotonic() - started < 20
    monkeypatch.setenv("SEC_API_KEY", "k" * 32)
    for url, said in BAD_REDIS_URLS:
        with pytest.raises(ValueError, match=said):
            ApiSettings.from_env(environ={"SEC_DASHBOARD_REDIS_URL": url})
        monkeypatch.setenv("SEC_DASHBOARD_REDIS_URL", url.replace("6379", port))
        capsys.readouterr()
        started = time.monotonic()
        assert main(command) == 2, url
        [line] = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(f"sec-dashboard: error: SEC_DASHBOARD_REDIS_URL {said}"), line
        assert time.monotonic() - started < 20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes end with their parent on Linux")
def test_stopping_a_multi_process_server_stops_every_process():
    """`serve --num-procs 2` forks two serving processes; stopping the one a user or supervisor
    started (SIGTERM to it alone, as `kill PID` does) must not leave them serving the port."""
    import psutil

    from tests.browser.dashboard_server import DashboardProcess

    server = DashboardProcess(demo=True, serve_args=("--num-procs", "2")).start()
    try:
        children = psutil.Process(server.pid).children()
        assert len(children) == 2
        with urllib.request.urlopen(server.url + "liveness", timeout=10) as answer:
            assert answer.status == 200
    finally:
        server.stop()
    gone, alive = psutil.wait_procs(children, timeout=15)
    for process in alive:  # do not leave them to the rest of the run
        process.kill()
    assert not alive, f"still running after their parent stopped: {[p.pid for p in alive]}"


FORKED_PLACES = """
import os, sys
from tornado.process import fork_processes
from dashboard.api.limit_shares import share_limiter
from dashboard.server.serve import note_process_index
os.environ["SEC_DASHBOARD_PROC_INDEX"] = "7"  # inherited from the parent: each forked process has its own place
fork_processes(3)  # as Bokeh's server does for --num-procs 3; the parent exits when its children have
note_process_index()
limiter = share_limiter(2, 5.0, 3)
# one write of the whole line: three processes share the pipe, and print's pieces interleaved under load
os.write(1, f'{os.environ["SEC_DASHBOARD_PROC_INDEX"]} {type(limiter).__name__} {getattr(limiter, "index", None)}\\n'.encode())
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked processes")
def test_each_forked_server_process_knows_its_place_for_the_rate_limit_turns():
    done = subprocess.run([sys.executable, "-c", FORKED_PLACES], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(done.stdout.split("\n")[:-1]) == ["0 TurnLimiter 0", "1 TurnLimiter 1", "2 TurnLimiter 2"]

"""`sec-dashboard serve --num-procs N`: the number reaches Panel and every process's settings."""

from __future__ import annotations

import os

import pytest

import dashboard.app
from dashboard.cli.main import build_parser, main
from dashboard.config import ApiSettings


def test_num_procs_reaches_the_server_and_the_environment(monkeypatch):
    seen = {}

    def record(**kwargs):  # stands in for the web server only; the command's own work runs for real
        seen.update(kwargs, env=os.environ.get("SEC_DASHBOARD_NUM_PROCS"))

    monkeypatch.setattr(dashboard.app, "serve", record)
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

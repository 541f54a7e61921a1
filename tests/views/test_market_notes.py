"""The Market tab's notes name the sync command of the mode the dashboard runs in: on the demo data it says
`--demo`, and the command as shown is one the command line takes and, run, makes the snapshot the tab reads."""

from __future__ import annotations

import html
import re
import shlex

import pytest

from dashboard.cli.main import build_parser, main
from dashboard.cli.market import cmd_market_sync, join_option_values
from dashboard.config import ApiSettings
from dashboard.market.nav_filters import ONE_YEAR_DAYS
from dashboard.market.screen import MarketScreen
from dashboard.views.market_nav import nav_note_html
from dashboard.views.market_notes import no_store_html
from tests.conftest import KEY, run


def _commands(note: str) -> list[list[str]]:
    """The commands a note shows (its <code> parts), as the words a shell would pass."""
    return [shlex.split(html.unescape(code)) for code in re.findall(r"<code>(.*?)</code>", note)]


def _notes(market: MarketScreen, demo: bool) -> dict[str, str]:
    return {"no snapshot": no_store_html(market, demo), "no NAV": nav_note_html(True, 0, "", demo)}


def _parsed(words: list[str]):
    assert words[0] == "sec-dashboard", words
    return build_parser().parse_args(join_option_values(words[1:]))


@pytest.mark.parametrize("demo", [True, False], ids=["demo", "service"])
def test_the_notes_name_the_sync_command_of_the_dashboards_mode(tmp_path, demo):
    market = MarketScreen(settings=ApiSettings.from_env(demo=demo, cache_dir=tmp_path,
                                                        environ={} if demo else {"SEC_API_KEY": KEY}))
    for name, note in _notes(market, demo).items():
        commands = _commands(note)
        assert len(commands) == 1, (name, note)
        words = commands[0]
        assert ("--demo" in words) == demo, (name, words)
        args = _parsed(words)  # the real parser takes it (a bad one exits 2 here)
        assert args.func is cmd_market_sync and getattr(args, "demo", False) is demo, name
        if name == "no NAV":
            assert args.nav_days == ONE_YEAR_DAYS  # every 1-year figure, daily, weekly or monthly
        assert str(tmp_path) not in note, "the server's directories are not shown to web visitors"
    # With figures, the note's `--nav-days N` is the mode's command too.
    with_nav = nav_note_html(True, 12, "2026-11-20", demo)
    assert [words[:-1] for words in _commands(with_nav)] == [_commands(_notes(market, demo)["no NAV"])[0][:-1]]


def test_the_demo_command_as_shown_makes_the_snapshot_the_tab_reads(tmp_path, monkeypatch, capsys):
    """Where a key is set (the dashboard started with --demo), the note's command still fills the demo market's
    store: run as shown (one dataset, this test's cache directory), the demo tab's model then has a snapshot.
    The base URL is a closed loopback port, so a command that left demo mode could reach no service."""
    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_API_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("SEC_API_DEADLINE_S", "5")
    market = MarketScreen(settings=ApiSettings.from_env(demo=True, cache_dir=tmp_path))
    try:
        words = _commands(_notes(market, True)["no snapshot"])[0]
        assert "--demo" in words
        assert main([*words[1:], "--only", "companies", "--cache-dir", str(tmp_path)]) == 0, capsys.readouterr().err
        run(market.refresh())
        assert market.has_store and len(market.companies) > 0
    finally:
        market.close()

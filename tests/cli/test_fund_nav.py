"""`sec-dashboard fund nav`: in-process runs against the demo, the loopback simulator (both layouts) and the
real captures' shapes. The clock is pinned to the tests' date (the demo's series follow it)."""

from __future__ import annotations

import json
from datetime import date

import pandas as pd
import pytest

from dashboard.api.connect import open_client
from dashboard.api.nav import ClassHistory, NavHistory, fetch_nav_history
from dashboard.cli.main import main
from dashboard.config import ApiSettings
from dashboard.models.nav import FundNav, load_start
from dashboard.models.nav_figures import FIGURE_KEYS, class_figures, gaps
from tests.conftest import KEY, TODAY
from tests.shared_files import CAPTURES, require

# The demo's in-memory rate limit is shared by every demo client of the process: these tests keep out of it.
UNLIMITED = 1_000_000


@pytest.fixture
def clock(monkeypatch):
    """Every client the command line builds runs on a pinned date (`clock["today"]`)."""
    state = {"today": TODAY, "made": []}

    def pinned_client(settings=None):
        client = open_client(settings or ApiSettings.from_env(), today=lambda: state["today"],
                             rate_limit_calls=UNLIMITED)
        state["made"].append(client)
        return client

    monkeypatch.setattr("dashboard.models.source.default_client", pinned_client)
    yield state
    for client in state["made"]:
        client.close()


@pytest.fixture
def cli(clock, capsys):
    def invoke(*args: str):
        code = main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return invoke


def demo_fund(dataset, test) -> str:
    return next(pid for pid, p in dataset.nav_profiles.items() if test(p))


def multi(dataset) -> str:
    return demo_fund(dataset, lambda p: len(p["classes"]) >= 2 and not any(c["former"] for c in p["classes"])
                     and p["first"] < "2021-10-01" and p["frequency"] == "daily")


def dividend(dataset) -> tuple[str, str]:
    pid = demo_fund(dataset, lambda p: any(c["dividend_yield"] for c in p["classes"]) and p["first"] < "2022-01-01")
    return pid, next(c["name"] for c in dataset.nav_profiles[pid]["classes"] if c["dividend_yield"])


def demo_history(proj_id: str) -> NavHistory:
    client = open_client(ApiSettings.from_env(demo=True, layout="successor", environ={}), today=lambda: TODAY,
                         rate_limit_calls=UNLIMITED)
    try:
        return fetch_nav_history(client, proj_id, start=load_start(TODAY, 5), end=TODAY)
    finally:
        client.close()


# ---- the demo --------------------------------------------------------------------------------------------------


def test_readable_output_per_class(cli, dataset):
    pid = multi(dataset)
    history = demo_history(pid)
    code, out, err = cli("--demo", "fund", "nav", pid)
    assert code == 0, err
    for name, found in history.classes.items():
        assert f"CLASS {name}" in out
        last = found.nav.iloc[-1]
        assert f"last NAV {last['nav']:g} baht per unit on {last['nav_date'].day} {last['nav_date']:%b %Y}" in out
        for gap in gaps(found.nav, found.frequency):  # the demo's outages, each on a line of its own
            assert f"    {gap.start.day} {gap.start:%b %Y} to {gap.end.day} {gap.end:%b %Y}: {gap.days} days between two NAVs" in out
    # the figures' table, and the factsheet's figures in a table of their own beside the values computed to their date
    assert out.count("Figure") == 2 * len(history.classes) and "Published" in out and "Difference" in out
    assert "beside the factsheet's published figures of 31 Oct 2026" in out and "Computed to 31 Oct 2026" in out
    assert "Sharpe ratios with a risk-free rate of 0.00 % a year" in out
    for section in out.split("CLASS ")[1:]:
        found = history.classes[section.split("\n", 1)[0].strip()]
        one_year = class_figures(found.nav, found.dividends)
        assert f"{one_year['return_1y'].value:,.2f} %" in section
    assert "0.00 pp" in out  # the demo publishes returns computed from the same series


def test_json_has_every_class_series_gaps_distributions_and_figures(cli, dataset):
    pid, name = dividend(dataset)
    history = demo_history(pid)
    code, out, err = cli("--demo", "fund", "nav", pid, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["proj_id"] == pid and set(data["classes"]) == set(history.classes)
    mine, expected = data["classes"][name], history.classes[name]
    assert list(mine["figures"]) == list(FIGURE_KEYS)
    computed = class_figures(expected.nav, expected.dividends, frequency=expected.frequency)
    for key in ("return_1y", "total_return_1y", "volatility_1y", "max_drawdown_1y", "sharpe_1y", "return_5y_ann"):
        assert mine["figures"][key]["value"] == pytest.approx(computed[key].value), key
    assert mine["figures"]["total_return_1y"]["value"] > mine["figures"]["return_1y"]["value"]  # reinvested
    assert len(mine["series"]) == len(expected.nav)
    assert mine["series"][-1]["nav"] == expected.nav["nav"].iloc[-1]
    assert mine["series"][-1]["nav_date"] == expected.nav["nav_date"].iloc[-1].date().isoformat()
    assert [d["per_unit"] for d in mine["distributions"]] == expected.dividends["per_unit"].tolist()
    assert mine["gaps"] == [g.to_dict() for g in gaps(expected.nav, expected.frequency)] and mine["gaps"]
    assert mine["published"]["return_1y"]["as_of"] == "2026-10-31"
    assert abs(mine["published"]["return_1y"]["difference"]) <= 0.005 + 1e-9


def test_csv_is_the_series_from_and_to_inclusive(cli, dataset):
    pid = multi(dataset)
    history = demo_history(pid)
    name = next(iter(history.classes))
    days = history.classes[name].nav["nav_date"]
    first, last = days.iloc[-30].date(), days.iloc[-10].date()
    code, out, err = cli("--demo", "fund", "nav", pid, "--class", name, "--from", first.isoformat(),
                         "--to", last.isoformat(), "--csv")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("\ufeffUnit class,NAV date,NAV (baht per unit),Offer price (baht per unit),"
                               "Bid price (baht per unit),Fund size (baht)")
    rows = lines[1:]
    assert len(rows) == 21  # both ends included
    assert rows[0].startswith(f"{name},{first.isoformat()},") and rows[-1].startswith(f"{name},{last.isoformat()},")


def test_figures_are_computed_up_to_the_to_date(cli, dataset):
    pid = multi(dataset)
    history = demo_history(pid)
    name = next(iter(history.classes))
    code, out, err = cli("--demo", "fund", "nav", pid, "--class", name, "--to", "2026-06-30", "--json")
    assert code == 0, err
    mine = json.loads(out)["classes"][name]
    expected = class_figures(history.classes[name].nav, as_of=date(2026, 6, 30))
    assert mine["last_nav_date"] == "2026-06-30" and mine["series"][-1]["nav_date"] == "2026-06-30"
    assert mine["figures"]["return_1y"]["value"] == pytest.approx(expected["return_1y"].value)


def test_an_early_to_date_loads_the_history_before_it(cli, dataset):
    pid = multi(dataset)
    code, out, err = cli("--demo", "fund", "nav", pid, "--to", "2022-06-30", "--json")
    assert code == 0, err
    data = json.loads(out)
    mine = next(iter(data["classes"].values()))
    assert data["loaded"]["start"] <= "2017-01-01" and mine["series"][0]["nav_date"] < "2021-10-01"
    assert mine["last_nav_date"] == "2022-06-30" and mine["figures"]["return_6m"]["value"] is not None


def test_a_class_in_another_case_and_the_service_marker(cli, dataset):
    pid = multi(dataset)
    name = next(iter(demo_history(pid).classes))
    code, out, err = cli("--demo", "fund", "nav", pid, "--class", name.lower(), "--json")
    assert code == 0, err
    assert list(json.loads(out)["classes"]) == [name]
    single = demo_fund(dataset, lambda p: p["classes"][0]["name"] == "main" and p["frequency"] == "daily")
    code, out, err = cli("--demo", "fund", "nav", single, "--class", "main", "--json")
    assert code == 0, err
    assert list(json.loads(out)["classes"]) == [""]


@pytest.mark.parametrize("args, message", [
    (["--from", "2026-11-22"], "the from date 2026-11-22 is in the future (today is 2026-11-21)"),
    (["--to", "2027-01-01"], "the to date 2027-01-01 is in the future"),
    (["--from", "2026-06-02", "--to", "2026-06-01"], "the from date 2026-06-02 is after the to date 2026-06-01"),
    (["--from", "1 June"], "the from date '1 June' is not a date; write it as YYYY-MM-DD"),
    (["--risk-free", "lots"], "the risk-free rate 'lots' is not a percent a year from -10 to 50, e.g. 2.5 (--risk-free)"),
    (["--class", "NO-SUCH"], "has no class 'NO-SUCH'; its classes with NAVs are "),
    (["--json", "--csv"], "give --csv or --json, not both"),
])
def test_bad_input_is_one_line_and_exit_2(cli, dataset, args, message):
    code, out, err = cli("--demo", "fund", "nav", multi(dataset), *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("sec-dashboard: error: ") and message in err


def test_the_risk_free_rate_from_the_variable_and_the_option(cli, dataset, monkeypatch):
    pid = multi(dataset)
    monkeypatch.setenv("SEC_DASHBOARD_RISK_FREE_PCT", "3")
    code, out, _ = cli("--demo", "fund", "nav", pid, "--json")
    three = json.loads(out)
    assert code == 0 and three["risk_free_pct"] == 3.0
    code, out, _ = cli("--demo", "fund", "nav", pid, "--json", "--risk-free", "1")
    one = json.loads(out)
    assert code == 0 and one["risk_free_pct"] == 1.0
    name = next(iter(one["classes"]))
    sharpe = {n: d["classes"][name]["figures"]["sharpe_1y"]["value"] for n, d in ((1, one), (3, three))}
    volatility = one["classes"][name]["figures"]["volatility_1y"]["value"]
    # Sharpe = mean excess period return / its std * sqrt(252): a higher rate lowers each excess return by
    # the difference of the two rates per day
    per_day = {n: (1 + n / 100) ** (1 / 252) - 1 for n in (1, 3)}
    assert sharpe[1] - sharpe[3] == pytest.approx((per_day[3] - per_day[1]) * 252 * 100 / volatility)
    monkeypatch.setenv("SEC_DASHBOARD_RISK_FREE_PCT", "3 percent")
    code, out, err = cli("--demo", "fund", "nav", pid)
    assert code == 2 and out == "" and "(SEC_DASHBOARD_RISK_FREE_PCT)" in err


def test_help_names_the_option_and_the_variable(cli, capsys):
    with pytest.raises(SystemExit) as done:
        main(["fund", "nav", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert done.value.code == 0
    assert "--risk-free PCT" in text and "SEC_DASHBOARD_RISK_FREE_PCT" in text and "--from D" in text


def test_a_fund_with_no_nav_yet_is_said_so(cli, dataset):
    offering = next(f["proj_id"] for f in dataset.funds if f["fund_status"] == "SE")
    code, out, err = cli("--demo", "fund", "nav", offering, "--json")
    assert code == 0 and json.loads(out)["classes"] == {}
    assert err.startswith("no data: fund ") and "a new fund may not have published one yet" in err
    code, out, err = cli("--demo", "fund", "nav", offering)
    assert code == 0 and out == "" and "no data:" in err


def printed(name: str, days: int, fund: dict | None = None) -> str:
    """What the readable output prints for one class of `days` daily NAVs (no service needed)."""
    from dashboard.cli.nav import _class_data, _print

    dates = pd.bdate_range("2026-01-05", periods=days)
    nav = pd.DataFrame({"nav_date": dates, "nav": 10.0 + 0.01 * pd.Series(range(days)), "offer": float("nan"),
                        "bid": float("nan"), "net_asset": float("nan")})
    dividends = pd.DataFrame({"ex_date": pd.Series([], dtype="datetime64[ns]"),
                              "pay_date": pd.Series([], dtype="datetime64[ns]"), "per_unit": pd.Series([], dtype=float)})
    history = NavHistory("M0001_2560", {name: ClassHistory("M0001_2560", name, nav, dividends, "daily")},
                         date(2026, 1, 1), date(2026, 2, 20))
    model = FundNav(None)
    model.param.update(history=history, proj_id="M0001_2560", state="loaded")
    _print(model, fund, {name: _class_data(model, name, None, None, None)})
    return model


def test_a_class_with_one_nav_gets_no_figure_and_says_why(capsys):
    printed("X-A", 1)
    out = capsys.readouterr().out
    assert "last NAV 10 baht per unit on 5 Jan 2026 (1 daily NAVs from 5 Jan 2026)" in out
    assert "Only one NAV (2026-01-05): a figure needs at least two." in out
    rows = [line for line in out.splitlines() if line.startswith(("  Return", "  Total", "  Volatility", "  Maximum",
                                                                   "  Sharpe ratio,"))]
    assert len(rows) == len(FIGURE_KEYS) and not any("%" in row for row in rows)  # every figure empty, none from one NAV


def test_service_text_reaches_the_terminal_without_control_characters(capsys):
    evil = "X-\x1b]0;owned\x07A\x1b[2J"
    printed(evil, 30, {"proj_abbr_name": "FUND\x1b[5m"})
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "\x07" not in captured.out
    assert "CLASS X-A" in captured.out


# ---- the loopback simulator ----------------------------------------------------------------------------------


@pytest.fixture
def on_simulator(simulator, tmp_path, monkeypatch):
    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_API_BASE_URL", simulator.base_url)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cli-cache"))
    return simulator


def test_the_current_service_on_loopback(cli, on_simulator, dataset):
    on_simulator.app.layout = "successor"
    pid = multi(dataset)
    code, out, err = cli("fund", "nav", pid, "--json")
    assert code == 0, err
    data = json.loads(out)
    # five years and two months back, and the December before, so the first calendar year shown is whole
    start = load_start(TODAY, 5)
    assert data["loaded"] == {"start": date(start.year - 1, 12, 1).isoformat(), "end": TODAY.isoformat()}
    assert data["figures_from"] == start.isoformat()
    history = demo_history(pid)
    for name, found in history.classes.items():
        assert len(data["classes"][name]["series"]) == len(found.nav)
        assert data["classes"][name]["figures"]["return_5y_ann"]["value"] is not None


def test_the_older_service_gives_weeks_and_says_why(cli, on_simulator, dataset):
    on_simulator.app.layout = "legacy"
    pid = multi(dataset)
    code, out, err = cli("fund", "nav", pid)
    assert code == 0, err
    assert "the older service gives one fund's NAV one day per call, so only the last 30 days" in " ".join(err.split())
    assert "no value for" in out and "history starts on" in out  # no 1-year figure from a month


# ---- the real captures' shapes -------------------------------------------------------------------------------


def test_the_captured_nav_page_through_the_command(cli, clock, monkeypatch):
    """The captured daily-nav page and distributions served on loopback: the command reads the ThaiESG
    class's one row, shows its zero swap prices as not offered, and says the rows of other funds were dropped."""
    from dashboard.demo.loopback import SimulatorServer

    nav_body = require(CAPTURES / "daily-nav-range.json").read_bytes()
    dividend_body = require(CAPTURES / "dividend-history.json").read_bytes()
    row = next(r for r in json.loads(nav_body)["items"] if r["fund_class_name"] == "K-TNZ-ThaiESG")

    class Captures:
        """The captured bodies at their paths (the captures ignore every filter, as they did when taken)."""

        def wake_sleepers(self) -> None:  # SimulatorServer's stop asks; nothing here sleeps
            pass

        async def __call__(self, scope, receive, send):
            await answer(scope, send)

    async def answer(scope, send):
        path = scope["path"]
        status, body = 404, b'{"message": "not found"}'
        if path.endswith("/daily-info/nav"):
            status, body = 200, nav_body
        elif path.endswith("/daily-info/dividend-history"):
            status, body = 200, dividend_body
        if b"next_cursor" in scope.get("query_string", b""):
            status, body = 200, b'{"message": "success", "page_size": 100, "next_cursor": "", "items": []}'
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    clock["today"] = date(2026, 6, 10)
    with SimulatorServer(Captures()) as server:
        monkeypatch.setenv("SEC_API_KEY", KEY)
        monkeypatch.setenv("SEC_API_BASE_URL", server.base_url)
        monkeypatch.setenv("SEC_API_LAYOUT", "successor")
        code, out, err = cli("fund", "nav", row["proj_id"], "--from", "2026-05-29", "--to", "2026-06-05", "--csv",
                             "--no-cache")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[1] == (f"K-TNZ-ThaiESG,{row['nav_date']},{row['last_val']},{row['sell_price']},{row['buy_price']},"
                        f"{row['net_asset']},,")  # swap prices of 0.0: not offered, empty
    assert "rows of other funds came back" in err
    assert "published figures could not be loaded (GET /v2/fund/factsheet/performance" in err  # no factsheet here


# ---- issue 38: what is shown never moves a figure; since launch; differences beside their values ---------------


def test_from_and_to_choose_what_is_shown_never_a_figure(cli, dataset):
    pid = multi(dataset)
    runs = {}
    for extra in ((), ("--from", "2021-01-01"), ("--from", "2025-06-01"), ("--from", "2019-03-01")):
        code, out, err = cli("--demo", "fund", "nav", pid, "--json", *extra)
        assert code == 0, err
        runs[extra] = json.loads(out)["classes"]
    base = runs[()]
    for extra, classes in runs.items():
        for name, data in classes.items():
            values = {k: (f["value"], f["label"], f["start"]) for k, f in data["figures"].items()}
            assert values == {k: (f["value"], f["label"], f["start"]) for k, f in base[name]["figures"].items()}, extra
            years = {y["year"]: (y["label"], y["price_return"]) for y in data["calendar_years"]}
            for year in base[name]["calendar_years"]:  # a year shown in both is the same figure, same label
                assert years.get(year["year"], (year["label"], year["price_return"])) == (year["label"],
                                                                                         year["price_return"])
    shown = {extra: min(len(c["series"]) for c in classes.values()) for extra, classes in runs.items()}
    assert shown[("--from", "2025-06-01")] < shown[()] < shown[("--from", "2019-03-01")]


def test_since_launch_is_said_only_when_the_launch_was_loaded(cli, dataset, monkeypatch):
    pid = multi(dataset)
    launch = min(dataset.nav_profiles[pid]["first"], "9999")
    code, out, err = cli("--demo", "fund", "nav", pid, "--json", "--since-launch")
    assert code == 0, err
    data = json.loads(out)
    assert data["since_launch"] is True and data["figures_from"] is None
    for name, found in data["classes"].items():
        figure = found["figures"]["return_since_start"]
        assert found["since_launch"] is True and figure["label"] == "Return, since launch"
        assert figure["start"] == found["series"][0]["nav_date"] >= launch
    # Measured to a day when the class's launch is more than five years and two months back, the default load
    # does not hold it: the label says the date the figures start from, not "since launch".
    code, out, err = cli("--demo", "fund", "nav", pid, "--json", "--to", "2026-10-30")
    assert code == 0, err
    code, late, err = cli("--demo", "fund", "nav", pid, "--json", "--to", "2026-11-20")
    assert code == 0, err
    for text in (out, late):
        for name, found in json.loads(text)["classes"].items():
            figure = found["figures"]["return_since_start"]
            assert (figure["label"] == "Return, since launch") == found["since_launch"]
            if not found["since_launch"]:
                assert figure["label"].startswith("Return, since ") and "(not since launch)" in figure["label"]


def test_a_difference_stands_beside_the_two_values_it_is_taken_from(cli, dataset):
    pid = multi(dataset)
    code, out, err = cli("--demo", "fund", "nav", pid, "--json", "--from", "2025-01-01", "--to", "2025-12-31")
    assert code == 0, err
    for found in json.loads(out)["classes"].values():
        assert found["published"]
        for key, published in found["published"].items():
            assert published["as_of"] == "2026-10-31"
            if published["difference"] is not None:
                assert published["difference"] == pytest.approx(published["computed_to_as_of"] - published["value"])
    code, out, err = cli("--demo", "fund", "nav", pid, "--from", "2025-01-01", "--to", "2025-12-31")
    assert code == 0, err
    main_table, _, published = out.partition("beside the factsheet's published figures of 31 Oct 2026")
    assert " pp" not in main_table  # no difference in the table of the figures to --to
    lines = [line for line in published.splitlines() if line.strip().endswith(" pp")]
    assert lines
    for line in lines:  # computed to 31 Oct 2026, published, difference: three values on the line
        cells = line.split()
        assert cells[-1] == "pp" and cells[-3] == "%" and cells[-5] == "%", line


def test_a_distributing_class_leads_with_its_total_return(cli, dataset):
    pid, name = dividend(dataset)
    code, out, err = cli("--demo", "fund", "nav", pid, "--class", name, "--json")
    assert code == 0, err
    mine = json.loads(out)["classes"][name]
    assert mine["distributes"] is True and mine["headline"] == "total_return"
    code, out, err = cli("--demo", "fund", "nav", pid, "--class", name)
    assert code == 0, err
    assert out.index("Total return (distributions reinvested), 1 month") < out.index("Return, 1 month")
    assert "the class distributes: its total return" in out
    # The maximum drawdown is the factsheet's, on the NAV per unit, with its recovering period
    drawdown = mine["figures"]["max_drawdown_1y"]
    assert drawdown["recovered"] in (True, False) and ("not recovered" in out or " days (back on " in out)

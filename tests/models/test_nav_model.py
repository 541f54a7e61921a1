"""FundNav (dashboard/models/nav.py) on the demo and the loopback simulator: loads, ranges, classes, bad input.

No Panel, no mocks: the demo's NAV series come through the client as the service's answers would.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import date

import pandas as pd
import pytest

from dashboard.api.connect import open_client
from dashboard.config import ApiSettings, parse_risk_free_pct, risk_free_pct_from_env
from dashboard.demo.nav import minus_months
from dashboard.errors import BadInputError, NotFoundError
from dashboard.models.nav import EMPTY, FAILED, IDLE, LOADED, RANGES, FundNav, load_start
from dashboard.models.source import run
from tests.conftest import TODAY
from tests.helpers import free_port

# The demo's in-memory rate limit is shared by every demo client of the process: these tests keep out of it.
UNLIMITED = 1_000_000


@pytest.fixture(scope="module")
def demo():
    """The embedded demo playing the current service (the older one has a month of NAVs at most)."""
    client = open_client(ApiSettings.from_env(demo=True, layout="successor", environ={}), today=lambda: TODAY,
                         rate_limit_calls=UNLIMITED)
    yield client
    client.close()


def profile_where(dataset, test) -> str:
    return next(pid for pid, p in dataset.nav_profiles.items() if test(p))


def multi_class(dataset) -> str:
    return profile_where(dataset, lambda p: len(p["classes"]) >= 2 and not any(c["former"] for c in p["classes"])
                         and p["first"] < "2021-10-01" and p["frequency"] == "daily")


def loaded(client, proj_id: str, **params) -> FundNav:
    model = FundNav(client, **params)
    run(model.load(proj_id))
    return model


def test_five_years_of_every_class_in_one_load(demo, dataset):
    pid = multi_class(dataset)
    model = loaded(demo, pid)
    assert model.state == LOADED and model.error == "" and not model.loading
    names = [c["name"] for c in dataset.nav_profiles[pid]["classes"]]
    assert sorted(model.classes()) == sorted(names)
    assert model.history.start == load_start(TODAY, 5) and model.history.end == TODAY
    assert model.selected_class() == model.classes()[0]  # "" selects the first class
    figures = model.figures()
    # the 5-year window's base NAV is in the history loaded: the figure exists
    assert figures["return_5y_ann"].value is not None and figures["volatility_5y"].value is not None
    assert figures.last_nav_date == model.last_nav_date()


def test_load_start_reaches_past_five_years_and_a_gap():
    start = load_start(date(2026, 11, 21), 5)
    assert start == date(2021, 9, 1) and (minus_months(date(2026, 11, 20), 60) - start).days > 45


@pytest.mark.parametrize("name", RANGES)
def test_each_range_is_a_calendar_window_back_from_the_last_nav(demo, dataset, name):
    model = loaded(demo, multi_class(dataset), range=name)
    whole = model.history.classes[model.selected_class()].nav["nav_date"]
    last = whole.iloc[-1].date()
    months = {"1M": 1, "3M": 3, "6M": 6, "1Y": 12, "3Y": 36, "5Y": 60}
    if name == "MAX":
        expected = whole.iloc[0]
    else:
        day = date(last.year - 1, 12, 31) if name == "YTD" else minus_months(last, months[name])
        expected = whole[whole <= pd.Timestamp(day)].iloc[-1]  # the last NAV on or before that day
    series = model.series()
    assert series["nav_date"].iloc[0] == expected and series["nav_date"].iloc[-1].date() == last
    assert series["nav_date"].is_monotonic_increasing
    drawdown = model.drawdown()
    assert len(drawdown) == len(series) and drawdown.max() == 0.0 and drawdown.iloc[0] == 0.0


def test_distributions_follow_the_range(demo, dataset):
    pid = profile_where(dataset, lambda p: any(c["dividend_yield"] for c in p["classes"]) and p["first"] < "2022-01-01")
    name = next(c["name"] for c in dataset.nav_profiles[pid]["classes"] if c["dividend_yield"])
    model = loaded(demo, pid, class_name=name, range="MAX")
    every = model.distributions()
    assert len(every) >= 8  # twice a year over five years
    model.range = "1Y"
    year = model.distributions()
    start = model.series()["nav_date"].iloc[0]
    assert 1 <= len(year) < len(every) and (year["ex_date"] > start).all()
    assert len(year) == int((every["ex_date"] > start).sum())
    assert model.figures()["total_return_1y"].value > model.figures()["return_1y"].value  # reinvested


def test_a_class_the_fund_does_not_have_is_a_sentence_not_an_exception(demo, dataset):
    pid = multi_class(dataset)
    model = loaded(demo, pid, class_name="NO-SUCH-CLASS")
    assert model.state == LOADED
    assert model.error.startswith(f"fund {pid} has no class 'NO-SUCH-CLASS'; its classes with NAVs are ")
    assert model.series().empty and model.distributions().empty and model.figures() is None
    assert model.drawdown().empty and model.calendar_years() == [] and model.message() == model.error
    model.class_name = model.classes()[-1]
    assert model.error == "" and not model.series().empty and model.figures() is not None


def test_the_class_markers_of_a_fund_without_classes(demo, dataset):
    pid = profile_where(dataset, lambda p: p["classes"][0]["name"] == "main" and p["frequency"] == "daily")
    model = loaded(demo, pid, class_name="main")  # the service's marker reads as the only class
    assert model.classes() == [""] and model.selected_class() == "" and model.error == ""


def test_a_fund_with_no_nav_yet_is_an_explicit_empty_state(demo, dataset):
    offering = next(f["proj_id"] for f in dataset.funds if f["fund_status"] == "SE")
    model = loaded(demo, offering)
    assert model.state == EMPTY and model.history is None and isinstance(model.failure, NotFoundError)
    assert "has no NAV" in model.error and "a new fund may not have published one yet" in model.error
    assert model.classes() == [] and model.series().empty and model.figures() is None


def test_a_malformed_id_and_bad_years_are_sentences(demo):
    model = loaded(demo, "not an id")
    assert model.state == FAILED and "is not a fund project id" in model.error and model.history is None
    assert isinstance(model.failure, BadInputError)  # the command line's exit code 2 comes from it
    run(model.load("M0001_2558", years=0))
    assert model.state == FAILED and "whole number from 1 to 30" in model.error


def test_a_failed_load_leaves_nothing_of_the_previous_fund(demo, dataset, tmp_path):
    model = loaded(demo, multi_class(dataset))
    assert model.history is not None
    down = open_client(ApiSettings.from_env(base_url=f"http://127.0.0.1:{free_port()}", api_key="k" * 32,
                                            layout="successor", cache_dir=tmp_path, environ={}),
                       today=lambda: TODAY, max_attempts=1)
    try:
        model.client = down
        run(model.load(multi_class(dataset)))
    finally:
        down.close()
    assert model.state == FAILED and model.error and model.history is None and model.series().empty
    assert not model.error.startswith("S8")  # the program's endpoint codes are not for people
    assert model.failure is not None and model.failure.exit_code == 4  # the service, not the input


def test_risk_free_rate_from_the_environment(demo, dataset, monkeypatch):
    pid = multi_class(dataset)
    plain = loaded(demo, pid).figures()
    monkeypatch.setenv("SEC_DASHBOARD_RISK_FREE_PCT", "3")
    model = loaded(demo, pid)
    assert model.risk_free_pct == 3.0
    with_rate = model.figures()
    volatility = plain["volatility_1y"].value
    # Sharpe = mean excess daily return / its std * sqrt(252): each excess return lower by 3 % a year per day
    per_day = 1.03 ** (1 / 252) - 1
    assert plain["sharpe_1y"].value - with_rate["sharpe_1y"].value == pytest.approx(per_day * 252 * 100 / volatility)
    assert loaded(demo, pid, risk_free_pct=1.5).risk_free_pct == 1.5  # a given rate wins over the variable


def test_an_unreadable_risk_free_variable_stops_the_figures_with_a_sentence(demo, dataset, monkeypatch):
    monkeypatch.setenv("SEC_DASHBOARD_RISK_FREE_PCT", "two percent")
    model = loaded(demo, multi_class(dataset))
    assert model.state == FAILED and model.history is None
    assert "SEC_DASHBOARD_RISK_FREE_PCT" in model.error and "'two percent'" in model.error
    model.risk_free_pct = 2.0  # a rate set by hand ends it
    assert model.error == ""
    run(model.load(multi_class(dataset)))
    assert model.state == LOADED and model.figures().risk_free_pct == 2.0


@pytest.mark.parametrize("text, value", [("2.5", 2.5), (" 2.5 % ", 2.5), ("0", 0.0), ("-0.5", -0.5), ("50", 50.0)])
def test_risk_free_rates_read(text, value):
    assert parse_risk_free_pct(text) == value


@pytest.mark.parametrize("text", ["", "abc", "nan", "inf", "51", "-11", "1e9"])
def test_risk_free_rates_refused(text):
    with pytest.raises(ValueError, match="SEC_DASHBOARD_RISK_FREE_PCT"):
        parse_risk_free_pct(text)


def test_risk_free_rate_unset_is_zero():
    assert risk_free_pct_from_env({}) == 0.0 and risk_free_pct_from_env({"SEC_DASHBOARD_RISK_FREE_PCT": " "}) == 0.0


def test_before_a_load():
    model = FundNav(None)
    assert model.state == IDLE and model.classes() == [] and model.series().empty and model.figures() is None
    assert model.message() == "No fund loaded yet."


def test_the_model_does_not_import_panel():
    code = "import sys, dashboard.models.nav, dashboard.present.nav; print('panel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_overlapping_loads_keep_the_fund_asked_last(demo, dataset, monkeypatch):
    """A person switching funds quickly: the first fund's answer arriving last must not replace the second's."""
    import asyncio
    import threading

    import dashboard.models.nav as nav_module

    first = multi_class(dataset)
    second = profile_where(dataset, lambda p: p["classes"][0]["name"] == "main" and p["frequency"] == "daily")
    released = threading.Event()
    real_fetch = nav_module.afetch_nav_history

    async def first_fund_answers_late(client, proj_id, **kw):
        while proj_id == first and not released.is_set():
            await asyncio.sleep(0.01)
        return await real_fetch(client, proj_id, **kw)

    monkeypatch.setattr(nav_module, "afetch_nav_history", first_fund_answers_late)
    model = FundNav(demo)

    async def switch():
        late = asyncio.create_task(model.load(first))
        await asyncio.sleep(0)  # the first load is under way
        await model.load(second)
        released.set()
        await late

    run(switch())
    assert model.proj_id == second and model.history.proj_id == second and model.classes() == [""]
    assert model.state == LOADED and not model.loading

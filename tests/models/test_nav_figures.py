"""NAV figures: each convention of issue 27 on small series whose expected values are worked out here
from the stated formula (not by the code under test)."""

from __future__ import annotations

import json
import math
import statistics
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.errors import BadInputError
from dashboard.models.nav_figures import (
    FIGURE_KEYS,
    MIN_RETURNS,
    ClassFigures,
    Gap,
    calendar_year_returns,
    class_figures,
    drawdown_series,
    figure_keys,
    figures_since,
    gaps,
    infer_frequency,
    rebase,
)


def frame(values: dict) -> pd.DataFrame:
    """A NAV frame in the interface's shape from {date: nav}."""
    days = list(values)
    return pd.DataFrame({"nav_date": pd.to_datetime(days), "nav": [float(v) for v in values.values()],
                         "offer": np.nan, "bid": np.nan, "net_asset": np.nan})


def dividends(*rows: tuple[date, float]) -> pd.DataFrame:
    return pd.DataFrame({"ex_date": pd.to_datetime([r[0] for r in rows]), "pay_date": pd.NaT,
                         "per_unit": [r[1] for r in rows]})


def every_day(first: date, last: date, value=lambda i: 100.0 + i) -> dict:
    """One NAV a calendar day, the i-th day's NAV value(i)."""
    count = (last - first).days + 1
    return {first + timedelta(days=i): value(i) for i in range(count)}


def business_days(first: date, last: date, value=lambda i: 100.0 + i) -> dict:
    days = [d.date() for d in pd.bdate_range(first, last)]
    return {day: value(i) for i, day in enumerate(days)}


# ---- windows ---------------------------------------------------------------------------------------

def test_one_month_from_31_march_starts_on_the_last_day_of_february():
    for year, feb_end in ((2024, date(2024, 2, 29)), (2023, date(2023, 2, 28))):
        navs = every_day(date(year - 1, 12, 1), date(year, 3, 31))
        fig = class_figures(frame(navs), frequency="daily")["return_1m"]
        assert (fig.start, fig.end, fig.period_start) == (feb_end, date(year, 3, 31), feb_end)
        assert fig.value == pytest.approx(100 * (navs[date(year, 3, 31)] / navs[feb_end] - 1))
        assert fig.last_nav_date == date(year, 3, 31) and fig.label == "Return, 1 month"


def test_a_window_starts_from_the_last_nav_on_or_before_its_first_day():
    # Tuesday 16 April 2024: one month earlier is Saturday 16 March, so the window starts on Friday 15 March.
    navs = business_days(date(2023, 1, 2), date(2024, 4, 16))
    figures = class_figures(frame(navs), frequency="daily")
    one_month = figures["return_1m"]
    assert one_month.period_start == date(2024, 3, 16) and one_month.start == date(2024, 3, 15)
    assert one_month.value == pytest.approx(100 * (navs[date(2024, 4, 16)] / navs[date(2024, 3, 15)] - 1))
    # Three and six months: 16 January (Tuesday) and 16 October 2023 (Monday).
    assert figures["return_3m"].start == date(2024, 1, 16) and figures["return_6m"].start == date(2023, 10, 16)
    # YTD: from the last NAV of 2023, Friday 29 December.
    ytd = figures["return_ytd"]
    assert ytd.start == date(2023, 12, 29) and ytd.label == "Return, year to date"
    assert ytd.value == pytest.approx(100 * (navs[date(2024, 4, 16)] / navs[date(2023, 12, 29)] - 1))
    one_year = figures["return_1y"]
    assert one_year.start == date(2023, 4, 14) and not one_year.annualised  # 16 April 2023 was a Sunday


def test_beyond_one_year_returns_are_annualised_over_the_calendar_days():
    navs = every_day(date(2018, 1, 1), date(2024, 6, 30), value=lambda i: 10.0 * 1.0002 ** i)
    figures = class_figures(frame(navs), frequency="daily")
    end = date(2024, 6, 30)
    for key, start in (("return_3y_ann", date(2021, 6, 30)), ("return_5y_ann", date(2019, 6, 30)),
                       ("return_since_start_ann", date(2018, 1, 1))):
        ratio = navs[end] / navs[start]
        expected = 100 * (ratio ** (365 / (end - start).days) - 1)
        assert figures[key].start == start and figures[key].annualised
        assert figures[key].value == pytest.approx(expected)
    assert figures["return_3y_ann"].label == "Return, 3 years (a year)"
    assert figures["return_since_start"].value == pytest.approx(100 * (navs[end] / navs[date(2018, 1, 1)] - 1))
    # Up to one year: cumulative, even across 29 February.
    assert figures["return_1y"].value == pytest.approx(100 * (navs[end] / navs[date(2023, 6, 30)] - 1))


def test_a_window_longer_than_the_history_has_no_figure():
    navs = business_days(date(2022, 7, 1), date(2024, 6, 28))
    figures = class_figures(frame(navs), frequency="daily")
    assert figures["return_1y"].value is not None
    for key in ("return_3y_ann", "total_return_3y_ann", "return_5y_ann", "volatility_3y", "max_drawdown_3y",
                "sharpe_3y", "sharpe_5y"):
        assert figures[key].value is None and figures[key].start is None
        assert "starts on 2022-07-01" in figures[key].reason
    # Since the first NAV: cumulative, and annualised because the history is longer than a year.
    assert figures["return_since_start_ann"].value is not None


def test_since_the_first_nav_is_not_annualised_within_a_year():
    navs = business_days(date(2024, 1, 2), date(2024, 6, 28))
    figures = class_figures(frame(navs), frequency="daily")
    assert figures["return_since_start"].value == pytest.approx(100 * (navs[date(2024, 6, 28)] / 100.0 - 1))
    ann = figures["return_since_start_ann"]
    assert ann.value is None and "not annualised" in ann.reason
    assert figures["return_1y"].value is None


def test_a_window_whose_start_falls_in_a_gap_has_no_figure():
    # NAVs up to 1 March, then from 20 March: one month back from 15 April is 15 March, inside the gap.
    navs = {**business_days(date(2024, 1, 2), date(2024, 3, 1)), **business_days(date(2024, 3, 20), date(2024, 4, 15))}
    figure = class_figures(frame(navs), frequency="daily")["return_1m"]
    assert figure.value is None and "gap" in figure.reason and figure.period_start == date(2024, 3, 15)
    # The gap itself is listed, never filled.
    assert gaps(frame(navs), "daily") == [Gap(date(2024, 3, 1), date(2024, 3, 20), 19)]


def test_one_nav_gives_no_figures_and_says_why():
    figures = class_figures(frame({date(2024, 5, 2): 10.0}), frequency="daily")
    assert figures.last_nav_date == date(2024, 5, 2)
    assert all(f.value is None and f.reason for f in figures.figures)
    assert "at least two" in figures["return_since_start"].reason


# ---- total return ----------------------------------------------------------------------------------

def test_total_return_reinvests_at_the_ex_date_nav():
    navs = {date(2024, 1, 2): 10.0, date(2024, 1, 3): 9.0, date(2024, 1, 4): 9.9}
    figures = class_figures(frame(navs), dividends((date(2024, 1, 3), 1.0)), frequency="daily")
    units = 1 + 1.0 / 9.0  # the 1 baht reinvested at the ex date's NAV of 9
    assert figures["total_return_since_start"].value == pytest.approx(100 * (units * 9.9 / 10.0 - 1))  # 10 %
    assert figures["return_since_start"].value == pytest.approx(100 * (9.9 / 10.0 - 1))  # -1 %


def test_an_ex_date_without_nav_reinvests_at_the_first_nav_on_or_after_it():
    # Friday's NAV of 10 still holds the 1 baht; Monday's 9 is the first without it: reinvested there.
    navs = {date(2024, 1, 5): 10.0, date(2024, 1, 8): 9.0, date(2024, 1, 9): 9.5}  # Friday, Monday, Tuesday
    figures = class_figures(frame(navs), dividends((date(2024, 1, 6), 1.0)), frequency="daily")  # a Saturday
    expected = (1 + 1.0 / 9.0) * 9.5 / 10.0 - 1
    assert figures["total_return_since_start"].value == pytest.approx(100 * expected)
    assert figures.distributes and figures.headline == "total_return"
    assert not class_figures(frame(navs), frequency="daily").distributes


def test_distributions_outside_the_history_or_the_window_do_not_count():
    navs = {date(2024, 1, 2): 10.0, date(2024, 1, 3): 10.5, date(2024, 1, 4): 11.0}
    outside = dividends((date(2023, 12, 1), 2.0), (date(2024, 1, 2), 0.5), (date(2024, 2, 1), 3.0))
    figures = class_figures(frame(navs), outside, frequency="daily")
    assert figures["total_return_since_start"].value == pytest.approx(figures["return_since_start"].value)
    # An exact duplicate row is one distribution; a zero amount is none.
    once = class_figures(frame(navs), dividends((date(2024, 1, 3), 0.5)), frequency="daily")
    twice = class_figures(frame(navs), dividends((date(2024, 1, 3), 0.5), (date(2024, 1, 3), 0.5),
                                                 (date(2024, 1, 4), 0.0)), frequency="daily")
    assert once["total_return_since_start"].value == twice["total_return_since_start"].value
    assert once["total_return_since_start"].value == pytest.approx(100 * ((1 + 0.5 / 10.5) * 11.0 / 10.0 - 1))


# ---- volatility, drawdown, Sharpe ------------------------------------------------------------------

def zigzag(count: int, first=date(2024, 1, 1), step=1) -> dict:
    """NAVs alternating up 2 % and down 1 %, one every `step` days."""
    navs, value = {}, 10.0
    for i in range(count):
        navs[first + timedelta(days=i * step)] = value
        value *= 1.02 if i % 2 == 0 else 0.99
    return navs


def returns_of(navs: dict, max_step: int) -> list[float]:
    days = sorted(navs)
    return [navs[b] / navs[a] - 1 for a, b in zip(days, days[1:]) if (b - a).days <= max_step]


def test_volatility_is_the_annualised_std_of_daily_returns():
    navs = zigzag(30)
    figure = class_figures(frame(navs), frequency="daily")["volatility_since_start"]
    assert figure.value == pytest.approx(100 * statistics.stdev(returns_of(navs, 7)) * math.sqrt(252))
    assert figure.label == "Volatility, since launch (annualised)"


def test_volatility_leaves_out_returns_across_a_gap_of_more_than_7_days():
    navs = zigzag(30)
    later = {day + timedelta(days=8 + 29): value * 1.5 for day, value in zigzag(10).items()}  # an 8-day step, +50 %
    navs.update(later)
    assert gaps(frame(navs), "daily") == [Gap(date(2024, 1, 30), date(2024, 2, 7), 8)]
    kept = returns_of(navs, 7)
    assert len(kept) == 29 + 9
    figure = class_figures(frame(navs), frequency="daily")["volatility_since_start"]
    assert figure.value == pytest.approx(100 * statistics.stdev(kept) * math.sqrt(252))
    assert figure.gaps == (Gap(date(2024, 1, 30), date(2024, 2, 7), 8),)


def test_volatility_needs_its_minimum_of_returns():
    assert MIN_RETURNS == {"daily": 20, "weekly": 12, "monthly": 10}
    short = class_figures(frame(zigzag(20)), frequency="daily")  # 19 returns
    assert short["volatility_since_start"].value is None and "at least 20" in short["volatility_since_start"].reason
    assert short["sharpe_since_start"].value is None
    assert class_figures(frame(zigzag(21)), frequency="daily")["volatility_since_start"].value is not None


@pytest.mark.parametrize("frequency, step, per_year, max_step", [("weekly", 7, 52, 10), ("monthly", 30, 12, 45)])
def test_weekly_and_monthly_series_are_annualised_by_their_own_frequency(frequency, step, per_year, max_step):
    navs = zigzag(16, step=step)
    navs.update({day + timedelta(days=16 * step + 2 * step): v for day, v in zigzag(14, step=step).items()})
    assert infer_frequency(frame(navs)["nav_date"]) == frequency
    figure = class_figures(frame(navs))["volatility_since_start"]  # frequency inferred
    kept = returns_of(navs, max_step)
    assert len(kept) == 15 + 13  # the step across the missed period is left out
    assert figure.value == pytest.approx(100 * statistics.stdev(kept) * math.sqrt(per_year))


def test_maximum_drawdown_with_its_peak_trough_and_recovery():
    days = [date(2024, 1, d) for d in (2, 3, 4, 5, 8, 9)]
    navs = dict(zip(days, [100.0, 120.0, 90.0, 110.0, 125.0, 100.0]))
    figure = class_figures(frame(navs), frequency="daily")["max_drawdown_since_start"]
    assert figure.value == pytest.approx(100 * (90 / 120 - 1))  # -25 %
    assert (figure.peak, figure.trough, figure.recovery) == (days[1], days[2], days[4])
    series = drawdown_series(frame(navs))
    expected = [0, 0, 90 / 120 - 1, 110 / 120 - 1, 0, 100 / 125 - 1]
    assert series.to_numpy() == pytest.approx([100 * e for e in expected])
    assert list(series.index.date) == days


def test_a_drawdown_not_recovered_and_a_series_that_never_fell():
    days = [date(2024, 1, d) for d in (2, 3, 4, 5)]
    falling = class_figures(frame(dict(zip(days, [10.0, 12.0, 9.0, 11.0]))), frequency="daily")
    figure = falling["max_drawdown_since_start"]
    assert (figure.peak, figure.trough, figure.recovery) == (days[1], days[2], None)
    rising = class_figures(frame(dict(zip(days, [10.0, 11.0, 12.0, 13.0]))), frequency="daily")
    assert rising["max_drawdown_since_start"].value == 0 and rising["max_drawdown_since_start"].peak is None


def test_the_drawdown_is_the_factsheets_on_the_nav_per_unit_with_its_recovering_period():
    # The SEC factsheet's maximum drawdown is on the NAV per unit: the ex-date drop of a distributing
    # class counts (the total-return index, which adds the distribution back, falls less).
    days = [date(2024, 1, d) for d in (2, 3, 4, 5, 8, 9, 10)]
    navs = dict(zip(days, [10.0, 9.0, 8.5, 9.2, 9.9, 10.0, 10.1]))
    paid = dividends((days[1], 1.0))
    figure = class_figures(frame(navs), paid, frequency="daily")["max_drawdown_since_start"]
    assert figure.value == pytest.approx(100 * (8.5 / 10.0 - 1))  # -15 %, not the index's (8.5 / 9 - 1)
    assert (figure.peak, figure.trough, figure.recovery) == (days[0], days[2], days[5])
    assert figure.recovery_days == (days[5] - days[2]).days == 5
    assert figure.to_dict()["recovery_days"] == 5 and figure.to_dict()["recovered"] is True
    assert drawdown_series(frame(navs)).min() == pytest.approx(-15.0)
    # The chart of a range with its distributions is still the index's (what an investor's units did).
    assert drawdown_series(frame(navs), paid).min() == pytest.approx(100 * (8.5 / 9.0 - 1))
    falling = class_figures(frame(dict(zip(days[:3], [10.0, 9.0, 8.5]))), frequency="daily")
    assert falling["max_drawdown_since_start"].recovery_days is None
    assert falling["max_drawdown_since_start"].to_dict()["recovered"] is False


def test_the_five_year_drawdown_of_a_younger_class_is_since_launch():
    navs = every_day(date(2023, 3, 1), date(2024, 6, 28), value=lambda i: 100.0 + (i % 30) - i / 100)
    figures = class_figures(frame(navs), frequency="daily")  # the whole history: its launch is in it
    five = figures["max_drawdown_5y"]
    assert figures.since_launch and five.start == date(2023, 3, 1)
    assert five.value == pytest.approx(figures["max_drawdown_since_start"].value)
    assert five.label == "Maximum drawdown, 5 years (since launch: the class is younger)"
    assert figures["return_5y_ann"].value is None  # a return is never from a shorter history than its name
    # A history that starts where loading started may not hold the launch: no 5-year drawdown then.
    loaded = class_figures(frame(navs), frequency="daily", loaded_from=date(2023, 3, 1))
    assert not loaded.since_launch and loaded["max_drawdown_5y"].value is None
    assert loaded["max_drawdown_5y"].reason


def test_since_the_first_nav_says_since_launch_only_when_the_launch_was_loaded():
    navs = every_day(date(2024, 3, 4), date(2024, 6, 28))
    whole = class_figures(frame(navs), frequency="daily")
    assert whole["return_since_start"].label == "Return, since launch"
    launched = class_figures(frame(navs), frequency="daily", loaded_from=date(2024, 1, 1))  # launched after it
    assert launched.since_launch and launched["return_since_start"].label == "Return, since launch"
    cut = class_figures(frame(navs), frequency="daily", loaded_from=date(2024, 3, 1))
    assert not cut.since_launch
    assert cut["return_since_start"].label == "Return, since 4 Mar 2024 (not since launch)"
    assert cut.to_dict()["since_launch"] is False


def test_sharpe_is_the_annualised_mean_excess_return_over_the_annualised_std():
    navs = zigzag(40)
    figures = class_figures(frame(navs), frequency="daily", risk_free_pct=2.5)
    per_day = 1.025 ** (1 / 252) - 1  # the risk-free rate of one period
    excess = [r - per_day for r in returns_of(navs, 7)]
    expected = statistics.mean(excess) * 252 / (statistics.stdev(excess) * math.sqrt(252))
    assert figures["sharpe_since_start"].value == pytest.approx(expected)
    # Not the geometric annualised return over the volatility (the convention before issue 38).
    first, last = min(navs), max(navs)
    yearly = (navs[last] / navs[first]) ** (365 / (last - first).days) - 1
    assert figures["sharpe_since_start"].value != pytest.approx((yearly - 0.025) / figures["volatility_since_start"].value * 100)
    assert figures["sharpe_since_start"].unit == "" and figures.risk_free_pct == 2.5
    assert class_figures(frame(navs), risk_free_pct=np.float64(2.5)).values() == figures.values()
    flat = class_figures(frame({date(2024, 1, 1) + timedelta(days=i): 10.0 for i in range(30)}), frequency="daily")
    assert flat["volatility_since_start"].value == 0 and flat["sharpe_since_start"].value is None
    assert "did not move" in flat["sharpe_since_start"].reason


def test_one_year_risk_figures_use_the_one_year_window():
    navs = every_day(date(2022, 1, 1), date(2024, 6, 30), value=lambda i: 100.0 + (i % 7))
    figures = class_figures(frame(navs), frequency="daily", risk_free_pct=1.0)
    window = {d: v for d, v in navs.items() if d >= date(2023, 6, 30)}
    assert figures["volatility_1y"].start == date(2023, 6, 30)
    assert figures["volatility_1y"].value == pytest.approx(100 * statistics.stdev(returns_of(window, 7)) * math.sqrt(252))
    assert figures["max_drawdown_1y"].value == pytest.approx(100 * (100.0 / 106.0 - 1))


# ---- calendar years ----------------------------------------------------------------------------------

def test_calendar_year_returns_whole_and_partial_years():
    navs = business_days(date(2022, 3, 15), date(2024, 6, 28), value=lambda i: 10.0 * 1.001 ** i)
    years = calendar_year_returns(frame(navs), dividends((date(2023, 6, 15), 0.5)))
    assert [y.year for y in years] == [2022, 2023, 2024]
    first, whole, last = years
    assert first.partial and first.start == date(2022, 3, 15) and first.end == date(2022, 12, 30)
    assert first.label == "2022 (part: 15 Mar 2022 to 30 Dec 2022)"
    assert not whole.partial and whole.label == "2023"
    assert (whole.start, whole.end) == (date(2022, 12, 30), date(2023, 12, 29))
    assert whole.price_return == pytest.approx(100 * (navs[date(2023, 12, 29)] / navs[date(2022, 12, 30)] - 1))
    units = 1 + 0.5 / navs[date(2023, 6, 15)]
    assert whole.total_return == pytest.approx(100 * (units * navs[date(2023, 12, 29)] / navs[date(2022, 12, 30)] - 1))
    assert last.partial and last.start == date(2023, 12, 29) and last.end == date(2024, 6, 28)
    assert json.loads(json.dumps([y.to_dict() for y in years]))[1]["start"] == "2022-12-30"


def test_a_year_with_one_nav_or_none_has_no_return():
    navs = {date(2021, 12, 30): 10.0, date(2023, 1, 3): 11.0, date(2023, 12, 29): 12.0}
    years = calendar_year_returns(frame(navs), frequency="daily")
    assert [(y.year, y.price_return) for y in years][:2] == [(2021, None), (2022, None)]
    assert "No NAV in 2022" in years[1].reason
    # 2023 cannot be measured from 30 December 2021 (a year-long gap): from its first NAV, partial.
    assert years[2].partial and years[2].price_return == pytest.approx(100 * (12 / 11 - 1))


# ---- gaps and frequency --------------------------------------------------------------------------------

def test_gaps_are_the_breaks_longer_than_7_days():
    navs = {**business_days(date(2024, 1, 2), date(2024, 2, 7)), **business_days(date(2024, 2, 21), date(2024, 3, 29))}
    navs.pop(date(2024, 3, 1))  # a missed Friday: a 4-day step, not a gap
    assert gaps(frame(navs), "daily") == [Gap(date(2024, 2, 7), date(2024, 2, 21), 14)]
    assert Gap(date(2024, 2, 7), date(2024, 2, 21), 14).to_dict() == {"start": "2024-02-07", "end": "2024-02-21", "days": 14}
    assert class_figures(frame(navs)).gaps == (Gap(date(2024, 2, 7), date(2024, 2, 21), 14),)


def test_infer_frequency():
    assert infer_frequency(pd.bdate_range("2024-01-01", "2024-03-01")) == "daily"
    assert infer_frequency(pd.date_range("2024-01-05", periods=20, freq="7D")) == "weekly"
    assert infer_frequency(pd.date_range("2023-01-31", periods=12, freq="ME")) == "monthly"
    assert infer_frequency([date(2024, 1, 1)]) == "daily"


# ---- rebasing ------------------------------------------------------------------------------------------

def test_rebase_from_the_first_day_all_have_a_nav():
    a = {date(2024, 1, d): v for d, v in ((1, 10.0), (2, 11.0), (3, 12.0), (4, 13.0), (5, 12.0))}
    b = {date(2024, 1, d): v for d, v in ((3, 50.0), (5, 55.0))}
    start, rebased = rebase({"A": frame(a), "B": frame(b)})
    assert start == date(2024, 1, 3)
    assert list(rebased.columns) == ["A", "B"] and rebased.index.name == "nav_date"
    assert list(rebased.index.date) == [date(2024, 1, 3), date(2024, 1, 4), date(2024, 1, 5)]
    assert rebased["A"].tolist() == pytest.approx([100.0, 100 * 13 / 12, 100.0])
    assert rebased["B"].iloc[0] == 100.0 and math.isnan(rebased["B"].iloc[1]) and rebased["B"].iloc[2] == pytest.approx(110.0)
    # The same window's figures for each.
    assert figures_since(frame(a), start=start)["return_common"].value == pytest.approx(0.0)
    common_b = figures_since(frame(b), start=start)
    assert common_b["return_common"].value == pytest.approx(10.0) and common_b["return_common"].start == start
    assert common_b.keys() == figure_keys(("common",), ("common",))
    assert rebase({"A": frame({date(2024, 1, 1): 1.0}), "B": frame({date(2024, 1, 2): 1.0})})[0] is None


# ---- bad data ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("values, words", [
    ({date(2024, 1, 2): 10.0, date(2024, 1, 3): 0.0}, "0 or less on 2024-01-03"),
    ({date(2024, 1, 2): 10.0, date(2024, 1, 3): -1.0}, "0 or less"),
    ({date(2024, 1, 2): 10.0, date(2024, 1, 3): float("nan")}, "no NAV on 2024-01-03"),
])
def test_a_nav_of_zero_negative_or_missing_is_refused(values, words):
    with pytest.raises(BadInputError, match=words) as error:
        class_figures(frame(values))
    assert isinstance(error.value, ValueError) and "\n" not in str(error.value)


def test_a_day_twice_is_refused_and_unsorted_rows_are_sorted():
    twice = pd.concat([frame({date(2024, 1, 2): 10.0}), frame({date(2024, 1, 2): 10.5})])
    with pytest.raises(BadInputError, match="2024-01-02 twice"):
        class_figures(twice)
    navs = zigzag(25)
    shuffled = frame(navs).sample(frac=1.0, random_state=3)
    assert class_figures(shuffled).to_dict() == class_figures(frame(navs)).to_dict()


def test_other_bad_input_is_refused_with_one_line():
    navs = frame(zigzag(25))
    cases = [lambda: class_figures(navs.iloc[0:0]), lambda: class_figures(navs, as_of=date(2020, 1, 1)),
             lambda: class_figures(navs, frequency="hourly"), lambda: class_figures(navs, risk_free_pct=float("nan")),
             lambda: class_figures(navs, dividends((date(2024, 1, 3), -0.5))),
             lambda: class_figures(pd.DataFrame({"date": [1]}))]
    for case in cases:
        with pytest.raises(BadInputError) as error:
            case()
        assert str(error.value) and "\n" not in str(error.value)


def test_as_of_ignores_the_later_navs():
    navs = zigzag(40)
    cut = date(2024, 1, 25)
    assert class_figures(frame(navs), as_of=cut).to_dict() == class_figures(
        frame({d: v for d, v in navs.items() if d <= cut})).to_dict()


# ---- keys, labels and the JSON form --------------------------------------------------------------------

def test_every_figure_has_its_key_label_window_and_a_json_form():
    navs = business_days(date(2018, 1, 2), date(2024, 6, 28), value=lambda i: 10 + math.sin(i / 9))
    figures = class_figures(frame(navs), dividends((date(2023, 5, 2), 0.2)), risk_free_pct=2.0)
    assert isinstance(figures, ClassFigures) and figures.keys() == FIGURE_KEYS
    assert {"return_1m", "return_ytd", "return_3y_ann", "return_5y_ann", "return_since_start_ann", "total_return_1y",
            "volatility_1y", "max_drawdown_1y", "sharpe_1y"} <= set(FIGURE_KEYS)
    labels = [f.label for f in figures.figures]
    assert len(set(labels)) == len(labels) and not any("_" in label for label in labels)
    assert all(f.value is not None and f.end == date(2024, 6, 28) for f in figures.figures)
    data = json.loads(json.dumps(figures.to_dict(), allow_nan=False))
    assert list(data["figures"]) == list(FIGURE_KEYS) and data["last_nav_date"] == "2024-06-28"
    one_year = data["figures"]["max_drawdown_1y"]
    assert one_year["start"] == "2023-06-28" and one_year["end"] == "2024-06-28" and one_year["trough"]
    assert figures.values()["return_1y"] == figures["return_1y"].value


# ---- properties ----------------------------------------------------------------------------------------

navs_strategy = st.lists(st.floats(min_value=0.5, max_value=2.0), min_size=2, max_size=60)


def series_from(factors: list[float]) -> pd.DataFrame:
    values = np.cumprod(factors) * 10.0
    return frame({date(2023, 1, 2) + timedelta(days=i): v for i, v in enumerate(values)})


@settings(max_examples=40, deadline=None)
@given(navs_strategy)
def test_rebasing_keeps_the_returns(factors):
    nav = series_from(factors)
    _, rebased = rebase({"A": nav})
    again = rebased["A"].rename("nav").reset_index()
    original, scaled = class_figures(nav).values(), class_figures(again).values()
    for key, value in original.items():
        assert (value is None) == (scaled[key] is None)
        if value is not None:
            assert scaled[key] == pytest.approx(value, rel=1e-9, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(navs_strategy)
def test_drawdowns_are_never_above_zero(factors):
    nav = series_from(factors)
    assert (drawdown_series(nav) <= 0).all()
    assert class_figures(nav)["max_drawdown_since_start"].value <= 0


@settings(max_examples=40, deadline=None)
@given(navs_strategy, st.floats(min_value=0.01, max_value=5.0), st.integers(min_value=1, max_value=59))
def test_a_distribution_never_lowers_the_total_return_below_the_price_return(factors, amount, offset):
    nav = series_from(factors)
    ex_date = date(2023, 1, 2) + timedelta(days=offset % len(factors))
    figures = class_figures(nav, dividends((ex_date, amount)))
    for key in FIGURE_KEYS:
        if key.startswith("return_") and figures[key].value is not None:
            assert figures["total_" + key].value >= figures[key].value - 1e-9


# ---- the real captures ---------------------------------------------------------------------------------

def test_distributions_as_the_service_sends_them():
    # Book-close dates with seven-digit fractions and a space separator, per unit, one class only.
    from tests.shared_files import CAPTURES, require

    items = json.loads(require(CAPTURES / "dividend-history.json").read_text(encoding="utf-8"))["items"]
    rows = [i for i in items if i["class_abbr_name"] == "1AMSET50-ID"]
    assert [r["book_close_date"] for r in rows] == ["2024-01-25 00:00:00.0000000", "2024-04-30 00:00:00.0000000"]
    paid = pd.DataFrame({"ex_date": [r["book_close_date"] for r in rows],
                         "pay_date": [r["dividend_date"] for r in rows],
                         "per_unit": [r["dividend_value"] for r in rows]})
    navs = business_days(date(2024, 1, 2), date(2024, 6, 28), value=lambda i: 10.0 + 0.01 * i)
    figures = class_figures(frame(navs), paid, frequency="daily")
    units = (1 + 0.15 / navs[date(2024, 1, 25)]) * (1 + 0.52 / navs[date(2024, 4, 30)])
    expected = units * navs[date(2024, 6, 28)] / navs[date(2024, 1, 2)] - 1
    assert figures["total_return_since_start"].value == pytest.approx(100 * expected)


def test_one_class_with_one_nav_from_the_service_is_an_explicit_empty_state():
    from tests.shared_files import CAPTURES, require

    items = json.loads(require(CAPTURES / "daily-nav-range.json").read_text(encoding="utf-8"))["items"]
    row = next(i for i in items if i["fund_class_name"] == "KT-ASEAN-SSF")
    nav = pd.DataFrame({"nav_date": pd.to_datetime([row["nav_date"]]), "nav": [row["last_val"]],
                        "offer": [row["sell_price"]], "bid": [row["buy_price"]], "net_asset": [row["net_asset"]]})
    figures = class_figures(nav)
    assert figures.last_nav_date == date.fromisoformat(row["nav_date"]) and figures.gaps == ()
    assert all(f.value is None and "Only one NAV" in f.reason for f in figures.figures
               if f.window == "since_start")
    assert calendar_year_returns(nav)[0].price_return is None


# ---- the Sharpe ratio against an independent library (issue 38) ---------------------------------------

@pytest.mark.parametrize("frequency, step, per_year, max_step", [("daily", 1, 252, 7), ("weekly", 7, 52, 10),
                                                                 ("monthly", 30, 12, 45)])
@pytest.mark.parametrize("risk_free", [0.0, 3.0])
def test_sharpe_and_volatility_agree_with_empyrical(frequency, step, per_year, max_step, risk_free):
    empyrical = pytest.importorskip("empyrical")
    rng = np.random.default_rng(38)
    navs, value = {}, 10.0
    for i in range(80):
        navs[date(2019, 1, 1) + timedelta(days=i * step)] = value
        value *= 1.0 + rng.normal(0.001, 0.02)
    figures = class_figures(frame(navs), frequency=frequency, risk_free_pct=risk_free)
    returns = pd.Series(returns_of(navs, max_step))
    rf = (1 + risk_free / 100) ** (1 / per_year) - 1
    period = {"daily": "daily", "weekly": "weekly", "monthly": "monthly"}[frequency]
    assert figures["sharpe_since_start"].value == pytest.approx(
        empyrical.sharpe_ratio(returns, risk_free=rf, period=period), rel=1e-12)
    assert figures["volatility_since_start"].value == pytest.approx(
        100 * empyrical.annual_volatility(returns, period=period), rel=1e-12)
    # empyrical's max_drawdown of the NAV's returns is the factsheet's drawdown (no distributions here).
    assert figures["max_drawdown_since_start"].value == pytest.approx(
        100 * empyrical.max_drawdown(pd.Series(returns_of(navs, 10_000))), rel=1e-12)


def test_the_default_nav_days_give_every_one_year_figure_of_a_monthly_fund():
    """`market sync --nav-days`' default keeps enough NAV for the 1-year figures of a monthly fund whose last
    NAV is two months old (its month-end NAV published late), as of a daily or weekly one (issue 38)."""
    from dashboard.market.nav_sync import DEFAULT_NAV_DAYS

    today = date(2026, 11, 28)
    kept = today - timedelta(days=DEFAULT_NAV_DAYS)
    month_ends = [d.date() for d in pd.date_range("2020-01-31", "2026-09-30", freq="BME") if d.date() >= kept]
    for frequency, days in (("monthly", month_ends),
                            ("weekly", [d.date() for d in pd.date_range(kept, today - timedelta(days=3), freq="W-FRI")]),
                            ("daily", [d.date() for d in pd.bdate_range(kept, today - timedelta(days=1))])):
        navs = {day: 10.0 * (1.01 if i % 2 else 0.995) ** i for i, day in enumerate(days)}
        figures = class_figures(frame(navs), frequency=frequency)
        for key in ("return_1y", "total_return_1y", "volatility_1y", "max_drawdown_1y", "sharpe_1y"):
            assert figures[key].value is not None, (frequency, key, figures[key].reason)

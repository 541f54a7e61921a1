"""One class's NAV series checked, and the frequency, gaps, calendar windows and total-return index its figures use.

The conventions (issue 27), which `nav_figures` follows exactly:
- A series is one class's NAVs, one per date. A NAV of 0 or less, a missing NAV or date, or a date
  twice is refused with a `BadInputError`; unsorted rows are sorted by date (order carries no meaning).
- The frequency is "daily", "weekly" or "monthly" (`infer_frequency`: the median step between dates).
- A gap is a step between two consecutive NAVs longer than `GAP_DAYS[frequency]` days: 7 daily (the
  issue's rule), 10 weekly and 45 monthly (one and a half of the series' own period, so a NAV day
  moved by a holiday is not a gap, a missed NAV is). Gaps are reported, never filled.
- A window is a calendar period back from the class's last NAV date: it starts from the last NAV on
  or before the same day N months earlier (31 March minus one month is 28/29 February); YTD starts
  from the last NAV of the previous year. A window whose start predates the first NAV, or whose
  last NAV on or before its start is more than `GAP_DAYS` days before that start (a gap), has no
  figures: never a figure from a shorter history than its name says.
- Distributions are reinvested at the first NAV on or after their ex (book-close) date: that NAV is
  the first without the distribution in it (a NAV before the ex date still holds it). A distribution on or before the first NAV date, or after the last,
  is not part of the history. Zero amounts are ignored; exact duplicate rows count once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Iterable

import numpy as np
import pandas as pd

from dashboard.errors import BadInputError

FREQUENCIES = ("daily", "weekly", "monthly")
# Periods a year, to annualise the standard deviation of period returns.
PERIODS_PER_YEAR = {"daily": 252, "weekly": 52, "monthly": 12}
# A step between two NAVs longer than this (days) is a gap: no return is computed across it.
GAP_DAYS = {"daily": 7, "weekly": 10, "monthly": 45}
# Windows by name: calendar months back from the last NAV date ("ytd" and "since_start" are special).
WINDOW_MONTHS = {"1m": 1, "3m": 3, "6m": 6, "1y": 12, "3y": 36, "5y": 60}
WINDOWS = ("1m", "3m", "6m", "ytd", "1y", "3y", "5y", "since_start")


@dataclass(frozen=True)
class Gap:
    """A break in a series: `start` is the last NAV before it, `end` the first after, `days` between them."""

    start: date
    end: date
    days: int

    def to_dict(self) -> dict:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(), "days": self.days}


@dataclass(frozen=True)
class Window:
    """A window of one series: `start` is the NAV the figures are measured from (None when there is none,
    with the `reason`), `end` the last NAV date, `period_start` the calendar day the period begins."""

    name: str
    period_start: date | None
    start: date | None
    end: date
    reason: str | None = None


def check_frequency(frequency: str) -> str:
    if frequency not in FREQUENCIES:
        raise BadInputError(f"Unknown NAV frequency {frequency!r}: use one of {', '.join(FREQUENCIES)}.")
    return frequency


def _dates(values: Iterable, what: str) -> pd.Series:
    dates = pd.to_datetime(pd.Series(list(values) if not isinstance(values, pd.Series) else values),
                           errors="coerce")
    if dates.isna().any():
        raise BadInputError(f"The {what} has a missing or unreadable date: every row needs one.")
    if dates.dt.tz is not None:
        dates = dates.dt.tz_localize(None)
    return dates.dt.normalize()


def nav_series(nav: pd.DataFrame, as_of: date | None = None) -> pd.Series:
    """One class's NAVs as a float Series indexed by date, ascending, checked (see the module's conventions).

    `as_of` keeps only the NAVs on or before that day. Raises `BadInputError` when nothing is left.
    """
    if not isinstance(nav, pd.DataFrame) or not {"nav_date", "nav"} <= set(nav.columns):
        raise BadInputError("A NAV series is a table with the columns nav_date and nav.")
    dates = _dates(nav["nav_date"], "NAV series")
    values = pd.to_numeric(nav["nav"], errors="coerce").to_numpy(dtype=float)
    for bad, why in ((~np.isfinite(values), "no NAV"), (np.isfinite(values) & (values <= 0), "a NAV of 0 or less")):
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise BadInputError(f"The NAV series has {why} on {dates.iloc[first].date()} ({values[first]!r}): "
                                "every NAV must be a number above 0.")
    if dates.duplicated().any():
        day = dates[dates.duplicated()].iloc[0].date()
        raise BadInputError(f"The NAV series has {day} twice: one NAV per day.")
    series = pd.Series(values, index=pd.DatetimeIndex(dates, name="nav_date"), name="nav").sort_index()
    if as_of is not None:
        series = series[series.index <= pd.Timestamp(as_of)]
    if series.empty:
        when = f" on or before {as_of}" if as_of is not None else ""
        raise BadInputError(f"The NAV series has no NAV{when}: there is nothing to compute figures from.")
    return series


def dividend_series(dividends: pd.DataFrame | None) -> pd.Series:
    """One class's distributions per unit (baht), indexed by ex date, ascending (see the module's conventions)."""
    if dividends is None or len(dividends) == 0:
        return pd.Series([], index=pd.DatetimeIndex([], name="ex_date"), dtype=float, name="per_unit")
    if not isinstance(dividends, pd.DataFrame) or not {"ex_date", "per_unit"} <= set(dividends.columns):
        raise BadInputError("Distributions are a table with the columns ex_date and per_unit.")
    frame = dividends.drop_duplicates()
    dates = _dates(frame["ex_date"], "distribution table")
    amounts = pd.to_numeric(frame["per_unit"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(amounts) | (amounts < 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise BadInputError(f"The distribution with ex date {dates.iloc[first].date()} has an amount of "
                            f"{amounts[first]!r}: an amount per unit is a number of 0 or more.")
    series = pd.Series(amounts, index=pd.DatetimeIndex(dates, name="ex_date"), name="per_unit").sort_index()
    return series[series > 0]


def infer_frequency(dates: Iterable) -> str:
    """"daily", "weekly" or "monthly" from the median step between distinct dates (under 5 days daily,
    under 20 weekly, else monthly); fewer than two dates are "daily"."""
    days = pd.DatetimeIndex(_dates(dates, "date list").unique()).sort_values()
    if len(days) < 2:
        return "daily"
    step = float(np.median(np.diff(days.to_numpy()).astype("timedelta64[D]").astype(int)))
    return "daily" if step < 5 else "weekly" if step < 20 else "monthly"


def gaps_in(series: pd.Series, frequency: str) -> list[Gap]:
    """The breaks in a checked series longer than `GAP_DAYS[frequency]` days."""
    limit = GAP_DAYS[check_frequency(frequency)]
    index = series.index
    steps = (index[1:] - index[:-1]).days
    return [Gap(index[i].date(), index[i + 1].date(), int(steps[i])) for i in np.flatnonzero(steps > limit)]


def gaps(nav: pd.DataFrame, frequency: str) -> list[Gap]:
    """The breaks in one class's NAV series longer than `GAP_DAYS[frequency]` days (7 for a daily series)."""
    return gaps_in(nav_series(nav), frequency)


def window(series: pd.Series, name: str, frequency: str) -> Window:
    """The window `name` (one of `WINDOWS`) back from the series' last NAV date."""
    index = series.index
    end = index[-1]
    if name == "since_start":
        reason = None if len(index) > 1 else f"Only one NAV ({end.date()}): a figure needs at least two."
        return Window(name, None, index[0].date() if reason is None else None, end.date(), reason)
    if name == "ytd":
        period_start = pd.Timestamp(end.year - 1, 12, 31)
    elif name in WINDOW_MONTHS:
        period_start = end - pd.DateOffset(months=WINDOW_MONTHS[name])
    else:
        raise BadInputError(f"Unknown window {name!r}: use one of {', '.join(WINDOWS)}.")
    return window_from(series, period_start, frequency, name=name)


def window_from(series: pd.Series, period_start: date | pd.Timestamp, frequency: str, *, name: str) -> Window:
    """A window from the last NAV on or before `period_start` to the series' last NAV."""
    index = series.index
    period_start = pd.Timestamp(period_start)
    end = index[-1].date()
    if period_start < index[0]:
        return Window(name, period_start.date(), None, end,
                      f"The history starts on {index[0].date()}, after this period's start "
                      f"({period_start.date()}): no figure from a shorter history.")
    if period_start >= index[-1]:
        return Window(name, period_start.date(), None, end,
                      f"The period starts on {period_start.date()}, on or after the last NAV ({end}).")
    base = index[index.searchsorted(period_start, side="right") - 1]
    limit = GAP_DAYS[check_frequency(frequency)]
    if (period_start - base).days > limit:
        return Window(name, period_start.date(), None, end,
                      f"No NAV in the {limit} days up to {period_start.date()} (the series has a gap from "
                      f"{base.date()}): no figure from a shorter history.")
    return Window(name, period_start.date(), base.date(), end)


def total_return_index(series: pd.Series, distributions: pd.Series) -> pd.Series:
    """The value of the units one NAV bought, distributions reinvested (see the module's conventions).

    Equals the NAV series until the first ex date inside the history; returns between any two of its
    dates are total returns.
    """
    index = series.index
    growth = np.ones(len(index))
    for ex_date, per_unit in distributions.items():
        if ex_date <= index[0] or ex_date > index[-1]:
            continue
        at = index.searchsorted(ex_date, side="left")  # the first NAV on or after the ex date: ex-distribution
        growth[at] *= 1.0 + per_unit / series.iloc[at]
    return pd.Series(series.to_numpy() * np.cumprod(growth), index=index, name="total_return_index")

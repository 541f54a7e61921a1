"""Return and risk figures from one class's NAV history: windows, total return, volatility, drawdown, Sharpe.

Pure pandas/numpy over the frames of `dashboard.api.nav` (nav: nav_date, nav, ...; dividends:
ex_date, pay_date, per_unit). The conventions (windows, gaps, reinvestment, bad data) are stated in
`dashboard.models.nav_windows`; on top of them:
- Returns, volatility and drawdowns are in percent (5.0 = 5 %), like the factsheet's published
  figures; a Sharpe ratio is a plain number.
- Periods up to one year (1M 3M 6M YTD 1Y) give the cumulative return; 3Y and 5Y give the
  annualised return (1 + r) ^ (365 / days) - 1, `days` the calendar days between the window's first
  and last NAV. Since the first NAV gives both; the annualised one only for a history longer than a year.
- Price return uses the NAV; total return reinvests the distributions. Volatility, drawdown and
  Sharpe use the total-return series, so an ex-date drop is not counted as a loss (for a class
  without distributions that series is the NAV itself).
- Volatility: sample standard deviation (n - 1) of the period returns inside the window, times
  sqrt(252) daily, sqrt(52) weekly, sqrt(12) monthly, leaving out returns across a gap; at least
  `MIN_RETURNS[frequency]` returns (20 daily, 12 weekly, 10 monthly), else no figure.
- Sharpe: (annualised total return over the window - risk-free rate) / volatility.
- A figure that cannot be computed has value None and a `reason`; never a figure from too little data.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import pandas as pd

from dashboard.errors import BadInputError
from dashboard.models.nav_windows import (
    FREQUENCIES, GAP_DAYS, PERIODS_PER_YEAR, WINDOWS, Gap, Window, check_frequency, dividend_series,
    gaps, gaps_in, infer_frequency, nav_series, total_return_index, window, window_from,
)

__all__ = ["FIGURE_KEYS", "FREQUENCIES", "GAP_DAYS", "MIN_RETURNS", "WINDOWS", "ClassFigures", "Figure", "Gap",
           "YearReturn", "calendar_year_returns", "class_figures", "drawdown_series", "figure_keys",
           "figures_since", "gaps", "infer_frequency", "rebase"]

# The fewest period returns (gaps left out) a volatility, and so a Sharpe ratio, is computed from.
MIN_RETURNS = {"daily": 20, "weekly": 12, "monthly": 10}
RISK_WINDOWS = ("1y", "3y", "5y", "since_start")
# Windows whose return is annualised (the AIMC standard: beyond one year).
ANNUALISED_WINDOWS = ("3y", "5y")
WINDOW_LABELS = {"1m": "1 month", "3m": "3 months", "6m": "6 months", "ytd": "year to date", "1y": "1 year",
                 "3y": "3 years", "5y": "5 years", "since_start": "since the first NAV",
                 "common": "since the common start"}
KIND_LABELS = {"return": "Return", "total_return": "Total return (distributions reinvested)",
               "volatility": "Volatility", "max_drawdown": "Maximum drawdown", "sharpe": "Sharpe ratio"}


def figure_keys(windows: tuple[str, ...] = WINDOWS, risk_windows: tuple[str, ...] = RISK_WINDOWS) -> tuple[str, ...]:
    """The keys of the figures for these windows, in the order `class_figures` gives them."""
    keys: list[str] = []
    for kind in ("return", "total_return"):
        for name in windows:
            if name in ANNUALISED_WINDOWS:
                keys.append(f"{kind}_{name}_ann")
            elif name in ("since_start", "common"):
                keys += [f"{kind}_{name}", f"{kind}_{name}_ann"]
            else:
                keys.append(f"{kind}_{name}")
    for kind in ("volatility", "max_drawdown", "sharpe"):
        keys += [f"{kind}_{name}" for name in risk_windows]
    return tuple(keys)


# Every key class_figures gives, in order: return_1m ... return_since_start_ann, total_return_..., volatility_1y ...
FIGURE_KEYS = figure_keys()


@dataclass(frozen=True)
class Figure:
    """One figure of one class over one window.

    `key` names the figure and its window (stable: the JSON and the market store use it); `label`
    says it for people; `value` is a percent (returns, volatility, drawdown) or a ratio (Sharpe), or
    None with the `reason`. `start` is the NAV date it is measured from, `end` the window's last NAV
    date, `period_start` the calendar day the period begins; `gaps` are the breaks inside the window.
    A drawdown also has its `peak`, `trough` and `recovery` dates (recovery None: not recovered).
    """

    key: str
    label: str
    kind: str
    window: str
    value: float | None
    start: date | None
    end: date
    last_nav_date: date
    period_start: date | None = None
    annualised: bool = False
    unit: str = "%"
    reason: str | None = None
    gaps: tuple[Gap, ...] = ()
    peak: date | None = None
    trough: date | None = None
    recovery: date | None = None

    def to_dict(self) -> dict:
        """A JSON-ready dict: dates as ISO strings, None where unknown."""
        iso = lambda day: day.isoformat() if day is not None else None  # noqa: E731
        out = {"key": self.key, "label": self.label, "kind": self.kind, "window": self.window, "value": self.value,
               "unit": self.unit, "annualised": self.annualised, "start": iso(self.start), "end": iso(self.end),
               "period_start": iso(self.period_start), "last_nav_date": iso(self.last_nav_date),
               "reason": self.reason, "gaps": [gap.to_dict() for gap in self.gaps]}
        if self.kind == "max_drawdown":
            out.update(peak=iso(self.peak), trough=iso(self.trough), recovery=iso(self.recovery))
        return out


@dataclass(frozen=True)
class ClassFigures:
    """Every figure of one class (in `FIGURE_KEYS` order), with the series' first and last NAV dates and gaps."""

    first_nav_date: date
    last_nav_date: date
    frequency: str
    risk_free_pct: float
    figures: tuple[Figure, ...]
    gaps: tuple[Gap, ...] = field(default=())

    def __getitem__(self, key: str) -> Figure:
        for figure in self.figures:
            if figure.key == key:
                return figure
        raise KeyError(key)

    def keys(self) -> tuple[str, ...]:
        return tuple(figure.key for figure in self.figures)

    def values(self) -> dict[str, float | None]:
        """Each figure's value by key (the market store's figure columns)."""
        return {figure.key: figure.value for figure in self.figures}

    def to_dict(self) -> dict:
        """A JSON-ready dict: `figures` by key, dates as ISO strings."""
        return {"first_nav_date": self.first_nav_date.isoformat(), "last_nav_date": self.last_nav_date.isoformat(),
                "frequency": self.frequency, "risk_free_pct": self.risk_free_pct,
                "gaps": [gap.to_dict() for gap in self.gaps],
                "figures": {figure.key: figure.to_dict() for figure in self.figures}}


def _label(kind: str, name: str, annualised: bool) -> str:
    text = f"{KIND_LABELS[kind]}, {WINDOW_LABELS.get(name, name)}"
    if kind == "volatility":
        return text + " (annualised)"
    return text + " (a year)" if annualised else text


def _annualise(ratio: float, start: pd.Timestamp, end: pd.Timestamp) -> float:
    return ratio ** (365.0 / (end - start).days) - 1.0


def _over_a_year(start: pd.Timestamp, end: pd.Timestamp) -> bool:
    return start < end - pd.DateOffset(years=1)


def _volatility(tri: pd.Series, frequency: str) -> tuple[float | None, str | None]:
    """Annualised volatility (a fraction) of the period returns of a window's slice, gaps left out."""
    steps = (tri.index[1:] - tri.index[:-1]).days
    returns = (tri.to_numpy()[1:] / tri.to_numpy()[:-1] - 1.0)[steps <= GAP_DAYS[frequency]]
    needed = MIN_RETURNS[frequency]
    if len(returns) < needed:
        return None, (f"{len(returns)} {frequency} returns in this window (gaps left out): "
                      f"volatility needs at least {needed}.")
    return float(np.std(returns, ddof=1) * math.sqrt(PERIODS_PER_YEAR[frequency])), None


def _drawdown(tri: pd.Series) -> tuple[float, date | None, date | None, date | None]:
    """The deepest fall (a fraction, <= 0) from a running peak, with its peak, trough and recovery dates."""
    values, days = tri.to_numpy(), tri.index
    drawdown = values / np.maximum.accumulate(values) - 1.0
    trough = int(np.argmin(drawdown))
    if drawdown[trough] >= 0:
        return 0.0, None, None, None
    peak = int(np.argmax(values[: trough + 1]))
    recovered = np.flatnonzero(values[trough:] >= values[peak])
    recovery = days[trough + recovered[0]].date() if len(recovered) else None
    return float(drawdown[trough]), days[peak].date(), days[trough].date(), recovery


def _window_figures(series: pd.Series, tri: pd.Series, win: Window, frequency: str, risk_free_pct: float,
                    all_gaps: list[Gap]) -> list[Figure]:
    """The figures of one window, as `figure_keys` lists them for it."""
    end = pd.Timestamp(win.end)
    start = pd.Timestamp(win.start) if win.start is not None else None
    inside = tuple(g for g in all_gaps if start is not None and g.start >= win.start)
    common = dict(window=win.name, start=win.start, end=win.end, last_nav_date=win.end,
                  period_start=win.period_start, gaps=inside)
    out: list[Figure] = []

    def add(kind: str, key: str, value: float | None, reason: str | None, *, annualised=False, unit="%", **extra):
        value = None if value is None else float(value)
        out.append(Figure(key=key, label=_label(kind, win.name, annualised), kind=kind, value=value,
                          reason=reason if value is None else None, annualised=annualised, unit=unit,
                          **common, **extra))

    for kind, values in (("return", series), ("total_return", tri)):
        ratio = values[end] / values[start] if start is not None else None
        cumulative = None if ratio is None else 100.0 * (ratio - 1.0)
        annualised = None
        ann_reason = win.reason
        if ratio is not None and _over_a_year(start, end):
            annualised = 100.0 * _annualise(ratio, start, end)
        elif ratio is not None:
            ann_reason = "A year or less of history: returns up to one year are not annualised."
        if win.name in ANNUALISED_WINDOWS:
            add(kind, f"{kind}_{win.name}_ann", annualised, ann_reason, annualised=True)
        elif win.name in ("since_start", "common"):
            add(kind, f"{kind}_{win.name}", cumulative, win.reason)
            add(kind, f"{kind}_{win.name}_ann", annualised, ann_reason, annualised=True)
        else:
            add(kind, f"{kind}_{win.name}", cumulative, win.reason)
    if win.name in RISK_WINDOWS + ("common",):
        _risk_figures(tri, win, frequency, risk_free_pct, add)
    return out


def _risk_figures(tri: pd.Series, win: Window, frequency: str, risk_free_pct: float, add) -> None:
    """Volatility, maximum drawdown and Sharpe of one window, each passed to `add`."""
    if win.start is None:
        for kind in ("volatility", "max_drawdown", "sharpe"):
            add(kind, f"{kind}_{win.name}", None, win.reason, unit="" if kind == "sharpe" else "%")
        return
    start, end = pd.Timestamp(win.start), pd.Timestamp(win.end)
    part = tri.loc[start:end]
    volatility, reason = _volatility(part, frequency)
    add("volatility", f"volatility_{win.name}", None if volatility is None else 100.0 * volatility, reason)
    depth, peak, trough, recovery = _drawdown(part)
    add("max_drawdown", f"max_drawdown_{win.name}", 100.0 * depth, None, peak=peak, trough=trough, recovery=recovery)
    sharpe = None
    if volatility == 0:
        reason = "The series did not move in this window: no volatility to divide by."
    elif volatility is not None:
        yearly = _annualise(part.iloc[-1] / part.iloc[0], start, end)
        sharpe = (yearly - risk_free_pct / 100.0) / volatility
    add("sharpe", f"sharpe_{win.name}", sharpe, reason, unit="")


def _inputs(nav, dividends, frequency, as_of, risk_free_pct=0.0):
    if not isinstance(risk_free_pct, numbers.Real) or not math.isfinite(risk_free_pct):
        raise BadInputError(f"The risk-free rate must be a number (percent a year), not {risk_free_pct!r}.")
    series = nav_series(nav, as_of)
    frequency = check_frequency(frequency) if frequency is not None else infer_frequency(series.index)
    return series, total_return_index(series, dividend_series(dividends)), frequency


def class_figures(nav: pd.DataFrame, dividends: pd.DataFrame | None = None, *, frequency: str | None = None,
                  risk_free_pct: float = 0.0, as_of: date | None = None) -> ClassFigures:
    """Every figure of one class (keys in `FIGURE_KEYS` order) over the windows back from its last NAV date.

    `frequency` None infers it from the dates; `as_of` ignores the NAVs after that day. Raises
    `BadInputError` for bad data (no NAV left, a NAV of 0 or less, a date twice, an unknown frequency).
    """
    series, tri, frequency = _inputs(nav, dividends, frequency, as_of, risk_free_pct)
    all_gaps = gaps_in(series, frequency)
    figures: list[Figure] = []
    for name in WINDOWS:
        figures += _window_figures(series, tri, window(series, name, frequency), frequency, risk_free_pct, all_gaps)
    order = {key: i for i, key in enumerate(FIGURE_KEYS)}
    figures.sort(key=lambda figure: order[figure.key])
    return ClassFigures(series.index[0].date(), series.index[-1].date(), frequency, float(risk_free_pct),
                        tuple(figures), tuple(all_gaps))


def figures_since(nav: pd.DataFrame, dividends: pd.DataFrame | None = None, *, start: date,
                  frequency: str | None = None, risk_free_pct: float = 0.0) -> ClassFigures:
    """The figures of one class from `start` (e.g. a basket's common start) to its last NAV, keys
    `figure_keys(("common",), ("common",))`: return_common, return_common_ann, ..., sharpe_common."""
    series, tri, frequency = _inputs(nav, dividends, frequency, None, risk_free_pct)
    all_gaps = gaps_in(series, frequency)
    win = window_from(series, start, frequency, name="common")
    figures = _window_figures(series, tri, win, frequency, risk_free_pct, all_gaps)
    return ClassFigures(series.index[0].date(), series.index[-1].date(), frequency, float(risk_free_pct),
                        tuple(figures), tuple(all_gaps))


def drawdown_series(nav: pd.DataFrame, dividends: pd.DataFrame | None = None) -> pd.Series:
    """The fall from the running peak at each NAV date, in percent (0 at a new peak, below 0 under it),
    of the total-return series when distributions are given (as the drawdown figures), else of the NAV."""
    series = nav_series(nav)
    tri = total_return_index(series, dividend_series(dividends))
    return (100.0 * (tri / tri.cummax() - 1.0)).rename("drawdown")


def rebase(series_by_name: dict[str, pd.DataFrame]) -> tuple[date | None, pd.DataFrame]:
    """NAVs of several classes rebased to 100 on their common start: the first date every series has a NAV.

    Returns (common start, a frame indexed by nav_date from that day, one column per name in the
    dict's order, NaN on a day a series has no NAV: never filled). With no common date: (None, an
    empty frame with those columns).
    """
    series = {name: nav_series(frame) for name, frame in series_by_name.items()}
    names = list(series)
    common = None
    for values in series.values():
        common = values.index if common is None else common.intersection(values.index)
    if common is None or len(common) == 0:
        return None, pd.DataFrame(columns=names, index=pd.DatetimeIndex([], name="nav_date"), dtype=float)
    start = common.min()
    frame = pd.DataFrame({name: 100.0 * values.loc[start:] / values[start] for name, values in series.items()})
    frame.index.name = "nav_date"
    return start.date(), frame[names]


@dataclass(frozen=True)
class YearReturn:
    """One calendar year's price and total return (percent), measured from the previous year's last NAV
    to the year's last NAV; `partial` when the history starts or stops inside the year (then `label` says
    from when to when). `price_return` and `total_return` are None with a `reason` when there is no figure."""

    year: int
    label: str
    start: date | None
    end: date | None
    partial: bool
    price_return: float | None
    total_return: float | None
    reason: str | None = None

    def to_dict(self) -> dict:
        iso = lambda day: day.isoformat() if day is not None else None  # noqa: E731
        return {"year": self.year, "label": self.label, "start": iso(self.start), "end": iso(self.end),
                "partial": self.partial, "price_return": self.price_return, "total_return": self.total_return,
                "reason": self.reason}


def calendar_year_returns(nav: pd.DataFrame, dividends: pd.DataFrame | None = None, *,
                          frequency: str | None = None) -> list[YearReturn]:
    """Each calendar year's return, oldest first.

    A year is whole when it is measured from the previous year's last NAV (no more than `GAP_DAYS`
    before 31 December) and its own last NAV is 31 December or the series goes on into the next year
    with that NAV no more than `GAP_DAYS` before 31 December. Otherwise it is partial: measured from the
    year's first NAV, or to its last NAV, and labelled so. A year with no NAV, or only its base NAV,
    has no figure.
    """
    series, tri, frequency = _inputs(nav, dividends, frequency, None)
    limit = GAP_DAYS[frequency]
    index = series.index
    out = []
    for year in range(index[0].year, index[-1].year + 1):
        year_end = pd.Timestamp(year, 12, 31)
        in_year = index[(index.year == year)]
        before = index[index < pd.Timestamp(year, 1, 1)]
        if len(in_year) == 0:
            out.append(YearReturn(year, str(year), None, None, True, None, None, f"No NAV in {year}."))
            continue
        whole_start = len(before) > 0 and (year_end - pd.DateOffset(years=1) - before[-1]).days <= limit
        start = before[-1] if whole_start else in_year[0]
        end = in_year[-1]
        whole_end = end == year_end or (index[-1] > year_end and (year_end - end).days <= limit)
        partial = not (whole_start and whole_end)
        label = f"{year} (part: {start:%d %b %Y} to {end:%d %b %Y})" if partial else str(year)
        if start == end:
            out.append(YearReturn(year, label, start.date(), end.date(), partial, None, None,
                                  f"Only one NAV ({end.date()}) for {year}: a return needs two."))
            continue
        out.append(YearReturn(year, label, start.date(), end.date(), partial,
                              float(100.0 * (series[end] / series[start] - 1.0)),
                              float(100.0 * (tri[end] / tri[start] - 1.0))))
    return out

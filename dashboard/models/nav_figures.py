"""Return and risk figures from one class's NAV history: windows, total return, volatility, drawdown, Sharpe.

Pure pandas/numpy over the frames of `dashboard.api.nav` (nav: nav_date, nav, ...; dividends:
ex_date, pay_date, per_unit). The conventions (windows, gaps, reinvestment, bad data) are stated in
`dashboard.models.nav_windows`; on top of them:
- Returns, volatility and drawdowns are in percent (5.0 = 5 %), like the factsheet's published
  figures; a Sharpe ratio is a plain number.
- Periods up to one year (1M 3M 6M YTD 1Y) give the cumulative return; 3Y and 5Y give the
  annualised return (1 + r) ^ (365 / days) - 1, `days` the calendar days between the window's first
  and last NAV. Since the first NAV gives both; the annualised one only for a history longer than a year.
- Price return uses the NAV; total return reinvests the distributions (the headline return of a class
  that distributes: `ClassFigures.headline`). Volatility and Sharpe use the total-return series, so an
  ex-date drop is not counted as a loss (for a class without distributions that series is the NAV itself).
- Volatility: sample standard deviation (n - 1) of the period returns inside the window, times
  sqrt(252) daily, sqrt(52) weekly, sqrt(12) monthly, leaving out returns across a gap; at least
  `MIN_RETURNS[frequency]` returns (20 daily, 12 weekly, 10 monthly), else no figure.
- Maximum drawdown: the SEC factsheet's, on the NAV per unit (distributions not added back), the deepest
  fall from a running peak, with its peak, trough and recovering period (`recovery_days`: the days from
  the trough to the first NAV back at the peak's NAV, None when not recovered). The 5-year one is "5 years
  or since launch" as the factsheet's: a class younger than five years whose launch is in the history
  gets it from its first NAV.
- Sharpe (Morningstar's and empyrical's): the mean of the period excess returns (the total-return series'
  daily, weekly or monthly returns less the risk-free rate per period, (1 + rf) ^ (1 / periods a year) - 1)
  times the periods a year, over their sample standard deviation times the square root of the periods a
  year: mean / std * sqrt(periods). The same returns as the volatility (gaps left out).
- Since the first NAV is "since launch" when the history holds the class's first NAV (`loaded_from` None:
  the whole history; else the class's first NAV is more than `GAP_DAYS` after the day the history was
  asked from); otherwise its label says the date it starts from and that older NAVs were not loaded.
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
           "figures_since", "gaps", "holds_launch", "infer_frequency", "period_returns", "rebase",
           "risk_free_per_period", "since_text"]

# The fewest period returns (gaps left out) a volatility, and so a Sharpe ratio, is computed from.
MIN_RETURNS = {"daily": 20, "weekly": 12, "monthly": 10}
RISK_WINDOWS = ("1y", "3y", "5y", "since_start")
# Windows whose return is annualised (the AIMC standard: beyond one year).
ANNUALISED_WINDOWS = ("3y", "5y")
WINDOW_LABELS = {"1m": "1 month", "3m": "3 months", "6m": "6 months", "ytd": "year to date", "1y": "1 year",
                 "3y": "3 years", "5y": "5 years", "since_start": "since launch",
                 "common": "since the common start"}
# The factsheet's maximum drawdown window: five years, or since launch for a younger class.
DRAWDOWN_5Y_SINCE_LAUNCH = "5 years (since launch: the class is younger)"
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
    recovery_days: int | None = None

    def to_dict(self) -> dict:
        """A JSON-ready dict: dates as ISO strings, None where unknown."""
        iso = lambda day: day.isoformat() if day is not None else None  # noqa: E731
        out = {"key": self.key, "label": self.label, "kind": self.kind, "window": self.window, "value": self.value,
               "unit": self.unit, "annualised": self.annualised, "start": iso(self.start), "end": iso(self.end),
               "period_start": iso(self.period_start), "last_nav_date": iso(self.last_nav_date),
               "reason": self.reason, "gaps": [gap.to_dict() for gap in self.gaps]}
        if self.kind == "max_drawdown":
            out.update(peak=iso(self.peak), trough=iso(self.trough), recovery=iso(self.recovery),
                       recovery_days=self.recovery_days,
                       recovered=None if self.trough is None else self.recovery is not None)
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
    since_launch: bool = True  # the history holds the class's first NAV (else since_start starts where loading did)
    distributes: bool = False  # a distribution inside the history: total return is the headline return

    @property
    def headline(self) -> str:
        """The kind of return to lead with: "total_return" for a class that distributes, else "return"."""
        return "total_return" if self.distributes else "return"

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
                "since_launch": self.since_launch, "distributes": self.distributes, "headline": self.headline,
                "gaps": [gap.to_dict() for gap in self.gaps],
                "figures": {figure.key: figure.to_dict() for figure in self.figures}}


def since_text(first: date, since_launch: bool) -> str:
    """The since-the-first-NAV window in words: "since launch", or "since 1 Sep 2021 (not since launch)" when
    older NAVs of the class may exist but were not loaded."""
    return "since launch" if since_launch else f"since {first.day} {first:%b %Y} (not since launch)"


def _label(kind: str, name: str, annualised: bool, names: dict | None = None) -> str:
    text = f"{KIND_LABELS[kind]}, {(names or WINDOW_LABELS).get(name, WINDOW_LABELS.get(name, name))}"
    if kind == "volatility":
        return text + " (annualised)"
    return text + " (a year)" if annualised else text


def _annualise(ratio: float, start: pd.Timestamp, end: pd.Timestamp) -> float:
    return ratio ** (365.0 / (end - start).days) - 1.0


def _over_a_year(start: pd.Timestamp, end: pd.Timestamp) -> bool:
    return start < end - pd.DateOffset(years=1)


def period_returns(tri: pd.Series, frequency: str) -> np.ndarray:
    """The period (daily, weekly, monthly) returns of a window's slice, leaving out each step across a gap."""
    steps = (tri.index[1:] - tri.index[:-1]).days
    return (tri.to_numpy()[1:] / tri.to_numpy()[:-1] - 1.0)[steps <= GAP_DAYS[frequency]]


def risk_free_per_period(risk_free_pct: float, frequency: str) -> float:
    """The risk-free rate of one period (a fraction) from a rate in percent a year: (1 + rf) ^ (1 / n) - 1."""
    return (1.0 + risk_free_pct / 100.0) ** (1.0 / PERIODS_PER_YEAR[frequency]) - 1.0


def _volatility(returns: np.ndarray, frequency: str) -> tuple[float | None, str | None]:
    """Annualised volatility (a fraction) of a window's period returns, gaps left out."""
    needed = MIN_RETURNS[frequency]
    if len(returns) < needed:
        return None, (f"{len(returns)} {frequency} returns in this window (gaps left out): "
                      f"volatility needs at least {needed}.")
    return float(np.std(returns, ddof=1) * math.sqrt(PERIODS_PER_YEAR[frequency])), None


def _sharpe(returns: np.ndarray, frequency: str, risk_free_pct: float) -> float:
    """The annualised mean excess return over the annualised standard deviation of the same returns."""
    excess = returns - risk_free_per_period(risk_free_pct, frequency)
    periods = PERIODS_PER_YEAR[frequency]
    return float(np.mean(excess) * periods / (np.std(excess, ddof=1) * math.sqrt(periods)))


def _drawdown(series: pd.Series) -> tuple[float, date | None, date | None, date | None]:
    """The deepest fall (a fraction, <= 0) from a running peak, with its peak, trough and recovery dates."""
    values, days = series.to_numpy(), series.index
    drawdown = values / np.maximum.accumulate(values) - 1.0
    trough = int(np.argmin(drawdown))
    if drawdown[trough] >= 0:
        return 0.0, None, None, None
    peak = int(np.argmax(values[: trough + 1]))
    recovered = np.flatnonzero(values[trough:] >= values[peak])
    recovery = days[trough + recovered[0]].date() if len(recovered) else None
    return float(drawdown[trough]), days[peak].date(), days[trough].date(), recovery


def _window_figures(series: pd.Series, tri: pd.Series, win: Window, frequency: str, risk_free_pct: float,
                    all_gaps: list[Gap], names: dict | None = None, since_launch: bool = True) -> list[Figure]:
    """The figures of one window, as `figure_keys` lists them for it."""
    end = pd.Timestamp(win.end)
    start = pd.Timestamp(win.start) if win.start is not None else None
    inside = tuple(g for g in all_gaps if start is not None and g.start >= win.start)
    common = dict(window=win.name, start=win.start, end=win.end, last_nav_date=win.end,
                  period_start=win.period_start, gaps=inside)
    out: list[Figure] = []

    def add(kind: str, key: str, value: float | None, reason: str | None, *, annualised=False, unit="%", **extra):
        value = None if value is None else float(value)
        fields = {**common, **extra}
        out.append(Figure(key=key, label=extra.pop("label", None) or _label(kind, win.name, annualised, names),
                          kind=kind, value=value, reason=reason if value is None else None, annualised=annualised,
                          unit=unit, **{k: v for k, v in fields.items() if k != "label"}))

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
        _risk_figures(series, tri, win, frequency, risk_free_pct, add, since_launch)
    return out


def _drawdown_figure(series: pd.Series, win: Window, add, since_launch: bool) -> None:
    """The maximum drawdown of one window on the NAV per unit; the 5-year one since launch for a younger class."""
    start, extra = win.start, {}
    if start is None and win.name == "5y" and since_launch and win.period_start is not None \
            and pd.Timestamp(win.period_start) < series.index[0] and len(series) > 1:
        start = series.index[0].date()  # the SEC factsheet's rule: five years, or since inception
        extra = {"label": f"{KIND_LABELS['max_drawdown']}, {DRAWDOWN_5Y_SINCE_LAUNCH}", "start": start}
    if start is None:
        add("max_drawdown", f"max_drawdown_{win.name}", None, win.reason)
        return
    depth, peak, trough, recovery = _drawdown(series.loc[pd.Timestamp(start):pd.Timestamp(win.end)])
    days = (recovery - trough).days if recovery is not None and trough is not None else None
    add("max_drawdown", f"max_drawdown_{win.name}", 100.0 * depth, None, peak=peak, trough=trough, recovery=recovery,
        recovery_days=days, **extra)


def _risk_figures(series: pd.Series, tri: pd.Series, win: Window, frequency: str, risk_free_pct: float, add,
                  since_launch: bool) -> None:
    """Volatility, maximum drawdown and Sharpe of one window, each passed to `add`."""
    if win.start is None:
        add("volatility", f"volatility_{win.name}", None, win.reason)
        _drawdown_figure(series, win, add, since_launch)
        add("sharpe", f"sharpe_{win.name}", None, win.reason, unit="")
        return
    start, end = pd.Timestamp(win.start), pd.Timestamp(win.end)
    returns = period_returns(tri.loc[start:end], frequency)
    volatility, reason = _volatility(returns, frequency)
    add("volatility", f"volatility_{win.name}", None if volatility is None else 100.0 * volatility, reason)
    _drawdown_figure(series, win, add, since_launch)
    sharpe = None
    if volatility == 0:
        reason = "The series did not move in this window: no volatility to divide by."
    elif volatility is not None:
        sharpe = _sharpe(returns, frequency, risk_free_pct)
    add("sharpe", f"sharpe_{win.name}", sharpe, reason, unit="")


def _inputs(nav, dividends, frequency, as_of, risk_free_pct=0.0):
    if not isinstance(risk_free_pct, numbers.Real) or not math.isfinite(risk_free_pct):
        raise BadInputError(f"The risk-free rate must be a number (percent a year), not {risk_free_pct!r}.")
    series = nav_series(nav, as_of)
    frequency = check_frequency(frequency) if frequency is not None else infer_frequency(series.index)
    return series, total_return_index(series, dividend_series(dividends)), frequency


def holds_launch(first_nav: date, loaded_from: date | None, frequency: str) -> bool:
    """Whether a history asked from `loaded_from` (None: the whole history) holds the class's first NAV:
    its first NAV comes more than `GAP_DAYS` after that day (a NAV due before it would have been there)."""
    return loaded_from is None or (first_nav - loaded_from).days > GAP_DAYS[frequency]


def class_figures(nav: pd.DataFrame, dividends: pd.DataFrame | None = None, *, frequency: str | None = None,
                  risk_free_pct: float = 0.0, as_of: date | None = None,
                  loaded_from: date | None = None) -> ClassFigures:
    """Every figure of one class (keys in `FIGURE_KEYS` order) over the windows back from its last NAV date.

    `frequency` None infers it from the dates; `as_of` ignores the NAVs after that day. `loaded_from` is
    the first day the history was asked for (None: it is the class's whole history); it says whether
    "since the first NAV" is since launch (`holds_launch`). Raises `BadInputError` for bad data (no NAV
    left, a NAV of 0 or less, a date twice, an unknown frequency).
    """
    series, tri, frequency = _inputs(nav, dividends, frequency, as_of, risk_free_pct)
    all_gaps = gaps_in(series, frequency)
    launch = holds_launch(series.index[0].date(), loaded_from, frequency)
    names = {**WINDOW_LABELS, "since_start": since_text(series.index[0].date(), launch)}
    figures: list[Figure] = []
    for name in WINDOWS:
        figures += _window_figures(series, tri, window(series, name, frequency), frequency, risk_free_pct, all_gaps,
                                   names, launch)
    order = {key: i for i, key in enumerate(FIGURE_KEYS)}
    figures.sort(key=lambda figure: order[figure.key])
    distributes = bool((tri.to_numpy() != series.to_numpy()).any())
    return ClassFigures(series.index[0].date(), series.index[-1].date(), frequency, float(risk_free_pct),
                        tuple(figures), tuple(all_gaps), since_launch=launch, distributes=distributes)


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
    of the total-return series when distributions are given, else of the NAV per unit (as the drawdown figures)."""
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

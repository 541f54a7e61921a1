"""FundNav: one fund's NAV history and the figures computed from it, per unit class (no Panel).

Every view, the notebook and `sec-dashboard fund nav` read a fund's NAV through this model. It loads
the history through the client (`api.nav.afetch_nav_history`: calendar quarters asked at once, the
client's cache, rate limit and deadline), five years by default, every class in one load; what it
shows is then a matter of the selected class and range, with no further request.

- `range` is a calendar window back from the selected class's last NAV date (1M: from the last NAV
  on or before the same day a month earlier; YTD: from the last NAV of the previous year; MAX: the
  whole history loaded), the same windows the figures use (`models.nav_windows`).
- `figures()` are computed over the class's loaded history from `figures_from` (all of it when None;
  `models.nav_figures.class_figures`): what is shown never moves a figure. "Since the first NAV" is since
  launch when the history holds the class's first NAV (a load `since_launch`, or a class launched after the
  day loading started); else its label gives the date it starts from. Values are percents; volatility and
  Sharpe use the distributions-reinvested series, the maximum drawdown the NAV per unit.
- `risk_free_pct` is the Sharpe ratios' risk-free rate, percent a year: given, else
  SEC_DASHBOARD_RISK_FREE_PCT, else 0. An unreadable SEC_DASHBOARD_RISK_FREE_PCT is an `error`
  sentence (nothing is loaded or computed with a guessed rate) until a rate is set.

Nothing bad a person can ask for raises out of the model: a malformed id, a fund with no NAV yet, a
class the fund does not have, a service that fails: each leaves a sentence in `error` (and `state`
says which case it is), and the frames it gives are then empty.

Beyond the interface agreed in notes/nav-interface.md (additions, nothing changed): `state`,
`notes`, `failure`, `selected_class()`, `figures(as_of=...)` (the published figures' date, to compare like with
like), `last_nav_date()`, `message()`, and the module's `RANGE_LABELS` and `load_start()`.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import param

from dashboard.api.doctor import without_endpoint_code
from dashboard.api.nav import ClassHistory, NavHistory, afetch_nav_history, clean_class
from dashboard.config import risk_free_pct_from_env, RISK_FREE_BOUNDS
from dashboard.errors import BadInputError, NotFoundError, SecApiError, quoted
from dashboard.models.nav_figures import (ClassFigures, YearReturn, calendar_year_returns, class_figures, drawdown_series,
                                          holds_launch)
from dashboard.models.nav_windows import nav_series, window
from dashboard.models.source import ServiceModel

RANGES = ("1M", "3M", "6M", "YTD", "1Y", "3Y", "5Y", "MAX")  # MAX: since the first stored day
RANGE_LABELS = {"1M": "1 month", "3M": "3 months", "6M": "6 months", "YTD": "year to date", "1Y": "1 year",
                "3Y": "3 years", "5Y": "5 years", "MAX": "since the first NAV loaded"}
DEFAULT_YEARS = 5
# The most years a load asks; a load `since_launch` asks them all: past the launch of every fund the service
# holds (it keeps NAVs from the 2000s); the quarters before a class's first NAV come back empty.
MAX_YEARS = 30
# States of a load, for views that show an explicit empty state rather than an error.
IDLE, LOADED, EMPTY, FAILED = "idle", "loaded", "empty", "failed"


def load_start(today: date, years: int) -> date:
    """The first day a load of `years` years asks for: the first of the month `years` years and two
    months before `today`, so that the NAV a 5-year window is measured from (the last on or before the
    same day five years before the last NAV) is in the history even across a holiday or an outage."""
    months = today.year * 12 + today.month - 1 - (12 * years + 2)
    return date(months // 12, months % 12 + 1, 1)


def _empty_nav() -> pd.DataFrame:
    return pd.DataFrame({"nav_date": pd.Series([], dtype="datetime64[ns]"),
                         **{c: pd.Series([], dtype="float64") for c in ("nav", "offer", "bid", "net_asset")}})


def _empty_dividends() -> pd.DataFrame:
    return pd.DataFrame({"ex_date": pd.Series([], dtype="datetime64[ns]"), "pay_date": pd.Series([], dtype="datetime64[ns]"),
                         "per_unit": pd.Series([], dtype="float64")})


def _class_word(name: str) -> str:
    return f"class {name}" if name else "the fund's only class"


class FundNav(ServiceModel):
    """One fund's NAV history and figures, per unit class (no Panel)."""

    proj_id = param.String(default="", doc="The fund loaded (its project id), '' before a load.")
    class_name = param.String(default="", doc="The selected unit class ('' = the first or only one).")
    range = param.Selector(default="1Y", objects=list(RANGES), doc="The range the series, distributions and "
                                                                   "drawdown are cut to, back from the last NAV.")
    risk_free_pct = param.Number(default=0.0, bounds=RISK_FREE_BOUNDS,
                                 doc="The Sharpe ratios' risk-free rate, percent a year "
                                     "(default: SEC_DASHBOARD_RISK_FREE_PCT, else 0).")
    error = param.String(default="", doc="What went wrong, a sentence for people; '' when fine.")
    state = param.Selector(default=IDLE, objects=[IDLE, LOADED, EMPTY, FAILED],
                           doc="idle (nothing asked yet), loaded, empty (the fund has no NAV in the window: "
                               "`error` says so) or failed (`error` says why).")
    history = param.Parameter(default=None, doc="The loaded api.nav.NavHistory, or None.")
    notes = param.List(default=[], item_type=str, doc="What the fetch noticed about the service's rows, for people.")
    since_launch = param.Boolean(default=False, doc="Whether the loaded history is each class's whole history "
                                                    "(a load since launch): 'since the first NAV' is then since launch.")
    figures_from = param.Date(default=None, allow_None=True,
                              doc="The first NAV date the figures read unless the loaded history holds the class's "
                                  "launch (None: the whole loaded history); what is shown never moves a figure.")

    def __init__(self, client=None, **params: Any):
        config_error = ""
        if "risk_free_pct" not in params:
            try:
                params["risk_free_pct"] = risk_free_pct_from_env()
            except ValueError as exc:
                config_error = f"{exc}: set a valid rate to see the figures"
        super().__init__(client=client, **params)
        self._config_error = config_error
        self._cache: dict[tuple, Any] = {}
        # The error of the last load that failed (None otherwise): the command line's exit code comes from it.
        self.failure: SecApiError | None = None
        self._loads = 0  # loads started: only the latest one's outcome is applied
        if config_error:
            self.error = config_error
        self.param.watch(self._rate_set, ["risk_free_pct"])
        self.param.watch(self._class_set, ["class_name"])

    # ---- loading ---------------------------------------------------------------------------------------

    async def load(self, proj_id: str, *, years: int = DEFAULT_YEARS, start: date | None = None,
                   since_launch: bool = False) -> None:
        """Fetch `years` years of every class's NAV and distributions (one load; the client's cache); from
        `start` when given; the whole history (`MAX_YEARS` back, past any class's launch) when `since_launch`.

        Sets `history`, `notes`, `state` and `error` (and `failure`, the exception behind an error); never
        raises for bad input or a failing service.
        A new fund's load clears the previous fund's history first, so nothing of it stays on view; when
        loads overlap (a person switching funds quickly), only the one started last is applied.
        """
        refusal = self._config_error
        if not refusal and (not isinstance(years, int) or isinstance(years, bool) or not 1 <= years <= MAX_YEARS):
            refusal = f"the years of history to load must be a whole number from 1 to {MAX_YEARS}, not {quoted(years)}"
        if refusal:
            self.failure = BadInputError(refusal)
            self.param.update(error=refusal, state=FAILED)
            return
        target = str(proj_id or "").strip()
        if target != self.proj_id:
            self.param.update(history=None, notes=[], proj_id=target)
        self._loads += 1
        mine = self._loads
        try:
            end = self.api.today
            first = date(end.year - MAX_YEARS, 1, 1) if since_launch else start or load_start(end, years)
            history = await self._fetched(afetch_nav_history(self.api.async_client, target, start=first, end=end))
        except SecApiError as exc:  # a malformed id (BadInputError), no NAV (NotFoundError), a key, the service
            if mine == self._loads:
                self.failure = exc
                self.param.update(history=None, notes=[], state=EMPTY if isinstance(exc, NotFoundError) else FAILED,
                                  error=without_endpoint_code(str(exc)))
            return
        if mine != self._loads:  # a later load (another fund asked meanwhile) has the last word
            return
        self.failure = None
        self._cache.clear()
        self.param.update(history=history, notes=list(history.notes), state=LOADED, since_launch=bool(since_launch),
                          error=self._class_error(history))

    def _rate_set(self, event: param.parameterized.Event) -> None:
        self._cache.clear()
        if self._config_error:
            self._config_error = ""
            self.error = self._class_error(self.history) if self.history is not None else ""

    def _class_set(self, event: param.parameterized.Event) -> None:
        if self.history is not None and not self._config_error:
            self.error = self._class_error(self.history)

    def _class_error(self, history: NavHistory | None) -> str:
        """The sentence for a class the loaded fund does not have; "" when the selection is fine."""
        if history is None or self._resolve(history) is not None:
            return ""
        names = ", ".join(n or "the fund's only class" for n in history.classes)
        return f"fund {history.proj_id} has no class {quoted(self.class_name)}; its classes with NAVs are {names}"

    def _resolve(self, history: NavHistory) -> str | None:
        wanted = clean_class(self.class_name)
        if not wanted:
            return next(iter(history.classes), None)
        return wanted if wanted in history.classes else None

    # ---- what the views show -------------------------------------------------------------------------

    def classes(self) -> list[str]:
        """The loaded fund's classes with NAVs, in the service's order ("" for a fund's only class)."""
        return list(self.history.classes) if self.history is not None else []

    def selected_class(self) -> str | None:
        """The class shown: `class_name` when the fund has it ("" = the first), None when it has not or nothing is loaded."""
        return self._resolve(self.history) if self.history is not None else None

    def _class(self) -> ClassHistory | None:
        name = self.selected_class()
        return None if name is None else self.history.classes[name]

    def last_nav_date(self) -> date | None:
        """The selected class's last NAV date, or None."""
        found = self._class()
        return None if found is None or found.nav.empty else found.nav["nav_date"].iloc[-1].date()

    def range_start(self) -> pd.Timestamp | None:
        """The first NAV date of the selected `range` (its base NAV: the one the range's return is measured
        from); the range's calendar start when the history does not reach back that far; None for MAX."""
        found = self._class()
        if found is None or found.nav.empty or self.range == "MAX":
            return None
        win = window(nav_series(found.nav), self.range.lower(), found.frequency)
        return pd.Timestamp(win.start if win.start is not None else win.period_start)

    def series(self) -> pd.DataFrame:
        """The selected class's NAV frame (nav_date, nav, offer, bid, net_asset, ...) within `range`."""
        found = self._class()
        if found is None:
            return _empty_nav()
        start = self.range_start()
        nav = found.nav if start is None else found.nav[found.nav["nav_date"] >= start]
        return nav.reset_index(drop=True)

    def distributions(self) -> pd.DataFrame:
        """The selected class's distributions (ex_date, pay_date, per_unit) with an ex date after the range's
        first NAV (one on that day is not part of the range's return); every one for MAX."""
        found = self._class()
        if found is None:
            return _empty_dividends()
        start = self.range_start()
        dividends = found.dividends if start is None else found.dividends[found.dividends["ex_date"] > start]
        return dividends.reset_index(drop=True)

    def figures(self, as_of: date | None = None) -> ClassFigures | None:
        """Every figure of the selected class over its whole loaded history (`nav_figures.class_figures`),
        to its last NAV or to the last NAV on or before `as_of`; None when there is nothing to compute from
        (`message()` says why)."""
        found = self._class()
        if found is None or self._config_error:
            return None
        key = ("figures", found.class_name, self.risk_free_pct, as_of, self.figures_from)
        if key not in self._cache:
            nav, dividends = found.nav, found.dividends
            loaded_from = None if self.since_launch else self.history.start
            # The loaded history past `figures_from` is read only when it holds the class's launch: then
            # "since the first NAV" is since launch; else the figures read from `figures_from`, whatever was shown.
            if self.figures_from is not None and not (
                    not nav.empty and holds_launch(nav["nav_date"].iloc[0].date(), loaded_from, found.frequency)):
                cut = pd.Timestamp(self.figures_from)
                nav, dividends = nav[nav["nav_date"] >= cut], dividends[dividends["ex_date"] > cut]
                loaded_from = max(self.figures_from, loaded_from or self.figures_from)
            try:
                self._cache[key] = class_figures(nav, dividends, frequency=found.frequency, loaded_from=loaded_from,
                                                 risk_free_pct=float(self.risk_free_pct), as_of=as_of)
            except BadInputError as exc:
                self._cache[key] = exc
        result = self._cache[key]
        return None if isinstance(result, BadInputError) else result

    def drawdown(self) -> pd.Series:
        """The fall from the running peak within `range`, percent (0 at a peak), of the NAV per unit: the
        maximum drawdown figures' series (the SEC factsheet's), so the chart's deepest point is the figure's."""
        nav = self.series()
        if nav.empty:
            return pd.Series([], dtype="float64", name="drawdown", index=pd.DatetimeIndex([], name="nav_date"))
        return drawdown_series(nav)

    def calendar_years(self) -> list[YearReturn]:
        """Each calendar year's price and total return of the selected class's whole loaded history."""
        found = self._class()
        if found is None:
            return []
        return calendar_year_returns(found.nav, found.dividends, frequency=found.frequency)

    def message(self) -> str:
        """What a view shows instead of figures: the error, the empty state, or why there are no figures; ""."""
        if self.error:
            return self.error
        if self.state == IDLE:
            return "No fund loaded yet."
        found = self._class()
        if found is None:
            return "No NAV to show."
        self.figures()
        failed = self._cache.get(("figures", found.class_name, self.risk_free_pct, None, self.figures_from))
        return str(failed) if isinstance(failed, BadInputError) else ""


__all__ = ["DEFAULT_YEARS", "EMPTY", "FAILED", "FundNav", "IDLE", "LOADED", "RANGES", "RANGE_LABELS", "load_start"]

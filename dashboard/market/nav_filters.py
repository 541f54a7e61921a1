"""The screener's filters on the figures from the NAV history: one tuple that the query layer, the Market
tab's model and view and the command line all read (names, labels, bounds, the figure each one reads).

Each filter names the figure it reads (issue 38): from the NAV history, the price return (the NAV's change)
or the total return (distributions reinvested), the volatility, the maximum drawdown on the NAV per unit,
the Sharpe ratio; the factsheet's published 1-year return is a filter of its own (`min_return_1y`), not here.
`days` is how many days of NAV the store needs before any fund has the figure (`market sync --nav-days`):
the window, the NAV on or before its first day (a monthly fund's a month and a half back), and the time
the last NAV may lag behind today (a monthly NAV: about two months).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NavFilter:
    """One NAV figure filter: `name` is the model's parameter and `queries.screen`'s keyword (the command line's
    option is `--` + name with dashes), `column` the `nav_figures` column, `op` ">=" (at least) or "<=" (at most),
    `label` how the tab and every error name it, `unit` its unit in words, `figure` the figure in words,
    `bounds` the sense of a value, `days` the days of NAV the figure needs, `tab` whether the Market tab offers it."""

    name: str
    column: str
    op: str
    label: str
    unit: str
    figure: str
    bounds: tuple[float, float]
    days: int
    tab: bool = False

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def box_label(self) -> str:
        """The tab's box: the label and its unit, "3-year price return from the NAV at least (% a year)"."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


RETURN_BOUNDS = (-100.0, 10_000.0)
# The 1-year figures: a year, the NAV on or before its first day (45 days back for a monthly NAV) and a monthly
# NAV published up to two months late: 365 + 45 + 62 = 472 days; `nav_sync.DEFAULT_NAV_DAYS` is at least this.
ONE_YEAR_DAYS = 472
NAV_FILTERS: tuple[NavFilter, ...] = (
    NavFilter("min_return_1m", "return_1m", ">=", "1-month price return from the NAV at least", "%",
              "the 1-month price return (the NAV's change)", RETURN_BOUNDS, 107),
    NavFilter("min_return_3m", "return_3m", ">=", "3-month price return from the NAV at least", "%",
              "the 3-month price return (the NAV's change)", RETURN_BOUNDS, 169),
    NavFilter("min_return_6m", "return_6m", ">=", "6-month price return from the NAV at least", "%",
              "the 6-month price return (the NAV's change)", RETURN_BOUNDS, 261),
    NavFilter("min_return_ytd", "return_ytd", ">=", "Year-to-date price return from the NAV at least", "%",
              "the year-to-date price return (the NAV's change)", RETURN_BOUNDS, ONE_YEAR_DAYS),
    NavFilter("min_nav_return_1y", "return_1y", ">=", "1-year price return from the NAV at least", "%",
              "the 1-year price return from the NAV (the NAV's change, distributions left out)", RETURN_BOUNDS,
              ONE_YEAR_DAYS),
    NavFilter("min_total_return_1y", "total_return_1y", ">=", "1-year total return from the NAV at least", "%",
              "the 1-year total return from the NAV (distributions reinvested)", RETURN_BOUNDS, ONE_YEAR_DAYS, tab=True),
    NavFilter("min_return_3y", "return_3y_ann", ">=", "3-year price return from the NAV at least", "% a year",
              "the 3-year price return from the NAV, annualised", RETURN_BOUNDS, 3 * 365 + 107, tab=True),
    NavFilter("min_return_5y", "return_5y_ann", ">=", "5-year price return from the NAV at least", "% a year",
              "the 5-year price return from the NAV, annualised", RETURN_BOUNDS, 5 * 365 + 107),
    NavFilter("max_volatility", "volatility_1y", "<=", "Volatility at most", "% a year",
              "the 1-year volatility from the NAV (total return, annualised)", (0.0, 1000.0), ONE_YEAR_DAYS, tab=True),
    NavFilter("max_drawdown", "max_drawdown_1y", ">=", "Max drawdown at most", "%",
              "the 1-year maximum drawdown of the NAV per unit", (0.0, 100.0), ONE_YEAR_DAYS, tab=True),
    NavFilter("min_sharpe", "sharpe_1y", ">=", "Sharpe ratio at least", "",
              "the 1-year Sharpe ratio from the NAV (total return)", (-100.0, 100.0), ONE_YEAR_DAYS, tab=True),
)
BY_NAME = {f.name: f for f in NAV_FILTERS}
# The Market tab's filters (each a box of dashboard/views/market.py: a `<name>_text` parameter).
TAB_FILTERS = tuple(f for f in NAV_FILTERS if f.tab)

__all__ = ["BY_NAME", "NAV_FILTERS", "NavFilter", "ONE_YEAR_DAYS", "TAB_FILTERS"]

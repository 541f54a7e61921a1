"""The NAV parts of `sec-dashboard market`: `sync --nav-days N`, the screener's NAV figure filters and
columns, and the NAV line of a sync's summary (kept apart so `dashboard.cli.market` stays small)."""

from __future__ import annotations

import argparse

from dashboard.market.nav_filters import NAV_FILTERS

# The nav_sync defaults, repeated here so `--help` never imports the sync (a test checks they agree).
DEFAULT_NAV_DAYS = 472
MAX_NAV_DAYS = 20 * 366
OVERLAP_DAYS = 5
# Shown after the screener's columns when the store holds NAV figures (every NAV field is in --json).
NAV_SCREEN_COLUMNS = ["nav_return_1y", "nav_total_return_1y", "return_3y_ann", "volatility_1y", "max_drawdown_1y",
                      "sharpe_1y", "peer_pct_return_1y", "peer_pct_volatility_1y"]
# Each column names the figure it reads: the NAV's price return or total return, the factsheet's return.
NAV_HEADERS = {"nav_return_1y": "1y price return % (NAV)", "nav_total_return_1y": "1y total return % (NAV)",
               "return_3y_ann": "3y price return % a year (NAV)", "volatility_1y": "1y volatility % (NAV)",
               "max_drawdown_1y": "1y max drawdown % (NAV per unit)", "sharpe_1y": "1y Sharpe (NAV)",
               "peer_pct_return_1y": "1y total return percentile among peers",
               "peer_pct_volatility_1y": "1y volatility percentile among peers"}
# The screener's NAV filters: nav_filters.NAV_FILTERS, the list the Market tab reads too.
NAV_FILTER_OPTIONS = tuple(f.name for f in NAV_FILTERS)
PEER_HELP = ("NAV figures are the fund's first unit class's (by name), from the NAV history `market sync` keeps; "
             "peer_pct_* is the fund's percentile among its peers: the funds of the same policy type and risk "
             "level that have the figure (0-100, mid-rank; high is a high return or a high volatility)")


def add_nav_sync_option(sync: argparse.ArgumentParser, whole_number) -> None:
    def nav_days(text: str) -> int:
        value = whole_number(text)
        if value > MAX_NAV_DAYS:
            raise argparse.ArgumentTypeError(f"must be at most {MAX_NAV_DAYS:,} (0: no NAV)")
        return value

    sync.add_argument("--nav-days", type=nav_days, metavar="N", default=DEFAULT_NAV_DAYS,
                      help=f"every class's daily NAV of the last N days (default {DEFAULT_NAV_DAYS}: the 1-year "
                      "figures and the 1-month lookback, with room for holidays and outages; 0: no NAV), asked by "
                      "date window for the whole market. A later run asks only the days after the newest stored "
                      f"NAV and the last {OVERLAP_DAYS} days again (late publications); the same day again asks "
                      "nothing. The current service only (the older one gives one fund and day per call)")


def add_nav_screen_options(screen: argparse.ArgumentParser, finite) -> None:
    for spec in NAV_FILTERS:
        unit = {"%": " percent", "% a year": " percent a year", "": ""}[spec.unit]
        extra = (" (20 or -20: funds that fell at most 20%% from a peak)" if spec.name == "max_drawdown" else "")
        screen.add_argument(spec.option, type=finite, metavar="X",
                            help=f"{spec.figure} {'at least' if spec.op == '>=' else 'at most'} X{unit}{extra} "
                                 f"(needs about {spec.days:,} days of NAV)")


def nav_filters(args: argparse.Namespace) -> dict:
    return {name: getattr(args, name, None) for name in NAV_FILTER_OPTIONS}


def screen_columns(columns: list[str], rows: list[dict]) -> list[str]:
    """The screener's columns, with the NAV figures' when any row has them."""
    return columns + (NAV_SCREEN_COLUMNS if any(r.get("last_nav_date") is not None for r in rows) else [])


def nav_summary(result, nav_rows: int) -> str | None:
    """The NAV line of `market sync`'s summary, or None when the run did not ask NAVs."""
    state = result.datasets.get("nav")
    if state is None:
        return None
    left = [f"{n:,} {what}" for what, n in (("sent twice (kept once)", result.duplicates.get("nav", 0)),
                                           ("with a NAV of 0 or below (left out)", result.dropped.get("nav", 0))) if n]
    return f"NAV: {state}, {nav_rows:,} rows stored" + (f"; rows {', '.join(left)}" if left else "")

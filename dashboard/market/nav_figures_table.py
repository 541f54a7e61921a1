"""The market store's derived table `nav_figures`: each class's return and risk figures from its stored
NAVs and distributions, by the rules of `dashboard.models.nav_figures` (the same function `fund nav`
uses, so the screener and a fund's own page agree), rewritten after a NAV sync.

The screener's figure of a fund is its first unit class's (by class name, "" the fund's only class):
the rule the fee and 1-year return figures already follow (`dashboard.market.figures`); that row is
marked `fund_figure` and carries the fund's percentiles among its peers (`refresh_nav_peers`,
`queries.PEER_RULE`), computed when the figures or the funds' policy types and risk levels change, so
the screener reads them rather than ranking every fund on every query. The return percentile
(`peer_pct_return_1y`) ranks the 1-year total return (distributions reinvested): a distributing class's
price return leaves out what its investors were paid.
"""

from __future__ import annotations

import logging
import math
import os

import pandas as pd

from typing import TYPE_CHECKING

from dashboard.errors import BadInputError
from dashboard.models.nav_figures import class_figures

if TYPE_CHECKING:
    import duckdb

    from dashboard.market.store import MarketStore

log = logging.getLogger("dashboard.market")

# The figure columns of `nav_figures` (keys of nav_figures.FIGURE_KEYS), in the table's order.
FIGURE_COLUMNS = ("return_1m", "return_3m", "return_6m", "return_ytd", "return_1y", "return_3y_ann", "return_5y_ann",
                  "total_return_1y", "volatility_1y", "max_drawdown_1y", "sharpe_1y")
RISK_FREE_ENV = "SEC_DASHBOARD_RISK_FREE_PCT"
BATCH_FUNDS = 250  # funds whose NAVs are read at once (5 years: ~0.7 M rows)


def risk_free_pct(environ: dict | None = None) -> float:
    """The risk-free rate for the Sharpe ratios (percent a year): SEC_DASHBOARD_RISK_FREE_PCT, else 0."""
    text = (os.environ if environ is None else environ).get(RISK_FREE_ENV, "").strip()
    if not text:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise BadInputError(f"{RISK_FREE_ENV}={text[:40]!r} is not a number (percent a year, e.g. 2.5)") from None
    if not math.isfinite(value) or not -100 < value < 100:
        raise BadInputError(f"{RISK_FREE_ENV}={text[:40]!r} is not a rate in percent a year (e.g. 2.5)")
    return value


def class_frequencies(nav: pd.DataFrame) -> dict[tuple[str, str], str]:
    """Each class's NAV frequency at once, by models.nav_windows.infer_frequency's rule (the median step
    between its dates: under 5 days daily, under 20 weekly, else monthly; one date daily): the figures
    are then not asked to infer it class by class (a quarter of their time)."""
    if not len(nav):
        return {}
    same = (nav["proj_id"].eq(nav["proj_id"].shift())) & (nav["class"].eq(nav["class"].shift()))
    steps = nav["nav_date"].diff().dt.days.where(same)
    median = steps.groupby([nav["proj_id"], nav["class"]], sort=False).median()
    return {key: "daily" if not step < float("inf") or step < 5 else "weekly" if step < 20 else "monthly"
            for key, step in median.items()}


def class_figure_rows(nav: pd.DataFrame, distributions: pd.DataFrame, risk_free: float) -> pd.DataFrame:
    """One row per class of `nav` (NAV rows of many classes, sorted by proj_id, class, nav_date) with its
    figures; a class whose NAVs the figures refuse (too few) is left out with a debug line."""
    rows = []
    frequencies = class_frequencies(nav)
    dist_groups = {key: part for key, part in distributions.groupby(["proj_id", "class"], sort=False)} \
        if len(distributions) else {}
    for (proj_id, name), part in nav.groupby(["proj_id", "class"], sort=False):
        series = part[["nav_date", "nav", "offer", "bid", "net_asset"]].reset_index(drop=True)
        dist = dist_groups.get((proj_id, name))
        dist = dist[["ex_date", "pay_date", "per_unit"]].reset_index(drop=True) if dist is not None else None
        try:
            figures = class_figures(series, dist, frequency=frequencies[(proj_id, name)], risk_free_pct=risk_free)
        except BadInputError as exc:
            log.debug("no figures for %s %s: %s", proj_id, name, exc)
            continue
        values = figures.values()
        rows.append({"proj_id": proj_id, "class": name, "first_nav_date": figures.first_nav_date,
                     "last_nav_date": figures.last_nav_date, "frequency": figures.frequency,
                     **{key: values.get(key) for key in FIGURE_COLUMNS}})
    frame = pd.DataFrame(rows, columns=["proj_id", "class", "first_nav_date", "last_nav_date", "frequency",
                                        *FIGURE_COLUMNS])
    frame = frame.astype({key: "float64" for key in FIGURE_COLUMNS})
    frame["fund_figure"] = pd.Series(False, index=frame.index, dtype="boolean")
    frame["peers"] = pd.Series(pd.NA, index=frame.index, dtype="Int32")
    for name in PEER_COLUMNS:
        frame[f"peer_pct_{name}"] = pd.Series(float("nan"), index=frame.index, dtype="float64")
    return frame


PEER_COLUMNS = ("return_1y", "volatility_1y", "sharpe_1y")
_PEER_KEYS = "nullif(trim(f.policy_desc), ''), r.risk_spectrum"


def _mid_rank(column: str) -> str:
    """The mid-rank percentile of a figure among its peers (queries.PEER_RULE), NULL without the figure or peers."""
    part = f"PARTITION BY {_PEER_KEYS}"
    return (f"CASE WHEN n.{column} IS NOT NULL AND nullif(trim(f.policy_desc), '') IS NOT NULL "
            f"AND r.risk_spectrum IS NOT NULL THEN round(100.0 * ((rank() OVER ({part} ORDER BY n.{column} NULLS LAST) - 1) "
            f"+ count(*) OVER ({part}, n.{column}) / 2.0) / count(n.{column}) OVER ({part}), 4) END")


_PEERS_SQL = f"""
UPDATE nav_figures SET fund_figure = (p.proj_id IS NOT NULL), peers = p.peers,
       peer_pct_return_1y = p.pct_return_1y, peer_pct_volatility_1y = p.pct_volatility_1y,
       peer_pct_sharpe_1y = p.pct_sharpe_1y
FROM nav_figures t LEFT JOIN (
    SELECT n.proj_id, n.class,
           CASE WHEN nullif(trim(f.policy_desc), '') IS NOT NULL AND r.risk_spectrum IS NOT NULL
                THEN count(n.total_return_1y) OVER (PARTITION BY {_PEER_KEYS}) END AS peers,
           {_mid_rank("total_return_1y")} AS pct_return_1y,
           {_mid_rank("volatility_1y")} AS pct_volatility_1y,
           {_mid_rank("sharpe_1y")} AS pct_sharpe_1y
    FROM (SELECT * FROM nav_figures QUALIFY row_number() OVER (PARTITION BY proj_id ORDER BY class) = 1) n
    LEFT JOIN funds f ON f.proj_id = n.proj_id
    LEFT JOIN risk r ON r.proj_id = n.proj_id) p ON p.proj_id = t.proj_id AND p.class = t.class
WHERE nav_figures.proj_id = t.proj_id AND nav_figures.class = t.class
"""


def refresh_nav_peers(con: "duckdb.DuckDBPyConnection") -> None:
    """Mark each fund's first class's figures and give them the fund's percentiles among its peers (in the
    caller's transaction): after the figures are written, and when funds or risk levels are swapped in."""
    con.execute(_PEERS_SQL)


def refresh_nav_figures(store: "MarketStore", *, risk_free: float | None = None) -> int:
    """Rewrite `nav_figures` from every stored NAV (one transaction); the classes with figures. The NAVs
    are read BATCH_FUNDS funds at a time, so a whole market's (~6 M rows) is never in memory at once."""
    rate = risk_free_pct() if risk_free is None else float(risk_free)
    funds = [r["proj_id"] for r in store.query("SELECT DISTINCT proj_id FROM nav ORDER BY 1")]
    parts = []
    for i in range(0, len(funds), BATCH_FUNDS):
        first, last = funds[i], funds[min(i + BATCH_FUNDS, len(funds)) - 1]
        nav = store.frame("SELECT proj_id, class, nav_date, nav, offer, bid, net_asset FROM nav "
                          "WHERE proj_id BETWEEN ? AND ? ORDER BY proj_id, class, nav_date", [first, last])
        dist = store.frame("SELECT proj_id, class, ex_date, pay_date, per_unit FROM distributions "
                           "WHERE proj_id BETWEEN ? AND ? ORDER BY proj_id, class, ex_date", [first, last])
        for frame, names in ((nav, ("nav_date",)), (dist, ("ex_date", "pay_date"))):
            for name in names:
                frame[name] = pd.to_datetime(frame[name]).astype("datetime64[ns]")
        parts.append(class_figure_rows(nav, dist, rate))
    figures = pd.concat(parts, ignore_index=True) if parts else class_figure_rows(
        pd.DataFrame(columns=["proj_id", "class", "nav_date", "nav", "offer", "bid", "net_asset"]),
        pd.DataFrame(columns=["proj_id", "class", "ex_date", "pay_date", "per_unit"]), rate)
    with store.transaction() as con:
        con.execute("DELETE FROM nav_figures")
        if len(figures):
            con.register("_nav_figures", figures)
            try:
                con.execute("INSERT INTO nav_figures SELECT * FROM _nav_figures")
            finally:
                con.unregister("_nav_figures")
            refresh_nav_peers(con)
        con.execute("INSERT OR REPLACE INTO info VALUES ('nav_figures_risk_free_pct', ?)", [str(rate)])
    return len(figures)


__all__ = ["FIGURE_COLUMNS", "PEER_COLUMNS", "RISK_FREE_ENV", "class_figure_rows", "refresh_nav_figures",
           "refresh_nav_peers", "risk_free_pct"]

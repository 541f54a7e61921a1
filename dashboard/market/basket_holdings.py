"""A basket with amounts, from the market store: the holdings looked through across its funds (the same security
held through several funds added up, in baht and as a share of the basket), and the store's figures the command
line weighs (each fund's asset allocation, total annual fee as charged and NAV per unit).

A fund's share of a security (looked through, `market.lookthrough`) times the amount held in the fund is the baht
of that security the basket holds through it; a security is its ISIN, else its issue code (as everywhere).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from dashboard.errors import BadInputError, quoted
from dashboard.market.figures import total_fee
from dashboard.market.holdings import checked_period, overlap
from dashboard.market.lookthrough import LookThrough, key_sql, look_through, lines_sql
from dashboard.market.store import MarketStore

BASKET_HOLDING_FIELDS = ("security", "issue_code", "isin_code", "issuer", "baht", "percent", "funds", "through")


def resolve_funds(store: MarketStore, funds: Sequence[str]) -> dict[str, str | None]:
    """Each fund as written (proj_id or exact abbreviation, any case) -> its proj_id in the store, None when unknown."""
    return {f: store.resolve(str(f)) for f in funds}


def basket_holdings(store: MarketStore, amounts: Mapping[str, float], period: str | None = None, *,
                    limit: int | None = None) -> tuple[list[dict], LookThrough | None, list[str]]:
    """The securities the basket holds through its funds, looked through, in one quarter (the latest stored).

    Rows {security, issue_code, isin_code, issuer, baht (summed over the funds: amount x share of the fund's NAV),
    percent (of the basket's whole amount), funds (basket funds holding it, directly or through others), through
    (the basket funds that hold it, "; ")}, largest first. Also the look-through (what could not be expanded) and
    the basket funds without holdings in the quarter (left out: their amounts hold nothing known)."""
    proj_ids = [p for p, a in amounts.items() if a and a > 0]
    quarter = checked_period(store, period)
    if quarter is None or not proj_ids:
        return [], None, list(proj_ids)
    marks = ", ".join("?" * len(proj_ids))
    with_lines = {r["proj_id"] for r in store.query(
        f"SELECT DISTINCT proj_id FROM holdings WHERE period = ? AND proj_id IN ({marks})", [quarter, *proj_ids])}
    left_out = [p for p in proj_ids if p not in with_lines]
    held = [p for p in proj_ids if p in with_lines]
    if not held:
        return [], None, left_out
    view = look_through(store, quarter, held)
    sql, params, frames = lines_sql(view, only=held)
    marks = ", ".join("?" * len(held))
    labels = {**{r["proj_id"]: r["proj_abbr_name"] for r in store.query(
        f"SELECT proj_id, proj_abbr_name FROM funds WHERE proj_id IN ({marks})", held) if r["proj_abbr_name"]},
        **view.names}
    total = float(sum(amounts[p] for p in proj_ids))
    frames = {**frames, "lt_amounts": pd.DataFrame({"proj_id": pd.Series(held, dtype=object),
                                                    "amount": pd.Series([float(amounts[p]) for p in held], dtype="float64"),
                                                    "label": pd.Series([labels.get(p, p) for p in held], dtype=object)})}
    rows = store.query(
        f"{sql}, amounts AS (SELECT * FROM lt_amounts), "
        f"weighted AS (SELECT {key_sql('l.')} AS security, l.issue_code, l.isin_code, l.issuer, l.proj_id, a.label, "
        "a.amount * l.percent_nav / 100 AS baht FROM lt_lines l JOIN amounts a ON a.proj_id = l.proj_id) "
        "SELECT security, min(issue_code) AS issue_code, min(isin_code) AS isin_code, min(issuer) AS issuer, "
        "sum(baht) AS baht, 100 * sum(baht) / ? AS percent, count(DISTINCT proj_id) AS funds, "
        "string_agg(DISTINCT label, '; ' ORDER BY label) AS through FROM weighted WHERE security IS NOT NULL "
        "GROUP BY security ORDER BY baht DESC NULLS LAST, security" + (f" LIMIT {int(limit)}" if limit else ""),
        [*params, total], frames=frames)
    return rows, view, left_out


def basket_overlap(store: MarketStore, proj_ids: Sequence[str], period: str | None = None) -> dict:
    """Each pair of basket funds' overlap, looked through (`holdings.overlap`); needs two funds or more."""
    return overlap(store, list(proj_ids), period, looked_through=True)


def store_figures(store: MarketStore, proj_ids: Sequence[str], classes: Mapping[str, str] | None = None) -> dict:
    """What the store says of each fund for a basket's weights: `allocation` (rows proj_id, asset_name, asset_ratio),
    `fees` (proj_id -> total annual fee as charged, % a year: of the class named in `classes`, else the fund's
    first class, as fund_figures), and `navs` (proj_id -> NAV per unit by date, of that class)."""
    ids = list(proj_ids)
    if not ids:
        return {"allocation": pd.DataFrame(columns=["proj_id", "asset_name", "asset_ratio"]), "fees": {}, "navs": {}}
    marks = ", ".join("?" * len(ids))
    allocation = store.frame(f"SELECT proj_id, asset_name, asset_ratio FROM allocation WHERE proj_id IN ({marks}) "
                             "ORDER BY proj_id, asset_seq", ids)
    fees = {r["proj_id"]: r["total_fee_actual"] for r in store.query(
        f"SELECT proj_id, total_fee_actual FROM fund_figures WHERE proj_id IN ({marks})", ids)}
    for proj_id, unit_class in (classes or {}).items():
        if proj_id in ids and unit_class:
            fees[proj_id] = class_fee_total(store, proj_id, unit_class)
    navs: dict[str, pd.Series] = {}
    rows = store.frame(f"SELECT proj_id, class, nav_date, nav FROM nav WHERE proj_id IN ({marks}) ORDER BY nav_date",
                       ids)
    for proj_id, frame in rows.groupby("proj_id", sort=False):
        names = sorted(frame["class"].dropna().unique())
        wanted = (classes or {}).get(proj_id)
        chosen = next((c for c in names if wanted and c.upper() == wanted.upper()), names[0] if names else None)
        if chosen is None:
            continue
        one = frame[frame["class"] == chosen]
        navs[proj_id] = pd.Series(one["nav"].to_numpy(dtype="float64"), index=pd.to_datetime(one["nav_date"]))
    return {"allocation": allocation, "fees": fees, "navs": navs}


def class_fee_total(store: MarketStore, proj_id: str, unit_class: str) -> float | None:
    """The total annual fee as charged of one unit class (the models' rule, `figures.total_fee`); None without one."""
    rows = store.query("SELECT proj_id, seq, class_abbr_name, fee_type_desc, fee_type_en, rate_num, actual_value_num "
                       "FROM fees WHERE proj_id = ? AND upper(class_abbr_name) = upper(?) ORDER BY seq",
                       [proj_id, unit_class])
    return total_fee([tuple(r.values()) for r in rows], 6) if rows else None


def check_classes(store: MarketStore, classes: Mapping[str, str]) -> None:
    """Every class named is one of its fund's classes in the store (or the fund has none stored): else one line."""
    for proj_id, unit_class in classes.items():
        stored = [r["class_abbr_name"] for r in store.query(
            "SELECT class_abbr_name FROM classes WHERE proj_id = ?", [proj_id]) if r["class_abbr_name"]]
        if stored and unit_class.upper() not in {c.upper() for c in stored}:
            raise BadInputError(f"{quoted(unit_class)} is not a unit class of {proj_id} (it has "
                                f"{', '.join(stored)})")

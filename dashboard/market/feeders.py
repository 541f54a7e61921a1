"""Masters and their feeders over the whole market store: the derived table `feeders` (every feeder's
master, matched by models.feeders' rules), the masters with the most Thai feeders, a fund's sibling
feeders side by side, and what a class's fees cost against cheaper choices (docs/feeders.md).

Every function takes a store (the writer) or a reader of the published snapshot (`open_reader`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dashboard.errors import BadInputError, quoted
from dashboard.market.tables import KEPT_INPUTS, record_frame
from dashboard.models.fee_drag import (DEFAULT_AMOUNT, DEFAULT_RETURN_PCT, DEFAULT_YEARS, ClassFees, check_inputs,
                                       fee_drag, gross_from_nav, median)
from dashboard.models.feeders import FOREIGN_FUND_CODES, FUND_UNIT_CODES, master_lines, match_masters
from dashboard.records.labels import fee_type_key

if TYPE_CHECKING:
    import duckdb

    from dashboard.market.store import MarketStore

WAIVED = ("ยกเว้น", "waive")  # a charged fee sent as "waived" is 0 charged, not unknown

# ---- the derived table -----------------------------------------------------------------------------

_CODES = ", ".join(f"'{c}'" for c in (*FOREIGN_FUND_CODES, *FUND_UNIT_CODES))
_LINES_SQL = f"""
SELECT h.proj_id, h.period, trim(h.assetliab_id) AS assetliab_id, h.isin_code, h.issuer, h.percent_nav
FROM holdings h JOIN (SELECT proj_id, max(period) AS period FROM holdings GROUP BY proj_id) n
  ON n.proj_id = h.proj_id AND n.period = h.period
WHERE trim(h.assetliab_id) IN ({_CODES}) AND NOT coalesce(h.is_nav_total, FALSE)
"""
_FUNDS_SQL = """
SELECT proj_id, json_extract_string(record, '$.feederfund_master_fund') AS feederfund_master_fund, management_style
FROM funds
"""


def refresh_feeders(con: "duckdb.DuckDBPyConnection") -> int:
    """Rewrite `feeders` from the funds and holdings stored (in the caller's transaction); the feeders found."""
    names = ("proj_id", "period", "assetliab_id", "isin_code", "issuer", "percent_nav")
    lines = master_lines(dict(zip(names, row)) for row in con.execute(_LINES_SQL).fetchall())
    funds = [dict(zip(("proj_id", "feederfund_master_fund", "management_style"), row))
             for row in con.execute(_FUNDS_SQL).fetchall()]
    rows = match_masters(funds, lines)
    con.execute("DELETE FROM feeders")
    if rows:
        frame = record_frame("feeders", rows)
        con.register("_feeders", frame)
        try:
            con.execute("INSERT INTO feeders SELECT * FROM _feeders")
        finally:
            con.unregister("_feeders")
    return len(rows)


# ---- per-class fees ----------------------------------------------------------------------------------


def _charged(value: Any, text: Any) -> float | None:
    if value is not None and math.isfinite(value):
        return float(value)
    if isinstance(text, str) and any(w in text.casefold() for w in WAIVED):
        return 0.0
    return None


def class_fees(store: "MarketStore", proj_ids: Sequence[str]) -> dict[tuple[str, str], dict]:
    """(proj_id, class) -> {"charged": ClassFees, "ceiling": ClassFees} from the fees stored; class "" is a
    fund's only class. The total expense by the models' rule (the total line, else management + trustee +
    registrar); a waived fee is 0 charged."""
    from dashboard.models.fund import fee_total
    if not proj_ids:
        return {}
    marks = ", ".join("?" * len(proj_ids))
    rows = store.query(f"SELECT proj_id, coalesce(class_abbr_name, '') AS class, fee_type_desc, rate_num, "
                       f"actual_value_num, actual_value FROM fees WHERE proj_id IN ({marks}) ORDER BY proj_id, class, seq",
                       list(proj_ids))
    grouped: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        grouped.setdefault((row["proj_id"], row["class"]), []).append(row)
    out = {}
    kinds = {d: fee_type_key(d) for d in {r["fee_type_desc"] for r in rows}}  # a handful of spellings, many lines
    for key, lines in grouped.items():
        charged = [(r["fee_type_desc"], _charged(r["actual_value_num"], r["actual_value"])) for r in lines]
        ceiling = [(r["fee_type_desc"], r["rate_num"]) for r in lines]

        def kind(pairs, wanted):
            found = [v for d, v in pairs if kinds[d] == wanted and v is not None]
            return found[0] if found else None

        out[key] = {"charged": ClassFees(fee_total(charged), kind(charged, "front_end"), kind(charged, "back_end")),
                    "ceiling": ClassFees(fee_total(ceiling), kind(ceiling, "front_end"), kind(ceiling, "back_end"))}
    return out


# ---- masters -------------------------------------------------------------------------------------------

MASTER_FIELDS = ("master_id", "master_name", "master_isins", "feeders", "companies", "classes", "matched_by",
                 "total_expense_min", "total_expense_max")


def _fund_rows(store: "MarketStore", proj_ids: Sequence[str]) -> dict[str, dict]:
    if not proj_ids:
        return {}
    marks = ", ".join("?" * len(proj_ids))
    rows = store.query(
        "SELECT f.proj_id, f.proj_abbr_name, f.proj_name_en, f.proj_name_th, f.unique_id, f.fund_status, f.policy_desc, "
        "r.risk_spectrum, coalesce(nullif(trim(c.comp_name_en), ''), nullif(trim(c.comp_name_th), ''), f.unique_id) "
        "AS company, json_extract_string(f.record, '$.exchange_rate_protection_policy') AS fx_policy, "
        "json_extract_string(f.record, '$.feederfund_country') AS master_country "
        f"FROM funds f LEFT JOIN companies c ON c.unique_id = f.unique_id LEFT JOIN risk r ON r.proj_id = f.proj_id "
        f"WHERE f.proj_id IN ({marks})", list(proj_ids))
    return {r["proj_id"]: r for r in rows}


def _classes(store: "MarketStore", proj_ids: Sequence[str], fees: dict) -> dict[str, list[str]]:
    """Each fund's unit classes (the profile's, else those its fees name; "" a fund without classes)."""
    out: dict[str, list[str]] = {p: [] for p in proj_ids}
    if proj_ids:
        marks = ", ".join("?" * len(proj_ids))
        for row in store.query(f"SELECT proj_id, class_abbr_name FROM classes WHERE proj_id IN ({marks}) "
                               "ORDER BY proj_id, class_abbr_name", list(proj_ids)):
            if row["class_abbr_name"]:
                out[row["proj_id"]].append(row["class_abbr_name"])
    for proj_id in proj_ids:
        if not out[proj_id]:
            out[proj_id] = sorted({c for p, c in fees if p == proj_id}) or [""]
    return out


def masters(store: "MarketStore", *, limit: int | None = None) -> list[dict]:
    """The masters with the most Thai feeders (MASTER_FIELDS): feeders, their companies and unit classes, the
    ways they were matched, and the range of total expense charged among the feeders' classes."""
    rows = store.query("SELECT proj_id, master_id, master_name, master_isins, matched_by FROM feeders "
                       "WHERE master_id IS NOT NULL ORDER BY master_id, proj_id")
    proj_ids = [r["proj_id"] for r in rows]
    funds = _fund_rows(store, proj_ids)
    fees = class_fees(store, proj_ids)
    classes = _classes(store, proj_ids, fees)
    by_master: dict[str, dict] = {}
    for row in rows:
        m = by_master.setdefault(row["master_id"], {"master_id": row["master_id"], "master_name": row["master_name"],
                                                    "master_isins": row["master_isins"], "proj_ids": [],
                                                    "companies": set(), "classes": 0, "matched_by": set(),
                                                    "expenses": []})
        m["proj_ids"].append(row["proj_id"])
        m["companies"].add((funds.get(row["proj_id"]) or {}).get("unique_id"))
        m["matched_by"].add(row["matched_by"])
        for name in classes[row["proj_id"]]:
            m["classes"] += 1
            charged = fees.get((row["proj_id"], name), {}).get("charged")
            if charged is not None and charged.total_expense is not None:
                m["expenses"].append(charged.total_expense)
    out = []
    for m in by_master.values():
        out.append({"master_id": m["master_id"], "master_name": m["master_name"], "master_isins": m["master_isins"],
                    "feeders": len(m["proj_ids"]), "companies": len(m["companies"] - {None}), "classes": m["classes"],
                    "matched_by": ",".join(sorted(m["matched_by"])),
                    "total_expense_min": min(m["expenses"]) if m["expenses"] else None,
                    "total_expense_max": max(m["expenses"]) if m["expenses"] else None})
    out.sort(key=lambda m: (-m["feeders"], -m["companies"], m["master_name"] or "", m["master_id"]))
    return out[:limit] if limit is not None else out


def undecided(store: "MarketStore") -> list[dict]:
    """The feeders whose master the rules cannot decide, with the reason and the candidates."""
    return store.query(
        "SELECT d.proj_id, f.proj_abbr_name, d.undecided, d.declared_name, d.holding_isin, d.holding_pct, "
        "d.holding_period, d.candidates FROM feeders d LEFT JOIN funds f ON f.proj_id = d.proj_id "
        "WHERE d.undecided IS NOT NULL ORDER BY d.proj_id")


def master_of(store: "MarketStore", query: str) -> dict:
    """The feeders row of the fund a query names (proj_id or exact abbreviation); BadInputError when it is not
    a fund of the store or not a feeder."""
    proj_id = store.resolve(query or "")
    if proj_id is None:
        raise BadInputError(f"no fund {quoted(query)} in the market store (proj_id or exact abbreviation); "
                            "run `market sync` if the store is empty")
    rows = store.query("SELECT * EXCLUDE (record) FROM feeders WHERE proj_id = ?", [proj_id])
    if not rows:
        # named as people know it (its abbreviation), not by the id a view passes
        named = store.query("SELECT proj_abbr_name FROM funds WHERE proj_id = ?", [proj_id])
        name = (named[0]["proj_abbr_name"] if named else None) or query
        raise BadInputError(f"{quoted(name)} is not a feeder fund: it names no master fund and holds no foreign "
                            "fund's units at 60 % of its NAV or more")
    return rows[0]


# ---- siblings ------------------------------------------------------------------------------------------

SIBLING_FIELDS = ("proj_id", "proj_abbr_name", "class", "company", "fx_policy", "matched_by",
                  "total_expense", "total_expense_ceiling", "front_fee", "front_fee_ceiling", "back_fee",
                  "back_fee_ceiling", "total_return_1y", "total_return_3y_ann", "volatility_1y",
                  "diff_1y_vs_cheapest", "diff_3y_vs_cheapest", "nav_date", "is_fund", "is_cheapest")


def _cheapest(rows: list[dict]) -> dict | None:
    """The class with the lowest total expense charged (then front + back, then name); None when none states one."""
    priced = [r for r in rows if r["total_expense"] is not None]
    if not priced:
        return None
    return min(priced, key=lambda r: (r["total_expense"], (r["front_fee"] or 0) + (r["back_fee"] or 0),
                                      r["proj_id"], r["class"]))


def _tri(store: "MarketStore", keys: list[tuple[str, str]], since: date) -> dict[tuple[str, str], tuple]:
    """Each class's total-return index from `since` on, as (days since 1970 as int64, values): the NAV with
    distributions reinvested at the first NAV on or after each ex date (models.nav_windows.total_return_index's
    rule, in numpy: a sibling table reads a dozen classes in well under the 200 ms a command may take)."""
    if not keys:
        return {}
    proj_ids = sorted({p for p, _ in keys})
    # One list parameter, not an IN list of ?s: DuckDB scanned the market's NAV Parquet (5.7 M rows) in about half
    # the time (measured 183 against 337 ms for a master of 30 feeders, benchmarks/bench_feeders.py).
    # The range of the ids besides: the NAV Parquet is written in proj_id order, so DuckDB skips the row groups
    # outside it by their min/max (the list alone is a join, which reads every row group): 170 -> 100 ms there.
    span = [proj_ids, proj_ids[0], proj_ids[-1], since]
    nav = store.frame("SELECT proj_id, class, nav_date, nav FROM nav WHERE proj_id = ANY(?) AND proj_id BETWEEN ? AND ? "
                      "AND nav_date >= ? AND nav > 0 ORDER BY proj_id, class, nav_date", span)
    dist_rows = store.query("SELECT proj_id, class, ex_date, per_unit FROM distributions WHERE proj_id = ANY(?) "
                            "AND proj_id BETWEEN ? AND ? AND ex_date > ? AND per_unit > 0 ORDER BY ex_date", span)
    by_class: dict[tuple[str, str], list[dict]] = {}
    for row in dist_rows:
        by_class.setdefault((row["proj_id"], row["class"]), []).append(row)
    wanted = set(keys)
    out = {}
    days_all = pd.to_datetime(nav["nav_date"]).to_numpy(dtype="datetime64[D]").astype("int64")
    values_all = nav["nav"].to_numpy(dtype=float)
    ids, names = nav["proj_id"].to_numpy(), nav["class"].to_numpy()
    edges = np.flatnonzero((ids[1:] != ids[:-1]) | (names[1:] != names[:-1])) + 1 if len(nav) else np.array([], int)
    for lo, hi in zip(np.r_[0, edges], np.r_[edges, len(nav)]):
        if hi <= lo:
            continue
        key = (ids[lo], names[lo])
        if key not in wanted:
            continue
        days, values = days_all[lo:hi], values_all[lo:hi]
        growth = np.ones(len(days))
        for row in by_class.get(key, ()):
            ex = np.datetime64(row["ex_date"], "D").astype("int64")
            if ex <= days[0] or ex > days[-1]:
                continue
            at = int(np.searchsorted(days, ex, side="left"))
            growth[at] *= 1.0 + row["per_unit"] / values[at]
        out[key] = (days, values * np.cumprod(growth))
    return out


def _window_return(tri: tuple, end: int, years: int, annualise: bool, other: tuple | None = None) -> float | None:
    """Total return (percent) from the last NAV on or before `years` before `end` (a day number) to the last on
    or before `end`; on the days both series have when `other` is given (then this minus other). None without
    a NAV within 10 days of the start."""
    days, values = tri
    if other is not None:
        days, mine, theirs = np.intersect1d(days, other[0], assume_unique=True, return_indices=True)
        pairs = [values[mine], other[1][theirs]]
    else:
        pairs = [values]
    stop = int(np.searchsorted(days, end, side="right")) - 1
    start_day = _minus_years(_day(end), years).toordinal() - _EPOCH
    first = int(np.searchsorted(days, start_day, side="right")) - 1
    if first < 0 or stop <= first or start_day - days[first] > 10:
        return None
    span = int(days[stop] - days[first])

    def total(series) -> float:
        ratio = series[stop] / series[first]
        return float((ratio ** (365.25 / span) - 1) * 100 if annualise else (ratio - 1) * 100)

    return total(pairs[0]) if other is None else total(pairs[0]) - total(pairs[1])


_EPOCH = date(1970, 1, 1).toordinal()


def _minus_years(day: date, years: int) -> date:
    """The same day `years` earlier (28 February for a 29th that year lacks)."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def siblings(store: "MarketStore", query: str) -> dict:
    """Every unit class of every fund feeding the same master as the fund a query names, side by side
    (rows SIBLING_FIELDS), with the master, how it was matched, the cheapest class (lowest total expense
    charged) and the dates the returns are measured to. Returns are total returns (distributions
    reinvested) from the stored NAVs; a difference is this class's return minus the cheapest class's over
    the days both have a NAV."""
    own = master_of(store, query)
    if own["master_id"] is None:
        return {"fund": own["proj_id"], "master": None, "undecided": own, "rows": [], "cheapest": None,
                "nav_date": None}
    members = store.query("SELECT proj_id, matched_by FROM feeders WHERE master_id = ? ORDER BY proj_id",
                          [own["master_id"]])
    proj_ids = [m["proj_id"] for m in members]
    matched = {m["proj_id"]: m["matched_by"] for m in members}
    funds = _fund_rows(store, proj_ids)
    fees = class_fees(store, proj_ids)
    classes = _classes(store, proj_ids, fees)
    rows = []
    for proj_id in proj_ids:
        fund = funds.get(proj_id, {})
        for name in classes[proj_id]:
            f = fees.get((proj_id, name))
            charged = f["charged"] if f else ClassFees(None, None, None)
            ceiling = f["ceiling"] if f else ClassFees(None, None, None)
            rows.append({"proj_id": proj_id, "proj_abbr_name": fund.get("proj_abbr_name"), "class": name,
                         "company": fund.get("company"), "fx_policy": fund.get("fx_policy"),
                         "matched_by": matched[proj_id], "total_expense": charged.total_expense,
                         "total_expense_ceiling": ceiling.total_expense, "front_fee": charged.front,
                         "front_fee_ceiling": ceiling.front, "back_fee": charged.back, "back_fee_ceiling": ceiling.back,
                         "total_return_1y": None, "total_return_3y_ann": None, "volatility_1y": None,
                         "diff_1y_vs_cheapest": None, "diff_3y_vs_cheapest": None, "nav_date": None,
                         "is_fund": proj_id == own["proj_id"], "is_cheapest": False})
    cheapest = _cheapest(rows)
    if cheapest is not None:
        cheapest["is_cheapest"] = True
    nav_date = _add_returns(store, rows, cheapest, own["master_id"])
    master = {k: own[k] for k in ("master_id", "master_name", "master_isins")}
    master["feeders"] = len(proj_ids)
    master["companies"] = len({f.get("unique_id") for f in funds.values()} - {None})
    return {"fund": own["proj_id"], "master": master, "undecided": None, "matched_by": own["matched_by"],
            "holding": {k: own[k] for k in ("holding_isin", "holding_pct", "holding_period", "declared_name")},
            "rows": rows, "cheapest": cheapest, "nav_date": nav_date}


# What the returns are computed from: a reader serves the kept ones (`sibling_returns`, computed when a publish
# changes one of these) only when its snapshot published them with or after each of these.
SIBLING_INPUTS = KEPT_INPUTS["sibling_returns"]
RETURN_FIELDS = ("nav_date", "total_return_1y", "total_return_3y_ann", "diff_1y_vs_cheapest", "diff_3y_vs_cheapest")


def _add_returns(store: "MarketStore", rows: list[dict], cheapest: dict | None,
                 master_id: str | None = None) -> date | None:
    kept = _kept_returns(store, master_id, rows) if master_id is not None else None
    end, figures = kept if kept is not None else _returns(store, rows, cheapest)
    if end is None:
        return None
    keys = [(r["proj_id"], r["class"]) for r in rows]
    vol = {(r["proj_id"], r["class"]): r["volatility_1y"] for r in store.query(
        f"SELECT proj_id, class, volatility_1y FROM nav_figures WHERE proj_id IN ({', '.join('?' * len(keys))})",
        [k[0] for k in keys])}
    for row in rows:
        row["volatility_1y"] = vol.get((row["proj_id"], row["class"]))
        row.update(figures.get((row["proj_id"], row["class"]), {}))
    return end


def _returns(store: "MarketStore", rows: list[dict], cheapest: dict | None) -> tuple[date | None, dict]:
    """The day the returns are measured to (None: no NAV) and each class's RETURN_FIELDS, from the stored NAVs."""
    newest = store.query("SELECT max(nav_date) AS d FROM nav")[0]["d"]
    if newest is None:
        return None, {}
    keys = [(r["proj_id"], r["class"]) for r in rows]
    return _returns_of(_tri(store, keys, _since(newest)), rows, cheapest)


def _since(newest: date) -> date:
    return newest - timedelta(days=3 * 366 + 15)


def _returns_of(series: dict, rows: list[dict], cheapest: dict | None) -> tuple[date | None, dict]:
    """`_returns` from the classes' total-return indexes (`_tri`; more classes than the rows' may be given)."""
    series = {k: series[k] for k in ((r["proj_id"], r["class"]) for r in rows) if k in series}
    if not series:
        return None, {}
    end = int(min(days[-1] for days, _ in series.values()))
    base = series.get((cheapest["proj_id"], cheapest["class"])) if cheapest else None
    figures = {}
    for row in rows:
        key = (row["proj_id"], row["class"])
        tri = series.get(key)
        if tri is None:
            continue
        figures[key] = {"nav_date": _day(end),
                        "total_return_1y": _window_return(tri, end, 1, False),
                        "total_return_3y_ann": _window_return(tri, end, 3, True),
                        "diff_1y_vs_cheapest": _window_return(tri, end, 1, False, base) if base is not None else None,
                        "diff_3y_vs_cheapest": _window_return(tri, end, 3, True, base) if base is not None else None}
    return _day(end), figures


def _kept_returns(store: "MarketStore", master_id: str, rows: list[dict]) -> tuple[date | None, dict] | None:
    """`_returns` as kept for this snapshot (`sibling_returns`), or None when it is not kept for every row."""
    if not rows or not store.kept("sibling_returns", SIBLING_INPUTS):
        return None
    found = store.query("SELECT * FROM sibling_returns WHERE master_id = ?", [master_id])
    by_key = {(r["proj_id"], r["class"]): r for r in found}
    if any((r["proj_id"], r["class"]) not in by_key for r in rows):
        return None
    end = found[0]["master_nav_date"]
    figures = {key: {f: r[f] for f in RETURN_FIELDS} for key, r in by_key.items() if r["nav_date"] is not None}
    return end, figures


def sibling_returns_frame(store: "MarketStore") -> pd.DataFrame:
    """Every master's sibling classes with their returns (KEPT_TABLES["sibling_returns"]), as `siblings` computes
    them afresh: the rows a publish keeps for readers. The NAVs of every feeder are read once."""
    members = store.query("SELECT master_id, proj_id FROM feeders WHERE master_id IS NOT NULL ORDER BY master_id, proj_id")
    proj_ids = sorted({m["proj_id"] for m in members})
    fees = class_fees(store, proj_ids)
    classes = _classes(store, proj_ids, fees)
    families: dict[str, list[dict]] = {}
    for m in members:
        for name in classes[m["proj_id"]]:
            charged = (fees.get((m["proj_id"], name)) or {}).get("charged") or ClassFees(None, None, None)
            families.setdefault(m["master_id"], []).append(
                {"proj_id": m["proj_id"], "class": name, "total_expense": charged.total_expense,
                 "front_fee": charged.front, "back_fee": charged.back})
    newest = store.query("SELECT max(nav_date) AS d FROM nav")[0]["d"] if families else None
    keys = [(r["proj_id"], r["class"]) for rows in families.values() for r in rows]
    series = _tri(store, keys, _since(newest)) if newest is not None else {}
    out = []
    for master_id, rows in families.items():
        end, figures = _returns_of(series, rows, _cheapest(rows))
        for r in rows:
            f = figures.get((r["proj_id"], r["class"]), {})
            out.append({"master_id": master_id, "proj_id": r["proj_id"], "class": r["class"], "master_nav_date": end,
                        **{name: f.get(name) for name in RETURN_FIELDS}})
    columns = ["master_id", "proj_id", "class", "master_nav_date", *RETURN_FIELDS]
    frame = pd.DataFrame(out, columns=columns, dtype=object)
    for name in ("master_nav_date", "nav_date"):  # as ISO text, which the table's DATE columns read exactly
        frame[name] = [d.isoformat() if d is not None else None for d in frame[name]]
    return frame


def _day(number: int) -> date:
    return date.fromordinal(int(number) + _EPOCH)


# ---- fee drag --------------------------------------------------------------------------------------------


def _class_of(store: "MarketStore", query: str) -> tuple[str, str]:
    """(proj_id, class) a query names: a class abbreviation (exact, any case), else a fund (its first class)."""
    text = (query or "").strip()
    rows = store.query("SELECT proj_id, class_abbr_name FROM classes WHERE upper(class_abbr_name) = upper(?) "
                       "ORDER BY proj_id LIMIT 1", [text])
    if rows:
        return rows[0]["proj_id"], rows[0]["class_abbr_name"]
    proj_id = store.resolve(text)
    if proj_id is None:
        raise BadInputError(f"no fund or unit class {quoted(query)} in the market store (proj_id, abbreviation or "
                            "class abbreviation); run `market sync` if the store is empty")
    fees = class_fees(store, [proj_id])
    names = _classes(store, [proj_id], fees)[proj_id]
    return proj_id, names[0]


COST_FIELDS = ("comparison", "proj_id", "proj_abbr_name", "class", "total_expense", "front_fee", "back_fee",
               "total_expense_ceiling", "front_fee_ceiling", "back_fee_ceiling", "cost", "final_value",
               "extra_cost", "unstated", "basis")


def class_costs(store: "MarketStore", query: str, *, amount: float | None = None, years: int | None = None,
                return_pct: float | None = None) -> dict:
    """What a class's charged fees take from `amount` baht held `years` years at `return_pct` a year before fees
    (defaults: 100,000 THB, 10 years, the class's own 5-year NAV return grossed up by its total expense, else
    DEFAULT_RETURN_PCT), against (a) the cheapest sibling feeder, (b) the cheapest class of the same fund and
    (c) the peer median (same policy type and risk level). Each comparison is at the same return before fees.
    Rows COST_FIELDS; `extra_cost` is what the class's fees take beyond the comparison's."""
    amount = DEFAULT_AMOUNT if amount is None else amount
    years = DEFAULT_YEARS if years is None else years
    check_inputs(amount, years, DEFAULT_RETURN_PCT if return_pct is None else return_pct)
    proj_id, name = _class_of(store, query)
    funds = _fund_rows(store, [proj_id])
    fund = funds.get(proj_id, {})
    fees = class_fees(store, [proj_id])
    own = fees.get((proj_id, name)) or {"charged": ClassFees(None, None, None), "ceiling": ClassFees(None, None, None)}
    return_basis = "given"
    if return_pct is None:
        fig = store.query("SELECT return_5y_ann, last_nav_date FROM nav_figures WHERE proj_id = ? AND class = ?",
                          [proj_id, name])
        nav5 = fig[0]["return_5y_ann"] if fig else None
        if nav5 is not None and math.isfinite(nav5):
            return_pct = gross_from_nav(nav5, own["charged"].total_expense)
            return_basis = f"5y_nav:{nav5:.4f}:{fig[0]['last_nav_date']}"
        else:
            return_pct, return_basis = DEFAULT_RETURN_PCT, "default"
    check_inputs(amount, years, return_pct)
    rows = [_cost_row("this class", proj_id, fund.get("proj_abbr_name"), name, own, amount, years, return_pct, "")]
    # (a) the cheapest sibling feeder
    try:
        family = siblings_fees(store, proj_id)
    except BadInputError:
        family = []
    if family:
        best = min(family, key=lambda r: fee_drag(amount, years, return_pct, r["fees"]["charged"]).cost)
        rows.append(_cost_row("cheapest sibling feeder", best["proj_id"], best["proj_abbr_name"], best["class"],
                              best["fees"], amount, years, return_pct, f"{len(family)} classes feeding the same master"))
    # (b) the cheapest class of the same fund
    own_classes = [(c, f) for (p, c), f in fees.items() if p == proj_id]
    if own_classes:
        c, f = min(own_classes, key=lambda cf: (fee_drag(amount, years, return_pct, cf[1]["charged"]).cost, cf[0]))
        rows.append(_cost_row("cheapest class of the fund", proj_id, fund.get("proj_abbr_name"), c, f, amount, years,
                              return_pct, f"{len(own_classes)} classes"))
    # (c) the peer median
    peer = peer_median_fees(store, fund.get("policy_desc"), fund.get("risk_spectrum"))
    if peer is not None:
        rows.append(_cost_row("peer median", None, None, None, {"charged": peer["fees"], "ceiling": None}, amount,
                              years, return_pct, f"{peer['classes']} classes of {peer['funds']} funds: "
                              f"{fund.get('policy_desc')}, {fund.get('risk_spectrum')}"))
    cost = rows[0]["cost"]
    for row in rows:
        row["extra_cost"] = cost - row["cost"]
    mine = fee_drag(amount, years, return_pct, own["charged"])
    return {"proj_id": proj_id, "class": name, "amount": amount, "years": years, "return_pct": return_pct,
            "return_basis": return_basis, "rows": rows,
            "values": {"without_fees": list(mine.without_fees), "with_fees": list(mine.with_fees)}}


def _cost_row(comparison: str, proj_id, abbr, name, fees: dict, amount, years, return_pct, basis) -> dict:
    charged: ClassFees = fees["charged"]
    ceiling: ClassFees | None = fees.get("ceiling")
    drag = fee_drag(amount, years, return_pct, charged)
    return {"comparison": comparison, "proj_id": proj_id, "proj_abbr_name": abbr, "class": name,
            "total_expense": charged.total_expense, "front_fee": charged.front, "back_fee": charged.back,
            "total_expense_ceiling": ceiling.total_expense if ceiling else None,
            "front_fee_ceiling": ceiling.front if ceiling else None,
            "back_fee_ceiling": ceiling.back if ceiling else None,
            "cost": drag.cost, "final_value": drag.final_value, "extra_cost": None,
            "unstated": ", ".join(charged.unstated), "basis": basis}


def siblings_fees(store: "MarketStore", proj_id: str) -> list[dict]:
    """Every class feeding the same master as `proj_id` (itself included) with its fees; [] for no master."""
    own = master_of(store, proj_id)
    if own["master_id"] is None:
        return []
    proj_ids = [r["proj_id"] for r in store.query("SELECT proj_id FROM feeders WHERE master_id = ? ORDER BY proj_id",
                                                   [own["master_id"]])]
    funds = _fund_rows(store, proj_ids)
    fees = class_fees(store, proj_ids)
    return [{"proj_id": p, "proj_abbr_name": funds.get(p, {}).get("proj_abbr_name"), "class": c, "fees": f}
            for (p, c), f in sorted(fees.items())]


def peer_median_fees(store: "MarketStore", policy: str | None, risk: str | None) -> dict | None:
    """The median of each charged fee over every class of the funds of one policy type and risk level."""
    if not (policy or "").strip() or not risk:
        return None
    peers = [r["proj_id"] for r in store.query(
        "SELECT f.proj_id FROM funds f JOIN risk r ON r.proj_id = f.proj_id WHERE trim(f.policy_desc) = trim(?) "
        "AND r.risk_spectrum = ?", [policy, risk])]
    fees = class_fees(store, peers)
    if not fees:
        return None
    charged = [f["charged"] for f in fees.values()]
    return {"fees": ClassFees(median([c.total_expense for c in charged]), median([c.front for c in charged]),
                              median([c.back for c in charged])),
            "classes": len(charged), "funds": len({p for p, _ in fees})}


def cost_column(store: "MarketStore", proj_ids: Sequence[str], *, amount: float = DEFAULT_AMOUNT,
                years: int = DEFAULT_YEARS, return_pct: float = DEFAULT_RETURN_PCT) -> dict[str, float]:
    """The screener's column: what each fund's first class's charged fees take from `amount` over `years` at
    `return_pct` a year before fees (one stated return for every fund, so the column ranks the fees alone)."""
    fees = class_fees(store, list(proj_ids))
    first: dict[str, ClassFees] = {}
    for (proj_id, _name), f in sorted(fees.items()):
        first.setdefault(proj_id, f["charged"])
    return {p: fee_drag(amount, years, return_pct, f).cost for p, f in first.items()
            if f.total_expense is not None}


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def class_nav_returns(store: "MarketStore", proj_ids: Sequence[str]) -> dict[tuple[str, str], tuple[float, date]]:
    """(proj_id, class) -> (its 5-year NAV return, percent a year; the last NAV day it is measured to), for the
    classes of these funds that have one (the store's nav_figures): the fee drag's own return of a class."""
    if not proj_ids:
        return {}
    marks = ", ".join("?" * len(proj_ids))
    rows = store.query(f"SELECT proj_id, class, return_5y_ann, last_nav_date FROM nav_figures WHERE proj_id IN ({marks}) "
                       "AND return_5y_ann IS NOT NULL", list(proj_ids))
    return {(r["proj_id"], r["class"]): (r["return_5y_ann"], r["last_nav_date"]) for r in rows
            if math.isfinite(r["return_5y_ann"])}

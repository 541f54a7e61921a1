"""The market store's NAV tables: the service's whole-market NAV and distribution rows as typed rows,
one window of days at a time, and one class's series read back in the shape of notes/nav-interface.md.

`nav` holds one row per (proj_id, class, nav_date); `distributions` one per (proj_id, class, ex_date,
per_unit); `nav_days` which days were fetched and on which day (what makes a sync incremental). A
window's rows replace the stored rows of its days in one transaction, with the window's bookkeeping
(its staged pages and meta row) removed in the same transaction, so a sync killed at any point goes
on from what is stored.

The rows are not taken on trust (as `dashboard.api.nav` does for one fund): rows dated outside the
window asked are left out, a (proj_id, class, nav_date) sent twice is kept once (the later update),
a NAV of 0 or below is dropped, and prices of 0 mean "not offered" (stored as NULL). Each is counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np
import pandas as pd

from dashboard.api.nav import clean_class
from dashboard.market.store import MarketStore

NAV_ROW_COLUMNS = ("proj_id", "class", "nav_date", "nav", "offer", "bid", "net_asset")
DIST_ROW_COLUMNS = ("proj_id", "class", "ex_date", "pay_date", "per_unit")
_PRICES = ("offer", "bid", "net_asset")


@dataclass
class WindowRows:
    """One window's rows as the store keeps them, and what was left out of them."""

    nav: pd.DataFrame
    distributions: pd.DataFrame
    duplicates: int = 0  # (proj_id, class, nav_date) sent more than once: kept once
    dropped: int = 0  # NAV of 0, below 0 or missing
    outside: int = 0  # dated outside the window asked (a date filter ignored)


def _day(values: pd.Series) -> pd.Series:
    """Dates from the service's text (`2026-06-02`, `2024-01-25 00:00:00.0000000`): the day, else NaT."""
    return pd.to_datetime(values.astype("string").str.slice(0, 10), format="%Y-%m-%d", errors="coerce")


_DAY_DTYPE = _day(pd.Series(["2026-01-02"])).dtype  # the dates' type as `_day` makes them (this pandas' unit)


def _numbers(frame: pd.DataFrame, name: str) -> pd.Series:
    if name not in frame:
        return pd.Series(np.nan, index=frame.index, dtype="float64")
    return pd.to_numeric(frame[name], errors="coerce").astype("float64")


def _classes(values: pd.Series) -> pd.Series:
    names = {v: clean_class(v) for v in values.dropna().unique()}
    return values.map(names).fillna("")


def window_rows(nav_items: list, dividend_items: list, first: date, last: date) -> WindowRows:
    """The store's rows of one window from the service's whole-market items (dicts as sent)."""
    plain = _plain_nav_rows(nav_items, first, last)
    if plain is not None:
        return WindowRows(plain[0], _distribution_rows(dividend_items, first, last), *plain[1:])
    items = pd.DataFrame([i for i in nav_items if isinstance(i, dict)])
    if items.empty or "proj_id" not in items or "nav_date" not in items:
        nav = empty_nav()
        duplicates = dropped = outside = 0
    else:
        frame = pd.DataFrame({
            "proj_id": items["proj_id"].astype("string").str.strip(),
            "class": _classes(items.get("fund_class_name", pd.Series(None, index=items.index))),
            "nav_date": _day(items["nav_date"]),
            "nav": _numbers(items, "last_val"),
            **{name: _numbers(items, field) for name, field in zip(_PRICES, ("sell_price", "buy_price", "net_asset"))},
            "_upd": items.get("last_upd_date", pd.Series("", index=items.index)).astype("string").fillna(""),
        })
        frame = frame[frame["proj_id"].notna() & (frame["proj_id"] != "") & frame["nav_date"].notna()]
        inside = frame["nav_date"].between(pd.Timestamp(first), pd.Timestamp(last))
        outside = int((~inside).sum())
        frame = frame[inside].sort_values("_upd", kind="stable")
        before = len(frame)
        frame = frame.drop_duplicates(["proj_id", "class", "nav_date"], keep="last")  # the later update wins
        duplicates = before - len(frame)
        good = frame["nav"] > 0
        dropped = int((~good).sum())
        nav = frame[good].drop(columns="_upd")
        for name in _PRICES:  # 0 means not offered (or not published), never a price of 0
            nav[name] = nav[name].where(nav[name] > 0)
        nav = nav.sort_values(["proj_id", "class", "nav_date"]).reset_index(drop=True)
    return WindowRows(nav, _distribution_rows(dividend_items, first, last), duplicates, dropped, outside)


_NUMBER_FIELDS = ("last_val", "sell_price", "buy_price", "net_asset")
_DATE_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _plain_nav_rows(items: list, first: date, last: date) -> tuple[pd.DataFrame, int, int, int] | None:
    """`window_rows`' NAV rows (and duplicates, dropped, outside) made in plain Python when every item is as the
    service sends it (text ids, dates and stamps, JSON numbers), None otherwise (the pandas path then coerces
    whatever came). The same rows and counts, without the dozens of pandas steps each window paid ~25 ms for."""
    best: dict[tuple, tuple] = {}  # (proj_id, class, day) -> (stamp, row): the later update wins, ties the later sent
    names: dict[str, str] = {}
    inside = outside = 0
    for item in items:
        if not isinstance(item, dict):
            continue
        pid, day_text = item.get("proj_id"), item.get("nav_date")
        if pid is None or day_text is None:
            continue
        name, stamp = item.get("fund_class_name"), item.get("last_upd_date")
        if not (type(pid) is str and type(day_text) is str and (name is None or type(name) is str)
                and (stamp is None or type(stamp) is str) and _DATE_TEXT.match(day_text)):
            return None
        numbers = [item.get(f) for f in _NUMBER_FIELDS]
        if any(v is not None and type(v) not in (float, int) for v in numbers):
            return None
        pid = pid.strip()
        if not pid:
            continue
        try:
            day = date.fromisoformat(day_text[:10])
        except ValueError:
            return None
        if not first <= day <= last:
            outside += 1
            continue
        inside += 1
        if name is None:
            cls = ""
        else:
            cls = names.get(name)
            if cls is None:
                cls = names[name] = clean_class(name)
        key, stamp = (pid, cls, day), stamp or ""
        kept = best.get(key)
        if kept is None or stamp >= kept[0]:
            best[key] = (stamp, [np.nan if v is None else float(v) for v in numbers])
    duplicates = inside - len(best)
    keys, values = [], []
    for key in sorted(best):
        value = best[key][1]
        if value[0] > 0:  # a NaN NAV is not above 0 either
            keys.append(key)
            values.append(value)
    dropped = len(best) - len(keys)
    if not keys:
        return empty_nav(), duplicates, dropped, outside
    numbers = np.array(values, dtype="float64")
    prices = np.where(numbers[:, 1:] > 0, numbers[:, 1:], np.nan)  # 0 means not offered, never a price of 0
    nav = pd.DataFrame({
        "proj_id": pd.array([k[0] for k in keys], dtype="string"),
        "class": [k[1] for k in keys],
        "nav_date": np.array([k[2] for k in keys], dtype="datetime64[D]").astype(_DAY_DTYPE),
        "nav": numbers[:, 0], "offer": prices[:, 0], "bid": prices[:, 1], "net_asset": prices[:, 2],
    })
    return nav, duplicates, dropped, outside


def _distribution_rows(items: list, first: date, last: date) -> pd.DataFrame:
    if not items:  # a NAV window's (its distributions come by their own call): no frame to build and filter
        return empty_distributions()
    frame = pd.DataFrame([i for i in items if isinstance(i, dict)])
    if frame.empty or "proj_id" not in frame or "book_close_date" not in frame:
        return empty_distributions()
    rows = pd.DataFrame({
        "proj_id": frame["proj_id"].astype("string").str.strip(),
        "class": _classes(frame.get("class_abbr_name", pd.Series(None, index=frame.index))),
        "ex_date": _day(frame["book_close_date"]),
        "pay_date": _day(frame.get("dividend_date", pd.Series(None, index=frame.index, dtype="object"))),
        "per_unit": _numbers(frame, "dividend_value"),
    })
    rows = rows[rows["ex_date"].between(pd.Timestamp(first), pd.Timestamp(last)) & (rows["per_unit"] > 0)
                & rows["proj_id"].notna()]
    return rows.drop_duplicates().sort_values(["proj_id", "class", "ex_date"]).reset_index(drop=True)


def empty_nav() -> pd.DataFrame:
    return pd.DataFrame({"proj_id": pd.Series([], dtype="string"), "class": pd.Series([], dtype="string"),
                         "nav_date": pd.Series([], dtype="datetime64[ns]"),
                         **{c: pd.Series([], dtype="float64") for c in ("nav", *_PRICES)}})


def empty_distributions() -> pd.DataFrame:
    """No distributions, as a frame of their columns (a copy of one made once: building even an empty frame
    of five typed columns costs milliseconds, and every NAV window of a sync has one)."""
    return _EMPTY_DISTRIBUTIONS.copy()


def _empty_distributions() -> pd.DataFrame:
    return pd.DataFrame({"proj_id": pd.Series([], dtype="string"), "class": pd.Series([], dtype="string"),
                         "ex_date": pd.Series([], dtype="datetime64[ns]"), "pay_date": pd.Series([], dtype="datetime64[ns]"),
                         "per_unit": pd.Series([], dtype="float64")})


_EMPTY_DISTRIBUTIONS = _empty_distributions()


# ---- writing ---------------------------------------------------------------------------------------


def store_window(store: MarketStore, rows: WindowRows, first: date, last: date, *, fetched_on: date,
                 key: str | None = None) -> None:
    """Replace the stored NAVs of the days first..last with these rows, mark the days fetched on
    `fetched_on`, and forget the window's staged pages (`key`), in one transaction."""
    with store.transaction() as con:
        con.execute("DELETE FROM nav WHERE nav_date BETWEEN ? AND ?", [first, last])
        _insert(con, "nav", rows.nav[list(NAV_ROW_COLUMNS)])
        con.execute("DELETE FROM nav_days WHERE day BETWEEN ? AND ?", [first, last])
        # each day with the count of its rows just stored (the window's rows are all of its days'), counted in
        # the store: no frame of marks built in pandas for every window
        con.execute("INSERT INTO nav_days SELECT t.d::DATE, ?, count(n.nav_date) FROM generate_series(?::DATE, ?::DATE, "
                    "INTERVAL 1 DAY) t(d) LEFT JOIN (SELECT nav_date FROM nav WHERE nav_date BETWEEN ? AND ?) n "
                    "ON n.nav_date = t.d::DATE GROUP BY t.d ORDER BY t.d", [fetched_on, first, last, first, last])
        if key is not None:
            con.execute("DELETE FROM stage WHERE dataset = ?", [key])
            con.execute("DELETE FROM meta WHERE dataset = ?", [key])


def store_distributions(store: MarketStore, distributions: pd.DataFrame, first: date, last: date, *,
                        key: str | None = None) -> None:
    """Replace the stored distributions with a book-close date in first..last, and forget the call's
    staged pages (`key`), in one transaction."""
    with store.transaction() as con:
        con.execute("DELETE FROM distributions WHERE ex_date BETWEEN ? AND ?", [first, last])
        _insert(con, "distributions", distributions[list(DIST_ROW_COLUMNS)])
        if key is not None:
            con.execute("DELETE FROM stage WHERE dataset = ?", [key])
            con.execute("DELETE FROM meta WHERE dataset = ?", [key])


def load_nav(store: MarketStore, nav: pd.DataFrame, distributions: pd.DataFrame | None = None, *,
             fetched_on: date) -> int:
    """Replace every stored NAV (and distribution) with these frames at once (the benchmark's and the
    tests' bulk load of a whole history); the rows stored. Columns: NAV_ROW_COLUMNS (DIST_ROW_COLUMNS)."""
    nav = nav.sort_values(["proj_id", "class", "nav_date"])
    first, last = nav["nav_date"].min().date(), nav["nav_date"].max().date()
    dist = distributions if distributions is not None else empty_distributions()
    with store.transaction() as con:
        con.execute("DELETE FROM nav")
        con.execute("DELETE FROM distributions")
        con.execute("DELETE FROM nav_days")
        _insert(con, "nav", nav[list(NAV_ROW_COLUMNS)])
        _insert(con, "distributions", dist[list(DIST_ROW_COLUMNS)])
        con.execute("INSERT INTO nav_days SELECT d::DATE, ?, 0 FROM generate_series(?::DATE, ?::DATE, "
                    "INTERVAL 1 DAY) t(d)", [fetched_on, first, last])
    return len(nav)


def from_market_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """NAV rows in the service's naming (proj_id, fund_class_name, nav_date, nav, offer, bid, net_asset: the
    demo's `market_nav_frame`) as the store's rows: class names as the product keys them, 0 prices NULL."""
    names = frame["fund_class_name"].astype("string")
    mapped = {v: clean_class(v) for v in names.dropna().unique()}
    rows = pd.DataFrame({"proj_id": frame["proj_id"].astype("string"), "class": names.map(mapped).fillna(""),
                         "nav_date": frame["nav_date"], "nav": frame["nav"].astype("float64")})
    for name in _PRICES:
        values = frame[name].astype("float64")
        rows[name] = values.where(values > 0)
    return rows[rows["nav"] > 0]


def _insert(con, table: str, frame: pd.DataFrame) -> None:
    if not len(frame):
        return
    con.register("_nav_rows", frame)
    try:
        con.execute(f"INSERT INTO {table} SELECT * FROM _nav_rows")
    finally:
        con.unregister("_nav_rows")


# ---- reading ---------------------------------------------------------------------------------------


def fetched_days(store: MarketStore) -> dict[date, date]:
    """Each day whose NAVs were fetched, and the day it was last fetched on."""
    rows = store.query("SELECT day, fetched_on FROM nav_days")
    return {r["day"]: r["fetched_on"] for r in rows}


def newest_nav_date(store: MarketStore) -> date | None:
    return store.query("SELECT max(nav_date) AS d FROM nav")[0]["d"]


def class_nav(store: MarketStore, proj_id: str, class_name: str = "") -> pd.DataFrame:
    """One class's NAV series from the store (nav_date, nav, offer, bid, net_asset; ascending), the shape
    of notes/nav-interface.md; empty when the store has none."""
    frame = store.frame("SELECT nav_date, nav, offer, bid, net_asset FROM nav WHERE proj_id = ? AND class = ? "
                        "ORDER BY nav_date", [proj_id, class_name])
    frame["nav_date"] = pd.to_datetime(frame["nav_date"]).astype("datetime64[ns]")
    return frame.astype({c: "float64" for c in ("nav", *_PRICES)})


def class_distributions(store: MarketStore, proj_id: str, class_name: str = "") -> pd.DataFrame:
    frame = store.frame("SELECT ex_date, pay_date, per_unit FROM distributions WHERE proj_id = ? AND class = ? "
                        "ORDER BY ex_date", [proj_id, class_name])
    for name in ("ex_date", "pay_date"):
        frame[name] = pd.to_datetime(frame[name]).astype("datetime64[ns]")
    return frame.astype({"per_unit": "float64"})


def days_between(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


__all__ = ["WindowRows", "class_distributions", "class_nav", "days_between", "fetched_days", "from_market_frame", "load_nav",
           "newest_nav_date", "store_distributions", "store_window", "window_rows"]

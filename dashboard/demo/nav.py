"""The demo's daily NAV and distributions: deterministic series per unit class, built with numpy.

Each active demo fund gets a NAV profile at generation (`nav_profile`, kept in the data set's
`nav_profiles`, plain data a test may change); `class_series` turns one fund's profile into
arrays of its classes' rows on the demo's calendar, and `market_nav_frame` does every fund at
once (the market-scale demo's ~6 M rows in seconds). The series follow the demo's `today`: they
end on the last business day before it and reach back `HISTORY_MONTHS` months, so the demo works
on any real date.

The service's quirks are part of the data (shared/spec/successor-api.md 4.12, issue 27):
market-wide outages with no rows, a weekly-NAV and a monthly-NAV fund, a class renamed
mid-history (`X-ACC` became `X-A`: the new name is a substring of the old one, so a filter that
matches part of a name returns the old rows too), zero swap prices on tax-incentive classes
(not offered) and distributions on the dividend classes. The factsheet's published fund returns
are computed from these series (`published_returns`), so they can be checked against the history.
"""

from __future__ import annotations

import calendar
import hashlib
from datetime import date, timedelta

import numpy as np
import pandas as pd

# Market-wide days with no NAV rows at all (successor-api.md 4.12; fund-markdown's continuity notes).
OUTAGES: tuple[tuple[date, date], ...] = (
    (date(2024, 2, 8), date(2024, 2, 20)),
    (date(2024, 10, 31), date(2024, 11, 15)),
    (date(2026, 2, 13), date(2026, 2, 24)),
)
HISTORY_MONTHS = 63  # five years and a quarter: every 5-year figure has a start NAV
TRADING_DAYS = 252
FREQUENCIES = ("daily", "weekly", "monthly")
NON_CLASS_NAV = "main"  # fund_class_name of a fund without classes on daily-info/nav (captured)
NON_CLASS_DIVIDEND = "-"  # class_abbr_name of a fund without classes on dividend-history (the reference's example)
ZERO_SWAP_SUFFIXES = ("SSF", "P")  # tax-incentive and provident classes: no switching, swap prices 0.0
ZERO_SWAP_KINDS = ("SSF", "RMF", "TESG")
DIVIDEND_SUFFIXES = ("D",)
DIVIDEND_MONTHS = (1, 7)  # book-close around the 25th of January and July
RENAMED_FROM = "ACC"  # a renamed class's former suffix (`X-ACC` -> `X-A`)


def seed_of(*parts: object) -> int:
    """A stable 64-bit seed from any parts (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode("utf-8")).digest()[:8], "little")


def history_start(today: date) -> date:
    """The first day of the demo's NAV history: the first of the month HISTORY_MONTHS before today."""
    months = today.year * 12 + today.month - 1 - HISTORY_MONTHS
    return date(months // 12, months % 12 + 1, 1)


def last_nav_day(today: date) -> date:
    """The last NAV date the demo publishes on `today`: the business day before it (NAVs come the next morning)."""
    day = today - timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def minus_months(day: date, months: int) -> date:
    """The same day `months` calendar months earlier (the month's last day when it has fewer days)."""
    index = day.year * 12 + day.month - 1 - months
    year, month = index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


# ---- profiles (written at generation, read by the simulator) ------------------------------------


def nav_profile(*, seed: int, proj_id: str, unique_id: str, today: date, regis: date | None, theme: str,
                kind_code: str, class_names: list[str], suffixes: tuple[str, ...], frequency: str = "daily",
                renamed: bool = False, mu_sigma: tuple[float, float] = (4.0, 14.0)) -> dict | None:
    """One fund's NAV profile (plain JSON-like data), or None when it has no NAV yet (registered today)."""
    start = history_start(today)
    first = max(start, (regis or start) + timedelta(days=3))
    if first > last_nav_day(today):
        return None
    rng = np.random.default_rng(seed_of(seed, "nav-profile", proj_id))
    names = class_names or [NON_CLASS_NAV]
    classes = []
    for n, name in enumerate(names):
        suffix = suffixes[n] if class_names else ""
        inception = regis is not None and first > start
        classes.append({
            "name": name,
            "nav0": 10.0 if inception else round(float(rng.uniform(8.0, 25.0)), 4),
            "drag": 0.15 * n,  # percent a year: the classes differ by their fees only
            "front": round(float(rng.choice((0.0, 0.001, 0.01, 0.015))), 4),
            "back": round(float(rng.choice((0.0, 0.0, 0.001, 0.0025))), 4),
            "units": round(float(rng.uniform(5e6, 4e8)), 0),
            "swap": not (suffix in ZERO_SWAP_SUFFIXES or kind_code in ZERO_SWAP_KINDS),
            "dividend_yield": round(float(rng.uniform(0.01, 0.03)), 4) if suffix in DIVIDEND_SUFFIXES else 0.0,
            "former": None,
        })
    if renamed:
        target = next((c for c in classes if c["name"].endswith("-A")), None)
        if target is not None:
            target["former"] = [target["name"] + RENAMED_FROM[1:], date(today.year - 2, 6, 30).isoformat()]
    mu, sigma = mu_sigma
    return {
        "proj_id": proj_id, "unique_id": unique_id, "seed": seed_of(seed, "nav", proj_id), "first": first.isoformat(),
        "frequency": frequency, "mu": mu, "sigma": sigma, "classes": classes,
        "inception": regis is not None and first > start,
        "stamp": [int(rng.integers(14, 19)), int(rng.integers(60)), int(rng.integers(60)), int(rng.integers(1, 1000))],
    }


# ---- series ------------------------------------------------------------------------------------


def business_days(first: date, last: date) -> np.ndarray:
    """Monday-to-Friday dates from `first` to `last` inclusive, as datetime64[D]."""
    days = np.arange(np.datetime64(first, "D"), np.datetime64(last, "D") + 1, dtype="datetime64[D]")
    return days[np.is_busday(days)]


def published_mask(days: np.ndarray, frequency: str) -> np.ndarray:
    """Which business days carry a row: outages removed; weekly funds on each week's last business day,
    monthly funds on each month's last business day."""
    keep = np.ones(len(days), dtype=bool)
    for a, b in OUTAGES:
        keep &= ~((days >= np.datetime64(a, "D")) & (days <= np.datetime64(b, "D")))
    if frequency == "weekly":
        week = (days.astype("int64") + 3) // 7  # 1970-01-01 was a Thursday: weeks start on Monday
        keep &= np.append(week[1:] != week[:-1], True)
    elif frequency == "monthly":
        month = days.astype("datetime64[M]")
        keep &= np.append(month[1:] != month[:-1], True)
    return keep


def class_series(profile: dict, today: date) -> list[dict]:
    """Every class's rows of one fund: dict of numpy arrays per class, in class order.

    Keys: name (array of the class name per row: a renamed class carries its former name before the
    rename), nav_date (datetime64[D]), nav, offer, bid, sell_swap, buy_swap, net_asset, and the
    class's distributions: ex_date, pay_date, per_unit.
    """
    first, last = date.fromisoformat(profile["first"]), last_nav_day(today)
    days = business_days(first, last)
    if len(days) == 0:
        return []
    rng = np.random.default_rng(profile["seed"])
    mu, sigma = profile["mu"] / 100.0, profile["sigma"] / 100.0
    shocks = rng.standard_normal(len(days))
    flows = rng.standard_normal(len(days)) * 0.002
    step = (mu - sigma * sigma / 2) / TRADING_DAYS + sigma / np.sqrt(TRADING_DAYS) * shocks
    step[0] = 0.0
    path = np.cumsum(step)
    keep = published_mask(days, profile["frequency"])
    out = []
    for cls in profile["classes"]:
        drag = np.arange(len(days)) * (cls["drag"] / 100.0 / TRADING_DAYS)
        nav = cls["nav0"] * np.exp(path - drag)
        ex_idx, per_unit = _distributions(days, nav, cls["dividend_yield"])
        for i, amount in zip(ex_idx, per_unit):
            nav[i:] *= 1.0 - amount / nav[i - 1]
        nav = np.round(nav, 4)
        units = cls["units"] * np.exp(np.cumsum(flows))
        sel = np.flatnonzero(keep)
        former, until = cls.get("former") or (None, None)
        renamed = days[sel] <= np.datetime64(until, "D") if former else np.zeros(len(sel), dtype=bool)
        names = np.where(renamed, former or "", cls["name"])  # fixed-width text: cheap at market scale
        offer = np.round(nav * (1 + cls["front"]), 4)
        bid = np.round(nav * (1 - cls["back"]), 4)
        out.append({
            "class": cls["name"], "name": names, "former": former, "renamed": renamed, "nav_date": days[sel], "nav": nav[sel], "offer": offer[sel],
            "bid": bid[sel], "sell_swap": bid[sel] if cls["swap"] else np.zeros(len(sel)),
            "buy_swap": offer[sel] if cls["swap"] else np.zeros(len(sel)),
            "net_asset": np.round(units[sel] * nav[sel], 2),
            "ex_date": days[ex_idx], "pay_date": days[ex_idx] + np.timedelta64(10, "D"), "per_unit": per_unit,
        })
    return out


def _distributions(days: np.ndarray, nav: np.ndarray, yield_: float) -> tuple[np.ndarray, np.ndarray]:
    """Book-close days (indices into `days`) and per-unit amounts: half the yearly yield each time."""
    if not yield_ or len(days) < 130:
        return np.array([], dtype=int), np.array([], dtype=float)
    months = days.astype("datetime64[M]")
    idx = []
    for month in np.unique(months):
        m = int(str(month)[5:7])
        if m not in DIVIDEND_MONTHS:
            continue
        target = np.datetime64(f"{str(month)}-25", "D")
        i = int(np.searchsorted(days, target, side="right")) - 1
        if i >= 120:  # six months of history before the first distribution
            idx.append(i)
    idx_arr = np.array(sorted(set(idx)), dtype=int)
    per_unit = np.round(nav[idx_arr - 1] * yield_ / 2, 2) if len(idx_arr) else np.array([], dtype=float)
    return idx_arr, per_unit


# ---- the published figures -------------------------------------------------------------------------


def nav_on_or_before(dates: np.ndarray, navs: np.ndarray, day: date) -> tuple[date, float] | None:
    i = int(np.searchsorted(dates, np.datetime64(day, "D"), side="right")) - 1
    return None if i < 0 else (dates[i].astype(object), float(navs[i]))


def period_return(dates: np.ndarray, navs: np.ndarray, as_of: date, period: str) -> float | None:
    """A factsheet period's fund return in percent, by the issue's conventions, from one class's NAVs
    (its rows under any name): the end is the last NAV on or before `as_of`; the start is the last NAV
    on or before the same day N months before that end (YTD: the last NAV of the previous year; since
    inception: the first NAV). Up to a year cumulative, beyond annualised (1 + r)^(365 / days) - 1 with
    days between the two NAV dates. None when the history does not reach the start."""
    end = nav_on_or_before(dates, navs, as_of)
    if end is None:
        return None
    end_day, end_nav = end
    months = {"3 months": 3, "6 months": 6, "1 year": 12, "3 years": 36, "5 years": 60, "10 years": 120}
    if period == "year to date":
        start = nav_on_or_before(dates, navs, date(end_day.year - 1, 12, 31))
    elif period == "inception date":
        start = (dates[0].astype(object), float(navs[0])) if len(dates) else None
    else:
        start = nav_on_or_before(dates, navs, minus_months(end_day, months[period]))
    if start is None or start[0] >= end_day:
        return None
    ratio = end_nav / start[1]
    days = (end_day - start[0]).days
    if period in ("3 years", "5 years", "10 years") or (period == "inception date" and days > 365):
        return (ratio ** (365.0 / days) - 1.0) * 100.0
    return (ratio - 1.0) * 100.0


def published_returns(profile: dict, today: date, as_of: date, periods: tuple[str, ...]) -> dict[str, dict[str, float | None]]:
    """class name -> period -> fund return (percent) as the factsheet publishes it on `as_of`. Since
    inception only for a fund whose history starts at its inception (else None: not computable here)."""
    result = {}
    for series in class_series(profile, today):
        figures = {}
        for period in periods:
            if period == "inception date" and not profile.get("inception"):
                figures[period] = None
                continue
            figures[period] = period_return(series["nav_date"], series["nav"], as_of, period)
        result[series["class"]] = figures
    return result


# ---- the whole market ------------------------------------------------------------------------------


def market_nav_frame(profiles: dict[str, dict], today: date) -> pd.DataFrame:
    """Every class's NAV rows of every profile in one frame: proj_id and fund_class_name (categorical),
    nav_date, nav, offer, bid, net_asset (the market-scale demo: ~4,700 classes x 5 years, ~6 M rows)."""
    funds, labels = list(profiles), {}
    parts: dict[str, list] = {k: [] for k in ("proj_id", "fund_class_name", "nav_date", "nav", "offer", "bid", "net_asset")}
    for f, pid in enumerate(funds):
        for s in class_series(profiles[pid], today):
            n = len(s["nav"])
            codes = np.full(n, labels.setdefault(s["class"], len(labels)), dtype=np.int32)
            if s["former"]:
                codes[s["renamed"]] = labels.setdefault(s["former"], len(labels))
            parts["proj_id"].append(np.full(n, f, dtype=np.int32))
            parts["fund_class_name"].append(codes)
            for key in ("nav_date", "nav", "offer", "bid", "net_asset"):
                parts[key].append(s[key])
    if not parts["nav"]:
        return pd.DataFrame({k: [] for k in parts})
    columns = {k: np.concatenate(v) for k, v in parts.items()}
    return pd.DataFrame({
        "proj_id": pd.Categorical.from_codes(columns["proj_id"], categories=funds),
        "fund_class_name": pd.Categorical.from_codes(columns["fund_class_name"], categories=list(labels)),
        "nav_date": columns["nav_date"].astype("datetime64[ns]"),
        **{k: columns[k] for k in ("nav", "offer", "bid", "net_asset")},
    })

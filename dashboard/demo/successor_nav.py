"""The daily-info answers over the demo's NAV profiles: daily-info/nav, daily-info/dividend-history and
the legacy one-day-per-call `/FundDailyInfo/{proj_id}/dailynav/{nav_date}`.

Rows are in the captured formats (shared/real-captures/successor-v2/daily-nav-*.json,
dividend-history.json): the captured key order, JSON numbers, `main` for a fund without classes on
the NAV rows and `-` on the dividend rows, dividend dates as `2024-01-25 00:00:00.0000000`.

The class filter matches part of a name, as the factsheet filters do here (one class name can be a
substring of another: the renamed class's old name `X-ACC` holds its new name `X-A`). `NAV_QUIRKS`
names the service's other misbehaviours a test can switch on (`SimulatorApp(nav_quirks=...)`).
"""

from __future__ import annotations

import functools
import json
from datetime import date, timedelta

import numpy as np

from dashboard.demo.nav import NON_CLASS_DIVIDEND, NON_CLASS_NAV, class_series

NAV_QUIRKS = (
    "class_filter_ignored",  # fund_class_name is ignored: every class of the fund comes back
    "date_filter_ignored",  # start_nav_date/end_nav_date are ignored: every day comes back
    "day_twice",  # one day of each class comes twice, the second with another NAV and a later last_upd_date
    "bad_nav",  # one row of each class has a NAV of 0.0, another a negative NAV
)
_DIVIDEND_TIME = " 00:00:00.0000000"


def check_quirks(quirks) -> frozenset[str]:
    chosen = frozenset(quirks or ())
    unknown = sorted(chosen - set(NAV_QUIRKS))
    if unknown:
        raise ValueError(f"unknown nav_quirks {unknown}; known: {', '.join(NAV_QUIRKS)}")
    return chosen


def _stamp(profile: dict, day: date, later: int = 0) -> str:
    """last_upd_date: the business day after the NAV date, at the fund's own time (0-3 fraction digits)."""
    return _stamp_of(tuple(profile["stamp"]), day, later)


@functools.lru_cache(maxsize=65536)
def _stamp_of(stamp: tuple, day: date, later: int) -> str:
    """`_stamp` of a fund's time (kept: a whole-market NAV answer stamps every class's row of each day alike)."""
    upd = day + timedelta(days=1 + later)
    while upd.weekday() >= 5:
        upd += timedelta(days=1)
    hh, mm, ss, frac = stamp
    fraction = str(frac).rstrip("0")
    return f"{upd.isoformat()}T{hh:02d}:{mm:02d}:{ss:02d}" + (f".{fraction}" if fraction else "")


def series_of(profile: dict, today: date) -> list[dict]:
    """`class_series`, kept for the profiles served most recently (each window of a fetch reads the
    same fund's series); keyed by the profile's content, so a test that changes a profile gets new ones."""
    return _series_cached(json.dumps(profile, sort_keys=True), today)


@functools.lru_cache(maxsize=256)
def _series_cached(profile_text: str, today: date) -> list[dict]:
    return class_series(json.loads(profile_text), today)


def _fund_ids(ds, proj_id: str | None) -> list[str]:
    profiles = ds.nav_profiles
    if proj_id is not None:
        return [proj_id] if proj_id in profiles else []
    ordered = [f.get("proj_id") for f in ds.funds]
    return [p for p in ordered if p in profiles] + [p for p in profiles if p not in set(ordered)]


def _today(ds) -> date:
    return ds.today or date.today()


def nav_rows(ds, filters: dict[str, str], quirks: frozenset[str] = frozenset()) -> list[dict]:
    """daily-info/nav rows for the filters (proj_id, start_nav_date, end_nav_date, fund_class_name)."""
    start = filters.get("start_nav_date") if "date_filter_ignored" not in quirks else None
    end = filters.get("end_nav_date") if "date_filter_ignored" not in quirks else None
    needle = filters.get("fund_class_name") if "class_filter_ignored" not in quirks else None
    rows: list[dict] = []
    for pid in _fund_ids(ds, filters.get("proj_id")):
        profile = ds.nav_profiles[pid]
        for series in series_of(profile, _today(ds)):
            days = series["nav_date"]
            keep = np.ones(len(days), dtype=bool)
            if start:
                keep &= days >= np.datetime64(start, "D")
            if end:
                keep &= days <= np.datetime64(end, "D")
            if needle:
                keep &= np.char.find(np.char.lower(series["name"].astype(str)), needle.lower()) >= 0
            idx = np.flatnonzero(keep)
            class_rows = [_nav_row(profile, series, i) for i in idx]
            rows.extend(_with_quirks(profile, class_rows, quirks))
    return rows


def _nav_row(profile: dict, s: dict, i: int) -> dict:
    day = s["nav_date"][i].astype(object)
    return {
        "proj_id": profile["proj_id"], "unique_id": profile["unique_id"], "fund_class_name": str(s["name"][i]),
        "nav_date": day.isoformat(), "net_asset": float(s["net_asset"][i]), "last_val": float(s["nav"][i]),
        "sell_price": float(s["offer"][i]), "buy_price": float(s["bid"][i]),
        "sell_swap_price": float(s["sell_swap"][i]), "buy_swap_price": float(s["buy_swap"][i]),
        "last_upd_date": _stamp(profile, day),
    }


def _with_quirks(profile: dict, rows: list[dict], quirks: frozenset[str]) -> list[dict]:
    if not rows:
        return rows
    if "bad_nav" in quirks:
        rows[0] = {**rows[0], "last_val": 0.0}
        if len(rows) > 2:
            rows[1] = {**rows[1], "last_val": -abs(rows[1]["last_val"])}
    if "day_twice" in quirks:
        again = dict(rows[len(rows) // 2])
        again["last_val"] = round(again["last_val"] * 1.01, 4)
        again["last_upd_date"] = _stamp(profile, date.fromisoformat(again["nav_date"]), later=3)
        rows = rows + [again]
    return rows


def dividend_rows(ds, filters: dict[str, str]) -> list[dict]:
    """daily-info/dividend-history rows (proj_id; start/end_dividend_date on the book-close date; class_abbr_name)."""
    start, end = filters.get("start_dividend_date"), filters.get("end_dividend_date")
    needle = filters.get("class_abbr_name")
    rows = []
    for pid in _fund_ids(ds, filters.get("proj_id")):
        profile = ds.nav_profiles[pid]
        for s in series_of(profile, _today(ds)):
            name = NON_CLASS_DIVIDEND if s["class"] == NON_CLASS_NAV else s["class"]
            if needle and needle.casefold() not in name.casefold():
                continue
            for ex, pay, amount in zip(s["ex_date"], s["pay_date"], s["per_unit"]):
                ex_day, pay_day = ex.astype(object), pay.astype(object)
                if (start and ex_day.isoformat() < start) or (end and ex_day.isoformat() > end):
                    continue
                rows.append({
                    "proj_id": pid, "unique_id": profile["unique_id"], "class_abbr_name": name,
                    "book_close_date": ex_day.isoformat() + _DIVIDEND_TIME,
                    "dividend_date": pay_day.isoformat() + _DIVIDEND_TIME,
                    "dividend_value": float(amount), "last_upd_date": _stamp(profile, pay_day),
                })
    return rows


def legacy_daily_nav(ds, proj_id: str, nav_date: str) -> list[dict] | None:
    """The older service's answer for one fund and day: one record per class (`-` for a fund without
    classes), its values as text like every legacy record; None (204) when the day has no NAV."""
    profile = ds.nav_profiles.get(proj_id)
    if profile is None:
        return None
    day = np.datetime64(nav_date, "D")
    out = []
    for s in series_of(profile, _today(ds)):
        i = int(np.searchsorted(s["nav_date"], day))
        if i >= len(s["nav_date"]) or s["nav_date"][i] != day:
            continue
        previous = s["nav"][i - 1] if i > 0 else s["nav"][i]
        out.append({
            "last_upd_date": _stamp(profile, day.astype(object)), "nav_date": nav_date,
            "class_abbr_name": "-" if s["class"] == NON_CLASS_NAV else str(s["name"][i]),
            "net_asset": f"{s['net_asset'][i]:.2f}", "last_val": f"{s['nav'][i]:.4f}", "previous_val": f"{previous:.4f}",
            "sell_price": f"{s['offer'][i]:.4f}", "buy_price": f"{s['bid'][i]:.4f}",
            "sell_swap_price": f"{s['sell_swap'][i]:.4f}", "buy_swap_price": f"{s['buy_swap'][i]:.4f}",
            "remark_th": "", "remark_en": "",
        })
    return out or None

"""A fund's NAV history and distributions, per unit class, from the service's daily-info answers.

The current service (`/v2/fund/daily-info/nav`, `daily-info/dividend-history`) is asked one calendar
quarter per call, all quarters at once, through the client (its cache, rate limit, deadline and paging),
so a class's five-year history takes about one round trip (each quarter fits one page), and a warm one none.
The older service gives one fund and one day per call: only the last `LEGACY_DAYS` days are asked.

The rows are not taken on trust (successor-api.md 4.12, issue 27): a filter the service ignored
(rows of other funds, classes or days; one class name may hold another, `X-A` in `X-ACC`) is applied
again exactly; a day sent twice is kept once (the later update when the values differ); a NAV of 0
or below is dropped; swap prices of 0 mean "not offered". Each of these leaves a note for people.
The shapes are fixed in notes/nav-interface.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from dashboard.api.deadline import within_run
from dashboard.api.endpoints import validate_proj_id
from dashboard.config import LAYOUT_LEGACY
from dashboard.errors import BadInputError, NotFoundError, quoted
from dashboard.records.answers import normalise
from dashboard.records.successor import class_name as service_class_name

LEGACY_DAYS = 30  # the older service: one call per day, so the last 30 days at most
NAV_COLUMNS = ("nav_date", "nav", "offer", "bid", "net_asset", "switch_in", "switch_out")
DIVIDEND_COLUMNS = ("ex_date", "pay_date", "per_unit")
FREQUENCIES = ("daily", "weekly", "monthly")
_VALUES = ("last_val", "sell_price", "buy_price", "net_asset", "sell_swap_price", "buy_swap_price")


@dataclass(frozen=True)
class ClassHistory:
    proj_id: str
    class_name: str  # the service's class name ("main" / "-" normalised to "" = the fund's only class)
    nav: pd.DataFrame  # nav_date, nav, offer, bid, net_asset (+ switch_in, switch_out), one row per date, ascending
    dividends: pd.DataFrame  # ex_date, pay_date, per_unit, ascending by ex_date
    frequency: str  # "daily" | "weekly" | "monthly", inferred from the dates


@dataclass(frozen=True)
class NavHistory:
    proj_id: str
    classes: dict[str, ClassHistory]  # by class name, in the order the service first sent them
    start: date
    end: date  # the window asked for (inclusive)
    notes: tuple[str, ...] = field(default=())


# ---- input ---------------------------------------------------------------------------------------------


def as_day(value: object, what: str) -> date:
    """A date from a date or YYYY-MM-DD text, or a clear refusal."""
    if isinstance(value, date):
        return value if type(value) is date else date(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise BadInputError(f"the {what} date {quoted(str(value))} is not a date; write it as YYYY-MM-DD")


def check_window(start: object, end: object, today: date) -> tuple[date, date]:
    """(start, end) as dates, refused when from is after to or either lies in the future."""
    first, last = as_day(start, "from"), as_day(end, "to")
    if first > last:
        raise BadInputError(f"the from date {first} is after the to date {last}")
    for day, what in ((first, "from"), (last, "to")):
        if day > today:
            raise BadInputError(f"the {what} date {day} is in the future (today is {today}); NAVs exist up to yesterday")
    return first, last


def year_windows(start: date, end: date) -> list[tuple[date, date]]:
    """The window cut at calendar years (how fund-markdown slices long NAV pulls, successor-api.md 5)."""
    return [(max(start, date(y, 1, 1)), min(end, date(y, 12, 31))) for y in range(start.year, end.year + 1)]


def quarter_windows(start: date, end: date) -> list[tuple[date, date]]:
    """The window cut at calendar quarters: what one call asks. A class's quarter (~63 NAVs) fits one
    page of 100, so every window is one round trip and all go out at once: five years in about one
    round trip and 21 requests, where calendar years (~250 NAVs, three pages each, one after another)
    take three."""
    out = []
    for a, b in year_windows(start, end):
        for q in range((a.month - 1) // 3, (b.month - 1) // 3 + 1):
            q_start, q_end = date(a.year, 3 * q + 1, 1), _quarter_end(a.year, q)
            out.append((max(a, q_start), min(b, q_end)))
    return out


def _quarter_end(year: int, quarter: int) -> date:
    return date(year, 3 * quarter + 3, 31 if quarter in (0, 3) else 30)


def clean_class(value: object) -> str:
    """A class name as the product keys it: the non-class markers (`main`, `-`, blank) become ""."""
    return service_class_name(value) or ""


# ---- fetching --------------------------------------------------------------------------------------------


def fetch_nav_history(client, proj_id: str, *, start: date, end: date, class_name: str | None = None) -> NavHistory:
    """One fund's NAV history (a `SecClient`); see `afetch_nav_history`."""
    return client.run(afetch_nav_history(client.async_client, proj_id, start=start, end=end, class_name=class_name))


async def afetch_nav_history(client, proj_id: str, *, start: date, end: date,
                             class_name: str | None = None) -> NavHistory:
    """One fund's NAV history from `start` to `end` (inclusive), every class or only `class_name`.

    Bad input (a malformed id or date, from after to, a future date, a class the fund does not have)
    raises BadInputError; a fund with no NAV in the window raises NotFoundError. Nothing is changed.
    """
    proj_id = validate_proj_id(proj_id)
    first, last = check_window(start, end, client.today)
    wanted = None if class_name is None else clean_class(class_name)
    notes: list[str] = []
    layout = await client.layout()
    if layout == LAYOUT_LEGACY:
        nav_records, dividend_records = await _legacy_rows(client, proj_id, first, last, notes), []
    else:
        nav_records, dividend_records = await _successor_rows(client, proj_id, first, last, wanted)
    rows = _kept_rows(nav_records, proj_id, first, last, wanted, notes)
    if not rows:
        raise await _nothing_found(client, proj_id, first, last, wanted, layout)
    by_class = _by_class(rows)
    dividends = _dividends(dividend_records, proj_id, first, last, notes)
    classes = {}
    for name, class_rows in by_class.items():
        nav = _series(class_rows, name, notes)
        if nav.empty:
            continue
        classes[name] = ClassHistory(proj_id, name, nav, dividends.get(name, _empty_dividends()),
                                     infer_frequency(nav["nav_date"]))
    for name in sorted(set(dividends) - set(classes)):
        if wanted is None or name == wanted:
            notes.append(f"distributions of class {name or 'main'} came without any NAV in the window; not shown")
    notes.extend(_renamed_notes(classes))
    if not classes:
        raise NotFoundError(f"fund {proj_id} has no usable NAV from {first} to {last} (every NAV sent was 0 or below)",
                            endpoint="S8")
    return NavHistory(proj_id, classes, first, last, tuple(notes))


async def _successor_rows(client, proj_id: str, first: date, last: date, wanted: str | None) -> tuple[list, list]:
    """NAV records of every quarter of the window and the fund's distributions, all asked at once."""
    filters = {"proj_id": proj_id}
    if wanted:
        filters["fund_class_name"] = wanted
    calls = [client.request("S8", **filters, start_nav_date=a.isoformat(), end_nav_date=b.isoformat())
             for a, b in quarter_windows(first, last)]
    calls.append(client.request("S9", proj_id=proj_id))
    with within_run(None):  # asked together: a service down for one is down for all
        results = await asyncio.gather(*calls)
    nav_records = [record for result in results[:-1] for record in (normalise(result) or [])]
    return nav_records, list(normalise(results[-1]) or [])


async def _legacy_rows(client, proj_id: str, first: date, last: date, notes: list[str]) -> list:
    """The older service: one call per business day of the last LEGACY_DAYS days of the window."""
    floor = max(first, client.today - timedelta(days=LEGACY_DAYS))
    days = [d.astype(object) for d in np.arange(np.datetime64(floor, "D"), np.datetime64(last, "D") + 1)
            if np.is_busday(d)] if floor <= last else []
    if floor > first:
        notes.append(f"the older service gives one fund's NAV one day per call, so only the last {LEGACY_DAYS} days "
                     f"are shown (from {floor}); the current service has the whole history")
    notes.append("the older service's distributions are not read here")
    with within_run(None):
        results = await asyncio.gather(*(client.request("D1", proj_id=proj_id, nav_date=d.isoformat()) for d in days))
    return [record for result in results for record in (normalise(result) or [])]


async def _nothing_found(client, proj_id: str, first: date, last: date, wanted: str | None, layout: str) -> Exception:
    """Why no row came: a class the fund does not have (asked of the fund's class list), or no NAV."""
    if wanted is not None:
        known = [c for c in (clean_class(r.get("class_abbr_name")) for r in (await client.fetch("E4", proj_id=proj_id) or [])) if c]
        if wanted not in (known or [""]):
            if not wanted:
                return BadInputError(f"fund {proj_id} has unit classes ({', '.join(known)}): name one")
            have = f"its classes are {', '.join(known)}" if known else "it has no unit classes (leave the class out)"
            return BadInputError(f"fund {proj_id} has no class {quoted(wanted)}; {have}")
        if wanted:
            return NotFoundError(f"class {wanted} of fund {proj_id} has no NAV from {first} to {last}", endpoint="S8")
    where = "in the last weeks the older service offers" if layout == LAYOUT_LEGACY else f"from {first} to {last}"
    return NotFoundError(f"fund {proj_id} has no NAV {where} (a new fund may not have published one yet)",
                         endpoint="S8")


# ---- cleaning ------------------------------------------------------------------------------------------------


def _kept_rows(records: Iterable[dict], proj_id: str, first: date, last: date, wanted: str | None,
               notes: list[str]) -> list[dict]:
    """The rows of this fund, class and window only; what else came is counted in a note."""
    lo, hi = first.isoformat(), last.isoformat()
    kept, other_fund, other_class, other_day, undated = [], 0, set(), 0, 0
    for record in records:
        day = record.get("nav_date")
        if record.get("proj_id") not in (None, proj_id):
            other_fund += 1
        elif not day:
            undated += 1
        elif wanted is not None and clean_class(record.get("fund_class_name")) != wanted:
            other_class.add(clean_class(record.get("fund_class_name")) or "main")
        elif not lo <= day <= hi:
            other_day += 1
        else:
            kept.append(record)
    if other_fund:
        notes.append(f"{other_fund} rows of other funds came back (the fund filter was ignored) and were left out")
    if other_class:
        notes.append(f"rows of other classes came back ({', '.join(sorted(other_class))}) and were left out: "
                     f"only class {wanted or 'main'} was asked for")
    if other_day:
        notes.append(f"{other_day} rows dated outside {first}..{last} came back (the date filter was ignored) "
                     "and were left out")
    if undated:
        notes.append(f"{undated} rows without a NAV date were left out")
    return kept


def _by_class(rows: list[dict]) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = {}
    for record in rows:
        grouped.setdefault(clean_class(record.get("fund_class_name")), []).append(record)
    return grouped


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float("nan")


def _series(rows: list[dict], name: str, notes: list[str]) -> pd.DataFrame:
    """One class's NAV frame: one row per day (a day sent twice kept once), NAV <= 0 dropped, 0 prices NaN."""
    label = f"class {name}" if name else "the fund"
    by_day: dict[str, dict] = {}
    for record in sorted(rows, key=lambda r: (r["nav_date"], str(r.get("last_upd_date") or ""))):
        day = record["nav_date"]
        before = by_day.get(day)
        if before is not None and [before.get(k) for k in _VALUES] != [record.get(k) for k in _VALUES]:
            notes.append(f"{label}: {day} came twice with different values (NAV {before.get('last_val')} and "
                         f"{record.get('last_val')}); the later update's {record.get('last_val')} is kept")
        by_day[day] = record  # sorted by update time: the later one wins
    bad = [day for day, r in by_day.items() if not _number(r.get("last_val")) > 0]
    if bad:
        notes.append(f"{label}: {len(bad)} NAVs of 0, below 0 or missing were left out ({', '.join(sorted(bad)[:3])}"
                     f"{', ...' if len(bad) > 3 else ''})")
    good = [r for day, r in sorted(by_day.items()) if day not in set(bad)]
    frame = pd.DataFrame({
        "nav_date": pd.to_datetime([r["nav_date"] for r in good]).astype("datetime64[ns]"),
        "nav": [_number(r.get("last_val")) for r in good],
        "offer": [_number(r.get("sell_price")) for r in good],
        "bid": [_number(r.get("buy_price")) for r in good],
        "net_asset": [_number(r.get("net_asset")) for r in good],
        "switch_in": [_number(r.get("sell_swap_price")) for r in good],
        "switch_out": [_number(r.get("buy_swap_price")) for r in good],
    }, columns=list(NAV_COLUMNS))
    prices = ["offer", "bid", "switch_in", "switch_out", "net_asset"]
    frame[prices] = frame[prices].where(frame[prices] > 0)  # 0 means not offered (or not published)
    return frame.astype({c: "float64" for c in NAV_COLUMNS[1:]})


def _empty_dividends() -> pd.DataFrame:
    return pd.DataFrame({"ex_date": pd.Series([], dtype="datetime64[ns]"), "pay_date": pd.Series([], dtype="datetime64[ns]"),
                         "per_unit": pd.Series([], dtype="float64")})


def _dividends(records: Iterable[dict], proj_id: str, first: date, last: date, notes: list[str]) -> dict[str, pd.DataFrame]:
    """Distributions by class, with an ex (book-close) date in the window; never summed across classes."""
    lo, hi = first.isoformat(), last.isoformat()
    by_class: dict[str, dict[tuple, dict]] = {}
    for record in records:
        ex, amount = record.get("book_close_date"), record.get("dividend_value")
        if record.get("proj_id") not in (None, proj_id) or not ex or not lo <= ex <= hi:
            continue
        if not (isinstance(amount, (int, float)) and amount > 0):
            notes.append(f"a distribution on {ex} without a positive amount per unit was left out")
            continue
        events = by_class.setdefault(clean_class(record.get("class_abbr_name")), {})
        events[(ex, record.get("dividend_date"), float(amount))] = record
    out = {}
    for name, events in by_class.items():
        ordered = sorted(events)
        out[name] = pd.DataFrame({
            "ex_date": pd.to_datetime([e[0] for e in ordered]).astype("datetime64[ns]"),
            "pay_date": pd.to_datetime([e[1] for e in ordered]).astype("datetime64[ns]"),
            "per_unit": [e[2] for e in ordered],
        }, columns=list(DIVIDEND_COLUMNS))
    return out


def infer_frequency(dates: Iterable) -> str:
    """"daily", "weekly" or "monthly" from the typical step between NAV dates (gaps of outages aside)."""
    days = pd.to_datetime(pd.Series(list(dates))).sort_values()
    steps = days.diff().dt.days.dropna()
    if steps.empty:
        return "daily"
    typical = float(steps.median())
    return "daily" if typical <= 4 else "weekly" if typical <= 10 else "monthly"


def _renamed_notes(classes: dict[str, ClassHistory]) -> list[str]:
    """A class whose rows stop the NAV day before another class's begin: probably one class, renamed."""
    notes = []
    spans = {n: (c.nav["nav_date"].iloc[0], c.nav["nav_date"].iloc[-1]) for n, c in classes.items()}
    for old, (_, old_end) in spans.items():
        for new, (new_start, _) in spans.items():
            if old != new and timedelta(0) < new_start - old_end <= timedelta(days=7):
                notes.append(f"class {old or 'main'}'s NAVs stop on {old_end.date()} and class {new or 'main'}'s start "
                             f"on {new_start.date()}: probably the same class renamed; shown apart")
    return notes


__all__ = ["ClassHistory", "NavHistory", "afetch_nav_history", "fetch_nav_history", "infer_frequency",
           "quarter_windows", "year_windows"]

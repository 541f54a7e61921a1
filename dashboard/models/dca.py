"""Regular investing (a monthly plan, "DCA") simulated on a unit class's real NAVs, beside a lump sum (no Panel).

The conventions (docs/dca.md says them for people):
- A purchase is planned on `day` of each month from `start` to `end` (day 31 is a short month's last day).
  It is made at the first NAV on or after that day (a weekend or holiday buys at the next NAV), and only
  when that NAV is dated on or before `end`.
- The front-end fee is taken on top of the NAV, as a class's offer price is quoted: units bought =
  amount / (NAV x (1 + fee %)). The fee paid is the amount less what the units were worth at the NAV.
- Distributions: the units held at the close of the book-close (ex) date receive `per_unit` each, on the
  payment date (the book-close date when none is given); only those paid by `end` count. "paid": the
  cash goes to the investor (a money-in flow of the money-weighted return). "reinvested": it buys units
  at the first NAV on or after the payment day, with no front-end fee; cash not reinvested by `end`
  stays in the value. A class that distributes pays: that is the default ("as the class does").
- Value on a day = units held x that day's NAV, plus the distributions paid so far (shown apart).
  The end is the last NAV on or before `end`.
- The money-weighted return (XIRR) solves sum(flow / (1 + r) ** (days / 365)) = 0 over the purchases
  (money out, on their NAV dates), the distributions paid (money in) and the end value (money in, at the
  end), by bisection: the net present value falls as r rises when the money goes in before it comes out.
  It is shown a year from a span of a year on (first purchase to end); under a year, taken over the span only,
  (1 + r) ** (days / 365) - 1: the return for the period, as performance standards (GIPS) show short periods.
- The lump sum puts the plan's whole amount in at its first purchase (same NAV, fee, distributions).
Everything is an estimate from past NAVs, not investment advice.
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np
import pandas as pd
import param

from dashboard.errors import BadInputError
from dashboard.records.labels import fee_type_key

PAID, REINVESTED = "paid", "reinvested"
POLICIES = (PAID, REINVESTED)
FEE_BOUNDS = (0.0, 10.0)  # front-end fees are a few percent; more than 10 % is a typing slip
ESTIMATE_NOTE = ("An estimate from past NAVs, not investment advice: past returns do not promise future ones, "
                 "and taxes and other fees are left out.")
XIRR_BOUNDS = (-0.999999, 1e6)  # percent a year from -99.9999 % (almost everything lost) upward


# ---- the money-weighted return ---------------------------------------------------------------------------


def net_present_value(rate: float, flows: Sequence[tuple[date, float]]) -> float:
    """The flows discounted to the first one's day at `rate` a year (Actual/365)."""
    years, amounts = _flow_arrays(flows)
    return _npv(rate, years, amounts)


def _flow_arrays(flows: Sequence[tuple[date, float]]) -> tuple[np.ndarray, np.ndarray]:
    first = min(day for day, _ in flows)
    return (np.array([(day - first).days / 365.0 for day, _ in flows]),
            np.array([amount for _, amount in flows], dtype="float64"))


def _npv(rate: float, years: np.ndarray, amounts: np.ndarray) -> float:
    return float(np.sum(amounts / (1.0 + rate) ** years))


def xirr(flows: Sequence[tuple[date, float]], *, tolerance: float = 1e-12) -> float | None:
    """The rate a year (0.05 = 5 %) at which the flows' net present value is 0 (money out negative); None
    when there is none to find (no money both out and in, every flow on one day, or no sign change between
    -99.9999 % and 10^8 % a year). Bisection: about 60 halvings of the bracket, each a vector sum."""
    flows = [(day, float(amount)) for day, amount in flows if amount]
    if not any(a < 0 for _, a in flows) or not any(a > 0 for _, a in flows):
        return None
    if len({day for day, _ in flows}) < 2:
        return None
    years, amounts = _flow_arrays(flows)
    lo, hi = XIRR_BOUNDS
    f_lo, f_hi = _npv(lo, years, amounts), _npv(hi, years, amounts)
    if not (math.isfinite(f_lo) and math.isfinite(f_hi)) or (f_lo > 0) == (f_hi > 0):
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        f_mid = _npv(mid, years, amounts)
        if f_mid == 0 or hi - lo < tolerance:
            return mid
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2


# ---- the plan and its outcome ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DcaPlan:
    """What is simulated: `monthly` baht on `day` of each month from `start` to `end` (None: the last NAV)."""

    monthly: float
    start: date
    end: date | None = None
    day: int = 1
    front_end_pct: float = 0.0
    distributions: str | None = None  # PAID or REINVESTED; None: as the class does (a distributing class pays)


@dataclass(frozen=True)
class Outcome:
    """One way of putting the money in (the plan, or the lump sum) and where it stands at the end."""

    purchases: pd.DataFrame  # planned, nav_date, nav, amount, fee, units, kind ("plan" | "reinvested")
    distributions: pd.DataFrame  # ex_date, pay_date, per_unit, units_held, cash, used ("paid" | "reinvested" | "kept")
    values: pd.DataFrame  # nav_date, nav, invested, units, value, paid_out, total
    end_date: date
    end_nav: float
    invested: float  # the money put in (fees included)
    fees: float
    units: float
    end_value: float  # units x end NAV, plus cash kept (distributions not reinvested by the end)
    paid_out: float  # distributions paid to the investor
    xirr: float | None  # a year, 0.05 = 5 %

    @property
    def gain(self) -> float:
        return self.end_value + self.paid_out - self.invested

    @property
    def gain_pct(self) -> float | None:
        return 100.0 * self.gain / self.invested if self.invested else None

    @property
    def span_days(self) -> int:
        """Days from the first purchase to the end."""
        return (self.end_date - _day(self.purchases["nav_date"].iloc[0])).days

    @property
    def annualised(self) -> bool:
        """Whether the money-weighted return is shown a year: only from a year on (a short span's rate a year
        multiplies a few weeks' move into a figure nobody earned)."""
        first = _day(self.purchases["nav_date"].iloc[0])
        return self.end_date >= _years_later(first, 1)

    @property
    def money_weighted_pct(self) -> float | None:
        """The money-weighted return as shown, percent: the XIRR a year from a year on; under a year, the same rate
        taken over the span only ((1 + r) ** (days / 365) - 1), the return for the period."""
        if self.xirr is None:
            return None
        if self.annualised:
            return 100.0 * self.xirr
        return 100.0 * ((1.0 + self.xirr) ** (self.span_days / 365.0) - 1.0)

    def flows(self) -> list[tuple[date, float]]:
        """The money-weighted return's flows: purchases out, distributions paid in, the end value in."""
        return _flows(self.purchases, self.distributions, self.end_date, self.end_value)


@dataclass(frozen=True)
class DcaResult:
    """A plan on one class: the plan's outcome, the lump sum's, and what to say about them."""

    label: str  # the class as people name it
    plan: DcaPlan
    policy: str  # the distributions as simulated: PAID or REINVESTED
    regular: Outcome
    lump_sum: Outcome
    notes: tuple[str, ...] = field(default=())

    def summary(self) -> dict[str, Any]:
        """The figures every output shows (the command line's JSON, the view's and the report's tables)."""
        return summary_row(self)


def summary_row(result: DcaResult) -> dict[str, Any]:
    r, s = result.regular, result.lump_sum
    return {
        "class": result.label, "first_purchase": _day(r.purchases["nav_date"].iloc[0]), "end_date": r.end_date,
        "purchases": int((r.purchases["kind"] == "plan").sum()), "invested": r.invested, "fees": r.fees,
        "units": r.units, "end_nav": r.end_nav, "end_value": r.end_value, "paid_out": r.paid_out,
        "end_total": r.end_value + r.paid_out, "gain": r.gain, "gain_pct": r.gain_pct,
        "money_weighted_pct": r.money_weighted_pct, "money_weighted_a_year": r.annualised,
        "lump_end_total": s.end_value + s.paid_out, "lump_gain_pct": s.gain_pct,
        "lump_money_weighted_pct": s.money_weighted_pct,
        "distributions": result.policy,
    }


def _years_later(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return date(day.year + years, 3, 1)


def _pct(rate: float | None) -> float | None:
    return None if rate is None else 100.0 * rate


def _day(value: Any) -> date:
    if isinstance(value, np.datetime64):
        return value.astype("datetime64[D]").item()
    return pd.Timestamp(value).date()


# ---- checking the input ----------------------------------------------------------------------------------


def check_plan(plan: DcaPlan, nav: pd.DataFrame, label: str) -> None:
    """Refuse, in one sentence, a plan this class's NAVs cannot carry out; nothing is computed then."""
    if not isinstance(plan.monthly, (int, float)) or not math.isfinite(plan.monthly) or plan.monthly <= 0:
        raise BadInputError(f"the monthly amount {plan.monthly} is not more than 0 baht")
    if not isinstance(plan.day, int) or not 1 <= plan.day <= 31:
        raise BadInputError(f"the day of the month {plan.day} is not 1 to 31")
    lo, hi = FEE_BOUNDS
    if not math.isfinite(plan.front_end_pct) or not lo <= plan.front_end_pct <= hi:
        raise BadInputError(f"the front-end fee {plan.front_end_pct} % is not {lo:g} to {hi:g} %")
    if plan.distributions not in (None, *POLICIES):
        raise BadInputError(f"distributions are {PAID} or {REINVESTED}, not {plan.distributions}")
    if nav is None or nav.empty:
        raise BadInputError(f"{label} has no NAV to simulate on")
    first, last = _day(nav["nav_date"].iloc[0]), _day(nav["nav_date"].iloc[-1])
    if plan.start < first:
        raise BadInputError(f"the from date {plan.start} is before {label}'s first NAV ({first})")
    if plan.start > last:
        raise BadInputError(f"the from date {plan.start} is after {label}'s last NAV ({last})")
    if plan.end is not None and plan.end < plan.start:
        raise BadInputError(f"the to date {plan.end} is before the from date {plan.start}")


def planned_days(start: date, end: date, day: int) -> list[date]:
    """Each month's purchase day from start to end (a short month's last day for day 29-31)."""
    out, year, month = [], start.year, start.month
    while True:
        planned = date(year, month, min(day, calendar.monthrange(year, month)[1]))
        if planned > end:
            return out
        if planned >= start:
            out.append(planned)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


# ---- the simulation --------------------------------------------------------------------------------------


def simulate(nav: pd.DataFrame, distributions: pd.DataFrame | None, plan: DcaPlan, *, label: str = "the class") -> DcaResult:
    """The plan on one class's NAVs (nav_date, nav ascending) and distributions (ex_date, pay_date, per_unit),
    beside the lump sum. Raises BadInputError, with one sentence, for a plan the NAVs cannot carry out."""
    check_plan(plan, nav, label)
    nav = nav[nav["nav"] > 0].sort_values("nav_date")
    days = nav["nav_date"].to_numpy(dtype="datetime64[D]")
    values = nav["nav"].to_numpy(dtype="float64")
    last = _day(days[-1])
    end = min(plan.end, last) if plan.end is not None else last
    end_index = int(np.searchsorted(days, np.datetime64(end), "right")) - 1
    dists = _distribution_frame(distributions)
    policy = plan.distributions or PAID  # a class that distributes pays its distributions in cash
    notes = []
    if plan.end is not None and plan.end > last:
        notes.append(f"the last NAV is {last}: values run to it, not to {plan.end}")
    if not len(dists[0]) and plan.distributions == REINVESTED:
        notes.append(f"{label} paid no distribution in this time: nothing to reinvest")

    planned = planned_days(plan.start, end, plan.day)
    buys = []
    for day in planned:
        i = int(np.searchsorted(days, np.datetime64(day), "left"))
        if i <= end_index:
            buys.append((day, i, float(plan.monthly)))
    if not buys:
        raise BadInputError(f"no purchase falls between {plan.start} and {end}: the plan buys on day {plan.day} "
                            "of each month, at the first NAV on or after it")
    regular = _outcome(days, values, end_index, dists, buys, plan.front_end_pct, policy)
    total = float(plan.monthly) * len(buys)
    lump = _outcome(days, values, end_index, dists, [(buys[0][0], buys[0][1], total)], plan.front_end_pct, policy)
    return DcaResult(label, plan, policy, regular, lump, tuple(notes))


def _distribution_frame(distributions: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ex days, pay days, per unit) in ex-date order: the payment day is the book-close day when none is given."""
    if distributions is None or distributions.empty:
        empty = np.array([], dtype="datetime64[D]")
        return empty, empty, np.array([], dtype="float64")
    frame = distributions[["ex_date", "pay_date", "per_unit"]]
    frame = frame.assign(pay_date=frame["pay_date"].fillna(frame["ex_date"]))
    frame = frame[frame["per_unit"] > 0].drop_duplicates().sort_values("ex_date", kind="stable")
    return (frame["ex_date"].to_numpy(dtype="datetime64[D]"), frame["pay_date"].to_numpy(dtype="datetime64[D]"),
            frame["per_unit"].to_numpy(dtype="float64"))


def _outcome(days: np.ndarray, values: np.ndarray, end_index: int, dists: tuple[np.ndarray, np.ndarray, np.ndarray],
             buys: list[tuple[date, int, float]], fee_pct: float, policy: str) -> Outcome:
    """Purchases (planned day, NAV index, amount), then the distributions in date order (reinvested ones
    buy units that later distributions count), then the value on every NAV day from the first purchase.
    Arrays throughout: the frames are made once, at the end."""
    rate = fee_pct / 100.0
    planned = [day for day, _, _ in buys]
    index = np.array([i for _, i, _ in buys], dtype="int64")
    amount = np.array([a for _, _, a in buys], dtype="float64")
    units = amount / (values[index] * (1.0 + rate))
    plan = np.ones(len(buys), dtype=bool)
    end_day, first_day = days[end_index], days[index[0]]
    paid_rows, kept = [], 0.0
    for ex, pay, per_unit in zip(*dists):
        if ex < first_day or pay > end_day:
            continue
        held = float(units[days[index] <= ex].sum())
        if held <= 0:
            continue
        cash = held * float(per_unit)
        used = policy
        if policy == REINVESTED:
            i = int(np.searchsorted(days, pay, "left"))
            if i <= end_index:
                planned.append(_day(pay))
                index, amount = np.append(index, i), np.append(amount, cash)
                units, plan = np.append(units, cash / values[i]), np.append(plan, False)
            else:
                used, kept = "kept", kept + cash
        paid_rows.append((ex, pay, float(per_unit), held, cash, used))
    order = np.argsort(index, kind="stable")
    index, amount, units, plan = index[order], amount[order], units[order], plan[order]
    bought_on = days[index]
    # amount - units x NAV, written so that no fee is exactly 0
    fee = np.where(plan, amount * rate / (1.0 + rate), 0.0)
    purchases = pd.DataFrame({"planned": [planned[k] for k in order],
                              "nav_date": bought_on.astype("datetime64[ns]"), "nav": values[index], "amount": amount,
                              "fee": fee, "units": units, "kind": np.where(plan, "plan", "reinvested")})
    paid = pd.DataFrame({"ex_date": np.array([r[0] for r in paid_rows], dtype="datetime64[ns]"),
                         "pay_date": np.array([r[1] for r in paid_rows], dtype="datetime64[ns]"),
                         "per_unit": np.array([r[2] for r in paid_rows], dtype="float64"),
                         "units_held": np.array([r[3] for r in paid_rows], dtype="float64"),
                         "cash": np.array([r[4] for r in paid_rows], dtype="float64"),
                         "used": np.array([r[5] for r in paid_rows], dtype=object)})
    out_when = np.array([r[1] for r in paid_rows if r[5] == PAID], dtype="datetime64[D]")
    out_cash = np.array([r[4] for r in paid_rows if r[5] == PAID], dtype="float64")

    # The value on every NAV day from the first purchase to the end (cumulative sums looked up by date).
    span = slice(int(index[0]), end_index + 1)
    on = days[span]
    units_cum = np.cumsum(units)
    invested_cum = np.cumsum(np.where(plan, amount, 0.0))
    at = np.searchsorted(bought_on, on, "right") - 1  # every day of the span is on or after the first purchase
    held_units = units_cum[at]
    paid_out = np.concatenate([[0.0], np.cumsum(out_cash)])[np.searchsorted(out_when, on, "right")]
    value = held_units * values[span]
    frame = pd.DataFrame({"nav_date": on.astype("datetime64[ns]"), "nav": values[span], "invested": invested_cum[at],
                          "units": held_units, "value": value, "paid_out": paid_out, "total": value + paid_out})

    end_nav = float(values[end_index])
    total_units = float(units.sum())
    end_value = total_units * end_nav + kept
    flows = ([(_day(d), -float(a)) for d, a in zip(bought_on[plan], amount[plan])]
             + [(_day(d), float(c)) for d, c in zip(out_when, out_cash)] + [(_day(end_day), end_value)])
    return Outcome(purchases, paid, frame, _day(end_day), end_nav, float(amount[plan].sum()), float(fee.sum()),
                   total_units, end_value, float(out_cash.sum()), xirr(flows))


def _flows(purchases: pd.DataFrame, paid: pd.DataFrame, end: date, end_value: float) -> list[tuple[date, float]]:
    mine = purchases[purchases["kind"] == "plan"]
    flows = [(_day(d), -float(a)) for d, a in zip(mine["nav_date"], mine["amount"])]
    cash = paid[paid["used"] == PAID]
    flows += [(_day(d), float(c)) for d, c in zip(cash["pay_date"], cash["cash"])]
    flows.append((end, float(end_value)))
    return flows


# ---- the front-end fee from the factsheet ----------------------------------------------------------------


def front_end_fee(fees: Sequence[dict] | pd.DataFrame | None, class_name: str = "") -> float | None:
    """The front-end fee actually charged (percent) from a fund's fee records (E12): the class's line, else the
    fund's line without a class; None when none is published (a waived fee is 0)."""
    if fees is None:
        return None
    rows = fees.to_dict("records") if isinstance(fees, pd.DataFrame) else [r for r in fees if isinstance(r, dict)]
    lines = [r for r in rows if fee_type_key(r.get("fee_type_desc")) == "front_end"]
    wanted = (class_name or "").casefold()
    for pick in (lambda r: str(r.get("class_abbr_name") or "").casefold() == wanted and wanted,
                 lambda r: not str(r.get("class_abbr_name") or "").strip() or str(r.get("class_abbr_name")).strip()
                 in ("-", "main")):
        found = [r for r in lines if pick(r)]
        if found:
            value = found[0].get("actual_value_num")
            if value is None or (isinstance(value, float) and math.isnan(value)):
                text = str(found[0].get("actual_value") or "")
                return 0.0 if "ยกเว้น" in text or "waive" in text.casefold() else None
            return float(value)
    return None


# ---- the view's model --------------------------------------------------------------------------------------


class RegularInvesting(param.Parameterized):
    """A plan's inputs and its results on a class and (when asked) one other, for the dashboard (no Panel).

    `compute(histories)` runs the plan on the class histories given ({key: (label, nav, distributions)});
    bad input leaves one sentence in `error` and the previous results in place."""

    monthly = param.Number(default=5000.0, bounds=(0, None), inclusive_bounds=(False, True),
                           doc="Baht put in each month.")
    day = param.Integer(default=1, bounds=(1, 31), doc="The day of the month of each purchase (the next NAV when "
                                                       "that day has none).")
    start = param.CalendarDate(default=None, allow_None=True, doc="The first day a purchase may be made.")
    end = param.CalendarDate(default=None, allow_None=True, doc="The last day (None: the last NAV).")
    front_end_pct = param.Number(default=None, allow_None=True, bounds=FEE_BOUNDS,
                                 doc="The front-end fee, percent (None: the class's published fee, else 0).")
    distributions = param.Selector(default=None, objects=[None, PAID, REINVESTED], allow_None=True,
                                   doc="Distributions paid in cash or reinvested (None: as the class does: paid).")
    class_key = param.String(default="", doc="The class simulated (a key of the histories).")
    compare_key = param.String(default="", doc="The class simulated beside it ('' for none).")
    result = param.Parameter(default=None, doc="The DcaResult on the class, or None.")
    compare_result = param.Parameter(default=None, doc="The DcaResult on the other class, or None.")
    error = param.String(default="", doc="Why the plan could not be simulated, a sentence; '' when fine.")

    def plan(self, fee_pct: float) -> DcaPlan:
        return DcaPlan(monthly=float(self.monthly), start=self.start, end=self.end, day=int(self.day),
                       front_end_pct=fee_pct, distributions=self.distributions)

    def compute(self, histories: dict[str, tuple[str, pd.DataFrame, pd.DataFrame | None]],
                fees: dict[str, float | None] | None = None) -> bool:
        """Simulate on `class_key` (and `compare_key`); True when it worked. `fees`: each class's published
        front-end fee, used when `front_end_pct` is None."""
        fees = fees or {}
        try:
            if self.class_key not in histories:
                raise BadInputError("pick a unit class to simulate on")
            if self.start is None:
                raise BadInputError("give the first day of the plan")
            results = []
            for key in (self.class_key, self.compare_key):
                if not key:
                    results.append(None)
                    continue
                if key not in histories:
                    raise BadInputError(f"the class to compare, {key}, has no NAV loaded")
                label, nav, dists = histories[key]
                fee = self.front_end_pct if self.front_end_pct is not None else (fees.get(key) or 0.0)
                results.append(simulate(nav, dists, self.plan(fee), label=label))
        except BadInputError as exc:
            self.error = str(exc)
            return False
        self.param.update(result=results[0], compare_result=results[1], error="")
        return True


__all__ = ["DcaPlan", "DcaResult", "ESTIMATE_NOTE", "Outcome", "PAID", "POLICIES", "REINVESTED", "RegularInvesting",
           "check_plan", "front_end_fee", "net_present_value", "planned_days", "simulate", "summary_row", "xirr"]

"""Fee drag: the baht a unit class's charged fees take from an amount held for some years, compounding
yearly, against the same amount in a cheaper class (docs/feeders.md, "Fee drag").

Pure arithmetic: the market store gives the fees (market/feeders.py `class_costs`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dashboard.errors import BadInputError

DEFAULT_AMOUNT = 100_000.0  # baht
DEFAULT_YEARS = 10
# The yearly return before fees assumed when the class has no 5-year NAV return of its own.
DEFAULT_RETURN_PCT = 5.0
MAX_YEARS = 50
MAX_AMOUNT = 10_000_000_000.0  # baht: past any holding, a typing slip


@dataclass(frozen=True)
class ClassFees:
    """What one class charges (percent): total expense a year, front-end and back-end fee on the amount.

    None where the factsheet states nothing: counted as 0 and named in `unstated`."""

    total_expense: float | None
    front: float | None
    back: float | None

    @property
    def unstated(self) -> tuple[str, ...]:
        return tuple(name for name, value in (("total expense", self.total_expense), ("front-end fee", self.front),
                                              ("back-end fee", self.back)) if value is None)


@dataclass(frozen=True)
class FeeDrag:
    """An amount through `years` years at `gross_pct` a year before fees: its value each year end without
    fees and with this class's fees (front-end fee at the start, the total expense each year, the back-end fee
    on selling at the end), and what the fees took (`cost`, baht)."""

    amount: float
    years: int
    gross_pct: float
    fees: ClassFees
    without_fees: tuple[float, ...] = field(default=())
    with_fees: tuple[float, ...] = field(default=())

    @property
    def final_value(self) -> float:
        return self.with_fees[-1]

    @property
    def cost(self) -> float:
        return self.without_fees[-1] - self.with_fees[-1]


def check_inputs(amount: float, years: int, gross_pct: float) -> None:
    """One clear line for an amount, a holding period or a return that cannot be used."""
    if not isinstance(amount, (int, float)) or not math.isfinite(amount) or amount <= 0:
        raise BadInputError(f"the amount must be a number of baht above 0, not {amount!r}")
    if amount > MAX_AMOUNT:
        raise BadInputError(f"the amount of {amount:,.0f} baht is more than {MAX_AMOUNT:,.0f}: check the figure")
    if not isinstance(years, int) or not 1 <= years <= MAX_YEARS:
        raise BadInputError(f"the holding period must be a whole number of years from 1 to {MAX_YEARS}, not {years!r}")
    if not isinstance(gross_pct, (int, float)) or not math.isfinite(gross_pct) or not -50 < gross_pct < 100:
        raise BadInputError(f"the yearly return must be a percentage between -50 and 100, not {gross_pct!r}")


def fee_drag(amount: float, years: int, gross_pct: float, fees: ClassFees) -> FeeDrag:
    """Value year by year (index 0 the day of buying, `years` the day of selling).

    Without fees: amount x (1 + r)^t. With fees: amount x (1 - front) x ((1 + r) x (1 - expense))^t, and the
    last year's value x (1 - back) (sold). A fee the factsheet does not state counts as 0.
    """
    check_inputs(amount, years, gross_pct)
    r = gross_pct / 100.0
    ter = (fees.total_expense or 0.0) / 100.0
    front = (fees.front or 0.0) / 100.0
    back = (fees.back or 0.0) / 100.0
    without = [amount * (1 + r) ** t for t in range(years + 1)]
    held = [amount * (1 - front) * ((1 + r) * (1 - ter)) ** t for t in range(years + 1)]
    held[-1] *= 1 - back
    return FeeDrag(amount, years, gross_pct, fees, tuple(without), tuple(held))


def gross_from_nav(nav_return_pct: float, total_expense_pct: float | None) -> float:
    """The yearly return before fees a NAV return (after the total expense) stands for: (1 + nav) / (1 - expense) - 1."""
    ter = (total_expense_pct or 0.0) / 100.0
    return ((1 + nav_return_pct / 100.0) / (1 - ter) - 1) * 100.0


def median(values: list[float]) -> float | None:
    ordered = sorted(v for v in values if v is not None)
    if not ordered:
        return None
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


WAIVED_WORDS = ("ยกเว้น", "waive")  # a charged fee sent as "waived" is 0 charged, not unknown


def charged_number(value: object, text: object) -> float | None:
    """A charged fee's figure: the number read from it, 0 for a fee sent as waived, else None (not stated)."""
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    if isinstance(text, str) and any(w in text.casefold() for w in WAIVED_WORDS):
        return 0.0
    return None


def class_fees_of(lines) -> ClassFees:
    """One class's charged fees from its fee lines (fee_type_desc, charged figure or None, charged text): the total
    expense by the models' rule (the total line, else management + trustee + registrar), front- and back-end."""
    from dashboard.models.fund import fee_total
    from dashboard.records.labels import fee_type_key

    charged = [(desc, charged_number(value, text)) for desc, value, text in lines]

    def kind(wanted: str) -> float | None:
        found = [v for d, v in charged if fee_type_key(d) == wanted and v is not None]
        return found[0] if found else None

    return ClassFees(fee_total(charged), kind("front_end"), kind("back_end"))


def basket_fee_drag(fees, amount: float = DEFAULT_AMOUNT, years: int = DEFAULT_YEARS,
                    gross_pct: float | None = DEFAULT_RETURN_PCT, nav_returns=None):
    """Value over the years of `amount` in each basket fund's first unit class (by name) with its charged fees:
    a frame (series, year, value, cost, total_expense, front, back, gross_pct, basis).

    `gross_pct` a number: every class at that return before fees, and a "No fees" line. None: each class at its
    own 5-year NAV return (`nav_returns[(proj_id, class)]` = (percent a year, the day it is measured to)) with
    its total expense added back (`gross_from_nav`), else at DEFAULT_RETURN_PCT; the "No fees" line only when
    every class ends up at one return. `basis` says which, in words.
    `fees`: the basket's fee frame (fund, proj_id, class_abbr_name, fee_type_desc, actual_value_num, actual_value)."""
    import pandas as pd

    columns = ["series", "year", "value", "cost", "total_expense", "front", "back", "gross_pct", "basis"]
    rows, used = [], set()
    if fees is not None and len(fees):
        frame = fees.assign(_class=fees["class_abbr_name"].fillna("").astype(str))
        for fund, part in frame.groupby("fund", sort=False):
            first = sorted(part["_class"].unique())[0]
            mine = part[part["_class"] == first]
            charged = class_fees_of(zip(mine["fee_type_desc"], mine["actual_value_num"], mine["actual_value"]))
            if charged.total_expense is None:
                continue
            proj_id = mine["proj_id"].iloc[0] if "proj_id" in mine else None
            gross, basis = own_return(gross_pct, (nav_returns or {}).get((proj_id, first)), charged.total_expense)
            used.add(round(gross, 9))
            drag = fee_drag(amount, years, gross, charged)
            label = f"{fund} · {first}" if first and first not in ("-", "main") else str(fund)
            rows += [{"series": label, "year": t, "value": v, "cost": drag.cost, "total_expense": charged.total_expense,
                      "front": charged.front, "back": charged.back, "gross_pct": gross, "basis": basis}
                     for t, v in enumerate(drag.with_fees)]
        if rows and len(used) == 1:
            gross = used.pop()
            without = fee_drag(amount, years, gross, ClassFees(0.0, 0.0, 0.0)).without_fees
            rows += [{"series": "No fees", "year": t, "value": v, "cost": 0.0, "total_expense": 0.0, "front": 0.0,
                      "back": 0.0, "gross_pct": gross, "basis": ""} for t, v in enumerate(without)]
    return pd.DataFrame(rows, columns=columns)


def own_return(given: float | None, nav5: tuple[float, object] | None, total_expense: float | None) -> tuple[float, str]:
    """The yearly return before fees a class is carried at, and where it comes from in words: the figure given;
    else the class's own 5-year NAV return (percent a year, to its day) grossed up by its total expense; else
    DEFAULT_RETURN_PCT, stated."""
    if given is not None:
        return float(given), f"{given:g} % a year, as given"
    if nav5 is not None and nav5[0] is not None and math.isfinite(nav5[0]):
        gross = gross_from_nav(nav5[0], total_expense)
        return gross, f"its 5-year NAV return, {nav5[0]:.2f} % a year to {nav5[1]}, with its total expense added back"
    return DEFAULT_RETURN_PCT, f"a stated {DEFAULT_RETURN_PCT:g} % a year (no 5-year NAV return of its own)"

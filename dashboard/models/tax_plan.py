"""The tax-saving planner: how much more a person can put into RMF, SSF, Thai ESG and Thai ESGX this tax year,
the income tax that saves, and when a purchase may be sold, from the dated rules in data/tax_rules.toml.

Pure Python and Param (no Panel, no store): the rules are data, one table per tax year with its sources; a
year the table does not hold is refused (`rules_for`), never guessed. Amounts are baht; a percent limit is a
percent of the assessable income subject to tax (the income the person gives).
"""

from __future__ import annotations

import datetime as dt
import math
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import param

from dashboard.errors import BadInputError, quoted

RULES_FILE = Path(__file__).with_name("data") / "tax_rules.toml"
NOT_ADVICE = "An estimate, not tax or investment advice"
WRAPPER_ORDER = ("RMF", "SSF", "ThaiESG", "ThaiESGX")
# What the person has already claimed this year in the shared retirement ceiling (baht), by parameter name.
ALREADY_CLAIMED = {
    "provident_fund": "provident fund",
    "government_pension_fund": "government pension fund (GPF)",
    "pension_insurance": "pension life insurance",
    "national_savings_fund": "national savings fund (NSF)",
    "rmf_bought": "RMF already bought",
    "ssf_bought": "SSF already bought",
}
MAX_INCOME = 10_000_000_000  # past any person's year: a typing slip, not a question


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    publisher: str
    url: str
    law: str
    read_on: str
    kind: str = "secondary"  # "primary": the regulator or a government publication; "secondary": reporting it

    @property
    def primary(self) -> bool:
        return self.kind == "primary"


@dataclass(frozen=True)
class WrapperRule:
    """One wrapper's rule in one tax year."""

    key: str
    name: str
    name_th: str
    percent: float
    ceiling: float
    shared: bool
    holding_years: int
    holding: str
    window: tuple[dt.date, dt.date]
    sources: tuple[Source, ...]
    from_first_purchase: bool = False
    until_age: int | None = None


@dataclass(frozen=True)
class YearRules:
    """The rules of one tax year: brackets, the shared ceiling, the wrappers it allows, what it leaves out."""

    year: int
    rules_dated: str
    read_on: str
    brackets: tuple[tuple[float, float, float], ...]  # (from, up to (inf at the top), percent)
    bracket_source: Source
    retirement_ceiling: float
    retirement_members: tuple[str, ...]
    retirement_source: Source
    salary_expense_percent: float
    salary_expense_ceiling: float
    personal_allowance: float
    salary_source: Source
    wrappers: dict[str, WrapperRule]
    left_out: tuple[str, ...]

    @property
    def note(self) -> str:
        """The line every screen shows: an estimate, and the date of the rules."""
        return (f"{NOT_ADVICE}. Rules of tax year {self.year} as in force on {self.rules_dated} "
                f"(sources read {self.read_on}).")


@lru_cache(maxsize=1)
def _table() -> dict:
    with RULES_FILE.open("rb") as handle:
        return tomllib.load(handle)


def years_held() -> list[int]:
    """The tax years the rules table holds, in order."""
    return sorted(int(y) for y in _table()["years"])


def rules_for(year: object) -> YearRules:
    """The rules of a tax year, or a BadInputError naming the years held (a year not held is never guessed)."""
    try:
        number = int(str(year).strip())
    except ValueError:
        raise BadInputError(f"the tax year must be a year such as 2025, not {quoted(year)}") from None
    table = _table()
    if str(number) not in table["years"]:
        held = ", ".join(str(y) for y in years_held())
        raise BadInputError(f"no tax rules for {number}: the planner holds tax years {held} only, "
                            "and does not guess another year's law")
    return _year_rules(number)


@lru_cache(maxsize=None)
def _year_rules(year: int) -> YearRules:
    table = _table()
    sources = {key: Source(key, s["title"], s["publisher"], s["url"], s["law"], s["read_on"], s["kind"])
               for key, s in table["sources"].items()}
    row = table["years"][str(year)]
    wrappers = {}
    for key in WRAPPER_ORDER:
        if key not in row:
            continue
        rule, about = row[key], table["wrapper"][key]
        start, end = (dt.date.fromisoformat(d) for d in rule["window"])
        wrappers[key] = WrapperRule(
            key=key, name=about["name"], name_th=about["name_th"], percent=float(rule["percent"]),
            ceiling=float(rule["ceiling"]), shared=bool(rule["shared"]), holding_years=int(rule["holding_years"]),
            holding=about["holding"], window=(start, end), sources=tuple(sources[s] for s in rule["sources"]),
            from_first_purchase=bool(rule.get("from_first_purchase", False)), until_age=rule.get("until_age"))
    brackets = tuple((float(lo), float(hi) if hi else math.inf, float(pct)) for lo, hi, pct in table["brackets"]["rows"])
    salary, ceiling = table["salary_estimate"], table["retirement_ceiling"]
    return YearRules(
        year=year, rules_dated=row["rules_dated"], read_on=table["read_on"], brackets=brackets,
        bracket_source=sources[table["brackets"]["source"]], retirement_ceiling=float(ceiling["amount"]),
        retirement_members=tuple(ceiling["members"]), retirement_source=sources[ceiling["source"]],
        salary_expense_percent=float(salary["expense_percent"]), salary_expense_ceiling=float(salary["expense_ceiling"]),
        personal_allowance=float(salary["personal_allowance"]), salary_source=sources[salary["source"]],
        wrappers=wrappers, left_out=tuple(row.get("left_out", ())))


# ---- income tax -------------------------------------------------------------------------------------------


def income_tax(rules: YearRules, taxable: float) -> float:
    """Income tax on a taxable (net) income by the year's brackets, in baht."""
    taxable = max(float(taxable), 0.0)
    return sum((min(taxable, hi) - lo) * pct / 100 for lo, hi, pct in rules.brackets if taxable > lo)


def marginal_rate(rules: YearRules, taxable: float) -> float:
    """The percent the next baht of taxable income is taxed at (the bracket the income reaches into)."""
    taxable = max(float(taxable), 0.0)
    rate = rules.brackets[0][2]
    for lo, _hi, pct in rules.brackets:
        if taxable > lo:
            rate = pct
    return rate


# ---- dates ---------------------------------------------------------------------------------------------


def years_later(day: dt.date, years: int) -> dt.date:
    """The same day `years` later, counted day to day; 29 February becomes 1 March in a year without it
    (the first day by which the full years have surely passed)."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return dt.date(day.year + years, 3, 1)


def _same_day_in(day: dt.date, year: int) -> dt.date:
    """The same month and day in another year; 29 February becomes 28 February in a year without it."""
    try:
        return day.replace(year=year)
    except ValueError:
        return dt.date(year, 2, 28)


def parse_day(text: object, what: str) -> dt.date | None:
    """A YYYY-MM-DD date (None for empty), or a BadInputError naming what it was for."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    if isinstance(text, dt.date):
        return text
    try:
        return dt.date.fromisoformat(str(text).strip())
    except ValueError:
        raise BadInputError(f"{what} must be a date written YYYY-MM-DD, not {quoted(text)}") from None


# ---- the plan ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WrapperPlan:
    """One wrapper's line of the plan."""

    key: str
    name: str
    room: float  # baht more that would still be deducted this year
    own_limit: float  # min(percent of income, its ceiling)
    binding: str  # the limit that binds the room, in words
    tax_saved: float  # income tax saved by buying `room` (alone)
    holding: str
    window: tuple[dt.date, dt.date]
    purchase_day: dt.date
    can_buy: bool  # the purchase day is inside the window
    earliest_sale: dt.date | None
    sale_rule: str
    sources: tuple[Source, ...]

    def as_dict(self) -> dict:
        return {"wrapper": self.key, "name": self.name, "room": self.room, "own_limit": self.own_limit,
                "binding_limit": self.binding, "tax_saved": self.tax_saved, "holding_rule": self.holding,
                "purchase_window": [self.window[0].isoformat(), self.window[1].isoformat()],
                "purchase_day": self.purchase_day.isoformat(), "counts_this_year": self.can_buy,
                "earliest_sale": self.earliest_sale.isoformat() if self.earliest_sale else None,
                "sale_rule": self.sale_rule,
                "sources": [{"publisher": s.publisher, "title": s.title, "url": s.url, "law": s.law,
                             "read_on": s.read_on, "kind": s.kind} for s in self.sources]}


@dataclass(frozen=True)
class TaxPlanResult:
    """The whole plan: the taxable income it assumed, the tax and marginal rate, each wrapper's line."""

    rules: YearRules
    income: float
    taxable: float
    taxable_estimated: bool
    tax_now: float
    marginal_rate: float
    shared_claimed: float
    shared_room: float
    wrappers: list[WrapperPlan] = field(default_factory=list)
    all_room: float = 0.0
    all_tax_saved: float = 0.0

    def as_dict(self) -> dict:
        r = self.rules
        return {"note": r.note, "tax_year": r.year, "rules_dated": r.rules_dated, "rules_read_on": r.read_on,
                "assessable_income": self.income, "taxable_income": self.taxable,
                "taxable_income_estimated": self.taxable_estimated, "income_tax": self.tax_now,
                "marginal_rate": self.marginal_rate, "retirement_ceiling": r.retirement_ceiling,
                "retirement_claimed": self.shared_claimed, "retirement_room": self.shared_room,
                "wrappers": [w.as_dict() for w in self.wrappers],
                "everything": {"room": self.all_room, "tax_saved": self.all_tax_saved},
                "left_out": list(r.left_out),
                "bracket_source": {"publisher": r.bracket_source.publisher, "url": r.bracket_source.url,
                                   "law": r.bracket_source.law}}


def _amount(value: object, what: str) -> float:
    try:
        number = float(value if value is not None else 0)
    except (TypeError, ValueError):
        raise BadInputError(f"{what} must be an amount in baht, not {quoted(value)}") from None
    if not math.isfinite(number):
        raise BadInputError(f"{what} must be a finite amount in baht")
    if number < 0:
        raise BadInputError(f"{what} cannot be negative ({number:,.0f} baht)")
    if number > MAX_INCOME:
        raise BadInputError(f"{what} of {number:,.0f} baht is past any person's year: check the figure")
    return number


def estimated_taxable(rules: YearRules, income: float, deductions: float) -> float:
    """A salaried person's taxable income: income less the employment expense deduction (percent, capped),
    the personal allowance and the deductions already claimed."""
    expense = min(income * rules.salary_expense_percent / 100, rules.salary_expense_ceiling)
    return max(income - expense - rules.personal_allowance - deductions, 0.0)


def plan(year: object, income: object, *, provident_fund: object = 0, government_pension_fund: object = 0,
         pension_insurance: object = 0, national_savings_fund: object = 0, rmf_bought: object = 0,
         ssf_bought: object = 0, thai_esg_bought: object = 0, thai_esgx_bought: object = 0,
         taxable_income: object = None, purchase_day: object = None, first_rmf_purchase: object = None,
         birth_date: object = None, today: dt.date | None = None) -> TaxPlanResult:
    """The plan for one person and tax year. Bad input raises a BadInputError with one clear line.

    `taxable_income` is the net income after expenses and allowances, before the purchases planned (the
    deductions already claimed taken off); without it, a salaried person's is estimated. `purchase_day`
    (default: today, moved into the tax year) dates the purchase whose earliest sale day is shown."""
    rules = rules_for(year)
    income_v = _amount(income, "the assessable income")
    claimed = {name: _amount(value, label) for (name, label), value in zip(
        ALREADY_CLAIMED.items(), (provident_fund, government_pension_fund, pension_insurance, national_savings_fund,
                                  rmf_bought, ssf_bought))}
    esg_bought = _amount(thai_esg_bought, "Thai ESG already bought")
    esgx_bought = _amount(thai_esgx_bought, "Thai ESGX already bought")
    if claimed["ssf_bought"] and "SSF" not in rules.wrappers:
        raise BadInputError(f"SSF bought in {rules.year} earns no deduction: SSF purchases count for tax years 2020-2024 only")
    if esgx_bought and "ThaiESGX" not in rules.wrappers:
        raise BadInputError(f"Thai ESGX purchases count for tax year 2025 only, not {rules.year}")
    shared_claimed = sum(claimed.values())
    if shared_claimed > rules.retirement_ceiling:
        # still a plan (no room left), but say what the figures add up to
        pass
    day = parse_day(purchase_day, "the purchase day")
    now = today or dt.date.today()
    first_day, last_day = dt.date(rules.year, 1, 1), dt.date(rules.year, 12, 31)
    if day is None:
        day = min(max(now, first_day), last_day)
    elif not first_day <= day <= last_day:
        # A purchase counts for the tax year it is made in: a plan of year Y for a day in another year would print
        # a tax saving that purchase never earns.
        raise BadInputError(f"a purchase on {day} does not count for tax year {rules.year} (it counts for tax year "
                            f"{day.year}): give a day from {first_day} to {last_day}")
    first_rmf = parse_day(first_rmf_purchase, "the first RMF purchase day") or day
    if first_rmf > day:
        raise BadInputError(f"the first RMF purchase ({first_rmf}) cannot come after this purchase ({day})")
    born = parse_day(birth_date, "the birth date")
    if born is not None and born >= day:
        raise BadInputError(f"the birth date ({born}) must come before the purchase day ({day})")

    deductions_claimed = shared_claimed + esg_bought + esgx_bought
    if taxable_income is None or (isinstance(taxable_income, str) and not taxable_income.strip()):
        taxable, estimated = estimated_taxable(rules, income_v, deductions_claimed), True
    else:
        taxable, estimated = _amount(taxable_income, "the taxable income"), False
        if taxable > income_v:
            raise BadInputError(f"the taxable income ({taxable:,.0f}) cannot exceed the assessable income ({income_v:,.0f})")
    tax_now = income_tax(rules, taxable)
    shared_room = max(rules.retirement_ceiling - shared_claimed, 0.0)
    bought = {"RMF": claimed["rmf_bought"], "SSF": claimed["ssf_bought"], "ThaiESG": esg_bought, "ThaiESGX": esgx_bought}

    lines = []
    for key, rule in rules.wrappers.items():
        by_income = income_v * rule.percent / 100
        own_limit = min(by_income, rule.ceiling)
        own_word = (f"{rule.percent:g} % of income ({by_income:,.0f})" if by_income < rule.ceiling
                    else f"its ceiling of {rule.ceiling:,.0f}")
        own_room = max(own_limit - bought[key], 0.0)
        can_buy = rule.window[0] <= day <= rule.window[1]
        if not can_buy:
            # a purchase that day earns no deduction this year: no room and no tax saved to print for it
            room, binding = 0.0, f"its purchase window, {rule.window[0]} to {rule.window[1]}"
        elif rule.shared and shared_room < own_room:
            room, binding = shared_room, f"the shared retirement ceiling of {rules.retirement_ceiling:,.0f} ({shared_claimed:,.0f} claimed)"
        else:
            room, binding = own_room, own_word
        saved = tax_now - income_tax(rules, taxable - room)
        sale, sale_rule = _earliest_sale(rule, day, first_rmf, born) if can_buy else (None, "")
        if not can_buy:
            sale_rule = (f"a purchase on {day} does not count for {rules.year}: the window is "
                         f"{rule.window[0]} to {rule.window[1]}")
        lines.append(WrapperPlan(key=key, name=rule.name, room=round(room, 2), own_limit=round(own_limit, 2),
                                 binding=binding, tax_saved=round(saved, 2), holding=_holding_words(rule),
                                 window=rule.window, purchase_day=day, can_buy=can_buy, earliest_sale=sale,
                                 sale_rule=sale_rule, sources=rule.sources))
    # Everything at once: the separate wrappers in full, the shared ones together within the shared room.
    shared_lines = [w for w in lines if rules.wrappers[w.key].shared]
    separate = sum(w.room for w in lines if not rules.wrappers[w.key].shared)
    together = min(sum(w.room for w in shared_lines), shared_room)
    all_room = separate + together
    return TaxPlanResult(rules=rules, income=income_v, taxable=round(taxable, 2), taxable_estimated=estimated,
                         tax_now=round(tax_now, 2), marginal_rate=marginal_rate(rules, taxable),
                         shared_claimed=shared_claimed, shared_room=shared_room, wrappers=lines,
                         all_room=round(all_room, 2),
                         all_tax_saved=round(tax_now - income_tax(rules, taxable - all_room), 2))


def _holding_words(rule: WrapperRule) -> str:
    if rule.key == "RMF":
        return (f"at least {rule.holding_years} years from the first RMF purchase, counted day to day, "
                f"and not before age {rule.until_age}")
    if rule.key == "ThaiESG":
        return f"{rule.holding_years} years from the day of purchase, counted day to day"
    return rule.holding


def _earliest_sale(rule: WrapperRule, day: dt.date, first_rmf: dt.date,
                   born: dt.date | None) -> tuple[dt.date | None, str]:
    if not rule.from_first_purchase:
        return years_later(day, rule.holding_years), f"{rule.holding_years} years after {day}"
    held = years_later(first_rmf, rule.holding_years)
    if rule.until_age is None:
        return held, f"{rule.holding_years} years after the first RMF purchase ({first_rmf})"
    if born is None:
        return None, (f"{held} at the earliest ({rule.holding_years} years after the first RMF purchase, {first_rmf}), "
                      f"and not before age {rule.until_age}: give the birth date for the day")
    aged = years_later(born, rule.until_age)
    later = max(held, aged)
    why = f"age {rule.until_age}" if aged > held else f"{rule.holding_years} years after the first RMF purchase"
    return later, f"the later of {held} ({rule.holding_years} years held) and {aged} (age {rule.until_age}): {why}"


# ---- the view's state -----------------------------------------------------------------------------------


class TaxPlanner(param.Parameterized):
    """The planner's inputs and its plan (`result`, or `error`: one line) for the Plan tab, a report, a notebook."""

    year = param.Selector(default=None, objects=[], doc="The tax year planned (one the rules table holds).")
    income = param.Number(default=1_200_000, allow_None=True, doc="Assessable income of the year, baht (None: not "
                                                                 "given yet, no plan).")
    # An amount cleared in the page is None: nothing claimed (`plan` reads None as 0).
    provident_fund = param.Number(default=0, allow_None=True, doc="Provident fund contributions claimed this year, baht.")
    government_pension_fund = param.Number(default=0, allow_None=True,
                                           doc="Government pension fund (GPF) contributions, baht.")
    pension_insurance = param.Number(default=0, allow_None=True, doc="Pension life insurance premiums claimed, baht.")
    national_savings_fund = param.Number(default=0, allow_None=True,
                                         doc="National savings fund (NSF) contributions, baht.")
    rmf_bought = param.Number(default=0, allow_None=True, doc="RMF already bought this year, baht.")
    ssf_bought = param.Number(default=0, allow_None=True, doc="SSF already bought this year (tax years to 2024), baht.")
    thai_esg_bought = param.Number(default=0, allow_None=True, doc="Thai ESG already bought this year, baht.")
    taxable_income = param.Number(default=None, allow_None=True,
                                  doc="Taxable income after expenses and allowances, if known; else estimated for a salaried person.")
    purchase_day = param.CalendarDate(default=None, allow_None=True, doc="The day of the purchase planned (default: today, within the year).")
    rank_by = param.Selector(default="fee", objects=["fee", "return", "volatility"],
                             doc="The figure the qualifying funds are ranked by.")
    result = param.Parameter(default=None, doc="The TaxPlanResult of the inputs (None while there is an error).")
    error = param.String(default="", doc="One line saying what is wrong with the inputs; empty when the plan stands.")
    ssf_open = param.Boolean(default=False, doc="Whether the year's rules still deduct SSF purchases (the view asks "
                                                "for SSF bought only then).")

    def __init__(self, today: dt.date | None = None, **params):
        self._today = today
        self.param.year.objects = years_held()
        if params.get("year") is None:
            now = today or dt.date.today()
            params["year"] = now.year if now.year in years_held() else years_held()[-1]
        super().__init__(**params)
        self._year_changed()
        self.update()

    @param.depends("year", watch=True)
    def _year_changed(self) -> None:
        """A year without SSF hides its input: an amount typed for another year is cleared, not kept out of sight
        (it would make every plan of this year an error the person cannot see the cause of)."""
        open_ = "SSF" in rules_for(self.year).wrappers
        changes = {} if open_ or not self.ssf_bought else {"ssf_bought": 0}
        day = self.purchase_day
        if day is not None and day.year != int(self.year):
            # A purchase day of the year left behind would make the new year's plan an error: the same day of the
            # new year is what the person meant (29 February becomes 28 February in a year without it).
            changes["purchase_day"] = _same_day_in(day, int(self.year))
        self.param.update(ssf_open=open_, **changes)

    @param.depends("year", "income", "provident_fund", "government_pension_fund", "pension_insurance",
                   "national_savings_fund", "rmf_bought", "ssf_bought", "thai_esg_bought", "taxable_income",
                   "purchase_day", watch=True)
    def update(self) -> None:
        """Recompute the plan; bad input changes nothing (the last plan stays) and says why in one line."""
        if self.income is None:
            self.param.update(error="give the assessable income of the year (baht)")
            return
        try:
            result = plan(self.year, self.income, provident_fund=self.provident_fund,
                          government_pension_fund=self.government_pension_fund,
                          pension_insurance=self.pension_insurance, national_savings_fund=self.national_savings_fund,
                          rmf_bought=self.rmf_bought, ssf_bought=self.ssf_bought, thai_esg_bought=self.thai_esg_bought,
                          taxable_income=self.taxable_income, purchase_day=self.purchase_day, today=self._today)
        except BadInputError as exc:
            self.param.update(error=str(exc))
            return
        self.param.update(result=result, error="")

"""The demo funds' plans: which companies and fund projects exist, of which kind and status, with which
unit classes, before any payload is written (`funds.FundBuilder` writes them)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from dashboard.demo.context import BuildContext
from dashboard.demo.pools import (
    ACTIVE_CORE,
    ACTIVE_EXTRAS,
    AMC_NAME_EN,
    AMC_NAME_TH,
    AMC_STEMS,
    BE_OFFSET,
    CLASS_TYPES,
    FORCED_KINDS,
    FUND_KINDS,
    FundKind,
    MARKET_AMC_STEMS,
    MARKET_CLASSES,
    MARKET_FUNDS,
    MARKET_KIND_WEIGHTS,
    MARKET_MULTI_KINDS,
    MARKET_STATUSES,
    OLD_KINDS,
    OLD_STATUSES,
)


@dataclass
class FundPlan:
    """What the builder decided about one fund before writing its payloads."""

    proj_id: str
    kind: FundKind
    status: str
    amc_index: int
    abbr: str
    class_suffixes: tuple[str, ...]
    regis: date | None
    cancel: date | None
    term_months: int = 0
    holdings: bool = False
    flag_key: str = "invest_country_flage"
    risk: str = ""
    retail_type: str | None = "R"
    redemp_period: str = "1"
    perf_class_label: str = "-"  # class_abbr_name of a non-class fund's performance rows

    @property
    def class_names(self) -> list[str]:
        return [f"{self.abbr}-{s}" for s in self.class_suffixes]

    @property
    def is_old(self) -> bool:
        return self.status in ("EX", "CA", "LI")


class FundPlanner(BuildContext):
    """The generator's part that decides which funds exist: companies, kinds, statuses, classes, and the
    rare values spread so that each occurs at least once."""

    @property
    def stems(self) -> tuple[tuple[str, str, str], ...]:
        """(abbreviation, English stem, Thai stem) of each company, in company-index order."""
        return MARKET_AMC_STEMS if self.scale == "market" else AMC_STEMS

    def add_companies(self) -> None:
        for i, (abbr, stem_en, stem_th) in enumerate(self.stems):
            self.out["amcs"].append({
                "unique_id": f"C{101 + i:010d}", "abbr": abbr,
                "name_en": AMC_NAME_EN.format(p=stem_en), "name_th": AMC_NAME_TH.format(p=stem_th),
            })

    def plan_funds(self) -> list[FundPlan]:
        if self.scale == "market":
            return self.plan_market_funds()
        rng = self.sub_rng("plan")
        self.add_companies()
        specs: list[tuple[int, str, str]] = []  # (company index, kind, status)
        old_status = iter(OLD_STATUSES * 3)
        for i in range(len(self.stems)):
            forced = FORCED_KINDS.get(i, ())
            kinds = list(ACTIVE_CORE) + list(forced) + rng.sample([k for k in ACTIVE_EXTRAS if k not in forced], 3)
            specs += [(i, k, "RG") for k in kinds]
            if i % 3 == 0:
                specs.append((i, "FT", "SE"))
            for _ in range(1 + i % 2):
                specs.append((i, rng.choice(OLD_KINDS), next(old_status)))
        numbers = rng.sample(range(101, 9999), len(specs))
        plans = [self.plan_fund(rng, n, *spec) for n, spec in zip(numbers, specs)]
        self.assign_variety(rng, plans)
        return plans

    def plan_fund(self, rng: random.Random, number: int, amc_index: int, kind_code: str, status: str) -> FundPlan:
        kind = FUND_KINDS[kind_code]
        today = self.today
        if status == "RG":
            # Funds with holdings are old enough to have all twelve published quarters.
            regis = today - timedelta(days=rng.randint(1250, 6500))
            cancel = None
        elif status == "SE":
            regis, cancel = None, None
        elif status == "LI":
            regis = date(rng.randint(2004, 2016), rng.randint(1, 12), rng.randint(1, 28))
            cancel = regis + timedelta(days=rng.randint(200, 2400))
            cancel = min(cancel, date(2022, 4, 30))
        elif status == "CA":
            regis = None
            cancel = date(rng.randint(2010, 2021), rng.randint(1, 12), rng.randint(1, 28))
        else:  # EX
            regis, cancel = None, None
        if regis or cancel:
            approved_year = (regis or cancel).year
        elif status == "SE":
            approved_year = today.year
        else:  # an offer that expired before May 2022
            approved_year = rng.randint(2012, 2021)
        term_months = 0
        if kind_code == "FT":
            term_months = rng.choice((36, 48, 60)) if status == "RG" else rng.choice((3, 6, 6, 9, 12))
        elif kind_code == "TRIG":
            term_months = rng.choice((12, 18, 24))
        amc_abbr = self.stems[amc_index][0]
        multi: tuple[str, ...] = ()
        if status == "RG":
            if kind_code == "GF":
                multi = ("A", "R", "SSF")
            elif kind_code == "GEQ" and rng.random() < 0.6:
                multi = tuple(sorted(rng.sample(("A", "D", "R", "E"), rng.randint(2, 4))))
            elif kind_code in ("EQ", "RMF") and amc_index % 2 == 0:
                multi = fitting_classes(kind_code, rng.sample(("A", "D", "SSF", "E", "P"), rng.randint(2, 3)))
        if multi:
            abbr = f"{amc_abbr}{kind_code}"
        elif kind_code == "FT":
            abbr = f"{amc_abbr}-FT{term_months}M{rng.randint(1, 30)}"
        else:
            abbr = f"{amc_abbr}-{kind_code}"
        return FundPlan(
            proj_id=f"M{number:04d}_{approved_year + BE_OFFSET}", kind=kind, status=status, amc_index=amc_index,
            abbr=abbr, class_suffixes=multi, regis=regis, cancel=cancel, term_months=term_months,
            holdings=status == "RG" and kind.portfolio is not None, risk=kind.risk,
        )

    def plan_market_funds(self) -> list[FundPlan]:
        """The whole market's size: 22 companies of very different sizes, MARKET_FUNDS fund projects
        (most open, some offered, liquidated, cancelled or expired) and MARKET_CLASSES unit classes."""
        rng = self.sub_rng("plan", "market")
        self.add_companies()
        count = len(self.stems)
        weights = [rng.lognormvariate(0, 0.8) for _ in range(count)]
        sizes = [max(25, int(MARKET_FUNDS * w / sum(weights))) for w in weights]
        while sum(sizes) > MARKET_FUNDS:
            sizes[sizes.index(max(sizes))] -= 1
        for n in range(MARKET_FUNDS - sum(sizes)):
            sizes[n % count] += 1
        statuses, status_weights = zip(*MARKET_STATUSES)
        kinds, kind_weights = zip(*MARKET_KIND_WEIGHTS)
        specs: list[tuple[int, str, str]] = []  # (company index, kind, status)
        for i, size in enumerate(sizes):
            first = list(ACTIVE_CORE) + list(FORCED_KINDS.get(i, ()))
            specs += [(i, k, "RG") for k in first]
            for _ in range(size - len(first)):
                status = rng.choices(statuses, status_weights)[0]
                kind = rng.choices(kinds, kind_weights)[0] if status in ("RG", "SE") else rng.choice(OLD_KINDS)
                specs.append((i, kind, status))
        numbers = rng.sample(range(101, 9999), len(specs))
        plans = [self.plan_fund(rng, n, *spec) for n, spec in zip(numbers, specs)]
        self.spread_classes(rng, plans)
        self.assign_variety(rng, plans)
        return plans

    def spread_classes(self, rng: random.Random, plans: list[FundPlan]) -> None:
        """Give open funds two to five unit classes until the market holds MARKET_CLASSES classes."""
        total = sum(max(1, len(p.class_suffixes)) for p in plans)
        candidates = [p for p in plans if p.status == "RG" and not p.class_suffixes and p.kind.code in MARKET_MULTI_KINDS]
        rng.shuffle(candidates)
        for plan in candidates:
            k = min(rng.randint(2, 5), MARKET_CLASSES - total + 1)
            if k < 2:
                break
            plan.class_suffixes = fitting_classes(plan.kind.code, rng.sample(tuple(CLASS_TYPES), k))
            plan.abbr = f"{self.stems[plan.amc_index][0]}{plan.kind.code}"
            total += k - 1

    def assign_variety(self, rng: random.Random, plans: list[FundPlan]) -> None:
        """Spread the rare values over the funds so that every one occurs at least once."""
        seen: set[str] = set()
        for plan in plans:  # abbreviations are unique, as the service's are
            base, n = plan.abbr, 2
            while plan.abbr in seen:
                plan.abbr, n = f"{base}{n}", n + 1
            seen.add(plan.abbr)
        active = [p for p in plans if p.status == "RG"]
        cx = [p for p in active if p.kind.code == "CX"]
        cx[0].risk, cx[-1].risk = "RS81", "RS8+"
        cx[0].retail_type, cx[-1].retail_type = "A", "X"
        generic = [p for p in active if p.kind.code in ("EQ", "DIV", "FI", "BC", "MIX", "GEQ", "SSF", "RMF", "TESG")]
        order = rng.sample(generic, len(generic))
        for plan, retail in zip(order, ("N", "G", "H", "B", None, "N", "H")):
            plan.retail_type = retail
        for plan, code in zip(order[7:], ("2", "3", "4", "5", "6", "7", "8", "9", "2", "9")):
            plan.redemp_period = code
        for p in plans:
            if p.kind.code == "FT":
                p.redemp_period = "E"
            elif p.kind.code == "TRIG":
                p.redemp_period = "T"
            if p.kind.code == "MM":
                p.risk = rng.choice(("RS1", "RS2"))
            elif p.kind.code == "MIX" and rng.random() < 0.4:
                p.risk = "RS7" if rng.random() < 0.5 else "RS5"
        for plan in rng.sample(plans, 4):
            plan.flag_key = "invest_country_flag"
        singles = [p for p in active if not p.class_suffixes]
        singles[3].perf_class_label = "1"
        singles[8].perf_class_label = "main"
        # A couple of active funds without holdings besides the gold fund.
        for plan in rng.sample([p for p in active if p.holdings and p.kind.code != "GF"], 2):
            plan.holdings = False


def fitting_classes(kind_code: str, suffixes) -> tuple[str, ...]:
    """Class suffixes, sorted, that fit the fund: a retirement (RMF) fund has no savings-fund (SSF) class;
    the first class type it lacks stands in (drawn the same way, so nothing else in the data set moves)."""
    chosen = list(suffixes)
    if kind_code == "RMF" and "SSF" in chosen:
        chosen[chosen.index("SSF")] = next(c for c in CLASS_TYPES if c not in chosen and c != "SSF")
    return tuple(sorted(chosen))

"""The demo's funds of Thai funds, two levels deep: a fund of funds holding units of other demo funds, and a
multi-manager fund holding units of that fund of funds, of another demo fund, of a fund without published
holdings and of a property fund the service does not cover (so a look-through has something to leave as it is).

Built after everything else, on streams of their own ("fund_of_funds…"), and appended: no existing fund's
draws change. Units of a Thai fund are asset type 104 (หน่วยลงทุน), named by the held class's abbreviation and
ISIN when the class has one, else by the fund's abbreviation (both spellings occur in filed portfolios).
"""

from __future__ import annotations

import math
import random
from datetime import timedelta

from dashboard.api.periods import quarter_end
from dashboard.demo.context import BuildContext
from dashboard.demo.fund_plans import FundPlan
from dashboard.demo.pools import ASSET_DEPOSIT, BE_OFFSET, FundKind
from dashboard.demo.values import update_stamp

ASSET_THAI_FUND = "104"  # หน่วยลงทุน: units of a (Thai) fund (records.labels.ASSET_TYPE)
FUND_OF_FUNDS = FundKind("FOF", "Demo {p} Thai Fund of Funds", "กองทุนเปิด เดโม {p} รวมกองทุนไทย", "fund_of_funds",
                         "RS5", "3", "mixed", 1.2)
MULTI_MANAGER = FundKind("MFOF", "Demo {p} Multi-Manager Fund of Funds", "กองทุนเปิด เดโม {p} มัลติแมเนเจอร์",
                         "fund_of_funds", "RS5", "3", "mixed", 1.3)
# A property fund's units: the service does not cover property funds, so a look-through cannot expand them.
OUTSIDE_FUND = (ASSET_THAI_FUND, "DEMO-PROP", "-", "Demo Property Fund (not covered by the service)")


class FundOfFundsBuilder(BuildContext):
    """Appends the two funds of funds (plans, payloads, holdings, successor details)."""

    def build_funds_of_funds(self, plans: list[FundPlan]) -> list[FundPlan]:
        rng = self.sub_rng("fund_of_funds")
        active = [p for p in plans if p.status == "RG"]
        with_holdings = [p for p in active if p.proj_id in self.out["holdings"]]
        used = {str(f["proj_id"])[1:5] for f in self.out["funds"]}  # every fund written so far, appended ones too
        numbers = [n for n in range(101, 9999) if f"{n:04d}" not in used]
        picked = rng.sample(numbers, 2)
        amc = 1 % len(self.stems)
        first = self._plan(rng, picked[0], amc, FUND_OF_FUNDS, plans)
        second = self._plan(rng, picked[1], amc, MULTI_MANAGER, plans)
        # The first level: three or four Thai funds of other kinds, each with published holdings.
        kinds = ("EQ", "FI", "MM", "DIV")
        level_one = [rng.choice([p for p in with_holdings if p.kind.code == k]) for k in kinds
                     if any(p.kind.code == k for p in with_holdings)]
        without = [p for p in active if p.proj_id not in self.out["holdings"] and p.proj_id in self.out["nav_profiles"]]
        direct = rng.choice([p for p in with_holdings if p.kind.code in ("EQ", "MIX") and p not in level_one])
        level_two = [first, direct] + ([rng.choice(without)] if without else [])
        self.out["holdings"][first.proj_id] = self._quarters(rng, first, [self._units(p) for p in level_one], False)
        self.out["holdings"][second.proj_id] = self._quarters(
            rng, second, [self._units(p) for p in level_two] + [OUTSIDE_FUND], True)
        for plan in (first, second):
            self.write_fund(plan)  # its holdings are in place: its allocation follows from them
            self.fund_index[plan.proj_id] = self.out["funds"][-1]
            self.out["fund_details"][plan.proj_id] = self.fund_details(plan, False, False, False)
        return [first, second]

    def _plan(self, rng: random.Random, number: int, amc: int, kind: FundKind, plans: list[FundPlan]) -> FundPlan:
        regis = self.today - timedelta(days=rng.randint(1500, 3000))
        abbr = f"{self.stems[amc][0]}-{kind.code}"
        taken = {p.abbr for p in plans} | {str(f.get("proj_abbr_name")) for f in self.out["funds"]}
        n = 2
        while abbr in taken:
            abbr, n = f"{self.stems[amc][0]}-{kind.code}{n}", n + 1
        # holdings=False: the generic builder would draw a portfolio; this module writes the holdings itself
        return FundPlan(proj_id=f"M{number:04d}_{regis.year + BE_OFFSET}", kind=kind, status="RG", amc_index=amc,
                        abbr=abbr, class_suffixes=(), regis=regis, cancel=None, holdings=False, risk=kind.risk)

    def _units(self, plan: FundPlan) -> tuple[str, str, str, str]:
        """How a portfolio names units of this fund: its first class (abbreviation and ISIN) when it has classes
        with an ISIN, else the fund's abbreviation."""
        issuer = self.out["amcs"][plan.amc_index]["name_en"]
        details = self.out["fund_details"].get(plan.proj_id, {}).get("classes", {})
        for name in plan.class_names:
            isin = (details.get(name) or {}).get("fund_class_isin_code")
            if isin:
                return ASSET_THAI_FUND, name, isin, issuer
        return ASSET_THAI_FUND, plan.abbr, "-", issuer

    def _quarters(self, rng: random.Random, plan: FundPlan, held: list[tuple], second_level: bool) -> dict[str, list[dict]]:
        """Twelve quarters, newest first: the held funds' weights drift around their targets; a sleeve of bonds and
        bills, and cash the rest."""
        deposits = [s for s in self.securities["deposit"] if s[0] == ASSET_DEPOSIT][:2]
        # a liquidity sleeve of government bonds and central-bank bills (as the demo's other funds, 15 lines at least)
        sleeve = rng.sample(self.securities["gov_bond"], 5) + rng.sample(self.securities["bot_bill"], 5)
        sleeve_targets = [rng.uniform(0.2, 0.8) for _ in sleeve]
        targets = [rng.uniform(20, 40) for _ in held]
        if second_level:  # the fund of funds the largest, the outside fund the smallest
            targets = [rng.uniform(40, 50), rng.uniform(20, 30)] + [rng.uniform(6, 10) for _ in held[2:]]
        nav = rng.uniform(2e9, 8e9)
        out: dict[str, list[dict]] = {}
        for period in reversed(self.periods):
            end = quarter_end(period)
            stamp = update_stamp(rng, end + timedelta(days=rng.randint(18, 55)))
            nav *= math.exp(rng.gauss(0.01, 0.06))
            weights = [t * math.exp(rng.gauss(0, 0.08)) for t in targets]
            invested = rng.uniform(91.5, 94.5)
            scale = invested / sum(weights)
            bills = [t * math.exp(rng.gauss(0, 0.1)) for t in sleeve_targets]
            cash = rng.uniform(99.7, 100.1) - invested - sum(bills)
            lines = [(sec, w * scale) for sec, w in zip(held, weights)] + list(zip(sleeve, bills))
            lines += [(deposits[0], cash * 0.6), (deposits[1], cash * 0.4)]
            out[period] = [{
                "last_upd_date": stamp, "as_of_date": end.isoformat(), "assetliab_id": sec[0], "issue_code": sec[1],
                "isin_code": sec[2], "issuer": sec[3], "assetliab_value": f"{nav * pct / 100:.2f}",
                "percent_nav": f"{pct:.5f}"} for sec, pct in sorted(lines, key=lambda kv: -kv[1])]
        return dict(sorted(out.items(), reverse=True))


__all__ = ["ASSET_THAI_FUND", "FUND_OF_FUNDS", "MULTI_MANAGER", "FundOfFundsBuilder"]

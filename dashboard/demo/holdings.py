"""The demo market and each fund's quarterly holdings (E6): drifting portfolios, feeder funds, NAV total lines."""

from __future__ import annotations

import math
import random
from datetime import timedelta
from typing import TYPE_CHECKING

from dashboard.api.periods import quarter_end
from dashboard.demo.context import BuildContext
from dashboard.demo.pools import (
    ASSET_BILL,
    ASSET_CORP,
    ASSET_DEPOSIT,
    ASSET_EQUITY,
    ASSET_FOREIGN_DEBT,
    ASSET_FOREIGN_FUND,
    ASSET_FORWARD,
    ASSET_GOV,
    ASSET_NAV_TOTAL,
    ASSET_OTHER,
    ASSET_STRUCTURED,
    BANKS,
    FOREIGN_ISSUERS,
    FOREIGN_THEMES,
    INDUSTRIES,
    MASTER_FUNDS,
    PORTFOLIO_PROFILES,
    PROVINCES,
)
from dashboard.demo.values import make_isin, update_stamp

if TYPE_CHECKING:
    from dashboard.demo.fund_plans import FundPlan


class HoldingsBuilder(BuildContext):
    """The demo market and each fund's quarterly holdings (E6)."""

    def build_securities(self) -> dict[str, list[tuple[str, str, str, str]]]:
        """The demo market, by category: (assetliab_id, issue_code, isin_code, issuer)."""
        rng = self.sub_rng("securities")
        today = self.today
        companies = [(f"Demo {p} {ind} PCL", f"D{pc}{ic}") for p, pc in PROVINCES for ind, ic in INDUSTRIES]
        companies = rng.sample(companies, 110)
        th_equity = []
        for n, (issuer, ticker) in enumerate(companies):
            isin = make_isin("TH", f"{ticker[1:]}{n:03d}010") if rng.random() < 0.93 else "-"
            th_equity.append((ASSET_EQUITY, ticker, isin, issuer if rng.random() < 0.95 else "-"))
        corp_bond = []
        for n, (issuer, ticker) in enumerate(rng.sample(companies, 45)):
            due = today.year + rng.randint(1, 9)
            code = f"{ticker}{due % 100:02d}{'123456789ABC'[rng.randrange(12)]}A"
            isin = make_isin("TH", f"{ticker[1:]}{n:02d}{due % 100:02d}A0") if rng.random() < 0.7 else "-"
            corp_bond.append((ASSET_CORP, code, isin, issuer))
        gov_bond = [
            (ASSET_GOV, f"DLB{(today.year + n) % 100:02d}{'369C'[n % 4]}A", make_isin("TH", f"0623{n:02d}{(today.year + n) % 100:02d}0"), "Demo Treasury")
            for n in range(1, 16)
        ]
        bot_bill = []
        for n in range(20):
            due = today + timedelta(days=14 * (n + 1))
            bot_bill.append((ASSET_BILL, f"DCB{due:%y%m%d}A", make_isin("TH", f"0B{due:%y%m%d}0") if n % 3 else "-", "Demo Central Bank"))
        deposit = [(ASSET_DEPOSIT, f"{code}-{kind}", "-", f"Demo {name} Bank PCL") for name, code in BANKS for kind in ("SA", "FD")]
        foreign_fund = []
        for n, theme in enumerate(FOREIGN_THEMES):
            initials = "".join(w[0] for w in theme.replace("-", " ").split())
            country = "IE" if n % 2 else "LU"
            foreign_fund.append((ASSET_FOREIGN_FUND, f"D{initials}-ETF", make_isin(country, f"00D{n:03d}{initials[:3]:X<3}"), f"Demo {theme} UCITS ETF"))
        master_fund = [
            (ASSET_FOREIGN_FUND, f"DM-{name.upper().replace(' ', '')}-I", make_isin("LU", f"99D{n:03d}MST"), f"Demo {name} Master Fund I-Acc USD")
            for n, name in enumerate(MASTER_FUNDS)
        ]
        foreign_debt = [
            (ASSET_FOREIGN_DEBT, f"D-CD-{issuer.split()[0].upper()}-{today.year + k}", make_isin("XS", f"D{n:02d}{k}{issuer[:4].upper()}0") if k else "-", f"Demo {issuer}")
            for n, issuer in enumerate(FOREIGN_ISSUERS) for k in range(4)
        ]
        structured = [
            (ASSET_STRUCTURED, f"DSN-{code}-{n:02d}", "-", f"Demo {name} Bank PCL")
            for name, code in BANKS for n in range(1, 4)
        ]
        return {
            "th_equity": th_equity, "corp_bond": corp_bond, "gov_bond": gov_bond, "bot_bill": bot_bill,
            "deposit": deposit, "foreign_fund": foreign_fund, "master_fund": master_fund,
            "foreign_debt": foreign_debt, "structured": structured,
        }

    def holdings_by_period(self, plan: FundPlan) -> dict[str, list[dict]]:
        """Twelve quarters, oldest first: weights drift, securities enter and leave."""
        rng = self.sub_rng("holdings", plan.proj_id)
        profile = plan.kind.portfolio
        feeder_150 = plan.kind.code == "GF" and plan.amc_index == 0
        with_nav_line = rng.random() < 0.3 or feeder_150
        nav = rng.uniform(3e8, 2.5e10)
        five_decimals = rng.random() < 0.3
        if profile == "feeder":
            lines_by_quarter = self.feeder_quarters(rng, feeder_150)
        else:
            lines_by_quarter = self.drifting_quarters(rng, profile, with_nav_line)
        out: dict[str, list[dict]] = {}
        for period, lines in zip(reversed(self.periods), lines_by_quarter):
            end = quarter_end(period)
            stamp = update_stamp(rng, end + timedelta(days=rng.randint(18, 55)))
            as_of = end.isoformat()
            nav *= math.exp(rng.gauss(0.01, 0.08))
            rows = []
            for (asset_id, code, isin, issuer), pct in lines:
                value = nav * pct / 100.0
                rows.append({
                    "last_upd_date": stamp, "as_of_date": as_of, "assetliab_id": asset_id, "issue_code": code,
                    "isin_code": isin, "issuer": issuer,
                    "assetliab_value": f"{value:.5f}" if five_decimals else f"{value:.2f}",
                    "percent_nav": f"{pct:.5f}",
                })
            if with_nav_line:
                rows.append({
                    "last_upd_date": stamp, "as_of_date": as_of, "assetliab_id": ASSET_NAV_TOTAL, "issue_code": "-",
                    "isin_code": "-", "issuer": "-", "assetliab_value": f"{nav:.2f}",
                    "percent_nav": rng.choice(("100.00000", "100.00000", "99.99999", "100.00001")),
                })
            out[period] = rows
        return dict(sorted(out.items(), reverse=True))

    def drifting_quarters(self, rng: random.Random, profile: str, with_nav_line: bool) -> list[list]:
        low, high, categories, deposit_scale = PORTFOLIO_PROFILES[profile]
        high -= 1 if with_nav_line else 0
        universe: list[tuple[tuple, float]] = []
        for category, scale in categories:
            pool = self.securities[category]
            take = min(len(pool), max(high, 20))
            universe += [(sec, scale) for sec in rng.sample(pool, take)]
        rng.shuffle(universe)
        deposits = rng.sample(self.securities["deposit"], rng.randint(1, 3))
        target = min(high, low + int(rng.expovariate(1 / max((high - low) / 3, 1))))
        held: dict[tuple, float] = {}
        spare = list(universe)

        def enter() -> None:
            sec, scale = spare.pop(rng.randrange(len(spare)))
            held[sec] = scale * rng.lognormvariate(0, 0.9)

        quarters = []
        for q in range(len(self.periods)):
            if q:
                for sec in held:
                    held[sec] *= math.exp(rng.gauss(0, 0.15))
                target = max(low, min(high, target + rng.randint(-3, 3)))
                for sec in [s for s in held if rng.random() < 0.08]:
                    del held[sec]
                    spare.append((sec, 1.0))
            while len(held) + len(deposits) < target and spare:
                enter()
            total = rng.uniform(99.6, 100.15)
            cash = rng.uniform(0.3, 100 * deposit_scale)
            invested = sum(held.values())
            lines = [(sec, (total - cash) * w / invested) for sec, w in sorted(held.items(), key=lambda kv: (kv[0][0], -kv[1]))]
            split = [rng.uniform(0.2, 1.0) for _ in deposits]
            lines += [(dep, cash * s / sum(split)) for dep, s in zip(deposits, split)]
            quarters.append(lines)
        return quarters

    def feeder_quarters(self, rng: random.Random, feeder_150: bool) -> list[list]:
        """A feeder fund: one master fund, currency forwards and cash.

        The one 150-percent feeder lists its forwards at notional value, which is what the real
        data has been seen to do; the others list their fair value.
        """
        master = rng.choice(self.securities["master_fund"])
        deposits = rng.sample(self.securities["deposit"], 2)
        banks = [d[3] for d in self.securities["deposit"][::2]]
        quarters = []
        for period in reversed(self.periods):
            end = quarter_end(period)
            count = rng.randint(11, 16)  # with the master fund and cash: at least 15 lines
            forwards = [
                ((ASSET_FORWARD, f"FWD-USD-{(end + timedelta(days=30 * (k + 1))):%y%m%d}-{k + 1}", "-", rng.choice(banks)),
                 rng.uniform(3.5, 6.5) if feeder_150 else rng.uniform(0.01, 0.4))
                for k in range(count)
            ]
            if feeder_150:
                scale = rng.uniform(47, 53) / sum(p for _, p in forwards)
                forwards = [(sec, p * scale) for sec, p in forwards]
            base_total = rng.uniform(99.6, 100.15) - (0 if feeder_150 else sum(p for _, p in forwards))
            cash = rng.uniform(0.8, 3.0)
            other = rng.uniform(0.01, 0.3)
            lines = [(master, base_total - cash - other)] + forwards
            lines += [(deposits[0], cash * 0.7), (deposits[1], cash * 0.3)]
            lines.append(((ASSET_OTHER, "-", "-", "-"), other))
            quarters.append(lines)
        return quarters

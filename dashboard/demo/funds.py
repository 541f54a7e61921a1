"""The demo funds: which funds exist, and each one's factsheet payloads and successor details."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date, timedelta

from dashboard.demo.holdings import HoldingsBuilder
from dashboard.demo.nav_builder import NavBuilder
from dashboard.records.labels import ASSET_TYPE
from dashboard.demo.pools import (
    ACTIVE_CORE,
    ACTIVE_EXTRAS,
    ALLOCATION_ASSETS,
    AMC_NAME_EN,
    AMC_NAME_TH,
    AMC_STEMS,
    ASSET_FOREIGN_FUND,
    ASSET_NAV_TOTAL,
    BE_OFFSET,
    CLASS_EXTRA_DESC,
    CLASS_TYPES,
    COUNTRY_TH,
    FEE_BACK,
    FEE_FRONT,
    FEE_MGMT,
    FEE_REGISTRAR,
    FEE_REMARKS,
    FEE_SWITCH_IN,
    FEE_SWITCH_OUT,
    FEE_TOTAL,
    FEE_TRUSTEE,
    FORCED_KINDS,
    FUND_KINDS,
    FX_POLICIES,
    MANAGEMENT_STYLES,
    MARKET_AMC_STEMS,
    MARKET_CLASSES,
    MARKET_FUNDS,
    MARKET_KIND_WEIGHTS,
    MARKET_MULTI_KINDS,
    MARKET_STATUSES,
    FundKind,
    MASTER_FUNDS,
    NOTICES,
    NOT_SUITABLE,
    OLD_KINDS,
    OLD_STATUSES,
    PERFORMANCE_TYPES,
    PERIOD_YEARS,
    POLICY_DESC,
    REDEMP_OTHER,
    REFERENCE_PERIODS,
    RETURN_PROFILES,
    RISK_DESC,
    SUITABLE,
    TAX_SSF,
    TAX_THAI_ESG,
    UNIT_NAV,
    UNIT_TRADE,
)
from dashboard.demo.values import (
    b64,
    blank,
    invalid_b64,
    make_isin,
    month_end_before,
    num,
    successor_stamp,
    trim,
    update_stamp,
    years_between,
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


class FundBuilder(HoldingsBuilder, NavBuilder):
    """The fund side: plans, the legacy payloads of each fund, holdings, and the successor's fund details."""

    # ---- fund plan --------------------------------------------------------------------------------

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

    # ---- fund payloads ----------------------------------------------------------------------------

    def write_fund(self, plan: FundPlan) -> None:
        rng = self.sub_rng("fund", plan.proj_id)
        pid = plan.proj_id
        out = self.out
        out["funds"].append(self.fund_record(rng, plan))
        active, old = plan.status == "RG", plan.is_old
        if plan.class_suffixes:
            out["classes"][pid] = self.class_records(rng, plan)
        if not old or rng.random() < 0.5:
            out["investment"][pid] = self.investment_records(rng, plan)
        if plan.holdings:
            out["holdings"][pid] = self.holdings_by_period(plan)
        if plan.status != "CA":  # a project cancelled before registration keeps no project type
            out["project_type"][pid] = self.project_type_record(rng, plan)
        if not old:
            out["suitability"][pid] = self.suitability_record(rng, plan)
        if plan.kind.code == "FT" and not old:
            out["return_estimate"][pid] = self.return_estimate_record(rng, plan)
        self.write_nav_profile(plan)  # before the performance, which follows from it
        if active or (plan.status == "LI" and rng.random() < 0.25):
            out["performance"][pid] = self.performance_records(rng, plan)
        if not old or (plan.status == "LI" and rng.random() < 0.5):
            out["redemption"][pid] = self.redemption_record(rng, plan)
        if not old:
            out["fees"][pid] = self.fee_records(rng, plan)
        if active:
            out["allocation"][pid] = self.allocation_records(rng, plan)
        if not old or rng.random() < 0.5:
            out["urls"][pid] = self.url_record(rng, plan)

    def recent_stamp(self, rng: random.Random, plan: FundPlan, within_days: int = 400) -> str:
        if plan.is_old:
            day = (plan.cancel or date(2021, 12, 31)) + timedelta(days=rng.randint(0, 60))
        else:
            day = self.today - timedelta(days=rng.randint(1, within_days))
        return update_stamp(rng, day)

    def fund_record(self, rng: random.Random, plan: FundPlan) -> dict:
        kind, (_, stem_en, stem_th) = plan.kind, self.stems[plan.amc_index]
        term = f"{plan.term_months}M" if plan.term_months < 12 else f"{plan.term_months // 12}Y"
        registered = plan.regis is not None
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "proj_id": plan.proj_id,
            "regis_id": f"{rng.randint(1, 999):03d}/{plan.regis.year + BE_OFFSET}" if registered else blank(rng),
            # never registered: a missing date, which for cancelled projects comes as a zero date
            "regis_date": plan.regis.isoformat() if registered else ("0000-00-00" if plan.status == "CA" else blank(rng)),
            "cancel_date": plan.cancel.isoformat() if plan.cancel else rng.choice(("-", "")),
            "proj_name_th": kind.name_th.format(p=stem_th, t=term),
            "proj_name_en": kind.name_en.format(p=stem_en, t=term),
            "proj_abbr_name": plan.abbr,
            "fund_status": plan.status,
            "unique_id": self.out["amcs"][plan.amc_index]["unique_id"],
            "permit_us_investment": "Y" if rng.random() < 0.2 else "N",
            plan.flag_key: kind.country_flag if rng.random() < 0.85 else rng.choice(("2", "4")),
        }

    def class_records(self, rng: random.Random, plan: FundPlan) -> list[dict]:
        stamp = self.recent_stamp(rng, plan)
        records = []
        for suffix, name in zip(plan.class_suffixes, plan.class_names):
            th, en = CLASS_TYPES[suffix]
            records.append({
                "proj_id": plan.proj_id, "last_upd_date": stamp, "proj_abbr_name": plan.abbr,
                "class_abbr_name": name, "class_name": f"{th} ({en})",
                "class_additional_desc": rng.choice(CLASS_EXTRA_DESC),
            })
        return records

    def investment_records(self, rng: random.Random, plan: FundPlan) -> list[dict]:
        institutional = plan.retail_type in ("A", "N", "X", "H", "B")
        records = []
        for _ in plan.class_suffixes or (None,):
            first = "500000" if institutional else rng.choice(("1000", "1,000", "0.01", "1000.00", "500", "1", "-", "10000"))
            records.append({
                "last_upd_date": self.recent_stamp(rng, plan),
                "minimum_sub_ipo": first,
                "minimum_sub_ipo_cur": "บาท" if first != "-" else "-",
                "minimum_sub_ipo_addi_desc": rng.choice(("-", "", " ", None, "ลงทุนครั้งแรกผ่านช่องทางออนไลน์ขั้นต่ำ 1 บาท")),
                "minimum_sub": rng.choice(("1000", "0.01", "1000.00", "1", "-", "100")),
                "minimum_sub_cur": "บาท",
                "minimum_sub_addi_desc": blank(rng),
                "minimum_redempt": rng.choice(("0", "-", "1000", "0.01", "500.00")),
                "minimum_redempt_cur": "บาท",
                "minimum_redempt_addi_desc": blank(rng),
                "minimum_redempt_unit": rng.choice(("0", "-", "100", "0.0001", "100.0000")),
                "minimum_redempt_unit_addi_desc": blank(rng),
                "lowbal_val": rng.choice((0, 0, 1000, 500.0, 100)),
                "lowbal_val_cur": "บาท",
                "lowbal_unit": rng.choice((0, 0, 100, 0.0001, 50.0)),
            })
        return records

    def project_type_record(self, rng: random.Random, plan: FundPlan) -> dict:
        if plan.term_months:
            years, months = divmod(plan.term_months, 12)
            term = ("0", str(months), str(years)) if rng.random() < 0.7 else (str(plan.term_months * 30), "0", "0")
            flag = "Y"
        else:
            term = rng.choice((("-", "-", "-"), ("0", "0", "0"), (None, None, None), ("", "", "")))
            flag = "N"
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "proj_retail_type": plan.retail_type,
            "proj_term_flag": flag,
            "proj_term_dd": term[0],
            "proj_term_mm": term[1],
            "proj_term_yy": term[2],
        }

    def suitability_record(self, rng: random.Random, plan: FundPlan) -> dict:
        theme = plan.kind.theme
        stray_n = rng.random() < 0.3  # the line break came through as a bare "n"
        sep = "n" if stray_n else "\n"

        def encode(lines: tuple[str, ...]) -> str:
            return "" if rng.random() < 0.08 else b64(sep.join(lines))

        record = {
            "last_upd_date": self.recent_stamp(rng, plan),
            "fund_suitable_desc": encode(SUITABLE[theme]),
            "fund_not_suitable_desc": encode(tuple(rng.sample(NOT_SUITABLE, 2))),
            "important_notice": encode(NOTICES),
            "risk_spectrum_desc": encode((RISK_DESC[plan.risk], f"ลงทุนใน{ALLOCATION_ASSETS[theme][0]}เป็นหลัก")),
            "risk_spectrum": plan.risk,
        }
        if plan.kind.code == "CX":  # seen in the wild: a field that is not Base64 at all
            record["important_notice"] = invalid_b64(sep.join(NOTICES))
        return record

    def return_estimate_record(self, rng: random.Random, plan: FundPlan) -> dict:
        total = rng.uniform(1.6, 3.4)
        expense = rng.uniform(0.05, 0.3)
        years, months = divmod(plan.term_months, 12)
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "total_estimated_return": num(total),
            "annual_estimated_expense": num(expense),
            "annual_average_return": num(total - expense),
            "investment_period_year": str(years),
            "investment_period_month": str(months),
        }

    def performance_records(self, rng: random.Random, plan: FundPlan) -> list[dict]:
        as_of_day = month_end_before(self.today) if not plan.is_old else (plan.cancel or date(2021, 12, 31))
        as_of = f"{as_of_day.isoformat()} 00:00:00.0000000"
        stamp = update_stamp(rng, as_of_day + timedelta(days=rng.randint(3, 12)))
        inception = plan.regis or (as_of_day - timedelta(days=400))
        age = years_between(inception, as_of_day)
        ytd = max(years_between(date(as_of_day.year, 1, 1), as_of_day), 1 / 12)
        mu, sigma = RETURN_PROFILES[plan.kind.theme]
        has_benchmark = plan.kind.theme not in ("term", "complex")
        # One market path per fund: the classes differ only by their fees.
        base = {}
        for period in REFERENCE_PERIODS:
            years = {"year to date": ytd, "inception date": age}.get(period) or PERIOD_YEARS[period]
            if years > age + 0.01:
                base[period] = None
                continue
            if years >= 1:
                ret = rng.gauss(mu, sigma / math.sqrt(years))
            else:
                ret = rng.gauss(mu * years, sigma * math.sqrt(years))
            vol = sigma * rng.uniform(0.75, 1.25)
            base[period] = (ret, ret + rng.gauss(0.4, 1.2), vol, vol * rng.uniform(0.85, 1.1), ret + rng.gauss(0, 1.5))
        labels = plan.class_names or [plan.perf_class_label]
        decimals = 4 if rng.random() < 0.2 else 2
        # An active fund's own returns follow from its NAV series (dashboard/demo/nav.py), to the decimals shown.
        from_nav = self.nav_returns(plan, as_of_day) if not plan.is_old else None
        records = []
        for n, label in enumerate(labels):
            fee_drag = 0.15 * n
            for t, type_desc in enumerate(PERFORMANCE_TYPES):
                for period in REFERENCE_PERIODS:
                    values = base[period]
                    if values is None or (t in (1, 3) and not has_benchmark):
                        val = None
                    elif t == 4 and rng.random() < 0.15:
                        val = None
                    else:
                        v = values[t] - (fee_drag if t == 0 else 0.0)
                        val = num(v, decimals)
                    if t == 0 and from_nav is not None and from_nav.get(label, {}).get(period) is not None:
                        val = num(from_nav[label][period], decimals)
                    records.append({
                        "last_upd_date": stamp, "class_abbr_name": label, "performance_type_desc": type_desc,
                        "reference_period": period, "performance_val": val, "as_of_date": as_of,
                    })
        return records

    def redemption_record(self, rng: random.Random, plan: FundPlan) -> dict:
        code = plan.redemp_period
        scheduled = code in ("E", "T")
        settle = {"money": "T+1", "foreign": "T+5", "term": "T+5", "gold": "T+4"}.get(plan.kind.theme, rng.choice(("T+2", "T+3", "T+3")))
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "redemp_period": code,
            "redemp_period_oth": rng.choice(REDEMP_OTHER) if code == "9" else rng.choice(("-", "", None)),
            "settlement_period": settle,
            "buying_cut_off_time": "-" if scheduled else rng.choice(("15:30", "15:30", "15:00", "16:00", "14:00")),
            "selling_cut_off_time": "-" if scheduled else rng.choice(("15:30", "15:30", "15:00", "12:00")),
        }

    def fee_records(self, rng: random.Random, plan: FundPlan) -> list[dict]:
        mgmt_ceiling = plan.kind.mgmt_fee * rng.uniform(0.9, 1.2)
        records = []
        for n, label in enumerate(plan.class_names or [plan.perf_class_label]):
            stamp = self.recent_stamp(rng, plan)
            mgmt = mgmt_ceiling * rng.uniform(0.55, 0.85) * (0.8 if n and rng.random() < 0.5 else 1.0)
            trustee = rng.uniform(0.015, 0.06)
            registrar = rng.uniform(0.05, 0.15)
            rows = [
                (FEE_FRONT, trim(rng.choice((1.0, 1.5, 2.0, 3.0))), UNIT_TRADE, rng.choice(("ยกเว้น", "0", "1.00", "-", "0.50"))),
                (FEE_BACK, rng.choice(("1.00", "2.00", "ไม่เกิน 1.50")), UNIT_TRADE, rng.choice(("ยกเว้น", "-", "0", "0.25"))),
                (FEE_MGMT, trim(mgmt_ceiling, 4), UNIT_NAV, trim(mgmt, 4)),
                (FEE_TRUSTEE, trim(trustee * 1.6, 4), UNIT_NAV, trim(trustee, 4)),
                (FEE_REGISTRAR, rng.choice((trim(registrar * 1.5, 4), "0.25 - 1.00")), UNIT_NAV, trim(registrar, 4)),
                (FEE_TOTAL, trim(mgmt_ceiling * 1.5 + 1.0, 3), UNIT_NAV, trim(mgmt + trustee + registrar + rng.uniform(0.01, 0.1), 4)),
            ]
            if rng.random() < 0.5:
                rows.insert(2, (FEE_SWITCH_IN, "ไม่เกิน 1.50", UNIT_TRADE, rng.choice(("ยกเว้น", "-"))))
                rows.insert(3, (FEE_SWITCH_OUT, "ไม่เกิน 1.50", UNIT_TRADE, rng.choice(("ยกเว้น", "-"))))
            if plan.status == "SE":  # not charged yet: only the prospectus ceilings are known
                rows = [(desc, rate, unit, "-") for desc, rate, unit, _ in rows]
            for desc, rate, unit, actual in rows:
                remark = rng.choice(FEE_REMARKS) if rng.random() < 0.15 else rng.choice(("-", "", None))
                if actual == "ยกเว้น":
                    remark = "ปัจจุบันยกเว้นการเรียกเก็บ"
                records.append({
                    "last_upd_date": stamp, "class_abbr_name": label, "fee_type_desc": desc,
                    "rate": rate, "rate_unit": unit,
                    "actual_value": actual, "actual_value_unit": "-" if actual == "-" else unit,
                    "fee_other_desc": remark,
                })
        return records

    def allocation_records(self, rng: random.Random, plan: FundPlan) -> list[dict]:
        themed = self.themed_allocation(rng, plan)
        quarters = self.out["holdings"].get(plan.proj_id)
        return allocation_of_holdings(quarters[max(quarters)], themed[0]["last_upd_date"]) if quarters else themed

    def themed_allocation(self, rng: random.Random, plan: FundPlan) -> list[dict]:
        """An allocation of the fund's theme, for a fund that publishes no holdings."""
        names = ALLOCATION_ASSETS[plan.kind.theme]
        count = rng.randint(min(3, len(names)), min(8, len(names)))
        chosen = names[:count]
        weights = [rng.uniform(40, 90)] + [rng.uniform(0.5, 25) for _ in chosen[1:]]
        scale = 100.0 / sum(weights)
        ratios = [round(w * scale, 2) for w in weights]
        ratios[0] = round(ratios[0] + 100.0 - sum(ratios), 2) + rng.choice((0.0, 0.0, 0.01, -0.01))
        stamp = self.recent_stamp(rng, plan)
        return [
            {"last_upd_date": stamp, "asset_seq": str(i + 1), "asset_name": name, "asset_ratio": num(ratio)}
            for i, (name, ratio) in enumerate(zip(chosen, ratios))
        ]

    def url_record(self, rng: random.Random, plan: FundPlan) -> dict:
        stamp = self.recent_stamp(rng, plan)
        if plan.is_old or rng.random() < 0.4:
            return {"last_upd_date": stamp, "url_halfyear_report": "-", "url_annual_report": "-", "url_factsheet": "-"}
        amc = self.stems[plan.amc_index][0].lower()
        base = f"https://demo.invalid/{amc}/{plan.abbr.lower()}"
        return {
            "last_upd_date": stamp,
            "url_halfyear_report": f"{base}/semi-annual-report.pdf" if rng.random() < 0.7 else "-",
            "url_annual_report": f"{base}/annual-report.pdf",
            "url_factsheet": f"{base}/factsheet.pdf",
        }

    # ---- no-data answers --------------------------------------------------------------------------

    def choose_empty_200(self, plans: list[FundPlan]) -> None:
        """A few no-data cases that answer 200 with an empty body instead of 204."""
        out = self.out
        rng = self.sub_rng("empty200")
        candidates = {
            "E4": [p.proj_id for p in plans if p.proj_id not in out["classes"] and p.status == "RG"],
            "E6": [p.proj_id for p in plans if p.proj_id not in out["holdings"] and p.status == "RG"],
            "E9": [p.proj_id for p in plans if p.proj_id not in out["return_estimate"] and p.status == "RG"],
            "E10": [p.proj_id for p in plans if p.proj_id not in out["performance"] and p.status == "LI"],
            "E12": [p.proj_id for p in plans if p.proj_id not in out["fees"] and p.status == "EX"],
        }
        for endpoint_id, ids in candidates.items():
            if ids:
                out["empty_200"].add((rng.choice(ids), endpoint_id))

    # ---- what only the successor layout publishes -------------------------------------------------

    def build_successor_funds(self, plans: list[FundPlan]) -> None:
        """The companies and fund details only the successor layout publishes. Every draw comes from
        streams named "successor…", so adding or changing this never changes a legacy record."""
        out = self.out
        rng = self.sub_rng("successor")
        spaced = set(rng.sample(range(len(out["amcs"])), min(3, len(out["amcs"]))))
        for i, amc in enumerate(out["amcs"]):
            out["successor_amcs"].append({
                "unique_id": amc["unique_id"],
                "comp_name_en": amc["name_en"] + (" " if i in spaced else ""),  # seen live: a trailing space
                "comp_name_th": amc["name_th"],
                "last_upd_date": successor_stamp(rng, self.today - timedelta(days=rng.randint(1, 30))),
            })
        holders = sorted(p.proj_id for p in plans if p.proj_id in out["holdings"])
        code_spelling = set(rng.sample(holders, min(2, len(holders))))
        factsheet_kinds = ("investment", "suitability", "performance", "redemption", "fees", "allocation")
        with_factsheet = [p.proj_id for p in plans if any(p.proj_id in out[k] for k in factsheet_kinds)]
        older = set(rng.sample(with_factsheet, min(len(with_factsheet), max(3, len(with_factsheet) // 3))))
        esg = [p for p in plans if p.kind.code == "TESG"]
        if len(esg) < 2:  # "a few" Thai ESG classes in every data set
            spare = [p for p in plans if p.status == "RG" and not p.class_suffixes and p.kind.code in ("EQ", "DIV")]
            esg += spare[: 2 - len(esg)]
        esg_ids = {p.proj_id for p in esg}
        self.fund_index = {f["proj_id"]: f for f in out["funds"]}
        for plan in esg:
            if plan.kind.code != "TESG":  # a fund given the Thai ESG incentive is named as one
                fund = self.fund_index[plan.proj_id]
                fund["proj_name_en"] = f"{fund['proj_name_en'].removesuffix(' Fund')} Thai ESG Fund"
                fund["proj_name_th"] = f"{fund['proj_name_th']} ไทยเพื่อความยั่งยืน"
        for plan in plans:
            out["fund_details"][plan.proj_id] = self.fund_details(
                plan, plan.proj_id in code_spelling, plan.proj_id in older, plan.proj_id in esg_ids)

    def fund_details(self, plan: FundPlan, code_spelling: bool, older: bool, esg: bool) -> dict:
        rng = self.sub_rng("successor", plan.proj_id)
        today, kind, code = self.today, plan.kind, plan.kind.code
        fund = self.fund_index[plan.proj_id]
        flag = fund.get("invest_country_flage", fund.get("invest_country_flag"))
        if plan.regis:
            init = plan.regis - timedelta(days=rng.randint(7, 45))
        else:
            year = int(plan.proj_id[-4:]) - BE_OFFSET
            init = min(date(year, rng.randint(1, 12), rng.randint(1, 28)), today - timedelta(days=5))
        master = country = None
        if code == "GF":
            rows = next(iter(self.out["holdings"].get(plan.proj_id, {}).values()), [])
            funds = [r for r in rows if r["assetliab_id"] == ASSET_FOREIGN_FUND]
            if funds:
                top = max(funds, key=lambda r: float(r["percent_nav"]))
                master, country = top["issuer"], COUNTRY_TH.get(top["isin_code"][:2], "ลักเซมเบิร์ก")
            else:
                master, country = f"Demo {rng.choice(MASTER_FUNDS)} Master Fund I-Acc USD", "ลักเซมเบิร์ก"
        elif code == "GOLD":
            master, country = "Demo World Gold Trust", COUNTRY_TH["US"]
        asset = ALLOCATION_ASSETS[kind.theme][0]
        policy_html = (
            f"<p>กองทุนมีนโยบายลงทุนใน{asset}&nbsp;โดยเฉลี่ยในรอบปีบัญชีไม่น้อยกว่า 80% ของมูลค่าทรัพย์สินสุทธิ</p>\r\n"
            f"<p>ส่วนที่เหลืออาจลงทุนในเงินฝากและตราสารตลาดเงิน</p>\r\n<p>(ข้อมูลสมมติเพื่อการสาธิต / demo data)</p>"
        )
        styles = MANAGEMENT_STYLES.get(code, ("AM",))
        classes = {}
        for n, name in enumerate(plan.class_names or ["main"]):
            suffix = name.rsplit("-", 1)[-1] if plan.class_suffixes else ""
            if esg:  # every class of a Thai ESG fund carries the incentive, as every class of an SSF fund does
                tax = TAX_THAI_ESG
            elif suffix == "SSF" or code == "SSF":
                tax = TAX_SSF
            else:
                tax = ""
            body = f"{plan.proj_id[1:5]}{'ABCDEFGH'[n]}{plan.proj_id[-3:]}0"
            classes[name] = {
                "fund_class_tax_incentive_type": tax,
                "fund_class_isin_code": make_isin("TH", body) if rng.random() < 0.85 else None,
            }
        if plan.status == "SE":
            start, prospectus = today - timedelta(days=rng.randint(3, 20)), "IPO"
        elif plan.is_old:
            start, prospectus = plan.cancel or date(2021, 12, 31), "Monthly"
        else:
            start = month_end_before(today)
            prospectus = "SignificantFactsheet" if rng.random() < 0.15 else "Monthly"
        factsheet = {
            "start_date": start.isoformat(), "end_date": None, "prospectus_type": prospectus,
            "last_upd_date": successor_stamp(rng, min(start + timedelta(days=rng.randint(1, 12)), today)),
        }
        previous = None
        if older:
            older_start = month_end_before(start)
            previous = {
                "start_date": older_start.isoformat(), "end_date": (start - timedelta(days=1)).isoformat(),
                "prospectus_type": "Monthly",
                "last_upd_date": successor_stamp(rng, older_start + timedelta(days=rng.randint(1, 12))),
                "drift_seed": rng.randrange(1_000_000),
            }
        url_dates = [start, month_end_before(start)]
        if rng.random() < 0.5:
            url_dates.append(month_end_before(url_dates[-1]))
        return {
            "init_date": init.isoformat(),
            "policy_desc": POLICY_DESC[kind.theme],
            "investment_policy_desc": None if plan.is_old and rng.random() < 0.4 else policy_html,
            "management_style": None if plan.is_old and rng.random() < 0.4 else rng.choice(styles),
            "feederfund_master_fund": master,
            "feederfund_country": country,
            "exchange_rate_protection_policy": rng.choice(FX_POLICIES) if flag in ("1", "2", "4") else rng.choice((None, "")),
            "last_upd_date": successor_stamp(rng, min(init + timedelta(days=rng.randint(30, 4000)), today)),
            "classes": classes,
            "factsheet": factsheet,
            "older_factsheet": previous,
            "url_dates": [d.isoformat() for d in url_dates],
            "holdings_keys": ("assetliab_code", "market_value") if code_spelling else ("assetliab_id", "assetliab_value"),
            "performance_as_numbers": rng.random() < 0.5,
        }


def allocation_of_holdings(rows: list[dict], stamp: str) -> list[dict]:
    """The factsheet's asset allocation of a fund that publishes holdings: its newest quarter's lines
    (the NAV total left out) summed by asset type, largest first, named as the factsheets name them."""
    shares: dict[str, float] = {}
    for row in rows:
        code = str(row["assetliab_id"])
        if code != ASSET_NAV_TOTAL:
            shares[code] = shares.get(code, 0.0) + float(row["percent_nav"])
    ordered = sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))
    return [{"last_upd_date": stamp, "asset_seq": str(n), "asset_name": ASSET_TYPE[code][0], "asset_ratio": num(share)}
            for n, (code, share) in enumerate(ordered, start=1)]


def fitting_classes(kind_code: str, suffixes) -> tuple[str, ...]:
    """Class suffixes, sorted, that fit the fund: a retirement (RMF) fund has no savings-fund (SSF) class;
    the first class type it lacks stands in (drawn the same way, so nothing else in the data set moves)."""
    chosen = list(suffixes)
    if kind_code == "RMF" and "SSF" in chosen:
        chosen[chosen.index("SSF")] = next(c for c in CLASS_TYPES if c not in chosen and c != "SSF")
    return tuple(sorted(chosen))

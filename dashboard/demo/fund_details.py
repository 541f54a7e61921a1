"""The demo funds' details only the successor layout publishes: companies as it names them, and each
fund's inception, policy, feeder fund, class tax incentives and ISINs, and factsheet dates."""

from __future__ import annotations

import random
from datetime import date, timedelta

from dashboard.demo.context import BuildContext
from dashboard.demo.fund_plans import FundPlan
from dashboard.demo.pools import (
    ALLOCATION_ASSETS,
    ASSET_FOREIGN_FUND,
    BE_OFFSET,
    COUNTRY_TH,
    FX_POLICIES,
    MANAGEMENT_STYLES,
    MASTER_FUNDS,
    POLICY_DESC,
    TAX_SSF,
    TAX_THAI_ESG,
)
from dashboard.demo.values import make_isin, month_end_before, successor_stamp


class SuccessorFundDetails(BuildContext):
    """The generator's part for what only the successor layout publishes of a fund: its company names as
    the successor spells them and each fund's details (inception, policy, classes, factsheet dates)."""

    fund_index: dict[str, dict]

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
        """One fund's successor details; every draw from its own "successor" stream, in a fixed order."""
        rng = self.sub_rng("successor", plan.proj_id)
        today, kind, code = self.today, plan.kind, plan.kind.code
        fund = self.fund_index[plan.proj_id]
        flag = fund.get("invest_country_flage", fund.get("invest_country_flag"))
        init = self._inception(rng, plan)
        master, country = self._master_fund(rng, plan)
        asset = ALLOCATION_ASSETS[kind.theme][0]
        policy_html = (
            f"<p>กองทุนมีนโยบายลงทุนใน{asset}&nbsp;โดยเฉลี่ยในรอบปีบัญชีไม่น้อยกว่า 80% ของมูลค่าทรัพย์สินสุทธิ</p>\r\n"
            f"<p>ส่วนที่เหลืออาจลงทุนในเงินฝากและตราสารตลาดเงิน</p>\r\n<p>(ข้อมูลสมมติเพื่อการสาธิต / demo data)</p>"
        )
        styles = MANAGEMENT_STYLES.get(code, ("AM",))
        classes = self._class_details(rng, plan, esg)
        start, factsheet, previous = self._factsheets(rng, plan, older)
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

    def _inception(self, rng: random.Random, plan: FundPlan) -> date:
        """The day the fund was set up: weeks before its registration, or in the year its id names."""
        if plan.regis:
            return plan.regis - timedelta(days=rng.randint(7, 45))
        year = int(plan.proj_id[-4:]) - BE_OFFSET
        return min(date(year, rng.randint(1, 12), rng.randint(1, 28)), self.today - timedelta(days=5))

    def _master_fund(self, rng: random.Random, plan: FundPlan) -> tuple[str | None, str | None]:
        """A feeder fund's master fund and its country: the largest foreign fund it holds, else one drawn."""
        code = plan.kind.code
        if code == "GF":
            rows = next(iter(self.out["holdings"].get(plan.proj_id, {}).values()), [])
            funds = [r for r in rows if r["assetliab_id"] == ASSET_FOREIGN_FUND]
            if funds:
                top = max(funds, key=lambda r: float(r["percent_nav"]))
                return top["issuer"], COUNTRY_TH.get(top["isin_code"][:2], "ลักเซมเบิร์ก")
            return f"Demo {rng.choice(MASTER_FUNDS)} Master Fund I-Acc USD", "ลักเซมเบิร์ก"
        if code == "GOLD":
            return "Demo World Gold Trust", COUNTRY_TH["US"]
        return None, None

    @staticmethod
    def _class_details(rng: random.Random, plan: FundPlan, esg: bool) -> dict[str, dict]:
        """Each class's tax incentive and ISIN (most classes have one)."""
        code = plan.kind.code
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
        return classes

    def _factsheets(self, rng: random.Random, plan: FundPlan, older: bool) -> tuple[date, dict, dict | None]:
        """The current factsheet's start and record, and the one before it when the fund has an older one."""
        today = self.today
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
        return start, factsheet, previous

"""The demo funds: each one's legacy factsheet payloads, built from its plan (`fund_plans`), with its
holdings (`holdings`), NAV history (`nav_builder`) and successor details (`fund_details`)."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

from dashboard.demo.fund_details import SuccessorFundDetails
from dashboard.demo.fund_plans import FundPlan, FundPlanner
from dashboard.demo.holdings import HoldingsBuilder
from dashboard.demo.nav_builder import NavBuilder
from dashboard.demo.pools import (
    ALLOCATION_ASSETS,
    ASSET_NAV_TOTAL,
    BE_OFFSET,
    CLASS_EXTRA_DESC,
    CLASS_TYPES,
    FEE_BACK,
    FEE_FRONT,
    FEE_MGMT,
    FEE_REGISTRAR,
    FEE_REMARKS,
    FEE_SWITCH_IN,
    FEE_SWITCH_OUT,
    FEE_TOTAL,
    FEE_TRUSTEE,
    NOTICES,
    NOT_SUITABLE,
    PERFORMANCE_TYPES,
    PERIOD_YEARS,
    REDEMP_OTHER,
    REFERENCE_PERIODS,
    RETURN_PROFILES,
    RISK_DESC,
    SUITABLE,
    UNIT_NAV,
    UNIT_TRADE,
)
from dashboard.demo.values import b64, blank, invalid_b64, month_end_before, num, trim, update_stamp, years_between
from dashboard.records.labels import ASSET_TYPE


class FundBuilder(FundPlanner, SuccessorFundDetails, HoldingsBuilder, NavBuilder):
    """The fund side: plans, the legacy payloads of each fund, holdings, and the successor's fund details."""

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

"""The successor simulator's fund endpoints (`/v2/fund/...`): rows converted from the demo's legacy records.

Status words instead of codes, JSON numbers, one profile row per unit class (`main` for a fund
without classes), Thai dealing-period text, padded currencies, plain risk text, the documented fee
spellings (`records.labels.SPELLINGS`), dropped fields gone.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from dashboard.demo.dataset import DemoDataset
from dashboard.demo.pools import SUCCESSOR_STATUS
from dashboard.records.labels import FACTSHEET_FEE_KINDS, fee_type_key, fee_type_text
from dashboard.demo.successor_values import (
    as_float,
    date_or_null,
    drift_rng,
    fee_number,
    int_or_null,
    is_blank,
    json_number,
    lowbal_unit,
    month_end_before,
    null_or_empty,
    number_text,
    nudge,
    padded_currency,
    plain_text,
)

MAIN_CLASS = "main"  # fund_class_name of a fund without unit classes
STOPPED_UPDATING = "2022-05-01"  # fields of funds liquidated before this are null on the current service

# holdings asset/liability code -> its Thai description (assetliab_desc)
ASSETLIAB_DESC = {
    "101": "หุ้นสามัญ",
    "104": "หน่วยลงทุน",
    "201": "พันธบัตรรัฐบาล",
    "202": "ตั๋วเงินคลังและพันธบัตรธนาคารแห่งประเทศไทย",
    "211": "หุ้นกู้",
    "221": "ตราสารหนี้ต่างประเทศ",
    "301": "เงินฝากธนาคาร",
    "401": "หน่วยลงทุนของกองทุนต่างประเทศ",
    "501": "สัญญาซื้อขายล่วงหน้า (Forward)",
    "601": "หุ้นกู้อนุพันธ์ (Structured Note)",
    "701": "สินทรัพย์อื่นๆ/หนี้สินอื่นๆ",
    "903": "มูลค่าทรัพย์สินสุทธิ (NAV)",
}
SUBSCRIPTION_OPEN = "ทุกวันทำการ"
SUBSCRIPTION_IPO_ONLY = "เฉพาะช่วงเสนอขายครั้งแรก (IPO)"


class FundRows:
    """The fund endpoints' rows of one request, converted from the legacy records of `self.ds` (a
    `DemoDataset`); fee lines in the form `self.fee_spelling` names (labels.FEE_SPELLING_FORMS)."""

    ds: DemoDataset
    fee_spelling: str = "thai_english"

    def __init__(self, dataset: DemoDataset):
        self.ds = dataset

    # ---- per-fund basics ----

    def details(self, proj_id: str) -> dict:
        found = self.ds.fund_details.get(proj_id)
        if found is not None:
            return found
        today = self.ds.today or date.today()
        start = month_end_before(today)
        fund = self.ds.fund(proj_id) or {}
        stamp = fund.get("last_upd_date") or f"{start.isoformat()}T00:00:00"
        return {
            "init_date": None, "policy_desc": None, "investment_policy_desc": None, "management_style": None,
            "feederfund_master_fund": None, "feederfund_country": None, "exchange_rate_protection_policy": None,
            "last_upd_date": stamp,
            "classes": {name: {"fund_class_tax_incentive_type": "", "fund_class_isin_code": None}
                        for name in self.class_names(proj_id)},
            "factsheet": {"start_date": start.isoformat(), "end_date": None, "prospectus_type": "Monthly",
                          "last_upd_date": stamp},
            "older_factsheet": None,
            "url_dates": [start.isoformat(), month_end_before(start).isoformat()],
            "holdings_keys": ("assetliab_id", "assetliab_value"),
            "performance_as_numbers": False,
        }

    def class_names(self, proj_id: str) -> list[str]:
        return [c.get("class_abbr_name") for c in self.ds.classes.get(proj_id) or [] if c.get("class_abbr_name")] or [MAIN_CLASS]

    def class_label(self, proj_id: str, legacy_label: object) -> str:
        """The successor class name of a legacy class_abbr_name ("-", "1", "main" -> main)."""
        if not self.ds.classes.get(proj_id) or is_blank(legacy_label):
            return MAIN_CLASS
        return str(legacy_label)

    def versions(self, proj_id: str) -> list[tuple[dict, int | None]]:
        """The factsheet versions of a fund, newest (in force, end_date null) first, with a drift seed."""
        details = self.details(proj_id)
        out = [(details["factsheet"], None)]
        older = details.get("older_factsheet")
        if older:
            out.append((older, older.get("drift_seed", 0)))
        return out

    def proj_ids(self, filters: dict[str, str], payload: dict) -> list[str]:
        if "proj_id" in filters:
            return [filters["proj_id"]] if filters["proj_id"] in payload else []
        ordered = [f.get("proj_id") for f in self.ds.funds]
        known = set(ordered)
        return [p for p in ordered if p in payload] + [p for p in payload if p not in known]

    @staticmethod
    def dated(proj_id: str, version: dict, **fields) -> dict:
        return {"proj_id": proj_id, **fields, "start_date": version["start_date"], "end_date": version["end_date"],
                "prospectus_type": version["prospectus_type"]}

    # ---- fund endpoints ----

    def amcs(self, filters: dict) -> list[dict]:
        if self.ds.successor_amcs:
            return [dict(a) for a in self.ds.successor_amcs]
        return [{"unique_id": a["unique_id"], "comp_name_en": a["name_en"], "comp_name_th": a["name_th"],
                 "last_upd_date": None} for a in self.ds.amcs]

    def profiles(self, filters: dict) -> list[dict]:
        companies = {a["unique_id"]: a for a in self.amcs({})}
        rows = []
        for fund in self.ds.funds:
            pid = fund.get("proj_id")
            company = companies.get(fund.get("unique_id"), {})
            if not self._project_matches(fund, filters) or not self._company_matches(fund, company, filters):
                continue
            details = self.details(pid)
            ptype = self.ds.project_type.get(pid) or {}
            status = SUCCESSOR_STATUS.get(fund.get("fund_status"), fund.get("fund_status"))
            if "fund_status" in filters and status != filters["fund_status"]:
                continue
            legacy_classes = {c.get("class_abbr_name"): c for c in self.ds.classes.get(pid) or []}
            flag = fund.get("invest_country_flage", fund.get("invest_country_flag"))
            cancel = fund.get("cancel_date")
            if fund.get("fund_status") == "LI" and str(cancel or "9999") < STOPPED_UPDATING:
                # a fund wound up before the fields were kept up: these come null (captured, M0001_2558)
                flag, ptype = None, {}
            for name in self.class_names(pid):
                if "fund_class_name" in filters and filters["fund_class_name"].casefold() not in name.casefold():
                    continue
                legacy = legacy_classes.get(name)
                extra = details["classes"].get(name, {})
                rows.append({
                    "unique_id": fund.get("unique_id"),
                    "comp_name_th": company.get("comp_name_th"),
                    "comp_name_en": company.get("comp_name_en"),
                    "proj_id": pid,
                    "regis_id": None if is_blank(fund.get("regis_id")) else fund.get("regis_id"),
                    "init_date": details.get("init_date"),
                    "regis_date": date_or_null(fund.get("regis_date")),
                    "cancel_date": date_or_null(cancel) or ("" if cancel == "" else None),
                    "proj_name_th": fund.get("proj_name_th"),
                    "proj_name_en": fund.get("proj_name_en"),
                    "proj_abbr_name": fund.get("proj_abbr_name"),
                    "fund_status": status,
                    "invest_country_flag": None if is_blank(flag) else flag,
                    "proj_retail_type": ptype.get("proj_retail_type"),
                    "proj_term_flag": ptype.get("proj_term_flag"),
                    "proj_term_day": int_or_null(ptype.get("proj_term_dd")),
                    "proj_term_month": int_or_null(ptype.get("proj_term_mm")),
                    "proj_term_year": int_or_null(ptype.get("proj_term_yy")),
                    "policy_desc": details.get("policy_desc"),
                    "investment_policy_desc": details.get("investment_policy_desc"),
                    "management_style": details.get("management_style"),
                    "feederfund_master_fund": details.get("feederfund_master_fund"),
                    "feederfund_country": details.get("feederfund_country"),
                    "exchange_rate_protection_policy": details.get("exchange_rate_protection_policy"),
                    "fund_class_name": name,
                    "fund_class_detail": legacy.get("class_name") if legacy else None,
                    "fund_class_description": null_or_empty(legacy.get("class_additional_desc")) if legacy else None,
                    "fund_class_tax_incentive_type": extra.get("fund_class_tax_incentive_type", ""),
                    "fund_class_isin_code": extra.get("fund_class_isin_code"),
                    "last_upd_date": details.get("last_upd_date"),
                })
        return rows

    @staticmethod
    def _project_matches(fund: dict, filters: dict) -> bool:
        text = filters.get("project_info")
        if text is None:
            return True
        needle = text.casefold()
        return text == fund.get("proj_id") or any(
            needle in str(fund.get(k) or "").casefold() for k in ("proj_name_th", "proj_name_en", "proj_abbr_name"))

    @staticmethod
    def _company_matches(fund: dict, company: dict, filters: dict) -> bool:
        text = filters.get("company_info")
        if text is None:
            return True
        needle = text.casefold()
        return text == fund.get("unique_id") or any(
            needle in str(company.get(k) or "").casefold() for k in ("comp_name_th", "comp_name_en"))

    def minimums(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.investment):
            names = self.class_names(pid)
            for version, seed in self.versions(pid):
                for n, rec in enumerate(self.ds.investment[pid]):
                    rows.append({
                        **self.dated(pid, version, fund_class_name=names[n] if n < len(names) else MAIN_CLASS),
                        "minimum_sub_ipo": json_number(rec.get("minimum_sub_ipo")),
                        "minimum_sub_ipo_cur": padded_currency(rec.get("minimum_sub_ipo_cur")),
                        "minimum_sub": json_number(rec.get("minimum_sub")),
                        "minimum_sub_cur": padded_currency(rec.get("minimum_sub_cur")),
                        "minimum_sub_unit": "",
                        "minimum_redempt": json_number(rec.get("minimum_redempt")),
                        "minimum_redempt_cur": padded_currency(rec.get("minimum_redempt_cur")),
                        "minimum_redempt_unit": "" if is_blank(rec.get("minimum_redempt_unit")) else str(rec.get("minimum_redempt_unit")),
                        "lowbal_val": json_number(rec.get("lowbal_val")),
                        "lowbal_val_cur": "THB" if rec.get("lowbal_val_cur") == "บาท" else rec.get("lowbal_val_cur"),
                        "lowbal_unit": lowbal_unit(rec.get("lowbal_unit")),
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def periods(self, filters: dict) -> list[dict]:
        from dashboard.records.labels import REDEMP_PERIOD  # imported late: it pulls in pandas

        rows = []
        for pid in self.proj_ids(filters, self.ds.redemption):
            rec = self.ds.redemption[pid]
            code = str(rec.get("redemp_period") or "").strip().upper()
            redeem_text = REDEMP_PERIOD[code][0] if code in REDEMP_PERIOD else rec.get("redemp_period")
            subscribe_text = SUBSCRIPTION_IPO_ONLY if code in ("E", "T") else SUBSCRIPTION_OPEN
            for version, _ in self.versions(pid):
                for name in self.class_names(pid):
                    rows.append({**self.dated(pid, version, fund_class_name=name), "type": "subscription",
                                 "period": subscribe_text, "redemp_period_oth": "", "settlement_period": "",
                                 "last_upd_date": version["last_upd_date"]})
                    rows.append({**self.dated(pid, version, fund_class_name=name), "type": "redemption",
                                 "period": redeem_text, "redemp_period_oth": null_or_empty(rec.get("redemp_period_oth")),
                                 "settlement_period": rec.get("settlement_period"),
                                 "last_upd_date": version["last_upd_date"]})
        return rows

    def risk(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.suitability):
            rec = self.ds.suitability[pid]
            for version, _ in self.versions(pid):
                rows.append({**self.dated(pid, version), "risk_spectrum_desc": plain_text(rec.get("risk_spectrum_desc")),
                             "risk_spectrum": rec.get("risk_spectrum"), "last_upd_date": version["last_upd_date"]})
        return rows

    def performance(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.performance):
            as_numbers = self.details(pid).get("performance_as_numbers", False)
            for version, seed in self.versions(pid):
                rng = drift_rng(seed, pid, "performance")
                for rec in self.ds.performance[pid]:
                    legacy = rec.get("performance_val")
                    number = json_number(legacy)
                    if rng is not None and number is not None:
                        number = number + rng.gauss(0, 0.6)
                    if number is None:
                        value: Any = None if is_blank(legacy) else legacy
                    else:
                        value = float(number_text(number, str(legacy))) if as_numbers else number_text(number, str(legacy))
                    rows.append({
                        **self.dated(pid, version, fund_class_name=self.class_label(pid, rec.get("class_abbr_name"))),
                        "performance_type_desc": rec.get("performance_type_desc"),
                        "reference_period": rec.get("reference_period"),
                        "performance_value": value,
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def fees(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.fees):
            for version, seed in self.versions(pid):
                rng = drift_rng(seed, pid, "fees")
                for rec in self.ds.fees[pid]:
                    kind = fee_type_key(rec.get("fee_type_desc"))
                    if kind is not None and kind not in FACTSHEET_FEE_KINDS:
                        continue  # trustee and registrar lines: not among the factsheet fees it documents (4.14)
                    rows.append({
                        **self.dated(pid, version, fund_class_name=self.class_label(pid, rec.get("class_abbr_name"))),
                        "fee_type_desc": fee_type_text(kind, self.fee_spelling) if kind else rec.get("fee_type_desc"),
                        "rate": as_float(fee_number(rec.get("rate"))),
                        "actual_value": as_float(nudge(rng, fee_number(rec.get("actual_value")))),
                        "fee_other_desc": null_or_empty(rec.get("fee_other_desc")),
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def allocation(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.allocation):
            for version, seed in self.versions(pid):
                rng = drift_rng(seed, pid, "allocation")
                for rec in self.ds.allocation[pid]:
                    ratio = nudge(rng, json_number(rec.get("asset_ratio")), 0.1)
                    rows.append({
                        **self.dated(pid, version),
                        "asset_seq": int_or_null(rec.get("asset_seq")),
                        "asset_name": rec.get("asset_name"),
                        "asset_ratio": round(float(ratio), 2) if ratio is not None else None,
                        "last_upd_date": version["last_upd_date"],
                    })
        return rows

    def urls(self, filters: dict) -> list[dict]:
        rows = []
        for pid in self.proj_ids(filters, self.ds.urls):
            rec = self.ds.urls[pid]
            details = self.details(pid)
            current = details["factsheet"]
            link = rec.get("url_factsheet")
            linked = not is_blank(link)
            for n, as_of in enumerate(details.get("url_dates") or [current["start_date"]]):
                rng = random.Random(f"urls:{pid}:{as_of}")
                stamp = current["last_upd_date"] if n == 0 else (
                    f"{date.fromisoformat(as_of) + timedelta(days=rng.randint(2, 12))}T{rng.randrange(24):02d}:"
                    f"{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(1, 1000):03d}")
                for name in self.class_names(pid):
                    rows.append({
                        "proj_id": pid, "fund_class_name": name, "prospectus_type": current["prospectus_type"] if n == 0 else "Monthly",
                        "amc_url_factsheet": link if linked else "",
                        "pdf_factsheet": f"https://demo.invalid/fundfactsheet/{pid}.pdf" if linked else None,
                        "as_of_date": as_of, "last_upd_date": stamp,
                    })
        return rows

    def portfolio(self, filters: dict) -> list[dict]:
        low = int(filters.get("start_period", 0))
        high = int(filters.get("end_period", 999999))
        rows = []
        for pid in self.proj_ids(filters, self.ds.holdings):
            code_key, value_key = self.details(pid).get("holdings_keys", ("assetliab_id", "assetliab_value"))
            for period, records in self.ds.holdings[pid].items():
                if not (period.isdigit() and low <= int(period) <= high):
                    continue
                for rec in records:
                    code = rec.get("assetliab_id")
                    rows.append({
                        "proj_id": pid, "period": int(period), "as_of_date": rec.get("as_of_date"),
                        code_key: code, "assetliab_desc": ASSETLIAB_DESC.get(code, ""),
                        # verbatim, "-" included: derivative and cash lines have no ISIN or issuer
                        "issue_code": rec.get("issue_code"), "isin_code": rec.get("isin_code"), "issuer": rec.get("issuer"),
                        value_key: as_float(json_number(rec.get("assetliab_value"))),
                        "percent_nav": as_float(json_number(rec.get("percent_nav"))),
                        "last_upd_date": rec.get("last_upd_date"),
                    })
        return rows

"""Fields a record gains from what the service sent: labels of its codes, ranks, flags, split fee
types, and whether an approval or a duty holds on a given day."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from dashboard.records import labels
from dashboard.records.convert import as_float, integer
from dashboard.records.fields import NAV_TOTAL_ASSETLIAB_ID
from dashboard.records.values import clean_text, is_placeholder, single_number

APPROVAL_ACTIVE, APPROVAL_EXPIRED, APPROVAL_NO_EXPIRY = "active", "expired", "no expiry"

_TRAILING_PARENTHESIS = re.compile(r"^(?P<head>.*?)\s*\((?P<tail>[^()]*)\)\s*$", re.S)


def split_fee_type(text: object) -> tuple[str | None, str | None]:
    """("ค่าธรรมเนียมการขายหน่วยลงทุน", "Front-end Fee") from "ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)"."""
    text = clean_text(text)
    if text is None:
        return None, None
    match = _TRAILING_PARENTHESIS.match(text)
    if match and re.search(r"[A-Za-z]", match["tail"]) and not re.search(r"[\u0e00-\u0e7f]", match["tail"]):
        return clean_text(match["head"]), clean_text(match["tail"])
    if re.search(r"[\u0e00-\u0e7f]", text):
        return text, None
    return None, text


def _add_labels(record: dict, field: str, enum_name: str | None = None) -> None:
    code = record.get(field)
    record[f"{field}_label_en"] = labels.label(enum_name or field, code, "en")
    record[f"{field}_label_th"] = labels.label(enum_name or field, code, "th")


def _fee_number(text: str | None) -> float | None:
    number = as_float(text)
    return number if number is not None else single_number(text)


def derive(kind: str, record: dict, raw: Mapping, today: dt.date) -> None:
    if kind == "fund":
        _add_labels(record, "fund_status")
        _add_labels(record, "invest_country_flage")
    elif kind == "holding":
        # Compared as a number: "903", "903.00", "0903" and 903 are all the NAV-total line.
        record["is_nav_total"] = integer(record.get("assetliab_id")) == NAV_TOTAL_ASSETLIAB_ID
        if raw.get("period") is not None:  # one type for a quarter: text "YYYYMM" (sent as 202606 or "202606")
            record["period"] = str(integer(raw["period"]) or raw["period"]).strip()
    elif kind == "asset_type":
        record["is_nav_total"] = integer(record.get("assetliab_code")) == NAV_TOTAL_ASSETLIAB_ID
    elif kind == "project_type":
        _add_labels(record, "proj_retail_type")
        _add_labels(record, "proj_term_flag")
    elif kind == "suitability":
        _add_labels(record, "risk_spectrum")
        record["risk_level_label"] = labels.RISK_LEVEL.get(record.get("risk_spectrum"))
        record["risk_rank"] = labels.RISK_RANK.get(record.get("risk_spectrum"))
    elif kind == "performance":
        record["is_class_fund"] = record.get("class_abbr_name") is not None
        kind_key = labels.performance_kind(record.get("performance_type_desc"))
        record["performance_kind"] = kind_key
        _add_labels(record, "performance_kind")
        period = record.get("reference_period")
        record["reference_period_order"] = labels.REFERENCE_PERIOD_ORDER.get(labels.reference_period_key(period))
        _add_labels(record, "reference_period")
    elif kind == "redemption":
        _add_labels(record, "redemp_period")
    elif kind == "fee":
        record["is_class_fund"] = record.get("class_abbr_name") is not None
        record["fee_type_th"], record["fee_type_en"] = split_fee_type(record.get("fee_type_desc"))
        record["fee_kind"] = labels.fee_type_key(record.get("fee_type_desc"))
        if record["fee_kind"] and not record["fee_type_en"]:  # a line sent in Thai alone still reads in English
            record["fee_type_en"] = labels.FEE_TYPE[record["fee_kind"]][1]
        record["rate_num"] = _fee_number(record.get("rate"))
        record["actual_value_num"] = _fee_number(record.get("actual_value"))
    elif kind == "approval":
        _add_labels(record, "privilege_type")
        record["approval_state"] = _approval_state(record.get("expire_date"), raw.get("expire_date"), today)
    elif kind == "duty":
        record["is_current"] = _is_current(record.get("action_end_date"), today)
    elif kind == "person":
        for lang in ("th", "en"):
            parts = [record.get(f"{p}_{lang}") for p in ("prefix", "givenname", "surname")]
            record[f"name_{lang}"] = " ".join(p for p in parts if p) or None
    elif kind == "company_licence":
        record["approval_state"] = _approval_state(record.get("expire_date"), raw.get("expire_date"), today)
    elif kind == "business_activity":
        _add_labels(record, "action_status")
    elif kind == "enforcement_case":
        _add_labels(record, "enforcement_type")
    if kind == "fund" and raw.get("management_style") is not None:
        record["management_style_label_en"] = labels.label("management_style", raw.get("management_style"), "en")


def _approval_state(expire: str | None, raw_expire: object, today: dt.date) -> str | None:
    if expire is None:
        # An empty expiry means the approval lasts while the person serves; garbage means unknown.
        return APPROVAL_NO_EXPIRY if is_placeholder(raw_expire) else None
    return APPROVAL_ACTIVE if dt.date.fromisoformat(expire) >= today else APPROVAL_EXPIRED


def _is_current(end: str | None, today: dt.date) -> bool:
    # The service lists only current duties, so a duty is current unless a readable end date has passed.
    if end is None:
        return True
    return dt.date.fromisoformat(end) >= today

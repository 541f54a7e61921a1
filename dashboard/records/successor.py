"""The successor layout's items as the legacy records (E1..E20) every model, view and report reads.

The successor (`/v2/fund/...`, `/v1/license-check/...`, see shared/spec/successor-api.md) serves
the same data under other paths, field names and formats. Each function here takes the items of
one logical call and returns the payload the legacy endpoint would have sent: legacy field names,
legacy codes where the legacy record had codes (status words -> RG/SE/..., Thai dealing texts ->
redemption codes), one object where the legacy endpoint answered one. Fields the successor adds are
kept beside them (company names, policy type, management style, ISIN, tax incentive, licence
names). Fields it no longer publishes are None and named in the record's `not_published` list, so a
screen can say "not published by the current service" instead of showing a blank.

Everything here is total over odd input: items that are not objects are refused with
MalformedResponseError (so they are never cached); odd values pass to the normalisers, which read
them or give None.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Mapping
from typing import Any

from dashboard.errors import MalformedResponseError
from dashboard.records import labels
from dashboard.records.values import clean_text, is_placeholder, to_iso_date, to_iso_datetime, to_number

NOT_PUBLISHED_FIELD = "not_published"
NOT_PUBLISHED_NOTE = "not published by the current service"

# The class name of a fund that has no unit classes, in the successor (legacy used "-").
NON_CLASS_NAMES = frozenset({"main", "-", ""})

# Legacy fields each logical endpoint lost in the successor (successor-api.md 2.4).
DROPPED_FIELDS: dict[str, tuple[str, ...]] = {
    "E1": ("permit_us_investment",),
    "E2": ("permit_us_investment",),
    "E5": ("minimum_sub_ipo_addi_desc", "minimum_sub_addi_desc", "minimum_redempt_addi_desc",
           "minimum_redempt_unit_addi_desc"),
    "E8": ("fund_suitable_desc", "fund_not_suitable_desc", "important_notice"),
    "E9": ("total_estimated_return", "annual_estimated_expense", "annual_average_return", "investment_period_year",
           "investment_period_month"),
    "E11": ("buying_cut_off_time", "selling_cut_off_time"),
    "E12": ("rate_unit", "actual_value_unit"),
    "E14": ("url_halfyear_report", "url_annual_report"),
}


def _items(items: object, what: str) -> list[dict]:
    if items is None:
        return []
    if isinstance(items, Mapping):
        items = [items]
    if not isinstance(items, list):
        raise MalformedResponseError(f"the {what} answer holds {type(items).__name__}, not a list of records")
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise MalformedResponseError(f"item {index} of the {what} answer is not a record (JSON object)")
    return [dict(item) for item in items]


def _text(value: object) -> str:
    return clean_text(value) or ""


def _date_key(value: object) -> str:
    return to_iso_date(value) or ""


def _stamp_key(value: object) -> str:
    return to_iso_datetime(value) or ""


def class_name(value: object) -> str | None:
    """A unit class name; None for the marker of a fund without classes (`main`, `-`)."""
    text = clean_text(value) if not isinstance(value, str) else value.strip()
    if text is None or text.casefold() in NON_CLASS_NAMES:
        return None
    return text


def fund_status_code(value: object) -> object:
    """RG/SE/EX/CA/LI from a successor status word; legacy codes and anything else pass through."""
    if isinstance(value, str):
        code = labels.FUND_STATUS_WORDS.get(re.sub(r"\s+", "", value).upper())
        if code:
            return code
    return value


def tax_incentive(value: object) -> str | None:
    """SSF or ThaiESG from a fund_class_tax_incentive_type text (labels.SPELLINGS); None when there is
    none; any other text as sent."""
    text = clean_text(value)
    if not text:
        return None
    return labels.tax_incentive_key(text) or text


_TAG = re.compile(r"<[^>]*>")
_BLOCK_END = re.compile(r"</?(p|div|br|tr|li|h\d|table)\b[^>]*>", re.I)
_MAX_POLICY_CHARS = 4000


def html_to_text(value: object) -> str | None:
    """Plain text of an HTML policy description (tags dropped, entities read), at most 4,000 characters."""
    if not isinstance(value, str) or is_placeholder(value):
        return None
    text = _BLOCK_END.sub("\n", value)
    text = html.unescape(_TAG.sub("", text)).replace("\xa0", " ").replace("\r", "")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    text = "\n".join(line for line in lines if line).strip()
    if len(text) > _MAX_POLICY_CHARS:
        text = text[: _MAX_POLICY_CHARS - 1].rstrip() + "…"
    return text or None


def _as_legacy_base64(value: object) -> object:
    """The legacy records carried descriptions as Base64; the successor sends plain text."""
    if not isinstance(value, str) or is_placeholder(value):
        return value
    return base64.b64encode(value.strip().encode("utf-8")).decode("ascii")


def _number_text(value: object) -> object:
    """A JSON number as the compact text the legacy free-text fields held (1 -> "1", 2.5 -> "2.5")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    number = to_number(value)
    if number is None:
        return None
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def _mark(record: dict, endpoint_id: str) -> dict:
    dropped = DROPPED_FIELDS.get(endpoint_id)
    if dropped:
        for field in dropped:
            record.setdefault(field, None)
        record[NOT_PUBLISHED_FIELD] = list(dropped)
    return record


def _newest(items: list[dict]) -> dict | None:
    """The row of the factsheet in force: no end date first, then the latest start and update."""
    if not items:
        return None
    return max(items, key=lambda r: (is_placeholder(r.get("end_date")), _date_key(r.get("start_date")),
                                     _stamp_key(r.get("last_upd_date"))))


def _in_force(items: list[dict]) -> list[dict]:
    """Only the rows of the newest factsheet version (a guard when `latest` was not honoured)."""
    newest = _newest(items)
    if newest is None or "start_date" not in newest:
        return items
    key = _date_key(newest.get("start_date"))
    return [r for r in items if _date_key(r.get("start_date")) == key]


def _factsheet_fields(row: dict) -> dict:
    """The project and factsheet version a project-level factsheet row belongs to, kept beside the legacy fields."""
    return {k: row.get(k) for k in ("proj_id", "start_date", "end_date", "prospectus_type")}


# ---- profiles: E1/E2 (fund), E3/E4 (unit classes), E7 (project type) ---------------------------

_PROJECT_EXTRAS = ("comp_name_th", "comp_name_en", "init_date", "policy_desc", "management_style",
                   "feederfund_master_fund", "feederfund_country", "exchange_rate_protection_policy",
                   "proj_retail_type", "proj_term_flag")


def _by_project(items: list[dict]) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = {}
    for item in items:
        proj_id = clean_text(item.get("proj_id"))
        if proj_id:
            grouped.setdefault(proj_id, []).append(item)
    return grouped


def fund_records(items: object, *, unique_id: str | None = None) -> list[dict]:
    """E1/E2: one legacy Fund record per project from the per-class profile rows."""
    rows = _items(items, "fund profiles")
    if unique_id is not None:
        rows = [r for r in rows if _text(r.get("unique_id")) == unique_id]
    funds = []
    for proj_id, group in sorted(_by_project(rows).items()):
        first = group[0]
        record = {
            "last_upd_date": max((r.get("last_upd_date") for r in group), key=_stamp_key),
            "proj_id": proj_id,
            "regis_id": first.get("regis_id"),
            "regis_date": first.get("regis_date"),
            "cancel_date": first.get("cancel_date"),
            "proj_name_th": first.get("proj_name_th"),
            "proj_name_en": first.get("proj_name_en"),
            "proj_abbr_name": first.get("proj_abbr_name"),
            "fund_status": fund_status_code(first.get("fund_status")),
            "unique_id": first.get("unique_id"),
            "invest_country_flage": first.get("invest_country_flag", first.get("invest_country_flage")),
        }
        record.update({field: first.get(field) for field in _PROJECT_EXTRAS})
        record["proj_term_dd"] = first.get("proj_term_day")
        record["proj_term_mm"] = first.get("proj_term_month")
        record["proj_term_yy"] = first.get("proj_term_year")
        record["investment_policy"] = html_to_text(first.get("investment_policy_desc"))
        classes = sorted({c for c in (class_name(r.get("fund_class_name")) for r in group) if c})
        record["class_count"] = len(classes)
        incentives = sorted({t for t in (tax_incentive(r.get("fund_class_tax_incentive_type")) for r in group) if t})
        record["tax_incentives"] = incentives
        funds.append(_mark(record, "E1"))
    return funds


def class_records(items: object, *, proj_id: str | None = None, match: str | None = None) -> list[dict]:
    """E3/E4: legacy Unit class records; the `main` row of a fund without classes is no class.

    `match` keeps rows whose fund or class abbreviation (or name) holds that text, as the legacy
    class search did, when the answer is a union of broader searches.
    """
    rows = _items(items, "fund profiles")
    out: dict[tuple[str, str], dict] = {}
    needle = match.casefold().strip() if match else None
    for row in rows:
        name = class_name(row.get("fund_class_name"))
        pid = _text(row.get("proj_id"))
        if name is None or not pid or (proj_id is not None and pid != proj_id):
            continue
        if needle and not any(needle in _text(row.get(f)).casefold()
                              for f in ("proj_abbr_name", "fund_class_name", "proj_name_en", "proj_name_th")):
            continue
        out[(pid, name)] = {
            "proj_id": pid,
            "last_upd_date": row.get("last_upd_date"),
            "proj_abbr_name": row.get("proj_abbr_name"),
            "class_abbr_name": name,
            "class_name": row.get("fund_class_detail"),
            "class_additional_desc": row.get("fund_class_description"),
            "tax_incentive": tax_incentive(row.get("fund_class_tax_incentive_type")),
            "fund_class_tax_incentive_type": row.get("fund_class_tax_incentive_type"),
            "fund_class_isin_code": row.get("fund_class_isin_code"),
        }
    return [out[key] for key in sorted(out)]


def project_type_record(items: object, *, proj_id: str) -> dict | None:
    """E7: the project type and term, from any profile row of the project."""
    rows = [r for r in _items(items, "fund profiles") if _text(r.get("proj_id")) == proj_id]
    if not rows:
        return None
    row = rows[0]
    return {
        "last_upd_date": max((r.get("last_upd_date") for r in rows), key=_stamp_key),
        "proj_retail_type": row.get("proj_retail_type"),
        "proj_term_flag": row.get("proj_term_flag"),
        "proj_term_dd": row.get("proj_term_day"),
        "proj_term_mm": row.get("proj_term_month"),
        "proj_term_yy": row.get("proj_term_year"),
        "policy_desc": row.get("policy_desc"),
        "management_style": row.get("management_style"),
    }


# ---- factsheet parts -----------------------------------------------------------------------------


def investment_records(items: object) -> list[dict]:
    """E5: investment minimums, one per class now; padded currencies trimmed by the normaliser."""
    out = []
    for row in _in_force(_items(items, "investment minimums")):
        record = {k: row.get(k) for k in (
            "last_upd_date", "minimum_sub_ipo", "minimum_sub_ipo_cur", "minimum_sub", "minimum_sub_cur",
            "minimum_redempt", "minimum_redempt_cur", "minimum_redempt_unit", "lowbal_val", "lowbal_val_cur",
            "lowbal_unit")}
        record.update(class_abbr_name=class_name(row.get("fund_class_name")), minimum_sub_unit=row.get("minimum_sub_unit"))
        out.append(_mark(record, "E5"))
    return sorted(out, key=lambda r: r["class_abbr_name"] or "")


def holding_records(items: object) -> list[dict]:
    """E6: holdings of one quarter; the portfolio's spellings `assetliab_code`/`market_value` read too."""
    out = []
    for row in _items(items, "portfolio"):
        record = {
            "last_upd_date": row.get("last_upd_date"),
            "as_of_date": row.get("as_of_date"),
            "assetliab_id": row.get("assetliab_id", row.get("assetliab_code")),
            "issue_code": row.get("issue_code"),
            "isin_code": row.get("isin_code"),
            "issuer": row.get("issuer"),
            "assetliab_value": row.get("assetliab_value", row.get("market_value")),
            "percent_nav": row.get("percent_nav"),
            "assetliab_desc": row.get("assetliab_desc"),
            "period": row.get("period"),
            "proj_id": row.get("proj_id"),
        }
        out.append(record)
    # Rows come in no business order: largest first, then by code and security, for a stable page.
    return sorted(out, key=lambda r: (-(to_number(r["percent_nav"]) or 0), _text(r["assetliab_id"]),
                                      _text(r["issue_code"]), _text(r["isin_code"])))


def suitability_record(items: object) -> dict | None:
    """E8: the risk level of the factsheet in force; the descriptions of suitability are gone."""
    row = _newest(_items(items, "risk spectrum"))
    if row is None:
        return None
    record = {
        "last_upd_date": row.get("last_upd_date"),
        "risk_spectrum_desc": _as_legacy_base64(row.get("risk_spectrum_desc")),
        "risk_spectrum": row.get("risk_spectrum"),
        **_factsheet_fields(row),
    }
    return _mark(record, "E8")


def performance_records(items: object) -> list[dict]:
    """E10: performance by class, measure and look-back; as-of date approximated by the factsheet's start."""
    out = []
    for row in _in_force(_items(items, "performance")):
        value = row.get("performance_value", row.get("performance_val"))
        out.append({
            "last_upd_date": row.get("last_upd_date"),
            "class_abbr_name": class_name(row.get("fund_class_name", row.get("class_abbr_name"))),
            "performance_type_desc": row.get("performance_type_desc"),
            "reference_period": row.get("reference_period"),
            "performance_val": value,
            "as_of_date": row.get("as_of_date") or row.get("start_date"),
        })
    return sorted(out, key=lambda r: (r["class_abbr_name"] or "", labels.performance_kind(r["performance_type_desc"]) or "",
                                      labels.REFERENCE_PERIOD_ORDER.get(labels.reference_period_key(r["reference_period"]), 99)))


def redemption_record(items: object) -> dict | None:
    """E11: the redemption terms of the fund (its first class when classes differ).

    The dealing frequency is Thai text now: a text with a legacy label gets that code; any other
    text is "other" (code 9) with the text kept as the other-period description.
    """
    rows = [r for r in _in_force(_items(items, "dealing periods"))
            if _text(r.get("type")).casefold() in ("redemption", "")]
    if not rows:
        return None
    rows.sort(key=lambda r: (class_name(r.get("fund_class_name")) is not None, _text(r.get("fund_class_name"))))
    row = rows[0]
    text = clean_text(row.get("period", row.get("redemp_period")))
    code = labels.redemption_code(text)
    other = row.get("redemp_period_oth")
    if text and code is None:
        code = "9"
        if is_placeholder(other):
            other = text
    record = {
        "last_upd_date": row.get("last_upd_date"),
        "redemp_period": code,
        "redemp_period_oth": other,
        "settlement_period": row.get("settlement_period"),
        "redemp_period_text": text,
        "class_abbr_name": class_name(row.get("fund_class_name")),
    }
    return _mark(record, "E11")


def fee_records(items: object) -> list[dict]:
    """E12: fees per class; ceiling (`rate`) and charged (`actual_value`) stay apart, units are gone."""
    out = []
    for row in _in_force(_items(items, "fees")):
        out.append(_mark({
            "last_upd_date": row.get("last_upd_date"),
            "class_abbr_name": class_name(row.get("fund_class_name", row.get("class_abbr_name"))),
            "fee_type_desc": row.get("fee_type_desc"),
            "rate": _number_text(row.get("rate")),
            "actual_value": _number_text(row.get("actual_value")),
            "fee_other_desc": row.get("fee_other_desc"),
        }, "E12"))
    return sorted(out, key=lambda r: (r["class_abbr_name"] or "", _text(r["fee_type_desc"])))


def allocation_records(items: object) -> list[dict]:
    """E13: asset allocation of the factsheet in force, in the factsheet's order."""
    out = [{**{k: row.get(k) for k in ("last_upd_date", "asset_seq", "asset_name", "asset_ratio")}, **_factsheet_fields(row)}
           for row in _in_force(_items(items, "asset allocation"))]
    return sorted(out, key=lambda r: (to_number(r["asset_seq"]) is None, to_number(r["asset_seq"]) or 0, _text(r["asset_name"])))


def urls_record(items: object) -> dict | None:
    """E14: the newest factsheet link (the SEC's PDF, else the company's page); report links are gone."""
    rows = _items(items, "report links")
    if not rows:
        return None
    row = max(rows, key=lambda r: (_date_key(r.get("as_of_date")), _stamp_key(r.get("last_upd_date")),
                                   class_name(r.get("fund_class_name")) is None))
    link = row.get("pdf_factsheet") if not is_placeholder(row.get("pdf_factsheet")) else row.get("amc_url_factsheet")
    record = {
        "last_upd_date": row.get("last_upd_date"),
        "url_factsheet": link,
        "amc_url_factsheet": row.get("amc_url_factsheet"),
        "as_of_date": row.get("as_of_date"),
    }
    return _mark(record, "E14")


# ---- parts only the current service publishes (no legacy record; successor-api.md 4.12) -------------


def successor_only_records(kind: str, items: object) -> list[dict]:
    """Normalised records of the daily NAV ("nav"), dividend history ("dividend"), top-5 holdings
    ("top_holding") or monthly asset types ("asset_type"), one per item, in the order sent: every
    field kept, numbers as numbers, dates as ISO text, the class marker `main` as sent."""
    from dashboard.records.fields import SUCCESSOR_ONLY_KINDS  # imported late, as the record kinds are
    from dashboard.records.kinds import normalise_payload

    if kind not in SUCCESSOR_ONLY_KINDS:
        raise ValueError(f"{kind!r} is not a part only the current service publishes ({', '.join(SUCCESSOR_ONLY_KINDS)})")
    return normalise_payload(kind, _items(items, kind.replace("_", " ")), list_expected=True)


# ---- licence register ----------------------------------------------------------------------------


def _list(items: object, what: str) -> list[dict]:
    return _items(items, what)


def _one(items: object, what: str) -> dict | None:
    rows = _items(items, what)
    if not rows:
        return None
    return max(rows, key=lambda r: _stamp_key(r.get("last_upd_date")))


def licensee_records(items: object) -> list[dict]:
    return sorted(_list(items, "licensed companies"), key=lambda r: _text(r.get("unique_id")))


def person_records(items: object) -> list[dict]:
    rows = _list(items, "person search")
    return sorted(rows, key=lambda r: (_text(r.get("givenname_en")) or _text(r.get("givenname_th")), _text(r.get("unique_id"))))


# logical endpoint id -> (mapping of the items, whether the legacy answer is a list)
MAPPERS: dict[str, Callable[..., Any]] = {
    "E1": fund_records,
    "E2": fund_records,
    "E3": class_records,
    "E4": class_records,
    "E5": investment_records,
    "E6": holding_records,
    "E7": project_type_record,
    "E8": suitability_record,
    "E10": performance_records,
    "E11": redemption_record,
    "E12": fee_records,
    "E13": allocation_records,
    "E14": urls_record,
    "E15": licensee_records,
    "E16": licensee_records,
    "E17": lambda items: _list(items, "approvals"),
    "E18": lambda items: _list(items, "duties"),
    "E19": lambda items: _one(items, "enforcement action"),
    "E20": lambda items: _one(items, "investor alert"),
    "S1": person_records,
    "S2": lambda items: _list(items, "company licences"),
    "S3": lambda items: _list(items, "company personnel"),
    "S4": lambda items: _list(items, "business activities"),
    "S5": lambda items: sorted(_list(items, "enforcement cases"), key=lambda r: _text(r.get("case_id"))),
    "S6": lambda items: sorted(_list(items, "investor alerts"), key=lambda r: _text(r.get("case_id"))),
    "S7": lambda items: sorted(_list(items, "asset management companies"), key=lambda r: _text(r.get("unique_id"))),
    "S8": lambda items: _list(items, "daily NAVs"),
    "S9": lambda items: _list(items, "distributions"),
}


def to_legacy(endpoint_id: str, items: object, params: Mapping[str, str]) -> Any:
    """The legacy payload of one logical call from the successor's items (all pages joined)."""
    mapper = MAPPERS.get(endpoint_id)
    if mapper is None:
        raise MalformedResponseError(f"{endpoint_id} has no mapping from the current service's answer")
    if endpoint_id == "E2":
        return mapper(items, unique_id=params.get("unique_id"))
    if endpoint_id == "E3":
        return mapper(items, match=params.get("name"))
    if endpoint_id == "E4":
        return mapper(items, proj_id=params.get("proj_id"))
    if endpoint_id == "E7":
        return mapper(items, proj_id=params.get("proj_id"))
    return mapper(items)


def not_published(record: object, field: str) -> bool:
    """Whether a record says the service that sent it does not publish this field."""
    return isinstance(record, Mapping) and field in (record.get(NOT_PUBLISHED_FIELD) or ())

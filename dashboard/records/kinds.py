"""One normaliser per record kind: raw JSON records in, tidy JSON-safe dicts and typed DataFrames out.

A normalised record keeps every field the service sent (new fields are drift worth seeing, not
noise), gains every specification field it lacks as None, holds numbers, ISO dates and decoded text
instead of loose strings, and carries a few derived fields (labels, ranks, flags) the views need.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping

import pandas as pd

from dashboard.errors import MalformedResponseError
from dashboard.records import labels
from dashboard.records.values import (
    clean_text,
    decode_base64_text,
    is_placeholder,
    single_number,
    to_iso_date,
    to_iso_datetime,
    to_number,
)

# Each kind's fields as the specification lists them, in its order.
SPEC_FIELDS: dict[str, tuple[str, ...]] = {
    "fund": (
        "last_upd_date", "proj_id", "regis_id", "regis_date", "cancel_date", "proj_name_th", "proj_name_en",
        "proj_abbr_name", "fund_status", "unique_id", "permit_us_investment", "invest_country_flage",
    ),
    "unit_class": ("proj_id", "last_upd_date", "proj_abbr_name", "class_abbr_name", "class_name", "class_additional_desc"),
    "investment": (
        "last_upd_date", "minimum_sub_ipo", "minimum_sub_ipo_cur", "minimum_sub_ipo_addi_desc", "minimum_sub",
        "minimum_sub_cur", "minimum_sub_addi_desc", "minimum_redempt", "minimum_redempt_cur",
        "minimum_redempt_addi_desc", "minimum_redempt_unit", "minimum_redempt_unit_addi_desc", "lowbal_val",
        "lowbal_val_cur", "lowbal_unit",
    ),
    "holding": (
        "last_upd_date", "as_of_date", "assetliab_id", "issue_code", "isin_code", "issuer", "assetliab_value",
        "percent_nav",
    ),
    "project_type": ("last_upd_date", "proj_retail_type", "proj_term_flag", "proj_term_dd", "proj_term_mm", "proj_term_yy"),
    "suitability": (
        "last_upd_date", "fund_suitable_desc", "fund_not_suitable_desc", "important_notice", "risk_spectrum_desc",
        "risk_spectrum",
    ),
    "return_estimate": (
        "last_upd_date", "total_estimated_return", "annual_estimated_expense", "annual_average_return",
        "investment_period_year", "investment_period_month",
    ),
    "performance": (
        "last_upd_date", "class_abbr_name", "performance_type_desc", "reference_period", "performance_val", "as_of_date",
    ),
    "redemption": (
        "last_upd_date", "redemp_period", "redemp_period_oth", "settlement_period", "buying_cut_off_time",
        "selling_cut_off_time",
    ),
    "fee": (
        "last_upd_date", "class_abbr_name", "fee_type_desc", "rate", "rate_unit", "actual_value", "actual_value_unit",
        "fee_other_desc",
    ),
    "allocation": ("last_upd_date", "asset_seq", "asset_name", "asset_ratio"),
    "urls": ("last_upd_date", "url_halfyear_report", "url_annual_report", "url_factsheet"),
    "licensee": ("last_upd_date", "unique_id", "name_th", "name_en"),
    "approval": ("last_upd_date", "regis_sale_no", "lic_code", "effective_date", "expire_date", "privilege_type"),
    "duty": (
        "last_upd_date", "company_unique_id", "person_unique_id", "lic_action_code", "action_start_date",
        "action_end_date",
    ),
    "enforcement": (
        "last_upd_date", "enforcement_relevant_section_law", "enforcement_summarized_facts", "enforcement_date",
        "enforcement_details", "enforcement_remark",
    ),
    "alert": ("last_upd_date", "case_id", "seq_no", "license_th", "license_en"),
    # Published only by the current service (successor-api.md 4.11, 4.12).
    "person": (
        "last_upd_date", "unique_id", "regis_sale_no", "prefix_th", "givenname_th", "surname_th", "prefix_en",
        "givenname_en", "surname_en",
    ),
    "company_licence": (
        "last_upd_date", "lic_no", "lic_code", "lic_name_th", "lic_name_en", "acc_type", "apply_type",
        "effective_date", "expire_date",
    ),
    "business_activity": (
        "last_upd_date", "lic_code", "lic_name_th", "lic_name_en", "lic_action_code", "lic_action_name_th",
        "lic_action_name_en", "acc_type", "action_start_date", "action_status", "action_remark",
    ),
    "enforcement_case": ("last_upd_date", "enforcement_type", "case_id"),
    "alert_case": (
        "last_upd_date", "case_id", "disclosure_date", "name_th", "name_en", "address_th", "address_en",
        "persuade_desc", "website", "facebook", "line", "remark",
    ),
    "amc": ("unique_id", "comp_name_en", "comp_name_th", "last_upd_date"),
    # Published only by the current service, with no legacy record (successor-api.md 4.12), in captured order.
    "nav": (
        "proj_id", "unique_id", "fund_class_name", "nav_date", "net_asset", "last_val", "sell_price", "buy_price",
        "sell_swap_price", "buy_swap_price", "last_upd_date",
    ),
    "dividend": (
        "proj_id", "unique_id", "class_abbr_name", "book_close_date", "dividend_date", "dividend_value", "last_upd_date",
    ),
    "top_holding": (
        "proj_id", "start_date", "end_date", "prospectus_type", "asset_seq", "asset_name", "asset_ratio", "last_upd_date",
    ),
    "asset_type": ("proj_id", "period", "assetliab_code", "assetliab_desc", "market_value", "percent_nav"),
}
RECORD_KINDS: tuple[str, ...] = tuple(SPEC_FIELDS)
# Kinds the records layer reads (the real captures test them) that no endpoint of the product asks for yet.
UNREQUESTED_KINDS: tuple[str, ...] = ("top_holding", "asset_type")
# Kinds only the current service publishes, with no legacy record (successor-api.md 4.12).
SUCCESSOR_ONLY_KINDS: tuple[str, ...] = ("nav", "dividend", "top_holding", "asset_type")

# Value types. CODE fields also get <field>_label_en and <field>_label_th.
TEXT, NUMBER, INTEGER, DATE, DATETIME, DATE_OR_TEXT, BASE64, CODE, BOOL = (
    "text", "number", "integer", "date", "datetime", "date_or_text", "base64", "code", "bool",
)

_FIELD_TYPES: dict[str, str] = {
    "last_upd_date": DATETIME,
    **dict.fromkeys(
        (
            "minimum_sub_ipo", "minimum_sub", "minimum_redempt", "minimum_redempt_unit", "lowbal_val", "lowbal_unit",
            "assetliab_value", "percent_nav", "asset_ratio", "performance_val", "total_estimated_return",
            "annual_estimated_expense", "annual_average_return", "investment_period_year",
            "investment_period_month", "proj_term_dd", "proj_term_mm", "proj_term_yy", "net_asset", "last_val",
            "sell_price", "buy_price", "sell_swap_price", "buy_swap_price", "dividend_value", "market_value",
        ),
        NUMBER,
    ),
    "asset_seq": INTEGER,
    **dict.fromkeys(
        (
            "regis_date", "cancel_date", "as_of_date", "effective_date", "expire_date", "action_start_date",
            "action_end_date", "enforcement_date", "disclosure_date", "nav_date", "book_close_date", "dividend_date",
            "start_date", "end_date",
        ),
        DATE,
    ),
    **dict.fromkeys(("fund_suitable_desc", "fund_not_suitable_desc", "important_notice", "risk_spectrum_desc"), BASE64),
    **dict.fromkeys(
        ("fund_status", "invest_country_flage", "risk_spectrum", "proj_retail_type", "proj_term_flag", "redemp_period",
         "privilege_type", "action_status"),
        CODE,
    ),
}
# The performance as-of date is free text in the specification: an ISO date when it reads as one.
_KIND_FIELD_TYPES: dict[str, dict[str, str]] = {"performance": {"as_of_date": DATE_OR_TEXT},
                                                # a YYYYMM month, sent as a JSON integer (successor-api.md 4.12)
                                                "asset_type": {"period": INTEGER}}

# Other spellings of a field -> the payload spelling. The alias key is kept too, normalised alike.
_ALIASES: dict[str, dict[str, str]] = {
    "fund": {"invest_country_flag": "invest_country_flage"},
    "nav": {"class_abbr_name": "fund_class_name"},  # the older service's one-day NAV record
}
_COMMON_ALIASES = {"last_updated": "last_upd_date"}  # the field list's name in the alert record


def _labels_of(*fields: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{field}_label_{lang}", TEXT) for field in fields for lang in ("en", "th"))


# Fields each kind adds, with their types, in column order.
_ADDED: dict[str, tuple[tuple[str, str], ...]] = {
    "fund": _labels_of("fund_status", "invest_country_flage"),
    "holding": (("is_nav_total", BOOL),),
    "project_type": _labels_of("proj_retail_type", "proj_term_flag"),
    "suitability": (*_labels_of("risk_spectrum"), ("risk_level_label", TEXT), ("risk_rank", INTEGER)),
    "performance": (
        ("is_class_fund", BOOL),
        ("performance_kind", TEXT),
        *_labels_of("performance_kind"),
        ("reference_period_order", INTEGER),
        *_labels_of("reference_period"),
    ),
    "redemption": _labels_of("redemp_period"),
    "fee": (
        ("is_class_fund", BOOL),
        ("fee_type_th", TEXT),
        ("fee_type_en", TEXT),
        ("fee_kind", TEXT),
        ("rate_num", NUMBER),
        ("actual_value_num", NUMBER),
    ),
    "approval": (*_labels_of("privilege_type"), ("approval_state", TEXT)),
    "duty": (("is_current", BOOL),),
    "person": (("name_th", TEXT), ("name_en", TEXT)),
    "company_licence": (("approval_state", TEXT),),
    "business_activity": _labels_of("action_status"),
    "enforcement_case": _labels_of("enforcement_type"),
    "asset_type": (("is_nav_total", BOOL),),
}
ADDED_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(name for name, _type in _ADDED.get(kind, ())) for kind in RECORD_KINDS
}

# holding rows with this assetliab_id are the NAV total line, not a holding (real-world-notes.md).
NAV_TOTAL_ASSETLIAB_ID = 903

APPROVAL_ACTIVE, APPROVAL_EXPIRED, APPROVAL_NO_EXPIRY = "active", "expired", "no expiry"


def _spec_fields(kind: str) -> tuple[str, ...]:
    try:
        return SPEC_FIELDS[kind]
    except (KeyError, TypeError):
        raise ValueError(f"unknown record kind {kind!r}; known: {', '.join(RECORD_KINDS)}") from None


def field_type(kind: str, field: str) -> str | None:
    """The value type of a specification or added field of a kind; None for anything else."""
    if field in _spec_fields(kind):
        return _KIND_FIELD_TYPES.get(kind, {}).get(field) or _FIELD_TYPES.get(field, TEXT)
    return dict(_ADDED.get(kind, ())).get(field)


# --- value conversion --------------------------------------------------------------------------


def _as_float(v: object) -> float | None:
    number = to_number(v)
    if number is None:
        return None
    try:
        result = float(number)
    except OverflowError:
        return None
    return result if math.isfinite(result) else None


def _number(v: object) -> float | None:
    """A number from a numeric field; text with one number and a unit ("3 ปี", "1.5%") reads as that number."""
    result = _as_float(v)
    if result is None and isinstance(v, str) and not is_placeholder(v):
        result = single_number(v)
    return result


# Whole numbers beyond this are not exact in a float and would not fit an Int64 column anyway.
_MAX_EXACT_INTEGER = 2**53


def _integer(v: object) -> int | None:
    number = _number(v)
    if number is None or not number.is_integer() or abs(number) > _MAX_EXACT_INTEGER:
        return None
    return int(number)


def _code(field: str, v: object) -> str | None:
    if field == "privilege_type" and isinstance(v, str) and not v.strip():
        return ""  # the specification gives "" a meaning: no privilege exercised
    if is_placeholder(v):
        return None
    if field == "risk_spectrum":
        return labels.normalise_risk_code(v)
    if field == "fund_status":
        return labels.normalise_fund_status(v) or None
    code = labels.normalise_code(v)
    return code if code else None


def _convert(kind: str, field: str, v: object) -> object:
    kind_type = field_type(kind, field)
    if kind_type == NUMBER:
        return _number(v)
    if kind_type == INTEGER:
        return _integer(v)
    if kind_type == DATE:
        return to_iso_date(v)
    if kind_type == DATETIME:
        return to_iso_datetime(v)
    if kind_type == DATE_OR_TEXT:
        return to_iso_date(v) or clean_text(v)
    if kind_type == BASE64:
        return decode_base64_text(v, field=field)
    if kind_type == CODE:
        return _code(field, v)
    return clean_text(v)


def _json_safe(v: object) -> object:
    """An unknown field's value as JSON-safe data: text cleaned, non-finite numbers dropped."""
    if v is None or isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        return clean_text(v)
    if isinstance(v, Mapping):
        return {str(k): _json_safe(item) for k, item in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_safe(item) for item in v]
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return clean_text(str(v))


# --- derived fields ----------------------------------------------------------------------------

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
    number = _as_float(text)
    return number if number is not None else single_number(text)


def _derive(kind: str, record: dict, raw: Mapping, today: dt.date) -> None:
    if kind == "fund":
        _add_labels(record, "fund_status")
        _add_labels(record, "invest_country_flage")
    elif kind == "holding":
        # Compared as a number: "903", "903.00", "0903" and 903 are all the NAV-total line.
        record["is_nav_total"] = _integer(record.get("assetliab_id")) == NAV_TOTAL_ASSETLIAB_ID
        if raw.get("period") is not None:  # one type for a quarter: text "YYYYMM" (sent as 202606 or "202606")
            record["period"] = str(_integer(raw["period"]) or raw["period"]).strip()
    elif kind == "asset_type":
        record["is_nav_total"] = _integer(record.get("assetliab_code")) == NAV_TOTAL_ASSETLIAB_ID
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


def _today(today: dt.date | None) -> dt.date:
    if isinstance(today, dt.datetime):
        return today.date()
    return today if isinstance(today, dt.date) else dt.date.today()


# --- public API ---------------------------------------------------------------------------------


def normalise_record(kind: str, raw: Mapping, *, today: dt.date | None = None) -> dict:
    """A new JSON-safe dict: specification fields first (normalised, None when missing), then derived
    fields, then any unknown fields the service sent. `today` dates approval_state and is_current."""
    fields = _spec_fields(kind)
    if not isinstance(raw, Mapping):
        raise MalformedResponseError(f"a {kind} record must be a JSON object, not {_json_type(raw)}")
    source = {str(key): value for key, value in raw.items()}
    aliases = {**_COMMON_ALIASES, **_ALIASES.get(kind, {})}
    for alias, canonical in aliases.items():
        if alias in source and is_placeholder(source.get(canonical)) and canonical in fields:
            source[canonical] = source[alias]

    record: dict = {field: _convert(kind, field, source.get(field)) for field in fields}
    _derive(kind, record, source, _today(today))
    for key, value in source.items():
        if key in record:
            continue
        canonical = aliases.get(key)
        record[key] = _convert(kind, canonical, value) if canonical in fields else _json_safe(value)
    return record


def normalise_payload(
    kind: str,
    payload: object,
    *,
    list_expected: bool,
    today: dt.date | None = None,
    endpoint: str | None = None,
) -> list[dict] | dict | None:
    """Normalised records of one response body: a list for list endpoints ([] for no data), one dict
    or None for object endpoints. A body of the wrong shape raises MalformedResponseError."""
    _spec_fields(kind)
    where = f" from {endpoint}" if endpoint else ""
    if list_expected:
        if payload is None:
            return []
        if not isinstance(payload, list):
            raise MalformedResponseError(
                f"expected a list of {kind} records{where}, but the service sent {_json_type(payload)}",
                endpoint=endpoint,
            )
        records = []
        for index, item in enumerate(payload):
            if not isinstance(item, Mapping):
                raise MalformedResponseError(
                    f"item {index} of the {kind} list{where} is {_json_type(item)}, not a record (JSON object)",
                    endpoint=endpoint,
                )
            records.append(normalise_record(kind, item, today=today))
        return records
    if payload is None:
        return None
    if isinstance(payload, list):
        # Some gateways wrap a single object in a list; an empty list is "no data".
        if not payload:
            return None
        if len(payload) > 1:
            raise MalformedResponseError(
                f"expected one {kind} record{where}, but the service sent a list of {len(payload)}",
                endpoint=endpoint,
            )
        payload = payload[0]
    if not isinstance(payload, Mapping):
        raise MalformedResponseError(
            f"expected one {kind} record (JSON object){where}, but the service sent {_json_type(payload)}",
            endpoint=endpoint,
        )
    return normalise_record(kind, payload, today=today)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a JSON object"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    return f"a {type(value).__name__}"


# --- frames -------------------------------------------------------------------------------------

TEXT_DTYPE = pd.StringDtype(na_value=float("nan"))  # pandas' default "str" dtype
DATETIME_DTYPE = "datetime64[us]"  # microseconds: every year 1..9999 fits


def _to_datetime(v: object) -> dt.datetime | None:
    text = to_iso_datetime(v)
    return dt.datetime.fromisoformat(text) if text else None


def _text_or_none(v: object) -> str | None:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v if isinstance(v, str) else str(v)


_COLUMN_BUILDERS: dict[str, Callable[[list], pd.Series]] = {
    NUMBER: lambda values: pd.Series([_as_float(v) for v in values], dtype="float64"),
    INTEGER: lambda values: pd.Series(pd.array([_integer(v) for v in values], dtype="Int64")),
    DATE: lambda values: pd.Series([_to_datetime(v) for v in values], dtype=DATETIME_DTYPE),
    DATETIME: lambda values: pd.Series([_to_datetime(v) for v in values], dtype=DATETIME_DTYPE),
    DATE_OR_TEXT: lambda values: pd.Series([_to_datetime(v) for v in values], dtype=DATETIME_DTYPE),
    BOOL: lambda values: pd.Series([v is True for v in values], dtype="bool"),
}


def _column(column_type: str | None, values: list) -> pd.Series:
    builder = _COLUMN_BUILDERS.get(column_type)
    if builder is not None:
        return builder(values)
    if column_type is None:  # an unknown field: let pandas infer
        return pd.Series(values, dtype=object if all(v is None for v in values) else None)
    return pd.Series([_text_or_none(v) for v in values], dtype=TEXT_DTYPE)


def frame_columns(kind: str) -> tuple[str, ...]:
    """A kind's columns before any unknown fields: specification fields, then derived ones."""
    return _spec_fields(kind) + ADDED_FIELDS[kind]


def records_frame(kind: str, records: list[dict] | dict | None) -> pd.DataFrame:
    """Normalised records as a typed DataFrame: numbers float64, whole numbers Int64, dates and
    datetimes datetime64[us] (NaT when missing), flags bool, text the pandas string dtype.

    Columns: specification fields in specification order, derived fields, then unknown fields in
    the order first seen. An empty list gives an empty frame that still has the known columns.
    Give it normalise_record/normalise_payload output: raw Base64 fields would stay encoded.
    """
    if records is None:
        records = []
    elif isinstance(records, Mapping):
        records = [records]
    if not records:
        # Every session starts with an empty frame of each part, its own (nothing shared with other sessions).
        return _empty_frame(kind)
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise TypeError(f"record {index} is a {type(record).__name__}, not a dict")
    known = frame_columns(kind)
    extras: dict[str, None] = {}
    for record in records:
        extras.update((str(key), None) for key in record if key not in known)
    columns = known + tuple(extras)
    data = {
        column: _column(field_type(kind, column), [record.get(column) for record in records]) for column in columns
    }
    return pd.DataFrame(data, columns=list(columns), index=pd.RangeIndex(len(records)))


def _empty_frame(kind: str) -> pd.DataFrame:
    columns = frame_columns(kind)
    data = {column: _column(field_type(kind, column), []) for column in columns}
    return pd.DataFrame(data, columns=list(columns), index=pd.RangeIndex(0))

"""A field's value read into its type: numbers, whole numbers, codes, dates, decoded text; unknown
fields kept as JSON-safe data."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping

from dashboard.records import labels
from dashboard.records.fields import BASE64, CODE, DATE, DATE_OR_TEXT, DATETIME, INTEGER, NUMBER, field_type
from dashboard.records.values import (
    clean_text,
    decode_base64_text,
    is_placeholder,
    single_number,
    to_iso_date,
    to_iso_datetime,
    to_number,
)


def as_float(v: object) -> float | None:
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
    result = as_float(v)
    if result is None and isinstance(v, str) and not is_placeholder(v):
        result = single_number(v)
    return result


# Whole numbers beyond this are not exact in a float and would not fit an Int64 column anyway.
_MAX_EXACT_INTEGER = 2**53


def integer(v: object) -> int | None:
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


def convert(kind: str, field: str, v: object) -> object:
    kind_type = field_type(kind, field)
    if kind_type == NUMBER:
        return _number(v)
    if kind_type == INTEGER:
        return integer(v)
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


def json_safe(v: object) -> object:
    """An unknown field's value as JSON-safe data: text cleaned, non-finite numbers dropped."""
    if v is None or isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        return clean_text(v)
    if isinstance(v, Mapping):
        return {str(k): json_safe(item) for k, item in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(item) for item in v]
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return clean_text(str(v))


"""Value conversions of the successor simulator: legacy demo texts as the current service writes them.

JSON numbers from numeric texts, null or "" for the legacy missing-value spellings, padded
currencies, plain text for Base64, and the small drift an older factsheet version shows.
"""

from __future__ import annotations

import base64
import binascii
import random
import re
from datetime import date, timedelta

CURRENCY_WIDTH = 50  # the `*_cur` fields of the minimums come right-padded with spaces to this width
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


def is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip() in ("", "-", "0000-00-00"))


def json_number(value: object) -> int | float | None:
    """A JSON number from a legacy numeric text ("1,000", "1.605"); None for any other text."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value
    text = str(value).strip()
    if not _NUMBER.match(text):
        return None
    text = text.replace(",", "")
    return float(text) if "." in text else int(text)


def int_or_null(value: object) -> int | None:
    number = json_number(value)
    return int(number) if number is not None else None


def date_or_null(value: object) -> str | None:
    return value if isinstance(value, str) and DATE_PATTERN.match(value) and value != "0000-00-00" else None


def null_or_empty(value: object) -> str | None:
    """Legacy missing-value spellings as the successor writes them: "-" and None -> null, "" and " " -> ""."""
    if value is None or (isinstance(value, str) and value.strip() == "-"):
        return None
    if isinstance(value, str) and not value.strip():
        return ""
    return value


def padded_currency(currency: object) -> str | None:
    if is_blank(currency):
        return None
    code = "THB" if currency == "บาท" else str(currency).strip()
    return code.ljust(CURRENCY_WIDTH)


def plain_text(text: object) -> object:
    """The legacy Base64 description as plain text; text that is not Base64 passes through."""
    if not isinstance(text, str) or not text:
        return text
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return text


def number_text(value: float, like: str) -> str:
    decimals = len(like.split(".", 1)[1]) if "." in like else 0
    return f"{value:.{decimals}f}"


def drift_rng(seed: int | None, *parts: object) -> random.Random | None:
    return None if seed is None else random.Random(":".join(str(p) for p in (seed, *parts)))


def nudge(rng: random.Random | None, value: int | float | None, spread: float = 0.06) -> int | float | None:
    """An older factsheet's figure: the current one moved by a few percent."""
    if rng is None or value is None:
        return value
    return round(value * (1 + rng.uniform(-spread, spread)) + rng.choice((-0.01, 0.01)), 4)


def month_end_before(day: date) -> date:
    return day.replace(day=1) - timedelta(days=1)


def fee_number(value: object) -> int | float | None:
    """A fee as the current service's float: the one number a legacy text holds ("ไม่เกิน 1.50" -> 1.5);
    None for words ("ยกเว้น", waived) and ranges, which a float cannot carry."""
    from dashboard.records.values import single_number

    number = json_number(value)
    return number if number is not None else single_number(value)


def as_float(value: int | float | None) -> float | None:
    return None if value is None else float(value)


def lowbal_unit(value: object) -> str:
    """The successor documents lowbal_unit as text: 0 -> "0", 0.0001 -> "0.0001", 50.0 -> "50"."""
    number = json_number(value)
    if number is None:
        return ""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def insert_after(record: dict, key: str, **extra) -> dict:
    out: dict = {}
    for k, v in record.items():
        out[k] = v
        if k == key:
            out.update(extra)
    if key not in record:
        out.update(extra)
    return out

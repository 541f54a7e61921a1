"""How a report writes values: numbers, percentages, dates, the missing-value mark and the header facts.

Everything here returns plain text; the templates escape it.
"""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any

import pandas as pd

from dashboard.config import ApiSettings

MISSING = "—"


def is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def text(value: Any, missing: str = MISSING) -> str:
    """Any value as text; missing values as a dash."""
    return missing if is_missing(value) else str(value)


def fmt_number(value: Any, decimals: int = 2, *, suffix: str = "") -> str:
    """A number with thousands separators, or a dash."""
    if is_missing(value):
        return MISSING
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(number):
        return MISSING
    return f"{number:,.{decimals}f}{suffix}"


def fmt_percent(value: Any, decimals: int = 2) -> str:
    return fmt_number(value, decimals, suffix=" %")


def fmt_signed(value: Any, decimals: int = 2, suffix: str = "") -> str:
    if is_missing(value):
        return MISSING
    return f"{float(value):+,.{decimals}f}{suffix}"


def fmt_date(value: Any) -> str:
    """A date as YYYY-MM-DD; text that is not a date stays as it is."""
    if is_missing(value):
        return MISSING
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, date):
        return value.isoformat()
    text = str(value)
    return text[:10] if len(text) >= 10 and text[4:5] == "-" and text[7:8] == "-" else text


def fmt_datetime(value: Any) -> str:
    """A last-modified stamp as YYYY-MM-DD HH:MM (the service gives no time zone)."""
    if is_missing(value):
        return MISSING
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.strftime("%Y-%m-%d %H:%M")
    text = str(value).replace("T", " ")
    return text[:16] if len(text) >= 16 else text


def fmt_period(period: str | None) -> str:
    """A holdings period YYYYMM as YYYY-MM."""
    return f"{period[:4]}-{period[4:]}" if period and len(period) == 6 else (period or MISSING)


def safe_source_label(settings: ApiSettings) -> str:
    """Where the data came from, without any user name, password, query or fragment of the URL."""
    label = settings.source_label
    if settings.demo:
        return label
    try:
        parts = urllib.parse.urlsplit(label)
    except ValueError:
        return "the configured service"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", "")) or "the configured service"


def latest_update(*sources: Any) -> str | None:
    """The newest `last_upd_date` anywhere in these records (dicts, lists, nested), as ISO text."""
    stamps: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "last_upd_date" and isinstance(value, str) and value.strip():
                    stamps.append(value.strip())
                elif isinstance(value, (Mapping, list, tuple)):
                    walk(value)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    for source in sources:
        walk(source)
    return max(stamps) if stamps else None


def distinct_dates(values: Iterable[Any]) -> list[str]:
    """Distinct non-missing dates (or free texts), sorted."""
    return sorted({fmt_date(v) for v in values if not is_missing(v)})


def format_generated(generated_at: datetime | None) -> tuple[str, str]:
    """(text shown, ISO value) of the generation time, with the local UTC offset."""
    moment = generated_at or datetime.now().astimezone()
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S %z").replace("+0000", "UTC"), moment.isoformat(timespec="seconds")

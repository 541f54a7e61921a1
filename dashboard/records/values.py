"""Value normalisers for the service's loosely typed strings: numbers, dates, Base64 text and placeholders.

Every function here is total: whatever it is given, it returns a value or None and never raises,
because one odd field in a real response must not take down a whole factsheet.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import logging
import math
import re
import numbers

logger = logging.getLogger("dashboard.records")

# The ways real responses say "no value" (see real-world-notes.md), compared case-insensitively.
_PLACEHOLDERS = frozenset({"-", "--", "n/a", "null", "none", "0000-00-00", "0000-00-00 00:00:00", "0000-00-00t00:00:00"})

# Characters str.strip() keeps but that are invisible at the ends of Thai text.
_INVISIBLE_EDGES = "\u200b\u200c\u200d\u2060\ufeff"

# Thai digits (๐-๙) occasionally appear in Thai free text; numbers and dates read them as 0-9.
_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")

# Years above this are Buddhist-era (Gregorian + 543): no record of this service is dated after 2400 CE.
_BUDDHIST_ERA_THRESHOLD = 2400
_BUDDHIST_ERA_OFFSET = 543


def _strip(text: str) -> str:
    return text.strip().strip(_INVISIBLE_EDGES).strip()


def is_placeholder(v: object) -> bool:
    """True for the values the service uses to mean "missing": None, blanks, "-", "N/A", "null", "0000-00-00"."""
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, str):
        text = _strip(v)
        return not text or text.casefold() in _PLACEHOLDERS or text.startswith("0000-00-00")
    return False


# A whole string that is one plain number: optional sign, digits with optional thousands
# separators, optional fraction and exponent (so that repr() of any float reads back).
_NUMBER_TEXT = re.compile(
    r"[+-]?(?P<mantissa>(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)?(?:\.[0-9]*)?)(?:[eE][+-]?[0-9]+)?"
)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def to_number(v: object) -> float | int | None:
    """A number from a JSON number or a numeric string ("1,234.5", " 1.605 ", "+2"); None otherwise.

    JSON numbers pass through (ints stay ints); strings always give a float. bool is not a number.
    """
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return _finite(v)
    if not isinstance(v, str):
        if not isinstance(v, numbers.Real):
            return None
        try:
            return _finite(float(v))
        except (TypeError, ValueError, OverflowError):
            return None
    text = _strip(v).translate(_THAI_DIGITS)
    match = _NUMBER_TEXT.fullmatch(text)
    if match is None or not match["mantissa"] or not re.search(r"[0-9]", match["mantissa"]):
        return None
    try:
        return _finite(float(text.replace(",", "")))
    except (ValueError, OverflowError):
        return None


# One number inside free text. The sign counts only when attached ("-0.5"), so "0.25 - 1.00"
# holds two numbers, and so does "0.25-1.00".
_NUMBER_IN_TEXT = re.compile(
    r"(?<![0-9.])[+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?![0-9])"
)


def single_number(text: object) -> float | None:
    """The number when free text holds exactly one ("ไม่เกิน 1.50 % ต่อปี" -> 1.5); None for none or several."""
    if isinstance(text, bool) or text is None:
        return None
    if not isinstance(text, str):
        number = to_number(text)
        if number is None:
            return None
        try:
            return _finite(float(number))
        except (TypeError, ValueError, OverflowError):
            return None
    found = _NUMBER_IN_TEXT.findall(text.translate(_THAI_DIGITS))
    if len(found) != 1:
        return None
    try:
        return _finite(float(found[0].replace(",", "")))
    except (ValueError, OverflowError):
        return None


# --- dates -------------------------------------------------------------------------------------

_TIME_TAIL = r"""
    (?:(?:T|\s+)
       (?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2})
       (?::(?P<second>[0-9]{2})(?:[.,](?P<fraction>[0-9]*))?)?
       \s*(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?
    )?
"""
_YMD = re.compile(r"(?P<year>[0-9]{4})(?P<sep>[-/.])(?P<month>[0-9]{1,2})(?P=sep)(?P<day>[0-9]{1,2})" + _TIME_TAIL, re.X)
_DMY = re.compile(r"(?P<day>[0-9]{1,2})(?P<sep>[-/.])(?P<month>[0-9]{1,2})(?P=sep)(?P<year>[0-9]{4})" + _TIME_TAIL, re.X)
_COMPACT = re.compile(r"(?P<year>[0-9]{4})(?P<month>[0-9]{2})(?P<day>[0-9]{2})")
_NAMED_MONTH = re.compile(r"(?P<day>[0-9]{1,2})\s*(?P<month_name>[^0-9]+?)\s*(?P<year>[0-9]{4})")
# Longer text is not a date; the bound also keeps the patterns' backtracking small.
_MAX_DATE_TEXT = 64

_MONTHS = (
    ("ม.ค.", "มกราคม", "jan", "january"),
    ("ก.พ.", "กุมภาพันธ์", "feb", "february"),
    ("มี.ค.", "มีนาคม", "mar", "march"),
    ("เม.ย.", "เมษายน", "apr", "april"),
    ("พ.ค.", "พฤษภาคม", "may"),
    ("มิ.ย.", "มิถุนายน", "jun", "june"),
    ("ก.ค.", "กรกฎาคม", "jul", "july"),
    ("ส.ค.", "สิงหาคม", "aug", "august"),
    ("ก.ย.", "กันยายน", "sep", "sept", "september"),
    ("ต.ค.", "ตุลาคม", "oct", "october"),
    ("พ.ย.", "พฤศจิกายน", "nov", "november"),
    ("ธ.ค.", "ธันวาคม", "dec", "december"),
)
# Month names as written in Thai and English dates, without dots, case-folded -> month number.
_MONTH_NAMES: dict[str, int] = {
    name.replace(".", "").casefold(): number for number, names in enumerate(_MONTHS, start=1) for name in names
}


def _gregorian(year: int) -> int:
    return year - _BUDDHIST_ERA_OFFSET if year > _BUDDHIST_ERA_THRESHOLD else year


def _parse_moment(v: object) -> tuple[dt.date, tuple[int, int, int, str | None] | None] | None:
    """The date, and the time (hour, minute, second, fraction digits) when one was written."""
    if isinstance(v, dt.datetime):
        return v.date(), (v.hour, v.minute, v.second, f"{v.microsecond:06d}" if v.microsecond else None)
    if isinstance(v, dt.date):
        return v, None
    if not isinstance(v, str) or is_placeholder(v):
        return None
    text = _strip(v).translate(_THAI_DIGITS)
    if len(text) > _MAX_DATE_TEXT:
        return None
    match = _YMD.fullmatch(text) or _DMY.fullmatch(text) or _COMPACT.fullmatch(text)
    month: int | None = None
    if match is None:
        match = _NAMED_MONTH.fullmatch(text)
        if match is None:
            return None
        month = _MONTH_NAMES.get(re.sub(r"[\s.]", "", match["month_name"]).casefold())
        if month is None:
            return None
    groups = match.groupdict()
    try:
        day = dt.date(_gregorian(int(groups["year"])), month or int(groups["month"]), int(groups["day"]))
    except (ValueError, OverflowError):
        return None
    if groups.get("hour") is None:
        return day, None
    clock = (int(groups["hour"]), int(groups["minute"]), int(groups["second"] or 0))
    try:
        dt.time(*clock)
    except ValueError:
        return None
    return day, (*clock, groups["fraction"] or None)


def to_iso_date(v: object) -> str | None:
    """An ISO date (YYYY-MM-DD) from ISO dates and datetimes, DD/MM/YYYY, Buddhist-era years and month names."""
    moment = _parse_moment(v)
    return moment[0].isoformat() if moment else None


def to_iso_datetime(v: object) -> str | None:
    """An ISO datetime (YYYY-MM-DDTHH:MM:SS[.ffffff]) for last_upd_date; fractions kept to microseconds,
    a bare date is midnight.

    A zone suffix, which the service does not send, is dropped: the dashboard shows the service's clock.
    """
    moment = _parse_moment(v)
    if moment is None:
        return None
    day, clock = moment
    hour, minute, second, fraction = clock or (0, 0, 0, None)
    text = f"{day.isoformat()}T{hour:02d}:{minute:02d}:{second:02d}"
    if fraction:
        text += "." + fraction[:6].ljust(6, "0")
    return text


# --- text --------------------------------------------------------------------------------------


def clean_text(v: object) -> str | None:
    """Stripped text, None for placeholders; Thai text is left intact. Numbers become their text."""
    if isinstance(v, str):
        return None if is_placeholder(v) else _strip(v)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else None
    return None


_BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _is_thai(c: str) -> bool:
    return "\u0e00" <= c <= "\u0e7f"


def _is_word_letter(c: str) -> bool:
    """A letter of a non-Thai word (Latin mostly): a stray "n" next to one is part of that word."""
    return c.isalpha() and not _is_thai(c)


# A run of one or two "n" (a single or double line break) is checked against its neighbours.
_N_RUN = re.compile(r"n+")


def _repair_line_breaks(text: str) -> str:
    text = text.replace("\\r\\n", "\n").replace("\\n", "\n")

    def replace(match: re.Match[str]) -> str:
        run = match.group(0)
        before = text[match.start() - 1] if match.start() > 0 else ""
        after = text[match.end()] if match.end() < len(text) else ""
        if len(run) > 2 or (before and _is_word_letter(before)) or (after and _is_word_letter(after)):
            return run
        # A lone "n" with no neighbour at all is a word, not a break.
        if not before and not after:
            return run
        return "\n" * len(run)

    return _N_RUN.sub(replace, text)


def decode_base64_text(v: object, *, field: str | None = None) -> str | None:
    """UTF-8 text from a Base64 field (padding optional, URL-safe accepted), stray "n" line breaks repaired.

    Text that is not Base64 or not UTF-8 gives None and a warning naming the field, never the value.
    """
    if v is None or (isinstance(v, str) and is_placeholder(v)):
        return None
    name = field or "a Base64 field"
    if isinstance(v, (bytes, bytearray)):
        try:
            v = bytes(v).decode("ascii")
        except UnicodeDecodeError:
            logger.warning("%s is not Base64 (non-ASCII bytes); shown as missing", name)
            return None
    if not isinstance(v, str):
        logger.warning("%s is a %s, not Base64 text; shown as missing", name, type(v).__name__)
        return None
    compact = "".join(v.split()).replace("-", "+").replace("_", "/")
    if not _BASE64_TEXT.fullmatch(compact):
        logger.warning("%s is not valid Base64 (%d characters); shown as missing", name, len(compact))
        return None
    body = compact.rstrip("=")
    if len(body) % 4 == 1:
        logger.warning("%s is not valid Base64 (truncated, %d characters); shown as missing", name, len(compact))
        return None
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        logger.warning("%s does not decode to UTF-8 text (%d characters); shown as missing", name, len(compact))
        return None
    text = _repair_line_breaks(text).rstrip()
    return text or None

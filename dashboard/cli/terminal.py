"""What the command line prints: service text made safe for a terminal, readable tables and numbers.

Every line the readable output and every error or warning line goes through `terminal_text`
(service text is data: an escape sequence in a fund name must not clear the screen, set the
window title or write the clipboard). `--json` output goes through `json_text`, which stays exact
JSON and only writes the characters a terminal would act on as \\u escapes.
"""

from __future__ import annotations

import json
import logging
import math
import re
import sys
import traceback
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from dashboard.present.text import column_title, fmt_date, fmt_percent, number

# Longest cell a readable table shows; JSON output keeps the whole text.
CELL_WIDTH = 60
# Longest error or warning line: whatever it quotes, it stays a line a person can read.
MESSAGE_WIDTH = 600
ELLIPSIS = "…"

# ESC sequences as a whole (CSI, OSC/DCS/APC/PM/SOS strings up to their terminator, two-character
# escapes), so that their parameters do not remain on screen as litter.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"                                  # CSI (7- or 8-bit) ... final byte
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]?"                                                 # other escapes (ESC c, ESC ( B, ...)
)
# C0 except tab and newline, DEL, C1, the bidi embeddings/overrides/isolates, line/paragraph separators.
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_UNSAFE_CHARS = re.compile(f"[{_UNSAFE}]")
_UNSAFE_OR_LAYOUT = re.compile(f"[{_UNSAFE}\t\n]")


def terminal_text(value: object, *, single_line: bool = False, limit: int | None = None) -> str:
    """`value` as text a terminal shows literally: escape sequences and control characters removed
    (tab and newline kept, or made spaces when `single_line`), cut to `limit` characters with an ellipsis."""
    text = "" if value is None else str(value)
    text = _ESCAPE_SEQUENCE.sub("", text)
    if single_line:
        text = " ".join(_UNSAFE_OR_LAYOUT.sub(" ", text).split())
    else:
        text = _UNSAFE_CHARS.sub("", text)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return text


def out(line: object = "", *, file: TextIO | None = None) -> None:
    """Print one line of readable output."""
    print(terminal_text(line), file=file or sys.stdout)


def err(line: object) -> None:
    """Print one line on stderr (errors, warnings, notes): always a single safe line of readable length."""
    print(terminal_text(line, single_line=True, limit=MESSAGE_WIDTH), file=sys.stderr)


def json_text(data: Any) -> str:
    """`data` as JSON text; characters a terminal acts on are written as \\u escapes (the same JSON value)."""
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    # json.dumps escapes C0 already; the rest can only occur inside strings, where \\uXXXX means the same.
    return _UNSAFE_CHARS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class TerminalFormatter(logging.Formatter):
    """Log lines (-v output, library warnings) as single safe lines: messages may carry service text.

    A record with an exception ends with its cause (type, message, and the line that raised it), which a
    long message (Bokeh's error quotes the whole message it failed on) would otherwise cut away."""

    def format(self, record: logging.LogRecord) -> str:
        line = terminal_text(super().format(record), single_line=True, limit=MESSAGE_WIDTH)
        cause = terminal_text(exception_cause(record.exc_info), single_line=True, limit=MESSAGE_WIDTH // 3)
        if not cause or line.endswith(cause):
            return line
        head = terminal_text(line, limit=MESSAGE_WIDTH - len(cause) - 3)
        return f"{head} | {cause}"


def exception_cause(exc_info) -> str:
    """"AssertionError at `assert self._session is not None`", "ValueError: bad value" (empty without one)."""
    if not exc_info or exc_info[1] is None:
        return ""
    exc = exc_info[1]
    message = str(exc).strip()
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ is not None else []
    where = f" at `{frames[-1].line}`" if frames and frames[-1].line else ""
    return f"{type(exc).__name__}: {message}" if message else f"{type(exc).__name__}{where}"


# ---- numbers -----------------------------------------------------------------------------------------


def percent(value: object) -> str:
    """A percentage with 2 to 5 decimals (24.30435, 65.48, 100.00), empty when missing (the column's
    heading says percent)."""
    if number(value) is None:
        return "" if value is None or isinstance(value, float) else plain(value)
    return fmt_percent(value, 2, up_to=5, sign="")


def baht(value: object) -> str:
    """An amount with thousands separators and two decimals (2,898,161,904.80), empty when missing."""
    found = number(value)
    if found is None:
        return "" if value is None or isinstance(value, float) else plain(value)
    return f"{found:,.2f}"


def plain(value: object) -> str:
    """Any value as a cell: no scientific notation, no NaN, lists joined, service text made safe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return ""
        if value.is_integer() and abs(value) < 1e15:
            return f"{value:,.0f}" if abs(value) >= 10_000 else f"{value:.0f}"
        return f"{value:.6f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(plain(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {plain(v)}" for k, v in value.items())
    return str(value)


# Fields shown as percentages and as amounts of money, whichever table they appear in.
PERCENT_FIELDS = frozenset({"percent_nav", "asset_ratio", "rate_num", "actual_value_num", "performance_val"})
MONEY_FIELDS = frozenset({"assetliab_value", "minimum_sub_ipo", "minimum_sub", "minimum_redempt", "lowbal_val"})


def cell(field: str, value: object) -> str:
    if field in PERCENT_FIELDS:
        return percent(value)
    if field in MONEY_FIELDS:
        return baht(value)
    if field.endswith("_date") and isinstance(value, str):
        # The register stamps its records to the tenth of a microsecond ("2026-02-05T01:38:35.930000"): a reader
        # wants the day, as the dashboard shows it. Text that is not a date stays whole.
        return plain(fmt_date(value))
    return plain(value)


# ---- tables ------------------------------------------------------------------------------------------


def display_width(text: str) -> int:
    """Columns a terminal gives `text`: Thai vowel and tone marks take none, wide characters two."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _pad(text: str, width: int, right: bool) -> str:
    gap = " " * max(width - display_width(text), 0)
    return gap + text if right else text + gap


def table_lines(rows: Sequence[Sequence[object]], headers: Sequence[str], *, right: Iterable[int] = (),
                limit: int = CELL_WIDTH) -> list[str]:
    """Rows of already formatted cells as aligned lines; each cell one safe line of at most `limit` characters."""
    right = set(right)
    grid = [[terminal_text(c, single_line=True, limit=limit) for c in row] for row in rows]
    heads = [terminal_text(h, single_line=True, limit=limit) for h in headers]
    widths = [max([display_width(heads[i])] + [display_width(r[i]) for r in grid]) for i in range(len(heads))]
    lines = ["  ".join(_pad(h, widths[i], i in right) for i, h in enumerate(heads)).rstrip()]
    lines += ["  ".join(_pad(c, widths[i], i in right) for i, c in enumerate(row)).rstrip() for row in grid]
    return lines


def record_table(records: Sequence[dict], columns: Sequence[str], *,
                 formatters: dict[str, Callable[[dict], str]] | None = None,
                 headers: dict[str, str] | None = None) -> list[str]:
    """Records as a table of `columns`; a column with an English label beside it shows "label (code)"."""
    formatters, headers = formatters or {}, headers or {}
    right = [i for i, c in enumerate(columns) if c in PERCENT_FIELDS or c in MONEY_FIELDS]
    return table_lines([[shown_cell(r, c, formatters) for c in columns] for r in records],
                       [headers.get(c) or column_title(c) for c in columns], right=right)


def shown_cell(record: dict, column: str, formatters: dict[str, Callable[[dict], str]] | None = None) -> str:
    """One cell as a readable table (and a CSV) shows it: a formatter's text, "label (code)", or the value."""
    if formatters and column in formatters:
        return formatters[column](record)
    value = record.get(column)
    label = record.get(f"{column}_label_en")
    if label and value not in (None, "") and str(label) != str(value):
        return f"{plain(label)} ({plain(value)})"
    return cell(column, value)


def readable_frame(records: Sequence[dict], columns: Sequence[str], *,
                   formatters: dict[str, Callable[[dict], str]] | None = None,
                   headers: dict[str, str] | None = None):
    """The rows of a readable table as a DataFrame with titled columns and whole texts (for a CSV)."""
    import pandas as pd

    headers, formatters = headers or {}, formatters or {}
    titles = [headers.get(c) or column_title(c) for c in columns]

    def value(record: dict, column: str) -> object:
        raw = record.get(column)
        if column not in formatters and not isinstance(raw, bool) and isinstance(raw, (int, float)) and math.isfinite(raw):
            return raw  # a number stays a number a spreadsheet can add up (no thousands separators)
        return shown_cell(record, column, formatters)

    return pd.DataFrame([[value(r, c) for c in columns] for r in records], columns=titles, dtype=object)


def write_csv(frame) -> None:
    """A table as CSV on stdout: UTF-8 with a byte-order mark, as `present.text.csv_bytes` writes every CSV."""
    from dashboard.present.text import csv_bytes

    sys.stdout.flush()
    sys.stdout.buffer.write(csv_bytes(frame))
    sys.stdout.flush()

"""The pieces a report section is made of: notes, headings, tables, labelled values, text, case cards.

Each block is plain data (service text stays text); `templates/blocks.html.j2` draws it, escaping
every value. `kind` names the macro that draws the block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dashboard.present.text import fmt_date, fmt_number, fmt_percent, is_missing, text


@dataclass(frozen=True)
class Note:
    """A short explanatory note."""

    text: str
    kind: str = "note"


@dataclass(frozen=True)
class Caution:
    """Something the reader must know: a part failed, data is stale, a fine was not paid."""

    text: str
    kind: str = "warning"


@dataclass(frozen=True)
class Heading:
    text: str
    kind: str = "heading"


@dataclass(frozen=True)
class TextBlock:
    """Decoded multi-line service text, line breaks kept; a note when there is none."""

    text: str | None
    missing: str = "not published"
    kind: str = "text"


@dataclass(frozen=True)
class KeyValues:
    """Labelled values in two columns (labels are ours, values the service's)."""

    pairs: Sequence[tuple[str, str]]
    caption: str = ""
    kind: str = "key_values"


@dataclass(frozen=True)
class Link:
    """A table value: an address shown as a link (`href` set) or as code (`href` None)."""

    text: str
    href: str | None = None


@dataclass(frozen=True)
class Card:
    """An enforcement case or an investor alert: a title, labelled values and an optional warning."""

    css: str
    case_id: str
    title: str
    items: Sequence[tuple[str, str]]
    flag: str = ""
    kind: str = "card"


@dataclass(frozen=True)
class Table:
    """A table of rows already written as text, one list of cells per row."""

    headings: Sequence[str]
    css: Sequence[str]
    rows: Sequence[Sequence[str]]
    caption: str = ""
    css_id: str = ""
    kind: str = "table"


@dataclass
class Column:
    """One column of a table: its heading, how to get the value from a row, how to show it."""

    label: str
    key: str | Callable[[Mapping], Any]
    fmt: Callable[[Any], str] | None = None
    numeric: bool = False
    nowrap: bool = False

    @property
    def css(self) -> str:
        return " ".join(n for n, on in (("num", self.numeric), ("nowrap", self.nowrap)) if on)

    def cell(self, row: Mapping) -> str:
        value = self.key(row) if callable(self.key) else row.get(self.key)
        if self.fmt is not None and not is_missing(value):
            value = self.fmt(value)
        return text(value)


def num_col(label: str, key, decimals: int = 2) -> Column:
    return Column(label, key, lambda v: fmt_number(v, decimals), numeric=True)


def pct_col(label: str, key, decimals: int = 2) -> Column:
    return Column(label, key, lambda v: fmt_percent(v, decimals), numeric=True)


def date_col(label: str, key) -> Column:
    return Column(label, key, fmt_date)


def rows_of(data: pd.DataFrame | Iterable[Mapping] | None) -> list[Mapping]:
    if data is None:
        return []
    if isinstance(data, pd.DataFrame):
        return data.to_dict("records")
    return list(data)


def table(data: pd.DataFrame | Iterable[Mapping] | None, columns: Sequence[Column], *, caption: str = "",
          empty: str = "No rows.", css_id: str = "") -> Table | Note:
    """A table of the rows; a note instead when there are none."""
    rows = rows_of(data)
    if not rows:
        return Note(empty)
    return Table([c.label for c in columns], [c.css for c in columns],
                 [[c.cell(row) for c in columns] for row in rows], caption=caption, css_id=css_id)


def key_values(pairs: Sequence[tuple[str, Any]], *, caption: str = "") -> KeyValues:
    """Labelled values; a missing value shows the dash, a `Link` stays a link."""
    return KeyValues([(label, value if isinstance(value, Link) else text(value)) for label, value in pairs], caption)


def text_block(value: Any, missing: str = "not published") -> TextBlock:
    return TextBlock(None if is_missing(value) else str(value), missing)

"""What people see of a NAV history: figures beside the factsheet's published ones, the NAV table, the basket.

No Panel: the dashboard's NAV view, the reports, the notebook and `sec-dashboard fund nav` all use these.

- `figure_rows`: every computed figure (`nav_figures.ClassFigures`) as a row for people, with the
  factsheet's published figure for the same period beside it and the difference. The published
  records are the records layer's performance records (E10) of the class; their type is read through
  the spellings the layouts send (`records.labels.SPELLINGS["performance_type_desc"]`), their period
  through `labels.reference_period_key` ("3 months", "year to date", ...). The factsheet's fund return
  is a price return (the NAV's change: the AIMC standard the demo follows too), so it is set beside the
  price returns (`return_*`), the fund volatility beside `volatility_*`; total returns, drawdowns,
  Sharpe ratios, 1M and the since-the-first-NAV figures have no published counterpart (published "").
  The factsheet publishes at a month end; the difference is meaningful at the same date, so
  `figure_rows(..., at_published=...)` takes the figures computed as of the published date
  (`FundNav.figures(as_of=published_as_of(records))`) and the difference is taken from those.
- `nav_table_frame`: one class's NAV series with labelled columns (for the CSV and tables).
- `rebased_frame`: a basket's classes rebased to 100 on their common start.

Beyond the interface agreed in notes/nav-interface.md (additions, nothing changed): FigureRow's
`published_as_of` and `raw_compared`, figure_rows' `at_published`, and `published_for_class`,
`published_as_of`, `PUBLISHED_FOR`, `NAV_COLUMN_TITLES`; and (issue 38) `gap_text`, `recovery_text`, `fmt_value`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.api.nav import ClassHistory, NavHistory
from dashboard.errors import BadInputError, quoted
from dashboard.models.nav_figures import ClassFigures, Figure, rebase
from dashboard.present.text import DASH, fmt_number, fmt_percent, fmt_signed, is_missing, number
from dashboard.records.labels import SPELLINGS, performance_kind, reference_period_key

# Figure key -> (published performance kind, reference period key) it is compared with.
PUBLISHED_FOR: dict[str, tuple[str, str]] = {
    "return_3m": ("fund_return", "3 months"),
    "return_6m": ("fund_return", "6 months"),
    "return_ytd": ("fund_return", "year to date"),
    "return_1y": ("fund_return", "1 year"),
    "return_3y_ann": ("fund_return", "3 years"),
    "return_5y_ann": ("fund_return", "5 years"),
    "volatility_1y": ("fund_volatility", "1 year"),
    "volatility_3y": ("fund_volatility", "3 years"),
    "volatility_5y": ("fund_volatility", "5 years"),
}
NOT_PUBLISHED = "not published"
# The markers of a fund without unit classes in the performance records (the records layer reads them as None).
_NON_CLASS = {None, "", "-", "main"}
# Every spelling of a performance type the layouts are documented to send -> its kind.
_TYPE_SPELLINGS = {spelling: kind for table in SPELLINGS["performance_type_desc"].values()
                   for spelling, kind in table.items()}

NAV_COLUMN_TITLES: dict[str, str] = {
    "nav_date": "NAV date",
    "nav": "NAV (baht per unit)",
    "offer": "Offer price (baht per unit)",
    "bid": "Bid price (baht per unit)",
    "net_asset": "Fund size (baht)",
    "switch_in": "Switching-in price (baht per unit)",
    "switch_out": "Switching-out price (baht per unit)",
}


@dataclass(frozen=True)
class FigureRow:
    """One figure for people: its label, window, value, the published figure and the difference, as text
    ("" where the factsheet publishes no such figure, "not published" where it could but did not, DASH for
    no value), with the numbers behind them and the reason a value is missing."""

    key: str
    label: str
    window: str  # "1 Nov 2025 to 21 Nov 2026"
    value: str
    published: str
    difference: str
    raw: float | None
    raw_published: float | None
    reason: str
    published_as_of: str = ""  # the published figure's date ("31 Oct 2026"), "" when there is none
    raw_compared: float | None = None  # the figure as of the published date (the difference's base)

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def day_text(day: date | None) -> str:
    """A date as "1 Nov 2025"; DASH when missing."""
    return DASH if day is None else f"{day.day} {day:%b %Y}"


def window_text(figure: Figure) -> str:
    """The figure's window: from the NAV it is measured from (else its period's first day) to its last NAV."""
    start = figure.start or figure.period_start
    return f"{day_text(start)} to {day_text(figure.end)}" if start is not None else f"to {day_text(figure.end)}"


def fmt_value(value: float | None, unit: str) -> str:
    """A figure's value as text: "5.32 %" for a percent, "0.84" for a ratio, DASH for none."""
    if value is None:
        return DASH
    return fmt_percent(value, 2) if unit == "%" else fmt_number(value, 2)


_value_text = fmt_value


def gap_text(gap) -> str:
    """A gap as people read it, the one wording of every output: "7 Feb 2024 to 21 Feb 2024: 14 days between
    two NAVs" (the length is `Gap.days`, the calendar days from the NAV before it to the NAV after it: the
    number the gap rule compares with `GAP_DAYS`)."""
    return f"{day_text(gap.start)} to {day_text(gap.end)}: {gap.days} day{'s' if gap.days != 1 else ''} between two NAVs"


def recovery_text(figure: Figure) -> str:
    """A maximum drawdown's recovering period (the days from the trough back to the peak's NAV):
    "34 days (back on 5 Mar 2024)", "not recovered", or "" when there was no fall or no figure."""
    if figure.kind != "max_drawdown" or figure.value is None or figure.trough is None:
        return ""
    if figure.recovery is None:
        return "not recovered"
    return f"{figure.recovery_days} days (back on {day_text(figure.recovery)})"


def _difference_text(points: float) -> str:
    """"+0.12 pp"; a difference that rounds to nothing is "0.00 pp", never "-0.00 pp"."""
    shown = round(points, 2)
    return fmt_signed(shown, 2, " pp") if shown != 0 else "0.00 pp"


def _kind(record: Mapping) -> str | None:
    kind = record.get("performance_kind")
    if kind:
        return kind
    text = record.get("performance_type_desc")
    return _TYPE_SPELLINGS.get(text) if text in _TYPE_SPELLINGS else performance_kind(text)


def _as_of(record: Mapping) -> date | None:
    value = record.get("as_of_date")
    if is_missing(value):
        return None
    try:
        return pd.Timestamp(str(value)[:10]).date()
    except ValueError:
        return None


def _published_values(records: Iterable[Mapping] | None) -> dict[tuple[str, str], tuple[float | None, date | None]]:
    """(kind, period) -> (value, as-of date) of the newest record of each; a value None when it came empty."""
    found: dict[tuple[str, str], tuple[float | None, date | None]] = {}
    for record in records or ():
        if not isinstance(record, Mapping):
            continue
        kind, period = _kind(record), reference_period_key(record.get("reference_period"))
        if kind is None or period is None:
            continue
        day = _as_of(record)
        before = found.get((kind, period))
        if before is None or (day is not None and (before[1] is None or day > before[1])):
            found[(kind, period)] = (number(record.get("performance_val")), day)
    return found


def published_as_of(records: Iterable[Mapping] | None) -> date | None:
    """The date of the published fund returns (the newest as-of date among them), or None."""
    days = [day for (kind, _), (_, day) in _published_values(records).items() if kind == "fund_return" and day]
    return max(days, default=None)


def published_for_class(records: Iterable[Mapping] | None, class_name: str) -> list[dict]:
    """The performance records of one class ("" = a fund without classes: its non-class rows; or, when the
    records name one class only, that class's rows)."""
    rows = [dict(r) for r in records or () if isinstance(r, Mapping)]
    name = lambda r: r.get("class_abbr_name")  # noqa: E731
    mine = [r for r in rows if class_name and name(r) == class_name]
    if mine or class_name:
        return mine
    mine = [r for r in rows if name(r) in _NON_CLASS or (isinstance(name(r), str) and name(r).strip().casefold()
                                                           in {"-", "main"})]
    if mine:
        return mine
    named = {name(r) for r in rows}
    return rows if len(named) == 1 else []


def figure_rows(figures: ClassFigures, published: Iterable[Mapping] | None,
                at_published: ClassFigures | None = None) -> list[FigureRow]:
    """Every figure of one class as a row, in `figures`' order, beside the published figure of the same
    period (`published`: the factsheet's performance records of this class, the records layer's form).

    The difference is the computed minus the published figure, in percentage points; taken from
    `at_published` (the same class's figures as of the published date) when given, else from `figures`.
    `published` None (the factsheet could not be read) leaves the published and difference texts empty;
    an empty list says "not published" where the factsheet has such a figure.
    """
    values = _published_values(published)
    rows = []
    # A class that distributes leads with its total return (what an investor's units earned); else the price return.
    lead = [f for f in figures.figures if f.kind == getattr(figures, "headline", "return")]
    ordered = lead + [f for f in figures.figures if f not in lead] if lead and lead[0].kind == "total_return" \
        else list(figures.figures)
    for figure in ordered:
        target = PUBLISHED_FOR.get(figure.key)
        raw_published, as_of, shown, difference, compared = None, None, "", "", None
        if target is not None and published is not None:
            raw_published, as_of = values.get(target, (None, None))
            shown = NOT_PUBLISHED if raw_published is None else fmt_percent(raw_published, 2, up_to=4)
            base = at_published if at_published is not None else figures
            try:
                compared = base[figure.key].value
            except KeyError:
                compared = None
            difference = DASH if compared is None or raw_published is None else _difference_text(compared - raw_published)
        rows.append(FigureRow(
            key=figure.key, label=figure.label, window=window_text(figure),
            value=_value_text(figure.value, figure.unit), published=shown, difference=difference,
            raw=figure.value, raw_published=raw_published, reason=figure.reason or "",
            published_as_of=day_text(as_of) if as_of is not None else "", raw_compared=compared))
    return rows


def nav_table_frame(history: NavHistory, class_name: str) -> pd.DataFrame:
    """One class's NAV series for tables and the CSV: a row per NAV date, labelled columns
    (`NAV_COLUMN_TITLES`), empty cells where a price is not published or not offered."""
    if class_name not in history.classes:
        names = ", ".join(n or "the fund's only class" for n in history.classes) or "none"
        raise BadInputError(f"fund {history.proj_id} has no class {quoted(class_name)} with NAVs; its classes are {names}")
    nav = history.classes[class_name].nav
    columns = [c for c in NAV_COLUMN_TITLES if c in nav.columns]
    frame = nav[columns].rename(columns=NAV_COLUMN_TITLES).reset_index(drop=True)
    frame[NAV_COLUMN_TITLES["nav_date"]] = frame[NAV_COLUMN_TITLES["nav_date"]].dt.normalize()
    return frame


def rebased_frame(histories: Mapping[str, ClassHistory]) -> tuple[date | None, pd.DataFrame]:
    """A basket's classes rebased to 100 on their common start (the first day every one has a NAV):
    (that day, a frame indexed by nav_date with one column per name of `histories`, NaN on a day a class
    has no NAV, never filled); (None, an empty frame) when they have no day in common."""
    return rebase({name: history.nav for name, history in histories.items()})


__all__ = ["FigureRow", "NAV_COLUMN_TITLES", "NOT_PUBLISHED", "PUBLISHED_FOR", "day_text", "figure_rows", "fmt_value",
           "gap_text", "nav_table_frame", "published_as_of", "published_for_class", "rebased_frame", "recovery_text",
           "window_text"]

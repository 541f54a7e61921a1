"""The basket's NAV comparison as people read it: one row per fund, the figures since the common start.

Shared by the dashboard, the comparison report and the notebook, so all three show the same
columns in the same words. The numbers stay numbers (percent, or a plain ratio for Sharpe);
each output formats them its own way.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import pandas as pd

from dashboard.models.nav_figures import ClassFigures

# (figure key, column title) of the common-start figures shown, in order.
# (Short titles: the table must fit a phone; `COMMON_FIGURES_NOTE` says what each means.)
COMMON_FIGURES = (
    ("return_common", "Return"),
    ("return_common_ann", "A year"),
    ("total_return_common", "Total return"),
    ("volatility_common", "Volatility"),
    ("max_drawdown_common", "Largest fall"),
    ("sharpe_common", "Sharpe"),
)
COMMON_FIGURES_NOTE = ("Return: the change in NAV; a year: the same, annualised (over a year only); total return: "
                       "with distributions reinvested; volatility: annualised; largest fall: the maximum drawdown "
                       "from a peak; Sharpe: the Sharpe ratio.")
PERCENT_TITLES = [title for key, title in COMMON_FIGURES if key != "sharpe_common"]
RATIO_TITLES = ["Sharpe"]


def common_figures_frame(figures: Mapping[str, ClassFigures], names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A row per fund: its name, the window (common start to its last NAV) and the figures (NaN where
    there is too little data; `common_figures_notes` says why)."""
    names = names or {}
    rows = []
    for proj_id, class_figures in figures.items():
        first = class_figures[COMMON_FIGURES[0][0]]
        row = {"Fund": names.get(proj_id, proj_id)}
        for key, title in COMMON_FIGURES:
            value = class_figures[key].value
            row[title] = float("nan") if value is None else value
        rows.append({**row, "From": _day(first.start), "To": _day(first.end)})
    # the figures first, next to the fund's name (a phone shows the first columns)
    return pd.DataFrame(rows, columns=["Fund", *(title for _, title in COMMON_FIGURES), "From", "To"])


def common_figures_notes(figures: Mapping[str, ClassFigures], names: Mapping[str, str] | None = None) -> list[str]:
    """Why a figure is missing, once per fund and reason ("DLN-CX: Return a year: A year or less ...")."""
    names = names or {}
    notes = []
    for proj_id, class_figures in figures.items():
        seen = set()
        for key, title in COMMON_FIGURES:
            figure = class_figures[key]
            if figure.value is None and figure.reason and figure.reason not in seen:
                seen.add(figure.reason)
                notes.append(f"{names.get(proj_id, proj_id)}, {figure.label.lower()}: {figure.reason}")
    return notes


def _day(value: date | None) -> str:
    return value.isoformat() if value is not None else ""

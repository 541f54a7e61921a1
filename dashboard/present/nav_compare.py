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
COMMON_FIGURES = (
    ("return_common", "Return"),
    ("return_common_ann", "Return a year (annualised)"),
    ("total_return_common", "Total return (distributions reinvested)"),
    ("volatility_common", "Volatility (annualised)"),
    ("max_drawdown_common", "Largest fall from a peak"),
    ("sharpe_common", "Sharpe ratio"),
)
PERCENT_TITLES = [title for key, title in COMMON_FIGURES if key != "sharpe_common"]
RATIO_TITLES = ["Sharpe ratio"]


def common_figures_frame(figures: Mapping[str, ClassFigures], names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A row per fund: its name, the window (common start to its last NAV) and the figures (NaN where
    there is too little data; `common_figures_notes` says why)."""
    names = names or {}
    rows = []
    for proj_id, class_figures in figures.items():
        first = class_figures[COMMON_FIGURES[0][0]]
        row = {"Fund": names.get(proj_id, proj_id),
               "From": _day(first.start), "To": _day(first.end)}
        for key, title in COMMON_FIGURES:
            value = class_figures[key].value
            row[title] = float("nan") if value is None else value
        rows.append(row)
    return pd.DataFrame(rows, columns=["Fund", "From", "To", *(title for _, title in COMMON_FIGURES)])


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
                notes.append(f"{names.get(proj_id, proj_id)}, {title.lower()}: {figure.reason}")
    return notes


def _day(value: date | None) -> str:
    return value.isoformat() if value is not None else ""

"""The regular-investing figures as shown (present.dca): the money-weighted return says which one it is, for the
period under a year and a year from a year on, in the one table the command line, the view and the report show."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from dashboard.models.dca import DcaPlan, simulate
from dashboard.present import dca as present
from tests.models.test_dca import NAV, PLAN

LONG_NAV = pd.DataFrame({"nav_date": pd.to_datetime(["2024-01-02", "2024-07-01", "2025-03-03"]),
                         "nav": [10.0, 10.5, 12.1]})


def _row(frame: pd.DataFrame, starts: str) -> pd.Series:
    (row,) = [r for _, r in frame.iterrows() if r["figure"].startswith(starts)]
    return row


def test_under_a_year_the_table_shows_the_period_return_and_says_so():
    result = simulate(NAV, None, PLAN)  # 87 days
    row = _row(present.figures_frame([result]), "Money-weighted return")
    assert row["figure"] == "Money-weighted return for the period (not annualised, %)"
    assert row["lump_0"] == "+10.00"  # the lump sum's 10 % gain, not 49.16 % a year
    values = present.figure_values(result.lump_sum)
    assert values["money_weighted_pct"] == pytest.approx(10.0) and values["money_weighted_basis"] == "period"


def test_from_a_year_on_the_table_shows_a_year():
    result = simulate(LONG_NAV, None, DcaPlan(monthly=1000, start=date(2024, 1, 2), end=date(2025, 3, 31), day=2))
    row = _row(present.figures_frame([result]), "Money-weighted return")
    assert row["figure"] == "Money-weighted return, a year (XIRR, %)"
    assert row["lump_0"] == f"+{100 * result.lump_sum.xirr:.2f}"
    assert present.figure_values(result.lump_sum)["money_weighted_basis"] == "a year"


def test_a_year_and_a_period_side_by_side_each_say_which():
    short = simulate(NAV, None, PLAN)
    long_ = simulate(LONG_NAV, None, DcaPlan(monthly=1000, start=date(2024, 1, 2), end=date(2025, 3, 31), day=2))
    row = _row(present.figures_frame([long_, short]), "Money-weighted return")
    assert row["figure"] == "Money-weighted return (%, a year or for the period)"
    assert row["lump_0"].endswith(" a year") and row["lump_1"] == "+10.00 for the period"

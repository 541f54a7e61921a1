"""The Fees tab's fee-drag chart with its inputs: amount, years and the return before fees (each class's own
5-year NAV return where it has one, else a stated 5 %), stated in words with their dates; bad input said once,
changing nothing."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from dashboard.models.dashboard_state import DashboardState
from dashboard.models.fee_drag import basket_fee_drag
from dashboard.present.siblings import fee_drag_inputs_lines
from dashboard.records.labels import fee_type_text
from dashboard.views.fees import FeesView

TOTAL, FRONT = fee_type_text("total"), fee_type_text("front_end")


def _fees() -> pd.DataFrame:
    return pd.DataFrame([
        {"fund": "AAA", "proj_id": "P1", "class_abbr_name": "AAA-A", "fee_type_desc": TOTAL, "actual_value_num": 1.0,
         "actual_value": "1"},
        {"fund": "BBB", "proj_id": "P2", "class_abbr_name": None, "fee_type_desc": TOTAL, "actual_value_num": 2.0,
         "actual_value": "2"},
        {"fund": "BBB", "proj_id": "P2", "class_abbr_name": None, "fee_type_desc": FRONT, "actual_value_num": 1.0,
         "actual_value": "1"},
    ])


def test_each_class_at_its_own_nav_return_else_the_stated_five_percent():
    frame = basket_fee_drag(_fees(), 1_000, 1, None, {("P1", "AAA-A"): (4.0, date(2026, 11, 20))})
    a = frame[frame["series"] == "AAA · AAA-A"]
    # its NAV return 4 % is after its 1 % expense: grossed up, (1.04 / 0.99 - 1), then the expense taken: 1,040
    assert list(a["value"]) == pytest.approx([1_000, 1_040])
    assert a["gross_pct"].iloc[0] == pytest.approx((1.04 / 0.99 - 1) * 100)
    b = frame[frame["series"] == "BBB"]
    # no NAV return: 5 % stated; 1 % front, 2 % expense: 1,000 x 0.99 x 1.05 x 0.98 = 1,018.71
    assert list(b["value"]) == pytest.approx([990, 1_018.71]) and b["gross_pct"].iloc[0] == 5.0
    assert "No fees" not in set(frame["series"])  # two returns: no one line without fees
    lines = fee_drag_inputs_lines(frame, {"amount": 1_000, "years": 1, "return_pct": None}, date(2026, 11, 21))
    assert "1,000 THB held 1 year" in lines[0] and "2026-11-21" in lines[0]
    assert any("AAA · AAA-A: 5.05 % a year before fees: its 5-year NAV return, 4.00 % a year to 2026-11-20" in line
               for line in lines)
    assert any(line.startswith("BBB: 5.00 % a year before fees: a stated 5 % a year") for line in lines)
    given = basket_fee_drag(_fees(), 1_000, 1, 3.0, {("P1", "AAA-A"): (4.0, date(2026, 11, 20))})
    assert set(given["gross_pct"]) == {3.0} and "No fees" in set(given["series"])
    assert fee_drag_inputs_lines(given, {"amount": 1_000, "years": 1, "return_pct": 3.0}, date(2026, 11, 21))[1] == \
        "Yearly return before fees: 3 % for every class, as given."


def test_the_inputs_apply_when_usable_and_bad_input_changes_nothing():
    view = FeesView(state=DashboardState())
    assert view.drag_inputs == {"amount": 100_000.0, "years": 10, "return_pct": None}
    view.param.update(amount_text="250,000", years_text="15", return_text="6.5")
    assert view.drag_inputs == {"amount": 250_000.0, "years": 15, "return_pct": 6.5} and view.drag_error == ""
    view.years_text = "2.5"
    assert "whole number of years" in view.drag_error and view.drag_inputs["years"] == 15
    view.years_text = "15"
    view.amount_text = "lots"
    assert "Type the amount in baht" in view.drag_error and view.drag_inputs["amount"] == 250_000.0
    view.amount_text = "-5"
    assert "The amount must be a number of baht above 0" in view.drag_error
    view.param.update(amount_text="100,000", return_text="")
    assert view.drag_inputs == {"amount": 100_000.0, "years": 15, "return_pct": None} and view.drag_error == ""

"""The compliance warning: a person still on a duty after the approval for that role expired."""

import datetime as dt

import pandas as pd
import pytest

from dashboard.models.licensee import duties_past_approval
from dashboard.records import records_frame

TODAY = dt.date(2026, 6, 1)  # pinned: the rule depends on the day


def approvals(*rows):
    return records_frame("approval", [{"lic_code": c, "effective_date": "2018-02-07", "expire_date": e} for c, e in rows])


def duties(*rows):
    return records_frame("duty", [{"company_unique_id": "C0000000205", "person_unique_id": "P1", "lic_action_code": c,
                                   "action_start_date": s, "action_end_date": end} for c, s, end in rows])


def test_an_analyst_on_duty_after_the_approval_expired_is_flagged():
    flagged = duties_past_approval(approvals(("IA", "2025-02-07")), duties(("IA", "2018-03-01", "")), TODAY)
    assert len(flagged) == 1
    row = flagged.iloc[0]
    assert row["approval_expired"] == "2025-02-07"
    assert row["company_unique_id"] == "C0000000205"
    assert "2025-02-07" in row["reason"] and "since 2018-03-01" in row["reason"]


@pytest.mark.parametrize("approval, duty", [
    (("IA", "2027-02-07"), ("IA", "2018-03-01", "")),     # approval still valid
    (("IA", ""), ("IA", "2018-03-01", "")),               # no expiry: lasts while serving
    (("IA", "2025-02-07"), ("IA", "2018-03-01", "2025-01-31")),  # the duty ended
    (("IA", "2025-02-07"), ("DR", "2018-03-01", "")),     # another role: no approval matches it
])
def test_what_is_not_flagged(approval, duty):
    assert duties_past_approval(approvals(approval), duties(duty), TODAY).empty


def test_one_valid_approval_of_the_role_is_enough():
    got = duties_past_approval(approvals(("IA", "2024-01-01"), ("IA", "2028-01-01")), duties(("IA", "2018-03-01", "")), TODAY)
    assert got.empty


def test_the_day_decides():
    a, d = approvals(("IA", "2025-02-07")), duties(("IA", "2018-03-01", ""))
    assert duties_past_approval(a, d, dt.date(2025, 2, 7)).empty
    assert len(duties_past_approval(a, d, dt.date(2025, 2, 8))) == 1


def test_empty_inputs_give_an_empty_frame_with_the_reason_column():
    got = duties_past_approval(None, pd.DataFrame(), TODAY)
    assert got.empty and "reason" in got.columns

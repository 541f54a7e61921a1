"""The master matching and the fee drag, each rule on values worked out by hand (docs/feeders.md)."""

from __future__ import annotations

import pytest

from dashboard.errors import BadInputError
from dashboard.models.fee_drag import ClassFees, fee_drag, gross_from_nav, median
from dashboard.models.feeders import (BY_ISIN, BY_NAME, BY_NAME_TO_ISIN, NAME_FITS_SEVERAL, NO_MASTER, MasterLine,
                                      master_lines, master_name_key, match_masters)


@pytest.mark.parametrize("text, key", [
    ("กองทุน LO Funds – Asia Diversified High Yield Bond, X1, (USD), IA", "lo funds asia diversified high yield bond"),
    ("LO Funds - Asia Diversified High Yield Bond Class IA USD", "lo funds asia diversified high yield bond"),
    ("Demo Global Quality Master Fund I-Acc USD", "demo global quality master fund"),
    ("DEMO GLOBAL QUALITY MASTER FUND - Class I USD", "demo global quality master fund"),
    ("กองทุนหลัก Demo Asia Leaders Master Fund (Class A USD)", "demo asia leaders master fund"),
    ("Demo Frontier Ventures Fund S.A.", "demo frontier ventures fund"),
    ("Demo Fund US", "demo fund us"),  # a short word is a class code only beside a class word or currency
    ("กองทุนหลัก ฟันด์ทดสอบ ชนิดสะสมมูลค่า", "ฟันด์ทดสอบ"),
    ("-", None), ("", None), (None, None),
])
def test_master_name_key(text, key):
    assert master_name_key(text) == key


def _line(proj_id, isin, pct, period="202609", code="401", issuer="X"):
    return {"proj_id": proj_id, "period": period, "assetliab_id": code, "isin_code": isin, "issuer": issuer,
            "percent_nav": pct}


def test_master_lines_sum_by_isin_in_the_newest_quarter_only():
    rows = [_line("A", "LU0000000001", 40.0), _line("A", "LU0000000001", 25.5),  # one master on two lines: 65.5
            _line("A", "IE0000000002", 30.0),
            _line("A", "LU0000000009", 99.0, period="202606"),  # an older quarter: not read
            _line("B", "TH0000000003", 90.0, code="104"),  # Thai fund units: not a foreign fund
            _line("B", "US0000000004", 20.0, code="104"),  # foreign fund units under code 104
            _line("C", "-", 95.0)]  # no ISIN: cannot name a master
    lines = master_lines(rows)
    assert lines["A"] == MasterLine("LU0000000001", "X", 65.5, "202609")
    assert lines["B"].isin == "US0000000004" and lines["B"].percent_nav == 20.0
    assert "C" not in lines


def test_matching_by_isin_share_classes_names_and_the_undecided():
    funds = [
        {"proj_id": "F1", "feederfund_master_fund": "Alpha Fund I-Acc USD", "management_style": "AN"},
        {"proj_id": "F2", "feederfund_master_fund": "Alpha Fund, A, (USD)", "management_style": "AN"},
        {"proj_id": "F3", "feederfund_master_fund": "ALPHA FUND - Class I USD", "management_style": "AN"},  # no line
        {"proj_id": "F4", "feederfund_master_fund": "Beta Fund A-Dis", "management_style": "AN"},
        {"proj_id": "F5", "feederfund_master_fund": "กองทุน Beta Fund (Class A)", "management_style": None},
        {"proj_id": "F6", "feederfund_master_fund": "Gamma Fund I USD", "management_style": "AN"},
        {"proj_id": "F7", "feederfund_master_fund": "Gamma Fund D EUR", "management_style": "AN"},
        {"proj_id": "F8", "feederfund_master_fund": "Gamma Fund", "management_style": "AN"},
        {"proj_id": "F9", "feederfund_master_fund": None, "management_style": "AN"},
        {"proj_id": "E1", "feederfund_master_fund": None, "management_style": "AM"},  # not a feeder
    ]
    lines = {"F1": MasterLine("LU0000000001", "Alpha Fund I-Acc USD", 97.0, "202609"),
             "F2": MasterLine("LU0000000002", "Alpha Fund A-Acc USD", 96.0, "202609"),  # another class, same domicile
             "F6": MasterLine("LU0000000006", "Gamma Fund I USD", 95.0, "202609"),
             "F7": MasterLine("IE0000000007", "Gamma Fund D EUR", 95.0, "202609"),  # same name, another domicile
             "F9": MasterLine("LU0000000009", "Delta", 59.9, "202609"),  # under 60 %
             "E1": MasterLine("LU0000000010", "Epsilon", 10.0, "202609")}
    rows = {r["proj_id"]: r for r in match_masters(funds, lines)}
    assert set(rows) == {"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9"}
    alpha = "isin:LU0000000001"  # the smaller ISIN of the two share classes
    assert [rows[p]["master_id"] for p in ("F1", "F2", "F3")] == [alpha] * 3
    assert [rows[p]["matched_by"] for p in ("F1", "F2", "F3")] == [BY_ISIN, BY_ISIN, BY_NAME_TO_ISIN]
    assert rows["F1"]["master_isins"] == "LU0000000001,LU0000000002"
    assert rows["F4"]["master_id"] == rows["F5"]["master_id"] == "name:beta fund"
    assert rows["F4"]["matched_by"] == BY_NAME
    assert rows["F6"]["master_id"] == "isin:LU0000000006" and rows["F7"]["master_id"] == "isin:IE0000000007"
    assert rows["F8"]["master_id"] is None and rows["F8"]["undecided"] == NAME_FITS_SEVERAL
    assert rows["F8"]["candidates"] == "isin:IE0000000007,isin:LU0000000006"
    assert rows["F9"]["undecided"] == NO_MASTER and rows["F9"]["holding_pct"] == 59.9


def test_fee_drag_two_years_by_hand():
    # 100,000 at 10 % a year, 1 % front, 1 % a year, 0.5 % back, two years:
    # year 1: 99,000 x 1.1 x 0.99 = 107,811; year 2: 107,811 x 1.089 = 117,406.179; sold: x 0.995 = 116,819.148105
    drag = fee_drag(100_000, 2, 10.0, ClassFees(1.0, 1.0, 0.5))
    assert drag.without_fees == pytest.approx((100_000, 110_000, 121_000))
    assert drag.with_fees == pytest.approx((99_000, 107_811, 116_819.148105))
    assert drag.cost == pytest.approx(121_000 - 116_819.148105)  # 4,180.851895 baht


def test_fee_drag_unstated_counts_as_nothing_and_is_named():
    fees = ClassFees(1.5, None, None)
    drag = fee_drag(1_000, 1, 0.0, fees)
    assert drag.final_value == pytest.approx(985.0) and drag.cost == pytest.approx(15.0)
    assert fees.unstated == ("front-end fee", "back-end fee")


def test_gross_return_from_a_nav_return_and_the_median():
    # a NAV return of 8.9 % after 1 % a year stands for 10 % before: 1.089 / 0.99 = 1.1
    assert gross_from_nav(8.9, 1.0) == pytest.approx(10.0)
    assert median([3.0, None, 1.0, 2.0, 10.0]) == 2.5 and median([None]) is None


@pytest.mark.parametrize("amount, years, ret", [(0, 10, 5.0), (100, 0, 5.0), (100, 2.5, 5.0), (100, 10, float("nan")),
                                                 (float("inf"), 10, 5.0), (100, 51, 5.0)])
def test_fee_drag_refuses_bad_inputs(amount, years, ret):
    with pytest.raises(BadInputError):
        fee_drag(amount, years, ret, ClassFees(1.0, 0.0, 0.0))


def test_basket_fee_drag_takes_each_funds_first_class_and_reads_waived_as_zero():
    import pandas as pd

    from dashboard.models.fee_drag import basket_fee_drag
    from dashboard.records.labels import fee_type_text
    total, front = fee_type_text("total"), fee_type_text("front_end")
    fees = pd.DataFrame([
        {"fund": "AAA", "class_abbr_name": "AAA-B", "fee_type_desc": total, "actual_value_num": 9.0, "actual_value": "9"},
        {"fund": "AAA", "class_abbr_name": "AAA-A", "fee_type_desc": total, "actual_value_num": 1.0, "actual_value": "1"},
        {"fund": "AAA", "class_abbr_name": "AAA-A", "fee_type_desc": front, "actual_value_num": None,
         "actual_value": "ยกเว้น"},
    ])
    frame = basket_fee_drag(fees, 1_000, 1, 0.0)
    mine = frame[frame["series"] == "AAA · AAA-A"]
    # first class by name (AAA-A): 1,000 x (1 - 0) x (1 - 0.01) = 990; the waived front-end fee is 0, not unstated
    assert list(mine["value"]) == pytest.approx([1_000, 990]) and mine["front"].iloc[0] == 0.0
    assert list(frame[frame["series"] == "No fees"]["value"]) == [1_000, 1_000]

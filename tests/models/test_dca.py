"""The regular-investing simulator (models.dca) on a small NAV history whose every figure is worked out by hand."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from dashboard.errors import BadInputError
from dashboard.models.dca import (PAID, REINVESTED, DcaPlan, RegularInvesting, front_end_fee, net_present_value,
                                  planned_days, simulate, xirr)

# Eight NAV days, the first on 2023-12-29. No NAV on 2024-01-01 (a holiday) nor on 2024-03-01 (a Friday without a NAV): those
# purchases are made at the next NAV. 2024-04-01 lies after the plan's end and is never used.
NAV = pd.DataFrame({
    "nav_date": pd.to_datetime(["2023-12-29", "2024-01-02", "2024-01-03", "2024-02-01", "2024-02-07", "2024-03-04", "2024-03-29",
                                "2024-04-01"]),
    "nav": [9.5, 10.0, 10.5, 12.5, 9.0, 8.0, 11.0, 12.0],
})
# One distribution of 0.50 a unit, book closed on 2024-02-01 (a purchase day: those units count), paid on
# 2024-02-06, a day without a NAV: reinvested at the next NAV, 9.00 on 2024-02-07.
DIST = pd.DataFrame({"ex_date": pd.to_datetime(["2024-02-01"]), "pay_date": pd.to_datetime(["2024-02-06"]),
                     "per_unit": [0.5]})
PLAN = DcaPlan(monthly=1000, start=date(2024, 1, 1), end=date(2024, 3, 31), day=1)


def test_each_purchase_is_made_at_the_first_nav_on_or_after_its_day():
    result = simulate(NAV, None, PLAN)
    bought = result.regular.purchases
    assert list(bought["planned"]) == [date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 1)]
    assert list(bought["nav_date"].dt.date) == [date(2024, 1, 2), date(2024, 2, 1), date(2024, 3, 4)]
    # 1000 / 10 = 100, 1000 / 12.5 = 80, 1000 / 8 = 125 units
    assert list(bought["units"]) == pytest.approx([100.0, 80.0, 125.0])
    r = result.regular
    assert r.units == pytest.approx(305.0) and r.invested == 3000.0 and r.fees == pytest.approx(0.0)
    # the end is the last NAV on or before 2024-03-31: 11.00 on 2024-03-29; 305 x 11 = 3355
    assert r.end_date == date(2024, 3, 29) and r.end_nav == 11.0 and r.end_value == pytest.approx(3355.0)
    assert r.gain == pytest.approx(355.0)
    # value over time: after the second purchase, 180 units at 9.00 on 2024-02-07 = 1620, with 2000 put in
    day = r.values.set_index("nav_date").loc[pd.Timestamp("2024-02-07")]
    assert day["units"] == pytest.approx(180.0) and day["value"] == pytest.approx(1620.0) and day["invested"] == 2000.0
    assert r.values["nav_date"].iloc[0] == pd.Timestamp("2024-01-02") and len(r.values) == 6


def test_the_lump_sum_puts_the_whole_amount_in_at_the_first_purchase():
    lump = simulate(NAV, None, PLAN).lump_sum
    assert lump.invested == 3000.0 and lump.units == pytest.approx(300.0) and lump.end_value == pytest.approx(3300.0)
    # one flow out, one in, 87 days apart: the return a year is 1.1 ** (365 / 87) - 1 (49.16 %)
    assert lump.xirr == pytest.approx(1.1 ** (365 / 87) - 1, abs=1e-9)
    assert lump.xirr == pytest.approx(0.4916, abs=1e-4)


def test_the_front_end_fee_is_taken_on_top_of_the_nav():
    result = simulate(NAV, None, DcaPlan(**{**PLAN.__dict__, "front_end_pct": 2.0}))
    r = result.regular
    # units = 1000 / (NAV x 1.02): 98.0392 + 81.6993 + 122.5490 = 305 / 1.02 = 299.0196
    assert list(r.purchases["units"]) == pytest.approx([1000 / 10.2, 1000 / 12.75, 1000 / 8.16])
    assert r.units == pytest.approx(305 / 1.02)
    # each purchase pays 1000 - 1000 / 1.02 = 19.61 baht of fee: 58.82 in all
    assert list(r.purchases["fee"]) == pytest.approx([1000 - 1000 / 1.02] * 3)
    assert r.fees == pytest.approx(3000 - 3000 / 1.02)
    assert r.end_value == pytest.approx(305 / 1.02 * 11)
    assert result.lump_sum.units == pytest.approx(300 / 1.02)


def test_distributions_paid_are_cash_to_the_investor():
    result = simulate(NAV, DIST, PLAN)
    assert result.policy == PAID  # a class that distributes pays: what the class does
    r = result.regular
    # the units held at the close of 2024-02-01: 100 + 80 (bought that day) = 180; x 0.50 = 90 baht
    paid = r.distributions.iloc[0]
    assert paid["units_held"] == pytest.approx(180.0) and paid["cash"] == pytest.approx(90.0) and paid["used"] == PAID
    assert r.paid_out == pytest.approx(90.0) and r.units == pytest.approx(305.0)
    assert r.end_value == pytest.approx(3355.0) and r.gain == pytest.approx(445.0)
    values = r.values.set_index("nav_date")
    assert values.loc[pd.Timestamp("2024-02-01"), "paid_out"] == 0.0  # paid on the 6th
    assert values.loc[pd.Timestamp("2024-02-07"), "total"] == pytest.approx(1620.0 + 90.0)
    assert (date(2024, 2, 6), 90.0) in [(d, pytest.approx(a)) for d, a in r.flows()]
    # the lump sum's 300 units receive 150 baht
    assert result.lump_sum.paid_out == pytest.approx(150.0)


def test_distributions_reinvested_buy_units_at_the_next_nav_without_a_fee():
    result = simulate(NAV, DIST, DcaPlan(**{**PLAN.__dict__, "distributions": REINVESTED, "front_end_pct": 2.0}))
    r = result.regular
    held = 1000 / 10.2 + 1000 / 12.75
    again = r.purchases[r.purchases["kind"] == "reinvested"].iloc[0]
    # 0.50 x the units held, reinvested at 9.00 on 2024-02-07 (no NAV on the payment day), no fee
    assert again["nav_date"] == pd.Timestamp("2024-02-07") and again["amount"] == pytest.approx(0.5 * held)
    assert again["units"] == pytest.approx(0.5 * held / 9.0) and again["fee"] == 0.0
    assert r.paid_out == 0.0 and r.invested == 3000.0  # reinvested money is not money put in
    assert r.units == pytest.approx(305 / 1.02 + 0.5 * held / 9.0)
    assert r.end_value == pytest.approx(11 * (305 / 1.02 + 0.5 * held / 9.0))
    # the lump sum: 300 / 1.02 units get 0.5 each, reinvested at 9.00
    lump = result.lump_sum
    assert lump.units == pytest.approx(300 / 1.02 * (1 + 0.5 / 9.0))
    assert lump.xirr == pytest.approx((lump.end_value / 3000) ** (365 / 87) - 1, abs=1e-9)


def test_the_money_weighted_return_is_the_rate_that_zeroes_the_flows():
    r = simulate(NAV, DIST, PLAN).regular
    flows = r.flows()
    assert flows == [(date(2024, 1, 2), -1000.0), (date(2024, 2, 1), -1000.0), (date(2024, 3, 4), -1000.0),
                     (date(2024, 2, 6), pytest.approx(90.0)), (date(2024, 3, 29), pytest.approx(3355.0))]
    # the net present value written out by hand at the rate found is 0
    rate = r.xirr
    by_hand = sum(a / (1 + rate) ** ((d - date(2024, 1, 2)).days / 365) for d, a in flows)
    assert abs(by_hand) < 1e-6
    # and scipy's Brent root-finder finds the same rate
    brentq = pytest.importorskip("scipy.optimize").brentq
    assert rate == pytest.approx(brentq(lambda x: net_present_value(x, flows), -0.99, 100, xtol=1e-14), abs=1e-9)


def test_under_a_year_the_money_weighted_return_is_for_the_period_not_annualised():
    # 87 days from the first purchase (2024-01-02) to the end (2024-03-29): annualised, the lump sum's 10 % gain
    # reads 49.16 % a year; shown for the period it is the 10 % it made: (1 + r) ** (87 / 365) - 1 = 1.1 - 1
    result = simulate(NAV, None, PLAN)
    lump, mine = result.lump_sum, result.regular
    assert not lump.annualised and lump.span_days == 87
    assert lump.money_weighted_pct == pytest.approx(10.0, abs=1e-7)
    # the plan: the rate that zeroes its flows, taken over the same 87 days
    assert mine.money_weighted_pct == pytest.approx(100 * ((1 + mine.xirr) ** (87 / 365) - 1), abs=1e-9)
    assert mine.money_weighted_pct < 100 * mine.xirr


def test_from_a_year_on_the_money_weighted_return_is_a_year():
    nav = pd.DataFrame({"nav_date": pd.to_datetime(["2024-01-02", "2024-12-31", "2025-01-02"]), "nav": [10.0, 10.5, 11.0]})
    short = simulate(nav, None, DcaPlan(monthly=1000, start=date(2024, 1, 2), end=date(2025, 1, 1), day=2)).lump_sum
    year = simulate(nav, None, DcaPlan(monthly=1000, start=date(2024, 1, 2), end=date(2025, 1, 2), day=2)).lump_sum
    assert not short.annualised and short.money_weighted_pct == pytest.approx(5.0, abs=1e-7)  # 364 days: the period
    # 2024-01-02 to 2025-01-02, a year (366 days in 2024): the lump sum grew by 10 % in 366 days, 1.1 ** (365 / 366) - 1 a year
    assert year.annualised and year.money_weighted_pct == pytest.approx(100 * (1.1 ** (365 / 366) - 1), abs=1e-7)


def test_xirr_of_flows_that_cannot_have_one_is_none():
    assert xirr([(date(2024, 1, 1), -100.0)]) is None
    assert xirr([(date(2024, 1, 1), -100.0), (date(2024, 1, 1), 110.0)]) is None
    assert xirr([(date(2024, 1, 1), -100.0), (date(2025, 1, 1), 0.0)]) is None
    # a year that doubles the money: 100 %; one that loses half: -50 % (2024 had 366 days)
    assert xirr([(date(2025, 1, 1), -100.0), (date(2026, 1, 1), 200.0)]) == pytest.approx(1.0, abs=1e-9)
    assert xirr([(date(2025, 1, 1), -100.0), (date(2026, 1, 1), 50.0)]) == pytest.approx(-0.5, abs=1e-9)


def test_a_purchase_whose_next_nav_is_after_the_end_is_not_made():
    result = simulate(NAV, None, DcaPlan(monthly=1000, start=date(2024, 1, 1), end=date(2024, 3, 2), day=1))
    assert len(result.regular.purchases) == 2 and result.regular.end_date == date(2024, 2, 7)


def test_day_31_is_a_short_months_last_day():
    assert planned_days(date(2024, 1, 1), date(2024, 4, 30), 31) == [date(2024, 1, 31), date(2024, 2, 29),
                                                                     date(2024, 3, 31), date(2024, 4, 30)]
    assert planned_days(date(2024, 1, 16), date(2024, 3, 14), 15) == [date(2024, 2, 15)]


@pytest.mark.parametrize(("plan", "words"), [
    (DcaPlan(monthly=1000, start=date(2023, 12, 1)), "the from date 2023-12-01 is before DEMO-A's first NAV (2023-12-29)"),
    (DcaPlan(monthly=1000, start=date(2024, 5, 1)), "the from date 2024-05-01 is after DEMO-A's last NAV (2024-04-01)"),
    (DcaPlan(monthly=1000, start=date(2024, 2, 1), end=date(2024, 1, 5)), "the to date 2024-01-05 is before"),
    (DcaPlan(monthly=0, start=date(2024, 2, 1)), "the monthly amount 0 is not more than 0 baht"),
    (DcaPlan(monthly=float("nan"), start=date(2024, 2, 1)), "the monthly amount nan"),
    (DcaPlan(monthly=1000, start=date(2024, 2, 1), day=32), "the day of the month 32 is not 1 to 31"),
    (DcaPlan(monthly=1000, start=date(2024, 2, 1), front_end_pct=15), "the front-end fee 15 % is not 0 to 10 %"),
    (DcaPlan(monthly=1000, start=date(2024, 3, 5), end=date(2024, 3, 20)), "no purchase falls between 2024-03-05"),
])
def test_bad_input_is_one_sentence(plan, words):
    with pytest.raises(BadInputError) as caught:
        simulate(NAV, None, plan, label="DEMO-A")
    assert str(caught.value).startswith(words) and "\n" not in str(caught.value)


def test_the_view_model_keeps_its_results_when_the_input_is_bad():
    model = RegularInvesting(monthly=1000, start=date(2024, 1, 1), end=date(2024, 3, 31), day=1, class_key="A",
                             compare_key="B")
    histories = {"A": ("DEMO-A", NAV, DIST), "B": ("DEMO-B", NAV.assign(nav=NAV["nav"] * 2), None)}
    assert model.compute(histories, fees={"A": 2.0, "B": 0.0})
    first = model.result
    assert first.plan.front_end_pct == 2.0 and model.compare_result.regular.units == pytest.approx(152.5)
    model.start = date(2023, 1, 1)
    assert not model.compute(histories)
    assert model.error == "the from date 2023-01-01 is before DEMO-A's first NAV (2023-12-29)"
    assert model.result is first  # nothing changed


def test_the_front_end_fee_is_read_from_the_fee_records():
    fees = [{"class_abbr_name": "X-A", "fee_type_desc": "ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)", "actual_value_num": 1.5},
            {"class_abbr_name": "X-D", "fee_type_desc": "ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)",
             "actual_value_num": None, "actual_value": "ยกเว้น"},
            {"class_abbr_name": "X-A", "fee_type_desc": "ค่าธรรมเนียมการจัดการ (Management Fee)", "actual_value_num": 1.0}]
    assert front_end_fee(fees, "X-A") == 1.5
    assert front_end_fee(fees, "x-d") == 0.0  # waived
    assert front_end_fee(fees, "X-E") is None
    assert front_end_fee(None, "X-A") is None

"""The domain rules every consumer shares (dashboard.models.fund and the models' own rules), exactly."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from dashboard.errors import BadInputError, SecApiError
from dashboard.models.basket import FundBasket
from dashboard.models.factsheet import PARTS, FundFactsheet
from dashboard.models.fund import (
    PERFORMANCE_KINDS,
    RISK_COLUMNS,
    class_key,
    first_class_rows,
    fund_label,
    fund_returns,
    one_year_return,
    performance_pivot,
    project_term,
    returns_by_fund,
    total_annual_fee,
)
from dashboard.models.licensee import fine_unpaid
from dashboard.models.source import FAILED, LOADED, NOT_PUBLISHED, PartStatus, part_status, run
from dashboard.records import normalise_payload, records_frame

FUND_RETURN, BENCHMARK, VOLATILITY = "ผลตอบแทนกองทุนรวม", "ผลตอบแทนตัวชี้วัด", "ความผันผวนของกองทุนรวม"


def perf_row(kind_th, period, value, cls="-"):
    return {"last_upd_date": "2026-01-01T00:00:00", "class_abbr_name": cls, "performance_type_desc": kind_th,
            "reference_period": period, "performance_val": value, "as_of_date": "2026-10-31 00:00:00.0000000"}


def fee_row(fee_type, actual, rate="2.0", cls="-"):
    return {"last_upd_date": "2026-01-01T00:00:00", "class_abbr_name": cls, "fee_type_desc": fee_type,
            "rate": rate, "rate_unit": "% ต่อปีของ NAV", "actual_value": actual, "actual_value_unit": "% ต่อปีของ NAV",
            "fee_other_desc": "-"}


def frame(kind, rows):
    return records_frame(kind, normalise_payload(kind, rows, list_expected=True))


def two_class_performance() -> pd.DataFrame:
    return frame("performance", [perf_row(FUND_RETURN, "3 years", "9.0", "A"), perf_row(FUND_RETURN, "1 year", "4.5", "A"),
                                 perf_row(BENCHMARK, "1 year", "3.0", "A"), perf_row(FUND_RETURN, "1 year", "4.0", "B"),
                                 perf_row(VOLATILITY, "1 year", "12.0", "A")])


def basket_performance() -> pd.DataFrame:
    single = frame("performance", [perf_row(FUND_RETURN, "1 year", None), perf_row(FUND_RETURN, "since inception", "7")])
    return pd.concat([two_class_performance().assign(proj_id="P1", fund="F1"), single.assign(proj_id="P2", fund="F2")],
                     ignore_index=True)


def test_fund_label():
    assert fund_label({"proj_abbr_name": "ABC"}, "M0001_2564") == "ABC"
    assert fund_label({"proj_abbr_name": None}, "M0001_2564") == "M0001_2564"
    assert fund_label(None, "M0001_2564") == "M0001_2564"
    assert fund_label(None, None) == ""


def test_first_unit_class_per_fund():
    perf = basket_performance()
    assert class_key(perf).tolist() == ["A", "A", "A", "B", "A", "-", "-"]
    expected = perf.loc[[0, 1, 2, 4, 5, 6]]
    assert_frame_equal(first_class_rows(perf), expected)
    # one fund: the class first by name, whatever order the rows come in (the market store's SQL rule)
    assert_frame_equal(first_class_rows(perf.loc[[3, 0, 1]], by=None), perf.loc[[0, 1]])
    assert_frame_equal(first_class_rows(perf.iloc[:0]), perf.iloc[:0])


def test_total_annual_fee_takes_the_first_class_and_actual_values_only():
    fees = frame("fee", [fee_row("ค่าธรรมเนียมการจัดการ (Management Fee)", "1.0", cls="A"),
                         fee_row("ค่าธรรมเนียมผู้ดูแลผลประโยชน์ (Trustee Fee)", "0.05", cls="A"),
                         fee_row("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)", "0.5", cls="B")])
    assert total_annual_fee(fees) == pytest.approx(1.05)  # class B's total is not class A's
    assert total_annual_fee(fees.iloc[2:]) == 0.5
    assert total_annual_fee(fees.iloc[:0]) is None
    assert total_annual_fee(frame("fee", [fee_row("ค่าธรรมเนียมการจัดการ (Management Fee)", "ยกเว้น")])) is None


def test_one_year_return():
    assert one_year_return(two_class_performance()) == 4.5
    assert one_year_return(two_class_performance().iloc[:1]) is None


def test_performance_pivot_of_one_class():
    pivot = performance_pivot(two_class_performance(), "A")
    expected = pd.DataFrame({
        "period": pd.Series(["1 year", "3 years"], dtype=str),
        "fund_return": [4.5, 9.0], "benchmark_return": [3.0, None], "peer_average": [None, None],
        "fund_volatility": [12.0, None], "benchmark_volatility": [None, None],
        "as_of": pd.Series(["2026-10-31", "2026-10-31"], dtype=str),
    }).astype({k: "float64" for k in PERFORMANCE_KINDS})
    assert_frame_equal(pivot, expected)
    assert_frame_equal(performance_pivot(two_class_performance(), "B"),
                       expected.iloc[:1].assign(fund_return=4.0, benchmark_return=float("nan"), fund_volatility=float("nan")))
    assert_frame_equal(performance_pivot(None), expected.iloc[:0])
    assert_frame_equal(performance_pivot(two_class_performance(), "no such class"), expected.iloc[:0])


def test_fund_returns_across_funds():
    long = fund_returns(basket_performance())
    assert long[["proj_id", "class", "period", "performance_val"]].to_dict("list") == {
        "proj_id": ["P1", "P1", "P2"], "class": ["A", "A", "-"], "period": ["1 year", "3 years", "since inception"],
        "performance_val": [4.5, 9.0, 7.0]}
    wide = returns_by_fund(basket_performance(), ["P2", "P1", "P3"])
    expected = pd.DataFrame({
        "proj_id": pd.Series(["P2", "P1"], dtype=str), "fund": pd.Series(["F2", "F1"], dtype=str),
        "class": pd.Series(["-", "A"], dtype=str),
        "1 year": [None, 4.5], "3 years": [None, 9.0], "since inception": [7.0, None],
    }).astype({"1 year": "float64", "3 years": "float64", "since inception": "float64"})
    assert_frame_equal(wide, expected)
    assert_frame_equal(returns_by_fund(basket_performance()), expected.iloc[::-1].reset_index(drop=True))
    assert list(returns_by_fund(basket_performance().iloc[:0]).columns) == ["proj_id", "fund", "class"]


def test_project_term():
    assert project_term({"proj_term_flag": "Y", "proj_term_yy": 2, "proj_term_mm": 6, "proj_term_dd": 0}) == "2 years, 6 months"
    assert project_term({"proj_term_flag": "Y", "proj_term_dd": 1500.0}) == "1,500 days"
    assert project_term({"proj_term_flag": "N", "proj_term_yy": None, "proj_term_mm": float("nan")}) == ""
    assert project_term(None) == ""


def test_unpaid_fine():
    assert fine_unpaid({"enforcement_remark": "ผู้กระทำผิดไม่ชำระค่าปรับ"})
    assert fine_unpaid({"enforcement_remark": "Fine NOT PAID IN FULL; complaint filed"})
    assert not fine_unpaid({"enforcement_remark": "ชำระค่าปรับแล้ว"})
    assert not fine_unpaid({"enforcement_remark": None}) and not fine_unpaid(None)


def test_part_status():
    assert part_status(None, "HTTP 503") == PartStatus(FAILED, "HTTP 503")
    assert part_status([], None) == PartStatus(NOT_PUBLISHED) and part_status(None, None).state == NOT_PUBLISHED
    assert part_status(pd.DataFrame(), None).state == NOT_PUBLISHED
    assert part_status([{"a": 1}], None) == PartStatus(LOADED) and part_status({"a": 1}, None).loaded


def test_factsheet_status_periods_and_risk_row(demo_client, dataset):
    fund = next(f for f in dataset.funds if f["proj_id"] in dataset.holdings and f["proj_id"] in dataset.fees)
    sheet = run(FundFactsheet(client=demo_client).load(fund["proj_id"], fund=fund))
    assert set(sheet.status) == set(PARTS)
    assert sheet.part_status("fees") == PartStatus(LOADED) and sheet.part_status("holdings") == PartStatus(LOADED)
    assert all(s.state in (LOADED, NOT_PUBLISHED) for s in sheet.status.values())
    assert sheet.periods_with_data == sorted(sheet.holdings, reverse=True)
    assert sheet.latest_period == sheet.periods_with_data[0]
    assert sheet.has_data() and sheet.term == project_term(sheet.project_type)
    risk = sheet.risk_frame()
    assert list(risk.columns) == RISK_COLUMNS and risk["proj_id"].tolist() == [fund["proj_id"]]
    basket = FundBasket(client=demo_client)
    basket.add(fund["proj_id"], fund)
    run(basket.load())
    assert_frame_equal(risk, basket.risk_frame())  # one rule: the same row on the factsheet and in a basket
    assert_frame_equal(sheet.performance_table(), performance_pivot(sheet.performance))


def test_a_failed_load_clears_the_factsheet(make_client, dataset, simulator):
    funds = [f for f in dataset.funds if f["proj_id"] in dataset.fees][:2]
    client = make_client(max_attempts=1, use_cache=False)
    sheet = run(FundFactsheet(client=client).load(funds[0]["proj_id"], fund=funds[0]))
    assert not sheet.fees.empty
    simulator.app.inject("503", times=1000)
    with pytest.raises(SecApiError, match="503"):
        run(sheet.load(funds[1]["proj_id"]))
    simulator.app.clear_faults()
    assert sheet.proj_id == funds[1]["proj_id"] and sheet.fund is None and sheet.loaded_at is None
    assert sheet.fees.empty and sheet.holdings == {} and sheet.suitability is None and not sheet.loading
    assert set(sheet.status) == set(PARTS) and all(s.failed and "503" in s.reason for s in sheet.status.values())
    assert set(sheet.errors) == set(PARTS)
    with pytest.raises(BadInputError):  # an id refused is not a failure: what is shown stays
        run(sheet.load("M9999_2099"))
    assert sheet.proj_id == funds[1]["proj_id"]


def test_basket_status_per_fund_and_part():
    basket = FundBasket()
    parts = {"M0001_2564": {"fees": [{"x": 1}], "performance": [], "suitability": None, "allocation": None},
             "M0002_2564": {"fees": None, "performance": [{"x": 1}], "suitability": {"risk_spectrum": "RS4"}, "allocation": None}}
    basket.param.update(proj_ids=[*parts, "M0003_2564"], parts=parts, loaded=list(parts),
                        errors={"M0002_2564": {"fees": "HTTP 500"}})
    assert basket.part_status("M0001_2564", "fees") == PartStatus(LOADED)
    assert basket.part_status("M0001_2564", "performance") == PartStatus(NOT_PUBLISHED)
    assert basket.part_status("M0002_2564", "fees") == PartStatus(FAILED, "HTTP 500")
    assert basket.part_status("M0003_2564", "fees") is None  # not loaded yet
    assert basket.failed_part("fees") == ["M0002_2564"] and basket.unpublished("fees") == []
    assert basket.unpublished("allocation") == ["M0001_2564", "M0002_2564"]
    basket.remove("M0002_2564")
    assert set(basket.status) == {"M0001_2564"}


def test_basket_frames_follow_every_change_of_the_data():
    basket = FundBasket()
    fees = normalise_payload("fee", [fee_row("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)", "1.5")], list_expected=True)
    basket.param.update(proj_ids=["M0001_2564"], parts={"M0001_2564": {"fees": fees}}, loaded=["M0001_2564"])
    assert basket.risk_frame()["total_annual_fee"].tolist() == [1.5]
    # new rows for the same fund (even a list that might reuse a freed list's id) give new frames
    fees = normalise_payload("fee", [fee_row("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)", "0.75")], list_expected=True)
    basket.parts = {"M0001_2564": {"fees": fees}}
    assert basket.risk_frame()["total_annual_fee"].tolist() == [0.75]
    assert basket.fee_frame()["actual_value_num"].tolist() == [0.75]


def test_the_dashboard_never_shows_another_fund_under_a_refused_id(demo_client, dataset):
    from dashboard.models.dashboard_state import DashboardState

    fund = next(f for f in dataset.funds if f["proj_id"] in dataset.fees)
    state = DashboardState(client=demo_client, fund=fund["proj_id"])
    run(state.load_fund())
    assert not state.factsheet.fees.empty
    state.fund = "M9999_2099"
    with pytest.raises(BadInputError, match="no data for fund"):
        run(state.load_fund())
    assert state.fund_error and state.factsheet.proj_id == "M9999_2099"
    assert state.factsheet.fees.empty and state.factsheet.fund is None
    assert all(s.failed for s in state.factsheet.status.values())

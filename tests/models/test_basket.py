"""FundBasket: membership, concurrent loading with progress, and the comparison frames."""

from __future__ import annotations


import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from dashboard.errors import BadInputError, SecApiError
from dashboard.models.source import FAILED, PartStatus
from dashboard.models.basket import (
    BASKET_PARTS,
    MAX_BASKET,
    RISK_COLUMNS,
    FundBasket,
    parse_proj_ids,
)
from dashboard.records import normalise_payload
from dashboard.models.source import run




def registered(dataset, n=None, *, with_fees=True):
    funds = [f for f in dataset.funds if f["fund_status"] == "RG" and (not with_fees or f["proj_id"] in dataset.fees)]
    return funds[:n] if n else funds


def test_parse_proj_ids():
    assert parse_proj_ids("M0001_2564, M0002_2565 M0001_2564;bad,<script>") == ["M0001_2564", "M0002_2565"]
    assert parse_proj_ids(["M-0001-2564", " "]) == ["M-0001-2564"]
    assert parse_proj_ids(None) == [] and parse_proj_ids("") == []
    assert len(parse_proj_ids(",".join(f"M{i:04d}_2564" for i in range(40)))) == MAX_BASKET


def test_membership():
    basket = FundBasket()
    basket.add("M0001_2564", {"proj_id": "M0001_2564", "proj_abbr_name": "ONE"})
    basket.add("M0002_2565")
    basket.add("M0001_2564")  # already in: no duplicate
    assert basket.proj_ids == ["M0001_2564", "M0002_2565"]
    assert basket.label("M0001_2564") == "ONE" and basket.label("M0002_2565") == "M0002_2565"
    basket.remove("M0001_2564")
    basket.remove("M9999_2564")  # not in: nothing happens
    assert basket.proj_ids == ["M0002_2565"]
    with pytest.raises(BadInputError):
        basket.add("../etc")
    basket.clear()
    assert basket.proj_ids == [] and basket.progress == 1.0


def test_a_basket_has_a_size_limit():
    basket = FundBasket()
    for i in range(MAX_BASKET):
        basket.add(f"M{i:04d}_2564")
    with pytest.raises(BadInputError, match="at most"):
        basket.add("M9999_2564")


def test_set_funds_keeps_what_is_loaded(demo_client, dataset):
    funds = registered(dataset, 3)
    basket = FundBasket(client=demo_client)
    basket.set_funds([f["proj_id"] for f in funds], {f["proj_id"]: f for f in funds})
    run(basket.load())
    kept = funds[0]["proj_id"]
    basket.set_funds([kept, "M0000_2500"])
    assert basket.loaded == [kept] and set(basket.parts) == {kept}
    assert basket.pending() == ["M0000_2500"]


def test_load_fetches_the_four_parts_of_every_fund_and_reports_progress(demo_client, dataset):
    funds = registered(dataset, 5)
    basket = FundBasket(client=demo_client)
    for f in funds:
        basket.add(f["proj_id"], f)
    seen: list[float] = []
    basket.param.watch(lambda e: seen.append(e.new), "progress")
    loading: list[bool] = []
    basket.param.watch(lambda e: loading.append(e.new), "loading")
    run(basket.load())
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen) and len(seen) >= len(funds)
    assert loading == [True, False]
    assert basket.loaded and set(basket.loaded) == set(basket.proj_ids)
    for f in funds:
        assert set(basket.parts[f["proj_id"]]) == set(BASKET_PARTS.values())
    assert basket.errors == {} and basket.failed() == {}


def test_load_in_a_running_loop(demo_client, dataset):
    funds = registered(dataset, 4)
    basket = FundBasket(client=demo_client)
    for f in funds:
        basket.add(f["proj_id"], f)

    async def main():
        await basket.load()
        await basket.load()  # nothing pending: no work

    run(main())
    assert basket.loaded == basket.proj_ids or set(basket.loaded) == set(basket.proj_ids)
    assert basket.progress == 1.0 and not basket.loading


def test_fee_frame_keeps_ceiling_and_actual_apart_with_the_original_text(demo_client, dataset):
    funds = registered(dataset, 3)
    basket = FundBasket(client=demo_client)
    for f in funds:
        basket.add(f["proj_id"], f)
    run(basket.load())
    fees = basket.fee_frame()
    for col in ("rate", "rate_num", "rate_unit", "actual_value", "actual_value_num", "actual_value_unit", "fee_other_desc"):
        assert col in fees
    # every row of every fund's E12 payload is there, text as the service sent it (normalised)
    for f in funds:
        raw = normalise_payload("fee", dataset.fees[f["proj_id"]], list_expected=True)
        if demo_client.layout() == "successor":  # its factsheets carry no trustee or registrar line (spec 4.14)
            raw = [r for r in raw if r["fee_kind"] not in ("trustee", "registrar")]
        rows = fees[fees["proj_id"] == f["proj_id"]]
        assert len(rows) == len(raw)
        if demo_client.layout() == "legacy":  # free text as sent; the current service sends numbers
            assert rows["rate"].fillna("").tolist() == [r["rate"] or "" for r in raw]
            assert rows["actual_value"].fillna("").tolist() == [r["actual_value"] or "" for r in raw]
        # the figures agree on both layouts, in any order
        assert sorted(rows["actual_value_num"].dropna()) == sorted(r["actual_value_num"] for r in raw
                                                                     if r["actual_value_num"] is not None)
        assert set(rows["fund"]) == {f["proj_abbr_name"]}
    assert fees.columns[0] == "fund"
    types = basket.fee_types()
    assert "Management Fee" in types
    mgmt = basket.fee_frame("Management Fee")
    assert len(mgmt) and set(mgmt["fee_type_en"]) == {"Management Fee"}


def fee_row(fee_type, actual, rate="2.0", cls="-"):
    return {"last_upd_date": "2026-01-01T00:00:00", "class_abbr_name": cls, "fee_type_desc": fee_type,
            "rate": rate, "rate_unit": "% ต่อปีของ NAV", "actual_value": actual, "actual_value_unit": "% ต่อปีของ NAV",
            "fee_other_desc": "-"}


def loaded_basket(parts: dict[str, dict]) -> FundBasket:
    basket = FundBasket()
    basket.param.update(proj_ids=list(parts), parts=parts, loaded=list(parts),
                        funds={p: {"proj_id": p, "proj_abbr_name": p[:5], "proj_name_en": f"Fund {p}"} for p in parts})
    return basket


def norm(kind, rows):
    return normalise_payload(kind, rows, list_expected=isinstance(rows, list))


def test_total_annual_fee_uses_actual_values_only():
    with_total = norm("fee", [fee_row("ค่าธรรมเนียมการจัดการ (Management Fee)", "1.0"),
                              fee_row("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)", "1.25", rate="5.0")])
    # A line in no documented spelling is shown as sent and never taken for the total.
    unknown_total = norm("fee", [fee_row("ค่าธรรมเนียมการจัดการ (Management Fee)", "1.0"),
                                 fee_row("ค่าใช้จ่ายรวมทั้งหมด (Total Expense)", "1.25")])
    summed = norm("fee", [fee_row("ค่าธรรมเนียมการจัดการ (Management Fee)", "1.0", rate="3.0"),
                          fee_row("ค่าธรรมเนียมผู้ดูแลผลประโยชน์ (Trustee Fee)", "0.05"),
                          fee_row("ค่าธรรมเนียมนายทะเบียน (Registrar Fee)", "0.1"),
                          fee_row("ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)", "1.5")])
    words_only = norm("fee", [fee_row("ค่าธรรมเนียมการจัดการ (Management Fee)", "ยกเว้น", rate="ไม่เกิน 2.0")])
    basket = loaded_basket({"M0001_2564": {"fees": with_total}, "M0002_2564": {"fees": summed},
                            "M0003_2564": {"fees": words_only}, "M0004_2564": {}, "M0005_2564": {"fees": unknown_total}})
    assert basket.total_annual_fee("M0001_2564") == pytest.approx(1.25)
    assert basket.total_annual_fee("M0002_2564") == pytest.approx(1.15)  # front-end is not annual
    assert basket.total_annual_fee("M0003_2564") is None  # never falls back to the ceiling
    assert basket.total_annual_fee("M0004_2564") is None
    assert basket.total_annual_fee("M0005_2564") == pytest.approx(1.0)


def perf_row(kind_th, period, value, cls="-"):
    return {"last_upd_date": "2026-01-01T00:00:00", "class_abbr_name": cls, "performance_type_desc": kind_th,
            "reference_period": period, "performance_val": value, "as_of_date": "2026-10-31 00:00:00.0000000"}


def test_risk_frame_one_row_per_fund():
    suit = lambda code: norm("suitability", {"last_upd_date": "2026-01-01", "risk_spectrum": code})  # noqa: E731
    perf = norm("performance", [perf_row("ผลตอบแทนกองทุนรวม", "1 year", "4.5"), perf_row("ผลตอบแทนตัวชี้วัด", "1 year", "3.0"),
                                perf_row("ผลตอบแทนกองทุนรวม", "3 years", "9.0")])
    basket = loaded_basket({
        "M0001_2564": {"suitability": suit("RS81"), "performance": perf,
                       "fees": norm("fee", [fee_row("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)", "1.5")])},
        "M0002_2564": {"suitability": suit("RS4"), "performance": [], "fees": []},
        "M0003_2564": {},
    })
    risk = basket.risk_frame()
    assert list(risk.columns) == RISK_COLUMNS
    expected = pd.DataFrame({
        "fund": pd.array(["M0001", "M0002", "M0003"], dtype="string"),
        "risk_spectrum": pd.array(["RS81", "RS4", None], dtype="string"),
        "risk_level": pd.array(["8+", "4", None], dtype="string"),
        "risk_rank": [9.0, 4.0, float("nan")],
        "total_annual_fee": [1.5, float("nan"), float("nan")],
        "return_1y": [4.5, float("nan"), float("nan")],
    })
    assert_frame_equal(risk[list(expected.columns)], expected)
    assert basket.without_risk_level() == ["M0003"]  # the rule the Risk tab's note used to work out itself
    basket.status = {"M0003_2564": {"suitability": PartStatus(FAILED, "503")}}
    assert basket.without_risk_level() == []  # a failure is reported as one, not as "no risk level"


def test_a_fee_comparison_starts_with_the_management_fee_else_the_total_fee_and_expense():
    management = fee_row("ค่าธรรมเนียมการจัดการ (Management Fee)", "1.0")
    total = fee_row("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)", "1.5")  # the documented spelling
    trustee = fee_row("ค่าธรรมเนียมผู้ดูแลผลประโยชน์ (Trustee Fee)", "0.05")
    assert loaded_basket({"M0001_2564": {"fees": norm("fee", [trustee, total, management])}}).preferred_fee_type() == "Management Fee"
    assert loaded_basket({"M0001_2564": {"fees": norm("fee", [trustee, total])}}).preferred_fee_type() == "Total Fee and Expense"
    assert loaded_basket({"M0001_2564": {"fees": norm("fee", [trustee])}}).preferred_fee_type() is None
    assert FundBasket().preferred_fee_type() is None


def test_empty_basket_frames_have_columns():
    basket = FundBasket()
    assert basket.fee_frame().empty and "actual_value" in basket.fee_frame()
    assert basket.allocation_frame().empty and list(basket.allocation_frame().columns) == ["fund", "proj_id", "asset_seq", "asset_name", "asset_ratio"]
    assert basket.performance_frame().empty and basket.risk_frame().empty
    assert list(basket.risk_frame().columns) == RISK_COLUMNS and basket.fee_types() == []


def test_allocation_and_performance_frames(demo_client, dataset):
    funds = [f for f in registered(dataset) if f["proj_id"] in dataset.allocation and f["proj_id"] in dataset.performance][:3]
    basket = FundBasket(client=demo_client)
    for f in funds:
        basket.add(f["proj_id"], f)
    run(basket.load())
    alloc = basket.allocation_frame()
    assert set(alloc["proj_id"]) == {f["proj_id"] for f in funds}
    assert len(alloc) == sum(len(dataset.allocation[f["proj_id"]]) for f in funds)
    perf = basket.performance_frame()
    assert set(perf["performance_kind"].dropna()) <= {"fund_return", "benchmark_return", "fund_volatility",
                                                      "benchmark_volatility", "peer_average"}
    assert len(perf) == sum(len(dataset.performance[f["proj_id"]]) for f in funds)
    risk = basket.risk_frame()
    assert risk["risk_rank"].notna().all() and risk["return_1y"].notna().any()


def test_a_fund_known_only_by_proj_id_gets_its_record(demo_client, dataset):
    fund = next(f for f in registered(dataset) if len(dataset.classes.get(f["proj_id"]) or []) > 1)
    basket = FundBasket(client=demo_client)
    basket.set_funds([fund["proj_id"]])  # as from a shared link: no record
    run(basket.load())
    assert basket.funds[fund["proj_id"]]["proj_abbr_name"] == fund["proj_abbr_name"]
    assert basket.label(fund["proj_id"]) == fund["proj_abbr_name"]


def test_from_company_fills_with_registered_funds(demo_client, dataset):
    company = dataset.funds[0]["unique_id"]
    expected = [f["proj_id"] for f in dataset.funds if f["unique_id"] == company and f["fund_status"] == "RG"]
    basket = FundBasket(client=demo_client)
    basket.add(registered(dataset)[-1]["proj_id"])
    # the service promises no order (the current one sends rows unordered): the same funds, in any order
    assert sorted(run(basket.from_company(company))) == sorted(expected)
    assert basket.company_id == company and basket.loaded == []
    again = FundBasket(client=demo_client)
    assert sorted(run(again.from_company(company))) == sorted(expected)


def test_partial_failure_is_per_fund_and_total_failure_raises(make_client, dataset, simulator):
    funds = registered(dataset, 2)
    basket = FundBasket(client=make_client(use_cache=False, max_attempts=1))
    for f in funds:
        basket.add(f["proj_id"], f)
    simulator.app.inject("500", times=1)  # one call of one fund fails
    run(basket.load())
    assert len(basket.errors) == 1 and basket.failed() == {}
    (failed_fund, parts), = basket.errors.items()
    assert len(parts) == 1 and "500" in next(iter(parts.values()))

    broken = FundBasket(client=make_client(use_cache=False, max_attempts=1))
    for f in funds:
        broken.add(f["proj_id"], f)
    simulator.app.inject("503", times=100)
    with pytest.raises(SecApiError, match="none of the 2 funds"):
        run(broken.load())
    assert set(broken.failed()) == {f["proj_id"] for f in funds}
    assert not broken.loading and broken.progress == 1.0


def test_a_20_fund_basket_loads_concurrently(make_client, dataset, simulator):
    """20 funds x 4 calls at 100 ms each: sequential would take 8 s; concurrent is a few round trips."""
    funds = registered(dataset, 20, with_fees=False)
    assert len(funds) == 20
    basket = FundBasket(client=make_client(use_cache=False))
    for f in funds:
        basket.add(f["proj_id"], f)
    simulator.app.latency_ms = 100
    simulator.app.reset_counters()
    run(basket.load())
    assert simulator.app.request_count == 20 * len(BASKET_PARTS)
    # counted, not timed: the calls were inside the service's latency together (one after another: 1)
    assert simulator.app.most_in_flight >= 4 * len(BASKET_PARTS), simulator.app.most_in_flight
    assert len(basket.loaded) == 20


def test_records_of_bare_proj_ids_are_found_in_company_lists(demo_client, dataset):
    company = dataset.funds[0]["unique_id"]
    single = [f for f in dataset.funds if f["unique_id"] == company and not dataset.classes.get(f["proj_id"])]
    assert single, "the demo data has single-class funds"
    basket = FundBasket(client=demo_client)
    basket.set_funds([f["proj_id"] for f in single])
    assert basket.funds == {}  # nothing seen yet
    run(basket.load())
    if demo_client.async_client.layout_name == "successor":
        # The current service finds a record by its proj_id: the basket's own load names them.
        assert [basket.label(f["proj_id"]) for f in single] == [f["proj_abbr_name"] for f in single]
        assert run(basket.resolve_records([company])) == []
    else:
        assert all(f["proj_id"] not in basket.funds for f in single)  # E4 has nothing for them
        assert run(basket.resolve_records([company])) == [f["proj_id"] for f in single]
        assert [basket.label(f["proj_id"]) for f in single] == [f["proj_abbr_name"] for f in single]
        assert run(basket.resolve_records([company])) == []  # nothing left to find


def test_a_basket_from_a_link_names_funds_seen_in_any_earlier_answer_at_once(demo_client, dataset):
    company = dataset.funds[0]["unique_id"]
    funds = [f for f in dataset.funds if f["unique_id"] == company][:3]
    ids = [f["proj_id"] for f in funds]
    fresh = FundBasket(client=demo_client)
    fresh.set_funds(ids)
    assert [fresh.label(p) for p in ids] == ids  # nothing seen yet: bare ids
    demo_client.fetch("E2", unique_id=company)  # any answer that carries the records
    sent = demo_client.stats.requests_sent
    other = FundBasket(client=demo_client)
    other.set_funds(ids)  # as a shared link does: ids only
    assert [other.label(p) for p in ids] == [f["proj_abbr_name"] for f in funds]
    added = FundBasket(client=demo_client)
    added.add(ids[0])
    assert added.label(ids[0]) == funds[0]["proj_abbr_name"]
    assert demo_client.stats.requests_sent == sent  # found without asking the service
    run(other.load())  # the load does not look them up again, and keeps the names
    assert [other.label(p) for p in ids] == [f["proj_abbr_name"] for f in funds]


def test_funds_that_failed_entirely_are_fetched_again_on_the_next_load(make_client, simulator, dataset):
    funds = registered(dataset, 3)
    basket = FundBasket(client=make_client(max_attempts=1, use_cache=False))
    for f in funds:
        basket.add(f["proj_id"], f)
    simulator.app.inject("503", times=4)  # the first fund's four calls fail
    run(basket.load())
    assert len(basket.failed()) == 1
    run(basket.load())  # the service is back: the failed fund is fetched again, the others are not
    assert basket.failed() == {} and not basket.fee_frame().empty
    assert set(basket.fee_frame()["proj_id"]) == {f["proj_id"] for f in funds if dataset.fees.get(f["proj_id"])}


def test_a_basket_that_fails_entirely_keeps_the_error_kind(make_client, dataset):
    from dashboard.errors import AuthenticationError

    basket = FundBasket(client=make_client(api_key="not-the-key"))
    for f in registered(dataset, 2):
        basket.add(f["proj_id"], f)
    with pytest.raises(AuthenticationError, match="none of the 2 funds"):
        run(basket.load())


def test_a_well_formed_unknown_id_is_flagged_and_malformed_ids_are_refused(make_client, dataset):
    basket = FundBasket(client=make_client())
    with pytest.raises(BadInputError, match="not a fund project id"):
        basket.add("<script>")
    assert basket.proj_ids == []
    known = registered(dataset, 1)[0]
    basket.add(known["proj_id"], known)
    basket.add("M9999_2099")
    run(basket.load())
    assert basket.unknown == ["M9999_2099"] and known["proj_id"] not in basket.unknown


def test_unpublished_and_failed_parts_are_told_apart(make_client, simulator, dataset):
    funds = registered(dataset, 2)
    basket = FundBasket(client=make_client(max_attempts=1, use_cache=False))
    for f in funds:
        basket.add(f["proj_id"], f)
    simulator.app.inject("503", times=4)  # the first fund's four calls fail
    run(basket.load())
    assert basket.failed_part("fees") == [funds[0]["proj_id"]]
    assert funds[0]["proj_id"] not in basket.unpublished("fees")
    no_fees = dict(funds[1], proj_id="M0998_2540")
    simulator.app.dataset.funds.append(no_fees)  # a fund with no data: every part is "unpublished"
    try:
        basket.add(no_fees["proj_id"], no_fees)
        run(basket.load())
        assert no_fees["proj_id"] in basket.unpublished("fees")
        assert basket.failed_part("fees") == []  # the fund that failed was fetched again, and loaded
    finally:
        simulator.app.dataset.funds.remove(no_fees)

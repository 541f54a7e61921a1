"""FundFactsheet, FundSearch and LicenceCheck against the simulator: no browser, no Panel."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

from dashboard.errors import AuthenticationError, BadInputError
from dashboard.api.periods import valid_periods
from dashboard.models import FundFactsheet, FundSearch, LicenceCheck
from dashboard.models.source import run
from tests.conftest import TODAY

SHOW_KEYS = ["proj_id", "fund", "classes", "investment", "holdings", "project_type", "suitability",
             "return_estimate", "performance", "redemption", "fees", "total_annual_fee", "allocation", "urls"]


def multi_class_fund(dataset) -> dict:
    return next(f for f in dataset.funds if len(dataset.classes.get(f["proj_id"]) or []) > 1 and f["proj_id"] in dataset.holdings)


def test_factsheet_has_every_part(make_client, dataset):
    fund = multi_class_fund(dataset)
    sheet = run(FundFactsheet(client=make_client()).load(fund["proj_id"]))
    assert sheet.periods == valid_periods(TODAY)
    assert set(sheet.holdings) <= set(sheet.periods) and len(sheet.holdings) == 12
    assert len(sheet.classes) == len(dataset.classes[fund["proj_id"]])
    assert sheet.fund is not None and sheet.fund["proj_id"] == fund["proj_id"]  # found through E4 then E1
    assert sheet.errors == {} and not sheet.stale and not sheet.loading
    data = sheet.as_dict()
    assert list(data) == SHOW_KEYS
    assert sorted(data["holdings"], reverse=True) == list(data["holdings"])
    for period, rows in data["holdings"].items():
        assert rows and all(r["as_of_date"] is None or r["as_of_date"][:7] == f"{period[:4]}-{period[4:]}" for r in rows)
    # percent_nav is a number after normalisation, and the frame agrees with the records
    latest = sheet.latest_period
    frame = sheet.holdings_for()
    assert pd.api.types.is_float_dtype(frame["percent_nav"])
    assert frame["percent_nav"].sum() == pytest.approx(sum(r["percent_nav"] or 0 for r in data["holdings"][latest]))


def test_models_do_not_import_panel():
    import subprocess

    code = "import sys, dashboard.models, dashboard.models.basket, dashboard.models.holdings; print('panel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_fund_with_no_data_gives_empty_parts_not_errors(make_client, dataset):
    old = next(f for f in dataset.funds if f["proj_id"] not in dataset.performance and f["proj_id"] not in dataset.holdings)
    sheet = run(FundFactsheet(client=make_client()).load(old["proj_id"], fund=old))
    assert sheet.performance.empty and list(sheet.performance.columns)  # empty, with the spec columns
    assert sheet.holdings == {} and sheet.errors == {}
    assert sheet.as_dict()["performance"] == [] and sheet.fund is old


def test_partial_failure_names_the_part_and_keeps_the_rest(make_client, dataset, simulator):
    fund = multi_class_fund(dataset)
    simulator.app.inject("503", times=1000)
    client = make_client(max_attempts=1)
    with pytest.raises(Exception, match="503"):
        run(FundFactsheet(client=client).load(fund["proj_id"]))  # everything failed: one clear error
    simulator.app.clear_faults()
    simulator.app.inject("html", times=1)  # the first request (E4) gets an HTML page
    sheet = run(FundFactsheet(client=client).load(fund["proj_id"]))
    assert list(sheet.errors) == ["classes"] and "HTML" in sheet.errors["classes"]
    assert len(sheet.holdings) == 12


def test_invalid_period_and_fund_id_are_refused(make_client, dataset):
    sheet = FundFactsheet(client=make_client())
    with pytest.raises(BadInputError, match="slash"):
        run(sheet.load("M1/2564"))
    run(sheet.load(multi_class_fund(dataset)["proj_id"]))
    with pytest.raises(BadInputError, match="valid periods"):
        sheet.holdings_for("202605")


def test_rejected_key_is_one_clear_error(make_client, dataset):
    with pytest.raises(AuthenticationError):
        run(FundFactsheet(client=make_client(api_key="wrong-key-value")).load(dataset.funds[0]["proj_id"]))


def test_search_and_resolve(make_client, dataset):
    search = FundSearch(client=make_client())
    fund = multi_class_fund(dataset)
    frame = run(search.search(fund["proj_abbr_name"].lower()))
    assert fund["proj_id"] in set(frame["proj_id"])
    assert run(search.resolve(fund["proj_abbr_name"].lower())) == fund["proj_id"]  # exact, case-insensitive
    assert run(search.resolve(fund["proj_id"])) == fund["proj_id"]
    assert run(search.resolve(fund["proj_id"].lower())) == fund["proj_id"]  # a project id typed in lower case
    assert search.fund_record(fund["proj_id"])["proj_name_en"] == fund["proj_name_en"]
    with pytest.raises(BadInputError, match="no fund has the abbreviation"):
        run(search.resolve("ZZZ-NOPE"))
    assert run(search.search("no such fund at all")).empty and "no fund" in search.message


def test_company_funds(make_client, dataset):
    amc = dataset.funds[0]["unique_id"]
    frame = run(FundSearch(client=make_client()).company_funds(amc))
    assert set(frame["unique_id"]) == {amc}
    assert len(frame) == sum(f["unique_id"] == amc for f in dataset.funds)


def test_licence_check(make_client, dataset):
    check = LicenceCheck(client=make_client())
    person = next(p for p in dataset.approvals if dataset.approvals[p] and dataset.duties.get(p))
    run(check.load_person(person))
    assert len(check.approvals) == len(dataset.approvals[person])
    assert set(check.approvals["approval_state"].dropna()) <= {"active", "expired", "no expiry"}
    assert len(check.duties) == len(dataset.duties[person])
    (uid, case), record = next(iter(dataset.enforcement.items()))
    assert run(check.load_enforcement(uid, case))["enforcement_summarized_facts"] is not None
    alert_id = next(iter(dataset.alerts))
    assert run(check.load_alert(alert_id))["case_id"] == dataset.alerts[alert_id]["case_id"]
    assert not run(check.search_companies(dataset.licensees[0]["name_en"][:8])).empty
    assert len(run(check.load_former())) == len(dataset.company_register())
    run(check.load_enforcement(uid, "NO-SUCH-CASE"))
    assert check.enforcement is None and "no enforcement action" in check.message


def test_an_unknown_fund_is_refused_and_the_loaded_one_stays(make_client, dataset):
    fund = multi_class_fund(dataset)
    sheet = run(FundFactsheet(client=make_client()).load(fund["proj_id"]))
    before = {name: getattr(sheet, name) for name in ("proj_id", "fund", "periods")}
    fees = sheet.fees.copy()
    for bad, words in (("M9999_2099", "no data for fund"), ("not a fund id", "not a fund project id"), ("<script>", "not a fund")):
        with pytest.raises(BadInputError, match=words):
            run(sheet.load(bad))
        assert {n: getattr(sheet, n) for n in before} == before
        assert sheet.fees.equals(fees) and not sheet.loading


def test_an_old_fund_without_any_data_still_loads_when_its_record_is_known(make_client, simulator, dataset):
    # an old cancelled fund that answers 204 everywhere (the simulator serves its data set live)
    record = dict(dataset.funds[0], proj_id="M0999_2540", fund_status="CA", proj_abbr_name="OLD-CA")
    simulator.app.dataset.funds.append(record)
    try:
        sheet = run(FundFactsheet(client=make_client()).load(record["proj_id"], fund=record))
        assert sheet.fund is record and sheet.holdings == {} and sheet.fees.empty and sheet.errors == {}
        with pytest.raises(BadInputError, match="no data for fund"):
            run(FundFactsheet(client=make_client()).load(record["proj_id"]))  # nothing says this id exists
    finally:
        simulator.app.dataset.funds.remove(record)

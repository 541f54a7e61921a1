"""LicenceCheck on both layouts: the register's lookups, and the ones only the current service has."""

from __future__ import annotations

import pytest
from pandas.testing import assert_frame_equal

from dashboard.errors import BadInputError
from dashboard.models.licensee import LicenceCheck
from dashboard.records import normalise_payload, records_frame
from dashboard.models.source import run


def test_person_lookup_gives_the_same_approvals_on_both_layouts(demo_client, dataset):
    person = next(p for p in dataset.approvals if dataset.approvals[p])
    check = run(LicenceCheck(client=demo_client).load_person(person))
    expected = normalise_payload("approval", dataset.approvals[person], list_expected=True)
    assert sorted(check.approvals["lic_code"]) == sorted(a["lic_code"] for a in expected)
    assert sorted(check.approvals["approval_state"].dropna()) == sorted(
        a["approval_state"] for a in expected if a["approval_state"])


def test_current_service_lookups(demo_client, dataset):
    check = LicenceCheck(client=demo_client)
    company = dataset.amcs[0]["unique_id"]
    (uid, case), _ = next(iter(dataset.enforcement.items()))
    if demo_client.layout() == "legacy":
        for lookup in (lambda: run(check.search_people("Demowong")), lambda: run(check.load_company(company)),
                       lambda: run(check.load_cases(uid)), lambda: run(check.load_alert_cases())):
            with pytest.raises(BadInputError, match="only by the current service"):
                lookup()
        assert check.people.empty and check.records == {}  # nothing changed
        return
    person = dataset.persons[0]
    people = run(check.search_people(person["name_en"].split()[-1]))
    assert person["unique_id"] in set(people["unique_id"])
    assert people.loc[people["unique_id"] == person["unique_id"], "name_en"].iloc[0] == person["name_en"]
    run(check.load_company(company))
    assert not check.company_licences.empty and check.company_licences["lic_name_en"].notna().all()
    assert set(check.personnel["company_unique_id"]) == {company}
    assert not check.business.empty and check.business["action_status_label_en"].notna().all()
    assert_frame_equal(check.company_licences, records_frame("company_licence", check.records["licences"]))
    cases = run(check.load_cases(uid))
    assert case in set(cases["case_id"]) and cases["enforcement_type_label_en"].notna().all()
    alerts = run(check.load_alert_cases())
    assert set(alerts["case_id"]) == set(dataset.alerts)


def test_duties_read_with_company_names(demo_client, dataset):
    person = next(p for p in dataset.duties if dataset.duties[p])
    check = LicenceCheck(client=demo_client)
    run(check.load_person(person))
    before = check.with_company_names(check.duties)
    assert list(before["company"]) == list(check.duties["company_unique_id"])  # no names known yet
    run(check.load_former())
    run(check.search_companies("Demo"))
    named = check.with_company_names(check.duties)
    names = check.company_names()
    for uid, shown in zip(named["company_unique_id"], named["company"]):
        assert shown == (f"{names[uid]} ({uid})" if uid in names else uid)
    assert any(uid in names for uid in named["company_unique_id"])

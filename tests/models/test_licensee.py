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


def test_former_licensees_leave_out_the_companies_that_hold_a_licence_now(demo_client, dataset):
    """Issue 39: the service's company list is of every entity that *ever* held a licence, so 'Former licensees'
    listed 8 of the 9 fund management companies that hold licences now. The current service lists those (S7);
    the older one lists none, so there the list stays the service's."""
    check = LicenceCheck(client=demo_client)
    former = run(check.load_former())
    listed = set(former["unique_id"])
    register = {r["unique_id"] for r in dataset.company_register()}
    current = {a["unique_id"] for a in dataset.amcs}
    assert current & register  # the service's list does name today's fund management companies
    assert {f["unique_id"] for f in dataset.former_licensees} <= listed
    assert [r["unique_id"] for r in check.records["former"]] == list(former["unique_id"])
    if demo_client.layout() == "successor":
        assert not listed & current
        assert listed == register - current and set(check.current_licensees) == current
    else:
        assert listed == register and check.current_licensees == []


def test_duties_read_with_company_names(demo_client, dataset):
    person = next(p for p in dataset.duties if dataset.duties[p])
    check = LicenceCheck(client=demo_client)
    run(check.load_person(person))
    # the person's lookup read the company list (E16): every duty's company is named, with no other list shown
    first = check.with_company_names(check.duties)
    assert all(shown == f"{check.register_names[uid]} ({uid})" for uid, shown in zip(first["company_unique_id"], first["company"]))
    run(check.load_former())
    run(check.search_companies("Demo"))
    named = check.with_company_names(check.duties)
    names = check.company_names()
    for uid, shown in zip(named["company_unique_id"], named["company"]):
        assert shown == (f"{names[uid]} ({uid})" if uid in names else uid)
    assert any(uid in names for uid in named["company_unique_id"])


def test_the_case_view_knows_the_kind_of_action_the_case_list_names(demo_client, dataset):
    from dashboard.models.licensee import enforcement_meanings
    from dashboard.records.licence_labels import enforcement_type_key

    (uid, case), _ = next(iter(dataset.enforcement.items()))
    check = LicenceCheck(client=demo_client)
    if demo_client.layout() == "legacy":  # no case list there: the kind stays unknown, and nothing fails
        assert run(check.load_enforcement(uid, case)) and check.enforcement_kind is None
        return
    listed = run(LicenceCheck(client=demo_client).load_cases(uid))
    expected = enforcement_type_key(listed.loc[listed["case_id"] == case, "enforcement_type"].iloc[0])
    assert expected is not None
    run(check.load_enforcement(uid, case))  # without the list loaded: the model reads it
    assert check.enforcement_kind == expected
    run(check.load_cases(uid))
    run(check.load_enforcement(uid, case))  # with the list loaded: the same answer
    assert check.enforcement_kind == expected and enforcement_meanings(expected) is not None


def test_each_field_of_a_case_reads_the_kind_by_its_own_numbering():
    from dashboard.models.licensee import case_kind, enforcement_meanings

    assert enforcement_meanings("complaint")["date"][1] == "date of complaint"
    fine, action = enforcement_meanings("administrative_fine"), enforcement_meanings("administrative_action")
    assert fine["date"][1] == "date of administrative fine" and fine["details"][1].startswith("administrative fine")
    assert action["date"][1].startswith("date of administrative action") and action["details"][1].startswith("administrative action")
    assert enforcement_meanings(None) is None and enforcement_meanings("other") is None
    cases = records_frame("enforcement_case", normalise_payload("enforcement_case", [
        {"last_upd_date": "2024-01-01", "enforcement_type": "กล่าวโทษ", "case_id": "A"},
        {"last_upd_date": "2024-01-01", "enforcement_type": "ปรับทางปกครอง", "case_id": "B"}], list_expected=True))
    assert (case_kind(cases, "A"), case_kind(cases, "B"), case_kind(cases, "C")) == ("complaint", "administrative_fine", None)


@pytest.mark.parametrize("layout", ["legacy", "successor"])
def test_the_company_list_is_read_once_for_many_peoples_duties(make_client, simulator, dataset, layout):
    """Naming duties' companies costs one list call (E16), not one per person or per company, and no call at all
    for a person without duties."""
    people = [p for p, duties in sorted(dataset.duties.items()) if duties][:3]
    check = LicenceCheck(client=make_client(layout=layout, use_cache=False))
    for person in people:
        run(check.load_person(person))
        assert all(check.register_names.get(d["company_unique_id"]) for d in dataset.duties[person])
    def lists() -> int:
        return sum(1 for method, path in simulator.app.requests if method == "GET" and path.endswith("/licensee/company"))

    assert lists() == 1
    assert run(check.load_register_names()) == check.register_names and lists() == 1
    idle = next(p["unique_id"] for p in dataset.persons if not dataset.duties.get(p["unique_id"]))
    other = LicenceCheck(client=make_client(layout=layout, use_cache=False))
    run(other.load_person(idle))
    assert other.register_names is None and lists() == 1

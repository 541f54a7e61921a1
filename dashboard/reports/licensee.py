"""The licence-check report: a person's approvals and duties (or a company's record), and enforcement cases."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any


from dashboard.api.sync import SecClient
from dashboard.api.endpoints import validate_path_param
from dashboard.errors import SecApiError
from dashboard.config import LAYOUT_SUCCESSOR
from dashboard.models.licensee import (LicenceCheck, amc_names, duties_past_approval, enforcement_meanings, fine_unpaid,
                                       kind_label)
from dashboard.models.search import FundSearch
from dashboard.models.source import run
from dashboard.present import charts
from dashboard.records import (
    APPROVAL_NO_EXPIRY,
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    ENFORCEMENT_REMARK_MEANING,
)
from dashboard.records.labels import label
from dashboard.reports.blocks import Card, Caution, Column, Heading, Note, Table, date_col, key_values, table
from dashboard.reports.document import ReportDocument
from dashboard.reports.embed import safe_chart
from dashboard.present.text import PERSON_ID_TITLE, apply_type_text, fmt_date, fmt_datetime, is_missing, latest_update, text

def name_with_code(record, code_key: str, name_key: str) -> str | None:
    """An approval or duty by name with its code beside it ("Investment planner (IP)"); the code alone when no
    answer names it (the legacy layout)."""
    code = record.get(code_key)
    names = [record.get(f"{name_key}_en"), record.get(f"{name_key}_th")]
    names = [str(n) for n in names if not is_missing(n)]
    if not names:
        return None if is_missing(code) else str(code)
    return " · ".join(names) + ("" if is_missing(code) else f" ({code})")


def _both(pair: tuple[str, str]) -> str:
    thai, english = pair
    return f"{english} ({thai})"


def _case_card(case_id: str, record: dict, kind: str | None = None) -> Card:
    """One case; with the kind of action the case list names, what its date, details and remark are."""
    meanings = enforcement_meanings(kind)
    rows = [
        *([("Kind of action", f"{kind_label(kind)}, as the case list names it"),
           ("How to read it", f"the date is the {meanings['date'][1]}; the details are the {meanings['details'][1]}; "
                              f"the remark is the {meanings['remark'][1]}")] if meanings else []),
        ("Date of the action", fmt_date(record.get("enforcement_date"))),
        ("Section or law", record.get("enforcement_relevant_section_law")),
        ("Summary of the act", record.get("enforcement_summarized_facts")),
        ("Details", record.get("enforcement_details")),
        ("Remark", record.get("enforcement_remark")),
        ("Last updated", fmt_datetime(record.get("last_upd_date"))),
    ]
    flag = "The remark says the compounding fine was not paid in full; a complaint follows." if fine_unpaid(record) else ""
    return Card("enforcement", case_id, f"Enforcement case {case_id}", [(k, text(v)) for k, v in rows], flag)


def _alert_card(case_id: str, record: dict) -> Card:
    rows = [
        ("Case", record.get("case_id") or case_id),
        ("Sequence no.", record.get("seq_no")),
        ("The act (English)", record.get("license_en")),
        ("The act (Thai)", record.get("license_th")),
        ("Last updated", fmt_datetime(record.get("last_upd_date"))),
    ]
    return Card("alert", case_id, f"Investor alert {case_id}", [(k, text(v)) for k, v in rows])


def _meanings_table() -> Table | Note:
    rows = [{"type": n, "date": _both(ENFORCEMENT_DATE_MEANING[n]), "details": _both(ENFORCEMENT_DETAILS_MEANING[n]),
             "remark": _both(ENFORCEMENT_REMARK_MEANING[n])} for n in sorted(ENFORCEMENT_DATE_MEANING)]
    return table(rows, [
        Column("Action type", "type", numeric=True), Column("The date is the…", "date"),
        Column("The details are…", "details"), Column("The remark is…", "remark"),
    ], caption="How to read an enforcement record, by action type (from the specification)", css_id="enforcement-meanings")


async def _each(loads: dict[str, Any]) -> dict[str, Any]:
    """Every model operation at once; each part's result, or its exception."""
    results = await asyncio.gather(*loads.values(), return_exceptions=True)
    return dict(zip(loads, results))


def _load_all(loads: dict[str, Any], errors: dict[str, str]) -> dict[str, Any]:
    """Run the loads; a part the service failed on is named in `errors`, any other failure is raised."""
    results = run(_each(loads))
    for name, result in results.items():
        if isinstance(result, SecApiError):
            errors[name] = str(result)
        elif isinstance(result, BaseException):
            raise result
    return results


def licensee_document(client: SecClient, unique_id: str, case_ids: Sequence[str] = (), *,
                      generated_at: datetime | None = None) -> ReportDocument:
    uid = validate_path_param("unique_id", unique_id)
    cases = list(dict.fromkeys(validate_path_param("case_id", c) for c in case_ids))
    person, register, company = LicenceCheck(client=client), LicenceCheck(client=client), FundSearch(client=client)
    record = LicenceCheck(client=client)  # the company's licences, personnel, activities and case list (current service)
    case_checks = {c: LicenceCheck(client=client) for c in cases}
    errors: dict[str, str] = {}
    successor = client.layout() == LAYOUT_SUCCESSOR
    loads = {"approvals and duties": person.load_person(uid), "former": register.load_former(),
             "funds": company.company_funds(uid), **{f"case {c}": m.load_enforcement(uid, c) for c, m in case_checks.items()}}
    if successor:
        loads.update({"licences, personnel and business activities": record.load_company(uid),
                      "enforcement cases": record.load_cases(uid)})
    results = _load_all(loads, errors)
    if len(errors) == len(loads):
        raise next(r for r in results.values() if isinstance(r, SecApiError))
    approvals, duties, funds = person.approvals, person.duties, company.results
    former = next((r for r in register.records.get("former") or [] if r.get("unique_id") == uid), None)
    if former is not None and not funds.empty and "fund_status" in funds and (funds["fund_status"] == "RG").any():
        former = None  # registered funds under its management: it holds a licence now (the older service lists none)
    found = {c: m.enforcement for c, m in case_checks.items() if m.enforcement}
    kinds = {c: case_checks[c].enforcement_kind for c in found}

    # A case that is not an enforcement action of this id may be an investor-alert case (E20).
    alert_checks = {c: LicenceCheck(client=client) for c in cases if c not in found and f"case {c}" not in errors}
    if alert_checks:
        _load_all({f"alert {c}": m.load_alert(c) for c, m in alert_checks.items()}, errors)
    alerts = {c: m.alert for c, m in alert_checks.items() if m.alert}
    stale = any(m.stale for m in (person, register, company, record, *case_checks.values(), *alert_checks.values()))

    is_person = not approvals.empty or not duties.empty
    has_record = not (record.company_licences.empty and record.personnel.empty and record.business.empty)
    is_company = not funds.empty or former is not None or has_record
    who = "person" if is_person else "company" if is_company else "identifier"
    names = _company_names(client, uid, register, funds) if (is_company or not duties.empty) else {}
    if is_person and successor:  # the register names a person only in its person search
        _load_all({"name": person.load_person_name(uid)}, errors)
        if person.person_name:
            names = {**names, uid: person.person_name}
    title = f"Licence check: {names[uid]} ({uid})" if uid in names else f"Licence check: {who} {uid}"
    doc = ReportDocument(client.settings, title=title, kind="licensee", generated_at=generated_at)
    if former:
        doc.names = [(lang, former.get(key)) for lang, key in (("th", "name_th"), ("en", "name_en")) if former.get(key)]
    doc.subtitle = {
        "person": "Approvals held and current duty positions in the licence register",
        "company": "Company record in the licence register",
        "identifier": "Nothing is recorded under this identifier in the licence register",
    }[who]
    doc.fact("last-updated", "Data last updated",
             fmt_datetime(latest_update(person.records, company.records, former, list(found.values()), list(alerts.values()))))
    doc.fact("cases", "Cases asked for", ", ".join(cases) or "none")
    if stale:
        doc.header_notes.append(Caution("Some parts were served from an expired cache copy because the service failed."))
    if errors:
        doc.header_notes.append(Caution("Parts that could not be loaded: " + "; ".join(f"{k}: {v}" for k, v in errors.items())))

    if is_person or not is_company:
        _person_sections(doc, approvals, duties, client.today if is_person else None, names)
    if is_company:
        _company_section(doc, former, funds)
        if has_record:
            _company_record_sections(doc, record)
    _enforcement_section(doc, uid, cases, found, kinds, alerts, errors, record.cases if successor else None)
    return doc


def _company_names(client: SecClient, uid: str, register: LicenceCheck, funds) -> dict[str, str]:
    """Company names by id: the current service's asset management companies, the former-licensee list, and the
    identifier's own funds (which name their company)."""
    names = {**amc_names(client), **register.company_names()}
    for column in ("comp_name_en", "comp_name_th"):
        if uid not in names and column in funds and not funds.empty and isinstance(funds[column].iloc[0], str):
            names[uid] = funds[column].iloc[0]
    return names


def _person_sections(doc: ReportDocument, approvals, duties, today, names: dict[str, str] | None = None) -> None:
    """Approvals (with their timeline when `today` is given: the identifier is a person's), the compliance
    warning of a duty held past its approval, and current duties."""
    names = names or {}
    if today is not None:
        flagged = duties_past_approval(approvals, duties, today)
        if not flagged.empty:
            sec = doc.section("compliance", "Compliance warning")
            for _, row in flagged.iterrows():
                uid = row["company_unique_id"]
                at = f"{names[uid]} ({uid})" if uid in names else uid
                reason = str(row["reason"])
                sec.add(Caution(f"{reason[:1].upper()}{reason[1:]} (at {at})."))
    sec = doc.section("approvals", "Approvals")
    if today is not None:
        doc.chart(sec, safe_chart(charts.licence_timeline, approvals, duties, today, names), "Approvals and duties timeline")
    if approvals.empty:
        sec.add(Note("No approvals are recorded for this identifier."))
    else:
        sec.add(table(approvals.sort_values("effective_date", ascending=False), [
            Column("Approval", lambda r: name_with_code(r, "lic_code", "lic_name")), Column("Registration no.", "regis_sale_no"),
            date_col("Effective", "effective_date"),
            Column("Expires", lambda r: "no expiry" if r.get("approval_state") == APPROVAL_NO_EXPIRY else fmt_date(r.get("expire_date"))),
            Column("State", "approval_state"),
            Column("Privilege", lambda r: None if is_missing(r.get("privilege_type")) else
                   f"{r.get('privilege_type_label_en')} ({r.get('privilege_type')})"),
            Column("Last updated", "last_upd_date", fmt_datetime),
        ], css_id="approvals-table"))
        sec.add(Note("An empty expiry date means the approval lasts while the person serves "
                     "(directors and executives, for example)."))
    sec = doc.section("duties", "Current duties")
    sec.add(table(duties.sort_values("action_start_date", ascending=False), [
        Column("Company", lambda r: f"{names[r.get('company_unique_id')]} ({r.get('company_unique_id')})"
               if r.get("company_unique_id") in names else r.get("company_unique_id")), Column("Duty", lambda r: name_with_code(r, "lic_action_code", "lic_action_name")),
        date_col("Started", "action_start_date"),
        Column("Ended", lambda r: "still serving" if is_missing(r.get("action_end_date")) else fmt_date(r.get("action_end_date"))),
        Column("Last updated", "last_upd_date", fmt_datetime),
    ], css_id="duties-table", empty="No current duty positions are recorded for this identifier."))



def _company_section(doc: ReportDocument, former: dict | None, funds) -> None:
    """The company's record in the former-licensee list and the funds it manages."""
    sec = doc.section("company", "Company")
    if former:
        sec.add(key_values([("Name (Thai)", former.get("name_th")), ("Name (English)", former.get("name_en")),
                            ("Register", "once held a licence or registration (former licensee list)"),
                            ("Last updated", fmt_datetime(former.get("last_upd_date")))]))
    if not funds.empty:
        sec.add(Heading(f"Funds managed ({len(funds)})"))
        sec.add(table(funds, [
            Column("Project id", "proj_id"), Column("Abbreviation", "proj_abbr_name"), Column("Name (English)", "proj_name_en"),
            Column("Name (Thai)", "proj_name_th"),
            Column("Status", lambda r: label("fund_status", r.get("fund_status"), "en") or r.get("fund_status")),
            date_col("Registered", "regis_date"),
        ], css_id="company-funds-table"))



def _company_record_sections(doc: ReportDocument, record: LicenceCheck) -> None:
    """The company's licences and registrations, the people on duty there and its business activities."""
    sec = doc.section("licences", "Licences and registrations")
    sec.add(table(record.company_licences, [
        Column("Licence", lambda r: name_with_code(r, "lic_code", "lic_name")), Column("Licence no.", "lic_no"),
        Column("Licensed or registered", lambda r: apply_type_text(r.get("apply_type"))),
        Column("Act", "acc_type"), date_col("Effective", "effective_date"),
        Column("Expires", lambda r: "no expiry" if r.get("approval_state") == APPROVAL_NO_EXPIRY else fmt_date(r.get("expire_date"))),
    ], css_id="company-licences-table", empty="No licences or registrations are recorded."))
    sec = doc.section("personnel", "People on duty")
    sec.add(table(record.personnel, [
        Column(PERSON_ID_TITLE, "person_unique_id"), Column("Duty", lambda r: name_with_code(r, "lic_action_code", "lic_action_name")),
        date_col("Started", "action_start_date"),
    ], css_id="personnel-table", empty="No people on duty are recorded."))
    sec = doc.section("business", "Business activities")
    sec.add(table(record.business, [
        Column("Licence", lambda r: name_with_code(r, "lic_code", "lic_name")),
        Column("Activity", lambda r: name_with_code(r, "lic_action_code", "lic_action_name")),
        date_col("Since", "action_start_date"),
        Column("Status", lambda r: r.get("action_status_label_en") or r.get("action_status")),
        Column("Remark", "action_remark"),
    ], css_id="business-table", empty="No business activities are recorded."))



def _enforcement_section(doc: ReportDocument, uid: str, cases: list[str], found: dict, kinds: dict, alerts: dict,
                         errors: dict[str, str], case_list=None) -> None:
    """The case list (current service), then each case asked for: an enforcement record, an investor alert, a
    failure or nothing recorded."""
    sec = doc.section("enforcement", "Enforcement and investor alerts")
    if case_list is not None and "enforcement cases" not in errors:
        sec.add(table(case_list, [
            Column("Case", "case_id"),
            Column("Kind of action", lambda r: r.get("enforcement_type_label_en") and
                   f"{r.get('enforcement_type_label_en')} ({r.get('enforcement_type')})" or r.get("enforcement_type")),
            Column("Last updated", "last_upd_date", fmt_datetime),
        ], caption="Enforcement cases recorded", css_id="cases-table",
            empty="No enforcement cases are recorded under this identifier."))
    elif not cases:
        sec.add(Note("This service publishes no list of a person's or company's cases; enforcement actions are "
                     "found by their case reference."))
    for case_id in cases:
        if case_id in found:
            sec.add(_case_card(case_id, found[case_id], kinds[case_id]))
        elif case_id in alerts:
            sec.add(_alert_card(case_id, alerts[case_id]))
        elif f"case {case_id}" in errors or f"alert {case_id}" in errors:
            sec.add(Caution(f"Case {case_id} could not be loaded: {errors.get(f'case {case_id}') or errors.get(f'alert {case_id}')}"))
        else:
            sec.add(Note(f"No enforcement action or investor alert is recorded under case {case_id} for {uid}."))
    unknown = [c for c in found if enforcement_meanings(kinds[c]) is None]
    if unknown:
        sec.add(Heading("Reading an enforcement record"))
        sec.add(Note(f"No case list names the kind of action of case {', '.join(unknown)} (a case record never does), and "
                     "the kind decides what the date and the details mean. The table below gives the meaning for each kind."))
        sec.add(_meanings_table())

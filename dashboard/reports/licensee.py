"""The licence-check report: a person's approvals and duties (or a company's record), and enforcement cases."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any


from dashboard.api.sync import SecClient
from dashboard.api.endpoints import validate_path_param
from dashboard.errors import SecApiError
from dashboard.models.licensee import LicenceCheck, enforcement_meanings, fine_unpaid, kind_label
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
from dashboard.present.text import fmt_date, fmt_datetime, is_missing, latest_update, text

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
    case_checks = {c: LicenceCheck(client=client) for c in cases}
    errors: dict[str, str] = {}
    loads = {"approvals and duties": person.load_person(uid), "former": register.load_former(),
             "funds": company.company_funds(uid), **{f"case {c}": m.load_enforcement(uid, c) for c, m in case_checks.items()}}
    results = _load_all(loads, errors)
    if len(errors) == len(loads):
        raise next(r for r in results.values() if isinstance(r, SecApiError))
    approvals, duties, funds = person.approvals, person.duties, company.results
    former = next((r for r in register.records.get("former") or [] if r.get("unique_id") == uid), None)
    found = {c: m.enforcement for c, m in case_checks.items() if m.enforcement}
    kinds = {c: case_checks[c].enforcement_kind for c in found}

    # A case that is not an enforcement action of this id may be an investor-alert case (E20).
    alert_checks = {c: LicenceCheck(client=client) for c in cases if c not in found and f"case {c}" not in errors}
    if alert_checks:
        _load_all({f"alert {c}": m.load_alert(c) for c, m in alert_checks.items()}, errors)
    alerts = {c: m.alert for c, m in alert_checks.items() if m.alert}
    stale = any(m.stale for m in (person, register, company, *case_checks.values(), *alert_checks.values()))

    is_person = not approvals.empty or not duties.empty
    is_company = not funds.empty or former is not None
    who = "person" if is_person else "company" if is_company else "identifier"
    doc = ReportDocument(client.settings, title=f"Licence check: {who} {uid}", kind="licensee", generated_at=generated_at)
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
        _person_sections(doc, approvals, duties, client.today if is_person else None)
    if is_company:
        _company_section(doc, former, funds)
    _enforcement_section(doc, uid, cases, found, kinds, alerts, errors)
    return doc


def _person_sections(doc: ReportDocument, approvals, duties, today) -> None:
    """Approvals (with their timeline when `today` is given: the identifier is a person's) and current duties."""
    sec = doc.section("approvals", "Approvals")
    if today is not None:
        doc.chart(sec, safe_chart(charts.licence_timeline, approvals, duties, today), "Approvals and duties timeline")
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
        Column("Company id", "company_unique_id"), Column("Duty", lambda r: name_with_code(r, "lic_action_code", "lic_action_name")),
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



def _enforcement_section(doc: ReportDocument, uid: str, cases: list[str], found: dict, kinds: dict, alerts: dict,
                         errors: dict[str, str]) -> None:
    """Each case asked for: an enforcement record, an investor alert, a failure or nothing recorded."""
    sec = doc.section("enforcement", "Enforcement and investor alerts")
    if not cases:
        sec.add(Note("No case was asked for. Enforcement actions are looked up by case reference: add --case CASE_ID."))
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

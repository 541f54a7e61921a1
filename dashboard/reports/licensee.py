"""The licence-check report: a person's approvals and duties (or a company's record), and enforcement cases."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from datetime import datetime

import holoviews as hv
import pandas as pd

from dashboard.api.client import SecClient
from dashboard.api.endpoints import validate_path_param
from dashboard.errors import SecApiError
from dashboard.models.source import outcome
from dashboard.records import (
    APPROVAL_NO_EXPIRY,
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    ENFORCEMENT_REMARK_MEANING,
    records_frame,
)
from dashboard.records.labels import label
from dashboard.reports.document import (
    Column,
    ReportDocument,
    date_col,
    esc,
    fmt_date,
    fmt_datetime,
    html_table,
    is_missing,
    key_value_table,
    latest_update,
    note,
    safe_chart,
    warning,
)
from dashboard.present import charts

# The specification's rule for an unpaid compounding fine: the remark says so (Thai or English).
_UNPAID = re.compile(r"ไม่ชำระ|ชำระไม่ครบ|not paid in full|unpaid|partly paid", re.I)
_KIND_COLORS = {"approval": "#3b6ea5", "approval (no expiry)": "#9ecae1", "duty": "#59a14f"}



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


def licence_timeline(approvals: pd.DataFrame, duties: pd.DataFrame, today) -> hv.Element:
    """Approvals (effective to expiry) and current duties (start to today) as bars on a time axis."""
    rows = []
    now = pd.Timestamp(today)
    for r in approvals.sort_values("effective_date").to_dict("records"):
        if pd.isna(r.get("effective_date")):
            continue
        open_ended = r.get("approval_state") == APPROVAL_NO_EXPIRY or pd.isna(r.get("expire_date"))
        end = now if open_ended else r["expire_date"]
        rows.append({"what": f"approval {r.get('lic_code') or '?'}", "kind": "approval (no expiry)" if open_ended else "approval",
                     "start": r["effective_date"], "end": max(end, r["effective_date"]),
                     "state": str(r.get("approval_state") or "-"), "from": fmt_date(r["effective_date"]),
                     "to": "no expiry" if open_ended else fmt_date(r["expire_date"])})
    for r in duties.sort_values("action_start_date").to_dict("records"):
        if pd.isna(r.get("action_start_date")):
            continue
        end = now if pd.isna(r.get("action_end_date")) else r["action_end_date"]
        rows.append({"what": f"duty {r.get('lic_action_code') or '?'} at {r.get('company_unique_id') or '?'}", "kind": "duty",
                     "start": r["action_start_date"], "end": max(end, r["action_start_date"]),
                     "state": "serving" if pd.isna(r.get("action_end_date")) else "ended",
                     "from": fmt_date(r["action_start_date"]),
                     "to": "still serving" if pd.isna(r.get("action_end_date")) else fmt_date(r["action_end_date"])})
    if not rows:
        return charts.empty_chart("No dated approvals or duties to draw")
    data = pd.DataFrame(rows)
    data["y0"] = data["y1"] = range(len(data))
    data = data.astype({"what": str, "kind": str, "state": str, "from": str, "to": str})
    ticks = [(i, w) for i, w in enumerate(data["what"])]
    segments = hv.Segments(data, kdims=[hv.Dimension("start", label="From"), hv.Dimension("y0", label="Item"), "end", "y1"],
                           vdims=["what", "kind", "state", "from", "to"]).opts(
        color=hv.dim("kind").categorize(_KIND_COLORS, default="#999999"), line_width=14, tools=["hover"],
        yticks=ticks, ylim=(-0.7, len(data) - 0.3), xlabel="Date", ylabel="", title="Approvals and current duties over time",
        width=charts.WIDTH + 160, height=max(200, 34 * len(data) + 90), toolbar=None)
    return segments * hv.VLine(now).opts(color="#d62728", line_dash="dashed", line_width=1)


def _case_card(case_id: str, record: dict) -> str:
    remark = record.get("enforcement_remark")
    unpaid = isinstance(remark, str) and _UNPAID.search(remark)
    rows = [
        ("Date of the action", fmt_date(record.get("enforcement_date"))),
        ("Section or law", record.get("enforcement_relevant_section_law")),
        ("Summary of the act", record.get("enforcement_summarized_facts")),
        ("Details", record.get("enforcement_details")),
        ("Remark", remark),
        ("Last updated", fmt_datetime(record.get("last_upd_date"))),
    ]
    items = "".join(f"<dt>{html.escape(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows)
    flag = warning("The remark says the compounding fine was not paid in full; a complaint follows.") if unpaid else ""
    return (f'<div class="case enforcement" data-case="{esc(case_id)}"><h3>Enforcement case {esc(case_id)}</h3>'
            f"<dl>{items}</dl>{flag}</div>")


def _alert_card(case_id: str, record: dict) -> str:
    rows = [
        ("Case", record.get("case_id") or case_id),
        ("Sequence no.", record.get("seq_no")),
        ("The act (English)", record.get("license_en")),
        ("The act (Thai)", record.get("license_th")),
        ("Last updated", fmt_datetime(record.get("last_upd_date"))),
    ]
    items = "".join(f"<dt>{html.escape(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows)
    return f'<div class="case alert" data-case="{esc(case_id)}"><h3>Investor alert {esc(case_id)}</h3><dl>{items}</dl></div>'


def _meanings_table() -> str:
    rows = [{"type": n, "date": _both(ENFORCEMENT_DATE_MEANING[n]), "details": _both(ENFORCEMENT_DETAILS_MEANING[n]),
             "remark": _both(ENFORCEMENT_REMARK_MEANING[n])} for n in sorted(ENFORCEMENT_DATE_MEANING)]
    return html_table(rows, [
        Column("Action type", "type", numeric=True), Column("The date is the…", "date"),
        Column("The details are…", "details"), Column("The remark is…", "remark"),
    ], caption="How to read an enforcement record, by action type (from the specification)", css_id="enforcement-meanings")


def licensee_document(client: SecClient, unique_id: str, case_ids: Sequence[str] = (), *,
                      generated_at: datetime | None = None) -> ReportDocument:
    uid = validate_path_param("unique_id", unique_id)
    cases = list(dict.fromkeys(validate_path_param("case_id", c) for c in case_ids))
    calls = [("E17", {"unique_id": uid}), ("E18", {"unique_id": uid}), ("E2", {"unique_id": uid}), ("E16", {})]
    calls += [("E19", {"unique_id": uid, "case_id": c}) for c in cases]
    results = client.fetch_many(calls)
    if all(isinstance(r, BaseException) for r in results):
        raise next(r for r in results if isinstance(r, BaseException))
    data, errors, stale = [], {}, False
    names = ["approvals", "duties", "funds", "former"] + [f"case {c}" for c in cases]
    for name, result in zip(names, results):
        if isinstance(result, BaseException) and not isinstance(result, SecApiError):
            raise result
        value, error, was_stale = outcome(result)
        data.append(value)
        stale |= was_stale
        if error:
            errors[name] = error
    approvals_raw, duties_raw, funds_raw, former_raw, *case_records = data
    approvals = records_frame("approval", approvals_raw or [])
    duties = records_frame("duty", duties_raw or [])
    funds = records_frame("fund", funds_raw or [])
    former = next((r for r in former_raw or [] if r.get("unique_id") == uid), None)

    # A case that is not an enforcement action of this id may be an investor-alert case (E20).
    alert_ids = [c for c, rec in zip(cases, case_records) if rec is None and f"case {c}" not in errors]
    alerts: dict[str, dict] = {}
    if alert_ids:
        for case_id, result in zip(alert_ids, client.fetch_many([("E20", {"case_id": c}) for c in alert_ids])):
            if isinstance(result, BaseException) and not isinstance(result, SecApiError):
                raise result
            value, error, was_stale = outcome(result)
            stale |= was_stale
            if error:
                errors[f"alert {case_id}"] = error
            elif value:
                alerts[case_id] = value

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
    found = {c: r for c, r in zip(cases, case_records) if r}
    doc.fact("last-updated", "Data last updated",
             fmt_datetime(latest_update(approvals_raw, duties_raw, funds_raw, former, list(found.values()), list(alerts.values()))))
    doc.fact("cases", "Cases asked for", ", ".join(cases) or "none")
    if stale:
        doc.header_notes.append(warning("Some parts were served from an expired cache copy because the service failed."))
    if errors:
        doc.header_notes.append(warning("Parts that could not be loaded: " + "; ".join(f"{k}: {v}" for k, v in errors.items())))

    if is_person or not is_company:
        sec = doc.section("approvals", "Approvals")
        if is_person:
            doc.chart(sec, safe_chart(licence_timeline, approvals, duties, client.today), "Approvals and duties timeline")
        if approvals.empty:
            sec.parts.append(note("No approvals are recorded for this identifier."))
        else:
            sec.parts.append(html_table(approvals.sort_values("effective_date", ascending=False), [
                Column("Approval", lambda r: name_with_code(r, "lic_code", "lic_name")), Column("Registration no.", "regis_sale_no"),
                date_col("Effective", "effective_date"),
                Column("Expires", lambda r: "no expiry" if r.get("approval_state") == APPROVAL_NO_EXPIRY else fmt_date(r.get("expire_date"))),
                Column("State", "approval_state"),
                Column("Privilege", lambda r: None if is_missing(r.get("privilege_type")) else
                       f"{r.get('privilege_type_label_en')} ({r.get('privilege_type')})"),
                Column("Last updated", "last_upd_date", fmt_datetime),
            ], css_id="approvals-table"))
            sec.parts.append(note("An empty expiry date means the approval lasts while the person serves "
                                  "(directors and executives, for example)."))
        sec = doc.section("duties", "Current duties")
        sec.parts.append(html_table(duties.sort_values("action_start_date", ascending=False), [
            Column("Company id", "company_unique_id"), Column("Duty", lambda r: name_with_code(r, "lic_action_code", "lic_action_name")),
            date_col("Started", "action_start_date"),
            Column("Ended", lambda r: "still serving" if is_missing(r.get("action_end_date")) else fmt_date(r.get("action_end_date"))),
            Column("Last updated", "last_upd_date", fmt_datetime),
        ], css_id="duties-table", empty="No current duty positions are recorded for this identifier."))

    if is_company:
        sec = doc.section("company", "Company")
        if former:
            sec.parts.append(key_value_table([("Name (Thai)", former.get("name_th")), ("Name (English)", former.get("name_en")),
                                              ("Register", "once held a licence or registration (former licensee list)"),
                                              ("Last updated", fmt_datetime(former.get("last_upd_date")))]))
        if not funds.empty:
            sec.parts.append(f"<h3>Funds managed ({len(funds)})</h3>")
            sec.parts.append(html_table(funds, [
                Column("Project id", "proj_id"), Column("Abbreviation", "proj_abbr_name"), Column("Name (English)", "proj_name_en"),
                Column("Name (Thai)", "proj_name_th"),
                Column("Status", lambda r: label("fund_status", r.get("fund_status"), "en") or r.get("fund_status")),
                date_col("Registered", "regis_date"),
            ], css_id="company-funds-table"))

    sec = doc.section("enforcement", "Enforcement and investor alerts")
    if not cases:
        sec.parts.append(note("No case was asked for. Enforcement actions are looked up by case reference: add --case CASE_ID."))
    for case_id, record in zip(cases, case_records):
        if record:
            sec.parts.append(_case_card(case_id, record))
        elif case_id in alerts:
            sec.parts.append(_alert_card(case_id, alerts[case_id]))
        elif f"case {case_id}" in errors or f"alert {case_id}" in errors:
            sec.parts.append(warning(f"Case {case_id} could not be loaded: {errors.get(f'case {case_id}') or errors.get(f'alert {case_id}')}"))
        else:
            sec.parts.append(note(f"No enforcement action or investor alert is recorded under case {case_id} for {uid}."))
    if found:
        sec.parts.append("<h3>Reading an enforcement record</h3>")
        sec.parts.append(note("The record does not say what kind of action it is, and the kind of action decides what the date and "
                              "the details mean. The table below gives the meaning for each kind."))
        sec.parts.append(_meanings_table())
    return doc

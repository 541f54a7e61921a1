"""Licensee: company search (E15), former licensees (E16), a person's approvals and duties (E17, E18),
an enforcement case (E19) and an investor-alert case (E20)."""

from __future__ import annotations

import html

import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import SecApiError
from dashboard.models.licensee import LicenceCheck
from dashboard.records.labels import (
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    ENFORCEMENT_REMARK_MEANING,
)
from dashboard.views.common import data_table, html_pane, notify_error, section_title, stale_badge, update_table
from dashboard.present.text import display_frame, empty_html, esc, fmt_date, kv_table

COMPANY_COLUMNS = ["unique_id", "name_en", "name_th", "last_upd_date"]
COMPANY_TITLES = {"unique_id": "Identifier", "name_en": "English name", "name_th": "Thai name", "last_upd_date": "Updated"}
APPROVAL_COLUMNS = ["lic_name_en", "lic_code", "regis_sale_no", "effective_date", "expire_date", "approval_state",
                    "privilege_type_label_en"]
APPROVAL_TITLES = {"lic_name_en": "Approval", "lic_code": "Approval code", "regis_sale_no": "Registration no.",
                   "effective_date": "Effective", "expire_date": "Expires", "approval_state": "State",
                   "privilege_type_label_en": "Privilege"}
DUTY_COLUMNS = ["company", "lic_action_name_en", "lic_action_code", "action_start_date", "action_end_date",
                "is_current"]
DUTY_TITLES = {"company": "Company", "person_unique_id": "Person", "lic_action_name_en": "Duty",
               "lic_action_code": "Duty code", "action_start_date": "Since", "action_end_date": "Until",
               "is_current": "Current"}
PERSONNEL_COLUMNS = ["person_unique_id", "lic_action_name_en", "lic_action_code", "action_start_date", "action_end_date"]
PEOPLE_COLUMNS = ["unique_id", "name_en", "name_th", "regis_sale_no"]
PEOPLE_TITLES = {"unique_id": "Identifier", "name_en": "English name", "name_th": "Thai name",
                 "regis_sale_no": "Registration no."}
LICENCE_COLUMNS = ["lic_name_en", "lic_name_th", "lic_no", "apply_type", "effective_date", "expire_date", "approval_state"]
LICENCE_TITLES = {"lic_name_en": "Licence", "lic_name_th": "Licence (Thai)", "lic_no": "Licence no.",
                  "apply_type": "Kind", "effective_date": "Effective", "expire_date": "Expires", "approval_state": "State"}
BUSINESS_COLUMNS = ["lic_name_en", "lic_action_name_en", "action_start_date", "action_status_label_en", "action_remark"]
BUSINESS_TITLES = {"lic_name_en": "Licence", "lic_action_name_en": "Activity", "action_start_date": "Since",
                   "action_status_label_en": "Status", "action_remark": "Remark"}
CASE_COLUMNS = ["case_id", "enforcement_type_label_en", "enforcement_type", "last_upd_date"]
CASE_TITLES = {"case_id": "Case", "enforcement_type_label_en": "Kind of action", "enforcement_type": "Kind (Thai)",
               "last_upd_date": "Updated"}
ALERT_CASE_COLUMNS = ["case_id", "name_en", "name_th", "disclosure_date", "website", "persuade_desc"]
ALERT_CASE_TITLES = {"case_id": "Case", "name_en": "Name", "name_th": "Thai name", "disclosure_date": "Disclosed",
                     "website": "Website", "persuade_desc": "What they offered"}
UNKNOWN_TYPE = "Kind of action not stated: every meaning is shown"
# Plain numbers: what a type means depends on the field (the specification's lists differ).
ACTION_TYPES = {UNKNOWN_TYPE: 0, **{f"Type {n}": n for n in range(1, 6)}}


def _meanings(table: dict[int, tuple[str, str]], action_type: int) -> str:
    if action_type:
        return f'<span class="sd-muted">{html.escape(table[action_type][1])}</span>'
    items = "".join(f"<li>{n}: {html.escape(en)}</li>" for n, (_th, en) in table.items())
    return f'<details><summary class="sd-muted">meaning by action type</summary><ul>{items}</ul></details>'


def enforcement_html(record: dict | None, action_type: int = 0) -> str:
    """An enforcement record (E19) with what each field means for the action type (spec numbering)."""
    if not record:
        return ""
    rows = [
        ("Section or law", f'<span class="sd-text" lang="th">{esc(record.get("enforcement_relevant_section_law"))}</span>'),
        ("Summary of facts", f'<span class="sd-text" lang="th">{esc(record.get("enforcement_summarized_facts"))}</span>'),
        ("Date", f'{esc(fmt_date(record.get("enforcement_date")))}<br>{_meanings(ENFORCEMENT_DATE_MEANING, action_type)}'),
        ("Details", f'<span class="sd-text" lang="th">{esc(record.get("enforcement_details"))}</span><br>'
                    f"{_meanings(ENFORCEMENT_DETAILS_MEANING, action_type)}"),
        ("Remark", f'<span class="sd-text" lang="th">{esc(record.get("enforcement_remark"))}</span><br>'
                   f"{_meanings(ENFORCEMENT_REMARK_MEANING, action_type)}"),
        ("Last updated", esc(fmt_date(record.get("last_upd_date")))),
    ]
    note = ('<p class="sd-muted">The kind of action decides what the date and the details mean; the date and the '
            "details number the kinds differently (3 and 4 swap), and each is read with its own list.</p>")
    return kv_table(rows) + note


def alert_html(record: dict | None) -> str:
    if not record:
        return ""
    return kv_table([
        ("Case", esc(record.get("case_id"))),
        ("Sequence", esc(record.get("seq_no"))),
        ("Act (Thai)", f'<span class="sd-text" lang="th">{esc(record.get("license_th"))}</span>'),
        ("Act (English)", f'<span class="sd-text">{esc(record.get("license_en"))}</span>'),
        ("Last updated", esc(fmt_date(record.get("last_upd_date")))),
    ])


class LicenseeView(pn.viewable.Viewer):
    """The licence register for a compliance check of a company or a person."""

    licence = param.ClassSelector(class_=LicenceCheck, doc="The licence-register model this view drives.")
    examples = param.Dict(default={}, doc="Example identifiers to prefill (demo mode): company, person, case_uid, case_id, alert.")
    action_type = param.Selector(default=0, objects=ACTION_TYPES, doc="Enforcement action type (1 to 5) used to read E19's fields.")

    def __init__(self, **params):
        super().__init__(**params)
        lic, ex = self.licence, self.examples
        self._errors: dict[str, str] = {}

        self._company_query = pmui.TextInput(label="Company name", value=ex.get("company", ""), width=320)
        self._company_query.param.watch(lambda e: pn.state.execute(self._search_companies), "enter_pressed")
        self._company_go = pmui.Button(label="Search companies", icon="search", variant="contained", margin=(12, 8))
        self._company_go.on_click(self._search_companies)
        self._companies = data_table(display_frame(lic.companies, COMPANY_COLUMNS), titles=COMPANY_TITLES,
                                     header_filters=True, page_size=8, name="licensee-companies", layout="fit_columns",
                                     widths={"unique_id": 130, "last_upd_date": 110})
        self._company_note = html_pane("")

        self._former_go = pmui.Button(label="Load former licensees", icon="history", variant="outlined", margin=(12, 8))
        self._former_go.on_click(self._load_former)
        self._former = data_table(display_frame(lic.former, COMPANY_COLUMNS), titles=COMPANY_TITLES, header_filters=True,
                                  page_size=8, name="licensee-former", layout="fit_columns",
                                  widths={"unique_id": 130, "last_upd_date": 110})
        self._former_note = html_pane("")

        # A shared link's person and case (in the licence model already) come before the examples.
        self._person_id = pmui.TextInput(label="Person identifier", value=lic.person_id or ex.get("person", ""), width=320)
        self._person_id.param.watch(lambda e: pn.state.execute(self._load_person), "enter_pressed")
        self._person_go = pmui.Button(label="Look up person", icon="person_search", variant="contained", margin=(12, 8))
        self._person_go.on_click(self._load_person)
        self._approvals = data_table(display_frame(lic.approvals, APPROVAL_COLUMNS), titles=APPROVAL_TITLES, page_size=8,
                                     name="licensee-approvals")
        self._duties = data_table(display_frame(lic.with_company_names(lic.duties), DUTY_COLUMNS), titles=DUTY_TITLES, page_size=8,
                                  name="licensee-duties")
        self._person_note = html_pane("")

        self._case_uid = pmui.TextInput(label="Person or company identifier", value=lic.enforcement_id or ex.get("case_uid", ""),
                                        width=260)
        self._case_id = pmui.TextInput(label="Case reference", value=lic.case_id or ex.get("case_id", ""), width=220)
        self._case_go = pmui.Button(label="Look up case", icon="gavel", variant="contained", margin=(12, 8))
        self._case_go.on_click(self._load_enforcement)
        self._type_select = pmui.Select.from_param(self.param.action_type, label="Action type", width=300)
        self._case = html_pane(pn.bind(self._case_html, lic.param.enforcement, self.param.action_type),
                               name="licensee-enforcement")
        self._case_note = html_pane("")

        self._alert_id = pmui.TextInput(label="Investor-alert case", value=ex.get("alert", ""), width=260)
        self._alert_go = pmui.Button(label="Look up alert", icon="campaign", variant="contained", margin=(12, 8))
        self._alert_go.on_click(self._load_alert)
        self._alert = html_pane(pn.bind(alert_html, lic.param.alert), name="licensee-alert")
        self._alert_note = html_pane("")

        # Published only by the current service: find a person, a company's licences and staff,
        # the list of enforcement cases and of investor-alert cases.
        self._people_query = pmui.TextInput(label="Person's name or registration no.", value=ex.get("person_name", ""), width=320)
        self._people_query.param.watch(lambda e: pn.state.execute(self._search_people), "enter_pressed")
        self._people_go = pmui.Button(label="Find people", icon="person_search", variant="contained", margin=(12, 8))
        self._people_go.on_click(self._search_people)
        self._people = data_table(display_frame(lic.people, PEOPLE_COLUMNS), titles=PEOPLE_TITLES, page_size=8,
                                  name="licensee-people", layout="fit_columns")
        self._people.on_click(self._pick_person)
        self._people_note = html_pane("")

        self._company_id = pmui.TextInput(label="Company identifier", value=ex.get("company_id", ""), width=320)
        self._company_id.param.watch(lambda e: pn.state.execute(self._load_company), "enter_pressed")
        self._company_id_go = pmui.Button(label="Look up company", icon="business", variant="contained", margin=(12, 8))
        self._company_id_go.on_click(self._load_company)
        self._licences = data_table(display_frame(lic.company_licences, LICENCE_COLUMNS), titles=LICENCE_TITLES,
                                    page_size=8, name="licensee-company-licences")
        self._personnel = data_table(display_frame(lic.personnel, PERSONNEL_COLUMNS), titles=DUTY_TITLES, page_size=8,
                                     name="licensee-personnel")
        self._business = data_table(display_frame(lic.business, BUSINESS_COLUMNS), titles=BUSINESS_TITLES, page_size=8,
                                    name="licensee-business")
        self._company_id_note = html_pane("")

        self._cases_id = pmui.TextInput(label="Person or company identifier", value=ex.get("case_uid", ""), width=320)
        self._cases_go = pmui.Button(label="List cases", icon="gavel", variant="outlined", margin=(12, 8))
        self._cases_go.on_click(self._load_cases)
        self._cases = data_table(display_frame(lic.cases, CASE_COLUMNS), titles=CASE_TITLES, page_size=8,
                                 name="licensee-cases", layout="fit_columns")
        self._cases.on_click(self._pick_case)
        self._cases_note = html_pane("")

        self._alert_cases_go = pmui.Button(label="List investor-alert cases", icon="campaign", variant="outlined", margin=(12, 8))
        self._alert_cases_go.on_click(self._load_alert_cases)
        self._alert_cases = data_table(display_frame(lic.alert_cases, ALERT_CASE_COLUMNS), titles=ALERT_CASE_TITLES,
                                       header_filters=True, page_size=8, name="licensee-alert-cases", layout="fit_columns")
        self._alert_cases.on_click(self._pick_alert)
        self._alert_cases_note = html_pane("")

        lic.param.watch(self._refresh, ["companies", "former", "approvals", "duties", "people", "company_licences",
                                        "personnel", "business", "cases", "alert_cases"])
        hint = ""
        if ex:
            hint = ("Demo identifiers: person " + ex.get("person", "") + ", case " + ex.get("case_uid", "") + " / "
                    + ex.get("case_id", "") + ", alert " + ex.get("alert", "") + ".")
        self._layout = pn.Column(
            pn.Row(pn.pane.Markdown("Check a company's or a person's standing in the licence register. " + hint,
                                    margin=(0, 10), sizing_mode="stretch_width"), stale_badge(lic), sizing_mode="stretch_width"),
            section_title("Licensed companies"),
            pn.Row(self._company_query, self._company_go),
            self._company_note,
            self._companies,
            section_title("Former licensees"),
            pn.Row(self._former_go, pn.pane.Markdown("Use the filters under the column titles to narrow the list.",
                                                     margin=(18, 8))),
            self._former_note,
            self._former,
            section_title("A company's licences, staff and business"),
            pn.Row(self._company_id, self._company_id_go),
            self._company_id_note,
            pn.pane.Markdown("**Licences and registrations**", margin=(0, 10)),
            self._licences,
            pn.pane.Markdown("**People on duty**", margin=(0, 10)),
            self._personnel,
            pn.pane.Markdown("**Business activities**", margin=(0, 10)),
            self._business,
            section_title("Find a person"),
            pn.Row(self._people_query, self._people_go,
                   pn.pane.Markdown("Click a person to see their approvals and duties.", margin=(18, 8))),
            self._people_note,
            self._people,
            section_title("A person's approvals and current duties"),
            pn.Row(self._person_id, self._person_go),
            self._person_note,
            pn.pane.Markdown("**Approvals** (active, expired or no expiry)", margin=(0, 10)),
            self._approvals,
            pn.pane.Markdown("**Current duties**", margin=(0, 10)),
            self._duties,
            section_title("Enforcement cases of a person or company"),
            pn.Row(self._cases_id, self._cases_go,
                   pn.pane.Markdown("Click a case to read it below.", margin=(18, 8))),
            self._cases_note,
            self._cases,
            section_title("An enforcement case"),
            pn.Row(self._case_uid, self._case_id, self._case_go),
            self._type_select,
            self._case_note,
            self._case,
            section_title("Investor alerts"),
            pn.Row(self._alert_cases_go, pn.pane.Markdown("Click a case to read what it is about.", margin=(18, 8))),
            self._alert_cases_note,
            self._alert_cases,
            section_title("An investor-alert case"),
            pn.Row(self._alert_id, self._alert_go),
            self._alert_note,
            self._alert,
            loading=lic.param.loading,
            sizing_mode="stretch_width",
        )
        self._refresh()

    def __panel__(self):
        return self._layout

    def _case_html(self, record, action_type):
        return enforcement_html(record, action_type or 0)

    def _tables(self) -> dict[str, tuple]:
        """Each model frame's table, with the columns shown and how the frame is read for display."""
        lic = self.licence
        return {
            "companies": (self._companies, COMPANY_COLUMNS, None),
            "former": (self._former, COMPANY_COLUMNS, None),
            "approvals": (self._approvals, APPROVAL_COLUMNS, None),
            "duties": (self._duties, DUTY_COLUMNS, lic.with_company_names),
            "people": (self._people, PEOPLE_COLUMNS, None),
            "company_licences": (self._licences, LICENCE_COLUMNS, None),
            "personnel": (self._personnel, PERSONNEL_COLUMNS, None),
            "business": (self._business, BUSINESS_COLUMNS, None),
            "cases": (self._cases, CASE_COLUMNS, None),
            "alert_cases": (self._alert_cases, ALERT_CASE_COLUMNS, None),
        }

    def _refresh(self, *events):
        """Redraw only the tables whose frames changed (every table when called without events):
        a burst of updates to tables the browser is still drawing is what Tabulator trips over."""
        changed = {e.name for e in events} or None
        lic = self.licence
        for name, (table, columns, prepare) in self._tables().items():
            if changed is not None and name not in changed and not (name == "duties" and changed & {"former", "companies"}):
                continue
            frame = getattr(lic, name)
            update_table(table, display_frame(prepare(frame) if prepare else frame, columns))

    async def _run(self, key: str, note: pn.pane.HTML, coro_fn, empty_check) -> None:
        """Run one lookup; show its failure or its empty result on its own section only."""
        try:
            await coro_fn()
        except SecApiError as exc:
            note.object = empty_html(f"The lookup failed: {exc}", error=True)
            notify_error(exc, "Licence register")
            return
        message = empty_check()
        note.object = empty_html(message) if message else ""

    async def _search_companies(self, *_):
        name = self._company_query.value_input or self._company_query.value
        await self._run("company", self._company_note, lambda: self.licence.asearch_companies(name),
                        lambda: self.licence.message if self.licence.companies.empty else "")

    async def _load_former(self, *_):
        await self._run("former", self._former_note, self.licence.aload_former,
                        lambda: self.licence.message if self.licence.former.empty else "")

    async def _load_person(self, *_):
        person = self._person_id.value_input or self._person_id.value
        await self._run("person", self._person_note, lambda: self.licence.aload_person(person),
                        lambda: self.licence.message if self.licence.approvals.empty and self.licence.duties.empty else "")

    async def _load_enforcement(self, *_):
        uid = self._case_uid.value_input or self._case_uid.value
        case = self._case_id.value_input or self._case_id.value
        await self._run("case", self._case_note, lambda: self.licence.aload_enforcement(uid, case),
                        lambda: self.licence.message if not self.licence.enforcement else "")

    async def _load_alert(self, *_):
        case = self._alert_id.value_input or self._alert_id.value
        await self._run("alert", self._alert_note, lambda: self.licence.aload_alert(case),
                        lambda: self.licence.message if not self.licence.alert else "")

    async def _search_people(self, *_):
        name = self._people_query.value_input or self._people_query.value
        await self._run("people", self._people_note, lambda: self.licence.asearch_people(name),
                        lambda: self.licence.message if self.licence.people.empty else "")

    async def _load_company(self, *_):
        uid = self._company_id.value_input or self._company_id.value
        lic = self.licence
        await self._run("company_id", self._company_id_note, lambda: lic.aload_company(uid),
                        lambda: lic.message if lic.company_licences.empty and lic.personnel.empty and lic.business.empty else "")

    async def _load_cases(self, *_):
        uid = self._cases_id.value_input or self._cases_id.value
        await self._run("cases", self._cases_note, lambda: self.licence.aload_cases(uid),
                        lambda: self.licence.message if self.licence.cases.empty else "")

    async def _load_alert_cases(self, *_):
        await self._run("alert_cases", self._alert_cases_note, self.licence.aload_alert_cases,
                        lambda: self.licence.message if self.licence.alert_cases.empty else "")

    def _row(self, frame, event) -> dict | None:
        if frame is None or event.row is None or not 0 <= event.row < len(frame):
            return None
        return frame.iloc[event.row].to_dict()

    def _pick_person(self, event):
        row = self._row(self.licence.people, event)
        if row and row.get("unique_id"):
            self._person_id.value = str(row["unique_id"])
            pn.state.execute(self._load_person)

    def _pick_case(self, event):
        row = self._row(self.licence.cases, event)
        if row and row.get("case_id"):
            self._case_uid.value = self.licence.cases_id
            self._case_id.value = str(row["case_id"])
            pn.state.execute(self._load_enforcement)

    def _pick_alert(self, event):
        row = self._row(self.licence.alert_cases, event)
        if row and row.get("case_id"):
            self._alert_id.value = str(row["case_id"])
            pn.state.execute(self._load_alert)

    async def aprefill(self) -> None:
        """Run the lookups a shared link asks for (person, case), and the example lookups (demo mode),
        so the tab opens with content."""
        lic = self.licence
        if not self.examples:
            if lic.person_id:
                await self._load_person()
            if lic.enforcement_id and lic.case_id:
                await self._load_enforcement()
            return
        if self.examples.get("company"):
            await self._search_companies()
        await self._load_former()
        if lic.person_id or self.examples.get("person"):
            await self._load_person()
        if (lic.enforcement_id and lic.case_id) or (self.examples.get("case_uid") and self.examples.get("case_id")):
            await self._load_enforcement()
        if self.examples.get("alert"):
            await self._load_alert()
        if self.examples.get("company_id"):
            await self._load_company()
        if self.examples.get("case_uid"):
            await self._load_cases()
        if self.examples.get("person_name"):
            await self._search_people()
        if self.examples.get("company_id"):  # the investor-alert list too, on the current service
            await self._load_alert_cases()

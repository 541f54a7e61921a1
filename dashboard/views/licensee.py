"""Licensee: company search (E15), former licensees (E16), a person's approvals and duties (E17, E18),
an enforcement case (E19) and an investor-alert case (E20)."""

from __future__ import annotations

import html

import panel as pn
import panel_material_ui as pmui
import param

from dashboard.api.errors import SecApiError
from dashboard.models.licensee import LicenceCheck
from dashboard.records.labels import (
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    ENFORCEMENT_REMARK_MEANING,
)
from dashboard.views.common import (
    data_table,
    display_frame,
    empty_html,
    esc,
    fmt_date,
    html_pane,
    kv_table,
    notify_error,
    section_title,
    stale_badge,
    update_table,
)

COMPANY_COLUMNS = ["unique_id", "name_en", "name_th", "last_upd_date"]
COMPANY_TITLES = {"unique_id": "Identifier", "name_en": "English name", "name_th": "Thai name", "last_upd_date": "Updated"}
APPROVAL_COLUMNS = ["lic_code", "regis_sale_no", "effective_date", "expire_date", "approval_state", "privilege_type_label_en"]
APPROVAL_TITLES = {"lic_code": "Approval type", "regis_sale_no": "Registration no.", "effective_date": "Effective",
                   "expire_date": "Expires", "approval_state": "State", "privilege_type_label_en": "Privilege"}
DUTY_COLUMNS = ["company_unique_id", "lic_action_code", "action_start_date", "action_end_date", "is_current"]
DUTY_TITLES = {"company_unique_id": "Company", "lic_action_code": "Duty", "action_start_date": "Since",
               "action_end_date": "Until", "is_current": "Current"}
UNKNOWN_TYPE = "Not stated: show every meaning"
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
    note = ('<p class="sd-muted">The specification numbers action types differently in the date field than in the '
            "details and remark fields (types 3 and 4 swap); each field is read with its own list.</p>")
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

        self._company_query = pmui.TextInput(label="Company name (E15)", value=ex.get("company", ""), width=320)
        self._company_query.param.watch(lambda e: pn.state.execute(self._search_companies), "enter_pressed")
        self._company_go = pmui.Button(label="Search companies", icon="search", variant="contained", margin=(12, 8))
        self._company_go.on_click(self._search_companies)
        self._companies = data_table(display_frame(lic.companies, COMPANY_COLUMNS), titles=COMPANY_TITLES,
                                     header_filters=True, page_size=8, name="licensee-companies", layout="fit_columns",
                                     widths={"unique_id": 130, "last_upd_date": 110})
        self._company_note = html_pane("")

        self._former_go = pmui.Button(label="Load former licensees (E16)", icon="history", variant="outlined", margin=(12, 8))
        self._former_go.on_click(self._load_former)
        self._former = data_table(display_frame(lic.former, COMPANY_COLUMNS), titles=COMPANY_TITLES, header_filters=True,
                                  page_size=8, name="licensee-former", layout="fit_columns",
                                  widths={"unique_id": 130, "last_upd_date": 110})
        self._former_note = html_pane("")

        self._person_id = pmui.TextInput(label="Person identifier (E17, E18)", value=ex.get("person", ""), width=320)
        self._person_id.param.watch(lambda e: pn.state.execute(self._load_person), "enter_pressed")
        self._person_go = pmui.Button(label="Look up person", icon="person_search", variant="contained", margin=(12, 8))
        self._person_go.on_click(self._load_person)
        self._approvals = data_table(display_frame(lic.approvals, APPROVAL_COLUMNS), titles=APPROVAL_TITLES, page_size=8,
                                     name="licensee-approvals")
        self._duties = data_table(display_frame(lic.duties, DUTY_COLUMNS), titles=DUTY_TITLES, page_size=8,
                                  name="licensee-duties")
        self._person_note = html_pane("")

        self._case_uid = pmui.TextInput(label="Person or company identifier", value=ex.get("case_uid", ""), width=260)
        self._case_id = pmui.TextInput(label="Case reference (E19)", value=ex.get("case_id", ""), width=220)
        self._case_go = pmui.Button(label="Look up case", icon="gavel", variant="contained", margin=(12, 8))
        self._case_go.on_click(self._load_enforcement)
        self._type_select = pmui.Select.from_param(self.param.action_type, label="Action type", width=300)
        self._case = html_pane(pn.bind(self._case_html, lic.param.enforcement, self.param.action_type),
                               name="licensee-enforcement")
        self._case_note = html_pane("")

        self._alert_id = pmui.TextInput(label="Investor-alert case (E20)", value=ex.get("alert", ""), width=260)
        self._alert_go = pmui.Button(label="Look up alert", icon="campaign", variant="contained", margin=(12, 8))
        self._alert_go.on_click(self._load_alert)
        self._alert = html_pane(pn.bind(alert_html, lic.param.alert), name="licensee-alert")
        self._alert_note = html_pane("")

        lic.param.watch(self._refresh, ["companies", "former", "approvals", "duties"])
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
            section_title("A person's approvals and current duties"),
            pn.Row(self._person_id, self._person_go),
            self._person_note,
            pn.pane.Markdown("**Approvals** (active, expired or no expiry)", margin=(0, 10)),
            self._approvals,
            pn.pane.Markdown("**Current duties**", margin=(0, 10)),
            self._duties,
            section_title("An enforcement case"),
            pn.Row(self._case_uid, self._case_id, self._case_go),
            self._type_select,
            self._case_note,
            self._case,
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

    def _refresh(self, *_):
        lic = self.licence
        update_table(self._companies, display_frame(lic.companies, COMPANY_COLUMNS))
        update_table(self._former, display_frame(lic.former, COMPANY_COLUMNS))
        update_table(self._approvals, display_frame(lic.approvals, APPROVAL_COLUMNS))
        update_table(self._duties, display_frame(lic.duties, DUTY_COLUMNS))

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

    async def aprefill(self) -> None:
        """Run the example lookups (demo mode), so the tab opens with content."""
        if not self.examples:
            return
        if self.examples.get("company"):
            await self._search_companies()
        await self._load_former()
        if self.examples.get("person"):
            await self._load_person()
        if self.examples.get("case_uid") and self.examples.get("case_id"):
            await self._load_enforcement()
        if self.examples.get("alert"):
            await self._load_alert()

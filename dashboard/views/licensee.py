"""Licensee: company search (E15), former licensees (E16), a person's approvals and duties (E17, E18),
an enforcement case (E19) and an investor-alert case (E20)."""

from __future__ import annotations


import panel as pn
import panel_material_ui as pmui
import param
from markupsafe import Markup

from dashboard.errors import SecApiError
from dashboard.models.licensee import LicenceCheck, duties_past_approval, enforcement_meanings, kind_label
from dashboard.records.licence_labels import (
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    ENFORCEMENT_REMARK_MEANING,
)
from dashboard.views.common import TableSlot, html_pane, html_text, notify_error, section_title, stale_badge, text_box
from dashboard.present.text import PERSON_ID_TITLE, display_frame, empty_html, esc, fmt_date, kv_table

COMPANY_COLUMNS = ["unique_id", "name_en", "name_th", "last_upd_date"]
# Column titles are the product's (present.text.COLUMN_TITLES); a table below overrides one only where the column
# means something else there, as said beside it.
COMPANY_TITLES: dict[str, str] = {}
APPROVAL_COLUMNS = ["lic_name_en", "lic_code", "regis_sale_no", "effective_date", "expire_date", "approval_state",
                    "privilege_type_label_en"]
# An approval's "licence" name and code are what the company is approved for (E17), not a licence it holds.
APPROVAL_TITLES = {"lic_name_en": "Approval", "lic_code": "Approval code"}
DUTY_COLUMNS = ["company", "lic_action_name_en", "lic_action_code", "action_start_date", "action_end_date",
                "is_current"]
DUTY_TITLES: dict[str, str] = {}
PERSONNEL_COLUMNS = ["person_unique_id", "lic_action_name_en", "lic_action_code", "action_start_date", "action_end_date"]
PEOPLE_COLUMNS = ["unique_id", "name_en", "name_th", "regis_sale_no"]
PEOPLE_TITLES: dict[str, str] = {}
LICENCE_COLUMNS = ["lic_name_en", "lic_name_th", "lic_no", "apply_type", "effective_date", "expire_date", "approval_state"]
LICENCE_TITLES: dict[str, str] = {}
BUSINESS_COLUMNS = ["lic_name_en", "lic_action_name_en", "action_start_date", "action_status_label_en", "action_remark"]
# A company's business licence lists the activities it may carry on under it, not a person's duties.
BUSINESS_TITLES = {"lic_action_name_en": "Activity"}
CASE_COLUMNS = ["case_id", "enforcement_type_label_en", "enforcement_type", "last_upd_date"]
# The case list shows the kind of action twice, in English (the product's label) and as the service sends it (Thai).
CASE_TITLES = {"enforcement_type_label_en": "Kind of action", "enforcement_type": "Kind of action (Thai)"}
ALERT_CASE_COLUMNS = ["case_id", "name_en", "name_th", "disclosure_date", "website", "persuade_desc"]
ALERT_CASE_TITLES: dict[str, str] = {}
COMPANY_WIDTHS = {"unique_id": 130, "last_upd_date": 110}
# Names wrap in their cells rather than end in "…".
WRAP_NAMES_CSS = "".join(f".tabulator-row .tabulator-cell[tabulator-field='{field}'] {{white-space: normal !important; "
                         "overflow-wrap: anywhere;}" for field in ("name_en", "name_th", "enforcement_type_label_en"))
# Name columns never narrower than their titles: on a phone "fit_columns" squeezed them to "En…".
NAMES_MIN_CSS = "".join(f".tabulator-col[tabulator-field='{field}'], .tabulator-cell[tabulator-field='{field}'] "
                        "{min-width: 130px !important;}" for field in ("name_en", "name_th"))

def _columns(fields: tuple[str, ...], rule: str) -> str:
    return ", ".join(f".tabulator-col[tabulator-field='{f}'], .tabulator-cell[tabulator-field='{f}']" for f in fields) + rule


# On a phone the names fit the screen: the date (and a person's registration number, shown with their approvals)
# left out, the identifier as wide as an identifier, the names sharing the rest; the Thai name ran off the screen.
PHONE_NAMES_CSS = ("@media (max-width: 600px) {"
                   + _columns(("last_upd_date", "regis_sale_no"), " {display: none !important;}")
                   + _columns(("unique_id", "case_id"), " {width: 124px !important; min-width: 124px !important;}")
                   + _columns(("name_en", "name_th"), " {width: calc((100vw - 152px) / 2) !important; "
                                                     "min-width: 100px !important;}")
                   + ".tabulator-col-title {white-space: normal !important;}}")
READABLE = {"stylesheets": [WRAP_NAMES_CSS, NAMES_MIN_CSS, PHONE_NAMES_CSS]}
# Each model frame's table: its name in the page, the columns shown, their titles, and table options.
TABLES = {
    "companies": ("companies", COMPANY_COLUMNS, COMPANY_TITLES,
                  {"header_filters": True, "layout": "fit_columns", **READABLE, "widths": COMPANY_WIDTHS}),
    "former": ("former", COMPANY_COLUMNS, COMPANY_TITLES,
               {"header_filters": True, "layout": "fit_columns", **READABLE, "widths": COMPANY_WIDTHS}),
    "approvals": ("approvals", APPROVAL_COLUMNS, APPROVAL_TITLES, {}),
    "duties": ("duties", DUTY_COLUMNS, DUTY_TITLES, {}),
    "people": ("people", PEOPLE_COLUMNS, PEOPLE_TITLES, {"layout": "fit_columns", **READABLE}),
    "company_licences": ("company-licences", LICENCE_COLUMNS, LICENCE_TITLES, {}),
    "personnel": ("personnel", PERSONNEL_COLUMNS, DUTY_TITLES, {}),
    "business": ("business", BUSINESS_COLUMNS, BUSINESS_TITLES, {}),
    "cases": ("cases", CASE_COLUMNS, CASE_TITLES, {"layout": "fit_columns", **READABLE}),
    "alert_cases": ("alert-cases", ALERT_CASE_COLUMNS, ALERT_CASE_TITLES, {"header_filters": True, "layout": "fit_columns", **READABLE}),
}
PERSONNEL_NOTE = ("The service gives people on duty by their id only (none of its lookups names a person by id). "
                  "Click one to see their approvals and duties below.")
UNKNOWN_TYPE = "Kind of action not stated: every meaning is shown"
# Plain numbers: what a type means depends on the field (the specification's lists differ).
ACTION_TYPES = {UNKNOWN_TYPE: 0, **{f"Type {n}": n for n in range(1, 6)}}


_THAI_TEXT = Markup('<span class="sd-text" lang="th">{}</span>')


def _meanings(table: dict[int, tuple[str, str]], action_type: int) -> Markup:
    if action_type:
        return Markup('<span class="sd-muted">{}</span>').format(table[action_type][1])
    items = Markup("").join(Markup("<li>{}: {}</li>").format(n, en) for n, (_th, en) in table.items())
    return Markup('<details><summary class="sd-muted">meaning by action type</summary><ul>{}</ul></details>').format(items)


def enforcement_html(record: dict | None, action_type: int = 0, kind: str | None = None) -> str:
    """An enforcement record (E19) with what each field means: for the `kind` of action the case list names,
    else for the chosen action type (spec numbering), else every meaning."""
    if not record:
        return ""
    known = enforcement_meanings(kind)
    br = Markup("<br>")
    if known:
        meaning = {field: Markup('<span class="sd-muted">{}</span>').format(en) for field, (_th, en) in known.items()}
    else:
        meaning = {field: _meanings(table, action_type) for field, table in (
            ("date", ENFORCEMENT_DATE_MEANING), ("details", ENFORCEMENT_DETAILS_MEANING), ("remark", ENFORCEMENT_REMARK_MEANING))}
    rows = [
        *([("Kind of action", Markup('{} <span class="sd-muted">(from the case list)</span>').format(kind_label(kind)))]
          if known else []),
        ("Section or law", _THAI_TEXT.format(esc(record.get("enforcement_relevant_section_law")))),
        ("Summary of facts", _THAI_TEXT.format(esc(record.get("enforcement_summarized_facts")))),
        ("Date", esc(fmt_date(record.get("enforcement_date"))) + br + meaning["date"]),
        ("Details", _THAI_TEXT.format(esc(record.get("enforcement_details"))) + br + meaning["details"]),
        ("Remark", _THAI_TEXT.format(esc(record.get("enforcement_remark"))) + br + meaning["remark"]),
        ("Last updated", esc(fmt_date(record.get("last_upd_date")))),
    ]
    if known:
        return str(kv_table(rows))
    note = Markup('<p class="sd-muted">No case list names this case\'s kind of action, and the kind decides what the '
                  "date and the details mean; the date and the details number the kinds differently (3 and 4 swap), "
                  "and each is read with its own list.</p>")
    return str(kv_table(rows) + note)


def alert_html(record: dict | None) -> str:
    if not record:
        return ""
    return str(kv_table([
        ("Case", esc(record.get("case_id"))),
        ("Sequence", esc(record.get("seq_no"))),
        ("Act (Thai)", _THAI_TEXT.format(esc(record.get("license_th")))),
        ("Act (English)", Markup('<span class="sd-text">{}</span>').format(esc(record.get("license_en")))),
        ("Last updated", esc(fmt_date(record.get("last_upd_date")))),
    ]))


def _line(*parts) -> pn.FlexBox:
    """A line of boxes, buttons and a hint that wraps on a narrow screen (a row squeezed them to "S" and "En…")."""
    return pn.FlexBox(*parts, align_items="center", sizing_mode="stretch_width")


def _button(label: str, icon: str, action, variant: str = "contained") -> pmui.Button:
    go = pmui.Button(label=label, icon=icon, variant=variant, margin=(12, 8))
    go.on_click(action)
    return go


class LicenseeView(pn.viewable.Viewer):
    """The licence register for a compliance check of a company or a person.

    The search boxes are the licence model's own parameters (`company_query`, `person_query`,
    `company_id`, `cases_id`, `alert_case_id`). The person and case boxes are this view's
    `person_id`, `enforcement_id` and `case_id`: the model's parameters of those names are the
    person and case last looked up, which a shared link carries, so typing must not change them.
    `tables` (by model frame), `notes` (by lookup) and the `enforcement_card` and `alert_card`
    are what the view shows; the lookups are the buttons' coroutines.
    """

    licence = param.ClassSelector(class_=LicenceCheck, doc="The licence-register model this view drives.")
    examples = param.Dict(default={}, doc="Example identifiers to prefill (demo mode): company, person, case_uid, case_id, alert.")
    action_type = param.Selector(default=0, objects=ACTION_TYPES, doc="Enforcement action type (1 to 5) used to read E19's fields.")
    person_id = param.String(default="", doc="The person identifier to look up next (the person box).")
    enforcement_id = param.String(default="", doc="The person or company identifier of the case to look up next.")
    case_id = param.String(default="", doc="The case reference to look up next.")

    prefill_follows = param.Boolean(default=False, doc="Whether `prefill` runs right after the view is made (the "
                                    "dashboard's first opening of the tab): the tables then wait for its lookups and "
                                    "are made once, with their rows, not first empty.")

    def __init__(self, **params):
        super().__init__(**params)
        lic, ex = self.licence, self.examples
        self._prefill()
        #: Each model frame's table, by the frame's name.
        clicks = {"companies": self._pick_company, "former": self._pick_former, "people": self._pick_person,
                  "personnel": self._pick_person_on_duty, "cases": self._pick_case, "alert_cases": self._pick_alert}
        self.tables = {frame: TableSlot(titles=titles, page_size=8, name=f"licensee-{slug}", on_click=clicks.get(frame),
                                        **options)
                       for frame, (slug, columns, titles, options) in TABLES.items()}
        for frame, (_slug, columns, _titles, _options) in TABLES.items():
            if self.prefill_follows:
                self.tables[frame].hold()  # released by `prefill`
            self.tables[frame].show(display_frame(self._shown(frame), columns))
        #: Each lookup's note: its failure, or what it found when it found nothing.
        self.notes = {key: html_pane("") for key in
                      ("company", "former", "company_id", "people", "person", "cases", "case", "alert_cases", "alert")}
        self.enforcement_card = html_pane(pn.bind(self._case_html, lic.param.enforcement, self.param.action_type,
                                                  lic.param.enforcement_kind), name="licensee-enforcement")
        self.alert_card = html_pane(pn.bind(alert_html, lic.param.alert), name="licensee-alert")
        #: Under "People on duty": a company looked up with nobody on duty says so (its table shows titles only).
        self.duty_note = html_pane(pn.bind(self._duty_note_html, lic.param.personnel, lic.param.company_licences,
                                           lic.param.business), name="licensee-duty-note")
        lic.param.watch(self._refresh, list(self.tables))
        hint = ""
        if ex:
            hint = ("Demo identifiers: person " + ex.get("person", "") + ", case " + ex.get("case_uid", "") + " / "
                    + ex.get("case_id", "") + ", alert " + ex.get("alert", "") + ".")
        self._layout = pn.Column(
            pn.Row(pn.pane.Markdown("Check a company's or a person's standing in the licence register. " + hint,
                                    margin=(0, 10), sizing_mode="stretch_width"), stale_badge(lic), sizing_mode="stretch_width"),
            *self._company_parts(), *self._person_parts(), *self._case_parts(), *self._alert_parts(),
            loading=lic.param.loading,
            sizing_mode="stretch_width",
        )

    def _prefill(self) -> None:
        """The boxes' first values: a shared link's (in the licence model already), else the examples."""
        lic, ex = self.licence, self.examples
        self.param.update(person_id=lic.person_id or ex.get("person", ""),
                          enforcement_id=lic.enforcement_id or ex.get("case_uid", ""),
                          case_id=lic.case_id or ex.get("case_id", ""))
        lic.param.update(company_query=lic.company_query or ex.get("company", ""),
                         person_query=lic.person_query or ex.get("person_name", ""),
                         company_id=lic.company_id or ex.get("company_id", ""),
                         cases_id=lic.cases_id or ex.get("case_uid", ""),
                         alert_case_id=lic.alert_case_id or ex.get("alert", ""))

    def _company_parts(self) -> list:
        lic, tables, notes = self.licence, self.tables, self.notes
        return [
            section_title("Licensed companies"),
            _line(text_box(lic.param.company_query, self.search_companies, label="Company name", width=320),
                   _button("Search companies", "search", self.search_companies),
                   pn.pane.Markdown("Click a company to see its licences, staff and business below.", margin=(4, 8))),
            notes["company"],
            tables["companies"],
            section_title("Former licensees"),
            _line(_button("Load former licensees", "history", self.load_former, "outlined"),
                   pn.pane.Markdown("Use the filters under the column titles to narrow the list.", margin=(4, 8))),
            notes["former"],
            tables["former"],
            section_title("A company's licences, staff and business"),
            _line(text_box(lic.param.company_id, self.load_company, label="Company identifier", width=320),
                   _button("Look up company", "business", self.load_company)),
            notes["company_id"],
            pn.pane.Markdown("**Licences and registrations**", margin=(0, 10)),
            tables["company_licences"],
            pn.pane.Markdown("**People on duty**", margin=(0, 10)),
            pn.pane.Markdown(PERSONNEL_NOTE, margin=(0, 10), css_classes=["sd-muted"]),
            self.duty_note,
            tables["personnel"],
            pn.pane.Markdown("**Business activities**", margin=(0, 10)),
            tables["business"],
        ]

    def _person_parts(self) -> list:
        lic, tables, notes = self.licence, self.tables, self.notes
        return [
            section_title("Find a person"),
            _line(text_box(lic.param.person_query, self.search_people, label="Person's name or registration no.", width=320),
                   _button("Find people", "person_search", self.search_people),
                   pn.pane.Markdown("Click a person to see their approvals and duties.", margin=(4, 8))),
            notes["people"],
            tables["people"],
            section_title("A person's approvals and current duties"),
            _line(text_box(self.param.person_id, self.load_person, label="Person identifier", width=320),
                   _button("Look up person", "person_search", self.load_person)),
            notes["person"],
            html_pane(pn.bind(self._duty_warning_html, lic.param.approvals, lic.param.duties), name="duty-warning"),
            pn.pane.Markdown("**Approvals** (active, expired or no expiry)", margin=(0, 10)),
            tables["approvals"],
            pn.pane.Markdown("**Current duties**", margin=(0, 10)),
            tables["duties"],
        ]

    def _duty_warning_html(self, approvals, duties) -> Markup | str:
        """A compliance warning for each duty held after every approval for its role expired."""
        flagged = duties_past_approval(approvals, duties, self.licence.api.today)
        if flagged.empty:
            return ""
        names = self.licence.company_names()
        items = Markup("").join(
            Markup("<li>{} (at {})</li>").format(row["reason"], names.get(row["company_unique_id"], row["company_unique_id"]))
            for _, row in flagged.iterrows())
        return Markup('<div class="sd-empty sd-error" role="alert"><b>Compliance warning</b>: a duty held past its '
                      "approval<ul>{}</ul></div>").format(items)

    def _case_parts(self) -> list:
        lic, tables, notes = self.licence, self.tables, self.notes
        return [
            section_title("Enforcement cases of a person or company"),
            _line(text_box(lic.param.cases_id, None, label="Person or company identifier", width=320),
                   _button("List cases", "gavel", self.load_cases, "outlined"),
                   pn.pane.Markdown("Click a case to read it below.", margin=(4, 8))),
            notes["cases"],
            tables["cases"],
            section_title("An enforcement case"),
            _line(text_box(self.param.enforcement_id, None, label="Person or company identifier", width=260),
                   text_box(self.param.case_id, None, label="Case reference", width=220),
                   _button("Look up case", "gavel", self.load_enforcement)),
            # Asked only when no case list names the case's kind of action.
            pmui.Select.from_param(self.param.action_type, label="Action type", width=300,
                                   visible=lic.param.enforcement_kind.rx.is_(None)),
            notes["case"],
            self.enforcement_card,
        ]

    def _alert_parts(self) -> list:
        lic, tables, notes = self.licence, self.tables, self.notes
        return [
            section_title("Investor alerts"),
            _line(_button("List investor-alert cases", "campaign", self.load_alert_cases, "outlined"),
                   pn.pane.Markdown("Click a case to read what it is about.", margin=(4, 8))),
            notes["alert_cases"],
            tables["alert_cases"],
            section_title("An investor-alert case"),
            _line(text_box(lic.param.alert_case_id, None, label="Investor-alert case", width=260),
                   _button("Look up alert", "campaign", self.load_alert)),
            notes["alert"],
            self.alert_card,
        ]

    def __panel__(self):
        return self._layout

    def _case_html(self, record, action_type, kind):
        return enforcement_html(record, action_type or 0, kind)

    def _shown(self, name: str):
        """A model frame as its table reads it (duties name their companies)."""
        frame = getattr(self.licence, name)
        return self.licence.with_company_names(frame) if name == "duties" else frame

    def _refresh(self, *events):
        """Make anew the tables whose frames changed."""
        changed = {e.name for e in events}
        if changed & {"former", "companies"}:
            changed.add("duties")  # company names come from those lists
        for name in changed & set(self.tables):
            self.tables[name].show(display_frame(self._shown(name), TABLES[name][1]))

    async def _run(self, key: str, lookup, nothing_found) -> None:
        """Run one lookup; show its failure or its empty result on its own section only."""
        note = self.notes[key]
        try:
            await lookup()
        except SecApiError as exc:
            note.object = html_text(empty_html(f"The lookup failed: {exc}", error=True))
            notify_error(exc, "Licence register")
            return
        message = self.licence.message if nothing_found() else ""
        note.object = html_text(empty_html(message) if message else "")

    async def search_companies(self, *_):
        """Search licensed companies by the company box's name (E15)."""
        lic = self.licence
        await self._run("company", lic.search_companies, lambda: lic.companies.empty)

    async def load_former(self, *_):
        """List former licensees (E16)."""
        lic = self.licence
        await self._run("former", lic.load_former, lambda: lic.former.empty)

    async def load_person(self, *_):
        """Look up the person box's approvals and duties (E17, E18)."""
        lic = self.licence
        await self._run("person", lambda: lic.load_person(self.person_id),
                        lambda: lic.approvals.empty and lic.duties.empty)

    async def load_enforcement(self, *_):
        """Look up the case boxes' enforcement action (E19)."""
        lic = self.licence
        await self._run("case", lambda: lic.load_enforcement(self.enforcement_id, self.case_id),
                        lambda: not lic.enforcement)

    @staticmethod
    def _duty_note_html(personnel, licences, business) -> str:
        """'Nobody is recorded on duty' when the company looked up has licences or business but no one on duty
        (nothing found at all is the lookup's own note)."""
        found = any(frame is not None and not frame.empty for frame in (licences, business))
        return empty_html("Nobody is recorded on duty at this company.") if found and (
            personnel is None or personnel.empty) else ""

    async def load_alert(self, *_):
        """Look up the alert box's investor-alert case (E20)."""
        lic = self.licence
        await self._run("alert", lic.load_alert, lambda: not lic.alert)

    async def search_people(self, *_):
        """Find approved persons by the person-search box's name or registration number."""
        lic = self.licence
        await self._run("people", lic.search_people, lambda: lic.people.empty)

    async def load_company(self, *_):
        """Look up the company box's licences, personnel and business activities."""
        lic = self.licence
        await self._run("company_id", lic.load_company,
                        lambda: lic.company_licences.empty and lic.personnel.empty and lic.business.empty)

    async def load_cases(self, *_):
        """List the enforcement cases of the cases box's person or company."""
        lic = self.licence
        await self._run("cases", lic.load_cases, lambda: lic.cases.empty)

    async def load_alert_cases(self, *_):
        """List every investor-alert case."""
        lic = self.licence
        await self._run("alert_cases", lic.load_alert_cases, lambda: lic.alert_cases.empty)

    def _row(self, frame, event) -> dict | None:
        if frame is None or event.row is None or not 0 <= event.row < len(frame):
            return None
        return frame.iloc[event.row].to_dict()

    def _pick_company(self, event):
        self._open_company(self._row(self.licence.companies, event))

    def _pick_former(self, event):
        self._open_company(self._row(self.licence.former, event))

    def _open_company(self, row: dict | None) -> None:
        """A company clicked in a list: its licences, staff and business below (as Look up company does)."""
        if row and row.get("unique_id"):
            self.licence.company_id = str(row["unique_id"])
            pn.state.execute(self.load_company)

    def _pick_person(self, event):
        row = self._row(self.licence.people, event)
        if row and row.get("unique_id"):
            self.person_id = str(row["unique_id"])
            pn.state.execute(self.load_person)

    def _pick_person_on_duty(self, event):
        """A person on duty clicked: their approvals and duties below (the service names no one by id)."""
        row = self._row(self.licence.personnel, event)
        if row and row.get("person_unique_id"):
            self.person_id = str(row["person_unique_id"])
            pn.state.execute(self.load_person)

    def _pick_case(self, event):
        row = self._row(self.licence.cases, event)
        if row and row.get("case_id"):
            self.param.update(enforcement_id=self.licence.cases_id, case_id=str(row["case_id"]))
            pn.state.execute(self.load_enforcement)

    def _pick_alert(self, event):
        row = self._row(self.licence.alert_cases, event)
        if row and row.get("case_id"):
            self.licence.alert_case_id = str(row["case_id"])
            pn.state.execute(self.load_alert)

    async def prefill(self) -> None:
        """Run the lookups a shared link asks for (person, case), and the example lookups (demo mode),
        so the tab opens with content."""
        # Each table made once, with what the last of the lookups left in it (companies, then former licensees,
        # each remade the duties table: a dozen Tabulators nobody saw).
        for table in self.tables.values():
            table.hold()
        try:
            await self._lookups()
        finally:
            for table in self.tables.values():
                table.release()

    async def _lookups(self) -> None:
        lic, ex = self.licence, self.examples
        if not ex:
            if lic.person_id:
                await self.load_person()
            if lic.enforcement_id and lic.case_id:
                await self.load_enforcement()
            return
        if ex.get("company"):
            await self.search_companies()
        await self.load_former()
        if lic.person_id or ex.get("person"):
            await self.load_person()
        if (lic.enforcement_id and lic.case_id) or (ex.get("case_uid") and ex.get("case_id")):
            await self.load_enforcement()
        if ex.get("alert"):
            await self.load_alert()
        if ex.get("company_id"):
            await self.load_company()
        if ex.get("case_uid"):
            await self.load_cases()
        if ex.get("person_name"):
            await self.search_people()
        if ex.get("company_id"):  # the investor-alert list too, on the current service
            await self.load_alert_cases()

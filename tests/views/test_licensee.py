"""The Licensee tab's enforcement case: it reads the case with the kind of action its case list names."""

from __future__ import annotations

import pandas as pd
import panel as pn
import panel_material_ui as pmui

from dashboard.models.licensee import LicenceCheck
from dashboard.models.source import run
from dashboard.records.licence_labels import enforcement_type_key
from dashboard.views.licensee import LicenseeView, enforcement_html


def _action_select(view: LicenseeView) -> pmui.Select:
    return next(w for w in view.__panel__().select(pmui.Select) if w.label == "Action type")


def test_a_case_picked_from_its_list_is_shown_with_the_kind_the_list_names(demo_client, dataset):
    (uid, case), record = next(iter(dataset.enforcement.items()))
    lic = LicenceCheck(client=demo_client)
    view = LicenseeView(licence=lic)
    view.param.update(enforcement_id=uid, case_id=case)
    run(view.load_enforcement())
    card = view.enforcement_card.object
    if demo_client.layout() == "legacy":  # no case list on the legacy service: every meaning, and the choice
        assert "meaning by action type" in card and "Kind of action" not in card and _action_select(view).visible
        return
    listed = run(LicenceCheck(client=demo_client).load_cases(uid))
    kind = enforcement_type_key(listed.loc[listed["case_id"] == case, "enforcement_type"].iloc[0])
    assert lic.enforcement_kind == kind
    assert "Kind of action" in card and "from the case list" in card
    assert "meaning by action type" not in card and "No case list names" not in card
    assert not _action_select(view).visible  # nothing to choose: the list said it


def test_enforcement_html_reads_each_field_by_the_kind():
    record = {"enforcement_date": "2022-03-30", "enforcement_details": "x", "enforcement_remark": "-"}
    complaint = enforcement_html(record, kind="complaint")
    assert "criminal complaint" in complaint and "date of complaint" in complaint and "complaint details" in complaint
    fine = enforcement_html(record, action_type=0, kind="administrative_fine")
    assert "date of administrative fine" in fine and "administrative fine in the form" in fine
    unknown = enforcement_html(record)
    assert "meaning by action type" in unknown and "No case list names" in unknown
    chosen = enforcement_html(record, action_type=3)  # no list: the reader's choice, each field by its own list
    assert "administrative action (the date on the penalty letter)" in chosen and "administrative fine in the form" in chosen


def test_a_duty_held_past_its_approval_is_flagged_on_screen(demo_client, dataset):
    from tests.cli.test_cli import _flagged_person

    pid, flagged = _flagged_person(dataset)
    view = LicenseeView(licence=LicenceCheck(client=demo_client))
    warning = next(p for p in view.__panel__().select(pn.pane.HTML) if p.name == "duty-warning")
    assert warning.object == ""  # nobody looked up yet
    view.person_id = pid
    run(view.load_person())
    shown = warning.object
    assert type(shown) is str and shown.startswith('<div class="sd-empty sd-error" role="alert">')
    assert "Compliance warning" in shown and f"the approval for it expired on {flagged['approval_expired']}" in shown
    # someone with approvals and duties that the rule does not flag gets no warning
    clean = next(p for p in sorted(dataset.duties) if p != pid and dataset.approvals.get(p) and not _is_flagged(dataset, p))
    view.person_id = clean
    run(view.load_person())
    assert warning.object == ""


def _is_flagged(dataset, pid) -> bool:
    from dashboard.models.licensee import duties_past_approval
    from dashboard.records import records_frame
    from tests.conftest import TODAY

    return not duties_past_approval(records_frame("approval", dataset.approvals.get(pid) or []),
                                    records_frame("duty", dataset.duties.get(pid) or []), TODAY).empty


def test_people_on_duty_are_titled_as_ids_the_service_gives_no_name_for(demo_client, dataset):
    """The personnel endpoint gives a person's id only, and no licence endpoint names a person by id: the column
    says it is an id, and a note says so (a column titled "Person" over ids read as names gone missing) (issue 30)."""
    view = LicenseeView(licence=LicenceCheck(client=demo_client))
    table = view.tables["personnel"]
    assert table.titles.get("person_unique_id") == "Licensed person (id)"
    texts = " ".join(str(p.object) for p in view.__panel__().select(pn.pane.Markdown))
    assert "by their id only" in texts


def test_a_persons_duties_name_companies_that_are_not_asset_managers(demo_client, dataset):
    """The duties table and the compliance warning named a company only when a list shown before had it (the asset
    managers never, a securities company only after "Load former licensees"): the person's lookup reads the service's
    company list once, and every duty's company is named (issue 30)."""
    amcs = {a["unique_id"] for a in dataset.amcs}
    pid, company = next((p, d["company_unique_id"]) for p, duties in sorted(dataset.duties.items()) for d in duties
                        if d["company_unique_id"] not in amcs)
    name = next(r["name_en"] for r in dataset.licensees if r["unique_id"] == company)
    view = LicenseeView(licence=LicenceCheck(client=demo_client))
    view.person_id = pid
    run(view.load_person())
    shown = view.tables["duties"].value
    assert f"{name} ({company})" in set(shown["company"])
    assert all("(" in str(c) for c in shown["company"])  # every company by its name, none by its id alone
    assert view.licence.former.empty  # the list names companies; the former-licensee table is not filled by it


def test_the_licensee_tab_is_put_in_the_page_with_its_first_lookups_done():
    """On a drawn page, the Licensee tab's first lookups (the demo's examples, a link's person or case) run before
    it is shown, so its tables reach the browser with their rows, not empty and filled a moment later (a change
    sent while the browser still draws a table is lost: docs/upstream.md #6)."""
    from dashboard.app import create_dashboard
    from dashboard.config import ApiSettings
    from dashboard.demo.connect import open_client
    from tests.conftest import TODAY

    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    try:
        app = create_dashboard(client=client)
        run(app.start())
        assert app.page_ready and app.examples
        shown = []

        def put_in_page(event):
            view = app.views.get("licensee")
            if view is not None and event.new and event.new[0] is view.__panel__():
                shown.append({name: len(table.value) for name, table in view.tables.items()})

        app.content.param.watch(put_in_page, "objects")
        app.state.tab = "licensee"
        assert shown, "the Licensee tab was never put in the page"
        assert shown[0]["companies"] > 0 and shown[0]["former"] > 0, shown[0]
        assert not app.content.loading
        app.state.tab = "explorer"
        app.state.tab = "licensee"  # opened again: nothing to look up first, shown at once, as it was left
        assert len(shown) == 2 and shown[1] == {n: len(t.value) for n, t in app.views["licensee"].tables.items()}
    finally:
        client.close()


def test_a_name_typed_where_a_person_id_belongs_is_refused_and_changes_nothing(demo_client, dataset):
    """The tab, a link and the command line read one rule (`is_register_id`): "somchai" is a name, not an id."""
    from dashboard.models.dashboard_state import DashboardState

    person = next(iter(dataset.approvals))
    lic = LicenceCheck(client=demo_client)
    view = LicenseeView(licence=lic)
    view.person_id = person
    run(view.load_person())
    before = (lic.person_id, len(lic.approvals))
    assert before[0] == person and before[1] > 0
    view.person_id = "somchai"
    run(view.load_person())
    note = view.notes["person"].object
    assert "&#39;somchai&#39; is not a person id" in note and "Find a person" in note  # (escaped: it is text)
    assert (lic.person_id, len(lic.approvals)) == before  # the last person's approvals stay, the link too
    state = DashboardState(client=demo_client)
    ignored = state.apply_url({"tab": "licensee", "person": "somchai"})
    assert ignored and "person" in ignored[0] and state.licence.person_id == ""


def test_a_company_with_nobody_on_duty_says_so_under_the_heading_on_the_tab(dataset):
    """Issue 39: an empty "People on duty" showed only its column titles on the tab (the command line says
    'nobody is recorded on duty at this company')."""
    from dashboard.config import ApiSettings
    from dashboard.demo.connect import open_client
    from tests.conftest import TODAY

    on_duty = {d.get("company_unique_id") for duties in dataset.duties.values() for d in duties}
    uid = next(a["unique_id"] for a in dataset.amcs if a["unique_id"] not in on_duty)
    busy = next(a["unique_id"] for a in dataset.amcs if a["unique_id"] in on_duty)
    client = open_client(ApiSettings.from_env(demo=True, layout="successor", environ={}), today=lambda: TODAY)
    try:
        lic = LicenceCheck(client=client)
        view = LicenseeView(licence=lic)
        assert "Nobody is recorded on duty" not in view.duty_note.object  # nothing looked up yet
        lic.company_id = uid
        run(view.load_company())
        assert lic.personnel.empty and not lic.company_licences.empty
        assert "Nobody is recorded on duty at this company." in view.duty_note.object
        lic.company_id = busy
        run(view.load_company())
        assert not lic.personnel.empty and view.duty_note.object == ""
    finally:
        client.close()


def test_the_first_lookups_make_each_table_once_with_their_rows(demo_client):
    """Opened by the dashboard (`prefill_follows`), the tab's tables wait for its first lookups: each is made once,
    with the rows the lookups left, the same rows as a view whose tables were first made empty."""
    from dashboard.app import demo_examples

    examples = demo_examples(demo_client.today)
    before = LicenseeView(licence=LicenceCheck(client=demo_client), examples=examples)
    run(before.prefill())
    view = LicenseeView(licence=LicenceCheck(client=demo_client), examples=examples, prefill_follows=True)
    assert all(slot.table is None for slot in view.tables.values())  # none made before the lookups
    run(view.prefill())
    for name, slot in view.tables.items():
        assert slot.table is not None and slot.__panel__().objects == [slot.table]
        pd.testing.assert_frame_equal(slot.table.value, before.tables[name].table.value)
    assert not view.tables["companies"].value.empty and not view.tables["duties"].value.empty

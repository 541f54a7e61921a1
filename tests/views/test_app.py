"""The dashboard's Panel objects without a browser: layout, tabs, content, escaping, errors, URL state."""

from __future__ import annotations

import io
import sys
import types

import holoviews as hv
import pandas as pd
import panel as pn
import panel_material_ui as pmui
import pytest

from dashboard.demo.connect import open_client
from dashboard.errors import ServiceError
from dashboard.app import create_dashboard, demo_examples, url_search
from dashboard.config import ApiSettings
from dashboard.models.dashboard_state import TAB_TITLES, TABS
from dashboard.views.common import TabView
from dashboard.views.explorer import overview_html, results_frame
from tests.conftest import KEY, TODAY, run

HOSTILE = "<img src=x onerror=alert(1)>"




@pytest.fixture(scope="module")
def demo_app():
    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    app = create_dashboard(client=client)
    run(app.start())
    yield app.page, app
    client.close()


def test_one_page_with_seven_tabs_and_the_demo_banner(demo_app):
    page, app = demo_app
    assert isinstance(page, pmui.Page) and page.theme_toggle
    assert [item["label"] if isinstance(item, dict) else item for item in app.tabs.items] == [TAB_TITLES[t] for t in TABS]
    banner = page.main[0]
    assert page.main[1:] == [app.tabs, app.content, app.footer]  # the shown tab's view below the tab bar
    assert "DEMO DATA — fictional funds and companies" in banner.object
    assert page.sidebar[0] is app.sidebar and app.sidebar[0] is app.basket_panel.__panel__()


def test_first_load_fills_search_fund_and_basket(demo_app):
    _, app = demo_app
    state = app.state
    explorer = app.views["explorer"]
    assert len(explorer.results.value) == len(state.search.results) > 0
    assert explorer.results.selection == [explorer.results.value["proj_id"].tolist().index(state.fund)]
    html = explorer.overview.object
    record = state.factsheet.fund
    assert record["proj_abbr_name"] in html and "Registration no." in html and "Investment minimums" in html
    assert len(state.basket.proj_ids) == 4 and state.basket_revision > 0
    assert url_search(state).startswith("?tab=explorer&fund=") and "&basket=" in url_search(state)
    footer = app.footer.object
    assert "demo data (embedded simulator)" in footer and "performance as of" in footer


def test_every_tab_builds_and_draws_its_charts(demo_app):
    _, app = demo_app
    for tab in TABS:
        app.state.tab = tab
        view = app.views[tab]
        assert app.tabs.active == TABS.index(tab)
        assert app.content.objects == [view.__panel__()]  # only the shown tab's view is in the page
        if isinstance(view, TabView) and tab != "market":  # no market snapshot here: see tests/views/test_market.py
            charts = [p for p in view.__panel__().select(pn.pane.HoloViews)]
            assert charts, tab
            for pane in charts:
                assert isinstance(pane.object, hv.core.Dimensioned)
                assert not isinstance(pane.object, hv.Text), f"{tab}: {pane.name} is an empty chart"
    app.state.tab = "explorer"


def test_every_html_pane_is_given_plain_text_so_its_tags_are_drawn_not_shown(demo_app):
    """Panel escapes an HTML pane's text with html.escape, which escapes a markupsafe.Markup twice: the
    browser then showed '<div class="sd-empty ...">' as text (the failed search's message did)."""
    _, app = demo_app
    for tab in TABS:
        app.state.tab = tab
        view = app.views[tab]
        panes = view.__panel__().select(pn.pane.HTML)
        assert panes, tab
        for pane in panes:
            assert type(pane.object) is str, (tab, pane.name, type(pane.object))
    app.state.search_error = "the service failed (503)"
    message = app.views["explorer"].message.object
    assert type(message) is str and message.startswith('<div class="sd-empty sd-error"')
    app.state.search_error = ""
    app.state.tab = "explorer"


def test_holdings_view_shows_the_total_as_reported(demo_app):
    _, app = demo_app
    app.state.tab = "holdings"
    view = app.views["holdings"]
    total = app.state.holdings.total_percent()
    assert f"{total:,.2f} %" in view.summary.object
    assert len(view.table.value) == len(app.state.holdings.lines())
    app.state.tab = "explorer"


def test_fee_charts_never_mix_ceiling_and_actual(demo_app):
    _, app = demo_app
    app.state.tab = "fees"
    view = app.views["fees"]
    actual, ceiling = view.actual_chart.object, view.ceiling_chart.object
    assert [d.name for d in actual.vdims][0] == "actual_value_num"
    assert [d.name for d in ceiling.vdims][0] == "rate_num"
    table = view.table.value
    assert {"rate", "actual_value", "fee_other_desc"} <= set(table.columns)
    app.state.tab = "explorer"


def test_tab_widget_and_state_stay_in_step(demo_app):
    _, app = demo_app
    app.tabs.active = TABS.index("risk")
    assert app.state.tab == "risk"
    app.state.tab = "explorer"
    assert app.tabs.active == 0


def test_service_text_is_escaped_in_the_overview():
    from dashboard.models.dashboard_state import DashboardState

    state = DashboardState()
    record = {"proj_id": "M0001_2564", "proj_abbr_name": HOSTILE, "proj_name_en": HOSTILE, "proj_name_th": "ไทย",
              "fund_status": "RG", "unique_id": "C1"}
    state.factsheet.param.update(proj_id="M0001_2564", fund=record, loaded_at=1.0,
                                 suitability={"risk_spectrum": "RS5", "risk_level_label": "5", "important_notice": HOSTILE})
    state.fund = "M0001_2564"
    html = overview_html(state)
    assert "<img" not in html and html.count("&lt;img src=x onerror=alert(1)&gt;") >= 3
    frame = results_frame(pd.DataFrame([record]).assign(regis_date=pd.NaT))
    assert frame.loc[0, "proj_abbr_name"] == HOSTILE  # shown as text by the plaintext formatter


def test_a_failing_service_gives_error_states_and_the_app_works_afterwards(make_client, simulator):
    client = make_client(use_cache=False, max_attempts=1)
    app = create_dashboard(ApiSettings.from_env(base_url=simulator.base_url, api_key=KEY, environ={}), client=client)
    page = app.page
    assert page.main[0] is app.tabs  # no demo banner with a real service
    simulator.app.inject("503", times=1000)
    run(app.start())
    assert app.state.search_error and "503" in app.state.search_error
    assert "could not" in app.views["explorer"].message.object or "failed" in app.views["explorer"].message.object
    simulator.app.clear_faults()
    assert run(app.state.search_funds("Demo"))
    assert app.state.search_error == "" and not app.views["explorer"].message.visible
    assert f"Data: {simulator.base_url}" in app.footer.object


def test_report_download_uses_the_reports_module(demo_app, monkeypatch):
    _, app = demo_app
    calls = []
    fake = types.ModuleType("dashboard.reports")
    fake.fund_report_html = lambda client, ids, funds=None: calls.append(("fund", ids, funds)) or "<html>fund</html>"
    fake.licensee_report_html = lambda client, uid, cases=(): calls.append(("licensee", uid, cases)) or "<html>lic</html>"
    monkeypatch.setitem(sys.modules, "dashboard.reports", fake)
    panel = app.basket_panel
    out = run(panel.report_file())
    assert isinstance(out, io.StringIO) and out.getvalue() == "<html>fund</html>"
    assert calls[-1][0] == "fund" and calls[-1][1] == [app.state.fund]
    app.state.tab = "fees"
    run(panel.report_file())
    assert calls[-1][1] == app.state.basket.proj_ids and panel.download.filename.startswith("comparison-")
    app.state.tab = "explorer"

    def broken(client, ids, funds=None):
        raise ServiceError("the service failed (503); try again later")

    fake.fund_report_html = broken
    out = run(panel.report_file())
    assert "could not be made" in out.getvalue() and "503" in out.getvalue()


def test_demo_examples_show_every_part_of_the_licensee_tab(dataset):
    ex = demo_examples(TODAY)
    assert dataset.approvals.get(ex["person"]) and dataset.duties.get(ex["person"])
    assert (ex["case_uid"], ex["case_id"]) in dataset.enforcement and ex["alert"] in dataset.alerts


def test_licensee_view_lookups(demo_app):
    _, app = demo_app
    app.state.tab = "licensee"
    view = app.views["licensee"]
    run(view.prefill())
    lic = app.state.licence
    assert not lic.companies.empty and not lic.former.empty and not lic.approvals.empty
    assert set(lic.approvals["approval_state"].dropna()) <= {"active", "expired", "no expiry"}
    # The demo plays the current service: the case list names the example case's kind, so the card reads by it.
    assert "Section or law" in view.enforcement_card.object and "from the case list" in view.enforcement_card.object
    assert lic.enforcement_kind is not None and "meaning by action type" not in view.enforcement_card.object
    assert "Act (English)" in view.alert_card.object
    # the current service's lookups (the demo plays it): people, a company, case and alert lists
    assert not lic.people.empty and not lic.company_licences.empty and not lic.personnel.empty
    assert not lic.business.empty and not lic.cases.empty and not lic.alert_cases.empty
    assert any("(" in str(c) for c in view.tables["duties"].value["company"])  # names, not bare identifiers
    view.person_id = "P9999999999"
    run(view.load_person())
    assert "no approvals or duties" in view.notes["person"].object
    view.person_id = ""
    run(view.load_person())
    assert "sd-error" in view.notes["person"].object  # refused before any request
    app.state.tab = "explorer"


def test_basket_panel_lists_and_removes(demo_app):
    _, app = demo_app
    panel = app.basket_panel
    before = list(app.state.basket.proj_ids)
    assert len(panel.fund_list.objects) == len(before)
    app.state.basket.remove(before[0])
    assert len(panel.fund_list.objects) == len(before) - 1 and panel.title.object.startswith(f"Comparison basket: {len(before) - 1}")
    app.state.basket.add(before[0], app.state.fund_record(before[0]))
    run(app.state.load_basket())
    assert panel.fund_list.objects and "loading" not in panel.fund_list.objects[-1][0].object


def test_stale_data_is_marked(demo_app):
    _, app = demo_app
    badges = [p for p in app.views["explorer"].__panel__().select(pn.pane.HTML) if "stale (cached)" in str(p.object)]
    assert badges and not any(b.visible for b in badges)
    app.state.factsheet.stale = True
    assert any(b.visible for b in badges) and "stale (cached)" in app.footer.object
    app.state.factsheet.stale = False
    assert not any(b.visible for b in badges)


def test_number_columns_keep_their_formats(demo_app):
    from bokeh.models.widgets.tables import NumberFormatter

    _, app = demo_app
    for tab in TABS:
        app.state.tab = tab
        for table in app.views[tab].__panel__().select(pn.widgets.Tabulator):
            frame = table.value
            for col in frame.columns:
                kind = table.formatters.get(col)
                if pd.api.types.is_float_dtype(frame[col]):
                    assert isinstance(kind, NumberFormatter), f"{tab}: {col} unformatted"
                else:
                    assert kind == "plaintext", f"{tab}: {col} may render HTML"
    app.state.tab = "explorer"


def test_busy_bar_shows_this_sessions_work_only():
    """pn.state.busy is process-wide; bound to it, every session's page would redraw (and look
    busy) whenever any other session works. (A dashboard of its own, not started: nothing of its own is loading.)"""
    from panel.io.state import state as panel_state
    from panel.util import edit_readonly

    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    try:
        app = create_dashboard(client=client)
        page = app.page
        assert page.busy is False
        with edit_readonly(panel_state):
            panel_state.busy = True
        try:
            assert page.busy is False
        finally:
            with edit_readonly(panel_state):
                panel_state.busy = False
        for model in (app.state.factsheet, app.state.search, app.state.basket, app.state.licence, app.market):
            model.loading = True
            assert page.busy is True, model
            model.loading = False
            assert page.busy is False, model
    finally:
        client.close()


def test_a_fund_that_fails_to_load_shows_no_figures_of_the_fund_before(make_client, simulator, dataset):
    from dashboard.errors import SecApiError

    client = make_client(use_cache=False, max_attempts=1)
    app = create_dashboard(ApiSettings.from_env(base_url=simulator.base_url, api_key=KEY, environ={}), client=client)
    state = app.state
    first, other = [f for f in dataset.funds if f["proj_id"] in dataset.holdings and dataset.allocation.get(f["proj_id"])
                    and dataset.performance.get(f["proj_id"])][:2]
    state.fund = first["proj_id"]
    run(state.load_fund())
    for tab in ("allocation", "holdings", "performance"):
        app.view(tab).render()
    assert not app.views["allocation"].table.value.empty and not app.views["holdings"].table.value.empty
    other = other["proj_id"]
    simulator.app.inject("503", times=1000)
    state.fund = other
    with pytest.raises(SecApiError):
        run(state.load_fund())
    simulator.app.clear_faults()
    assert state.fund_error
    for view in (app.views["allocation"], app.views["holdings"], app.views["performance"]):
        view.render()
    assert app.views["allocation"].table.value.empty
    assert app.views["holdings"].table.value.empty
    assert app.views["performance"].table.value.empty


def test_a_failed_fee_or_risk_call_is_shown_as_a_failure_not_as_no_data(make_client, simulator, dataset):
    client = make_client(max_attempts=1)
    app = create_dashboard(ApiSettings.from_env(base_url=simulator.base_url, api_key=KEY, environ={}), client=client)
    state = app.state
    failing, cached = [f for f in dataset.funds if dataset.fees.get(f["proj_id"]) and dataset.suitability.get(f["proj_id"])][:2]
    state.set_basket([cached["proj_id"]])
    run(state.load_basket())  # now in the client's cache
    simulator.app.inject("503", times=1000)  # every request fails: only the cached fund has data
    try:
        state.set_basket([failing["proj_id"], cached["proj_id"]])  # the shell starts loading at once
        run(state.load_basket())
    finally:
        simulator.app.clear_faults()
    fees, risk = app.view("fees"), app.view("risk")
    fees.render()
    risk.render()
    assert "could not be loaded" in fees.note.object and "503" in fees.note.object
    assert "could not be loaded" in risk.note.object
    assert "No fees published" not in fees.note.object


def test_new_results_come_in_a_new_table_made_with_its_selection():
    """A search's rows and the selection that goes with them are one new table: a stale "nothing selected"
    can never reach the browser after the user clicked a new row."""
    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    try:
        app = create_dashboard(client=client)
        run(app.start())
        state, slot = app.state, app.views["explorer"].results
        assert slot.selection == [slot.value["proj_id"].tolist().index(state.fund)]
        first = slot.table
        selected, first_query = state.fund, state.query
        other = next(r for r in state.search.records if r["proj_id"] != selected)
        run(state.search_funds(other["proj_abbr_name"]))
        assert selected not in slot.value["proj_id"].tolist()
        assert slot.table is not first and slot.table.selection == []
        # back to the first search: its rows come with the selected fund's row selected
        run(state.search_funds(first_query))
        assert slot.table.selection == [slot.table.value["proj_id"].tolist().index(selected)]
    finally:
        client.close()

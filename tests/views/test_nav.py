"""The NAV & returns tab's Panel objects on the demo: the fund's history, its figures beside the factsheet's,
gaps, the empty states, the URL, escaping, and the basket rebased on one chart."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import panel as pn
import pytest

from dashboard.api.nav import NavHistory
from dashboard.app import create_dashboard, url_search
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.models.dashboard_state import DashboardState
from tests.conftest import TODAY, run

HOSTILE = "<img src=x onerror=alert(1)>"


def demo_app(**environ):
    client = open_client(ApiSettings.from_env(demo=True, environ=environ), today=lambda: TODAY)
    app = create_dashboard(client=client)
    run(app.start())
    return app, client


@pytest.fixture(scope="module")
def app():
    app, client = demo_app()
    app.state.tab = "nav"  # shown: the tab fetches the fund's and the basket's histories
    yield app
    client.close()


def nav_curve(view) -> hv.Curve:
    nav_chart = list(view.chart.object)[0]
    return next(layer for layer in nav_chart if isinstance(layer, hv.Curve) and layer.label == "NAV")


def test_the_tab_shows_the_selected_funds_nav_over_its_drawdown(app):
    view, nav = app.views["nav"], app.state.nav
    assert nav.proj_id == app.state.fund and nav.state == "loaded"
    layout = view.chart.object
    assert isinstance(layout, hv.Layout) and len(layout) == 2  # NAV over drawdown, one shared date axis
    panels = list(layout)
    assert panels[1].get(len(panels[1]) - 1).vdims[0].label == "Below its peak (%)"
    dates = nav_curve(view).dimension_values("nav_date")
    assert dates.min() >= np.datetime64(nav.series()["nav_date"].iloc[0])
    assert "NAV per unit in baht" in view.note.object
    assert "Unit class" == view.class_select.label


def test_the_figures_table_sits_beside_the_published_figures(app):
    view = app.views["nav"]
    table = view.figures.value
    assert list(table.columns[:4]) == ["label", "value", "published", "difference"] and len(table) > 20
    assert "Total return, 1 year" in set(table["label"])
    one_year = table[table["label"] == "Return, 1 year"].iloc[0]
    assert one_year["value"].endswith("%") and one_year["published"].endswith("%") and one_year["difference"]
    titles = view.figures.titles
    assert titles["published"] == "Published in the factsheet" and titles["difference"] == "Difference"
    assert "difference is taken at that date" in view.figures_note.object
    assert len(view.years.value) >= 5  # calendar years


def test_a_range_button_cuts_the_chart_and_goes_into_the_link(app):
    view, nav, state = app.views["nav"], app.state.nav, app.state
    whole = len(nav_curve(view).dimension_values("nav"))
    assert "range=" not in url_search(state)  # the default is not written into every link
    view.range_buttons.value = "3M"
    assert nav.range == "3M" and "range=3M" in url_search(state)
    assert len(nav_curve(view).dimension_values("nav")) < whole / 3
    nav.range = "MAX"
    assert view.range_buttons.value == "MAX"
    assert any(np.isnan(nav_curve(view).dimension_values("nav")))  # the demo's outages: breaks, never joined
    assert "Gaps in the series" in view.details.object and "days between two NAVs" in view.details.object
    nav.range = "1Y"


def test_a_link_sets_the_range_and_class_and_a_bad_one_is_said():
    state = DashboardState(client=None)
    state.apply_url({"tab": "nav", "range": "3y", "nav_class": "X-A"})
    from dashboard.models.nav import FundNav

    state.nav = FundNav()
    assert (state.nav.range, state.nav.class_name) == ("3Y", "X-A")
    assert "range=3Y" in url_search(state) and "nav_class=X-A" in url_search(state)
    other = DashboardState(client=None)
    other.apply_url({"range": "10Y"})
    other.nav = FundNav()
    assert other.nav.range == "1Y" and other.ignored_url == ["range=10Y"]


def test_the_class_picker_and_distributions_on_a_fund_with_classes(app, dataset):
    pid = next(p for p, prof in dataset.nav_profiles.items()
               if len(prof["classes"]) >= 2 and any(c["dividend_yield"] for c in prof["classes"]))
    view, nav, state = app.views["nav"], app.state.nav, app.state
    state.fund = pid
    run(view.refresh())
    assert view.class_select.visible and len(view.class_select.options) == len(nav.classes()) >= 2
    paying = next(c["name"] for c in dataset.nav_profiles[pid]["classes"] if c["dividend_yield"])
    view.class_select.value = paying
    nav.range = "MAX"
    assert nav.class_name == paying
    marks = [layer for layer in list(view.chart.object)[0] if isinstance(layer, hv.Scatter)]
    assert marks and len(marks[0]) == len(nav.distributions()) > 0
    assert f"nav_class={paying}" in url_search(state)
    nav.range = "1Y"


def test_a_fund_with_no_nav_yet_is_an_explicit_empty_state(app, dataset):
    offering = next(f["proj_id"] for f in dataset.funds if f["fund_status"] == "SE")
    view, state = app.views["nav"], app.state
    state.fund = offering
    run(view.refresh())
    assert "No NAV history to show" in view.note.object and "no NAV" in view.note.object
    assert isinstance(view.chart.object, hv.Text) and view.figures.value.empty and view.years.value.empty


def test_every_note_is_html_for_the_browser_not_escaped_markup(app, dataset):
    """Panel's HTML pane escapes its text with html.escape, which on a markupsafe Markup escapes twice: the tab
    showed '<div class="sd-empty">No figures: ...</div>' as text while a fund's history loaded."""
    from markupsafe import Markup

    view, state = app.views["nav"], app.state
    offering = next(f["proj_id"] for f in dataset.funds if f["fund_status"] == "SE")  # no NAV yet: the empty notes
    for fund in (offering, next(iter(state.basket.proj_ids))):
        state.fund = fund
        run(view.refresh())
        panes = view.__panel__().select(pn.pane.HTML)
        assert panes and not [p.name for p in panes if isinstance(p.object, Markup)]
        assert not [p.name for p in panes if "&lt;div" in str(p.object)]


def test_service_text_is_escaped(app):
    view, nav, state = app.views["nav"], app.state.nav, app.state
    state.fund = next(iter(state.basket.proj_ids))
    run(view.refresh())
    history = nav.history
    nav.param.update(history=NavHistory(history.proj_id, history.classes, history.start, history.end, (HOSTILE,)),
                     notes=[HOSTILE])
    assert HOSTILE not in view.details.object and "&lt;img src=x" in view.details.object


def test_the_older_service_offers_recent_weeks_only_and_says_why():
    app, client = demo_app(SEC_API_LAYOUT="legacy")
    try:
        app.state.tab = "nav"
        view = app.views["nav"]
        assert "recent weeks only" in view.note.object and "one day per call" in view.note.object
        assert app.state.nav.series()["nav_date"].iloc[0] >= np.datetime64(TODAY.replace(day=1).replace(month=10))
    finally:
        client.close()


def test_the_basket_on_one_chart_rebased_with_its_table(app):
    section, state = app.views["nav"].basket, app.state
    run(section.refresh())
    ids = state.basket.proj_ids
    curves = [layer for layer in section.chart.object if isinstance(layer, hv.Curve)]
    assert [c.label for c in curves] == [state.basket.label(p) for p in ids if p in section.model.histories]
    assert [c.dimension_values("value")[0] for c in curves] == pytest.approx([100.0] * len(curves))
    table = section.table.value
    assert list(table["Fund"]) == [c.label for c in curves] and table["From"].nunique() == 1
    start = section.model.rebased()[0]
    assert table["From"].iloc[0] == start.isoformat() and f"{start.day} {start:%b %Y}" in section.note.object


def test_a_loading_indicator_shows_while_the_history_is_fetched(app):
    view, nav = app.views["nav"], app.state.nav
    assert not view.progress.visible
    nav.loading = True  # what FundNav sets while its fetch runs
    try:
        assert view.progress.visible and "Loading the NAV history" in view.note.object
    finally:
        nav.loading = False
    assert not view.progress.visible and "Loading" not in view.note.object


def test_while_a_funds_history_loads_no_note_says_it_has_none(app):
    """The figures' note said "No figures: no NAV history loaded." under "Loading the NAV history…", and the last
    fund's figures stayed under the selected fund's name until its load started."""
    view, state = app.views["nav"], app.state
    run(view.refresh())
    last = state.nav.proj_id
    state.fund = next(p for p in state.basket.proj_ids if p != last)  # its history not fetched yet
    view.render()
    assert "Loading the NAV history" in view.note.object and view.figures_note.object == ""
    assert view.figures.value.empty and view.years.value.empty and isinstance(view.chart.object, hv.Text)
    run(view.refresh())
    assert "Percent, to the last NAV" in view.figures_note.object


def test_a_fund_picked_while_another_funds_history_loads_is_loaded_after_it(app):
    """The tab skipped its load while another fund's ran: that one then stayed, and the tab said "Loading" for good."""
    import asyncio

    view, state, nav = app.views["nav"], app.state, app.state.nav
    first, second = [p for p in state.basket.proj_ids if p != nav.proj_id][:2]

    async def scenario():
        running = asyncio.ensure_future(nav.load(first))
        await asyncio.sleep(0)
        assert nav.loading and nav.proj_id == first
        state.fund = second
        await view.refresh()
        await running

    run(scenario())
    assert nav.proj_id == second and nav.history.proj_id == second and not nav.loading
    view.render()
    assert "Loading" not in view.note.object and not view.figures.value.empty


def test_a_basket_changed_on_the_tab_is_compared_again(app, dataset):
    section, state = app.views["nav"].basket, app.state
    run(section.refresh())
    added = next(p for p, prof in dataset.nav_profiles.items() if p not in state.basket.proj_ids)
    state.add_to_basket(added)
    run(state.load_basket())
    run(section.refresh())
    assert added in section.model.histories and len(section.table.value) == len(state.basket.proj_ids)
    state.remove_from_basket(added)


def _tables_in_page(view) -> list:
    return list(view.__panel__().select(pn.widgets.Tabulator))


def test_the_tables_join_the_page_with_their_rows_never_empty_before(dataset):
    """A table filled just after its tab was shown is changed while the browser still draws it, which throws
    there and loses the rest of the change (docs/upstream.md #6): the tab's tables are made with their rows
    (a new table each time), and while there are none there is no table."""
    app, client = demo_app()
    try:
        offering = next(f["proj_id"] for f in dataset.funds if f["fund_status"] == "SE")
        app.state.fund = offering  # no NAV yet: nothing to show in the tables
        app.state.tab = "nav"
        view = app.views["nav"]
        run(view.refresh())
        assert view.figures.value.empty and view.figures.table is None and view.years.table is None
        assert not [t for t in _tables_in_page(view) if t.name in ("nav-figures", "nav-years")]
        app.state.fund = app.state.basket.proj_ids[0]
        run(view.refresh())
        assert app.state.nav.state == "loaded"
        tables = {t.name: t for t in _tables_in_page(view)}
        assert len(tables["nav-figures"].value) > 0 and len(tables["nav-years"].value) > 0
        figures = view.figures.table
        app.state.nav.range = "1Y"  # another range: new tables, the old ones as they were
        assert view.figures.table is not figures or view.figures.value.equals(figures.value)
        basket = view.basket
        run(basket.refresh())
        assert (basket.table.table is not None) == bool(basket.model.figures())
        assert all(len(t.value) for t in _tables_in_page(view))  # never an empty table in the page
    finally:
        client.close()


def test_the_tab_put_in_before_its_first_fetch_says_loading_not_that_there_is_no_nav():
    """The NAV tab is put in the page first and fills (the shell's `show`); a link's fund is already the model's
    (`proj_id`) before anything was fetched. That moment said "No NAV to draw" and "no NAV history" for a fund
    that has five years of it (seen in the every-tab screenshot, whose page was drawn before the fetch ended)."""
    app, client = demo_app()
    try:
        nav = app.state.nav
        nav.proj_id = app.state.fund  # as a link's fund is, before the tab asks for its history
        assert nav.state == "idle" and not nav.loading
        view = app.view("nav")
        view.invalidate()
        drawn = view.chart.object
        assert isinstance(drawn, hv.Text) and drawn.text == "Loading the NAV history…", drawn
        assert "Loading the NAV history" in view.note.object and "No NAV" not in view.note.object
        app.state.tab = "nav"  # shown: its fetch runs, and the chart is drawn
        run(app.show("nav"))
        assert nav.state == "loaded" and isinstance(view.chart.object, hv.Layout)
    finally:
        client.close()

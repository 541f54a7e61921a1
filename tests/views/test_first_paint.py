"""The one rule of the views: a component is made when its data is ready, and a table in the page is only
ever replaced, never patched.

A served page's first document is the frame (title, tab bar, banner, footer, a loading note in the
tab's place). Once the browser has drawn it (`on_page_ready`, Panel's `pn.state.onload`) and the
first load has ended, whichever comes last, the tab's view joins the page made whole: its tables
arrive as new models with their rows. What changes later is a new table in the old one's place.
Panel's Tabulator (1.9) throws on a change reaching a table the browser has not built yet, and a
change to a layout made before the page is drawn is dropped (docs/upstream.md #1 and #6): under
this rule neither can happen.
"""

from __future__ import annotations

import asyncio
import collections

import panel as pn
import pytest
from bokeh.document import Document
from panel.models.tabulator import DataTabulator

from dashboard.app import create_dashboard
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, TABS, DashboardState
from dashboard.views.shell import DashboardApp
from tests.conftest import TODAY, run

# The frame alone: the page, its tab bar, banner, footer, busy bar and the loading note (measured: 30 with
# the demo data, the notification area included); a tab's view would add its tables, charts and widgets.
FIRST_DOCUMENT_MAX_MODELS = 45


def kinds_of(doc: Document) -> collections.Counter:
    return collections.Counter(type(m).__name__ for m in doc.models)


@pytest.fixture
def served_app(dataset):
    """`make(tab)`: a session's page as served for a link to `tab` (with a fund and a basket that have
    holdings), its first document made: the browser has not drawn it yet."""
    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    previous = pn.state.curdoc
    pn.state.curdoc = Document()

    def make(tab: str) -> DashboardApp:
        funds = [f["proj_id"] for f in dataset.funds
                 if len([rows for rows in dataset.holdings.get(f["proj_id"], {}).values() if rows]) >= 2]
        state = DashboardState(client=client, default_query=DEMO_DEFAULT_QUERY)
        # (the Fund explorer's link is the plain address: its first load is the default search)
        link = {"tab": tab} if tab == "explorer" else {"tab": tab, "fund": funds[0], "basket": ",".join(funds[:3])}
        assert state.apply_url(link) == []
        app = DashboardApp(state=state, banner="Demo data", page_ready=False, demo=True)
        app.page.server_doc(pn.state.curdoc)
        return app

    try:
        yield make
    finally:
        pn.state.curdoc = previous
        client.close()


def _watch_put_in_page(app, tab: str, rows_of) -> list:
    """Each time the tab's view is put in the page: how many rows its tables hold then."""
    shown = []

    def put_in_page(event):
        view = app.views.get(tab)
        if view is not None and event.new and event.new[0] is view.__panel__():
            shown.append(rows_of(view))

    app.content.param.watch(put_in_page, "objects")
    return shown


def test_the_first_document_is_the_frame_only(served_app):
    app = served_app("explorer")
    doc = pn.state.curdoc
    assert not app.views, "no tab's view is made before the page is drawn"
    assert [o.name for o in app.content.objects] == ["tab-loading"]
    assert not [m for m in doc.models if isinstance(m, DataTabulator)]
    assert len(list(doc.models)) <= FIRST_DOCUMENT_MAX_MODELS, kinds_of(doc).most_common(12)
    assert app.sidebar.objects == [] and app.basket_panel is None


@pytest.mark.parametrize("order", ["load ends first", "page drawn first"])
@pytest.mark.parametrize("tab", ["explorer", "holdings"])
def test_a_tab_joins_the_page_whole_once_loaded_and_drawn(served_app, order, tab):
    """Both orders (the first load ends before or after the browser has drawn the page): the tab is put in
    the page once, when both are done, with rows in its tables, sent as new models."""
    app = served_app(tab)
    table = "results" if tab == "explorer" else "table"
    shown = _watch_put_in_page(app, tab, lambda v: len(getattr(v, table).value))

    async def both():
        if order == "load ends first":
            await app.start()
            # made with its data, but no layout of the page changed before it is drawn (such a change is dropped)
            assert not shown and app.sidebar.objects == [] and [o.name for o in app.content.objects] == ["tab-loading"]
            assert tab in app.views or tab in ("holdings",)
            await app.on_page_ready()
        else:
            drawn = asyncio.ensure_future(app.on_page_ready())
            await asyncio.sleep(0.05)
            assert not shown and app.content.loading  # drawn, still waiting for the load
            await app.start()
            await drawn

    run(both())
    view = app.views[tab]
    assert app.content.objects == [view.__panel__()] and not app.content.loading
    assert len(shown) == 1 and shown[0] > 0, shown
    slot = getattr(view, table)
    assert slot.table._models, "the table is in the document, a new model with its rows"
    assert app.sidebar.objects == [app.basket_panel.__panel__()]


def test_a_later_change_replaces_the_table_and_never_patches_the_one_shown(served_app):
    app = served_app("explorer")

    async def drawn():
        await app.start()
        await app.on_page_ready()

    run(drawn())
    explorer = app.views["explorer"]
    first = explorer.results.table
    rows = first.value.copy()
    run(app.state.search_funds("Equity"))
    assert explorer.results.table is not first, "a new table in the old one's place"
    assert first.value.equals(rows), "the table that was shown keeps the rows it was made with"
    assert explorer.results.value.equals(explorer.results.table.value) and not explorer.results.value.equals(rows)
    # picking a row of the table shown keeps it: the selection is the browser's already
    shown = explorer.results.table
    explorer.results.selection = [1]
    assert app.state.fund == explorer.results.value.iloc[1]["proj_id"] and explorer.results.table is shown


def test_a_tab_picked_before_the_page_is_drawn_is_the_one_shown(served_app):
    app = served_app("fees")
    shown = _watch_put_in_page(app, "risk", lambda v: len(v.table.value))
    app.state.tab = "risk"  # the tab bar follows; the page still holds the loading note
    assert app.tabs.active == TABS.index("risk") and app.content.objects[0].name == "tab-loading"
    assert not app.views

    async def drawn():
        await app.start()
        await app.on_page_ready()

    run(drawn())
    assert shown and shown[0] > 0 and app.content.objects == [app.views["risk"].__panel__()]
    assert "fees" not in app.views


def test_a_tab_is_shown_even_when_the_first_load_fails_unexpectedly(served_app):
    app = served_app("fees")

    async def broken_first_load():
        raise RuntimeError("a bug in the first load")

    app.state.start = broken_first_load  # (the service's errors come back as notes; this is anything else)

    async def drawn():
        ready = asyncio.ensure_future(app.on_page_ready())
        with pytest.raises(RuntimeError):
            await app.start()
        await ready

    run(drawn())
    assert app.content.objects == [app.views["fees"].__panel__()] and not app.content.loading


def test_the_licensee_tab_does_not_wait_for_the_funds_first_load(served_app):
    app = served_app("licensee")
    app.examples = {"person": "", "case_uid": "", "case_id": ""}  # nothing to look up first

    async def drawn_only():
        shown = asyncio.ensure_future(app.show("licensee"))
        await asyncio.wait_for(shown, 30)

    app.page_ready = True
    run(drawn_only())  # drawn; the fund search and factsheet not loaded
    assert app.content.objects == [app.views["licensee"].__panel__()] and not app.state.started


def test_a_page_used_outside_a_server_is_whole_from_the_start():
    """A notebook's or a test's dashboard: the tab and the sidebar are there at once; `start()` loads."""
    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    try:
        app = create_dashboard(client=client)
        assert app.content.objects == [app.views["explorer"].__panel__()] and app.sidebar.objects == [app.basket_panel.__panel__()]
        run(app.start())
        assert len(app.views["explorer"].results.value) > 0
    finally:
        client.close()


def test_basket_rows_are_kept_and_their_text_follows_the_load():
    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    try:
        app = create_dashboard(client=client)
        run(app.start())
        panel, basket = app.basket_panel, app.state.basket
        rows = {id(r) for r in panel.fund_list.objects}
        first = basket.proj_ids[0]
        basket.remove(first)
        assert {id(r) for r in panel.fund_list.objects} < rows  # the others kept, not remade
        basket.add(first, app.state.fund_record(first))
        run(app.state.load_basket())
        assert "loading" not in panel.fund_list.objects[-1][0].object
        basket.clear()
        assert "Empty" in panel.fund_list.objects[0].object
    finally:
        client.close()

"""What the first page of a session holds (issue 11, first paint): only what is shown, and few models.

The served page's first document is what `Page.server_doc` makes of the dashboard once its first
load is done (in the browser it usually is, by the time the page pulls the document). Only the shown
tab is built (the other six tabs' tables and 13 charts are not in it); measured with the demo data
it holds 136 models (the search "Demo" matches unit classes, so their table is shown too); the
bound allows a little growth.
"""

from __future__ import annotations

import collections

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import Plot
from panel.models.tabulator import DataTabulator

from dashboard.app import create_dashboard, static_max_age, UNVERSIONED_MAX_AGE, VERSIONED_MAX_AGE
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from tests.conftest import TODAY, run

# Measured: 136 models with the demo data's first load.
FIRST_DOCUMENT_MAX_MODELS = 150


@pytest.fixture
def demo_app():
    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    previous = pn.state.curdoc
    pn.state.curdoc = Document()
    try:
        yield create_dashboard(client=client)
    finally:
        pn.state.curdoc = previous
        client.close()


@pytest.fixture
def first_document(demo_app):
    run(demo_app.start())
    demo_app.page.server_doc(pn.state.curdoc)
    return demo_app, pn.state.curdoc


def test_the_first_document_holds_the_shown_tab_only_and_few_models(first_document):
    app, doc = first_document
    models = list(doc.models)
    kinds = collections.Counter(type(m).__name__ for m in models)
    assert len(models) <= FIRST_DOCUMENT_MAX_MODELS, kinds.most_common(12)
    # The search results and the unit classes "Demo" matches: no other tab's tables or charts.
    explorer = app.views["explorer"]
    assert list(app.views) == ["explorer"]
    assert not [m for m in models if isinstance(m, Plot)]
    tables = [m for m in models if isinstance(m, DataTabulator)]
    assert len(tables) == 2 == len(explorer.results._models) + len(explorer._classes._models)
    # Panel's own notification area (notyf, a ReactiveHTML root) is not sent: the page's is panel-material-ui's.
    assert not [r for r in doc.roots if type(r).__name__ == "ReactiveHTML"]


def test_basket_rows_are_kept_and_their_text_follows_the_load(first_document):
    app, _ = first_document
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


def test_basket_rows_made_while_the_browser_builds_the_page_are_not_reused(first_document):
    """Panel drops what changes between the browser's pull of the document and its first draw: a
    row made then is unknown to the browser, so a later refresh makes it anew instead of updating it."""
    app, _ = first_document
    panel, basket = app.basket_panel, app.state.basket
    building = [True]
    panel.unsent = lambda: building[0]
    first = basket.proj_ids[0]
    basket.remove(first)
    basket.add(first, app.state.fund_record(first))
    made_then = {id(r) for r in panel.fund_list.objects}
    building[0] = False
    app.state.basket_revision += 1  # what a load's end does
    assert not made_then & {id(r) for r in panel.fund_list.objects}
    kept = {id(r) for r in panel.fund_list.objects}
    app.state.basket_revision += 1
    assert {id(r) for r in panel.fund_list.objects} == kept


@pytest.mark.parametrize(("path", "query", "age"), [
    ("js/bokeh.min.js", "v=6acf7fa1", VERSIONED_MAX_AGE),
    ("panel-material-ui/panel-material-ui.bundle.js", "a9a9cc4f19fadba2c108149eeaf498f3", VERSIONED_MAX_AGE),
    ("panel-material-ui/roboto-latin-400-normal-LOX3CHMS.woff2", "", VERSIONED_MAX_AGE),
    ("panel/bundled/datatabulator/luxon/build/global/luxon.min.js", "", UNVERSIONED_MAX_AGE),
    ("panel/images/favicon.ico", "", UNVERSIONED_MAX_AGE),
])
def test_static_cache_lifetimes(path, query, age):
    assert static_max_age(path, query) == age

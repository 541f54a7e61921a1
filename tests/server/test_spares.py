"""Spare sessions: a plain visit gets a session built before it came, and nothing of anybody else.

The dashboard is served in this process (demo data) with its spare on, as `sec-dashboard serve`
runs it; a visit is a GET of the page, then the page's own token opens the session over the
websocket the way BokehJS does (`ServedSession`).
"""

from __future__ import annotations

import asyncio
import logging
import re

import pytest
from bokeh.util.token import get_session_id, get_token_payload

from dashboard.server import spares
from dashboard.server.serve import _DASHBOARDS, spare_usable
from tests.helpers import served_dashboard, visit, wait_until
from tests.views.test_sessions import ServedSession

pytestmark = pytest.mark.slow  # serves the dashboard (or a page) in this process


def global_reuse_sessions():
    """Panel's process-wide `reuse_sessions` (not a served document's own value)."""
    import panel as pn

    return object.__getattribute__(pn.config, "reuse_sessions")


def set_global_reuse_sessions(value) -> None:
    """Set Panel's process-wide `reuse_sessions`. `pn.config.reuse_sessions = v` sets the current
    document's own value when one is current, and Bokeh's current document is process-wide while a
    server thread runs a document's callback: set from the test's thread at such a moment, 'warm'
    stayed on for the tests that followed (their visits were answered with a kept session of an
    earlier server, whose id this server never had)."""
    import panel as pn
    import param

    param.Parameterized.__setattr__(pn.config, "reuse_sessions", value)
    assert global_reuse_sessions() == value


@pytest.fixture
def served():
    """The dashboard served in this process with its spare on; yields (port, its spare pool)."""
    assert global_reuse_sessions() is False, "an earlier test left Panel's reuse_sessions on"
    before = set(map(id, spares.pools()))

    def ours(port: int) -> list[spares.SparePool]:
        # A pool made since, for this server's address: an earlier test's server in this worker may
        # still have pools alive.
        return [p for p in spares.pools() if id(p) not in before and p.request.host.endswith(f":{port}")]

    with served_dashboard() as port:
        wait_until(lambda: len(ours(port)) == 1, what="the server's spare pool")
        yield port, ours(port)[0]


def ready_spare(pool: spares.SparePool):
    """The pool's spare once built (the server builds one shortly after it starts)."""
    wait_until(lambda: pool.spare is not None, 60, "a spare session")
    return pool.spare


def dashboard_of(document):
    ref = _DASHBOARDS.get(document)
    return ref() if ref is not None else None


def test_a_plain_visit_gets_the_spare_with_its_own_id_request_and_data(served):
    port, pool = served
    spare = ready_spare(pool)
    document = spare.session.document
    assert spare.session.id.startswith(spares.SPARE_PREFIX)
    assert dict(spare.session.document.session_context.request.cookies) == {}

    token = visit(port, cookie="visitor=alice", agent="alice-browser")

    session_id = get_session_id(token)
    session = pool.context.get_session(session_id)
    assert session.document is document  # built before the visit came
    assert pool.handed_over == 1 and pool.spare is None
    context = session.document.session_context
    assert context.id == session_id and session.id == session_id and session.token == token
    assert not any(s.startswith(spares.SPARE_PREFIX) for s in pool.context._sessions)
    assert dict(context.request.cookies) == {"visitor": "alice"}
    assert context.request.headers.get("User-Agent") == "alice-browser"

    async def open_it():
        opened = await ServedSession.open(port, token=token)
        try:
            await opened.first_load()  # the document reports the page drawn as BokehJS does
            return list(opened.proj_ids), opened.overview
        finally:
            await opened.close()

    proj_ids, overview = asyncio.run(open_it())
    assert proj_ids and 'class="sd-title">' in overview
    # once the visitor's page is drawn, the next spare is built for the next visitor
    following = ready_spare(pool)
    assert following.session.document is not document


def test_each_visitor_gets_only_their_own_cookies(served):
    port, pool = served
    ready_spare(pool)
    first = visit(port, cookie="visitor=alice")
    # the first visitor never draws the page here: have the server build the next spare now
    pool.context.io_loop.add_callback(pool.build_soon, 0)
    ready_spare(pool)
    second = visit(port, cookie="visitor=bob")

    assert get_token_payload(second)["cookies"] == {"visitor": "bob"}
    session = pool.context.get_session(get_session_id(second))
    assert dict(session.document.session_context.request.cookies) == {"visitor": "bob"}
    assert pool.handed_over == 2 and get_session_id(first) != get_session_id(second)


def test_the_next_spare_never_carries_the_last_visitors_address(served):
    import panel as pn

    port, pool = served
    ready_spare(pool)
    visit(port, "/", cookie="visitor=alice")
    pool.context.io_loop.add_callback(pool.build_soon, 0)
    following = ready_spare(pool)
    request = following.session.document.session_context.request
    assert request.uri == "/" and dict(request.cookies) == {} and not any(dict(request.headers).values())
    location = pn.state._locations.get(following.session.document)
    assert location is not None and location.pathname == "/"  # its search is its own state's, once loaded


def test_a_link_gets_a_session_built_for_it_and_the_spare_stays(served):
    port, pool = served
    spare = ready_spare(pool)
    token = visit(port, "/?tab=fees&q=private")
    document = pool.context.get_session(get_session_id(token)).document
    assert document is not spare.session.document and dashboard_of(document).state.tab == "fees"
    assert pool.spare is spare and pool.handed_over == 0


def documents_served() -> set[int]:
    return {id(document) for document in list(_DASHBOARDS.keys())}


def test_a_plain_visits_page_was_built_before_the_visit(served):
    port, pool = served
    ready_spare(pool)
    before = documents_served()
    token = visit(port)
    assert id(pool.context.get_session(get_session_id(token)).document) in before


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="Panel's reuse_sessions='warm' answers the HTML at once but builds the visitor's session "
                          "after answering: the browser then waits for it (docs/performance.md)")
def test_with_panels_reuse_sessions_a_plain_visits_page_was_built_before_the_visit():
    import panel as pn

    previous = global_reuse_sessions()
    set_global_reuse_sessions("warm")
    try:
        with served_dashboard(spare=False) as port:
            visit(port)  # the session Panel keeps to answer the HTML with
            wait_until(lambda: documents_served(), what="the kept session")
            before = documents_served()
            token = visit(port)
            context = next(iter(pn.state._servers.values()))[0]._tornado._applications["/"]
            wait_until(lambda: get_session_id(token) in context._sessions, what="the visitor's session")
            assert id(context.get_session(get_session_id(token)).document) in before
    finally:
        pn.state._sessions.clear()
        pn.state._session_key_funcs.clear()
        set_global_reuse_sessions(previous)


def test_a_client_opening_the_websocket_directly_gets_a_session_built_for_it(served):
    port, pool = served
    spare = ready_spare(pool)

    async def open_direct():
        opened = await ServedSession.open(port)
        await opened.close()

    asyncio.run(open_direct())
    assert pool.spare is spare and pool.handed_over == 0


def test_an_old_spare_is_ended_not_handed_over(served, monkeypatch):
    port, pool = served
    spare = ready_spare(pool)
    monkeypatch.setattr(spares, "MAX_AGE_S", 0.0)
    token = visit(port)
    assert pool.context.get_session(get_session_id(token)).document is not spare.session.document
    assert pool.handed_over == 0 and spare.session.expiration_requested
    # Bokeh also blocks a session's expiry while one of its callbacks runs (the spare's first load
    # may still be running): once that ends, nothing must hold it
    wait_until(lambda: not spare.session.expiration_blocked, 30, "the old spare free to expire")


def test_a_spare_whose_data_failed_to_load_is_ended_not_handed_over(served):
    port, pool = served
    spare = ready_spare(pool)
    dashboard = dashboard_of(spare.session.document)
    wait_until(lambda: dashboard.state.started and dashboard.state.factsheet.loaded_at, what="the spare's first load")
    assert spare_usable(spare.session.document)
    # as if the service had failed while the spare loaded
    pool.context.io_loop.add_callback(lambda: setattr(dashboard.state, "search_error", "The service did not answer"))
    wait_until(lambda: not spare_usable(spare.session.document), what="the failure")
    token = visit(port)
    assert pool.context.get_session(get_session_id(token)).document is not spare.session.document
    assert pool.handed_over == 0 and spare.session.expiration_requested


def test_a_failure_to_hand_over_leaves_the_visit_working(served, monkeypatch, caplog):
    port, pool = served
    ready_spare(pool)

    def broken(*_args, **_kwargs):
        raise RuntimeError("spare pool broken")

    monkeypatch.setattr(spares.SparePool, "take", broken)
    with caplog.at_level(logging.ERROR, logger="dashboard.server.spares"):
        token = visit(port)
    assert pool.context.get_session(get_session_id(token)) is not None
    assert any("could not be handed over" in r.getMessage() for r in caplog.records)




def test_without_the_spare_no_session_is_built_ahead():
    before = set(map(id, spares.pools()))
    with served_dashboard(spare=False) as port:
        visit(port)
        assert [p for p in spares.pools() if id(p) not in before] == []


def test_the_patched_methods_are_where_the_patch_expects_them():
    """Fails when Bokeh changes what the patch wraps or the session attributes it moves a spare with."""
    import inspect

    import bokeh.application.application as application
    import bokeh.server.contexts as contexts
    import bokeh.server.session as session

    assert list(inspect.signature(spares._create_session).parameters) == ["self", "session_id", "request", "token"]
    assert callable(spares._run_load_hook)
    for module, names in ((contexts, ("_sessions", "_session_contexts", "_pending_sessions", "_request", "_token")),
                          (session, ("_id", "_token")), (application, ("_id",))):
        source = inspect.getsource(module)
        assert all(f"self.{name} = " in source for name in names), module.__name__


def test_a_spares_components_link_this_servers_stylesheets(served):
    """Panel points a component's stylesheets at its public CDN until the page's HTML is made; a
    spare's components are made before that. Every one must link this server's copy once handed over
    and drawn (with no internet the browser could not fetch the CDN's)."""
    from bokeh.models import ImportedStyleSheet
    from panel.io.resources import CDN_DIST

    port, pool = served
    spare = ready_spare(pool)
    document = spare.session.document
    token = visit(port)

    async def open_it():
        opened = await ServedSession.open(port, token=token)
        try:
            await opened.first_load()
        finally:
            await opened.close()

    asyncio.run(open_it())
    urls = {str(sheet.url) for sheet in document.select({"type": ImportedStyleSheet})}
    assert any("static/extensions/panel/" in url for url in urls), urls  # Panel's, from this server
    assert [url for url in urls if url.startswith(CDN_DIST)] == []
    assert [url for url in urls if re.match(r"(?i)[a-z][a-z0-9+.-]*:|//", url)] == []  # none from elsewhere

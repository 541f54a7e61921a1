"""Spare sessions: a plain visit gets a session built before it came, and nothing of anybody else.

The dashboard is served in this process (demo data) with spares on, as `sec-dashboard serve`
runs it; a visit is a GET of the page, then the page's own token opens the session over the
websocket the way BokehJS does (`ServedSession`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import urllib.request

import pytest
from bokeh.util.token import get_session_id, get_token_payload

from dashboard import spare_sessions
from tests.browser.dashboard_server import free_port, wait_until_live
from tests.views.test_sessions import ServedSession

TOKEN = re.compile(r'"token":"([^"]+)"')


def visit(port: int, path: str = "/", cookie: str = "", agent: str = "test-visitor") -> str:
    """GET the page as a browser does; the token of the session it was given."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"User-Agent": agent})
    if cookie:
        request.add_header("Cookie", cookie)
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 200
        page = answer.read().decode()
    found = TOKEN.search(page)
    assert found, "the page carries no session token"
    return found.group(1)


def wait_until(predicate, timeout: float = 30.0, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        time.sleep(0.05)


@pytest.fixture
def served():
    """The dashboard served in this process with spares on; yields (port, its spare pool)."""
    import panel as pn

    import dashboard.app as app_module
    from dashboard.config import ApiSettings

    before = set(map(id, spare_sessions.pools()))
    port = free_port()
    app_module.serve(port=port, address="127.0.0.1", settings=ApiSettings.from_env(demo=True), threaded=True,
                     settle=False)
    try:
        wait_until_live(f"http://127.0.0.1:{port}/", 60)
        wait_until(lambda: any(id(p) not in before for p in spare_sessions.pools()), what="the server's spare pool")
        pool = next(p for p in spare_sessions.pools() if id(p) not in before)
        yield port, pool
    finally:
        spare_sessions.disable()
        pn.state.kill_all_servers()


def ready_spare(pool: spare_sessions.SparePool):
    """The pool's spare once built (the server builds one shortly after it starts)."""
    wait_until(lambda: pool.spare is not None, 60, "a spare session")
    return pool.spare


def test_a_plain_visit_gets_the_spare_with_its_own_id_request_and_data(served):
    port, pool = served
    spare = ready_spare(pool)
    document = spare.session.document
    assert spare.session.id.startswith(spare_sessions.SPARE_PREFIX)
    assert dict(spare.session.document.session_context.request.cookies) == {}

    token = visit(port, cookie="visitor=alice", agent="alice-browser")

    session_id = get_session_id(token)
    session = pool.context.get_session(session_id)
    assert session.document is document  # built before the visit came
    assert pool.handed_over == 1 and pool.spare is None
    context = session.document.session_context
    assert context.id == session_id and session.id == session_id and session.token == token
    assert not any(s.startswith(spare_sessions.SPARE_PREFIX) for s in pool.context._sessions)
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


def ready_link_spare(pool: spare_sessions.SparePool):
    """The pool's link spare once built (the server builds it after the plain one)."""
    wait_until(lambda: pool.link_spare is not None, 60, "a link spare session")
    return pool.link_spare


def page_of(pool: spare_sessions.SparePool, token: str):
    import dashboard.app as app_module

    session = pool.context.get_session(get_session_id(token))
    return session.document, app_module.dashboard_of(session.document)


def page_summary(app) -> dict:
    """What a visitor of a link sees of a page once it has loaded (None while it is loading)."""
    from dashboard.models.dashboard_state import TABS

    state = app.state
    if not state.started or any(m.loading for m in (state.search, state.factsheet, state.basket, state.licence)):
        return None
    licensee = app.views.get("licensee")
    return {"address": state.url_state(), "tab shown": TABS[app.tabs.active],
            "views in the page": [type(o).__name__ for o in app.content.objects],
            "dark": app.page.dark_theme, "results": [r.get("proj_id") for r in state.search.records],
            "basket": list(state.basket.proj_ids), "factsheet": state.factsheet.proj_id,
            "ignored": list(state.ignored_url), "person box": getattr(licensee, "person_id", None),
            "errors": (state.search_error, state.fund_error, state.basket_error)}


def test_a_link_gets_the_link_spare_with_its_query_applied(served):
    import dashboard.app as app_module
    from dashboard.demo.generator import generate_demo_dataset

    port, pool = served
    plain = ready_spare(pool)
    link_spare = ready_link_spare(pool)
    assert link_spare.session.id.startswith(spare_sessions.LINK_PREFIX)
    document = link_spare.session.document
    waiting = app_module.dashboard_of(document)
    assert not waiting.state.started  # built, but its first load waits for the link
    fund = generate_demo_dataset().funds[3]["proj_id"]
    token = visit(port, f"/?tab=fees&fund={fund}&theme=light", cookie="visitor=carol")

    got, app = page_of(pool, token)
    assert got is document and app is waiting
    assert pool.handed_over == 1 and pool.handed_to_links == 1 and pool.link_spare is None
    assert pool.spare is plain  # the plain address's spare is still there for its next visitor
    assert dict(document.session_context.request.cookies) == {"visitor": "carol"}
    assert document.session_context.request.arguments["tab"] in (["fees"], [b"fees"])
    assert app.state.tab == "fees" and app.state.fund == fund and app.state.theme == "light"
    assert not app.page.dark_theme and app.content.objects == [app.views["fees"].__panel__()]
    wait_until(lambda: app.state.factsheet.proj_id == fund and app.state.factsheet.loaded_at, what="the link's fund loaded")


def test_what_a_link_spare_left_out_of_a_link_is_said_once_the_page_is_drawn(served):
    port, pool = served
    ready_link_spare(pool)
    token = visit(port, "/?q=Lanna&colour=red")
    _document, app = page_of(pool, token)
    assert pool.handed_to_links == 1 and app.state.ignored_url == ["colour"]

    async def notices_once_drawn():
        opened = await NoticeSession.open(port, token=token)  # reports the page drawn, as BokehJS does
        try:
            await opened.wait_for(lambda: bool(opened.notices), 30)
            return opened.notices
        finally:
            await opened.close()

    # what of the link was left out is said once the page is drawn, as on a page built for the link
    assert any("could not be used" in n and "colour" in n for n in asyncio.run(notices_once_drawn()))


class NoticeSession(ServedSession):
    """A served session that keeps the text of every update carrying a notice."""

    notices: list[str]

    async def _start(self) -> None:
        self.notices = []
        await super()._start()

    def _consume(self, message) -> None:
        text = json.dumps(message.content)
        if "could not be used" in text:
            self.notices.append(text)
            self._changed.set()


@pytest.mark.parametrize("link", ["?fund={fund}", "?q=Lanna", "?basket={fund},{other}&tab=fees",
                                  "?tab=licensee&person={person}", "?tab=market", "?theme=light&tab=risk&fund={other}",
                                  "?fund=NOT_A_FUND&colour=red", "?basket={fund}&q=Demo&tab=holdings"])
def test_a_link_spare_shows_what_a_page_built_for_the_link_shows(served, monkeypatch, link):
    import dashboard.app as app_module
    from dashboard.demo.generator import generate_demo_dataset

    port, pool = served
    monkeypatch.setattr(spare_sessions, "FALLBACK_DELAY_S", 3600.0)  # no new spare during the test
    data = generate_demo_dataset()
    examples = app_module.demo_examples(data.today)
    person = next(p["unique_id"] for p in reversed(data.persons) if p["unique_id"] != examples.get("person"))
    path = "/" + link.format(fund=data.funds[2]["proj_id"], other=data.funds[5]["proj_id"], person=person)
    link_spare = ready_link_spare(pool)

    adopted_doc, adopted = page_of(pool, visit(port, path))
    built_doc, built = page_of(pool, visit(port, path))  # no link spare left: built for the visit

    assert adopted_doc is link_spare.session.document and built_doc is not adopted_doc
    assert not spare_sessions.awaits_link(built_doc.session_context.id)
    try:
        wait_until(lambda: page_summary(adopted) is not None and page_summary(adopted) == page_summary(built))
    except AssertionError:
        got, wanted = page_summary(adopted) or {}, page_summary(built) or {}
        differ = {k: (got.get(k), wanted.get(k)) for k in {*got, *wanted} if got.get(k) != wanted.get(k)}
        raise AssertionError(f"{path}: the link spare, then a page built for the link, differ in "
                             f"{differ or 'nothing, but one is still loading'}") from None


def test_a_dark_theme_link_gets_a_session_built_for_it_and_the_spare_stays(served):
    # the spare's components took the light theme when made; a page built for the link makes them dark
    port, pool = served
    link_spare = ready_link_spare(pool)
    document, app = page_of(pool, visit(port, "/?theme=dark&tab=fees"))
    assert document is not link_spare.session.document and app.page.dark_theme
    assert pool.link_spare is link_spare and pool.handed_to_links == 0
    waiting = page_of(pool, link_spare.session.token)[1]
    assert not waiting.state.started and waiting.state.theme == "" and waiting.state.tab == "explorer"
    # the next link gets it
    document, app = page_of(pool, visit(port, "/?theme=light&tab=fees"))
    assert document is link_spare.session.document and pool.handed_to_links == 1


def test_the_next_spare_never_carries_the_last_visitors_address(served):
    import panel as pn

    port, pool = served
    ready_link_spare(pool)
    visit(port, "/?tab=licensee&person=P0000010008&q=private")
    pool.context.io_loop.add_callback(pool.build_soon, 0)
    following = ready_link_spare(pool)
    request = following.session.document.session_context.request
    assert "private" not in request.uri and request.uri == "/"
    location = pn.state._locations.get(following.session.document)
    assert location is not None and "private" not in location.href and not location.search


def test_a_visitor_naming_a_link_spares_session_id_gets_a_page_that_loads(served):
    port, pool = served
    ready_link_spare(pool)
    token = visit(port, f"/?bokeh-session-id={spare_sessions.LINK_PREFIX}mine")
    document, app = page_of(pool, token)
    assert get_session_id(token) == f"{spare_sessions.LINK_PREFIX}mine" and not app.defer_loads
    wait_until(lambda: app.state.started and app.state.factsheet.loaded_at, what="the page's first load")


def test_a_link_spare_on_the_market_tab_waits_quietly_for_its_browser(served):
    # Panel re-queues a periodic callback's start on every tick while a session has no browser;
    # the market tab's poller starts once the page is drawn instead
    from bokeh.server.callbacks import NextTickCallback

    port, pool = served
    link_spare = ready_link_spare(pool)
    document, app = page_of(pool, visit(port, "/?tab=market"))
    assert document is link_spare.session.document and app.state.tab == "market"
    wait_until(lambda: app.state.started, what="the first load")
    time.sleep(1.0)
    ticks = [cb for cb in list(document.session_callbacks) if isinstance(cb, NextTickCallback)]
    assert not ticks, f"{len(ticks)} next-tick callbacks pending on a page nobody has opened"


def test_a_link_the_spare_cannot_take_gets_a_session_built_for_it(served, monkeypatch, caplog):
    import dashboard.app as app_module

    port, pool = served
    link_spare = ready_link_spare(pool)

    def refuse(document, arguments):
        raise RuntimeError("cannot take this link")

    monkeypatch.setattr(spare_sessions, "_adopt", refuse)
    with caplog.at_level(logging.ERROR, logger="dashboard.spare_sessions"):
        token = visit(port, "/?tab=fees")
    document, app = page_of(pool, token)
    assert document is not link_spare.session.document and app.state.tab == "fees"
    assert pool.handed_to_links == 0 and link_spare.session.expiration_requested
    assert any("could not be applied" in r.getMessage() for r in caplog.records)
    assert app_module.dashboard_of(link_spare.session.document).state.started is False


def test_without_adopt_a_link_gets_a_session_built_for_it(served, monkeypatch):
    port, pool = served
    ready_spare(pool)
    link_spare = ready_link_spare(pool)
    monkeypatch.setattr(spare_sessions, "_adopt", None)
    token = visit(port, "/?tab=fees")
    document, app = page_of(pool, token)
    assert document is not link_spare.session.document and app.state.tab == "fees"
    assert pool.handed_over == 0 and pool.link_spare is link_spare


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
    monkeypatch.setattr(spare_sessions, "MAX_AGE_S", 0.0)
    token = visit(port)
    assert pool.context.get_session(get_session_id(token)).document is not spare.session.document
    assert pool.handed_over == 0 and spare.session.expiration_requested
    # Bokeh also blocks a session's expiry while one of its callbacks runs (the spare's first load
    # may still be running): once that ends, nothing must hold it
    wait_until(lambda: not spare.session.expiration_blocked, 30, "the old spare free to expire")


def test_a_spare_whose_data_failed_to_load_is_ended_not_handed_over(served):
    import dashboard.app as app_module

    port, pool = served
    spare = ready_spare(pool)
    dashboard = app_module.dashboard_of(spare.session.document)
    wait_until(lambda: dashboard.state.started and dashboard.state.factsheet.loaded_at, what="the spare's first load")
    assert app_module.spare_usable(spare.session.document)
    # as if the service had failed while the spare loaded
    pool.context.io_loop.add_callback(lambda: setattr(dashboard.state, "search_error", "The service did not answer"))
    wait_until(lambda: not app_module.spare_usable(spare.session.document), what="the failure")
    token = visit(port)
    assert pool.context.get_session(get_session_id(token)).document is not spare.session.document
    assert pool.handed_over == 0 and spare.session.expiration_requested


def test_a_failure_to_hand_over_leaves_the_visit_working(served, monkeypatch, caplog):
    port, pool = served
    ready_spare(pool)

    def broken(*_args, **_kwargs):
        raise RuntimeError("spare pool broken")

    monkeypatch.setattr(spare_sessions.SparePool, "take", broken)
    with caplog.at_level(logging.ERROR, logger="dashboard.spare_sessions"):
        token = visit(port)
    assert pool.context.get_session(get_session_id(token)) is not None
    assert any("could not be handed over" in r.getMessage() for r in caplog.records)


def test_without_spares_no_session_is_built_ahead(monkeypatch):
    import panel as pn

    import dashboard.app as app_module
    from dashboard.config import ApiSettings

    before = set(map(id, spare_sessions.pools()))
    port = free_port()
    app_module.serve(port=port, address="127.0.0.1", settings=ApiSettings.from_env(demo=True), threaded=True,
                     settle=False, spares=False)
    try:
        wait_until_live(f"http://127.0.0.1:{port}/", 60)
        visit(port)
        time.sleep(spare_sessions.START_DELAY_S + 1.0)
        assert all(p.spare is None and not p.building for p in spare_sessions.pools() if id(p) not in before)
    finally:
        pn.state.kill_all_servers()


def test_a_link_spares_components_link_this_servers_stylesheets(served):
    """Panel points a component's stylesheets at its public CDN until the page's HTML is made. A
    spare's components are made before that, and a link's first load adds more: those added once
    the HTML was made kept the CDN address (the Licensee tab of a shared link, 2 of 29 runs of the
    end-to-end test, at least: 45 stylesheets the browser could not fetch with no internet). Every
    session's document now has this server's address from its first moment."""
    from bokeh.models import ImportedStyleSheet
    from panel.io.resources import CDN_DIST

    import dashboard.app as app_module

    _, pool = served
    link_spare = ready_link_spare(pool)
    document = link_spare.session.document
    app = app_module.dashboard_of(document)
    # the link applied as a visit would, with no page made for it
    document.add_next_tick_callback(lambda: app_module.adopt_link(document, {"tab": ["licensee"]}))
    wait_until(lambda: app.state.started and page_summary(app) is not None, 60, "the link's first load")
    assert page_summary(app)["tab shown"] == "licensee"
    urls = {str(sheet.url) for sheet in document.select({"type": ImportedStyleSheet})}
    assert any("static/extensions/panel/" in url for url in urls), urls  # Panel's, from this server
    assert [url for url in urls if url.startswith(CDN_DIST)] == []
    assert [url for url in urls if re.match(r"(?i)[a-z][a-z0-9+.-]*:|//", url)] == []  # none from elsewhere

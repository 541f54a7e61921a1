"""The served dashboard: `create_app()` builds one session's page, `serve()` runs the server.

`sec-dashboard serve` calls `serve()`; `panel serve dashboard/app.py` runs this module, which
then marks a fresh page servable for every session.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import signal
import socket
import sys
import urllib.parse
import weakref
from datetime import date

import panel as pn
import tornado.process
from panel.io.notifications import NotificationAreaBase

from dashboard import renewal, session_tokens, spare_sessions
from dashboard.api.sync import SecClient
from dashboard.config import ApiSettings
from dashboard.demo.pools import DEMO_LABEL
from dashboard.heap import restore_background_purging, settle_heap, trim_heap_soon
from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, LIVE_DEFAULT_QUERY, DashboardState, url_text
from dashboard.models.source import default_client
from dashboard.renewal import RenewalPolicy

pn.extension("tabulator", throttled=True)

from dashboard.views.common import notify_warning  # noqa: E402  (after the extension is loaded)
from dashboard.views import delivery  # noqa: E402
from dashboard.views.shell import APP_TITLE, DashboardApp  # noqa: E402

# Notifications on, drawn by panel-material-ui's notification area (the Page's). Turned on here,
# after panel-material-ui is imported, and not with `pn.extension(notifications=True)`: that also
# put Panel's own notification library (notyf: a script and a stylesheet) and Font Awesome in the
# page's head, files the page never used, fetched before anything could be drawn.
pn.config.notifications = True


@functools.lru_cache(maxsize=4)
def demo_examples(today: date) -> dict[str, str]:
    """Identifiers of the demo data that show every part of the Licensee tab."""
    from dashboard.demo.generator import generate_demo_dataset

    data = generate_demo_dataset(today=today)
    def richness(person: dict) -> tuple:
        uid = person["unique_id"]
        approvals = data.approvals.get(uid) or []
        states = {("no expiry" if not (a.get("expire_date") or "").strip() else a.get("expire_date") >= today.isoformat())
                  for a in approvals}
        return (len(states), bool(data.duties.get(uid)), bool(person.get("case_ids")), len(approvals))

    person = max(data.persons, key=richness)["unique_id"] if data.persons else next(iter(data.approvals), "")
    case_uid, case_id = next(((u, c) for (u, c) in data.enforcement if u == person), next(iter(data.enforcement), ("", "")))
    record = data.person(person) or {}
    name_en = str(record.get("name_en") or "").split()
    return {"company": "Demo", "person": person, "case_uid": case_uid, "case_id": case_id,
            "alert": next(iter(data.alerts), ""), "company_id": data.amcs[0]["unique_id"] if data.amcs else "",
            "person_name": name_en[-1] if name_en else ""}


def build_report(client: SecClient, request: dict) -> str:
    """The HTML report for `DashboardState.report_request()` (a fund, a basket or a licence check);
    the sidebar's download runs it off the event loop."""
    from dashboard.reports import fund_report_html, licensee_report_html

    if request["kind"] == "licensee":
        return licensee_report_html(client, request["unique_id"], request["case_ids"])
    return fund_report_html(client, request["proj_ids"], funds=request["funds"])


def create_app(settings: ApiSettings | None = None, client: SecClient | None = None) -> pn.viewable.Viewable:
    """One session's dashboard page (a panel-material-ui Page): the page of `create_dashboard`."""
    return create_dashboard(settings, client).page


def create_dashboard(settings: ApiSettings | None = None, client: SecClient | None = None) -> DashboardApp:
    """One session's dashboard: the shell whose `page` is served (tests and notebooks use the shell).

    Served, it reads the URL's query string (tab, fund, basket, q, theme, person, case_of, case; tab=market
    opens the Market tab),
    says what it ignored and keeps the address in step with the state, and loads the data after
    the page has rendered, so the first paint never waits on the service.
    """
    if settings is None:
        settings = client.settings if client is not None else ApiSettings.from_env()
    client = client or default_client(settings)
    default_query = DEMO_DEFAULT_QUERY if settings.demo else os.environ.get("SEC_DASHBOARD_DEFAULT_QUERY", LIVE_DEFAULT_QUERY)
    state = DashboardState(client=client, default_query=default_query)
    served = pn.state.curdoc is not None and pn.state.curdoc.session_context is not None
    # A page built ahead of a shared link's visitor: the link is applied, and the first load
    # started, when the visitor comes (`adopt_link`).
    awaits_link = served and spare_sessions.awaits_link(pn.state.curdoc.session_context.id)
    if served:
        pin_local_stylesheets(pn.state.curdoc)
        state.apply_url(dict(pn.state.session_args or {}))
    app = DashboardApp(
        state=state,
        source_label=settings.source_label,
        banner=DEMO_LABEL if settings.demo else "",
        examples=demo_examples(client.today) if settings.demo else {},
        report=build_report,
        demo=settings.demo,
        page_ready=not served,
        defer_loads=awaits_link,
    )
    if served:
        _DASHBOARDS[pn.state.curdoc] = weakref.ref(app)
        delivery.install()  # what changes while the browser builds the page reaches it
        pn.state.on_session_destroyed(lambda _context: app.market.close())
        pn.state.on_session_destroyed(release_notification_area)
        pn.state.on_session_destroyed(trim_heap_soon)
        pn.state.onload(app.on_page_ready)
        sync_url(state)
        if not awaits_link:
            begin(app)
    return app


def pin_local_stylesheets(document) -> None:
    """Have every component made in this served document link Panel's stylesheets from this
    server, from its first moment.

    Panel points a component's stylesheets at its public CDN and moves them to the server's own
    copy by the address it notes on the document when the page's HTML is made, and for what the
    page holds then. A page built ahead of its visitor (a spare) makes components before that:
    those its first load (started when a link is adopted) made, and added after the HTML was made,
    kept the CDN address. With no internet the browser then failed to fetch 45 stylesheets (the
    Licensee tab of a shared link; in 2 of 29 runs of the end-to-end test, at least), and with
    internet it fetched them from a third party. The address is the one Panel's page would note."""
    from bokeh.settings import settings as bokeh_settings
    from panel.io.resources import LOCAL_DIST
    from panel.io.state import set_curdoc

    if bokeh_settings.resources(default="server") != "server":
        return  # the page itself links the CDN: Panel keeps those addresses
    with set_curdoc(document):
        rel_path = pn.state.rel_path
    document._template_variables.setdefault("dist_url", f"{rel_path}/{LOCAL_DIST}" if rel_path else LOCAL_DIST)


def begin(app: DashboardApp) -> None:
    """Start a served session's first load, and say (once its page is drawn) what of its link was ignored.

    The load starts now, while the browser fetches the scripts, not after the page has rendered:
    the data is usually there by the time the first paint is."""
    pn.state.execute(app.start)
    if app.state.ignored_url:
        pn.state.onload(functools.partial(notify_warning, ignored_notice(app.state.ignored_url)))


def adopt_link(document, arguments: dict) -> None:
    """Make a page built ahead of a shared link's visitor theirs: apply the link's query and start
    its first load. Declines (`LinkDeclined`, before changing anything) a dark-theme link: the
    page's components took the light theme when they were made, where a page built for the link
    makes every one dark. Raises if the page is not one waiting for a link (the visitor's session
    is then built for them)."""
    from panel.io.state import set_curdoc

    if url_text(arguments.get("theme")) == "dark":  # as the state reads it
        raise spare_sessions.LinkDeclined("a dark-theme link")
    app = dashboard_of(document)
    if app is None or app.state.started:
        raise RuntimeError("the page is not waiting for a link")
    with set_curdoc(document):
        app.state.apply_url(dict(arguments))
        begin(app)


#: Each served document's dashboard, both weakly: the dashboard holds its document, so a strong
#: value would keep every ended session's document (and dashboard) alive for good.
_DASHBOARDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def dashboard_of(document) -> DashboardApp | None:
    """The dashboard served in a session's document (None for another document)."""
    ref = _DASHBOARDS.get(document)
    return ref() if ref is not None else None


def spare_usable(document) -> bool:
    """Whether a page built ahead of its visitor may be handed over: not when its first load failed
    (the service was failing then; the visitor's own session tries again)."""
    app = dashboard_of(document)
    return app is None or not app.state.load_failed()


def url_search(state: DashboardState) -> str:
    """The query string of the state: only what is set, commas kept readable."""
    query = urllib.parse.urlencode({k: v for k, v in state.url_state().items() if v}, safe=",")
    return f"?{query}" if query else ""


def ignored_notice(ignored: list[str]) -> str:
    """The notice for parts of a link that could not be used (they are removed from the address)."""
    return f"Parts of the link could not be used and were left out: {'; '.join(ignored)}."


def release_notification_area(session_context) -> None:
    """Drop the ended session's notification area from Panel's registry of views.

    Panel (1.9) registers each session's notification area as a root view when it serves the page
    but never removes it when the session ends (its destroy hook only knows documents it was served
    into), so every session left its area, its Bokeh model and its whole document behind.
    """
    doc = session_context._document
    for ref, (viewable, _model, view_doc, _comm) in list(pn.state._views.items()):
        if view_doc is doc and isinstance(viewable, NotificationAreaBase):
            del pn.state._views[ref]


def sync_url(state: DashboardState) -> None:
    """Keep the browser's address in step with the state (tab, fund, basket, search, theme, licensee).

    The state was set from the address when the session started; from then on the state leads:
    the first push replaces an address with values the state ignored by the clean one.
    Empty values are left out, so a shared link never carries "fund=" that would clear a choice.
    """
    location = pn.state.location
    if location is None:
        return

    def push(*_):
        search = url_search(state)
        if location.search != search:
            location.search = search

    state.url_watch(push)
    pn.state.onload(push)  # once the browser is connected, so its address is the one updated


# A module path as Python spells it: dotted identifiers, nothing else (no "..", no slashes).
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def component_resource_handler():
    """Panel's handler of /components/<module>/<class>/<attribute>/<file>, refusing with a 4xx what
    is not a resource of a component already loaded.

    Panel imports the module named in the address; `..` made `importlib` raise TypeError, which
    the server answered with 500 and a traceback in its log, and any other name imported a module
    of the installation on a stranger's request. Here a module must be a plain dotted name and
    already imported (every component on a page is), and whatever else goes wrong is a 404.
    """
    from panel.io.server import ComponentResourceHandler
    from tornado.web import HTTPError

    class LoadedComponentResourceHandler(ComponentResourceHandler):
        def parse_url_path(self, path: str) -> str:
            module = path.split("/", 1)[0]
            if not _MODULE_NAME.fullmatch(module) or module not in sys.modules:
                raise HTTPError(404, "Component not found")
            try:
                return super().parse_url_path(path)
            except HTTPError:
                raise
            except Exception:  # noqa: BLE001 - an address the handler cannot resolve is not found, not a server fault
                raise HTTPError(404, "Component not found") from None

    return LoadedComponentResourceHandler


def component_routes() -> list[tuple]:
    """Routes that take precedence over Panel's own /components handler (Tornado tries them in order)."""
    from panel.io.resources import COMPONENT_PATH

    return [(f"/{COMPONENT_PATH}(.*)", component_resource_handler(), {})]


# A year: what a browser may keep a versioned static file without asking again.
VERSIONED_MAX_AGE = 365 * 24 * 3600
# A day: files whose address does not change when their content does (a library's unversioned
# bundle); after that the browser revalidates them with their ETag (a 304, no body).
UNVERSIONED_MAX_AGE = 24 * 3600
# esbuild's content hash in a file name, as panel-material-ui's fonts carry it ("...-LA5HL3OG.woff2").
_HASHED_NAME = re.compile(r"-[A-Z0-9]{8}\.[a-z0-9]+$")


def static_max_age(path: str, query: str) -> int:
    """How long a browser may keep a static file: long when its address names its version (a `?v=`
    or hash query, as Panel and Bokeh write them, or a content hash in the name), a day otherwise."""
    return VERSIONED_MAX_AGE if query or _HASHED_NAME.search(path) else UNVERSIONED_MAX_AGE


def static_routes() -> list[tuple]:
    """/static/extensions/... (Panel's and panel-material-ui's scripts, styles and fonts) served as
    Bokeh serves them, with a cache lifetime: Tornado gives one only to addresses with `?v=`, so
    panel-material-ui's bundle (`?<hash>`), its fonts and Tabulator's scripts were revalidated or
    left to the browser's guess. (Bokeh's own /static/js/... already carry `?v=`.)"""
    from bokeh.embed.bundle import extension_dirs
    from bokeh.server.views.multi_root_static_handler import MultiRootStaticHandler

    class CachedStaticHandler(MultiRootStaticHandler):
        def get_cache_time(self, path, modified, mime_type) -> int:
            return static_max_age(path, self.request.query)

        def set_extra_headers(self, path) -> None:
            if static_max_age(path, self.request.query) == VERSIONED_MAX_AGE:
                self.set_header("Cache-Control", f"max-age={VERSIONED_MAX_AGE}, immutable")

    return [(r"/static/extensions/(.*)", CachedStaticHandler, {"root": extension_dirs})]


def cache_component_resources() -> None:
    """Have Panel work out the style sheets and scripts its custom components need once, not on
    every page served.

    Each GET of the page had Panel list them by walking every component class it knows (about 120,
    most of them panel-material-ui's) and resolving each one's files on disk: 29 ms of the 146 ms
    the server took to answer, the same answer every time. It changes only when a component class
    is defined, an extension loaded, or the page is served under another path, so those make the
    key. What the walk adds to a list is kept, and added again the way Panel adds it (in order,
    skipping what the list already holds), so the page names the same files in the same order."""
    from panel.io.resources import Resources
    from panel.io.state import state
    from panel.reactive import ReactiveCustomBase, ReactiveMetaBase
    from panel.util import _descendents

    walk = Resources.extra_resources
    if getattr(walk, "cached_by_dashboard", False):
        return
    found: dict[tuple, list[str]] = {}

    def extra_resources(self, resources, resource_type):
        extensions = state._extensions
        key = (resource_type, self.mode, state.rel_path, tuple(sorted(ReactiveMetaBase._loaded_extensions)),
               None if extensions is None else tuple(sorted(extensions)),
               tuple(_descendents(ReactiveCustomBase, concrete=True)))
        if key not in found:
            fresh: list[str] = []
            walk(self, fresh, resource_type)
            found[key] = fresh
        for resource in found[key]:
            if resource not in resources:
                resources.append(resource)

    extra_resources.cached_by_dashboard = True
    Resources.extra_resources = extra_resources


def _origins(address: str, port: int) -> list[str]:
    hosts = {address, "localhost", "127.0.0.1"}
    if address in ("0.0.0.0", "::", ""):
        hosts |= {socket.gethostname(), socket.getfqdn()}
    extra = [o.strip() for o in os.environ.get("SEC_DASHBOARD_WEBSOCKET_ORIGINS", "").split(",") if o.strip()]
    return sorted(f"[{h}]:{port}" if ":" in h else f"{h}:{port}" for h in hosts if h) + extra


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends

_forked_server = False  # whether this process is one `--num-procs` forked


def _on_forked_server(parent: int) -> None:
    """In each process `--num-procs` forks: end with the parent (the process a user or supervisor
    stops: without this, stopping it left the others serving the port, orphaned), and purge freed
    memory in the background as the parent does (jemalloc stops that in a forked child). A process
    forked by one of those (its own children) is left alone."""
    global _forked_server
    if _forked_server:
        return
    _forked_server = True
    renewal.mark_forked()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent ended before the line above: nobody would stop this one
            os._exit(0)
    restore_background_purging()


def serve(port: int = 5006, address: str = "127.0.0.1", show: bool = False, settings: ApiSettings | None = None,
          num_procs: int = 1, settle: bool = True, spares: bool = True, renew: RenewalPolicy | None = None,
          **kwargs) -> None:
    """Serve the dashboard until interrupted (the `sec-dashboard serve` command).

    `num_procs` > 1 forks that many server processes sharing the port (Panel's multi-process
    serving; 0 means one per CPU); each has its own sessions, all share the disk cache. `settle`
    freezes the heap first (`settle_heap`): off for a server started inside another program (a
    test's thread), whose heap is not the server's to freeze. `spares` builds each process's next
    session before its visitor comes (`dashboard.spare_sessions`): a plain visit's page then
    answers at once instead of after the session's build.
    """
    if num_procs < 0:
        raise ValueError(f"num_procs must be 0 (one per CPU) or more, not {num_procs}")
    settings = settings or ApiSettings.from_env()

    def factory():
        # One client (pool, cache, rate limit) for every session of a process, made by its first
        # session: a client's event-loop thread would not survive the fork of `num_procs` > 1.
        return create_app(settings, default_client(settings))

    print(f"SEC dashboard on http://{address}:{port}/ ({settings.source_label}; Ctrl+C stops)", flush=True)
    kwargs.setdefault("liveness", True)  # GET /liveness answers 200 without opening a session
    kwargs["extra_patterns"] = component_routes() + static_routes() + list(kwargs.get("extra_patterns", []))
    cache_component_resources()
    session_tokens.install()  # a garbled session token gets a 400, not a traceback
    if spares:
        spare_sessions.enable(spare_sessions.Template(protocol="http", host=f"{address}:{port}", path="/"),
                              usable=spare_usable, adopt=adopt_link)
    else:
        spare_sessions.disable()
    if settle:
        settle_heap()
    if renew is not None and renewal.start(renew) is not None:
        pn.state.on_session_created(renewal.observe)
        pn.state.on_session_destroyed(renewal.observe)
        if num_procs != 1:  # Bokeh forks through Tornado's; a renewed process is replaced, not counted as a crash
            tornado.process.fork_processes = renewal.fork_processes
    if num_procs != 1:
        os.register_at_fork(after_in_child=functools.partial(_on_forked_server, os.getpid()))
    pn.serve({"/": factory}, port=port, address=address, show=show, websocket_origin=_origins(address, port),
             title=APP_TITLE, num_procs=num_procs, **kwargs)


if __name__.startswith("bokeh_app"):  # run by `panel serve dashboard/app.py`
    session_tokens.install()
    create_app().servable(title=APP_TITLE)
elif __name__ == "__main__":
    serve()

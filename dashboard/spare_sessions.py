"""Sessions built ahead of the next visitor: one for the plain address, one for a shared link.

Building a session (the app's objects, then its Bokeh document: about 120 ms of CPU here) used to
happen inside the visitor's GET, on the server's only event loop. The page's HTML waited for it,
and so did every script and style sheet a cold browser asked for meanwhile. A spare session is
built while the server is otherwise idle; a visitor whose address carries no query (`/`, the
address most people open) gets it at once, under the visitor's own session id and token, and
the next spare is built once that visitor's page is drawn.

An address with a query (a shared link: `?fund=...&tab=fees`) gets the other spare, a *link
spare*: a page built the same way but whose first load has not started. The app's `adopt`
(given to `enable`) applies the link's query to it and starts its load when it is handed over, or
declines a link the page cannot show as a page built for it would (`LinkDeclined`: the spare is
kept for the next link); without `adopt`, links get a session built for them.

A spare is built from a request without query, headers or cookies (the path, host and scheme of
the last visit; only a visit to the same path gets it) and takes the visitor's request when
handed over, so no visitor ever sees another's address, headers or cookies. Requests with a
signed-in user or route parameters get a session built for them, as before; so does a visit that
finds the spare older than `MAX_AGE_S` or with data that failed to load (the spare is then ended),
or a link the spare declined or could not take.

`enable()` patches Bokeh's `ApplicationContext` (process-wide, once; `disable()` turns it off);
each application context of each server process keeps its own spare.
"""

from __future__ import annotations

import functools
import logging
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from bokeh.document import Document
from bokeh.server.contexts import ApplicationContext, _RequestProxy
from bokeh.server.session import ServerSession
from bokeh.util.token import generate_jwt_token, get_token_payload
from tornado.ioloop import IOLoop

log = logging.getLogger("dashboard.spare_sessions")

#: After a spare is handed over, how long to wait for the visitor's page to be drawn before
#: building the next one anyway (a visitor without a browser never reports it).
FALLBACK_DELAY_S = 5.0
#: After the visitor's page is drawn, how long to leave the server to the work that follows it
#: (the parts a page gets once drawn) before building the next spare.
AFTER_DRAWN_DELAY_S = 0.5
#: A spare older than this is not handed over: its data would be older than a new session's.
MAX_AGE_S = 300.0
SPARE_PREFIX = "spare-"
#: The session id of a link spare starts so.
LINK_PREFIX = f"{SPARE_PREFIX}link-"
#: The ids of the link spares being built now (`awaits_link`).
_links_being_built: set[str] = set()
#: After the server starts, when to build its first spare.
START_DELAY_S = 0.5


class LinkDeclined(Exception):
    """Raised by `adopt`, before it changes anything, for a link a link spare cannot show as a page
    built for that link would: the visit gets a session built for it and the spare stays."""


@dataclass(frozen=True)
class Template:
    """What a spare session's request looks like: the scheme, host and path of a visit (never its
    query, which is the visitor's own)."""

    protocol: str
    host: str
    path: str

    @classmethod
    def of(cls, request) -> "Template":
        return cls(protocol=getattr(request, "protocol", "http"), host=getattr(request, "host", ""),
                   path=getattr(request, "path", "/"))


class SpareRequest:
    """The request a spare is built from: a template's address, no query, headers or cookies."""

    def __init__(self, template: Template):
        self.protocol, self.host, self.path = template.protocol, template.host, template.path
        self.uri = template.path  # no query: a visitor's is their own
        self.arguments: dict = {}
        self.cookies: dict = {}
        self.headers: dict = {}


@dataclass
class Spare:
    session: ServerSession
    template: Template
    built_at: float


class SparePool:
    """The spares of one application context: at most one for plain visits (`spare`) and one for
    links (`link_spare`, when the app can adopt a link), each ready or being built."""

    def __init__(self, context: ApplicationContext):
        self.context = context
        self.spare: Spare | None = None
        self.link_spare: Spare | None = None
        self.building = False
        self.template: Template | None = None
        self._timer = None
        #: Sessions handed over so far (plain visits and links).
        self.handed_over = 0
        #: Of those, the ones handed to a link.
        self.handed_to_links = 0

    # ---- handing over --------------------------------------------------------------------------

    def take(self, session_id: str, request, token: str | None) -> ServerSession | None:
        """The spare, now the session `session_id` of the visitor who sent `request` with `token`;
        None when there is none to give (then the visitor's session is built as before)."""
        if request is None or token is None:
            return None
        payload = get_token_payload(token)
        link = link_visit(payload)
        if not (link or plain_visit(payload)) or (link and _adopt is None):
            return None
        # The next spare is built for the address visitors use (only the path shapes a session:
        # the browser tells its page's own address as soon as it has the page).
        self.template = Template.of(request)
        if link:
            spare, self.link_spare = self.link_spare, None
        else:
            spare, self.spare = self.spare, None
        if spare is None:
            self.build_soon(FALLBACK_DELAY_S)
            return None
        if (spare.template.path != self.template.path or time.monotonic() - spare.built_at > MAX_AGE_S
                or not _usable(spare.session.document)):
            self._discard(spare.session)
            self.build_soon(FALLBACK_DELAY_S)
            return None
        if link:
            try:
                _adopt(spare.session.document, payload.get("arguments") or {})
            except LinkDeclined:
                self.link_spare = spare  # unchanged: kept for the next link
                return None
            except Exception:  # noqa: BLE001 - the visitor's page never depends on the spare
                log.exception("A link could not be applied to a spare session; building the visitor's session")
                self._discard(spare.session)
                self.build_soon(FALLBACK_DELAY_S)
                return None
            self.handed_to_links += 1
        session, context = spare.session, self.context
        session_context = context._session_contexts.pop(session.id)
        del context._sessions[session.id]
        session._id = session_context._id = session_id
        session._token = session_context._token = token
        session_context._request = _RequestProxy(request, arguments=payload.get("arguments"),
                                                 cookies=payload.get("cookies"), headers=payload.get("headers"))
        context._sessions[session_id] = session
        context._session_contexts[session_id] = session_context
        session.unblock_expiration()  # from now on it expires like any session nobody opened
        self.handed_over += 1
        session.document.on_event("document_ready", self._visitor_drawn)
        self.build_soon(FALLBACK_DELAY_S)
        return session

    def _visitor_drawn(self, _event) -> None:
        self.build_soon(AFTER_DRAWN_DELAY_S)

    # ---- building ------------------------------------------------------------------------------

    def missing(self) -> str | None:
        """Which spare is to be built next: "plain", then "link" (when links can be adopted), or None."""
        if self.spare is None:
            return "plain"
        if self.link_spare is None and _adopt is not None:
            return "link"
        return None

    def build_soon(self, delay: float) -> None:
        """Build a missing spare in `delay` seconds (sooner if already due), unless one is coming."""
        if self.missing() is None or self.building:
            return
        loop = self.context.io_loop or IOLoop.current()
        due = loop.time() + delay
        if self._timer is not None:
            timer, when = self._timer
            if when <= due:
                return
            loop.remove_timeout(timer)
        self._timer = (loop.call_at(due, self._build), due)

    async def _build(self) -> None:
        self._timer = None
        kind = self.missing()
        if kind is None or self.building or self.template is None:
            return
        self.building = True
        template = self.template
        spare_id = f"{LINK_PREFIX if kind == 'link' else SPARE_PREFIX}{uuid.uuid4().hex}"
        token = generate_jwt_token(spare_id, signed=False, extra_payload={"headers": {}, "cookies": {}, "arguments": {}})
        if kind == "link":
            _links_being_built.add(spare_id)
        try:
            session = await _create_session(self.context, spare_id, SpareRequest(template), token)
        except Exception as exc:  # noqa: BLE001 - a spare that cannot be built is no spare; visitors get their own
            log.warning("A spare session could not be built (%s); sessions are built per visitor", exc)
            return
        finally:
            self.building = False
            _links_being_built.discard(spare_id)
        session.block_expiration()  # nobody has opened it: Bokeh would otherwise end it after 15 s
        built = Spare(session=session, template=template, built_at=time.monotonic())
        if kind == "link":
            self.link_spare = built
        else:
            self.spare = built
        # the other one next, once this build's work has settled
        self.build_soon(AFTER_DRAWN_DELAY_S)

    def _discard(self, session: ServerSession) -> None:
        """End a spare that will not be handed over, the way Bokeh ends a session nobody opened."""
        session.unblock_expiration()
        session.request_expiration()


def _query(payload: dict) -> set[str]:
    return {k for k in (payload.get("arguments") or {}) if not k.startswith("bokeh-")}


def _anyone(payload: dict) -> bool:
    """Whether a visit is one a page built for nobody in particular can serve: no signed-in user,
    no route parameters."""
    return not payload.get("user") and not payload.get("route_params")


def plain_visit(payload: dict) -> bool:
    """Whether a visit (its token's payload) opens the plain address, no query, as anyone (a
    spare is the page such a visit gets)."""
    return _anyone(payload) and not _query(payload)


def link_visit(payload: dict) -> bool:
    """Whether a visit opens a link (a query) as anyone (a link spare, its query applied, is the
    page such a visit gets)."""
    return _anyone(payload) and bool(_query(payload))


def awaits_link(session_id: str | None) -> bool:
    """Whether a session is a link spare being built (by a pool, not a visitor naming a session id
    of that form): its page is to wait for `adopt` (the link's query, then its first load)."""
    return session_id in _links_being_built


_create_session = ApplicationContext.create_session_if_needed
_run_load_hook = ApplicationContext.run_load_hook
#: The address a spare is first built for, while spares are on in this process (None: off).
_first_template: Template | None = None
_enabled = False
#: Whether a spare's page may be handed over as it is (the app says: not when its first load failed).
_usable: Callable[[Document], bool] = lambda _document: True
#: Applies a link's query arguments to a link spare's page and starts its first load (the app's;
#: None: links get a session built for them).
_adopt: Callable[[Document, dict], None] | None = None


#: Every pool of this process (weakly: a pool lives as long as its application context).
_POOLS: weakref.WeakSet = weakref.WeakSet()


def pool(context: ApplicationContext) -> SparePool:
    """The spare pool of an application context (made on first use)."""
    found = context.__dict__.get("_dashboard_spares")
    if found is None:
        found = context.__dict__["_dashboard_spares"] = SparePool(context)
        _POOLS.add(found)
    return found


def pools() -> list[SparePool]:
    """The spare pools of this process's application contexts (one per served page)."""
    return list(_POOLS)


def enable(template: Template | None = None, usable: Callable[[Document], bool] | None = None,
           adopt: Callable[[Document, dict], None] | None = None) -> None:
    """Hand spares to visits in every application context of this process's servers.

    `template` (the server's own address) lets the first spare be built when the server starts,
    before anyone visits; without it the first plain visit is built as before and the spare follows.
    `usable(document)` says whether a spare's page may be handed over (a page whose data failed to
    load is ended instead, and the visitor's own session tries again). `adopt(document, arguments)`
    applies a link's query (the token's arguments) to a link spare's page and starts its load; it
    raises `LinkDeclined` (before changing anything) for a link the page cannot show as a page built
    for it would, and the visitor's session is then built for them. Without it, only plain visits
    get spares."""
    global _enabled, _first_template, _usable, _adopt
    _enabled, _first_template = True, template
    _usable = usable or (lambda _document: True)
    _adopt = adopt
    if ApplicationContext.create_session_if_needed is not _create_session:
        return  # patched already

    @functools.wraps(_create_session)
    async def create_session_if_needed(self, session_id, request=None, token=None):
        if (_enabled and session_id not in self._sessions and session_id not in self._pending_sessions
                and not str(session_id).startswith(SPARE_PREFIX) and not _websocket(request)):
            try:
                spare = pool(self).take(session_id, request, token)
            except Exception:  # noqa: BLE001 - the visitor's page never depends on the spare
                log.exception("A spare session could not be handed over; building the visitor's session")
                spare = None
            if spare is not None:
                return spare
        return await _create_session(self, session_id, request, token)

    @functools.wraps(_run_load_hook)
    def run_load_hook(self):
        _run_load_hook(self)
        if _enabled and _first_template is not None:
            spares = pool(self)
            spares.template = spares.template or _first_template
            spares.build_soon(START_DELAY_S)

    ApplicationContext.create_session_if_needed = create_session_if_needed
    ApplicationContext.run_load_hook = run_load_hook


def disable() -> None:
    """Build every session for its visitor (a spare already built stays with its server, unused)."""
    global _enabled
    _enabled = False


def _websocket(request) -> bool:
    """Whether the request opens a websocket (a client that connects without loading the page,
    or a page whose session is gone: its session is built for it, as before)."""
    headers = getattr(request, "headers", None) or {}
    return str(headers.get("Upgrade", "")).lower() == "websocket"

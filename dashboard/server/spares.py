"""Patch: a session built ahead of the next visitor of the plain address (`/`, no query).

Building a session (the app's objects, then its Bokeh document: over 100 ms of CPU here) happens
inside the visitor's GET, on the server's only event loop: the page's HTML waits for it, and so
does every script and style sheet a cold browser asks for meanwhile. A spare is built while the
server is otherwise idle; a visit whose address carries no query and no signed-in user gets it at
once, under the visitor's own session id, token and request, and the next spare is built once that
visitor's page is drawn. Every other visit (a shared link, a websocket opened directly, a spare too
old or whose data failed to load) gets a session built for it, as Panel builds it.

Panel's own `reuse_sessions="warm"` answers the HTML at once too, but still builds the visitor's
session after answering: the browser then waits for it before its first paint (docs/performance.md
has the two side by side). `enable()` patches Bokeh's `ApplicationContext` (process-wide, once).
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

log = logging.getLogger("dashboard.server.spares")

#: After a spare is handed over, how long to wait for the visitor's page to be drawn before building
#: the next one anyway (a visitor without a browser never reports it).
FALLBACK_DELAY_S = 5.0
#: After the visitor's page is drawn, how long to leave the server to what follows before the next spare.
AFTER_DRAWN_DELAY_S = 0.5
#: A spare older than this is not handed over: its data would be older than a new session's.
MAX_AGE_S = 300.0
#: After the server starts, when to build its first spare.
START_DELAY_S = 0.5
SPARE_PREFIX = "spare-"


class SpareRequest:
    """The request a spare is built from: the served address's path, no query, headers or cookies
    (a visitor's are their own: the spare takes the visitor's request when handed over)."""

    def __init__(self, protocol: str, host: str, path: str):
        self.protocol, self.host, self.path, self.uri = protocol, host, path, path
        self.arguments: dict = {}
        self.cookies: dict = {}
        self.headers: dict = {}


@dataclass
class Spare:
    session: ServerSession
    built_at: float


class SparePool:
    """The spare of one application context: at most one, ready or being built."""

    def __init__(self, context: ApplicationContext, request: SpareRequest):
        self.context, self.request = context, request
        self.spare: Spare | None = None
        self.building = False
        self._timer = None
        #: Sessions handed over so far.
        self.handed_over = 0

    def take(self, session_id: str, request, token: str | None) -> ServerSession | None:
        """The spare, now the session `session_id` of the visitor who sent `request` with `token`;
        None when there is none to give (the visitor's session is then built as Panel builds it)."""
        if request is None or token is None or getattr(request, "path", None) != self.request.path:
            return None
        payload = get_token_payload(token)
        if not plain_visit(payload):
            return None
        spare, self.spare = self.spare, None
        self.build_soon(FALLBACK_DELAY_S)
        if spare is None:
            return None
        if time.monotonic() - spare.built_at > MAX_AGE_S or not _usable(spare.session.document):
            spare.session.unblock_expiration()
            spare.session.request_expiration()  # ended the way Bokeh ends a session nobody opened
            return None
        session, context = spare.session, self.context
        session_context = context._session_contexts.pop(session.id)
        del context._sessions[session.id]
        session._id = session_context._id = session_id
        session._token = session_context._token = token
        session_context._request = _RequestProxy(request, arguments=payload.get("arguments"),
                                                 cookies=payload.get("cookies"), headers=payload.get("headers"))
        context._sessions[session_id] = session
        context._session_contexts[session_id] = session_context
        self.handed_over += 1
        session.document.on_event("document_ready", lambda _event: self.build_soon(AFTER_DRAWN_DELAY_S))
        return session

    def build_soon(self, delay: float) -> None:
        """Build the spare in `delay` seconds (sooner if already due), unless there is one or one is coming."""
        if self.spare is not None or self.building:
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
        if self.spare is not None or self.building:
            return
        self.building = True
        spare_id = f"{SPARE_PREFIX}{uuid.uuid4().hex}"
        token = generate_jwt_token(spare_id, signed=False, extra_payload={"headers": {}, "cookies": {}, "arguments": {}})
        try:
            session = await _create_session(self.context, spare_id, self.request, token)
        except Exception as exc:  # noqa: BLE001 - a spare that cannot be built is no spare; visitors get their own
            log.warning("A spare session could not be built (%s); sessions are built per visitor", exc)
            return
        finally:
            self.building = False
        session.block_expiration()  # nobody has opened it: Bokeh would otherwise end it after 15 s
        self.spare = Spare(session=session, built_at=time.monotonic())


def plain_visit(payload: dict) -> bool:
    """Whether a visit (its token's payload) opens the address with no query as anyone: no signed-in
    user, no route parameters (a spare is the page such a visit gets)."""
    query = [k for k in (payload.get("arguments") or {}) if not k.startswith("bokeh-")]
    return not query and not payload.get("user") and not payload.get("route_params")


_create_session = ApplicationContext.create_session_if_needed
_run_load_hook = ApplicationContext.run_load_hook
#: The served address a spare is built for (None: spares are off).
_request: SpareRequest | None = None
#: Whether a spare's page may be handed over as it is (the app says: not when its first load failed).
_usable: Callable[[Document], bool] = lambda _document: True


#: Every pool of this process (weakly: a pool lives as long as its application context).
_POOLS: weakref.WeakSet = weakref.WeakSet()


def pool(context: ApplicationContext) -> SparePool | None:
    """The spare pool of an application context (made on first use; None while spares are off)."""
    if _request is None:
        return None
    found = context.__dict__.get("_dashboard_spares")
    if found is None:
        found = context.__dict__["_dashboard_spares"] = SparePool(context, _request)
        _POOLS.add(found)
    return found


def pools() -> list[SparePool]:
    """The spare pools of this process's application contexts (one per served page)."""
    return list(_POOLS)


def enable(protocol: str, host: str, path: str = "/", usable: Callable[[Document], bool] | None = None) -> None:
    """Build a spare for plain visits in every application context of this process's servers, the
    first one when the server starts. `usable(document)` says whether a spare's page may be handed
    over (a page whose data failed to load is ended instead, and the visitor's session tries again)."""
    global _request, _usable
    _request = SpareRequest(protocol, host, path)
    _usable = usable or (lambda _document: True)
    if ApplicationContext.create_session_if_needed is not _create_session:
        return  # patched already

    @functools.wraps(_create_session)
    async def create_session_if_needed(self, session_id, request=None, token=None):
        spares = pool(self)
        if (spares is not None and session_id not in self._sessions and session_id not in self._pending_sessions
                and not _websocket(request)):
            try:
                spare = spares.take(session_id, request, token)
            except Exception:  # noqa: BLE001 - the visitor's page never depends on the spare
                log.exception("A spare session could not be handed over; building the visitor's session")
                spare = None
            if spare is not None:
                spare.unblock_expiration()  # from now on it expires like any session
                return spare
        return await _create_session(self, session_id, request, token)

    @functools.wraps(_run_load_hook)
    def run_load_hook(self):
        _run_load_hook(self)
        spares = pool(self)
        if spares is not None:
            spares.build_soon(START_DELAY_S)

    ApplicationContext.create_session_if_needed = create_session_if_needed
    ApplicationContext.run_load_hook = run_load_hook


def disable() -> None:
    """Bokeh's own `ApplicationContext` again: every session is built for its visitor."""
    global _request
    _request = None
    ApplicationContext.create_session_if_needed = _create_session
    ApplicationContext.run_load_hook = _run_load_hook


def _websocket(request) -> bool:
    """Whether the request opens a websocket (a client connecting without loading the page)."""
    headers = getattr(request, "headers", None) or {}
    return str(headers.get("Upgrade", "")).lower() == "websocket"

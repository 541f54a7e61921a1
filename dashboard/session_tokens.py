"""A session token that is not one the server could have made is refused in one line, not a traceback.

A served page and its websocket carry a session token (the page's `?bokeh-token=` argument, the
websocket's `Sec-WebSocket-Protocol: bokeh, <token>` header). Bokeh decodes it before checking it:
a garbled one (`?bokeh-token=garbage`, a websocket without the header, a token without a session id
or expiry) ended the request in an uncaught exception, with its traceback in the server log and,
for the page, a 500 answer. An expired token on the websocket (a laptop waking after the token's
lifetime) did the same.

`install()` checks the token first, where Tornado can still answer plainly: a token that cannot
be read, or names no session, is answered 400; an expired token or a bad signature 403 (Bokeh's
own answer to a token it could read and refused). Well-formed tokens go on to Bokeh unchanged.
Process-wide, idempotent.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import logging
import zlib

from bokeh.server.views.auth_request_handler import AuthRequestHandler
from bokeh.server.views.session_handler import SessionHandler
from bokeh.server.views.ws import WSHandler
from bokeh.util.token import check_token_signature, get_session_id, get_token_payload
from tornado.web import HTTPError

log = logging.getLogger("dashboard.session_tokens")

#: Errors reading a token's payload raises (bad base64, bad UTF-8, bad JSON, bad zlib, not an object).
_UNREADABLE = (ValueError, KeyError, TypeError, AttributeError, RecursionError, zlib.error)
_installed = False


def token_problem(token: str | None, *, websocket: bool = False, now: float | None = None,
                  secret_key: bytes | None = None, signed: bool = False) -> tuple[int, str] | None:
    """Why the server refuses this session token, as (HTTP status, reason), or None if it is
    well-formed. The websocket's token must also carry an expiry not yet passed."""
    if not token:
        return 400, "No session token"
    try:
        session_id = get_session_id(token)
        payload = get_token_payload(token)
    except _UNREADABLE:
        return 400, "Malformed session token"
    if not isinstance(session_id, str) or not session_id:
        return 400, "Malformed session token"
    if not check_token_signature(token, secret_key=secret_key, signed=signed):
        return 403, "Invalid session token"
    if websocket:
        expiry = payload.get("session_expiry")
        if not isinstance(expiry, (int, float)) or isinstance(expiry, bool):
            return 400, "Malformed session token"
        if now is None:
            now = calendar.timegm(dt.datetime.now(tz=dt.timezone.utc).timetuple())
        if now >= expiry:
            return 403, "Session token expired"
    return None


def websocket_token(header: str | None) -> str | None:
    """The token in a websocket's subprotocol header (`bokeh, <token>`), or None if it has none."""
    if not header:
        return None
    protocols = [part.strip() for part in header.split(",")]  # as Tornado splits it
    if len(protocols) != 2 or protocols[0] != "bokeh":
        return None
    return protocols[1]


def _refuse(handler, problem: tuple[int, str]) -> None:
    status, reason = problem
    log.info("%s %s refused: %s", handler.request.method, handler.request.path, reason)
    raise HTTPError(status, reason=reason)


def install() -> None:
    """Check every page's and websocket's session token before Bokeh reads it."""
    global _installed
    if _installed:
        return
    _installed = True
    get_session = SessionHandler.get_session

    @functools.wraps(get_session)
    async def checked_get_session(self):
        token = self.get_argument("bokeh-token", default=None)
        if token is not None:
            problem = token_problem(token, secret_key=self.application.secret_key,
                                    signed=self.application.sign_sessions)
            if problem:
                _refuse(self, problem)
        return await get_session(self)

    prepare = WSHandler.prepare if "prepare" in vars(WSHandler) else AuthRequestHandler.prepare

    @functools.wraps(prepare)
    async def checked_prepare(self):
        problem = token_problem(websocket_token(self.request.headers.get("Sec-WebSocket-Protocol")),
                                websocket=True, secret_key=self.application.secret_key,
                                signed=self.application.sign_sessions)
        if problem:
            _refuse(self, problem)
        return await prepare(self)

    SessionHandler.get_session = checked_get_session
    WSHandler.prepare = checked_prepare

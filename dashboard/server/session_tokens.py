"""Patch: a session token the server could not have made is refused in one line, not a traceback
(docs/upstream.md #4). Bokeh decodes a page's `?bokeh-token=` and a websocket's `bokeh, <token>`
header before checking them, inflating the compressed part whole (zlib packs about 1,000 to 1): a
garbled, expired or oversized token ended in an uncaught exception, a 500 and a traceback in the log.
`install()` checks the token first: unreadable, no session id or inflating past MAX_PAYLOAD_BYTES is
answered 400; an expired token or a bad signature 403. Well-formed tokens go on to Bokeh unchanged.
Process-wide, idempotent; `uninstall()` puts Bokeh's methods back (tests).
"""

from __future__ import annotations

import base64
import calendar
import datetime as dt
import functools
import json
import logging
import zlib

from bokeh.server.views.session_handler import SessionHandler
from bokeh.server.views.ws import WSHandler
from bokeh.util.token import check_token_signature
from tornado.web import HTTPError

log = logging.getLogger("dashboard.session_tokens")

MAX_PAYLOAD_BYTES = 1 << 20  # what a token's compressed part may inflate to (a page's own: a few kilobytes)
ZLIB_KEY = "__bk__zlib_"  # where Bokeh's tokens keep their compressed part (bokeh.util.token)
#: Errors reading a token raises (bad base64, bad UTF-8, bad JSON, bad zlib, too deep).
_UNREADABLE = (ValueError, TypeError, RecursionError, zlib.error)
_originals: dict[tuple[type, str], object] = {}


class _TooLarge(Exception):
    """A token whose compressed part inflates past MAX_PAYLOAD_BYTES."""


def _unbase64(text: str) -> bytes:  # (a UnicodeEncodeError, a ValueError, for anything but ASCII)
    data = text.encode("ascii")
    return base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))


def _read(token: str) -> dict:
    """The token's JSON header, once its compressed part is seen to inflate to a JSON object within
    MAX_PAYLOAD_BYTES (Bokeh inflates it for a page's session as for the websocket)."""
    header = json.loads(_unbase64(token.split(".")[0]))
    if not isinstance(header, dict):
        raise TypeError("not an object")
    packed = header.get(ZLIB_KEY)
    if packed is not None:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(_unbase64(packed), MAX_PAYLOAD_BYTES)
        if inflater.unconsumed_tail:
            raise _TooLarge
        if not isinstance(json.loads(raw), dict):
            raise TypeError("not an object")
    return header


def token_problem(token: str | None, *, websocket: bool = False, now: float | None = None,
                  secret_key: bytes | None = None, signed: bool = False) -> tuple[int, str] | None:
    """Why the server refuses this session token, as (HTTP status, reason), or None if it is
    well-formed: readable, a session id, a compressed part that inflates to at most
    MAX_PAYLOAD_BYTES; the websocket's token must also carry an expiry not yet passed."""
    if not token:
        return 400, "No session token"
    try:
        header = _read(token)
    except _TooLarge:
        return 400, "Session token too large"
    except _UNREADABLE:
        return 400, "Malformed session token"
    session_id = header.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        return 400, "Malformed session token"
    if not check_token_signature(token, secret_key=secret_key, signed=signed):
        return 403, "Invalid session token"
    if not websocket:
        return None  # a page's GET needs no expiry (Bokeh checks it on the websocket only)
    expiry = header.get("session_expiry")
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
    if _originals:
        return
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

    prepare = WSHandler.prepare  # Bokeh's (inherited); Panel's handler calls it first in its own

    @functools.wraps(prepare)
    async def checked_prepare(self):
        problem = token_problem(websocket_token(self.request.headers.get("Sec-WebSocket-Protocol")),
                                websocket=True, secret_key=self.application.secret_key,
                                signed=self.application.sign_sessions)
        if problem:
            _refuse(self, problem)
        return await prepare(self)

    _originals[(SessionHandler, "get_session")] = get_session
    _originals[(WSHandler, "prepare")] = prepare
    SessionHandler.get_session = checked_get_session
    WSHandler.prepare = checked_prepare


def uninstall() -> None:
    """Bokeh's own methods again."""
    for (owner, name), original in _originals.items():
        setattr(owner, name, original)
    _originals.clear()

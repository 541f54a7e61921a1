"""A client that closes its page while the server still works for it is normal: a debug line, not an error.

Three places report it as a fault, each through a public hook this module uses (nothing of Panel,
Bokeh or Tornado is replaced):

- Panel writes a session's changes as Tornado write tasks; when the browser has gone mid-burst they end
  in `WebSocketClosedError`, unretrieved, and asyncio logs "Task exception was never retrieved" with a
  traceback (docs/upstream.md #5). `install()` sets an exception handler on the server's event loop.
- Bokeh handles a message, or finishes opening a websocket, after the connection has closed: its
  connection's `session` then asserts (`assert self._session is not None`), and Bokeh's protocol handler
  or Tornado logs an ERROR with a traceback ("Uncaught exception GET /ws"); Bokeh also warns "Failed
  sending message as connection was closed". `quiet_closed_connections()` puts a logging filter on those
  loggers that turns exactly these records into debug lines; every other record passes unchanged.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

log = logging.getLogger("dashboard.server.closed_clients")

CLOSED = (WebSocketClosedError, StreamClosedError)
#: Where Bokeh asserts that a connection still has its session (`ServerConnection.session`).
_SESSION_ASSERT = os.path.join("bokeh", "server", "connection.py")
#: The loggers that report a closed client as a fault.
LOGGERS = ("bokeh.server.protocol_handler", "bokeh.server.views.ws", "tornado.application")
CLOSED_WARNING = "Failed sending message as connection was closed"


def _closed_client_handler(previous):
    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), CLOSED):
            log.debug("a client closed its connection before a write to it ended (%s)", context.get("message", ""))
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handle.quiets_closed_clients = True  # type: ignore[attr-defined]
    return handle


def install(loop: asyncio.AbstractEventLoop | None = None) -> bool:
    """Quiet closed clients' writes on `loop` (the running one by default); idempotent per loop.
    False when there is no loop to install on."""
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
    previous = loop.get_exception_handler()
    if not getattr(previous, "quiets_closed_clients", False):
        loop.set_exception_handler(_closed_client_handler(previous))
    return True


def closed_connection(record: logging.LogRecord) -> bool:
    """Whether a log record reports a client that had already closed its connection."""
    if record.getMessage() == CLOSED_WARNING:
        return True
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, CLOSED):
        return True
    if not isinstance(error, AssertionError):
        return False
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.endswith(_SESSION_ASSERT)


class ClosedConnectionFilter(logging.Filter):
    """Turns a record of a client gone into a debug line of this module's logger (kept only when that logs debug)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not closed_connection(record):
            return True
        if log.isEnabledFor(logging.DEBUG):
            log.debug("a client closed its connection while the server still worked for it (%s: %s)",
                      record.name, record.getMessage().splitlines()[0][:200])
        return False


_FILTER = ClosedConnectionFilter()


def quiet_closed_connections() -> None:
    """Put the filter on the loggers that report a closed client as a fault (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)

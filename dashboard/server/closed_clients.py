"""A client that closes its page while the server still works for it is a debug line, not an error.

A logging filter (the public logging API; nothing of Panel, Bokeh or Tornado is replaced) on the
loggers that report it as a fault: asyncio's "Task exception was never retrieved" for Panel's writes
to a closed websocket (docs/upstream.md #5); Bokeh's and Tornado's ERROR with a traceback when a
message is handled, or a websocket opened, after its connection closed (Bokeh's
`ServerConnection.session` asserts); Bokeh's warning for each write to it. Every other record passes.
"""

from __future__ import annotations

import logging
import os

from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

log = logging.getLogger("dashboard.server.closed_clients")

CLOSED = (WebSocketClosedError, StreamClosedError)
#: Where Bokeh asserts that a connection still has its session (`ServerConnection.session`).
_SESSION_ASSERT = os.path.join("bokeh", "server", "connection.py")
#: The loggers that report a closed client as a fault.
LOGGERS = ("asyncio", "bokeh.server.protocol_handler", "bokeh.server.views.ws", "tornado.application")
CLOSED_WARNING = "Failed sending message as connection was closed"


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
    """A record of a client gone becomes a debug line of this module's logger."""

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

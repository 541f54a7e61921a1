"""A client that closes its page while the server is still writing to it is normal, not an error.

Panel writes a session's changes to its websocket as Tornado write tasks that it awaits later (or,
when a write fails at once because the peer has gone, drops with the rest of that message's
writes). When the browser closed mid-burst, those tasks end with `WebSocketClosedError`, nobody
retrieves it, and asyncio logged "Task exception was never retrieved ...
WebSocketProtocol13.write_message" as an error, with a traceback, for a visitor closing a tab.

`install()` sets an exception handler on the server's event loop (asyncio's public hook) that turns
a closed websocket or stream into one debug line and hands every other exception to the handler
that was there before (asyncio's default: logged as before). No patch: nothing of Panel, Bokeh or
Tornado is replaced.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

log = logging.getLogger("dashboard.server.closed_clients")

CLOSED = (WebSocketClosedError, StreamClosedError)


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

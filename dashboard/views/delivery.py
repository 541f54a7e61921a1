"""Every change after the browser has pulled the page reaches it (a fix to Panel 1.9's delivery).

A served session's page goes to the browser in two steps: the browser pulls the document (Bokeh
serializes it whole), builds the page, and reports it drawn ("document_ready"). Panel counts a
session as connected only from that report. A layout change made in between (a Column's objects,
a tab's content) is collected and then dropped, on the assumption that the document is still to be
serialized; but the browser has it already, so the change never reaches it. Property changes
(text, visibility, a table's rows) go out; only held events are dropped, so the page ends up with
new values in an old layout. The longer the browser takes to build the page (a busy server, a slow
phone), the wider that window: under load it was 18 s, and the Market tab opened by a link stayed
without its rows.

`install()` makes Panel send what it holds once the document has been pulled: the events are
dispatched on the next tick, under the document's lock, after the pulled document (the pull's
answer is written before any later tick runs). Before the pull nothing changes: the serialization
still carries those changes. Idempotent; process-wide.
"""

from __future__ import annotations

import functools
import weakref

import panel.io.document as panel_document
from bokeh.document.events import DocumentPatchedEvent, MessageSentEvent
from bokeh.server.session import ServerSession

#: Documents the browser has pulled (weakly: a closed session's document goes).
PULLED: weakref.WeakSet = weakref.WeakSet()
_installed = False


def install() -> None:
    """Send the changes Panel would drop between the pull of a document and the first draw."""
    global _installed
    if _installed:
        return
    _installed = True
    pull, drain = ServerSession._handle_pull, panel_document._drain_unconnected_events

    @functools.wraps(pull)
    async def _handle_pull(self, message, connection):
        reply = await pull(self, message, connection)
        PULLED.add(self.document)
        return reply

    @functools.wraps(drain)
    def _drain_unconnected_events(doc, lock):
        if doc not in PULLED:
            return drain(doc, lock)
        # Panel sorts what was held (session callbacks now, custom messages once the page is
        # drawn) and drops the model changes: those are taken first, and sent on the next tick.
        with lock:
            changes = [e for e in doc.callbacks._held_events or []
                       if isinstance(e, DocumentPatchedEvent) and not isinstance(e, MessageSentEvent)]
        now = drain(doc, lock)
        if changes:
            doc.add_next_tick_callback(functools.partial(panel_document._dispatch_events, doc, changes))
        return now

    ServerSession._handle_pull = _handle_pull
    panel_document._drain_unconnected_events = _drain_unconnected_events


def pulled(viewable) -> bool:
    """Whether a browser has pulled a document this component is rendered in (and may be building
    its page from it now)."""
    return any(model.document in PULLED for model, _ in list(viewable._models.values()) if model.document is not None)

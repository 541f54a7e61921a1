"""Patch: the layout changes Panel 1.9 drops between the browser's pull of a document and its first
draw are sent (upstream report: docs/upstream.md, "Panel drops layout changes before document_ready").

Panel counts a session as connected only once the browser reports the page drawn ("document_ready").
A layout change made after the pull and before that report (a Column's objects, a tab's content) is
held and then dropped, on the assumption that the document is still to be serialized: but the
browser has it already. `install()` sends those held changes on the next tick once the document has
been pulled. Process-wide, idempotent; `uninstall()` puts Panel's and Bokeh's functions back (tests).
"""

from __future__ import annotations

import functools

import panel.io.document as panel_document
from bokeh.document.events import DocumentPatchedEvent, MessageSentEvent
from bokeh.server.session import ServerSession

from dashboard.views.delivery import PULLED

#: What is replaced, by (owner, attribute name): the originals, while installed.
_originals: dict[tuple[object, str], object] = {}


def install() -> None:
    """Send the changes Panel would drop between the pull of a document and the first draw."""
    if _originals:
        return
    pull, drain = ServerSession._handle_pull, panel_document._drain_unconnected_events
    dispatch = panel_document._dispatch_events  # checked here: the patch needs all three

    @functools.wraps(pull)
    async def _handle_pull(self, message, connection):
        reply = await pull(self, message, connection)
        PULLED.add(self.document)
        return reply

    @functools.wraps(drain)
    def _drain_unconnected_events(doc, lock):
        if doc not in PULLED:
            return drain(doc, lock)
        # Panel sorts what was held and drops the model changes: take those first, send them next tick.
        with lock:
            changes = [e for e in doc.callbacks._held_events or []
                       if isinstance(e, DocumentPatchedEvent) and not isinstance(e, MessageSentEvent)]
        now = drain(doc, lock)
        if changes:
            doc.add_next_tick_callback(functools.partial(dispatch, doc, changes))
        return now

    _originals[(ServerSession, "_handle_pull")] = pull
    _originals[(panel_document, "_drain_unconnected_events")] = drain
    ServerSession._handle_pull = _handle_pull
    panel_document._drain_unconnected_events = _drain_unconnected_events


def uninstall() -> None:
    """Panel's and Bokeh's own functions again."""
    for (owner, name), original in _originals.items():
        setattr(owner, name, original)
    _originals.clear()

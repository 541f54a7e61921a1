"""An ended session's notification area is dropped from Panel's registry of views (docs/upstream.md #3):
Panel 1.9 never removes it, so every session left its area, its Bokeh model and its whole document behind."""

from __future__ import annotations

import panel as pn
from panel.io.notifications import NotificationAreaBase


def release_notification_area(doc, session_context) -> None:
    """`pn.state.on_session_destroyed` hook (with the session's document bound first): forget the ended
    session's notification area."""
    for ref, (viewable, _model, view_doc, _comm) in list(pn.state._views.items()):
        if view_doc is doc and isinstance(viewable, NotificationAreaBase):
            del pn.state._views[ref]

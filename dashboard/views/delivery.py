"""Which documents a browser has pulled: a view that changes a table while the browser builds the
page from a pulled document waits for the page to be drawn (`dashboard.server.delivery` records the
pulls; without it nothing is recorded and views do not wait)."""

from __future__ import annotations

import weakref

#: Documents the browser has pulled (weakly: a closed session's document goes).
PULLED: weakref.WeakSet = weakref.WeakSet()


def pulled(viewable) -> bool:
    """Whether a browser has pulled a document this component is rendered in (and may be building
    its page from it now)."""
    return any(model.document in PULLED for model, _ in list(viewable._models.values()) if model.document is not None)

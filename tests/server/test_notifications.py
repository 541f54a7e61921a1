"""An ended session's notification area is let go (`dashboard.server.notifications`); without the
patch Panel keeps every one, with its whole document, in its registry of views."""

from __future__ import annotations

import asyncio
import gc

import pytest

from tests.helpers import served_dashboard, wait_until
from tests.views.test_sessions import ServedSession

pytestmark = pytest.mark.slow  # serves the dashboard (or a page) in this process

SESSIONS = 3


def areas_left_by_ended_sessions(port: int) -> list[str]:
    """Open and close sessions; once the server has ended them, the notification areas of ended
    sessions Panel still keeps."""
    import panel as pn
    from panel.io.notifications import NotificationAreaBase

    baseline = set(pn.state._views)

    async def use_sessions() -> None:
        for _ in range(SESSIONS):
            session = await ServedSession.open(port)
            await session.first_load()
            await session.close()

    asyncio.run(use_sessions())

    def ours() -> list:
        return [view for ref, view in list(pn.state._views.items()) if ref not in baseline and view[2] is not None]

    # every session of ours ended (its document has no session context any more)
    wait_until(lambda: all(view[2].session_context is None or not isinstance(view[0], NotificationAreaBase)
                           for view in ours()) and gc.collect() is not None, 60, "the sessions' end")
    return [type(view[0]).__name__ for view in ours() if isinstance(view[0], NotificationAreaBase)]


def served():
    return served_dashboard(check_unused_sessions_milliseconds=100, unused_session_lifetime_milliseconds=100)


def test_an_ended_sessions_notification_area_is_let_go():
    with served() as port:
        assert areas_left_by_ended_sessions(port) == []


def test_the_registry_the_patch_edits_is_where_it_expects_it():
    """Fails when Panel changes its registry of views (the patch is then to be checked against it)."""
    import panel as pn
    from panel.io.notifications import NotificationAreaBase  # noqa: F401 - the class the patch looks for

    assert isinstance(pn.state._views, dict)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="Panel keeps every session's notification area, and its document, for good (docs/upstream.md)")
def test_without_the_patch_panel_lets_an_ended_sessions_notification_area_go(monkeypatch):
    import dashboard.server.serve as serve_module

    monkeypatch.setattr(serve_module, "release_notification_area", lambda _doc, _context: None)
    with served() as port:
        assert areas_left_by_ended_sessions(port) == []

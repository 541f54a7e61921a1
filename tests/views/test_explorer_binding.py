"""The explorer derives its message by binding: it follows the state without a render() call."""

from __future__ import annotations

import asyncio

from dashboard.models.dashboard_state import DashboardState
from dashboard.views.explorer import FundExplorer


def test_the_results_message_follows_the_state_and_the_search_box():
    state = DashboardState()
    explorer = FundExplorer(state=state)
    assert not explorer.message.visible
    state.search.message = "No fund matches <b>x</b>."
    assert "No fund matches &lt;b&gt;x&lt;/b&gt;." in explorer.message.object and explorer.message.visible
    state.search_error = "the service is closed"
    assert "The search failed: the service is closed" in explorer.message.object and 'role="alert"' in explorer.message.object
    explorer.text = "   "
    asyncio.run(explorer._on_search())  # the Search button with an empty box sends nothing
    assert "Type part of a fund name" in explorer.message.object
    state.param.update(search_error="")
    explorer.hint = ""
    state.search.message = ""
    assert explorer.message.object == "" and not explorer.message.visible

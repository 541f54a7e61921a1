"""Views derive by binding: what they show follows the state without a render() call."""

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


def test_tab_notes_and_charts_follow_the_state_by_binding_even_while_hidden():
    """A tab's notes and charts are bound to the state and follow it, whether or not the tab is in the page."""
    import holoviews as hv
    import panel as pn

    from dashboard.views.allocation import AllocationView
    from dashboard.views.fees import FeesView
    from dashboard.views.holdings import HoldingsView
    from dashboard.views.performance import PerformanceView
    from dashboard.views.risk import RiskView

    state = DashboardState()
    views = [cls(state=state) for cls in (RiskView, FeesView, AllocationView, PerformanceView,
                                                                 HoldingsView)]
    state.basket_error = "the service is closed"
    for view in views[:2]:
        assert "The basket could not be loaded: the service is closed" in view.note.object, type(view).__name__
    state.fund, state.fund_error = "M0001_2564", "no such fund"
    for view in views[2:4]:
        assert "The fund could not be loaded: no such fund" in view.note.object, type(view).__name__
    assert "The fund could not be loaded: no such fund" in views[4].summary.object
    fund_charts = {"allocation-donut", "performance-returns", "performance-volatility", "holdings-top", "holdings-heatmap",
                   "holdings-changes"}
    panes = [p for view in views[2:] for p in view.__panel__().select(pn.pane.HoloViews) if p.name in fund_charts]
    assert {p.name for p in panes} == fund_charts
    for pane in panes:
        assert isinstance(pane.object, hv.Text) and pane.object.text == "The fund could not be loaded", pane.name

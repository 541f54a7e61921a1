"""The Holdings tab when the quarter the rules make due is late for the fund (issue 39, item 3): the quarter
before is shown and the tab says why, with the words every other output uses (the model's note)."""

from __future__ import annotations

import holoviews as hv
import panel as pn

from dashboard.models.dashboard_state import DashboardState
from dashboard.models.factsheet import FundFactsheet
from dashboard.models.holdings import HoldingsByQuarter, quarter_label
from dashboard.views.holdings import HoldingsView
from tests.models.test_holdings import BASE, LATEST, PERIODS, PREVIOUS, frame


def test_the_holdings_tab_shows_the_quarter_before_a_late_one_and_says_why():
    sheet = FundFactsheet()
    sheet.param.update(periods=list(PERIODS), holdings={PREVIOUS: frame(BASE[PREVIOUS])})
    sheet.proj_id = "M0001_2560"
    state = DashboardState(factsheet=sheet, holdings=HoldingsByQuarter(factsheet=sheet))
    state.fund = "M0001_2560"
    view = HoldingsView(state=state)
    summary = view.summary.object
    assert f"{quarter_label(PREVIOUS)}: 4 holdings" in summary
    assert (f"{quarter_label(LATEST)} is not published for this fund yet (companies sometimes file late): showing "
            f"{quarter_label(PREVIOUS)}, the newest quarter with holdings.") in summary
    assert "No holdings published" not in summary
    top = next(p for p in view.__panel__().select(pn.pane.HoloViews) if p.name == "holdings-top")
    assert isinstance(top.object, hv.Bars) and quarter_label(PREVIOUS) in top.object.opts.get().kwargs["title"]
    # the company files: the note goes, the due quarter is shown
    sheet.param.update(holdings={p: frame(rows) for p, rows in BASE.items()})
    assert "not published" not in view.summary.object and f"{quarter_label(LATEST)}: " in view.summary.object

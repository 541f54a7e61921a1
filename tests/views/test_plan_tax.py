"""The Plan tab's tax-saving section without a browser: the plan's table made from the planner, the note (an
estimate, the date of the rules) on screen, bad input one line that changes nothing, the tab in the shell."""

from __future__ import annotations

import datetime as dt

from dashboard.models.dashboard_state import TAB_TITLES, TABS
from dashboard.models.tax_plan import TaxPlanner
from dashboard.views.plan import PlanView
from dashboard.views.plan_tax import TaxPlanView

DAY = dt.date(2025, 6, 1)


def _view(**inputs) -> TaxPlanView:
    return TaxPlanView(planner=TaxPlanner(today=DAY, **inputs))


def test_the_plan_table_and_note():
    view = _view(income=1_200_000, provident_fund=60_000)
    frame = view.plan_table.value
    assert list(frame["wrapper"]) == ["Retirement Mutual Fund (RMF)", "Thailand ESG Fund (Thai ESG)",
                                      "Thailand ESG Extra Fund (Thai ESGX), new money"]
    assert list(frame["room"]) == [360_000, 300_000, 300_000] and frame["tax_saved"][0] == 65_500
    assert frame["earliest_sale"][1] == "2030-06-01"
    note = view.note.object
    assert "not tax or investment advice" in note and "2025-04-16" in note
    assert "gcc.go.th" in view.sources_pane.object and "Ministerial Regulation No. 398" in view.sources_pane.object


def test_bad_input_one_line_and_the_plan_stays():
    view = _view(income=900_000)
    shown = view.plan_table.table
    view.planner.income = -10
    assert "cannot be negative" in view.error_line.object and view.plan_table.table is shown
    view.planner.income = 600_000
    assert view.error_line.object == "" and view.plan_table.table is not shown  # a new table, never a patched one


def test_the_plan_tab_is_a_column_of_sections():
    assert "plan" in TABS and TAB_TITLES["plan"] == "Plan"
    tax = _view()
    other = TaxPlanView(planner=TaxPlanner(today=DAY, year=2024))
    tab = PlanView(sections=[tax, other])
    assert len(tab.__panel__().objects) == 2

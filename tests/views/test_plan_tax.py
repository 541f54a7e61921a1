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


def test_an_empty_taxable_income_is_empty_and_says_what_is_used():
    view = _view(income=1_200_000)
    box = view.amount_inputs["taxable_income"]
    # empty, saying what empty stands for (a number input showed None as "0", a 0 seemingly typed in)
    assert box.value == "" and box.placeholder == "estimated" and box.helper_text == "Empty: estimated"
    assert view.planner.result.taxable_estimated and "estimated for a salaried person" in view._summary.object
    box.value = "500,000"
    assert view.planner.taxable_income == 500_000 and not view.planner.result.taxable_estimated
    assert "taxable income <b>500,000</b> (as given)" in view._summary.object
    shown = view.plan_table.table
    box.value = "lots"  # one line; the plan as it was
    assert view.planner.error == "the taxable income must be a number such as 850,000, or left empty, not 'lots'"
    assert "not &#39;lots&#39;" in view.error_line.object
    assert view.planner.taxable_income == 500_000 and view.plan_table.table is shown
    box.value = ""  # cleared again: estimated again, no error
    assert view.planner.taxable_income is None and view.planner.result.taxable_estimated and view.planner.error == ""
    view.planner.taxable_income = 640_000.5  # set elsewhere (a notebook): the box shows it
    assert box.value == "640,000.5"


def test_a_cleared_amount_counts_as_nothing_and_a_cleared_income_says_so():
    view = _view(income=1_200_000, provident_fund=60_000)
    view.amount_inputs["provident_fund"].value = None
    assert view.planner.error == "" and view.planner.result.shared_claimed == 0
    shown = view.plan_table.table
    view.amount_inputs["income"].value = None
    assert "give the assessable income" in view.error_line.object and view.plan_table.table is shown


def test_the_ssf_input_is_there_only_for_years_that_deduct_ssf():
    view = TaxPlanView(planner=TaxPlanner(today=DAY, year=2024))
    ssf = view.amount_inputs["ssf_bought"]
    assert ssf.visible
    ssf.value = 50_000
    assert view.planner.result.shared_claimed == 50_000
    view.planner.year = 2025  # no SSF from 2025: hidden, and its amount does not linger out of sight
    assert not ssf.visible and view.planner.ssf_bought == 0 and view.planner.error == ""
    assert "SSF" not in [w.key for w in view.planner.result.wrappers]
    view.planner.year = 2023
    assert ssf.visible


def test_the_plan_table_wraps_its_sentences_to_fit_the_page():
    view = _view(income=1_200_000)
    table = view.plan_table.table
    assert table.layout == "fit_columns"
    css = "".join(table.stylesheets[1:])
    for field in ("holding", "earliest_sale", "binding"):
        assert f"tabulator-field='{field}'] {{white-space: normal" in css


def test_a_purchase_day_outside_the_tax_year_is_one_line_and_the_plan_stays():
    view = _view(income=1_200_000)
    shown = view.plan_table.table
    view.planner.purchase_day = dt.date(2026, 1, 5)  # a purchase in 2026 does not count for 2025
    assert "a purchase on 2026-01-05 does not count for tax year 2025" in view.error_line.object
    assert view.plan_table.table is shown and view.planner.result.wrappers[0].purchase_day != dt.date(2026, 1, 5)

"""The regular-investing view (views.plan_dca.DcaView) on the demo: the selected fund's classes, the chart and
the figures of the plan beside the lump sum and another class, and bad input that changes nothing."""

from __future__ import annotations

from datetime import date

import holoviews as hv
import pytest

from dashboard.models.dca import ESTIMATE_NOTE, DcaPlan, simulate
from dashboard.views.plan_dca import DcaView
from tests.conftest import run
from tests.views.test_nav import demo_app


@pytest.fixture(scope="module")
def app(dataset):
    """The demo dashboard with a fund of several classes, one of them distributing, selected."""
    app, client = demo_app()
    pid = next(pid for pid, p in dataset.nav_profiles.items() if len(p["classes"]) >= 2
               and any(c["dividend_yield"] for c in p["classes"]) and not any(c["former"] for c in p["classes"]))
    app.state.select_fund(pid)
    run(app.state.load_fund())
    yield app
    client.close()


@pytest.fixture
def view(app):
    view = DcaView(state=app.state)
    run(view.refresh())
    return view


def test_the_view_simulates_the_selected_funds_first_class(app, view):
    plan, history = view.plan, view.history
    assert history.proj_id == app.state.fund and plan.error == ""
    name = history.classes()[0]
    assert plan.class_key == name and view.class_select.value == name
    last = history.last_nav_date()
    assert plan.start == max(date(last.year - 3, last.month, 1), view.first_nav(name))
    # the same plan simulated here on the class's history
    cls = history.history.classes[name]
    fee = view.fees().get(name)
    assert fee is not None  # the factsheet's front-end fee of the class
    expected = simulate(cls.nav, cls.dividends, DcaPlan(monthly=5000, start=plan.start, day=1, front_end_pct=fee))
    assert plan.result.regular.units == pytest.approx(expected.regular.units)
    table = view.figures.value
    assert list(table.columns) == ["figure", "plan_0", "lump_0"]
    assert table.set_index("figure").loc["Put in (baht)", "plan_0"] == f"{expected.regular.invested:,.2f}"
    overlay = view.chart.object
    assert isinstance(overlay, hv.Overlay)
    assert [c.label for c in overlay] == [f"{name}: monthly plan", f"{name}: all at the start", "Money put in"]
    assert ESTIMATE_NOTE in view.note.object and "on day 1 of each month" in view.note.object


def test_another_class_side_by_side(view):
    names = view.history.classes()
    view.compare_select.value = names[1]
    assert view.plan.compare_result.label == names[1]
    assert list(view.figures.value.columns) == ["figure", "plan_0", "lump_0", "plan_1", "lump_1"]
    assert len(list(view.chart.object)) == 5


def test_a_start_before_the_first_nav_says_so_and_changes_nothing(view):
    before = view.plan.result
    table = view.figures.value
    first = view.first_nav(view.plan.class_key)
    view.plan.start = date(first.year - 1, 1, 1)
    assert view.plan.result is before and view.figures.value.equals(table)
    assert f"is before {view.plan.class_key}&#39;s first NAV ({first})" in view.note.object
    assert "Not simulated" in view.note.object


def test_the_fee_and_distributions_are_the_inputs(view):
    view.fee_input.value = "2"
    assert view.plan.result.plan.front_end_pct == 2.0 and "front-end fee 2.00 % (as given)" in view.note.object
    view.policy_select.value = "reinvested"
    assert view.plan.result.policy == "reinvested" and view.plan.result.regular.paid_out == 0.0


def test_service_text_is_escaped(app):
    view = DcaView(state=app.state)
    run(view.refresh())
    view.plan.error = "<b>x</b>"
    view.render()
    assert "<b>x</b>" not in view.note.object


def test_an_empty_fee_is_empty_and_says_the_published_fee_is_used(view):
    box = view.fee_input
    assert view.plan.front_end_pct is None and box.value == ""
    assert box.placeholder == "published" and box.helper_text == "Empty: the published fee"
    assert "published fee)" in view.note.object or "(none published)" in view.note.object
    box.value = "1.25"
    assert view.plan.front_end_pct == 1.25 and "front-end fee 1.25 % (as given)" in view.note.object
    box.value = "12"  # past the bounds: one line, the plan as it was
    assert view.plan.front_end_pct == 1.25 and "the front-end fee (%) must be from 0 to 10, not 12" in view.note.object
    box.value = ""
    assert view.plan.front_end_pct is None and "must be from" not in view.note.object


def test_a_plan_under_a_year_shows_the_return_for_the_period(view):
    last = view.history.last_nav_date()
    view.plan.start = date(last.year - 1, last.month, 1) if last.month == 12 else date(last.year, 1, 1) \
        if last.month > 6 else date(last.year - 1, last.month + 6, 1)  # about six months before the last NAV
    figures = view.figures.value.set_index("figure")
    assert "Money-weighted return for the period (not annualised, %)" in figures.index
    lump = view.plan.result.lump_sum
    assert not lump.annualised and lump.span_days < 365
    shown = figures.loc["Money-weighted return for the period (not annualised, %)", "lump_0"]
    assert shown == f"{lump.money_weighted_pct:+.2f}".replace("+-", "-")


def test_a_new_funds_plan_is_simulated_and_drawn_once(app):
    """Setting the pickers and the plan for the fund (class, comparison, dates) draws nothing until they are all
    set: one chart, of the plan the first test works out."""
    view = DcaView(state=app.state)
    drawn = []
    view.chart.param.watch(lambda e: drawn.append(e.new), "object")
    run(view.refresh())
    assert len(drawn) == 1 and isinstance(drawn[0], hv.Overlay)
    assert view.plan.class_key == view.history.classes()[0] and view.plan.result is not None

"""The sidebar's "Download report" while the Plan tab is shown: the plan report of what the tab shows (the tax plan
with its inputs, the regular-investing plan on the selected fund), named after it; the other tabs keep theirs."""

from __future__ import annotations

from dashboard.models.tax_plan import rules_for
from tests.conftest import run
from tests.reports.test_plan_report import cells, section
from tests.views.test_nav import demo_app


def test_the_plan_tab_downloads_the_plan_report():
    app, client = demo_app()
    try:
        state = app.state
        assert state.report_request()["kind"] == "fund"  # the Explorer: the selected fund's factsheet
        state.tab = "plan"
        run(app.show("plan"))
        view = app.views["plan"]
        tax, dca = view.sections
        tax.planner.param.update(income=1_200_000, provident_fund=60_000)
        request = state.report_request()
        assert request["kind"] == "plan" and request["tax"] is tax.planner.result
        assert request["dca"] and request["dca"][0] is dca.plan.result
        year = tax.planner.year
        assert state.report_filename() == f"tax-plan-{year}.html"
        page = run(app.basket_panel.report_file()).getvalue()
        assert app.basket_panel.download.filename == f"tax-plan-{year}.html"
        assert f"Rules of tax year {year} as in force on {rules_for(year).rules_dated}" in section(page, "tax-plan")
        rmf = next(r for r in cells(page, "tax-plan-table") if "RMF" in r[0])
        assert rmf[1] == f"{tax.planner.result.wrappers[0].room:,.0f}"
        label = dca.plan.result.label
        assert f"each month in {label}" in section(page, "dca")
        assert cells(page, "dca-figures")[0][1] == f"{label}: monthly"
        state.tab = "fees"
        assert state.report_request()["kind"] == "fund"
    finally:
        client.close()

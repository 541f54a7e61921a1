"""The Plan tab's tax-saving section: the planner's inputs, the room left in each wrapper with the tax it saves
and the earliest sale day, and the funds that qualify from the market snapshot, ranked by the figure picked.

A thin view over `models.tax_plan.TaxPlanner`: every part is made anew from the plan when it changes (tables
through `TableSlot`), bad input shows its one line and leaves the plan as it was.
"""

from __future__ import annotations

import asyncio

import duckdb
import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import SecApiError
from dashboard.market.screen import MarketScreen
from dashboard.market.tax_funds import RANK_TITLES, qualifying_funds
from dashboard.models.tax_plan import TaxPlanner, TaxPlanResult
from dashboard.present.text import esc
from dashboard.views.common import TableSlot, html_pane, optional_number_box, section_title

FUNDS_A_WRAPPER = 5
# This view's own titles: the plan's columns are not the market's (the fund columns keep the product's titles).
PLAN_TITLES = {"wrapper": "Wrapper", "room": "Room left", "binding": "Limit that binds", "tax_saved": "Tax saved",
               "holding": "Holding rule", "earliest_sale": "Earliest sale"}
# The plan's table fits the page at 1280 px beside the basket: the words wrap in their cells (the holding rule and
# the earliest sale are sentences) and the numbers keep a fixed width; on a phone the columns keep a readable
# width and the table scrolls in its own box.
PLAN_WIDTHS = {"room": 110, "tax_saved": 110}
FUND_WIDTHS = {"rank": 44, "proj_abbr_name": 120, "total_fee_actual": 110, "nav_total_return_1y": 110,
               "volatility_1y": 110}
WRAPPED = ("wrapper", "binding", "holding", "earliest_sale", "company")
WRAP_CSS = ("".join(f".tabulator-row .tabulator-cell[tabulator-field='{field}'] {{white-space: normal !important; "
                    "overflow-wrap: anywhere;}" for field in WRAPPED)
            + ".tabulator-col-title {white-space: normal !important;}"
            + "@media (max-width: 600px) {" + ", ".join(f".tabulator-col[tabulator-field='{f}'], "
                                                       f".tabulator-cell[tabulator-field='{f}']" for f in WRAPPED)
            + " {min-width: 150px !important;}}")
FUND_TITLES = {"wrapper": "Wrapper", "rank": "#", "company": "Company",
               "nav_total_return_1y": "1-year NAV total return", "volatility_1y": "1-year volatility"}


def plan_frame(result: TaxPlanResult) -> pd.DataFrame:
    """The plan's wrappers as the table shows them."""
    return pd.DataFrame([{"wrapper": w.name, "room": w.room, "binding": w.binding, "tax_saved": w.tax_saved,
                          "holding": w.holding,
                          "earliest_sale": w.earliest_sale.isoformat() if w.earliest_sale else w.sale_rule}
                         for w in result.wrappers], columns=list(PLAN_TITLES))


def summary_html(result: TaxPlanResult) -> str:
    how = "estimated for a salaried person" if result.taxable_estimated else "as given"
    return (f"<p>Assessable income <b>{result.income:,.0f}</b> baht; taxable income <b>{result.taxable:,.0f}</b> "
            f"({how}); income tax <b>{result.tax_now:,.0f}</b>; marginal rate <b>{result.marginal_rate:g}&nbsp;%</b>. "
            f"Shared retirement ceiling {result.rules.retirement_ceiling:,.0f}: {result.shared_claimed:,.0f} claimed, "
            f"{result.shared_room:,.0f} left.</p>"
            f"<p>Everything at once: <b>{result.all_room:,.0f}</b> baht of room saves <b>{result.all_tax_saved:,.0f}</b> "
            "baht of income tax (RMF and SSF share the retirement ceiling).</p>")


def sources_html(result: TaxPlanResult) -> str:
    r = result.rules
    sources = {s.key: s for w in result.wrappers for s in w.sources} | {r.bracket_source.key: r.bracket_source}
    left = "".join(f"<li>{esc(text)}</li>" for text in r.left_out)
    cited = "".join(f'<li>{esc(s.publisher)}: <a href="{esc(s.url)}" target="_blank" rel="noopener">{esc(s.title)}</a> '
                    f"(read {esc(s.read_on)}; {esc(s.kind)} source)</li>" for s in sources.values())
    return ((f"<p><b>Not in this year's plan</b></p><ul>{left}</ul>" if left else "")
            + f"<p><b>Sources</b></p><ul>{cited}</ul>")


class TaxPlanView(pn.viewable.Viewer):
    """The tax-saving planner section of the Plan tab."""

    planner = param.ClassSelector(class_=TaxPlanner, doc="The planner's inputs and plan.")
    market = param.ClassSelector(class_=MarketScreen, default=None, allow_None=True,
                                 doc="The market snapshot the qualifying funds are read from (none: no fund list).")

    def __init__(self, **params):
        params.setdefault("planner", TaxPlanner())
        super().__init__(**params)
        p = self.planner.param
        amounts = [("income", "Assessable income (baht)"), ("provident_fund", "Provident fund"),
                   ("government_pension_fund", "Government pension fund"), ("pension_insurance", "Pension insurance"),
                   ("national_savings_fund", "National savings fund"), ("rmf_bought", "RMF already bought"),
                   ("ssf_bought", "SSF already bought"), ("thai_esg_bought", "Thai ESG already bought")]
        self.amount_inputs = {name: pmui.FloatInput.from_param(getattr(p, name), label=label, width=200, format="0,0")
                              for name, label in amounts}
        # Left empty, the taxable income is estimated: the box is empty and says so (a number input showed "0").
        self.amount_inputs["taxable_income"] = optional_number_box(
            self.planner, "taxable_income", what="the taxable income", example="850,000", decimals=2,
            label="Taxable income, if known",
            placeholder="estimated", helper_text="Empty: estimated", width=240,
            on_error=lambda line: self.planner.param.update(error=line))
        # SSF purchases count for tax years to 2024 only: its input is there for those years alone.
        self.amount_inputs["ssf_bought"].visible = p.ssf_open
        self._inputs = pmui.FlexBox(
            pmui.Select.from_param(p.year, label="Tax year", width=130),
            *self.amount_inputs.values(),
            pmui.DatePicker.from_param(p.purchase_day, label="Purchase day", width=200),
            pmui.Select.from_param(p.rank_by, label="Rank funds by", width=170),
            sizing_mode="stretch_width")
        self.note = html_pane(name="plan-tax-note")
        self.error_line = html_pane(name="plan-tax-error")
        self._summary = html_pane(name="plan-tax-summary")
        self.plan_table = TableSlot(titles=PLAN_TITLES, baht=("room", "tax_saved"), name="plan-tax-table",
                                    layout="fit_columns", widths=PLAN_WIDTHS, stylesheets=[WRAP_CSS], page_size=6)
        self.funds_title = html_pane(name="plan-tax-funds-title")
        self.funds_table = TableSlot(titles=FUND_TITLES, percent=("total_fee_actual", "nav_total_return_1y", "volatility_1y"),
                                     name="plan-tax-funds", hide_empty=True, page_size=15, layout="fit_columns",
                                     widths=FUND_WIDTHS, stylesheets=[WRAP_CSS])
        self.sources_pane = html_pane(name="plan-tax-sources")
        self._layout = pn.Column(section_title("Tax-saving plan"), self.note, self._inputs, self.error_line, self._summary,
                                 self.plan_table, self.funds_title, self.funds_table, self.sources_pane,
                                 sizing_mode="stretch_width", name="plan-tax")
        #: The qualifying funds listed, by wrapper (rows of `qualifying_funds`), and why none are, for the report.
        self.fund_rows: dict[str, list[dict]] = {}
        self.funds_note = ""
        self.planner.param.watch(self._plan_changed, ["result", "error"])
        self.planner.param.watch(self._rank_changed, ["rank_by"])
        self._plan_changed()

    def __panel__(self):
        return self._layout

    def report_parts(self) -> dict:
        """What the plan report takes from this section: the plan shown and the funds listed with it."""
        if self.planner.result is None:
            return {}
        return {"tax": self.planner.result, "rank_by": self.planner.rank_by, "funds": dict(self.fund_rows),
                "funds_note": self.funds_note}

    def _plan_changed(self, *_):
        result, error = self.planner.result, self.planner.error
        self.error_line.object = (f'<div class="sd-error" role="alert" style="color:#b00020">{esc(error)}</div>'
                              if error else "")
        if result is None:
            return
        self.note.object = (f'<div role="note" style="padding:8px;border-left:4px solid #f0b400;background:rgba(240,180,0,.1)">'
                             f"<b>{esc(result.rules.note)}</b></div>")
        self._summary.object = summary_html(result)
        self.plan_table.show(plan_frame(result))
        self.sources_pane.object = sources_html(result)
        pn.state.execute(self.show_funds)

    def _rank_changed(self, *_):
        pn.state.execute(self.show_funds)

    async def show_funds(self) -> None:
        """Read and show the qualifying funds of each wrapper that can still be bought, best first."""
        result = self.planner.result
        if result is None:
            return
        wanted = [w.key for w in result.wrappers if w.can_buy and w.room > 0]
        rank_by = self.planner.rank_by
        if self.market is None or not wanted:
            self.funds_title.object = ("<p>No wrapper can be bought on the purchase day picked: no fund list.</p>"
                                        if self.market is not None else "")
            self.fund_rows, self.funds_note = {}, ("No wrapper can be bought on the purchase day picked."
                                                   if self.market is not None else "")
            self.funds_table.show(pd.DataFrame())
            return
        market = self.market

        def read() -> list[dict]:
            store = market.reader()
            return [row for key in wanted for row in qualifying_funds(store, key, rank_by, FUNDS_A_WRAPPER)]

        try:
            rows = await asyncio.to_thread(read)
        except (SecApiError, OSError, duckdb.Error) as exc:  # no snapshot yet, or one without its tables
            self.funds_title.object = (f"<p>The funds that qualify come from the market snapshot, which cannot be "
                                        f"read now ({esc(exc)}): sync it in the Market tab.</p>")
            self.fund_rows, self.funds_note = {}, f"The market snapshot could not be read ({exc})."
            self.funds_table.show(pd.DataFrame())
            return
        self.fund_rows = {key: [r for r in rows if r["wrapper"] == key] for key in wanted}
        self.funds_note = ""
        names = {w.key: w.name for w in result.wrappers}
        frame = pd.DataFrame([{"wrapper": names[r["wrapper"]], "rank": r["rank"], "proj_abbr_name": r["proj_abbr_name"],
                               "company": r["company"], "total_fee_actual": r["total_fee_actual"],
                               "nav_total_return_1y": r["nav_total_return_1y"], "volatility_1y": r["volatility_1y"]}
                              for r in rows])
        self.funds_title.object = (f"<p><b>Funds that qualify</b>, by {esc(RANK_TITLES[rank_by])}, from the market "
                                    "snapshot: the best {n} of each wrapper.</p>".replace("{n}", str(FUNDS_A_WRAPPER)))
        self.funds_table.show(frame)

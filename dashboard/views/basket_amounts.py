"""The basket with amounts: baht per fund (typed, or a CSV loaded in the page), and what they add up to.

A thin view over `models.basket_amounts.BasketAmounts` (the amounts, in the session; in the page link only when
opted in), the basket's loaded comparison data (allocation, fees), the market snapshot (holdings looked through
and added up, overlap: `MarketScreen.basket_lookthrough`) and the funds' NAV histories (`BasketNav`). The results
are made when they are ready ("Work it out"): a new column each time, never patched. Every part says it is an
estimate, not investment advice.
"""

from __future__ import annotations

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.api.endpoints import PROJ_ID_PATTERN
from dashboard.errors import SecApiError
from dashboard.models import fund as rules
from dashboard.models.basket_amounts import ESTIMATE_NOTE, portfolio_nav, weighted_allocation, weighted_expense
from dashboard.models.basket_nav import BasketNav
from dashboard.models.dashboard_state import DashboardState
from dashboard.present import nav_charts
from dashboard.present.text import asset_name_text, empty_html, esc, fmt_number, quarter_text
from dashboard.views.common import (SessionBound, TableSlot, basket_state_html, chart_pane, html_pane, notify_error,
                                    notify_warning, section_title)

ALLOCATION_COLUMNS = ["asset_name", "percent_of_basket", "baht_held"]
HOLDING_COLUMNS = ["security", "baht_held", "percent_of_basket", "issuer", "basket_funds", "through"]
HOLDING_TITLES = {"through": "Through the basket's funds"}  # which of the basket's funds hold it (not the funds between)
PAIR_COLUMNS = ["fund", "other", "overlap_pct"]
# On a phone (390 px) the figures must be on screen without scrolling sideways: the name column is narrow, wraps and
# stays put (frozen), the figures come right after it, and the titles wrap; the rest (issuer, the funds holding it)
# is to the right, reached by scrolling with the name still in view. Name + figures = 345 px, inside a 390 px page.
NAME_WIDTH, BAHT_WIDTH, PERCENT_WIDTH = 150, 110, 85
ALLOCATION_WIDTHS = {"asset_name": NAME_WIDTH, "percent_of_basket": PERCENT_WIDTH, "baht_held": BAHT_WIDTH}
HOLDING_WIDTHS = {"security": NAME_WIDTH, "baht_held": BAHT_WIDTH, "percent_of_basket": PERCENT_WIDTH, "issuer": 160,
                  "basket_funds": 150, "through": 200}
WRAPPED = ("asset_name", "security", "issuer", "basket_funds", "through")
WRAP_CSS = ("".join(f".tabulator-row .tabulator-cell[tabulator-field='{field}'] {{white-space: normal !important; "
                    "overflow-wrap: anywhere;}" for field in WRAPPED)
            + ".tabulator-col-title {white-space: normal !important;}")
LINK_WARNING = ("The link then carries your amounts: anyone you send it to sees them. Nothing is stored on the "
                "server; without this, the amounts stay in this page only.")


def estimate_html() -> str:
    return f'<div class="sd-note" role="note"><b>Estimate.</b> {esc(ESTIMATE_NOTE)}</div>'


class BasketAmountsSection(pn.viewable.Viewer, SessionBound):
    """`entries` (a box per basket fund), `csv_input`, `link_box`, `work_button`, and `results` (made anew by
    `work_out`: the totals, the weighted allocation, the holdings looked through, the overlap and the NAV)."""

    state = param.ClassSelector(class_=DashboardState, doc="The dashboard state whose basket and amounts are shown.")
    market = param.Parameter(default=None, doc="The market snapshot's model (a MarketScreen) for the holdings looked "
                             "through and the overlap; None: those parts say what they need.")

    def __init__(self, **params):
        super().__init__(**params)
        self.bind_session()
        state = self.state
        self.entries = pn.FlexBox(sizing_mode="stretch_width", name="basket-amounts-entries")
        self.csv_input = pmui.FileInput(label="Load a CSV (fund, class, amount)", accept=".csv", multiple=False,
                                        name="basket-amounts-csv", margin=(8, 10))
        self.csv_input.param.watch(self._csv_loaded, "value")
        self.link_box = pmui.Checkbox.from_param(state.amounts.param.in_link, label="Put the amounts in the page link",
                                                 description="", name="basket-amounts-link")
        self.link_note = html_pane(pn.bind(lambda on: f'<span class="sd-muted">{esc(LINK_WARNING)}</span>',
                                           state.amounts.param.in_link), name="basket-amounts-link-note")
        self.work_button = pmui.Button(label="Work it out", icon="calculate", variant="contained", margin=(8, 10),
                                       name="basket-amounts-work")
        self.work_button.on_click(self.work_out)
        self.results = pn.Column(sizing_mode="stretch_width", name="basket-amounts-results")
        self._boxes: dict[str, pmui.TextInput] = {}
        #: The tables of the results shown, by part (allocation, holdings, overlap): what a test or a download reads.
        self.result_tables: dict[str, TableSlot] = {}
        self._building: dict[str, TableSlot] = {}
        state.basket.param.watch(self._basket_changed, ["proj_ids", "funds"])
        state.amounts.param.watch(self._amounts_changed, ["amounts"])
        self._basket_changed()
        self._layout = pn.Column(
            section_title("The basket with amounts"),
            html_pane(estimate_html(), name="basket-amounts-estimate"),
            self.entries,
            pn.FlexBox(self.csv_input, self.work_button, sizing_mode="stretch_width"),
            self.link_box, self.link_note,
            self.results,
            sizing_mode="stretch_width")

    def __panel__(self):
        return self._layout

    def snapshot(self):
        """The market snapshot's model: the one given, else the state's (set by the view layer), else None."""
        return self.market if self.market is not None else self.state.market

    # ---- entering amounts ----------------------------------------------------------------------------

    def _basket_changed(self, *_) -> None:
        """A box per basket fund, made when the basket's funds change (kept while the fund stays)."""
        if self.session_ended():
            return
        basket, amounts = self.state.basket, self.state.amounts
        boxes = {}
        for proj_id in basket.proj_ids:
            box = self._boxes.get(proj_id)
            if box is None:
                box = pmui.TextInput(label=f"{basket.label(proj_id)} (baht)", placeholder="amount",
                                     value=_amount_text(amounts.amounts.get(proj_id)), width=200,
                                     name=f"basket-amount-{proj_id}", margin=(4, 8))
                box.param.watch(lambda e, p=proj_id: self._typed(p, e), "value")
            boxes[proj_id] = box
        self._boxes = boxes
        note = basket_state_html(self.state)
        self.entries.objects = list(boxes.values()) if boxes else [html_pane(note or "")]

    def _typed(self, proj_id: str, event) -> None:
        amounts = self.state.amounts
        try:
            amounts.set_amount(proj_id, event.new)
        except SecApiError as exc:  # a bad amount: said, the amount kept, the box shows it again
            notify_error(exc)
            self._boxes[proj_id].value = _amount_text(amounts.amounts.get(proj_id))

    def _amounts_changed(self, *_) -> None:
        for proj_id, box in self._boxes.items():
            text = _amount_text(self.state.amounts.amounts.get(proj_id))
            if _amount_value(box.value) != self.state.amounts.amounts.get(proj_id):
                box.value = text

    def _resolve(self, fund: str) -> str | None:
        """A CSV's fund (proj_id or abbreviation) -> its proj_id: a basket fund, a fund seen in the page, or the
        market snapshot's; None when unknown."""
        text = fund.strip()
        basket = self.state.basket
        for proj_id in basket.proj_ids:
            if text.upper() in (proj_id.upper(), basket.label(proj_id).upper()):
                return proj_id
        for record in self.state.search.records:
            if text.upper() in (str(record.get("proj_id", "")).upper(), str(record.get("proj_abbr_name", "")).upper()):
                return record["proj_id"]
        market = self.snapshot()
        if market is not None and market.has_store:
            try:
                found = market.reader().resolve(text)
            except SecApiError:
                found = None
            if found:
                return found
        return text if PROJ_ID_PATTERN.match(text) else None

    def _csv_loaded(self, event) -> None:
        data = event.new
        if not data:
            return
        state = self.state
        try:
            unknown = state.amounts.load_csv(data, self._resolve)
            for proj_id in state.amounts.amounts:
                if proj_id not in state.basket.proj_ids:
                    state.basket.add(proj_id, state.fund_record(proj_id))
            state.amounts.keep_only(state.basket.proj_ids)
        except SecApiError as exc:
            notify_error(exc, "The CSV was not used")
            return
        if unknown:
            notify_warning(f"Not known, left out: {', '.join(unknown)}. The other funds' amounts are in.")

    # ---- working it out -------------------------------------------------------------------------------

    async def work_out(self, *_) -> None:
        """Work out what the amounts add up to and show it (a new column of parts each time)."""
        state = self.state
        amounts = {p: a for p, a in state.amounts.amounts.items() if p in state.basket.proj_ids}
        if not amounts:
            notify_warning("Type an amount for at least one basket fund first (or load a CSV).")
            return
        self.results.loading = True
        try:
            parts = await self._parts(amounts)
        except SecApiError as exc:
            notify_error(exc, "The basket could not be worked out")
            return
        finally:
            self.results.loading = False
        if not self.session_ended():
            self.result_tables = self._building
            self.results.objects = parts

    async def _parts(self, amounts: dict[str, float]) -> list:
        basket = self.state.basket
        self._building: dict[str, TableSlot] = {}
        label = basket.label
        total = sum(amounts.values())
        allocation, no_allocation = weighted_allocation(basket.allocation_frame(), amounts)
        fees = {p: self._fee(p) for p in amounts}
        expense = weighted_expense(fees, amounts)
        lines = [f"<b>{fmt_number(total, 2)} baht</b> in {len(amounts)} fund{'s' if len(amounts) != 1 else ''}."]
        if expense.percent is not None:
            lines.append(f"Total annual expense, weighted by amount: <b>{expense.percent:.2f}% a year</b>, about "
                         f"<b>{fmt_number(expense.yearly_baht, 0)} baht a year</b> (fees as charged, first unit "
                         "class unless you named one).")
        if expense.left_out:
            lines.append(f"No charged fee known for: {esc(', '.join(label(p) for p in expense.left_out))}.")
        parts: list = [html_pane(estimate_html(), name="basket-amounts-result-estimate"),
                       html_pane("<p>" + "<br>".join(lines) + "</p>", name="basket-amounts-summary")]
        parts.append(section_title("Asset allocation, weighted by amount"))
        if no_allocation:
            parts.append(html_pane(empty_html("No asset allocation published for: "
                                              + ", ".join(label(p) for p in no_allocation)), name="basket-amounts-alloc-note"))
        table = TableSlot(percent=["percent_of_basket"], baht=["baht_held"], page_size=10, name="allocation",
                          widths=ALLOCATION_WIDTHS, frozen_columns=["asset_name"], stylesheets=[WRAP_CSS])
        allocation = allocation.assign(asset_name=allocation["asset_name"].map(lambda n: asset_name_text(n) or n))
        table.show(allocation.rename(columns={"percent": "percent_of_basket", "baht": "baht_held"})[ALLOCATION_COLUMNS])
        self._building["allocation"] = table
        parts.append(table)
        parts += await self._holdings_parts(amounts)
        parts += await self._nav_parts(amounts)
        return parts

    def _fee(self, proj_id: str) -> float | None:
        basket = self.state.basket
        unit_class = self.state.amounts.classes.get(proj_id)
        if unit_class:
            fees = basket.fee_frame()
            mine = fees[(fees["proj_id"] == proj_id)
                        & (fees["class_abbr_name"].astype(str).str.upper() == unit_class.upper())]
            if not mine.empty:
                return rules.total_annual_fee(mine)
        return basket.total_annual_fee(proj_id)

    async def _holdings_parts(self, amounts: dict[str, float]) -> list:
        label = self.state.basket.label
        parts: list = [section_title("Holdings looked through across the funds")]
        market = self.snapshot()
        if market is not None and not market.has_store:
            await market.poll()  # the snapshot's state, read once (the Market tab may not have been opened)
        if market is None or not market.has_store:
            parts.append(html_pane(empty_html("The holdings looked through need the market snapshot: make it on the "
                                              "Market tab."), name="basket-amounts-holdings-note"))
            return parts
        answer = await market.basket_lookthrough(amounts)
        notes = [f"{quarter_text(answer['period'])}: a security held through several funds is added up; baht are the "
                 "amount in each fund times the security's share of that fund's NAV."] if answer["period"] else []
        if answer["note"]:
            notes.append(answer["note"])
        if answer["no_holdings"]:
            notes.append("No holdings in the snapshot for: " + ", ".join(label(p) for p in answer["no_holdings"]) + ".")
        parts.append(html_pane(f'<span class="sd-muted">{esc(" ".join(notes))}</span>', name="basket-amounts-holdings-note"))
        frame = answer["holdings"].rename(columns={"baht": "baht_held", "percent": "percent_of_basket",
                                                   "funds": "basket_funds"})
        holdings = TableSlot(titles=HOLDING_TITLES, percent=["percent_of_basket"], baht=["baht_held"], page_size=10,
                             name="holdings", widths=HOLDING_WIDTHS, frozen_columns=["security"], stylesheets=[WRAP_CSS])
        holdings.show(frame[HOLDING_COLUMNS])
        self._building["holdings"] = holdings
        parts.append(holdings)
        if len(answer["pairs"]):
            parts.append(section_title("Overlap between the funds (looked through)"))
            pairs = TableSlot(titles={"fund": "Fund"}, percent=["overlap_pct"], page_size=10, name="overlap")
            pairs.show(answer["pairs"][PAIR_COLUMNS])
            self._building["overlap"] = pairs
            parts.append(pairs)
        return parts

    async def _nav_parts(self, amounts: dict[str, float]) -> list:
        label = self.state.basket.label
        parts: list = [section_title("The basket as one portfolio")]
        model = BasketNav(client=self.state.factsheet.api)
        await model.load(list(amounts))
        navs = {p: h.nav.set_index(pd.to_datetime(h.nav["nav_date"]))["nav"] for p, h in model.histories.items()}
        start, value, left_out = portfolio_nav(navs, amounts)
        chart = chart_pane("basket-amounts-nav")
        if start is None:
            chart.object = nav_charts.empty_chart("No NAV to put the basket together")
            parts.append(chart)
            return parts
        invested = sum(amounts[p] for p in navs if p in amounts)
        frame = pd.DataFrame({"basket": 100.0 * value / invested})
        chart.object = nav_charts.rebased_chart(frame, start, names={"basket": "The basket, 100 invested"})
        change = 100.0 * (value.iloc[-1] / value.iloc[0] - 1)
        text = (f"Bought on {start.day} {start:%b %Y} (the first day every fund has a NAV) and held, by each fund's "
                f"first unit class: {fmt_number(value.iloc[0], 0)} baht then, {fmt_number(value.iloc[-1], 0)} baht on "
                f"{value.index[-1]:%d %b %Y} ({change:+.2f}%, NAV per unit: distributions not reinvested).")
        if left_out:
            text += f" Left out (no NAV): {', '.join(label(p) for p in left_out)}."
        parts.append(html_pane(f'<span class="sd-muted">{esc(text)}</span>', name="basket-amounts-nav-note"))
        parts.append(chart)
        return parts


def _amount_text(value: float | None) -> str:
    return "" if value is None else f"{value:,.2f}".rstrip("0").rstrip(".")


def _amount_value(text: str) -> float | None:
    try:
        return float(str(text).replace(",", "")) if str(text).strip() else None
    except ValueError:
        return None

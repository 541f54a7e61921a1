"""Portfolio holdings by quarter: top holdings, the full table, weights over 12 quarters, what changed; with a
market snapshot, the fund's overlap with the basket and which other funds hold a security."""

from __future__ import annotations

import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import BadInputError, SecApiError
from dashboard.market.screen import MarketScreen, holders_frame, market_frame
from dashboard.models.holdings import CHANGE_COLUMNS, empty_changes, quarter_label
from dashboard.present import charts
from dashboard.views.common import TableSlot, TabView, chart_pane, html_pane, html_text, notify_error, section_title, stale_badge
from dashboard.present.text import asset_type_text, display_frame, empty_html, esc, fmt_baht, fmt_percent

# The columns shown, under the product's titles (present.text.COLUMN_TITLES) but for the line's type in words. The
# figures first after the holding's name, the long texts after them: at 1280 px the weight and value came after the
# Thai asset type, past the screen's edge (issue 39).
TABLE_COLUMNS = ["issue_code", "issuer", "percent_nav", "assetliab_value", "asset_type", "isin_code"]
TABLE_TITLES = {"asset_type": "Type"}
def _typed(table):
    """The holdings table with each line's asset type as a name and meaning, the code beside it."""
    descriptions = table["assetliab_desc"] if "assetliab_desc" in table else [None] * len(table)
    return table.assign(asset_type=[asset_type_text(code, desc) for code, desc in zip(table["assetliab_id"], descriptions)])


OVERLAP_COLUMNS = ["fund", "overlap_pct", "common", "proj_id"]
OVERLAP_TITLES = {"fund": "Basket fund", "overlap_pct": "Overlap (% of NAV)", "common": "Holdings in common"}
HOLDER_COLUMNS = ["proj_abbr_name", "percent_nav", "assetliab_value", "proj_id"]
HOLDER_TITLES: dict[str, str] = {}  # the product's titles (present.text.COLUMN_TITLES)
NO_SNAPSHOT_HINT = ("With a market snapshot (<code>sec-dashboard market sync</code>, or the Market tab on the demo "
                    "data) this tab also shows the fund's overlap with the basket and which other funds hold a security.")
CHANGE_TITLES = {"security": "Holding", "issuer": "Issuer", "weight_from": "Weight before", "weight_to": "Weight after",
                 "change_pp": "Change (pp)", "change": "Change"}


class HoldingsView(TabView):
    """The selected fund's holdings (E6) by quarter, built on HoldingsByQuarter: `summary` (the
    quarter's total) and `table` (its lines) among the charts; with a market snapshot, `overlap` (the
    fund's overlap with each basket fund) and `holders` (the funds holding the security of the row picked
    in `table`)."""

    market = param.ClassSelector(class_=MarketScreen, default=None, allow_None=True,
                                 doc="The market snapshot's model (overlap, who holds this); none: a one-line hint.")


    def __init__(self, **params):
        super().__init__(**params)
        model = self.state.holdings
        sheet = self.state.factsheet
        self._period = pmui.Select.from_param(model.param.period, label="Quarter", width=240)
        self._top_n = pmui.IntSlider.from_param(model.param.top_n, label="Top holdings shown", width=220, end=30)
        self._from = pmui.Select.from_param(model.param.compare_from, label="From quarter", width=240)
        self._to = pmui.Select.from_param(model.param.compare_to, label="To quarter", width=240)
        state = self.state
        quarter = (model.param.period, sheet.param.holdings, state.param.fund_error)
        compared = (model.param.compare_from, model.param.compare_to, sheet.param.holdings, state.param.fund_error)
        # The summary, the charts and the changes' note are bound to the model; render() makes the tables anew.
        self.summary = html_pane(pn.bind(self._summary_html, *quarter, state.param.fund), name="holdings-summary")
        self.table = TableSlot(titles=TABLE_TITLES, percent=["percent_nav"], baht=["assetliab_value"], page_size=12,
                               name="holdings-table", selectable=1, on_select=self._on_pick)
        self.market_hint = html_pane("", name="holdings-market-hint")
        self.overlap = TableSlot(titles=OVERLAP_TITLES, percent=["overlap_pct"], page_size=10, name="holdings-overlap")
        self.overlap.show(display_frame(market_frame([], OVERLAP_COLUMNS), OVERLAP_COLUMNS))
        self.overlap_note = html_pane("", name="holdings-overlap-note")
        self.holders_note = html_pane("", name="holdings-holders-note")
        self.holders = TableSlot(titles=HOLDER_TITLES, percent=["percent_nav"], baht=["assetliab_value"], page_size=10,
                                 name="holdings-holders")
        self.holders.show(display_frame(holders_frame([]), HOLDER_COLUMNS))
        self._picked = ""  # the security whose holders are shown
        self._market_part = pn.Column(section_title("Overlap with the basket"), self.overlap_note, self.overlap,
                                      section_title("Who holds this"), self.holders_note, self.holders,
                                      sizing_mode="stretch_width", visible=False)
        self._top = chart_pane("holdings-top")
        self._top.object = pn.bind(self._top_chart, *quarter, model.param.top_n)
        self._heatmap = chart_pane("holdings-heatmap")  # the fund's quarters: not redrawn for another quarter
        self._heatmap.object = pn.bind(self._heatmap_chart, sheet.param.holdings, state.param.fund_error)
        self._changes_note = html_pane(pn.bind(lambda *_: self._changes()[1], *compared))
        self._changes_chart = chart_pane("holdings-changes")
        self._changes_chart.object = pn.bind(self._changes_chart_of, *compared)
        self._changes_table = TableSlot(titles=CHANGE_TITLES, percent=["weight_from", "weight_to"], number=["change_pp"],
                                        page_size=10)
        model.param.watch(self.invalidate, ["period", "compare_from", "compare_to", "top_n"])
        sheet.param.watch(self.invalidate, ["holdings"])
        self.state.param.watch(self.invalidate, ["fund_error"])
        if self.market is not None:
            self.market.param.watch(self._market_changed, ["has_store"])
            model.param.watch(self._overlap_changed, ["period"])
            self.state.param.watch(self._overlap_changed, ["basket_revision", "fund"])
            self.state.basket.param.watch(self._overlap_changed, ["proj_ids"])
        self._layout = pn.Column(
            pn.FlexBox(self._period, self._top_n, stale_badge(sheet), sizing_mode="stretch_width"),  # wraps on a phone
            self.summary,
            pn.Column(self._top, section_title("All holdings of the quarter"), self.table,
                      section_title("Weights over the quarters"), self._heatmap,
                      section_title("What changed between two quarters"),
                      pn.FlexBox(self._from, self._to), self._changes_note, self._changes_chart, self._changes_table,
                      loading=sheet.param.loading, sizing_mode="stretch_width"),
            self.market_hint,
            self._market_part,
            sizing_mode="stretch_width",
        )
        self.render()

    def __panel__(self):
        return self._layout

    def _summary_html(self, *_) -> str:
        state, model = self.state, self.state.holdings
        if state.fund_error:  # never the previous fund's holdings under the new fund's error
            return empty_html(f"The fund could not be loaded: {state.fund_error}", error=True)
        if not model.periods_with_data:
            return empty_html("The service publishes no portfolio holdings for this fund in the last 12 quarters."
                              if state.fund else "Select a fund in the Fund explorer.")
        if not model.has_data():
            return empty_html(f"No holdings published for {quarter_label(model.period)}.")
        total, value = model.total_percent(), model.total_value()
        note = ""
        if total is not None and total > 100.0:
            note = (' <span class="sd-pill sd-warn" title="Rounding, or a feeder fund\'s structure">'
                    "above 100 %: shown as reported</span>")
        as_of = model.as_of()
        late = f'<div class="sd-muted" role="note">{esc(model.note)}</div>' if model.note else ""  # the due quarter is late
        return (f'<div class="sd-stat">{esc(quarter_label(model.period))}: {len(model.lines())} holdings, '
                f"total <b>{esc(fmt_percent(total))}</b> of NAV{note}"
                f" · market value {esc(fmt_baht(value, 0))}"
                + (f" · as of {esc(as_of)}" if as_of else "") + "</div>" + late)

    def _top_chart(self, *_):
        model = self.state.holdings
        if self.state.fund_error:
            return charts.empty_chart("The fund could not be loaded")
        if model.has_data():
            return charts.top_holdings_bars(model.top(), model.period)
        return charts.empty_chart(f"No holdings published for {quarter_label(model.period)}"
                                  if model.period else "No holdings published for this fund")

    def _heatmap_chart(self, *_):
        if self.state.fund_error:
            return charts.empty_chart("The fund could not be loaded")
        return charts.holdings_heatmap(self.state.holdings.weights())

    def render(self) -> None:
        state, model = self.state, self.state.holdings
        lines = model.table()
        self.table.show(display_frame(_typed(lines.iloc[0:0] if state.fund_error else lines), TABLE_COLUMNS))
        self._changes_table.show(display_frame(self._changes()[0], CHANGE_COLUMNS))
        self._render_market()

    # ---- with a market snapshot -----------------------------------------------------------------------

    async def refresh(self) -> None:
        """Look at the market snapshot (the tab is opened) and, with one, work out the overlap with the basket."""
        if self.market is None:
            self._render_market()
            return
        try:
            await self.market.poll()
        except SecApiError as exc:
            notify_error(exc, "The market snapshot could not be read")
        await self._overlap_changed()

    async def _market_changed(self, *_):
        await self._overlap_changed()

    async def _overlap_changed(self, *_):
        market, state = self.market, self.state
        self._render_market()
        if market is None or not market.has_store:
            return
        others = [p for p in state.basket.proj_ids if p != state.fund]
        if not state.fund or not others:
            self.overlap_note.object = html_text(empty_html(
                "Select a fund and put other funds in the basket to see how much their holdings overlap."
                if state.fund else "Select a fund in the Fund explorer."))
            self.overlap.show(display_frame(market_frame([], OVERLAP_COLUMNS), OVERLAP_COLUMNS))
            return
        period = state.holdings.period
        try:
            frame = await market.basket_overlap(state.fund, others, period)
        except SecApiError as exc:
            self.overlap_note.object = html_text(empty_html(f"The overlap could not be worked out: {exc}", error=True))
            return
        basket = state.basket
        frame = frame.assign(fund=[basket.label(p) for p in frame["proj_id"]])
        quarter = frame["period"].dropna().iloc[0] if frame["period"].notna().any() else None
        missing = frame.loc[~frame["in_snapshot"].astype(bool), "fund"].tolist()
        notes = []
        if quarter is None:
            notes.append(empty_html(f"The market snapshot has no holdings for {quarter_label(period) or 'this quarter'}."))
        else:
            notes.append(f'<div class="sd-stat">{esc(quarter_label(quarter))}: the overlap is the sum, over the '
                         "holdings both funds have, of the smaller of the two weights.</div>")
            if missing:
                notes.append(empty_html(f"Not in the market snapshot: {', '.join(map(str, missing))}."))
        self.overlap_note.object = html_text("".join(notes))
        self.overlap.show(display_frame(frame, OVERLAP_COLUMNS))

    async def _on_pick(self, rows: list[int]):
        market = self.market
        if market is None or not market.has_store or not rows:
            return
        frame = self.table.value
        row = frame.iloc[rows[0]] if rows[0] < len(frame) else None
        code = next((str(row[c]).strip() for c in ("isin_code", "issue_code")
                     if row is not None and str(row[c] or "").strip() not in ("", "-")), "")
        if not code:
            self.holders_note.object = html_text(empty_html("This line names no security (no ISIN or issue code)."))
            self.holders.show(display_frame(holders_frame([]), HOLDER_COLUMNS))
            return
        try:
            holders = await market.find_holders(code)
        except SecApiError as exc:
            self.holders_note.object = html_text(empty_html(str(exc), error=True))
            return
        self._picked = code
        self.holders_note.object = html_text((f'<div class="sd-stat">{len(holders):,} funds hold {esc(code)} in the market '
                                    "snapshot's latest quarter.</div>"))
        self.holders.show(display_frame(holders, HOLDER_COLUMNS))

    def _render_market(self) -> None:
        has = self.market is not None and self.market.has_store
        self.market_hint.object = html_text("" if has else f'<div class="sd-muted" role="note">{NO_SNAPSHOT_HINT}</div>')
        self.market_hint.visible = not has
        self._market_part.visible = has
        if has and not self._picked:
            self.holders_note.object = html_text(empty_html("Pick a line of the holdings table to see which funds hold it."))

    def _changes(self) -> tuple:
        """The changes between the two quarters chosen, and the note that goes with them."""
        model = self.state.holdings
        start, end = model.compare_from, model.compare_to
        changes = empty_changes()
        note = ""
        if self.state.fund_error:
            pass  # never the previous fund's changes under the new fund's error
        elif not (start and end):
            note = empty_html("Choose two quarters with holdings.") if model.periods_with_data else ""
        elif start == end:
            note = empty_html("Choose two different quarters.")
        else:
            try:
                changes = model.changes()
            except BadInputError as exc:
                note = empty_html(str(exc))
            else:
                if changes.empty:
                    note = empty_html("One of the two quarters has no holdings published.")
                else:
                    counts = model.change_counts()
                    note = "<div>" + " ".join(f'<span class="sd-pill">{esc(kind)}: {n}</span>'
                                              for kind, n in counts.items()) + "</div>"
        return changes, note

    def _changes_chart_of(self, *_):
        if self.state.fund_error:
            return charts.empty_chart("The fund could not be loaded")
        model = self.state.holdings
        return charts.holdings_changes_bars(self._changes()[0], model.compare_from, model.compare_to)

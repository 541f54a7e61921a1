"""The Market tab: every fund in the local market snapshot, screened, and the market seen whole.

A thin view over `MarketScreen` (dashboard.market.screen): the screener's filters are widgets made
from its parameters, its results a paged table whose chosen rows go to the basket, and the market's
risk spectrum, fees by policy type, most-held securities and who holds a security. Without a
snapshot it says how to make one (and, on the demo data, makes one with a button). Its notes in
words are in `market_notes`, the parts of the NAV figures in `market_nav`.
"""

from __future__ import annotations

import io
import re

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import BadInputError, SecApiError
from dashboard.market import queries
from dashboard.market.feeder_family import FeederFamily
from dashboard.market.screen import NAV_FILTER_LABELS, MarketScreen
from dashboard.present import charts
from dashboard.present.text import (csv_bytes, display_frame, empty_html, esc, fmt_date, policy_type_text, risk_text,
                                    status_text)
from dashboard.records.labels import FUND_STATUS, RISK_LEVEL
from dashboard.views.common import (TableSlot, TabView, chart_pane, html_pane, notify_error, notify_warning,
                                    progress_value, section_title, text_box)
from dashboard.views.market_nav import (FACTSHEET_RETURN_TITLES, NAV_BOX_LABELS, NAV_BOX_WIDTHS, NAV_BOXES, NAV_COLUMNS,
                                        NAV_PERCENT, NAV_TITLES, nav_note_html)
from dashboard.views.siblings import SiblingsView
from dashboard.views.market_notes import (company_options, fee_position_html, no_store_html, number_or_none,
                                          number_text, retail_text, snapshot_html)

RESULT_COLUMNS = ["proj_abbr_name", "proj_name_en", "company_name_en", "fund_status", "risk_level", "policy_desc",
                  "tax_incentives", "total_fee_actual", "cost_100k_10y", "return_1y", *NAV_COLUMNS, "proj_name_th", "proj_id"]
# The product's titles (present.text.COLUMN_TITLES), but the factsheet's 1-year return, told apart here from
# the NAV's beside it, and the risk level in words (a column of this table only).
RESULT_TITLES = {"risk_level": "Risk level", **FACTSHEET_RETURN_TITLES, **NAV_TITLES}
HOLDER_COLUMNS = ["proj_abbr_name", "percent_nav", "assetliab_value", "through", "issuer", "proj_id"]
OVERLAP_PAIR_COLUMNS = ["fund", "other", "overlap_pct"]
OVERLAP_PAIR_TITLES = {"fund": "Fund"}  # the pair's first fund: "Fund" here, as "Other fund" beside it
LOOK_THROUGH_LABEL = "Look through funds of Thai funds"
HOLDER_TITLES: dict[str, str] = {}  # the product's titles (present.text.COLUMN_TITLES)
STATUS_OPTIONS = {"Any status": "", **{f"{label[1]} ({code})": code for code, label in FUND_STATUS.items()}}
RISK_OPTIONS = {f"RS{level}": code for code, level in RISK_LEVEL.items()}
TAX_OPTIONS = {"Any (or none)": "", "SSF": "SSF", "Thai ESG": "ThaiESG"}
SORT_OPTIONS = {"Project id": "proj_id", "Fund abbreviation": "proj_abbr_name", "Company": "company_name_en",
                "Risk level": "risk_spectrum", "Fee, lowest first": "total_fee_actual",
                "Fee, highest first": "-total_fee_actual",
                "Cost of 100,000 THB over 10 years, least first": "cost_100k_10y", "1-year return, lowest first": "return_1y",
                "1-year return, highest first": "-return_1y",
                # by the figures from the NAV history (MarketScreen.SORT_FIELDS), funds without one last
                "1-year price return (NAV), highest first": "-nav_return_1y",
                "1-year total return (NAV), highest first": "-nav_total_return_1y",
                "3-year return, highest first": "-return_3y_ann",
                "Volatility, lowest first": "volatility_1y", "Max drawdown, smallest first": "-max_drawdown_1y",
                "Sharpe ratio, highest first": "-sharpe_1y"}
MOST_HELD_COLUMNS = ["security", "issuer", "funds", "total_value", "percent_nav_avg", "issue_code", "isin_code"]
MOST_HELD_TITLES = {"security": "Security", "issuer": "Issuer", "funds": "Funds holding it",
                    "total_value": "Value held, all funds", "percent_nav_avg": "Average weight (% of NAV)",
                    "issue_code": "Issue code", "isin_code": "ISIN"}
# The tick-box column is 40 px with 10 px padding, narrower than the box with its margins: Tabulator's
# ellipsis for overflowing text then drew a dot beside every box, which read as a narrow empty column.
TICK_BOX_CSS = ".tabulator-cell:has(> input[type='checkbox']) {text-overflow: clip; padding-left: 4px; padding-right: 4px;}"
POLL_MS = 5000


def results_frame(results: pd.DataFrame) -> pd.DataFrame:
    """The screener's rows as shown: status and risk level in words, numbers as numbers."""
    frame = results.assign(
        fund_status=results["fund_status"].map(status_text),
        policy_desc=results["policy_desc"].map(lambda v: policy_type_text(v) or ""),
        risk_level=results["risk_spectrum"].map(lambda c: f"RS{RISK_LEVEL[c]}" if c in RISK_LEVEL else ""),
        last_nav_date=results["last_nav_date"].map(fmt_date).astype(object))
    return display_frame(frame, RESULT_COLUMNS)


def _commit_only() -> None:
    """What Enter does in a filter's box besides committing its text: nothing."""


class MarketView(TabView):
    """The Market tab: `results` (the screener's paged table), `holders` (who holds a security),
    `most_held`, the charts, and `status` (the snapshot's age, or how to make one)."""

    market = param.ClassSelector(class_=MarketScreen, doc="The market snapshot's model.")
    demo = param.Boolean(default=False, doc="Whether the dashboard runs on the demo data (a button syncs the demo market).")
    max_fee_text = param.String(default="", doc="The fee filter's box as typed (the screener's max_fee; empty for any).")
    min_return_text = param.String(default="", doc="The return filter's box as typed (the screener's min_return_1y; "
                                                   "empty for any).")
    min_total_return_1y_text = param.String(default="", doc="The 1-year total return filter's box as typed "
                                                            "(min_total_return_1y).")
    min_return_3y_text = param.String(default="", doc="The 3-year return filter's box as typed (min_return_3y).")
    max_volatility_text = param.String(default="", doc="The volatility filter's box as typed (max_volatility).")
    max_drawdown_text = param.String(default="", doc="The drawdown filter's box as typed (max_drawdown).")
    min_sharpe_text = param.String(default="", doc="The Sharpe ratio filter's box as typed (min_sharpe).")
    overlap_text = param.String(default="", doc="The overlap's funds as typed: abbreviations or proj_ids, two or more, "
                                                "separated by commas or spaces.")

    def __init__(self, **params):
        super().__init__(**params)
        market = self.market
        self.param.update(max_fee_text=number_text(market.max_fee), min_return_text=number_text(market.min_return_1y),
                          **{box: number_text(getattr(market, name)) for box, name in NAV_BOXES.items()})
        self._box_error = ""  # the error a NAV box's value gave (cleared when a box is typed again)
        self._build_sync()
        self._build_screener()
        self._build_market_whole()
        # Masters and their sibling feeders (views.siblings), following the selected fund
        self.siblings = SiblingsView(family=FeederFamily(market=market), state=self.state)
        self._content = pn.Column(
            section_title("Find funds"),
            self.filters,
            pn.FlexBox(self.add_button, self.download, sizing_mode="stretch_width"),
            self.missing_note,
            self.results,
            pn.pane.Markdown("Total annual fee: as actually charged (first unit class), never a prospectus "
                             "ceiling. Cost of 100,000 THB over 10 years: what that class's charged fees (total "
                             "expense each year, front-end and back-end fees) take at a stated 5 % a year before "
                             "fees, the same for every fund. Tick funds to add them to the comparison basket.",
                             margin=(0, 10)),
            self.nav_note,
            section_title("The market's risk spectrum"),
            # Each chart in a column of its own: a redrawn chart replaces its plot in that column only, and
            # the Material components after it in the tab's column were drawn again unstyled otherwise.
            pn.Column(self._spectrum, sizing_mode="stretch_width"),
            section_title("Fees by policy type"),
            self.fee_note,
            pn.Column(self._fees, sizing_mode="stretch_width"),
            section_title("Most-held securities"),
            self.look_through_switch,
            self.look_through_note,
            self.most_held,
            section_title("Who holds this"),
            pn.FlexBox(self.security_box, self.find_button, sizing_mode="stretch_width"),
            self.holders_note,
            self.holders,
            section_title("Overlap between funds"),
            pn.FlexBox(self.overlap_box, self.overlap_button, sizing_mode="stretch_width"),
            self.overlap_note,
            self.overlap_pairs,
            self.overlap_common,
            self.siblings,
            sizing_mode="stretch_width", loading=market.param.loading)
        self._layout = pn.Column(pn.Row(section_title("The whole market"), sizing_mode="stretch_width"),
                                 self.status, self._sync_progress, self._sync_message, self._empty, self._content,
                                 sizing_mode="stretch_width")
        self._watch()
        self.render()

    def _build_sync(self) -> None:
        """The status line and what shows while there is no snapshot yet (the demo's sync button)."""
        market = self.market
        # Notes and charts are bound to the model; render() makes the tables anew and says what is shown.
        self.status = html_pane(pn.bind(self._status_html, market.param.has_store, market.param.snapshot_at,
                                        market.param.results, market.param.error, market.param.syncing,
                                        market.param.sync_done, market.param.sync_total),
                                name="market-status")
        self.sync_button = pmui.Button(label="Make the demo market snapshot", icon="sync", variant="contained",
                                       visible=self.demo, margin=(4, 8), name="market-sync")
        self.sync_button.on_click(self.sync)
        self._sync_progress = pmui.LinearProgress(value=pn.bind(progress_value, market.param.sync_progress),
                                                  visible=market.param.syncing, sizing_mode="stretch_width",
                                                  margin=(4, 10), name="market-sync-progress")
        self._sync_message = html_pane(pn.bind(lambda m: f'<span class="sd-muted">{esc(m, "")}</span>',
                                               market.param.sync_message), visible=market.param.syncing,
                                       name="market-sync-message")
        # While the first snapshot is being made the line above says so; "there is no snapshot yet" is not repeated.
        no_store = html_pane(pn.bind(lambda has, syncing: "" if has or syncing else no_store_html(market, self.demo),
                                     market.param.has_store, market.param.syncing), name="market-empty")
        self._empty = pn.Column(no_store, self.sync_button, sizing_mode="stretch_width")

    def _build_screener(self) -> None:
        """The screener's filters, its results table and their buttons."""
        market = self.market
        # The company is picked by its name (typing part of it narrows the list); the filter is its id.
        self.company_select = pmui.Select(label="Management company", options=company_options(market),
                                          value=market.company, searchable=True, width=300, name="market-company")
        self.company_select.param.watch(self._company_picked, "value")
        market.param.watch(self._companies_changed, ["companies", "company"])
        self.filters = pn.FlexBox(
            # Enter commits a box's text; the change runs the screener (a watcher), so Enter does nothing more.
            self.company_select,
            pmui.Select.from_param(market.param.status, options=STATUS_OPTIONS, label="Status", width=230, description=""),
            pmui.MultiChoice.from_param(market.param.risk, options=RISK_OPTIONS, label="Risk levels", width=260,
                                        placeholder="any", description=""),
            text_box(market.param.policy, _commit_only, label="Policy type", placeholder="e.g. equity, fixed income",
                     width=210),
            pmui.Select.from_param(market.param.tax, options=TAX_OPTIONS, label="Tax incentive", width=170, description=""),
            text_box(market.param.retail_type, _commit_only, label="Retail type", width=160),
            # Number boxes as text: Material's number box shows 0 for no value, which reads as a filter that is on.
            text_box(self.param.max_fee_text, _commit_only, label="Fee at most (% a year)", placeholder="any",
                     width=190),
            text_box(self.param.min_return_text, _commit_only, label="1-year return at least (%)", placeholder="any",
                     width=240),
            *[text_box(self.param[box], _commit_only, label=NAV_BOX_LABELS[name], placeholder="any",
                       width=NAV_BOX_WIDTHS[name],
                       name=f"market-{name.replace('_', '-')}") for box, name in NAV_BOXES.items()],
            pmui.Select.from_param(market.param.sort, options=SORT_OPTIONS, label="Order", width=230, description=""),
            pmui.Select.from_param(market.param.page_size, label="Funds a page", width=130, description=""),
            sizing_mode="stretch_width", name="market-filters")
        self.results = TableSlot(titles=RESULT_TITLES, percent=["total_fee_actual", "return_1y", *NAV_PERCENT],
                                 baht=["cost_100k_10y"],
                                 number=["sharpe_1y", "peer_pct_return_1y"], pagination="remote", selectable="checkbox",
                                 name="market-results", frozen_columns=["proj_abbr_name"], stylesheets=[TICK_BOX_CSS])
        # A filter on a figure no fund of the snapshot has: said, with the days of NAV it needs (not "no fund passes")
        self.missing_note = html_pane(pn.bind(lambda missing: empty_html(" ".join(missing)) if missing else "",
                                              market.param.missing), name="market-missing")
        self.nav_note = html_pane(pn.bind(nav_note_html, market.param.has_store, market.param.nav_funds,
                                          market.param.nav_until, self.param.demo), name="market-nav-note",
                                  margin=(0, 10))
        self.add_button = pmui.Button(label="Add the ticked funds to the basket", icon="playlist_add", variant="outlined",
                                margin=(4, 8), name="market-add")
        self.add_button.on_click(self.add_chosen_to_basket)
        self.download = pmui.FileDownload(callback=self.results_csv, filename="market-screen.csv",
                                          label="Download the results (CSV)", icon="download", variant="text",
                                          margin=(4, 8), name="market-download")

    def _build_market_whole(self) -> None:
        """The market seen whole: risk spectrum, fees by policy type, most-held securities and their holders."""
        market = self.market
        self._spectrum = chart_pane("market-spectrum")
        self._spectrum.object = pn.bind(self._chart, charts.market_spectrum_bars, market.param.spectrum)
        self._fees = chart_pane("market-fees")
        self._fees.object = pn.bind(self._chart, charts.market_fee_ranges, market.param.fees, market.param.fee_position)
        self.fee_note = html_pane(pn.bind(fee_position_html, market.param.fee_position, self.state.param.fund),
                                  name="market-fee-position")
        self.most_held = TableSlot(titles=MOST_HELD_TITLES, percent=["percent_nav_avg"], baht=["total_value"],
                                   page_size=10, selectable=1, name="market-most-held", on_select=self._on_most_held)
        self.security_box = text_box(market.param.security, self._find_holders, label="Issue code, ISIN or issuer's name",
                                  placeholder="e.g. PTT, TH0646010015 or a part of a name", width=300)
        self.find_button = pmui.Button(label="Who holds this", icon="search", variant="outlined", margin=(12, 8))
        self.find_button.on_click(self._find_holders)
        self.holders_note = html_pane(pn.bind(self._holders_html, market.param.holders, market.param.security,
                                              market.param.holders_summary), name="market-holders-note")
        self.holders = TableSlot(titles=HOLDER_TITLES, percent=["percent_nav"], baht=["assetliab_value"], page_size=10,
                                 name="market-holders")
        # Direct holdings, or funds of Thai funds looked through: for the most held, who holds this and the overlap
        self.look_through_switch = pmui.Switch(label=LOOK_THROUGH_LABEL, value=market.looked_through,
                                               name="market-look-through", margin=(4, 10))
        self.look_through_switch.param.watch(self._look_through_switched, "value")
        self.look_through_note = html_pane(pn.bind(self._look_through_html, market.param.looked_through,
                                                   market.param.looked_through_note), name="market-look-through-note")
        self.overlap_box = text_box(self.param.overlap_text, self._find_overlap, label="Funds (two or more)",
                                    placeholder="abbreviations or fund ids, e.g. DAM-EQ, DDI-FOF", width=340,
                                    name="market-overlap-funds")
        self.overlap_button = pmui.Button(label="Overlap", icon="join_inner", variant="outlined", margin=(12, 8),
                                          name="market-overlap-button")
        self.overlap_button.on_click(self._find_overlap)
        self.overlap_note = html_pane(pn.bind(lambda note: f'<span class="sd-muted">{esc(note)}</span>' if note else "",
                                              market.param.overlap_note), name="market-overlap-note")
        self.overlap_pairs = TableSlot(titles=OVERLAP_PAIR_TITLES, percent=["overlap_pct"], page_size=10,
                                       name="market-overlap-pairs", hide_empty=True)
        self.overlap_common = TableSlot(page_size=10, name="market-overlap-common", hide_empty=True)

    def _watch(self) -> None:
        market = self.market
        market.param.watch(self._screen_changed, ["company", "status", "risk", "policy", "tax", "retail_type",
                                                  "max_fee", "min_return_1y", *NAV_BOXES.values(), "sort"])
        market.param.watch(self.invalidate, ["results", "has_store", "snapshot_at", "spectrum", "fees",
                                             "fee_position", "most_held", "holders", "error", "syncing", "page_size",
                                             "overlap_pairs", "overlap_common"])
        self.state.param.watch(self._fund_changed, ["fund"])
        self.param.watch(self._number_typed, list(self._NUMBER_BOXES))
        market.param.watch(self._number_set, list(self._NUMBER_BOXES.values()))
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            # A sync run elsewhere (`market sync` in a terminal) shows here: its progress, then its snapshot.
            # Started once the page is drawn: on a session that exists but has no browser yet (a page
            # built ahead of a link's visitor, shown on this tab), Panel re-queues a start on every tick.
            poller = pn.state.add_periodic_callback(self.poll, period=POLL_MS, start=False)
            pn.state.onload(poller.start)

    def __panel__(self):
        return self._layout

    # ---- actions ---------------------------------------------------------------------------------

    async def refresh(self) -> None:
        """Read the snapshot again (the tab is opened, a sync finished)."""
        self.market.fund = self.state.fund
        try:
            await self.market.refresh()
        except SecApiError as exc:
            notify_error(exc, "The market snapshot could not be read")
        await self.siblings.refresh()

    async def poll(self) -> None:
        """While the tab is shown: look at the snapshot's state, and read it again when a new one appeared."""
        if self.state.tab != "market" or self.market.loading:
            return
        try:
            new_snapshot = await self.market.poll()
        except SecApiError:
            return  # the next look tries again; the tab keeps what it shows
        if new_snapshot:
            await self.refresh()  # every section, the sibling feeders too (they were left on the old snapshot)

    _NUMBER_BOXES = {"max_fee_text": "max_fee", "min_return_text": "min_return_1y", **NAV_BOXES}

    def _number_typed(self, *events):
        update = {}
        for event in events:
            name = self._NUMBER_BOXES[event.name]
            try:
                number = number_or_none(event.new)
            except ValueError:
                notify_warning(f"{event.new!r} is not a number: type one such as 1.5, or leave the box empty.")
                continue
            if name in NAV_BOXES.values() and not self._nav_value_ok(name, number):
                continue
            update[name] = number
        try:
            self.market.param.update(**update)
        except ValueError as exc:  # a fee below 0
            notify_warning(str(exc).split(":")[0] if "bounds" not in str(exc) else "A fee cannot be below 0.")

    def _nav_value_ok(self, name: str, number: float | None) -> bool:
        """Whether a NAV filter's typed value is one the screener takes (queries.nav_filter_value); when not, the
        error is shown as the tab shows the screener's errors, and the filter and the results stay as they were."""
        market = self.market
        if self._box_error and market.error == self._box_error:
            market.error = ""
        self._box_error = ""
        try:
            queries.nav_filter_value(name, number, NAV_FILTER_LABELS[name])
        except BadInputError as exc:
            self._box_error = market.error = str(exc)
            notify_error(exc, "The screener could not run")
            return False
        return True

    def _number_set(self, *events):
        boxes = {v: k for k, v in self._NUMBER_BOXES.items()}
        for event in events:
            text = boxes[event.name]
            try:
                same = number_or_none(getattr(self, text)) == event.new
            except ValueError:
                same = False
            if not same:
                setattr(self, text, number_text(event.new))

    def _company_picked(self, event) -> None:
        self.market.company = event.new or ""

    def _companies_changed(self, *_) -> None:
        market = self.market
        self.company_select.param.update(options=company_options(market), value=market.company)

    async def _screen(self, *_):
        if not self.market.has_store:
            return
        try:
            await self.market.screen()
        except SecApiError as exc:
            notify_error(exc, "The screener could not run")

    async def _screen_changed(self, *_events):
        await self._screen()

    async def _fund_changed(self, event):
        if self.market.has_store:
            try:
                await self.market.place_fund(event.new)
            except SecApiError as exc:
                notify_error(exc)

    async def _find_holders(self, security: str | None = None):
        security = security if isinstance(security, str) else None
        try:
            await self.market.find_holders(security)
        except SecApiError as exc:
            notify_error(exc)

    async def _look_through_switched(self, event) -> None:
        try:
            await self.market.set_looked_through(event.new)
        except SecApiError as exc:
            notify_error(exc)

    async def _find_overlap(self, *_):
        funds = [f for f in re.split(r"[\s,;]+", self.overlap_text.strip()) if f]
        if len(set(f.upper() for f in funds)) < 2:
            notify_warning("Type two or more funds (abbreviations or fund ids), separated by commas.")
            return
        try:
            await self.market.find_overlap(funds)
        except SecApiError as exc:  # a fund not in the snapshot: said, what is shown stays
            notify_error(exc)

    async def sync(self, *_):
        """Make the demo market's snapshot (the empty state's button), the progress bar moving meanwhile."""
        try:
            await self.market.sync_demo(self.state.client or self.state.search.api)
        except SecApiError as exc:
            notify_error(exc, "The demo market could not be synced")
            return
        await self.siblings.refresh()  # the screener was read again by the sync; the masters and siblings too

    async def _on_most_held(self, rows: list[int]):
        frame = self.most_held.value
        if not rows or rows[0] >= len(frame):
            return
        await self._find_holders(str(frame.iloc[rows[0]]["security"]))

    def chosen(self) -> list[str]:
        """proj_ids of the ticked rows."""
        frame = self.results.value
        return [str(frame.iloc[i]["proj_id"]) for i in self.results.selection if 0 <= i < len(frame)]

    async def add_chosen_to_basket(self, *_):
        """Add the ticked funds to the comparison basket (their records from the snapshot)."""
        ids = self.chosen()
        if not ids:
            notify_warning("Tick one or more funds in the results first.")
            return
        try:
            records = await self.market.fund_records(ids)
            added = self.state.add_funds_to_basket(records)
        except SecApiError as exc:
            notify_error(exc, "The funds could not be added")
            return
        self.results.show(self.results.value, selection=[], page_size=self.market.page_size)  # the ticks cleared
        if not added and pn.state.notifications is not None:
            pn.state.notifications.info("Those funds are in the basket already.", duration=4000)

    def results_csv(self) -> io.BytesIO:
        """The screener's results as CSV for Excel (every matching fund): UTF-8 with a byte-order mark, readable
        titles, and status and risk level in words beside their codes, through the one CSV writer."""
        frame = self.market.results.copy()
        for column, words in (("fund_status", status_text), ("risk_spectrum", risk_text), ("proj_retail_type", retail_text)):
            if column in frame.columns:
                frame[column] = frame[column].map(words)
        return io.BytesIO(csv_bytes(frame.rename(columns=FACTSHEET_RETURN_TITLES)))

    # ---- rendering ------------------------------------------------------------------------------

    def _status_html(self, *_) -> str:
        market = self.market
        return "".join([snapshot_html(market), empty_html(market.error, error=True) if market.error else ""])

    def _chart(self, draw, *data):
        if not self.market.has_store:
            return charts.empty_chart("")
        return draw(*data)

    def _holders_html(self, holders, security, _summary="") -> str:
        if security and holders.empty:
            return empty_html(f"No fund holds {security} in the latest quarter.")
        if security:  # funds counted as funds, not holding lines (the model's one sentence, as the command line's)
            return f'<div class="sd-stat">{esc(self.market.holders_summary)}</div>'
        return ""

    @staticmethod
    def _look_through_html(looked_through: bool, note: str) -> str:
        if not looked_through:
            return ('<span class="sd-muted">Direct holdings: a fund of funds shows the fund units it holds. Switch on to '
                    'count what those Thai funds hold instead, scaled by weight.</span>')
        return f'<span class="sd-muted">Looked through. {esc(note)}</span>'

    def overlap_common_titles(self) -> dict[str, str]:
        """The common holdings' titles: a weight column per fund, titled by the fund (the column's meaning)."""
        labels = self.market.overlap_labels
        return {p: f"{labels.get(p, p)} (% of NAV)" for p in self.market.overlap_funds}

    def render(self) -> None:
        market = self.market
        has = market.has_store
        self._empty.visible = not has
        self._content.visible = has
        self.sync_button.visible = self.demo and not has
        self.sync_button.disabled = market.syncing
        self.results.show(results_frame(market.results), page_size=market.page_size)
        if has:
            self.most_held.show(display_frame(market.most_held, MOST_HELD_COLUMNS))
        self.holders.show(display_frame(market.holders, HOLDER_COLUMNS))
        pairs = market.overlap_pairs if market.overlap_pairs is not None else pd.DataFrame(columns=OVERLAP_PAIR_COLUMNS)
        self.overlap_pairs.show(display_frame(pairs, OVERLAP_PAIR_COLUMNS))
        common = market.overlap_common
        if common is None or not market.overlap_funds:
            self.overlap_common.show(pd.DataFrame())
        else:
            self.overlap_common.show(display_frame(common, list(common.columns)), titles=self.overlap_common_titles(),
                                     percent=list(market.overlap_funds))

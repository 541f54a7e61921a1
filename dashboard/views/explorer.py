"""Fund explorer: search funds (E1) and unit classes (E3), pick one, read its factsheet overview."""

from __future__ import annotations

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param
from markupsafe import Markup
from panel.custom import JSComponent

from dashboard.errors import SecApiError
from dashboard.market.feeder_family import FeederFamily
from dashboard.market.screen import MarketScreen
from dashboard.models.dashboard_state import DashboardState
from dashboard.present.siblings import siblings_section
from dashboard.views.common import TableSlot, html_pane, notify_error, stale_badge, text_box
from dashboard.present.overview import (LINK, OVERVIEW_PARTS, THAI, UNPUBLISHED, FundOverview, OverviewRow, OverviewSection,
                                        build_overview, distinct_groups)
from dashboard.present.text import card, display_frame, empty_html, esc, kv_table, link, pill, status_text

RESULT_COLUMNS = ["proj_abbr_name", "proj_name_en", "proj_name_th", "status", "company", "regis_date", "proj_id"]
# Fixed widths that fit the whole row beside the open basket drawer at 1280 px (950 px); a name
# longer than its column ends in "..." and shows whole in the overview once picked. (Not in a
# Tabulator tooltip: those set the cell's value as HTML, and a fund's name is the service's text.)
RESULT_WIDTHS = {"proj_abbr_name": 130, "proj_name_en": 220, "proj_name_th": 180, "status": 140, "company": 170,
                 "regis_date": 110}
# (the other columns' titles are the product's: present.text.COLUMN_TITLES)
RESULT_TITLES = {"status": "Status"}
CLASS_COLUMNS = ["proj_abbr_name", "class_abbr_name", "class_name", "class_additional_desc", "proj_id"]
CLASS_TITLES = {"class_additional_desc": "Description"}
# Heights in pixels of what the browser draws late (measured at 1280 px, Roboto), reserved from
# the start so that nothing below moves when it comes (the overview would jump by a table's
# height): a table's header, paging bar and margins, and a row; the unit-class matches' title;
# the search box's and the basket buttons' rows (drawn once their script has loaded).
TABLE_FRAME_PX, TABLE_ROW_PX = 103, 36
TABLE_MARGINS_PX = 10  # of the frame: a table's margins above and below (Panel's widget margin, 5 px)
CLASS_MATCHES_TITLE_PX = 63
SEARCH_ROW_PX, FUND_ACTIONS_PX = 66, 45
RESULTS_PAGE, CLASSES_PAGE = 8, 5
# Names wrap in their cells rather than end in "…" (a row grows to its longest name).
# Every row three lines high (the longest names at 1280 px), so the page reserves the table's height
# before it is drawn and nothing below it moves when it comes.
RESULT_ROW_PX = 3 * TABLE_ROW_PX - 2 * 16
WRAP_NAMES_CSS = (".tabulator-row .tabulator-cell {height: %dpx !important; overflow: hidden;}" % (RESULT_ROW_PX - 1)
                  + "".join(f".tabulator-row .tabulator-cell[tabulator-field='{field}'] {{white-space: normal !important; "
                            "overflow-wrap: anywhere;}" for field in ("proj_name_en", "proj_name_th", "status", "company")))


def siblings_card(family: FeederFamily) -> str:
    """The fund overview's section on sibling feeders, drawn as the overview's other cards; empty for a fund
    that is not a feeder, or without a market snapshot."""
    section = siblings_section(family.data, family.abbr) if family.has_store else None
    return "" if section is None else str(GRID.format(section_html(section)))


class ScrollMark(JSComponent):
    """An invisible mark that brings itself into view each time `request` grows: placed above the
    overview, so a fund picked in the results is shown where the eye is, not below two tables."""

    request = param.Integer(default=0, doc="Grows by one each time the mark should be scrolled into view.")

    _esm = """
    export function render({ model, el }) {
      el.style.height = '1px';
      model.on('request', () => el.scrollIntoView({behavior: 'smooth', block: 'start'}));
    }
    """


def table_height(rows: int, page_size: int, row_px: int = TABLE_ROW_PX) -> int:
    """The height of a paged table showing `rows` rows (a page at most) of `row_px`; 0 when it has none."""
    return TABLE_FRAME_PX + row_px * min(rows, page_size) if rows else 0


def results_frame(results: pd.DataFrame) -> pd.DataFrame:
    if results.empty:
        frame = results.assign(status=pd.Series(dtype=object), company=pd.Series(dtype=object))
    else:
        names = results["comp_name_en"] if "comp_name_en" in results else pd.Series(pd.NA, index=results.index)
        frame = results.assign(status=results["fund_status"].map(status_text),
                               company=names.where(names.notna() & (names.astype(str).str.strip() != ""), results["unique_id"]))
    return display_frame(frame, RESULT_COLUMNS)


# ---- the overview, as HTML ---------------------------------------------------------------------------

# Cards 400 px wide where they fit, the screen's width on a phone (a 400 px card cut its border on a 390 px screen).
GRID = Markup('<div style="display:grid;grid-template-columns:repeat(auto-fill,minmax(min(400px,100%),1fr));gap:10px;">'
              '{}</div>')
_MUTED = Markup('<span class="sd-muted">{}</span>')
_THAI_TEXT = Markup('<span class="sd-text" lang="th">{}</span>')


def row_html(row: OverviewRow) -> Markup:
    """One overview value as HTML: service text escaped, a link only to an http(s) address."""
    if row.kind == UNPUBLISHED:
        return _MUTED.format(row.value)
    if row.kind == LINK and row.value is not None:
        return link(row.value, "open")
    value = _THAI_TEXT.format(esc(row.value)) if row.kind == THAI and row.value is not None else esc(row.value)
    if row.note:
        value += Markup(' <span class="sd-muted" lang="th">({})</span>').format(esc(row.note))
    return value


def section_html(section: OverviewSection) -> Markup:
    if not section.rows:
        return card(section.title, empty_html(section.empty))
    parts = []
    for group in distinct_groups(section.rows):
        caption = Markup('<p class="sd-muted" style="margin:2px 0">{}</p>').format(group) if group else ""
        parts.append(caption + kv_table((r.label, row_html(r)) for r in section.rows if r.group == group))
    return card(section.title, Markup("<hr>").join(parts))


def fund_overview_html(overview: FundOverview, *, in_basket: bool = False, errors: dict | None = None) -> Markup:
    """The overview as the explorer shows it: a title, the names, badges and a grid of cards."""
    badges = [pill(text, tone) for text, tone in overview.badges]
    if in_basket:
        badges.append(pill("in the comparison basket"))
    head = Markup('<p class="sd-title">{}</p><p class="sd-sub">{}</p><p class="sd-sub" lang="th">{}</p>'
                  '<p class="sd-sub">{}</p>').format(overview.title, esc(overview.name_en, "(no English name)"),
                                                     esc(overview.name_th, "(no Thai name)"), Markup("").join(badges))
    cards = [section_html(s) for s in overview.sections]
    if errors:
        failed = Markup("").join(Markup("<li>{}: {}</li>").format(part, reason) for part, reason in errors.items())
        cards.append(card("Parts that could not be loaded", Markup("<ul>{}</ul>").format(failed)))
    return head + GRID.format(Markup("").join(cards))


def overview_html(state: DashboardState) -> str:
    """The selected fund's overview (or why there is none) as HTML."""
    sheet = state.factsheet
    if state.fund_error:
        return empty_html(f"The fund {state.fund} could not be loaded: {state.fund_error}", error=True)
    if not state.fund:
        return empty_html("Search for a fund and pick it in the table to see its overview.")
    if sheet.proj_id != state.fund:
        return empty_html(f"Loading {state.fund} …")
    overview = build_overview(sheet.proj_id, sheet.fund or state.fund_record(state.fund),
                              {part: getattr(sheet, part) for part in OVERVIEW_PARTS}, unpublished=sheet.unpublished,
                              errors=sheet.errors, company=state.company_name)
    return str(fund_overview_html(overview, in_basket=state.in_basket(), errors=sheet.errors))


class FundExplorer(pn.viewable.Viewer):
    """Search, results with status labels, the selected fund's overview and the basket buttons.

    `results` (the search results), `message` (why there are none) and `overview` (the selected
    fund) are what the view shows.
    """

    state = param.ClassSelector(class_=DashboardState, doc="The dashboard state this view shows and changes.")
    hint = param.String(default="", doc="What the search box needs before a search can run (empty once one runs).")
    text = param.String(default="", doc="The search box: what the next search looks for; the last search run "
                        "once one has run (the state's query, which a shared link carries, changes only then).")

    def __init__(self, **params):
        super().__init__(**params)
        state = self.state
        self.text = state.query
        self._query = text_box(self.param.text, self._on_search, label="Fund name or abbreviation, or unit class",
                               placeholder="e.g. Demo, Equity, DCPEQ", sizing_mode="stretch_width")
        self._go = pmui.Button(label="Search", icon="search", variant="contained", margin=(12, 8), width=120)
        self._go.on_click(self._on_search)
        self.results = TableSlot(titles=RESULT_TITLES, selectable=1, page_size=RESULTS_PAGE, hidden_columns=["proj_id"],
                                 name="fund-results", widths=RESULT_WIDTHS, layout="fit_columns",
                                 css_classes=["sd-results"], stylesheets=[WRAP_NAMES_CSS], on_select=self._on_select)
        # No table while no unit class matches (most searches): its place is hidden then, and a table of headers
        # nobody sees cost a Tabulator per search on the server.
        self._classes = TableSlot(titles=CLASS_TITLES, selectable=1, page_size=CLASSES_PAGE, hidden_columns=["proj_id"],
                                  on_select=self._on_select_class, hide_empty=True)
        self._classes_title = pn.pane.Markdown("Unit classes whose abbreviation matches: pick one to open its fund",
                                               margin=(8, 8, 0, 8))
        self.message = html_pane(pn.bind(self._message_html, state.param.search_error, state.search.param.message,
                                         self.param.hint),
                                 visible=pn.bind(lambda *args: bool(self._message_html(*args)), state.param.search_error,
                                                 state.search.param.message, self.param.hint))
        state.search.param.watch(self._show_results, ["results", "classes", "message"])
        state.param.watch(self._show_results, ["search_error", "fund"])

        self._build_fund_buttons()
        self._build_siblings()
        self.overview = html_pane(pn.bind(self._overview_html, state.factsheet.param.loaded_at, state.param.fund,
                                          state.param.fund_error, state.basket.param.proj_ids),
                                  name="fund-overview", css_classes=["sd-overview"])
        self._scroll_mark = ScrollMark(height=1, sizing_mode="stretch_width", margin=0)
        # The results' place keeps the height of their table while the browser draws it, so that
        # nothing below moves when it comes.
        self._results_area = pn.Column(self.results, loading=state.search.param.loading, sizing_mode="stretch_width",
                                       margin=0)
        self._class_matches = pn.Column(self._classes_title, self._classes, sizing_mode="stretch_width", margin=0,
                                        visible=False, css_classes=["sd-class-matches"])
        fund_actions = pn.FlexBox(self._basket_button, self._company_button, stale_badge(state.factsheet),
                                  sizing_mode="stretch_width", css_classes=["sd-fund-actions"], min_height=FUND_ACTIONS_PX)
        self._layout = pn.Column(
            pn.Row(self._query, self._go, sizing_mode="stretch_width", css_classes=["sd-search"],
                   min_height=SEARCH_ROW_PX),
            pn.Row(pn.pane.Markdown("Results: pick a fund to see its overview", margin=(0, 8)),
                   stale_badge(state.search), sizing_mode="stretch_width"),
            self.message,
            self._results_area,
            self._class_matches,
            self._scroll_mark,
            fund_actions,
            pn.Column(self.overview, loading=state.factsheet.param.loading, sizing_mode="stretch_width",
                      min_height=200),
            self.siblings,
            sizing_mode="stretch_width")
        self._show_results()

    def _build_fund_buttons(self) -> None:
        """The selected fund's buttons: the basket toggle and the company's funds."""
        state = self.state
        # The button says what it will do for the selected fund, and is off while none is selected.
        self._basket_button = pmui.Button(label=self._basket_label(), disabled=not state.fund,
                                          variant="outlined", icon="playlist_add", margin=(4, 8))
        self._basket_button.on_click(self._toggle_basket)
        # Label and state change in one update: two separate bindings raced in the browser and could
        # leave the button disabled with a fund selected (seen about one run in three).
        state.basket.param.watch(self._sync_basket_button, "proj_ids")
        state.param.watch(self._sync_basket_button, "fund")
        self._company_button = pmui.Button(label="All funds of this company", variant="text", icon="apartment",
                                           margin=(4, 8))
        self._company_button.on_click(self._company_funds)

    def _build_siblings(self) -> None:
        """The overview's section on a feeder's sibling feeders (from the market snapshot, when there is one), and
        a button to the Market tab, where they stand side by side."""
        market = getattr(self.state, "market", None)
        self.family = FeederFamily(market=market) if isinstance(market, MarketScreen) else None
        if self.family is None:
            self.siblings = pn.Column(visible=False, margin=0)
            return
        family = self.family
        card = html_pane(pn.bind(lambda *_: siblings_card(family), family.param.data, family.param.has_store),
                         name="fund-siblings", css_classes=["sd-overview"])
        button = pmui.Button(label="Compare the sibling feeders side by side", icon="compare_arrows", variant="text",
                             margin=(0, 8), name="fund-siblings-open")
        button.on_click(self._open_siblings)
        self.siblings = pn.Column(card, button, sizing_mode="stretch_width", margin=0,
                                  visible=pn.bind(lambda data, has: bool(has and data), family.param.data,
                                                  family.param.has_store))
        self.state.param.watch(self._siblings_of, ["fund"])
        if self.state.fund:
            pn.state.onload(self._siblings_of)

    async def _siblings_of(self, *_) -> None:
        try:
            await self.family.show_fund(self.state.fund or "")
        except SecApiError:
            self.family.param.update(data=None, message="")  # the overview stands without it

    def _open_siblings(self, *_) -> None:
        self.state.tab = "market"

    def __panel__(self):
        return self._layout

    # ---- rendering ------------------------------------------------------------------------------------

    def _overview_html(self, *_):
        return overview_html(self.state)

    @param.depends("state.query", watch=True)
    def _show_query(self):
        self.text = self.state.query

    def _show_results(self, *_):
        search = self.state.search
        frame = results_frame(search.results)
        ids = frame["proj_id"].tolist() if not frame.empty else []
        classes = display_frame(search.classes, CLASS_COLUMNS)
        results_px, classes_px = table_height(len(frame), RESULTS_PAGE, RESULT_ROW_PX), table_height(len(classes), CLASSES_PAGE)
        # Each table no taller than the place kept for it (less its margins): Tabulator can lay out its first draw
        # with every row's height, not a page's (the results' holder 4201 px tall for most of a second, seen about
        # one load in five on a busy machine), and the overview below jumped by thousands of pixels after the first
        # paint.
        self.results.show(frame, selection=[ids.index(self.state.fund)] if self.state.fund in ids else [],
                          max_height=results_px - TABLE_MARGINS_PX if results_px else None)
        self._classes.show(classes, max_height=classes_px - TABLE_MARGINS_PX if classes_px else None)
        self._results_area.min_height = results_px
        self._class_matches.param.update(visible=not classes.empty, min_height=CLASS_MATCHES_TITLE_PX + classes_px)

    @staticmethod
    def _message_html(search_error: str, message: str, hint: str) -> str:
        """Why the results are empty: the search box's need, the search's failure or the search's own word."""
        if hint:
            return empty_html(hint)
        if search_error:
            return empty_html(f"The search failed: {search_error}", error=True)
        return empty_html(message) if message else ""

    def _basket_label(self, *_) -> str:
        return "Remove from basket" if self.state.in_basket() else "Add to basket"

    def _sync_basket_button(self, *_) -> None:
        self._basket_button.param.update(label=self._basket_label(), disabled=not self.state.fund)

    # ---- actions --------------------------------------------------------------------------------------

    async def _on_search(self, *_):
        text = self.text or ""
        if not text.strip():
            self.hint = "Type part of a fund name or abbreviation."
            return
        self.hint = ""
        try:
            await self.state.search_funds(text)
        except SecApiError as exc:
            notify_error(exc, "Search failed")

    def _on_select(self, rows: list[int]):
        if not rows:
            return
        frame = self.results.value
        index = rows[0]
        if 0 <= index < len(frame):
            self._open(str(frame.iloc[index]["proj_id"]))

    def _open(self, proj_id: str) -> None:
        """Select a fund picked in a table, and bring its overview (and its buttons) into view."""
        changed = proj_id != self.state.fund
        self.state.select_fund(proj_id)
        if changed:
            self._scroll_mark.request += 1

    def _on_select_class(self, rows: list[int]):
        if not rows:
            return
        frame = self._classes.value
        index = rows[0]
        if 0 <= index < len(frame) and frame.iloc[index]["proj_id"]:
            self._open(str(frame.iloc[index]["proj_id"]))

    def _toggle_basket(self, *_):
        try:
            if self.state.in_basket():
                self.state.remove_from_basket()
            else:
                self.state.add_to_basket()
        except SecApiError as exc:
            notify_error(exc)

    async def _company_funds(self, *_):
        try:
            await self.state.company_funds()
        except SecApiError as exc:
            notify_error(exc, "Company funds could not be listed")

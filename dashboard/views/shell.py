"""The app shell: one panel-material-ui Page with the tab bar, the shown tab's view, the basket sidebar, banner and footer."""

from __future__ import annotations

import functools
import time
from pathlib import Path

import panel as pn
import panel_material_ui as pmui
import param
from panel.util import edit_readonly

from dashboard.errors import SecApiError
from dashboard.market.screen import MarketScreen
from dashboard.models.dashboard_state import TAB_TITLES, TABS, DashboardState
from dashboard.models.nav import FundNav
from dashboard.views.allocation import AllocationView
from dashboard.views.basket import BasketPanel
from dashboard.views.common import STYLESHEETS, TabView, demo_banner_html, html_pane, notify_error, notify_warning
from dashboard.present.text import esc
from dashboard.views.explorer import FundExplorer
from dashboard.views.fees import FeesView
from dashboard.views.holdings import HoldingsView
from dashboard.views.licensee import LicenseeView
from dashboard.views.market import MarketView
from dashboard.views.nav import NavView
from dashboard.views.performance import PerformanceView
from dashboard.views.risk import RiskView

APP_TITLE = "SEC Thailand funds and licences"
_HERE = Path(__file__).parent
# The tab bar and the tab's content take the height of what they hold: Panel's default (the height
# of the scrolling area) put the footer in the middle of a long tab, and its minimum width (590 px)
# made a phone's page scroll sideways. The bar's place is kept at its height (MUI's 48 px) from the
# first frame: React draws it after the tab's content below it, which it then pushed down.
TABS_CSS = (_HERE / "tab_bar.css").read_text(encoding="utf-8")
CONTENT_CSS = (_HERE / "tab_content.css").read_text(encoding="utf-8")


# The served page: panel-material-ui's page template with two scripts (what they do and why is at
# the top of the file).
PAGE_TEMPLATE = (_HERE / "page.html").read_text(encoding="utf-8")
# MUI's "sm" breakpoint: below it the Page's sidebar is a drawer drawn over the content (page.html's 600).
NARROW_SCREEN_PX = 600


class TabBar(pmui.Tabs):
    """panel-material-ui's Tabs as a bar of tab titles: what the shown tab holds is laid out below
    the bar (`DashboardApp.content`), not inside it.

    A view inside pmui's Tabs is drawn only once React has mounted the tabs: on a served page's
    first paint that was about a tenth of a second (cold browser cache) after the rest, while the
    fund results waited. Each tab here is an empty place named by its title. pmui also makes a
    header pane for every tab, an empty one when the title is text (which it then draws instead):
    eight models in every first document that the browser builds and never shows; none are sent.
    """

    def __init__(self, *titles: str, **params):
        # (Panel's clone() passes the places back, already made)
        places = [title if isinstance(title, pn.viewable.Viewable) else
                  pn.Column(name=title, height=0, margin=0, sizing_mode="stretch_width") for title in titles]
        super().__init__(*places, **params)
        self._headers = []


VIEW_CLASSES = {"allocation": AllocationView, "holdings": HoldingsView, "fees": FeesView,
                "risk": RiskView, "performance": PerformanceView, "nav": NavView}
# Tabs whose view fetches what it shows when it is shown (`refresh`), not with the first load.
REFRESHED_TABS = ("market", "holdings", "nav")
# Of those, the tabs that read the local market snapshot only (quick): shown once read (`_read_then_show`,
# as the Licensee tab is once its first lookups have run).
READ_BEFORE_SHOWN = ("market", "holdings")
#: What a served page that opens on another tab than the Fund explorer (a shared link's) shows in the tab's place
#: until the browser has drawn the page and (but for the tabs below) the first load has ended (`_show_held`).
NOT_FILLED_BY_FIRST_LOAD = ("licensee", "market")
HELD_NOTE = '<div class="sd-muted" role="status" style="padding:16px 8px">Loading the {title} tab…</div>'


class DashboardApp(pn.viewable.Viewer):
    """The whole dashboard for one session: state in, a Page out; `start()` does the first load."""

    state = param.ClassSelector(class_=DashboardState, doc="The session's dashboard state.")
    source_label = param.String(default="", doc="Where the data comes from (settings.source_label), for the footer.")
    banner = param.String(default="", doc="Banner text shown above the tabs (the demo-data notice); none when empty.")
    examples = param.Dict(default={}, doc="Example licence-register identifiers to prefill (demo mode).")
    page_ready = param.Boolean(default=True, doc="Whether the browser has drawn the page (served apps start False: "
                               "their first document holds only what the first paint shows, the rest follows).")
    defer_loads = param.Boolean(default=False, doc="Leave a fund or basket set before the first load (`start`) to "
                                                   "it (a page built ahead of a shared link's visitor, the link "
                                                   "applied before its first load starts).")
    report = param.Callable(default=None, doc="Builds the sidebar's report: report(client, state.report_request()) "
                            "-> HTML text; None when reports are not available.")
    market = param.ClassSelector(class_=MarketScreen, default=None, allow_None=True,
                                 doc="The market snapshot's model (Market tab, the Holdings tab's overlap); one is made "
                                     "from the state's client settings when None.")
    demo = param.Boolean(default=False, doc="Whether the dashboard runs on the demo data (the Market tab can sync "
                                            "the demo market).")

    def __init__(self, **params):
        super().__init__(**params)
        state = self.state
        if self.market is None:
            self.market = MarketScreen(settings=state.search.api.settings)
        state.market = self.market  # its screener filters are in the URL
        if state.nav is None:
            state.nav = FundNav(state.factsheet.api)  # its unit class and range are in the URL
        # Views are built the first time their tab is shown, and only the shown tab's view is in
        # the page: a session starts with one tab's components, not seven, and a hidden tab never
        # redraws in the browser. (This is what Tabs(dynamic=True) is for, but re-showing a tab
        # with Bokeh plots that way makes BokehJS measure a plot view it has already removed.)
        self.views: dict[str, pn.viewable.Viewer] = {}
        #: What the shown tab holds: its view, below the tab bar.
        self.content = pn.Column(sizing_mode="stretch_width", name="tab-content", margin=0,
                                 css_classes=["sd-tab-content"], stylesheets=[CONTENT_CSS])
        # A served page opened on a tab with tables the first load fills (a shared link's) holds the tab back:
        # filled while the browser was still building them, its tables lost their rows (docs/upstream.md #6).
        self._held = False
        self._first_load_ended = False
        if self.page_ready:
            self._show_only(state.tab)
        else:
            self._hold(state.tab)
        self.tabs = TabBar(*(TAB_TITLES[t] for t in TABS), active=TABS.index(state.tab),
                           sizing_mode="stretch_width", name="main-tabs", stylesheets=[TABS_CSS])
        self.tabs.param.watch(self._tab_from_widget, "active")
        state.param.watch(self._tab_from_state, "tab")
        state.param.watch(self._fund_changed, "fund")
        state.basket.param.watch(self._basket_changed, "proj_ids")
        self._licensee_filled = False
        self._start_notes: list = []  # the first load's notifications, until the page is drawn

        self._document = pn.state.curdoc
        #: The sidebar's content, in a slot: a served page gets it (built then) once drawn.
        self.basket_panel: BasketPanel | None = None
        self.sidebar = pn.Column(sizing_mode="stretch_width", name="sidebar")
        if self.page_ready:
            self._complete_page()
        main = []
        if self.banner:
            main.append(html_pane(demo_banner_html(self.banner), name="demo-banner", margin=(0, 8, 6, 8)))
        self.footer = html_pane(pn.bind(self._footer_html, state.factsheet.param.loaded_at, state.basket.param.loaded,
                                        state.factsheet.param.stale, state.basket.param.stale),
                                name="footer", margin=(16, 8, 8, 8))
        main += [self.tabs, self.content, self.footer]
        # The demo chip follows the first paint (PAGE_TEMPLATE shuts a phone's drawer meanwhile).
        header = [self._demo_chip()] if self.page_ready and self.banner else []
        self.page = pmui.Page(title=APP_TITLE, main=main, sidebar=[self.sidebar], header=header,
                              sidebar_width=300, theme_toggle=True, stylesheets=STYLESHEETS,
                              dark_theme=state.theme == "dark", template=PAGE_TEMPLATE)
        # The theme is kept in the URL: the toggle sets the state, a link sets the toggle.
        self.page.param.watch(self._theme_from_page, "dark_theme")
        state.param.watch(self._theme_from_state, "theme")
        # Page binds its busy bar to pn.state.busy, which is process-wide: every session's page
        # then redraws whenever any session works (~10 ms a page, each time), and shows other
        # users' activity as its own. Bind it to this session's loading flags instead.
        models = (state.search, state.factsheet, state.basket, state.licence, self.market)
        with edit_readonly(self.page):
            self.page.busy = pn.bind(lambda *loading: any(loading), *(m.param.loading for m in models))

    def __panel__(self):
        return self.page

    def _theme_from_page(self, event):
        theme = "dark" if event.new else "light"
        if (self.state.theme or "light") != theme:
            self.state.theme = theme

    def _theme_from_state(self, event):
        dark = event.new == "dark"
        if self.page.dark_theme != dark:
            self.page.dark_theme = dark

    # ---- tabs ---------------------------------------------------------------------------------------

    def view(self, tab: str) -> pn.viewable.Viewer:
        """The tab's view, built the first time it is asked for."""
        view = self.views.get(tab)
        if view is None:
            state = self.state
            if tab == "licensee":
                view = LicenseeView(licence=state.licence, examples=self.examples)
            elif tab == "market":
                view = MarketView(state=state, market=self.market, demo=self.demo)
            elif tab == "holdings":
                view = HoldingsView(state=state, market=self.market)
            elif tab == "explorer":
                view = FundExplorer(state=state, deferred=not self.page_ready)
            else:
                view = VIEW_CLASSES[tab](state=state)
            self.views[tab] = view
        return view

    def _show_only(self, tab: str) -> pn.viewable.Viewer:
        view = self.view(tab)
        for name, other in self.views.items():
            if name != tab and isinstance(other, TabView):
                other.shown = False
        if isinstance(view, TabView):
            # Caught up on what changed while it was hidden before it is put in the page, so its tables are
            # sent with their rows: a change sent while the browser is still drawing a table is lost (below).
            view.shown = True
        shown = view.__panel__()
        if len(self.content.objects) != 1 or self.content.objects[0] is not shown:
            self.content.objects = [shown]
        return view

    def _hold(self, tab: str) -> None:
        """Before the page is drawn: the Fund explorer is put in the page, any other tab is held (`_show_held`)."""
        self._held = tab != "explorer"
        if self._held:
            self.content.objects = [html_pane(HELD_NOTE.format(title=esc(TAB_TITLES[tab])), name="held-tab")]
        else:
            self._show_only(tab)

    def _tab_from_widget(self, event):
        tab = TABS[event.new]
        if self.state.tab != tab:
            self.state.tab = tab

    def _tab_from_state(self, event):
        index = TABS.index(event.new)
        if self.tabs.active != index:
            self.tabs.active = index
        if not self.page_ready:
            self._hold(event.new)
            return
        self._held = False  # a tab picked on the drawn page is shown at once, as any (the first load may still run)
        read = self._read_first(event.new)
        if read is not None:
            pn.state.execute(functools.partial(self._read_then_show, event.new, read))
            return
        self._show_only(event.new)
        if event.new in REFRESHED_TABS and self.page_ready:
            pn.state.execute(self.view(event.new).refresh)

    def _read_first(self, tab: str):
        """What a tab opened on a drawn page reads before it is shown (a coroutine function), or None: the local
        snapshot for the Market and Holdings tabs, and the Licensee tab's first lookups (a link's, the demo's)."""
        if not self.page_ready:
            return None
        if tab in READ_BEFORE_SHOWN:
            return self.view(tab).refresh
        if tab == "licensee" and self._licensee_due():
            return self._prefill_licensee
        return None

    async def _read_then_show(self, tab: str, read) -> None:
        """Read what the tab shows (`read()`), then show it (while the last tab stays, marked as loading).

        A tab shown first and filled a moment later had its tables patched while the browser was still
        drawing them: Panel's Tabulator throws on a change of columns or pages of a table it has not drawn
        yet, and Bokeh then drops the rest of that message, so a table could stay empty (docs/upstream.md)."""
        view = self.view(tab)
        if isinstance(view, TabView):
            view.shown = True  # (not yet in the page: its tables are filled, not patched)
        self.content.loading = True
        try:
            await read()
        finally:
            self.content.loading = False
            if self.state.tab == tab:  # (not when another tab was picked meanwhile)
                self._show_only(tab)

    # ---- loading (async: the page never waits on the service) --------------------------------------------

    # With `defer_loads`, a fund or basket set before the first load (a shared link applied to a page
    # built ahead of its visitor) is loaded by it, in its order: the search first, whose records the
    # fund's load uses, and with its errors kept until the page is drawn.

    def _first_load_to_come(self) -> bool:
        return self.defer_loads and not self.state.started

    async def _fund_changed(self, event):
        if self._first_load_to_come():
            return
        try:
            await self.state.load_fund()
        except SecApiError as exc:
            notify_error(exc, "The fund could not be loaded")

    async def _basket_changed(self, event):
        if self._first_load_to_come():
            return
        await self._load_basket()

    async def _load_basket(self):
        basket = self.state.basket
        try:
            await self.state.load_basket()
        except SecApiError as exc:
            notify_error(exc, "The basket could not be loaded")
            return
        failed = basket.failed()
        if failed:
            names = ", ".join(basket.label(p) for p in failed)
            notify_warning(f"No data could be loaded for {names}: {next(iter(failed.values()))}")

    def _licensee_due(self) -> bool:
        """Whether the Licensee tab has lookups to run when first opened (a link's person or case, the demo's examples)."""
        licence = self.state.licence
        return not self._licensee_filled and bool(self.examples or licence.person_id or licence.case_id)

    async def _prefill_licensee(self):
        if not self._licensee_due():
            return
        self._licensee_filled = True
        await self.view("licensee").prefill()

    async def start(self):
        """The first load: the URL's fund and basket, or the default search (run once per session)."""
        try:
            self._start_notes = await self._first_load()
        finally:  # (a held tab is shown even when the load failed unexpectedly)
            self._first_load_ended = True
            if self._held:
                await self._show_held()
            elif self.page_ready:
                self._notify_start()
                if self.state.tab == "licensee":
                    await self._prefill_licensee()
                if self.state.tab in REFRESHED_TABS:
                    await self.view(self.state.tab).refresh()

    async def _first_load(self) -> list:
        """Run the state's first load; what to say about it (notifications to send once the page is drawn:
        one sent before that is lost)."""
        errors = await self.state.start()
        notes = [functools.partial(notify_error, exc) for exc in {str(e): e for e in errors}.values()]
        failed = self.state.basket.failed()
        if failed and not errors:
            notes.append(functools.partial(
                notify_warning, f"No data could be loaded for {', '.join(self.state.basket.label(p) for p in failed)}"))
        return notes

    def _notify_start(self):
        notes, self._start_notes = self._start_notes, []
        for note in notes:
            note()

    def _browser_building(self) -> bool:
        """Whether the browser has the document but has not drawn it yet."""
        context = getattr(self._document, "session_context", None)
        session = getattr(context, "session", None)
        return not self.page_ready and session is not None and session.connection_count > 0

    async def on_page_ready(self):
        """The browser has drawn the page: lookups may now fill the tables it drew. (Filling a table
        the browser is still building, as the Licensee tab's examples did when a reload opened on
        it, makes Tabulator patch a table it has not made yet.)"""
        self.page_ready = True
        try:
            self._complete_page()
            self._notify_start()
        finally:
            await self._show_held()

    async def _show_held(self) -> None:
        """Show the tab a served page opened on, once the page is drawn and its first load has ended (whichever
        comes last; the Licensee and Market tabs do not wait for the load): read what the tab shows, then put it
        in the page, where its tables arrive whole, with their rows.

        Panel drops a layout's changes made before the page is drawn (docs/upstream.md #1), and its table loses rows
        set while the browser builds it (#6): the first load ends at any time against the browser's building."""
        if not (self._held and self.page_ready
                and (self._first_load_ended or self.state.tab in NOT_FILLED_BY_FIRST_LOAD)):
            return
        self._held = False
        self._notify_start()
        tab = self.state.tab
        read = self._read_first(tab)
        if read is not None:
            await self._read_then_show(tab, read)
            return
        self._show_only(tab)
        if tab in REFRESHED_TABS:
            await self.view(tab).refresh()

    def _complete_page(self) -> None:
        """What the first paint left out: the sidebar's basket and the shown view's secondary parts.

        The browser builds its page from the first document before it draws anything; the fewer
        models that holds, the sooner the fund results show (the basket alone was a quarter of
        them). Added now, these parts are built from today's values and reach the browser whole."""
        if self.basket_panel is None:
            self.basket_panel = BasketPanel(state=self.state, report=self.report, unsent=self._browser_building)
            self.sidebar.objects = [self.basket_panel]
        for view in self.views.values():
            if isinstance(view, FundExplorer):
                view.complete()
        page = getattr(self, "page", None)  # None while __init__ builds it (then with the chip)
        if page is not None and self.banner and not page.header:
            page.header = [*page.header, self._demo_chip()]

    def _demo_chip(self) -> pmui.Typography:
        """The header's "DEMO DATA" chip (demo data only). A React component, one more for the
        browser to render before it draws the results, so a served page gets it once drawn: the
        banner above the tabs says "demo data" from the first paint on."""
        # on one line: wrapped ("DEMO / DATA"), it made a phone's header taller than the title and
        # the header then covered the top of the banner
        return pmui.Typography("DEMO DATA", variant="overline", margin=(0, 12),
                               styles={"color": "#ffd54f", "font-weight": "700", "white-space": "nowrap"},
                               # not on a phone: the banner says so, and the title needs the room (it wrapped to 3 lines)
                               stylesheets=[f"@media (max-width: {NARROW_SCREEN_PX - 1}px) {{:host {{display: none !important;}}}}"])

    # ---- footer -------------------------------------------------------------------------------------

    def _footer_html(self, *_):
        parts = [f"Data: {esc(self.source_label or 'the SEC Open API')}"]
        layout = self.state.service_layout()
        if layout:
            parts.append(f"answering on its {esc(layout)}")
        for label, value in self.state.as_of().items():
            parts.append(f"{esc(label)} {esc(value)}")
        loaded_at = self.state.factsheet.loaded_at
        if loaded_at:
            parts.append(f"fetched {esc(time.strftime('%Y-%m-%d %H:%M', time.localtime(loaded_at)))}")
        if self.state.factsheet.stale or self.state.basket.stale:
            parts.append('<span class="sd-pill sd-warn">some figures are stale (cached)</span>')
        return f'<div class="sd-muted" style="font-size:.85em" role="contentinfo">{" · ".join(parts)}</div>'

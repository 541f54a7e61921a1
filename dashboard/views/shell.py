"""The app shell: one panel-material-ui Page with the tab bar, the shown tab's view, the basket sidebar, banner and footer."""

from __future__ import annotations

import asyncio
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
from dashboard.views.common import STYLESHEETS, demo_banner_html, html_pane, notify_error, notify_warning
from dashboard.present.text import esc
from dashboard.views.explorer import FundExplorer
from dashboard.views.fees import FeesView
from dashboard.views.holdings import HoldingsView
from dashboard.views.licensee import LicenseeView
from dashboard.views.market import MarketView
from dashboard.views.nav import NavView
from dashboard.views.performance import PerformanceView
from dashboard.views.plan import PlanView
from dashboard.views.plan_dca import DcaView
from dashboard.views.plan_tax import TaxPlanView
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


VIEW_CLASSES = {"allocation": AllocationView, "holdings": HoldingsView, "fees": FeesView,
                "risk": RiskView, "performance": PerformanceView, "nav": NavView}
#: Tabs whose view reads what it shows (`refresh`) before it is put in the page, so that it comes whole: the market
#: snapshot (Market, Holdings; quick, local) and the Plan tab's NAV history. (The NAV tab is put in first and fills.)
READ_BEFORE_SHOWN = ("market", "holdings", "plan")
#: Tabs that show nothing of the first load (the fund and basket), so they never wait for it.
NOT_FILLED_BY_FIRST_LOAD = ("licensee", "market")
LOADING_NOTE = '<div class="sd-muted" role="status" style="padding:16px 8px">Loading…</div>'


def bind_busy(page: pmui.Page, models) -> None:
    """The page's busy bar shows this session's work: any of `models` loading.

    panel-material-ui binds every Page to Panel's process-wide busy flag, which shows every visitor's
    work on every page and, never unbound, keeps each ended session's page and document alive
    (docs/upstream.md #7): there is no public way to give a Page another flag."""
    with edit_readonly(page):
        page.busy = pn.bind(lambda *loading: any(loading), *(m.param.loading for m in models))


class DashboardApp(pn.viewable.Viewer):
    """The whole dashboard for one session: state in, a Page out; `start()` does the first load.

    One rule for what the page shows: a tab's view is made when its data is ready and put in the page
    whole; what changes later is made anew and replaces what was there (`TableSlot`). A served page's
    first document holds the frame only (title, tab bar, banner, footer, a loading note in the tab's
    place): the tab and the sidebar join it once the browser has drawn it (`on_page_ready`, Panel's
    `pn.state.onload`) and the first load has ended."""

    state = param.ClassSelector(class_=DashboardState, doc="The session's dashboard state.")
    source_label = param.String(default="", doc="Where the data comes from (settings.source_label), for the footer.")
    banner = param.String(default="", doc="Banner text shown above the tabs (the demo-data notice); none when empty.")
    examples = param.Dict(default={}, doc="Example licence-register identifiers to prefill (demo mode).")
    page_ready = param.Boolean(default=True, doc="Whether the page may be filled now: a served page starts False "
                               "and is filled once the browser has drawn it (`on_page_ready`).")
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
        # Views are made the first time their tab is shown, and only the shown tab's view is in the page:
        # a session starts with one tab's components, not seven, and a hidden tab never redraws in the browser.
        self.views: dict[str, pn.viewable.Viewer] = {}
        #: What the shown tab holds: its view, below the tab bar.
        self.content = pn.Column(sizing_mode="stretch_width", name="tab-content", margin=0,
                                 css_classes=["sd-tab-content"], stylesheets=[CONTENT_CSS])
        self.sidebar = pn.Column(sizing_mode="stretch_width", name="sidebar")
        self.basket_panel: BasketPanel | None = None
        self.tabs = pmui.TabMenu(items=[TAB_TITLES[t] for t in TABS], active=TABS.index(state.tab), variant="scrollable",
                                 sizing_mode="stretch_width", name="main-tabs", stylesheets=[TABS_CSS])
        self.tabs.param.watch(self._tab_from_widget, "active")
        state.param.watch(self._tab_from_state, "tab")
        state.param.watch(self._fund_changed, "fund")
        state.basket.param.watch(self._basket_changed, "proj_ids")
        self._licensee_filled = False
        self._start_notes: list = []  # the first load's notifications, until the page is drawn
        self._first_load_ended = asyncio.Event()
        #: Whether this is a served page (made before the browser drew it), whose tabs wait for the first load.
        self._served = not self.page_ready
        main = []
        if self.banner:
            main.append(html_pane(demo_banner_html(self.banner), name="demo-banner", margin=(0, 8, 6, 8)))
        self.footer = html_pane(pn.bind(self._footer_html, state.factsheet.param.loaded_at, state.basket.param.loaded,
                                        state.factsheet.param.stale, state.basket.param.stale),
                                name="footer", margin=(16, 8, 8, 8))
        main += [self.tabs, self.content, self.footer]
        header = [self._demo_chip()] if self.banner else []
        self.page = pmui.Page(title=APP_TITLE, main=main, sidebar=[self.sidebar], header=header,
                              sidebar_width=300, theme_toggle=True, stylesheets=STYLESHEETS,
                              dark_theme=state.theme == "dark", template=PAGE_TEMPLATE)
        bind_busy(self.page, (state.search, state.factsheet, state.basket, state.licence, self.market))
        # The theme is kept in the URL: the toggle sets the state, a link sets the toggle.
        self.page.param.watch(self._theme_from_page, "dark_theme")
        state.param.watch(self._theme_from_state, "theme")
        if self.page_ready:
            self._fill_sidebar()
            self.content.objects = [self.view(state.tab).__panel__()]
        else:
            self.content.objects = [html_pane(LOADING_NOTE, name="tab-loading")]

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

    def view(self, tab: str, prefill_follows: bool = False) -> pn.viewable.Viewer:
        """The tab's view, made the first time it is asked for (the Licensee tab's tables waiting for its
        `prefill` when that comes next)."""
        view = self.views.get(tab)
        if view is None:
            state = self.state
            if tab == "licensee":
                view = LicenseeView(licence=state.licence, examples=self.examples, prefill_follows=prefill_follows)
            elif tab == "market":
                view = MarketView(state=state, market=self.market, demo=self.demo)
            elif tab == "holdings":
                view = HoldingsView(state=state, market=self.market)
            elif tab == "explorer":
                view = FundExplorer(state=state)
            elif tab == "plan":
                view = PlanView(sections=[TaxPlanView(market=self.market), DcaView(state=state)])
                state.plan_report = view.report_request  # the sidebar's report, while the tab is shown
            else:
                view = VIEW_CLASSES[tab](state=state)
            # the view's place in the page names its tab (`sd-view-<tab>`): what a test of the served page waits for
            layout = view.__panel__()
            layout.css_classes = [*layout.css_classes, f"sd-view-{tab}"]
            self.views[tab] = view
        return view

    def _tab_from_widget(self, event):
        if event.new is None:
            return
        tab = TABS[event.new]
        if self.state.tab != tab:
            self.state.tab = tab

    def _tab_from_state(self, event):
        index = TABS.index(event.new)
        if self.tabs.active != index:
            self.tabs.active = index
        if self.page_ready:
            pn.state.execute(functools.partial(self.show, event.new))

    async def show(self, tab: str) -> None:
        """Put the tab's view in the page once what it shows is ready: the first load's fund and basket (but for
        the Licensee and Market tabs), the market snapshot (Market, Holdings), the Licensee tab's first lookups.
        Meanwhile the last tab stays, marked as loading; a tab picked meanwhile wins."""
        waits = self._served and tab not in NOT_FILLED_BY_FIRST_LOAD and not self._first_load_ended.is_set()
        reads = ["refresh"] if tab in READ_BEFORE_SHOWN else []
        if tab == "licensee" and self._licensee_due():
            reads.append("prefill")
        if waits or reads:
            self.content.loading = True
            try:
                if waits:
                    await self._first_load_ended.wait()
                view = self.view(tab, prefill_follows="prefill" in reads)
                for read in reads:
                    await (view.refresh() if read == "refresh" else self._prefill_licensee())
            finally:
                self.content.loading = False
        if self.state.tab != tab:
            return
        view = self.view(tab)
        shown = view.__panel__()
        if list(self.content.objects) != [shown]:
            self.content.objects = [shown]
        if tab == "nav":
            await view.refresh()  # fetched from the service: its parts are made anew as they come

    # ---- loading (async: the page never waits on the service) --------------------------------------------

    async def _fund_changed(self, event):
        try:
            await self.state.load_fund()
        except SecApiError as exc:
            notify_error(exc, "The fund could not be loaded")

    async def _basket_changed(self, event):
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
        await self.view("licensee", prefill_follows=True).prefill()

    async def start(self):
        """The first load: the URL's fund and basket, or the default search (run once per session)."""
        try:
            errors = await self.state.start()
            notes = [functools.partial(notify_error, exc) for exc in {str(e): e for e in errors}.values()]
            failed = self.state.basket.failed()
            if failed and not errors:
                notes.append(functools.partial(
                    notify_warning, f"No data could be loaded for {', '.join(self.state.basket.label(p) for p in failed)}"))
            self._start_notes += notes
        finally:  # (a served page shows its tab even when the load failed unexpectedly)
            self._first_load_ended.set()
        if self._served and not self.page_ready:
            # Its data is ready: the tab's view and the sidebar are made now, while the browser is still loading
            # the page's scripts, and put in the page once it is drawn (`on_page_ready`): not on its critical path.
            if self.state.tab not in READ_BEFORE_SHOWN and self.state.tab != "licensee":
                self.view(self.state.tab)
            if self.basket_panel is None:
                self.basket_panel = BasketPanel(state=self.state, report=self.report)
        if not self._served:  # (a served page does this once drawn: `on_page_ready`)
            self._notify_start()
            await self.show(self.state.tab)

    def _notify_start(self):
        """The first load's notifications: sent once the page is drawn (one sent before that is lost)."""
        notes, self._start_notes = self._start_notes, []
        for note in notes:
            note()

    async def on_page_ready(self):
        """The browser has drawn the page (`pn.state.onload`): the sidebar and the tab join it, each made whole."""
        self.page_ready = True
        try:
            await self.show(self.state.tab)  # the tab first, in a message of its own: what the eye waits for
        finally:
            self._fill_sidebar()
            await self._first_load_ended.wait()
            self._notify_start()

    def _fill_sidebar(self) -> None:
        if self.basket_panel is None:
            self.basket_panel = BasketPanel(state=self.state, report=self.report)
        shown = self.basket_panel.__panel__()
        if list(self.sidebar.objects) != [shown]:
            self.sidebar.objects = [shown]

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

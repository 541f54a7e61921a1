"""DashboardState: what the dashboard shows (tab, fund, basket, search) and the models behind it.

A pure Param model: it never imports Panel. Its `tab`, `fund`, `basket_ids`, `query` and `theme`
parameters, the Licensee tab's person and case and the NAV tab's class and range are the URL query
string of the served app
(the view layer syncs them with `pn.state.location`), so a link reopens the same view (read and
written by `dashboard.models.url_codec`). The async methods are what the Panel
callbacks await; each records a failure in its area's `*_error` parameter for an empty-state
message and re-raises it for a notification.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import param

from dashboard.api.sync import SecClient
from dashboard.errors import BadInputError, SecApiError
from dashboard.models import url_codec
from dashboard.models.basket import MAX_BASKET, FundBasket, parse_proj_ids
from dashboard.models.basket_amounts import BasketAmounts
from dashboard.models.factsheet import FundFactsheet
from dashboard.models.holdings import HoldingsByQuarter
from dashboard.models.licensee import LicenceCheck
from dashboard.models.search import FundSearch

TABS = ("explorer", "allocation", "holdings", "fees", "risk", "performance", "nav", "market", "licensee", "plan")
TAB_TITLES = {
    "explorer": "Fund explorer",
    "allocation": "Allocation",
    "holdings": "Holdings",
    "fees": "Fees",
    "risk": "Risk",
    "performance": "Performance",
    "nav": "NAV & returns",
    "market": "Market",
    "licensee": "Licensee",
    "plan": "Plan",  # tax-saving and regular-investing plans
}
# Tabs whose report is the basket comparison; the others report the selected fund.
COMPARISON_TABS = ("fees", "risk")
# The first search shown when a link carries no state: every demo fund's name contains "Demo".
DEMO_DEFAULT_QUERY = "Demo"
LIVE_DEFAULT_QUERY = "SET50"
THEMES = ("", "light", "dark")
class DashboardState(param.Parameterized):
    """The whole app's state: selected tab, fund and basket, the search, and the data models."""

    client = param.ClassSelector(class_=SecClient, default=None, allow_None=True,
                                 doc="Client every sub-model fetches with; the shared default when None.")
    tab = param.Selector(default="explorer", objects=list(TABS), doc="The tab shown (URL: tab).")
    fund = param.String(default="", doc="proj_id of the selected fund; drives Allocation, Holdings and Performance (URL: fund).")
    basket_ids = param.String(default="", doc="Comma-separated proj_ids of the comparison basket (URL: basket).")
    query = param.String(default="", doc="The last fund search that was run (URL: q).")
    theme = param.Selector(default="", objects=list(THEMES),
                           doc="Colour theme: light or dark; empty for the page's default (URL: theme).")
    ignored_url = param.List(default=[], item_type=str,
                             doc="What the last apply_url ignored, as name=value texts, for a notice; empty when all was used.")
    default_query = param.String(default=DEMO_DEFAULT_QUERY,
                                 doc="Search run on a first visit (no state in the URL), so every tab has something to show.")
    default_basket_size = param.Integer(default=4, bounds=(0, MAX_BASKET),
                                        doc="How many registered funds of the first search fill the basket on a first visit.")

    market = param.Parameter(default=None, doc="The Market tab's screener (a dashboard.market.screen.MarketScreen: the "
                             "market is beside the models, so it is not typed here) whose filters a link carries; "
                             "None until the view layer sets it, and a link's filters wait for it.")
    nav = param.Parameter(default=None, doc="The NAV tab's model (a dashboard.models.nav.FundNav, made by the view layer "
                          "with the session's client) whose unit class and range a link carries; None until set.")
    plan_report = param.Callable(default=None, doc="The Plan tab's report request (its view's `report_request`: the "
                                 "plans on screen), set when the tab's view is made; None before.")
    search = param.ClassSelector(class_=FundSearch, doc="Fund search (E1, E3) and company fund lists (E2).")
    factsheet = param.ClassSelector(class_=FundFactsheet, doc="The selected fund's factsheet.")
    holdings = param.ClassSelector(class_=HoldingsByQuarter, doc="The selected fund's holdings by quarter.")
    basket = param.ClassSelector(class_=FundBasket, doc="The comparison basket.")
    amounts = param.ClassSelector(class_=BasketAmounts, doc="The baht held in each basket fund (in the session; in the "
                                                            "link only when opted in).")
    licence = param.ClassSelector(class_=LicenceCheck, doc="The licence register lookups.")

    search_error = param.String(default="", doc="Why the last search failed; empty when it worked.")
    fund_error = param.String(default="", doc="Why the selected fund could not be loaded; empty when it loaded.")
    basket_error = param.String(default="", doc="Why the basket could not be loaded; empty when it loaded.")
    started = param.Boolean(default=False, doc="True once the first load (start) has run.")
    basket_revision = param.Integer(default=0, doc="Increases when the basket's data changed and no load is running: "
                                                   "comparison views redraw once per load, not once per fund.")

    def __init__(self, **params: Any):
        client = params.get("client")
        params.setdefault("search", FundSearch(client=client))
        params.setdefault("factsheet", FundFactsheet(client=client))
        params.setdefault("basket", FundBasket(client=client))
        params.setdefault("amounts", BasketAmounts())
        params.setdefault("licence", LicenceCheck(client=client))
        params.setdefault("holdings", HoldingsByQuarter(factsheet=params["factsheet"]))
        super().__init__(**params)
        self._fund_lock = asyncio.Lock()
        self._basket_lock = asyncio.Lock()
        self._fund_request = 0
        self._shown_revision = self.basket.revision
        self.url_waiting: dict[str, Any] = {}  # a link's values for a model not set yet (the market's filters)
        if self.basket_ids and not self.basket.proj_ids:
            self._url_to_basket()
        elif self.basket.proj_ids:
            self._basket_to_url()

    # ---- URL state <-> models (side effects only) --------------------------------------------------

    @param.depends("basket.proj_ids", watch=True)
    def _amounts_follow_basket(self) -> None:
        self.amounts.keep_only(self.basket.proj_ids)

    @param.depends("basket.proj_ids", watch=True)
    def _basket_to_url(self) -> None:
        text = ",".join(self.basket.proj_ids)
        if text != self.basket_ids:
            self.basket_ids = text

    @param.depends("basket.revision", "basket.loading", watch=True)
    def _basket_settled(self) -> None:
        if self.basket.loading or self.basket.pending():
            return  # a load is running or about to start: redraw once it is done
        if self.basket.revision != self._shown_revision:
            self._shown_revision = self.basket.revision
            self.basket_revision += 1

    @param.depends("basket_ids", watch=True)
    def _url_to_basket(self) -> None:
        ids = parse_proj_ids(self.basket_ids)
        if ids != self.basket.proj_ids:
            self.basket.set_funds(ids, {p: r for p in ids if (r := self.fund_record(p))})
        canonical = ",".join(self.basket.proj_ids)
        if canonical != self.basket_ids:  # drop malformed ids from the URL too
            self.basket_ids = canonical

    @param.depends("market", "nav", watch=True)
    def _market_set(self) -> None:
        """Give the market (or the NAV tab's model) the link's values that waited for it; a value it refuses is
        ignored (and said)."""
        url_codec.give_waiting(self)

    def url_watch(self, callback) -> None:
        """Call `callback` whenever a value kept in the URL changes (the view layer pushes the address)."""
        url_codec.watch(self, callback)

    def url_state(self) -> dict[str, str]:
        """The query-string form of the state (what a shared link carries)."""
        return url_codec.encode(self)

    def apply_url(self, args: dict[str, Any]) -> list[str]:
        """Set the state from query arguments ({"fund": "...", "tab": "...", ...}).

        A value that cannot be used leaves its part as it was; so does a parameter the dashboard
        does not know. Returns what was ignored ("name=value" texts, also in `ignored_url`), so the
        app can say so and clean the address.
        """
        return url_codec.apply(self, args)

    # ---- lookups -------------------------------------------------------------------------------

    def fund_record(self, proj_id: str | None) -> dict | None:
        """The Fund record (E1/E2) of a proj_id from anything loaded so far, or None."""
        if not proj_id:
            return None
        if self.factsheet.fund and self.factsheet.fund.get("proj_id") == proj_id:
            return self.factsheet.fund
        return (self.search.fund_record(proj_id) or self.basket.funds.get(proj_id)
                or self.basket.known_records([proj_id]).get(proj_id))

    def service_layout(self) -> str:
        """Which of the service's path layouts answers, once a call has found out ("" before)."""
        from dashboard.api.layouts import LAYOUT_LABELS

        return LAYOUT_LABELS.get(self.search.api.async_client.layout_name or "", "")

    def company_name(self, unique_id: str | None) -> str | None:
        """A company's name from any fund record loaded so far (the current service names it on every
        fund), with its identifier; the bare identifier when no record names it."""
        if not unique_id:
            return None
        records = [self.factsheet.fund or {}, *self.search.records, *self.basket.funds.values()]
        name = next((r.get("comp_name_en") for r in records if r and r.get("unique_id") == unique_id and r.get("comp_name_en")), None)
        return f"{name} ({unique_id})" if name else unique_id

    @property
    def selected_record(self) -> dict | None:
        return self.fund_record(self.fund)

    def in_basket(self, proj_id: str | None = None) -> bool:
        return (proj_id or self.fund) in self.basket.proj_ids

    # ---- actions ---------------------------------------------------------------------------------

    @contextmanager
    def _failure_in(self, error_parameter: str) -> Iterator[None]:
        """Record a service failure inside in `error_parameter` (for an empty-state message), and re-raise it."""
        try:
            yield
        except SecApiError as exc:
            setattr(self, error_parameter, str(exc))
            raise

    def select_fund(self, proj_id: str) -> None:
        """Select a fund (load it with `load_fund`)."""
        ids = parse_proj_ids(proj_id)
        if ids and ids[0] != self.fund:
            self.fund = ids[0]

    def add_to_basket(self, proj_id: str | None = None) -> None:
        proj_id = proj_id or self.fund
        if proj_id:
            self.basket.add(proj_id, self.fund_record(proj_id))

    def add_funds_to_basket(self, funds: dict[str, dict | None]) -> list[str]:
        """Add several funds at once ({proj_id: its record or None}, such as the Market tab's chosen rows);
        the proj_ids added. BadInputError when they would not all fit, and then none is added."""
        ids = [p for p in parse_proj_ids(list(funds), limit=len(funds) or 1) if p not in self.basket.proj_ids]
        if len(self.basket.proj_ids) + len(ids) > MAX_BASKET:
            raise BadInputError(f"a basket holds at most {MAX_BASKET} funds: {len(self.basket.proj_ids)} are in it, "
                                f"{len(ids)} more do not fit")
        if ids:
            records = {p: r for p in ids if (r := funds.get(p) or self.fund_record(p))}
            self.basket.set_funds([*self.basket.proj_ids, *ids], records)
        return ids

    def remove_from_basket(self, proj_id: str | None = None) -> None:
        self.basket.remove(proj_id or self.fund)

    def set_basket(self, proj_ids: list[str]) -> None:
        self.basket.set_funds(list(proj_ids), {p: r for p in proj_ids if (r := self.fund_record(p))})

    async def search_funds(self, query: str | None = None) -> bool:
        """Run a fund search (E1 + E3); True when something was found."""
        text = (self.query if query is None else query).strip()
        with self._failure_in("search_error"):
            await self.search.search(text)
        self.param.update(search_error="", query=text)
        return not self.search.results.empty or not self.search.classes.empty

    async def company_funds(self, unique_id: str | None = None) -> bool:
        """List all funds of an asset management company (E2) as the search results."""
        unique_id = unique_id or (self.selected_record or {}).get("unique_id") or ""
        with self._failure_in("search_error"):
            await self.search.company_funds(unique_id)
        self.search_error = ""
        return not self.search.results.empty

    async def load_fund(self, force: bool = False) -> FundFactsheet | None:
        """Load the selected fund's factsheet; a request superseded by a later one does nothing."""
        self._fund_request += 1
        token = self._fund_request
        async with self._fund_lock:
            proj_id = self.fund
            if token != self._fund_request or not proj_id:
                return None
            if not force and self.factsheet.proj_id == proj_id and self.factsheet.loaded_at and not self.fund_error:
                return self.factsheet
            with self._failure_in("fund_error"):
                try:
                    await self.factsheet.load(proj_id, fund=self.fund_record(proj_id))
                except BadInputError as exc:
                    # The service does not know the fund: the factsheet refuses it and keeps the one it
                    # had, but the dashboard never shows another fund's figures under this fund's name.
                    self.factsheet.clear(proj_id, str(exc), fund=self.fund_record(proj_id), periods=self.factsheet.periods)
                    raise
            self.fund_error = ""
            if self.factsheet.fund and proj_id in self.basket.proj_ids and proj_id not in self.basket.funds:
                self.basket.funds = {**self.basket.funds, proj_id: self.factsheet.fund}
            return self.factsheet

    async def load_basket(self) -> FundBasket:
        """Load every basket fund not loaded yet (funds added meanwhile too)."""
        async with self._basket_lock:
            with self._failure_in("basket_error"):
                for _ in range(MAX_BASKET + 1):
                    if not self.basket.pending():
                        break
                    await self.basket.load()
            self.basket_error = ""
            if self.basket.unresolved():
                # Funds from a shared link whose record E4/E1 could not find: look in the fund
                # lists (E2) of the companies already on screen.
                await self.basket.resolve_records(self._companies_in_view())
            return self.basket

    def _companies_in_view(self) -> list[str]:
        records = [self.factsheet.fund or {}, *self.search.records]
        return [c for c in dict.fromkeys(r.get("unique_id") for r in records) if c]

    async def fill_basket_from_company(self, unique_id: str | None = None) -> list[str]:
        """Replace the basket with a company's registered funds (E2) and load them."""
        unique_id = unique_id or (self.selected_record or {}).get("unique_id") or ""
        with self._failure_in("basket_error"):
            await self.basket.from_company(unique_id)
        await self.load_basket()
        return self.basket.proj_ids

    async def start(self) -> list[SecApiError]:
        """The first load of a session: what the URL asks for, or a default search, fund and basket.

        Returns the errors met (each also recorded in its area's `*_error`); never raises them,
        so one failing part does not stop the others.
        """
        if self.started:
            return []
        self.started = True
        errors: list[SecApiError] = []
        fresh = not (self.fund or self.basket.proj_ids or self.query)
        query = self.query or (self.default_query if fresh else "")
        if query:
            try:
                await self.search_funds(query)
            except SecApiError as exc:
                errors.append(exc)
        if fresh and self.search.records:
            funds = [r for r in self.search.records if r.get("proj_id")]
            registered = [r for r in funds if r.get("fund_status") == "RG"] or funds
            if self.default_basket_size:
                chosen = registered[: self.default_basket_size]
                self.basket.set_funds([r["proj_id"] for r in chosen], {r["proj_id"]: r for r in chosen})
            self.fund = registered[0]["proj_id"]
        results = await asyncio.gather(self.load_fund(), self.load_basket(), return_exceptions=True)
        for result in results:
            if isinstance(result, SecApiError):
                errors.append(result)
            elif isinstance(result, BaseException):
                raise result
        if self.basket.unresolved() and self.factsheet.fund:
            try:  # the selected fund's company is known only now
                await self.basket.resolve_records(self._companies_in_view())
            except SecApiError as exc:
                errors.append(exc)
        return errors

    def load_failed(self) -> bool:
        """Whether a part of what is on screen failed to load or came from an expired cache entry
        because the service failed (a page built ahead of its visitor is then built again for them)."""
        return bool(self.search_error or self.fund_error or self.basket_error or self.search.stale
                    or self.factsheet.stale or self.basket.stale)

    # ---- what the footer and the report button need ------------------------------------------------

    def as_of(self) -> dict[str, str]:
        """As-of dates of what is on screen: fund record, performance and holdings (ISO text)."""
        out: dict[str, str] = {}
        record = self.factsheet.fund or self.selected_record or {}
        if record.get("last_upd_date"):
            out["fund record updated"] = str(record["last_upd_date"])[:10]
        perf = self.factsheet.performance
        if perf is not None and not perf.empty and perf["as_of_date"].notna().any():
            out["performance as of"] = perf["as_of_date"].dropna().max().date().isoformat()
        period = self.holdings.periods_with_data[0] if self.holdings.periods_with_data else None
        if period:
            as_of = self.holdings.as_of(period)
            out["holdings as of"] = as_of or f"{period[:4]}-{period[4:]}"
        return out

    def report_request(self) -> dict[str, Any]:
        """What the "Download report" button should produce for the tab shown.

        {"kind": "fund", "proj_ids": [...], "funds": {...}} (one fund: factsheet; several:
        comparison) or {"kind": "licensee", "unique_id": ..., "case_ids": [...]};
        {"kind": "plan", ...} (the Plan tab: `plan_report`'s request);
        {"kind": None, "reason": ...} when there is nothing to report.
        """
        if self.tab == "licensee":
            lic = self.licence
            unique_id = lic.person_id or lic.enforcement_id
            if not unique_id:
                return {"kind": None, "reason": "look up a person or an enforcement case first"}
            cases = [lic.case_id] if lic.case_id and lic.enforcement_id == unique_id and lic.enforcement else []
            return {"kind": "licensee", "unique_id": unique_id, "case_ids": cases}
        if self.tab == "plan":
            return self.plan_report() if self.plan_report is not None else {
                "kind": None, "reason": "the Plan tab has not been shown yet"}
        if self.tab in COMPARISON_TABS and self.basket.proj_ids:
            ids = list(self.basket.proj_ids)
        elif self.fund:
            ids = [self.fund]
        else:
            return {"kind": None, "reason": "select a fund or fill the basket first"}
        funds = {p: r for p in ids if (r := self.fund_record(p))}
        return {"kind": "fund", "proj_ids": ids, "funds": funds}

    def report_filename(self) -> str:
        request = self.report_request()
        if request["kind"] == "licensee":
            return f"licensee-{request['unique_id']}.html"
        if request["kind"] == "plan":
            return request["filename"]
        if request["kind"] == "fund":
            ids = request["proj_ids"]
            return f"fund-{ids[0]}.html" if len(ids) == 1 else f"comparison-{len(ids)}-funds.html"
        return "report.html"

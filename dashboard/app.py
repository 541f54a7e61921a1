"""The dashboard's page: `create_app()` builds one session's page (`create_dashboard()` its shell).

`sec-dashboard serve` serves it (`dashboard.server.serve`); `panel serve dashboard/app.py` runs this
module, which then marks a fresh page servable for every session.
"""

from __future__ import annotations

import functools
import os
import urllib.parse
from datetime import date

import panel as pn

from dashboard.api.sync import SecClient
from dashboard.config import ApiSettings
from dashboard.demo.pools import DEMO_LABEL
from dashboard.models.dashboard_state import DEMO_DEFAULT_QUERY, LIVE_DEFAULT_QUERY, DashboardState
from dashboard.models.source import default_client

pn.extension("tabulator", throttled=True)

from dashboard.views.common import notify_warning  # noqa: E402  (after the extension is loaded)
from dashboard.views.shell import APP_TITLE, DashboardApp  # noqa: E402

# Notifications on, drawn by panel-material-ui's notification area (the Page's). Turned on here,
# after panel-material-ui is imported, and not with `pn.extension(notifications=True)`: that also
# put Panel's own notification library (notyf: a script and a stylesheet) and Font Awesome in the
# page's head, files the page never used, fetched before anything could be drawn.
pn.config.notifications = True


@functools.lru_cache(maxsize=4)
def demo_examples(today: date) -> dict[str, str]:
    """Identifiers of the demo data that show every part of the Licensee tab."""
    from dashboard.demo.generator import generate_demo_dataset

    data = generate_demo_dataset(today=today)
    def richness(person: dict) -> tuple:
        uid = person["unique_id"]
        approvals = data.approvals.get(uid) or []
        states = {("no expiry" if not (a.get("expire_date") or "").strip() else a.get("expire_date") >= today.isoformat())
                  for a in approvals}
        return (len(states), bool(data.duties.get(uid)), bool(person.get("case_ids")), len(approvals))

    person = max(data.persons, key=richness)["unique_id"] if data.persons else next(iter(data.approvals), "")
    case_uid, case_id = next(((u, c) for (u, c) in data.enforcement if u == person), next(iter(data.enforcement), ("", "")))
    record = data.person(person) or {}
    name_en = str(record.get("name_en") or "").split()
    return {"company": "Demo", "person": person, "case_uid": case_uid, "case_id": case_id,
            "alert": next(iter(data.alerts), ""), "company_id": data.amcs[0]["unique_id"] if data.amcs else "",
            "person_name": name_en[-1] if name_en else ""}


def build_report(client: SecClient, request: dict) -> str:
    """The HTML report for `DashboardState.report_request()` (a fund, a basket, a licence check or the plans);
    the sidebar's download runs it off the event loop."""
    from dashboard.reports import fund_report_html, licensee_report_html

    if request["kind"] == "plan":
        from dashboard.reports.plan import plan_report_html

        return plan_report_html(client.settings, request)
    if request["kind"] == "licensee":
        return licensee_report_html(client, request["unique_id"], request["case_ids"])
    return fund_report_html(client, request["proj_ids"], funds=request["funds"])


def create_app(settings: ApiSettings | None = None, client: SecClient | None = None) -> pn.viewable.Viewable:
    """One session's dashboard page (a panel-material-ui Page): the page of `create_dashboard`."""
    return create_dashboard(settings, client).page


def create_dashboard(settings: ApiSettings | None = None, client: SecClient | None = None) -> DashboardApp:
    """One session's dashboard: the shell whose `page` is served (tests and notebooks use the shell).

    Served, it reads the URL's query string (tab, fund, basket, q, theme, person, case_of, case, range,
    nav_class; tab=market opens the Market tab),
    says what it ignored and keeps the address in step with the state, and loads the data after
    the page has rendered, so the first paint never waits on the service.
    """
    if settings is None:
        settings = client.settings if client is not None else ApiSettings.from_env()
    client = client or default_client(settings)
    default_query = DEMO_DEFAULT_QUERY if settings.demo else os.environ.get("SEC_DASHBOARD_DEFAULT_QUERY", LIVE_DEFAULT_QUERY)
    state = DashboardState(client=client, default_query=default_query)
    served = pn.state.curdoc is not None and pn.state.curdoc.session_context is not None
    if served:
        state.apply_url(dict(pn.state.session_args or {}))
    app = DashboardApp(
        state=state,
        source_label=settings.source_label,
        banner=DEMO_LABEL if settings.demo else "",
        examples=demo_examples(client.today) if settings.demo else {},
        report=build_report,
        demo=settings.demo,
        page_ready=not served,
    )
    if served:
        pn.state.on_session_destroyed(lambda _context: app.market.close())
        pn.state.onload(app.on_page_ready)
        sync_url(state)
        begin(app)
    return app


def begin(app: DashboardApp) -> None:
    """Start a served session's first load, and say (once its page is drawn) what of its link was ignored.

    The load starts now, while the browser fetches the scripts, not after the page has rendered:
    the data is usually there by the time the first paint is."""
    pn.state.execute(app.start)
    if app.state.ignored_url:
        pn.state.onload(functools.partial(notify_warning, ignored_notice(app.state.ignored_url)))


def url_search(state: DashboardState) -> str:
    """The query string of the state: only what is set, commas kept readable."""
    query = urllib.parse.urlencode({k: v for k, v in state.url_state().items() if v}, safe=",")
    return f"?{query}" if query else ""


def ignored_notice(ignored: list[str]) -> str:
    """The notice for parts of a link that could not be used (they are removed from the address)."""
    return f"Parts of the link could not be used and were left out: {'; '.join(ignored)}."


def sync_url(state: DashboardState) -> None:
    """Keep the browser's address in step with the state (tab, fund, basket, search, theme, licensee).

    The state was set from the address when the session started; from then on the state leads:
    the first push replaces an address with values the state ignored by the clean one.
    Empty values are left out, so a shared link never carries "fund=" that would clear a choice.
    """
    location = pn.state.location
    if location is None:
        return

    def push(*_):
        search = url_search(state)
        if location.search != search:
            location.search = search

    state.url_watch(push)
    pn.state.onload(push)  # once the browser is connected, so its address is the one updated


if __name__.startswith("bokeh_app"):  # run by `panel serve dashboard/app.py` (without this package's server fixes)
    create_app().servable(title=APP_TITLE)

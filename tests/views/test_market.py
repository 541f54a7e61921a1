"""The Market tab (and the Holdings tab's market parts) through their public hooks, on the demo data:
first with no market snapshot (the empty state), then after the tab's own demo sync."""

from __future__ import annotations

import holoviews as hv
import pytest

from dashboard.app import create_dashboard, url_search
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.market import queries
from dashboard.market.screen import screen_frame
from dashboard.models.dashboard_state import TAB_TITLES, TABS
from dashboard.views.market import MarketView, results_frame
from tests.conftest import TODAY, run


class _App:
    """A served-like dashboard on the demo data with its own cache directory (so its own market store)."""

    def __init__(self, cache):
        self.client = open_client(ApiSettings.from_env(demo=True, cache_dir=cache, environ={}), today=lambda: TODAY)
        self.app = create_dashboard(client=self.client)
        run(self.app.start())

    def view(self) -> MarketView:
        self.app.state.tab = "market"
        view = self.app.views["market"]
        assert isinstance(view, MarketView)
        return view

    def close(self) -> None:
        self.app.market.close()
        self.client.close()


# Each test reads the fixture it needs, so none depends on another having run first (the tests run in
# any order and on any worker): an app that never syncs, and an app synced in its fixture.
@pytest.fixture(scope="module")
def empty_app(tmp_path_factory):
    made = _App(tmp_path_factory.mktemp("market-empty-cache"))
    yield made
    made.close()


@pytest.fixture(scope="module")
def synced_app(tmp_path_factory):
    """An app synced by the tab's own button (with the daily NAV, as the button syncs), once a module: what the
    view showed before and the progress it reported meanwhile are kept (`before`, `steps`) for the sync's test."""
    made = _App(tmp_path_factory.mktemp("market-view-cache"))
    made.cache = made.client.settings.cache_dir
    view = made.view()
    made.before = {"has_store": made.app.market.has_store, "button": view.sync_button.visible}
    made.steps = []
    made.app.market.param.watch(lambda e: made.steps.append(e.new), "sync_progress")
    run(view.sync())
    assert made.app.market.has_store
    # what the tab showed right after the sync (other tests of the module then change its filters)
    made.after = {"results": view.results.value.copy(), "status": view.status.object,
                  "most_held": view.most_held.value.copy(),
                  "charts": {pane.name: pane.object for pane in view.__panel__().select(
                      lambda o: getattr(o, "name", "") in ("market-spectrum", "market-fees"))},
                  "masters": view.siblings.family.masters.copy()}
    yield made
    made.close()


@pytest.fixture(scope="module")
def demo_app(synced_app):
    return synced_app.app


@pytest.fixture(scope="module")
def market_view(synced_app):
    return synced_app.view()


def test_the_market_tab_is_a_tab_with_a_link(demo_app):
    assert "market" in TABS and TAB_TITLES["market"] == "Market"
    assert [item["label"] if isinstance(item, dict) else item for item in demo_app.tabs.items][TABS.index("market")] == "Market"
    demo_app.state.apply_url({"tab": "market"})
    assert demo_app.state.tab == "market" and "tab=market" in url_search(demo_app.state)


def test_without_a_snapshot_the_tab_says_how_to_make_one(empty_app):
    market_view = empty_app.view()
    run(market_view.refresh())
    market = market_view.market
    assert not market.has_store
    empty = market_view.__panel__().select(lambda o: getattr(o, "name", "") == "market-empty")[0]
    # on the demo data the command says so: without --demo a sync where a key is set fills the real market's store
    assert "<code>sec-dashboard --demo market sync</code>" in empty.object and "button below" in empty.object
    assert market_view.sync_button.visible and not market_view.sync_button.disabled
    assert market_view.results.value.empty


def test_the_demo_sync_fills_the_screener(synced_app):
    """The empty state's button made the snapshot (in the fixture, once a module: it keeps a year of daily NAV)."""
    market, steps, after = synced_app.app.market, synced_app.steps, synced_app.after
    assert synced_app.before == {"has_store": False, "button": True}
    assert market.has_store and not market.syncing and len(steps) > 2
    assert not synced_app.view().sync_button.visible
    assert "Market snapshot from" in after["status"] and f"{market.fund_count:,} funds" in after["status"]
    with queries_reader(market) as store:
        expected = screen_frame(queries.screen(store, sort="proj_id"))
    assert len(after["results"]) == len(expected) == market.fund_count > 0
    assert after["results"]["proj_id"].tolist() == expected["proj_id"].tolist()
    assert set(after["charts"]) == {"market-spectrum", "market-fees"}
    for name, chart in after["charts"].items():
        assert not isinstance(chart, hv.Text), name  # drawn, not an empty state
    assert not after["most_held"].empty
    # with the daily NAV, as `market sync` keeps it by default: the screener's NAV figures are filled
    assert market.nav_funds > 0 and after["results"]["nav_return_1y"].notna().any()


def test_the_market_tab_is_put_in_the_page_with_its_rows(synced_app):
    """A served page's Market tab is read, then shown: its tables reach the browser with their rows, not empty and
    filled a moment later (a change sent while the browser still draws a table is lost: docs/upstream.md)."""
    made = _App(synced_app.cache)  # another session on the same snapshot; its market not read yet
    try:
        app = made.app
        assert app.page_ready and app.market.results.empty
        shown = []

        def put_in_page(event):
            view = app.views.get("market")
            if view is not None and event.new and event.new[0] is view.__panel__():
                shown.append((len(view.results.value), len(view.most_held.value)))

        app.content.param.watch(put_in_page, "objects")
        app.state.tab = "market"
        assert shown and shown[0][0] == app.market.fund_count > 0 and shown[0][1] > 0, shown
        assert not app.content.loading
    finally:
        made.close()


class queries_reader:
    """The model's own reader (the snapshot it shows)."""

    def __init__(self, market):
        self.market = market

    def __enter__(self):
        return self.market.reader()

    def __exit__(self, *exc):
        return False


def test_filters_change_the_results(market_view):
    market = market_view.market
    market.param.update(status="RG", max_fee=1.5)
    run(market.screen())
    table = market_view.results.value
    assert 0 < len(table) < market.fund_count
    assert table["total_fee_actual"].le(1.5).all()
    assert table["fund_status"].str.startswith("registered").all()  # the status in words
    assert "match the filters" in market_view.status.object
    market.param.update(status="", max_fee=None)
    run(market.screen())
    assert len(market_view.results.value) == market.fund_count


def test_the_number_boxes_set_the_number_filters(market_view):
    market = market_view.market
    market_view.max_fee_text = "1.5 %"
    assert market.max_fee == 1.5
    market_view.max_fee_text = "cheap"  # not a number: a warning, the filter stays
    assert market.max_fee == 1.5
    market_view.max_fee_text = "1,5"  # a comma separates thousands, as everywhere: refused, not read as 1.5
    assert market.max_fee == 1.5
    market_view.max_fee_text = "1,002.5"
    assert market.max_fee == 1002.5
    market.max_fee = None
    assert market_view.max_fee_text == ""
    market.min_return_1y = -2.0
    assert market_view.min_return_text == "-2"
    market_view.min_return_text = ""
    assert market.min_return_1y is None
    run(market.screen())
    assert len(market_view.results.value) == market.fund_count


def test_ticked_funds_go_to_the_basket_and_the_csv_holds_every_result(demo_app, market_view):
    state = demo_app.state
    state.basket.clear()
    market_view.results.selection = [0, 2]
    chosen = market_view.chosen()
    assert len(chosen) == 2
    run(market_view.add_chosen_to_basket())
    assert state.basket.proj_ids == chosen and market_view.results.selection == []
    assert all(state.basket.funds.get(p) for p in chosen)  # named from the snapshot, no search needed
    raw = market_view.results_csv().getvalue()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with a byte-order mark: Excel opens the Thai names intact
    csv = raw.decode("utf-8-sig")
    header = csv.splitlines()[0]
    assert "proj_id" not in header and "risk_spectrum" not in header  # titles, not field names
    assert len(csv.splitlines()) == len(market_view.market.results) + 1
    results = market_view.market.results
    thai = next(n for n in results["proj_name_th"] if isinstance(n, str) and n.strip())
    assert thai in csv  # Thai text survives the round trip
    assert "registered (RG)" in csv  # the status in words beside its code


def test_who_holds_the_most_held_security(market_view):
    security = str(market_view.most_held.value.iloc[0]["security"])
    market_view.most_held.selection = [0]
    run(market_view.market.find_holders(security))
    assert len(market_view.holders.value) == int(market_view.most_held.value.iloc[0]["funds"])
    assert security in market_view.holders_note.object


def test_fee_position_of_the_selected_fund(demo_app, market_view):
    fund = demo_app.state.fund
    run(market_view.refresh())
    position = market_view.market.fee_position
    assert position is not None and position["proj_id"] == fund
    note = market_view.fee_note.object
    assert "percentile" in note and "never prospectus ceilings" in note


def test_table_text_is_never_html(market_view):
    frame = results_frame(market_view.market.results)
    for col, kind in market_view.results.formatters.items():
        if col in frame.columns and not frame[col].dtype.kind == "f":
            assert kind == "plaintext", col


def test_holdings_tab_shows_overlap_with_the_basket_and_who_holds_a_line(demo_app, market_view):
    state = demo_app.state
    state.tab = "holdings"
    view = demo_app.views["holdings"]
    others = [p for p in state.basket.proj_ids if p != state.fund]
    if not others:
        state.add_to_basket(market_view.market.results["proj_id"].iloc[1])
    run(view.refresh())
    assert not view.market_hint.visible
    assert len(view.overlap.value) == len([p for p in state.basket.proj_ids if p != state.fund]) > 0
    assert "overlap" in view.overlap_note.object or "snapshot" in view.overlap_note.object
    state.tab = "market"


def test_holdings_tab_without_a_snapshot_gives_a_one_line_hint(tmp_path):
    client = open_client(ApiSettings.from_env(demo=True, cache_dir=tmp_path, environ={}), today=lambda: TODAY)
    try:
        app = create_dashboard(client=client)
        app.state.tab = "holdings"
        view = app.views["holdings"]
        run(view.refresh())
        assert view.market_hint.visible and "market sync" in view.market_hint.object
        assert not view.overlap.value.size
        app.market.close()
    finally:
        client.close()


def test_the_status_follows_the_model_by_binding_even_while_hidden(market_view):
    market = market_view.market
    market_view.shown = False  # a hidden tab's tables wait; its notes follow the model
    try:
        market.error = "the snapshot could not be read"
        assert "the snapshot could not be read" in market_view.status.object
        assert "<div class=\"sd-stat\">Market snapshot from" in market_view.status.object  # its line stays markup
    finally:
        market.error = ""
        market_view.shown = True
    assert "could not be read" not in market_view.status.object


def test_the_company_filter_picks_a_company_by_its_name(market_view):
    """The company filter lists the snapshot's companies by name; picking one screens its funds (issue 30)."""
    market, select = market_view.market, market_view.company_select
    assert market.companies and select.options["Any company"] == ""
    name, uid = next((n, u) for n, u in select.options.items() if u)
    assert not name.startswith("C0") and market.companies[uid] in name  # a name, not an identifier
    select.value = uid
    assert market.company == uid
    run(market.screen())
    names = set(market_view.results.value["company_name_en"])
    assert len(market_view.results.value) > 0 and names == {market.companies[uid]}
    market.company = ""  # a link or a reset: the box follows
    run(market.screen())
    assert select.value == ""


def test_the_holdings_tab_is_put_in_the_page_with_its_overlap(synced_app):
    """The Holdings tab's overlap with the basket is read from the local snapshot before the tab is shown, so
    its table reaches the browser with its rows (as the Market tab's: docs/upstream.md #6)."""
    made = _App(synced_app.cache)
    try:
        app, state = made.app, made.app.state
        # the snapshot read (by the Market tab, say) before the Holdings tab is first opened: what it opens to
        # is the overlap, read when it is shown (outside a server, a model's async watchers would not run)
        run(app.market.refresh())
        if not [p for p in state.basket.proj_ids if p != state.fund]:
            state.add_to_basket(app.market.results["proj_id"].iloc[1])
        others = [p for p in state.basket.proj_ids if p != state.fund]
        shown = []

        def put_in_page(event):
            view = app.views.get("holdings")
            if view is not None and event.new and event.new[0] is view.__panel__():
                shown.append(len(view.overlap.value))

        app.content.param.watch(put_in_page, "objects")
        state.tab = "holdings"
        assert shown and shown[0] == len(others) > 0, shown
        assert not app.content.loading
    finally:
        made.close()


def test_the_sync_refreshes_the_masters_and_their_feeders(synced_app):
    """The siblings section is read again after the tab's sync, as every other section (it stayed empty)."""
    masters = synced_app.after["masters"]
    assert len(masters) > 0 and masters["feeders"].max() >= 2, masters  # the demo's masters fed by several funds

"""DashboardState: URL state, first-load defaults, fund and basket loading, errors per area."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from dashboard.errors import SecApiError
from dashboard.models.dashboard_state import TABS, DashboardState
from dashboard.models.url_codec import MARKET_URL, NAV_URL, URL_PARAMETERS
from dashboard.models.source import run




def test_state_model_does_not_import_panel():
    code = "import sys, dashboard.models.dashboard_state; print('panel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_parameter_is_documented():
    from dashboard.models.basket import FundBasket
    from dashboard.models.holdings import HoldingsByQuarter

    for cls in (DashboardState, FundBasket, HoldingsByQuarter):
        for name, p in cls.param.objects().items():
            if name != "name":
                assert p.doc, f"{cls.__name__}.{name} has no doc"


def test_basket_and_url_form_stay_in_step():
    state = DashboardState()
    state.basket.add("M0001_2564")
    state.basket.add("M0002_2565")
    assert state.basket_ids == "M0001_2564,M0002_2565"
    state.basket_ids = "M0003_2566, M0001_2564,<img src=x>"
    assert state.basket.proj_ids == ["M0003_2566", "M0001_2564"]
    assert state.basket_ids == "M0003_2566,M0001_2564"  # the malformed id leaves the URL too
    state.remove_from_basket("M0003_2566")
    assert state.basket_ids == "M0001_2564"


EMPTY_URL = {"tab": "explorer", "fund": "", "basket": "", "q": "", "theme": "", "person": "", "case_of": "", "case": "",
             **{name: "" for name in MARKET_URL.values()},  # the screener's filters: none
             **{name: "" for name in NAV_URL.values()},  # the NAV tab's class and range: the defaults
             "amounts": ""}  # the basket's amounts: only when opted in


def test_apply_url_ignores_bad_values():
    state = DashboardState()
    ignored = state.apply_url({"tab": [b"fees"], "fund": "M0001_2564", "basket": "M0001_2564,M0002_2565", "q": "Demo",
                               "x": "1"})
    assert state.url_state() == {**EMPTY_URL, "tab": "fees", "fund": "M0001_2564", "basket": "M0001_2564,M0002_2565",
                                 "q": "Demo"}
    assert ignored == ["x"] and state.ignored_url == ["x"]  # an unknown parameter is named too
    ignored = state.apply_url({"tab": "<script>", "fund": "javascript:alert(1)"})
    assert state.tab == "fees" and state.fund == "M0001_2564"
    assert ignored == ["tab=<script>", "fund=javascript:alert(1)"]
    assert set(URL_PARAMETERS.values()) == set(EMPTY_URL)
    assert state.param.tab.objects == list(TABS)


def test_theme_and_licensee_inputs_are_kept_in_the_url():
    state = DashboardState()
    assert state.url_state() == EMPTY_URL
    ignored = state.apply_url({"tab": "licensee", "theme": "dark", "person": "p0000010008", "case_of": "P0000010004",
                               "case": "EN-2565-001"})
    assert ignored == []
    assert (state.theme, state.licence.person_id) == ("dark", "P0000010008")  # identifiers are upper case
    assert (state.licence.enforcement_id, state.licence.case_id) == ("P0000010004", "EN-2565-001")
    assert state.url_state() == {**EMPTY_URL, "tab": "licensee", "theme": "dark", "person": "P0000010008",
                                 "case_of": "P0000010004", "case": "EN-2565-001"}
    pushed = []
    state.url_watch(lambda *events: pushed.extend(e.name for e in events))
    state.licence.person_id = "P0000010009"  # a lookup in the tab changes the model: the URL follows
    state.theme = "light"
    assert pushed == ["person_id", "theme"]


def test_invalid_url_values_fall_back_and_are_named():
    state = DashboardState()
    state.apply_url({"theme": "dark", "person": "P0000010008", "tab": "risk"})
    ignored = state.apply_url({"theme": "purple", "person": "../etc/passwd", "case": "A B", "tab": "nope",
                               "basket": "M0001_2564,bad id,M0002_2565", "q": "x" * 500, "zz": "1\x1b[2J"})
    # every bad value leaves its part as it was; the good ids of the basket are kept
    assert (state.theme, state.licence.person_id, state.licence.case_id, state.tab) == ("dark", "P0000010008", "", "risk")
    assert state.basket.proj_ids == ["M0001_2564", "M0002_2565"] and state.query == ""
    assert ignored[0] == "zz"
    assert set(ignored[1:]) == {"theme=purple", "person=../etc/passwd", "case=A B", "tab=nope", "basket: bad, id",
                                f"q={'x' * 39}…"}
    assert all(c.isprintable() for text in ignored for c in text)
    assert state.apply_url({}) == [] and state.ignored_url == []


def test_state_from_url_at_construction():
    state = DashboardState(basket_ids="M0001_2564,M0002_2565", fund="M0001_2564")
    assert state.basket.proj_ids == ["M0001_2564", "M0002_2565"]


def test_first_visit_runs_the_default_search_and_fills_everything(demo_client, dataset):
    state = DashboardState(client=demo_client)
    errors = run(state.start())
    assert errors == []
    assert state.query == "Demo" and len(state.search.results) == len(dataset.funds)
    first_rg = next(f for f in state.search.records if f["fund_status"] == "RG")  # first registered fund listed
    assert state.fund == first_rg["proj_id"]
    assert state.factsheet.proj_id == state.fund and state.factsheet.fund["proj_abbr_name"] == first_rg["proj_abbr_name"]
    assert len(state.basket.proj_ids) == 4 and state.basket.loaded and not state.basket.loading
    assert state.holdings.period == state.factsheet.latest_period
    assert state.basket_ids.count(",") == 3
    assert run(state.start()) == []  # only once


def test_a_shared_link_reopens_the_same_view(demo_client, dataset):
    funds = [f for f in dataset.funds if f["fund_status"] == "RG"][5:8]
    state = DashboardState(client=demo_client)
    state.apply_url({"tab": "holdings", "fund": funds[0]["proj_id"], "basket": ",".join(f["proj_id"] for f in funds[1:])})
    run(state.start())
    assert state.tab == "holdings" and state.query == ""  # no default search over the link's state
    assert state.factsheet.proj_id == funds[0]["proj_id"]
    assert state.basket.proj_ids == [f["proj_id"] for f in funds[1:]]
    assert set(state.basket.loaded) == set(state.basket.proj_ids)
    # names come back too, single-class funds included (through the company's fund list, E2)
    assert [state.basket.label(f["proj_id"]) for f in funds[1:]] == [f["proj_abbr_name"] for f in funds[1:]]


def test_selecting_and_the_basket(demo_client, dataset):
    state = DashboardState(client=demo_client)
    run(state.search_funds("Demo"))
    target = dataset.funds[12]
    state.select_fund(target["proj_id"])
    run(state.load_fund())
    assert state.factsheet.fund is not None and state.factsheet.fund["proj_id"] == target["proj_id"]
    assert not state.in_basket()
    state.add_to_basket()
    assert state.in_basket() and state.basket.funds[target["proj_id"]] == state.search.fund_record(target["proj_id"])
    run(state.load_basket())
    assert state.basket.loaded == [target["proj_id"]]
    state.select_fund("not an id")  # ignored
    assert state.fund == target["proj_id"]


def test_a_later_selection_wins(demo_client, dataset):
    state = DashboardState(client=demo_client)
    a, b = dataset.funds[0]["proj_id"], dataset.funds[1]["proj_id"]

    async def main():
        state.fund = a
        first = asyncio.ensure_future(state.load_fund())
        await asyncio.sleep(0)
        state.fund = b
        second = asyncio.ensure_future(state.load_fund())
        await asyncio.gather(first, second)

    run(main())
    assert state.factsheet.proj_id == b


def test_company_funds_and_company_basket(demo_client, dataset):
    state = DashboardState(client=demo_client)
    company = dataset.funds[0]["unique_id"]
    state.fund = dataset.funds[0]["proj_id"]
    run(state.load_fund())
    run(state.company_funds())
    assert set(state.search.results["unique_id"]) == {company}
    ids = run(state.fill_basket_from_company())
    assert ids and state.basket.company_id == company and set(state.basket.loaded) == set(ids)


def test_errors_are_recorded_per_area_and_cleared_on_success(make_client, dataset, simulator):
    client = make_client(use_cache=False, max_attempts=1)
    state = DashboardState(client=client)
    simulator.app.inject("503", times=2)
    with pytest.raises(SecApiError):
        run(state.search_funds("Demo"))
    assert "503" in state.search_error
    assert run(state.search_funds("Demo")) and state.search_error == ""

    state.fund = dataset.funds[0]["proj_id"]
    simulator.app.inject("503", times=200)
    with pytest.raises(SecApiError):
        run(state.load_fund())
    assert state.fund_error
    simulator.app.clear_faults()
    run(state.load_fund())
    assert state.fund_error == "" and state.factsheet.proj_id == dataset.funds[0]["proj_id"]


def test_start_collects_errors_instead_of_raising(make_client, simulator):
    state = DashboardState(client=make_client(use_cache=False, max_attempts=1))
    simulator.app.inject("503", times=500)
    errors = run(state.start())
    assert errors and state.search_error and state.started and state.load_failed()
    simulator.app.clear_faults()
    assert run(state.search_funds("Demo"))  # works again afterwards
    assert not state.load_failed()


def test_as_of_and_report_request(demo_client, dataset):
    state = DashboardState(client=demo_client)
    run(state.start())
    assert not state.load_failed()
    as_of = state.as_of()
    assert set(as_of) == {"fund record updated", "performance as of", "holdings as of"}
    assert state.report_request() == {"kind": "fund", "proj_ids": [state.fund], "funds": {state.fund: state.factsheet.fund}}
    assert state.report_filename() == f"fund-{state.fund}.html"
    state.tab = "fees"
    request = state.report_request()
    assert request["proj_ids"] == state.basket.proj_ids and state.report_filename() == "comparison-4-funds.html"
    state.tab = "licensee"
    assert state.report_request()["kind"] is None
    state.licence.person_id = "P0000010004"
    assert state.report_request() == {"kind": "licensee", "unique_id": "P0000010004", "case_ids": []}


def test_a_basket_link_names_its_funds_before_and_after_its_load(demo_client, dataset):
    single = [f for f in dataset.funds if not dataset.classes.get(f["proj_id"])][:2]
    ids = [f["proj_id"] for f in single]
    names = [f["proj_abbr_name"] for f in single]
    state = DashboardState(client=demo_client)
    state.apply_url({"basket": ",".join(ids)})
    assert [state.basket.label(p) for p in ids] == ids  # nothing seen yet
    run(state.start())
    if demo_client.async_client.layout_name == "successor":
        assert [state.basket.label(p) for p in ids] == names  # the basket's own load found them by id
    demo_client.fetch("E2", unique_id=single[0]["unique_id"])
    demo_client.fetch("E2", unique_id=single[1]["unique_id"])
    again = DashboardState(client=demo_client)  # a reload of the same link in another session
    again.apply_url({"basket": ",".join(ids)})
    assert [again.basket.label(p) for p in ids] == names  # at once, before any load
    assert again.selected_record is None and again.fund_record(ids[0])["proj_abbr_name"] == names[0]

"""The client on the current service's layout: detection, pagination, retired parts, keys, shapes."""

from __future__ import annotations

import logging

import pytest

from dashboard.api.sending import RETIRED_LEGACY_MESSAGE
from dashboard.errors import AuthenticationError, BadInputError, MalformedResponseError, NotFoundError
from dashboard.api.periods import valid_periods
from dashboard.models.factsheet import FundFactsheet
from dashboard.models.source import run
from dashboard.records import clean_text
from tests.conftest import KEY, TODAY

OTHER_KEY = "0123456789abcdef0123456789abcdef"


def _successor_paths(app) -> list[str]:
    return [path for _method, path in app.requests if path.startswith(("/v2/", "/v1/"))]


def _big_quarter(dataset) -> tuple[str, str, int]:
    """(proj_id, period, rows) of the largest demo holdings quarter that the rules still list."""
    periods = set(valid_periods(TODAY))
    best = max(((pid, period, len(rows)) for pid, by_period in dataset.holdings.items()
                for period, rows in by_period.items() if period in periods), key=lambda t: t[2])
    assert best[2] > 100, "the demo data set needs a quarter of more than 100 lines"
    return best


def test_auto_detects_the_successor_once_and_remembers_it(simulator, make_client, tmp_path):
    simulator.app.layout = "successor"
    client = make_client(layout="auto", cache_dir=tmp_path / "shared")
    assert client.layout() == "successor"
    probes = [p for p in simulator.app.requests if p[1] == "/v2/fund/general-info/amcs"]
    assert len(probes) == 1
    assert client.fetch("E1", name="a")  # answers through the successor paths
    again = make_client(layout="auto", cache_dir=tmp_path / "shared")
    simulator.app.reset_counters()
    assert again.layout() == "successor"
    assert simulator.app.request_count == 0  # remembered in the cache for a day


def test_auto_falls_back_to_legacy_where_the_successor_paths_are_missing(simulator, make_client):
    simulator.app.layout = "legacy"
    client = make_client(layout="auto")
    assert client.layout() == "legacy"
    assert client.fetch("E1", name="a")
    assert not _successor_paths(simulator.app)[1:]  # only the probe asked a successor path


def test_legacy_paths_on_the_current_service_say_so_in_one_line(simulator, make_client):
    simulator.app.layout = "successor"
    client = make_client(layout="legacy")
    with pytest.raises(NotFoundError) as err:
        client.fetch("E1", name="a")
    assert RETIRED_LEGACY_MESSAGE in str(err.value) and "\n" not in str(err.value)


def test_a_quarter_of_more_than_a_page_arrives_whole(simulator, make_client, dataset):
    simulator.app.layout = "successor"
    proj_id, period, n = _big_quarter(dataset)
    rows = make_client(layout="successor").fetch("E6", proj_id=proj_id, period=period)
    assert len(rows) == n
    expected = sorted(str(clean_text(r.get("isin_code"))) for r in dataset.holdings[proj_id][period])
    assert sorted(str(r.get("isin_code")) for r in rows) == expected
    pages = [q for q in simulator.app.queries if q[1] == "/v2/fund/outstanding/portfolio"]
    assert len(pages) == -(-n // 100) and "next_cursor=" in pages[-1][2]
    assert all("page_size=100" in q[2] for q in pages)


def test_a_bound_on_pages_stops_an_endless_answer(simulator, make_client, dataset):
    simulator.app.layout = "successor"
    proj_id, period, _ = _big_quarter(dataset)
    with pytest.raises(MalformedResponseError, match="ran past 1 pages"):
        make_client(layout="successor", max_pages=1).fetch("E6", proj_id=proj_id, period=period)


@pytest.mark.parametrize("end", [False, True])
def test_the_last_page_may_end_with_an_empty_or_a_null_cursor(simulator, make_client, dataset, end):
    simulator.app.layout = "successor"
    simulator.app.end_cursor_null = end
    try:
        proj_id, period, n = _big_quarter(dataset)
        assert len(make_client(layout="successor").fetch("E6", proj_id=proj_id, period=period)) == n
    finally:
        simulator.app.end_cursor_null = False


def test_the_retired_estimate_is_not_asked_and_is_marked_not_published(simulator, make_client, dataset):
    simulator.app.layout = "successor"
    client = make_client(layout="successor")
    proj_id = next(iter(dataset.return_estimate))
    result = client.request("E9", proj_id=proj_id)
    assert result.data is None and "total_estimated_return" in result.not_published
    assert simulator.app.request_count == 0
    sheet = run(FundFactsheet(client=client).load(proj_id))
    assert "return_estimate" in sheet.unpublished and sheet.return_estimate is None
    assert "fund_suitable_desc" in sheet.unpublished.get("suitability", [])
    assert not sheet.errors


def test_successor_only_lookups_are_refused_on_the_legacy_layout(simulator, make_client):
    with pytest.raises(BadInputError, match="only by the current service"):
        make_client(layout="legacy").fetch("S6")
    assert simulator.app.request_count == 0


@pytest.mark.parametrize("shape", ["envelope", "items", "bare"])
def test_licence_answers_in_every_shape_give_the_same_records(simulator, make_client, dataset, shape):
    simulator.app.layout = "successor"
    (uid, case), _ = next(iter(dataset.enforcement.items()))
    person = next(iter(dataset.approvals))
    simulator.app.licence_shape = shape
    try:
        client = make_client(layout="successor", use_cache=False)
        approvals = client.fetch("E17", unique_id=person)
        enforcement = client.fetch("E19", unique_id=uid, case_id=case)
    finally:
        simulator.app.licence_shape = "envelope"
    assert len(approvals) == len(dataset.approvals[person])
    assert sorted(a["lic_code"] for a in approvals) == sorted(a["lic_code"] for a in dataset.approvals[person])
    assert all(a.get("lic_name_en") for a in approvals)
    assert enforcement["enforcement_details"] == dataset.enforcement[(uid, case)]["enforcement_details"].strip()


def test_identical_successor_calls_in_flight_are_sent_once(simulator, make_client, dataset):
    simulator.app.layout = "successor"
    proj_id = next(p for p, classes in dataset.classes.items() if classes)
    client = make_client(layout="successor")
    classes, project_type = client.fetch_many([("E4", {"proj_id": proj_id}), ("E7", {"proj_id": proj_id})],
                                              return_exceptions=False)
    assert classes.data and project_type.data
    profile_calls = [q for q in simulator.app.queries if q[1] == "/v2/fund/general-info/profiles"]
    assert len(profile_calls) == 1


def test_the_secondary_key_is_tried_once_when_the_primary_is_rejected(simulator, make_client, caplog):
    simulator.app.layout = "successor"
    simulator.app.valid_keys = {OTHER_KEY}
    try:
        client = make_client(layout="successor", api_key=KEY, secondary_key=OTHER_KEY)
        with caplog.at_level(logging.DEBUG):
            assert client.fetch("E1", name="a")
            before = simulator.app.request_count
            client.fetch("E1", name="b")
        # After the first rejection the secondary key is used straight away.
        assert simulator.app.request_count - before == 1
        with pytest.raises(AuthenticationError):
            make_client(layout="successor", api_key=KEY).fetch("E1", name="c")
    finally:
        simulator.app.valid_keys = {KEY}
    assert OTHER_KEY not in caplog.text and KEY not in caplog.text


def test_a_rejected_secondary_key_is_a_clear_error_without_either_key(simulator, make_client):
    simulator.app.layout = "successor"
    with pytest.raises(AuthenticationError) as err:
        make_client(layout="successor", api_key=OTHER_KEY, secondary_key=OTHER_KEY[::-1]).fetch("E1", name="a")
    assert OTHER_KEY not in str(err.value) and OTHER_KEY[::-1] not in str(err.value)


def test_no_data_in_every_form_is_an_empty_answer(simulator, make_client, dataset):
    simulator.app.layout = "successor"
    client = make_client(layout="successor")
    for proj_id in [p["proj_id"] for p in dataset.funds][:30]:
        for eid in ("E5", "E8", "E11", "E13", "E14"):
            client.fetch(eid, proj_id=proj_id)  # 204, items: [] and empty bodies all read as no data
    assert client.fetch("E4", proj_id="M9999_2599") == []
    assert client.fetch("E8", proj_id="M9999_2599") is None

"""Identifiers as people type them (Thai and full-width digits), base URLs with a bad port, and
funds found again by id after any answer carried them (shared links)."""

from __future__ import annotations

import pytest

from dashboard.api.client import AsyncSecClient
from dashboard.api.endpoints import ascii_digits, validate_proj_id
from dashboard.api.periods import check_period, valid_periods
from dashboard.config import ApiSettings, check_base_url
from dashboard.models import FundFactsheet
from dashboard.models.source import run
from tests.conftest import KEY, TODAY

THAI = str.maketrans("0123456789", "๐๑๒๓๔๕๖๗๘๙")
FULL_WIDTH = str.maketrans("0123456789_M", "０１２３４５６７８９＿Ｍ")


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999", "http://127.0.0.1:abc", "https://api.sec.or.th:0",
                                 "http://[::1]:70000"])
def test_a_base_url_with_an_invalid_port_is_refused_in_one_line(url):
    with pytest.raises(ValueError, match="port") as err:
        check_base_url(url)
    assert "\n" not in str(err.value) and "1 to 65535" in str(err.value)
    with pytest.raises(ValueError, match="port"):
        ApiSettings.from_env(base_url=url, api_key=KEY, environ={})


def test_a_client_built_on_settings_with_a_bad_port_sends_nothing(simulator):
    settings = ApiSettings(base_url="http://127.0.0.1:99999", use_cache=False)
    with pytest.raises(ValueError, match="port"):
        AsyncSecClient(settings)
    assert simulator.app.request_count == 0


def test_good_ports_pass():
    assert check_base_url("http://127.0.0.1:8765") == "http://127.0.0.1:8765"
    assert check_base_url("https://api.sec.or.th") == "https://api.sec.or.th"


@pytest.mark.parametrize("table", [THAI, FULL_WIDTH], ids=["thai", "full-width"])
def test_a_valid_period_in_other_digits_is_that_period(table):
    for period in valid_periods(TODAY):
        assert check_period(period.translate(table), TODAY) == period  # never "not published yet"


def test_identifiers_in_other_digits_become_ascii():
    assert ascii_digits("M๐๑๒๓_๒๕๖๔") == "M0123_2564"
    assert validate_proj_id("Ｍ０１２３＿２５６４") == "M0123_2564"
    assert ascii_digits("ABC") == "ABC" and ascii_digits("ก") == "ก"  # letters of other scripts stay


@pytest.mark.parametrize("table", [THAI, FULL_WIDTH], ids=["thai", "full-width"])
def test_requests_in_other_digits_are_sent_and_cached_as_ascii(table, make_client, simulator, dataset):
    proj_id = next(p for p in dataset.holdings if dataset.holdings[p])
    period = valid_periods(TODAY)[0]
    client = make_client()
    typed = client.fetch("E6", proj_id=proj_id.translate(table), period=period.translate(table))
    assert typed
    method, path = simulator.app.requests[-1]
    assert path.endswith(f"/{proj_id}/FundPort/{period}")
    assert client.fetch("E6", proj_id=proj_id, period=period) == typed
    assert simulator.app.request_count == 1  # the same request: answered from the cache


# ---- funds found again by id ---------------------------------------------------------------------


def single_class_funds(dataset) -> list[dict]:
    return [f for f in dataset.funds if not dataset.classes.get(f["proj_id"])]


def test_a_fund_seen_in_a_company_list_is_known_by_id(demo_client, dataset):
    fund = single_class_funds(dataset)[0]
    assert demo_client.known_fund(fund["proj_id"]) is None  # nothing seen yet, and nothing asked
    listed = demo_client.fetch("E2", unique_id=fund["unique_id"])
    known = demo_client.known_fund(fund["proj_id"])
    assert known == next(r for r in listed if r["proj_id"] == fund["proj_id"])
    assert known["proj_name_en"] == fund["proj_name_en"]
    assert demo_client.known_fund(fund["proj_id"].translate(THAI)) == known
    assert demo_client.known_fund("not an id") is None


def test_a_shared_link_to_a_single_class_fund_shows_its_names(demo_client, dataset):
    """E4 answers no data for a single-class fund, so the abbreviation lookup cannot find it; the
    index of funds seen before does (on the legacy layout the search does not match ids)."""
    fund = single_class_funds(dataset)[0]
    demo_client.fetch("E1", name=fund["proj_abbr_name"])
    sheet = run(FundFactsheet(client=demo_client).load(fund["proj_id"]))
    assert sheet.classes.empty
    assert sheet.fund is not None and sheet.fund["proj_name_en"] == fund["proj_name_en"]
    assert sheet.fund["proj_name_th"] == fund["proj_name_th"] and sheet.fund["fund_status"]


def test_the_index_outlives_the_process_in_the_disk_cache(make_client, simulator, dataset, tmp_path):
    fund = single_class_funds(dataset)[1]
    directory = tmp_path / "shared-cache"
    first = make_client(cache_dir=directory, layout="legacy")
    first.fetch("E2", unique_id=fund["unique_id"])
    first.close()
    simulator.app.reset_counters()
    later = make_client(cache_dir=directory, layout="legacy")  # the next CLI run: `fund show ID`
    known = later.known_fund(fund["proj_id"])
    assert known is not None and known["proj_name_en"] == fund["proj_name_en"]
    assert simulator.app.request_count == 0  # known without asking
    sheet = run(FundFactsheet(client=later).load(fund["proj_id"]))
    assert sheet.fund["proj_name_th"] == fund["proj_name_th"]


def test_without_an_earlier_answer_a_single_class_fund_on_the_legacy_layout_has_no_record(make_client, dataset):
    """What the index mends: the same load with nothing seen before finds no record there."""
    fund = single_class_funds(dataset)[2]
    sheet = run(FundFactsheet(client=make_client(layout="legacy")).load(fund["proj_id"]))
    assert sheet.fund is None

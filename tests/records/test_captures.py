"""The live service's own answers (../shared/real-captures/successor-v2), byte for byte, through the client
and the records layer: every field of every row read with the right type and value.

The captures sit beside the repository (a read-only copy in CI). Missing, these tests fail in CI
(CI=true) and are skipped elsewhere with the reason.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import re

import httpx
import pytest

from dashboard.api.client import AsyncSecClient
from dashboard.api.wire import unwrap_envelope
from dashboard.config import ApiSettings
from dashboard.records import field_type, normalise_payload
from dashboard.records.fields import BASE64, DATE, DATETIME, INTEGER, NUMBER
from dashboard.records.successor import allocation_records, holding_records, successor_only_records, suitability_record
from tests.shared_files import CAPTURES, require

FILES = ("amcs.json", "profiles.json", "daily-nav-recent.json", "daily-nav-range.json", "asset-allocation.json",
         "dividend-history.json", "risk-spectrum.json", "top5-holdings.json", "quarterly-portfolio.json",
         "monthly-portfolio-asset.json")
# capture -> the record kind each of its rows is read as
ROW_KIND = {"amcs.json": "amc", "daily-nav-recent.json": "nav", "daily-nav-range.json": "nav",
            "asset-allocation.json": "allocation", "dividend-history.json": "dividend", "risk-spectrum.json": "suitability",
            "top5-holdings.json": "top_holding", "quarterly-portfolio.json": "holding",
            "monthly-portfolio-asset.json": "asset_type"}
TODAY = dt.date(2023, 10, 1)  # 202306, the captured quarter, is then offered


def manifest() -> dict[str, dict]:
    data = json.loads(require(CAPTURES / "MANIFEST.json").read_text(encoding="utf-8"))
    return {entry["file"]: entry for entry in data["captures"]}


def capture(name: str) -> tuple[bytes, dict]:
    entry = manifest()[name]
    body = require(CAPTURES / name).read_bytes()
    assert hashlib.sha256(body).hexdigest() == entry["sha256"], f"{name} is not the bytes captured"
    return body, entry


def test_the_manifest_lists_the_ten_captures_and_each_is_the_bytes_captured():
    assert sorted(manifest()) == sorted(FILES)
    for name in FILES:
        body, entry = capture(name)
        assert len(body.decode("utf-8")) == entry["chars"]


# ---- the client ------------------------------------------------------------------------------------


def serving(body: bytes, endpoint: str) -> httpx.MockTransport:
    """The captured bytes at the captured endpoint; a request for the next page gets the end of the list."""
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path != endpoint:
            return httpx.Response(404)
        if "next_cursor" in request.url.params:
            return httpx.Response(200, json={"message": "success", "page_size": 100, "next_cursor": None, "items": []})
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json; charset=utf-8"})
    return httpx.MockTransport(handle)


def client_for(body: bytes, endpoint: str) -> AsyncSecClient:
    settings = ApiSettings.from_env(base_url="http://capture.test", use_cache=False, layout="successor", environ={})
    return AsyncSecClient(settings, transport=serving(body, endpoint), cache=None, require_keys=False,
                          today=lambda: TODAY, max_attempts=1)


def through_client(name: str, call):
    body, entry = capture(name)

    async def go():
        async with client_for(body, entry["endpoint"]) as client:
            return await call(client, entry)
    return asyncio.run(go())


@pytest.mark.parametrize("name", FILES)
def test_the_client_reads_every_captured_page_whole(name):
    body, _ = capture(name)
    sent = json.loads(body)
    payload = through_client(name, lambda c, e: c.send_page("S7", e["endpoint"], dict(e["captured_query"])))
    items, cursor = unwrap_envelope(payload, name)
    assert items == sent["items"] and len(items) == 5
    assert cursor == sent["next_cursor"] and cursor


# ---- the records layer, field by field ---------------------------------------------------------------


def iso_datetime(text: str) -> str:
    """What a captured datetime means, written out: fraction to microseconds, "T" between."""
    head, _, fraction = text.replace(" ", "T").partition(".")
    return f"{head}.{fraction[:6].ljust(6, '0')}" if fraction else head


def expected(kind: str, field: str, raw: object) -> object:
    kind_type = field_type(kind, field)
    if raw is None:
        return None
    if kind == "holding" and field == "period":
        assert isinstance(raw, int), (field, raw)  # the service sends a number, 202306
        return str(raw)  # one type for a quarter in every output: the text "YYYYMM" (README)
    if kind_type == NUMBER:
        assert isinstance(raw, (int, float)) and not isinstance(raw, bool), (field, raw)
        return float(raw)
    if kind_type == INTEGER:
        assert isinstance(raw, int), (field, raw)
        return raw
    if kind_type == DATE:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}( 00:00:00\.0000000)?", raw), (field, raw)
        return raw[:10]
    if kind_type == DATETIME:
        return iso_datetime(raw)
    if isinstance(raw, str):
        return raw.strip()
    return raw  # a JSON number or integer of a field the kind does not type: kept as sent


def rows_of(name: str) -> list[dict]:
    body, _ = capture(name)
    return json.loads(body)["items"]


@pytest.mark.parametrize("name", sorted(ROW_KIND))
def test_every_field_of_every_row_is_read_with_its_type_and_value(name):
    kind = ROW_KIND[name]
    items = rows_of(name)
    if kind == "holding":
        records = normalise_payload(kind, holding_records(items), list_expected=True)
        records.sort(key=lambda r: (r["issue_code"] or ""))
        items = sorted(items, key=lambda r: r["issue_code"])
    elif kind in ("nav", "dividend", "top_holding", "asset_type"):
        records = successor_only_records(kind, items)
    elif kind in ("suitability", "allocation"):  # one factsheet version per row: each read on its own
        mapper = suitability_record if kind == "suitability" else allocation_records
        records = [normalise_payload(kind, mapper([item]), list_expected=kind == "allocation") for item in items]
        records = [r[0] if isinstance(r, list) else r for r in records]
    else:
        records = normalise_payload(kind, items, list_expected=True)
    assert len(records) == len(items) == 5
    for raw, record in zip(items, records):
        for field, value in raw.items():
            got = record[field]
            want = expected(kind, field, value)
            if field_type(kind, field) == BASE64:
                want = value.strip()  # plain text now (successor-api.md 4.4); read as it is, never garbled
            assert got == want and type(got) is type(want), (name, field, value, got)


def test_amounts_and_prices_keep_every_digit():
    navs = successor_only_records("nav", rows_of("daily-nav-range.json"))
    esg = next(r for r in navs if r["fund_class_name"] == "K-TNZ-ThaiESG")
    assert esg["net_asset"] == 5739025472.45 and esg["last_val"] == 12.5147
    assert esg["sell_swap_price"] == 0.0 and esg["buy_swap_price"] == 0.0  # zero is a value, not missing
    assert [r["fund_class_name"] for r in navs].count("main") >= 1  # the class marker as sent
    assets = successor_only_records("asset_type", rows_of("monthly-portfolio-asset.json"))
    assert [r["period"] for r in assets] == [201101] * 5
    assert sum(r["percent_nav"] for r in assets) == pytest.approx(100.0, abs=0.01)
    dividends = successor_only_records("dividend", rows_of("dividend-history.json"))
    assert dividends[0]["book_close_date"] == "2024-01-25" and dividends[0]["dividend_value"] == 0.15


# ---- the logical calls the product makes, through the client ----------------------------------------


def test_companies_arrive_with_names_trimmed():
    rows = through_client("amcs.json", lambda c, e: c.fetch("S7"))
    raw = rows_of("amcs.json")
    assert [r["unique_id"] for r in rows] == sorted(r["unique_id"] for r in raw)
    by_id = {r["unique_id"]: r for r in rows}
    for item in raw:
        assert by_id[item["unique_id"]]["comp_name_en"] == item["comp_name_en"].strip()
        assert by_id[item["unique_id"]]["last_upd_date"] == iso_datetime(item["last_upd_date"])


PROFILE_TO_FUND = {  # profile field -> the fund record's field it is read into
    "unique_id": "unique_id", "comp_name_th": "comp_name_th", "comp_name_en": "comp_name_en", "proj_id": "proj_id",
    "regis_id": "regis_id", "init_date": "init_date", "regis_date": "regis_date", "cancel_date": "cancel_date",
    "proj_name_th": "proj_name_th", "proj_name_en": "proj_name_en", "proj_abbr_name": "proj_abbr_name",
    "invest_country_flag": "invest_country_flage", "proj_retail_type": "proj_retail_type",
    "proj_term_flag": "proj_term_flag", "proj_term_day": "proj_term_dd", "proj_term_month": "proj_term_mm",
    "proj_term_year": "proj_term_yy", "policy_desc": "policy_desc", "management_style": "management_style",
    "feederfund_master_fund": "feederfund_master_fund", "feederfund_country": "feederfund_country",
    "exchange_rate_protection_policy": "exchange_rate_protection_policy", "last_upd_date": "last_upd_date",
}
STATUS = {"Registered": "RG", "IPO": "SE", "Expired": "EX", "Canceled": "CA", "Liquidated": "LI"}


def test_every_profile_field_reaches_the_fund_record():
    raw = rows_of("profiles.json")
    funds = through_client("profiles.json", lambda c, e: c.fetch("E2", unique_id="C0000000021"))
    assert [f["proj_id"] for f in funds] == [r["proj_id"] for r in raw]
    handled = set(PROFILE_TO_FUND) | {"fund_status", "investment_policy_desc", "fund_class_name", "fund_class_detail",
                                      "fund_class_description", "fund_class_tax_incentive_type", "fund_class_isin_code"}
    for item, fund in zip(raw, funds):
        assert set(item) == handled  # a new field in the answer is noticed here
        for field, target in PROFILE_TO_FUND.items():
            want = item[field]
            if field in ("regis_date", "cancel_date", "init_date") and want:
                assert fund[target] == want
            elif field == "last_upd_date":
                assert fund[target] == iso_datetime(want)
            else:
                got = fund[target]
                assert got == (want.strip() if isinstance(want, str) else want) and type(got) is type(want), field
        assert fund["fund_status"] == STATUS[item["fund_status"]] and fund["fund_status_label_en"]
        assert item["fund_class_name"] == "main" and fund["class_count"] == 0
        assert fund["tax_incentives"] == [] and item["fund_class_tax_incentive_type"] == ""
        text = fund["investment_policy"]
        assert (text is None) == (item["investment_policy_desc"] is None)
        assert text is None or ("<" not in text and len(text) > 20)
    expired = next(f for f in funds if f["proj_id"] == "M0003_2563")
    assert (expired["proj_term_mm"], expired["proj_term_yy"], expired["proj_term_dd"]) == (6, 0, 0)
    assert expired["management_style_label_en"] == "buy and hold"


def test_the_quarter_arrives_whole_with_values_to_the_last_digit():
    raw = rows_of("quarterly-portfolio.json")
    rows = through_client("quarterly-portfolio.json", lambda c, e: c.fetch("E6", proj_id="M0016_2565", period="202306"))
    assert sorted(r["isin_code"] for r in rows) == sorted(r["isin_code"] for r in raw)
    by_isin = {r["isin_code"]: r for r in rows}
    for item in raw:
        got = by_isin[item["isin_code"]]
        assert got["assetliab_value"] == item["assetliab_value"] and got["percent_nav"] == item["percent_nav"]
        assert got["assetliab_id"] == item["assetliab_id"] and got["assetliab_desc"] == item["assetliab_desc"]
        assert got["period"] == "202306" and got["as_of_date"] == "2023-06-30" and not got["is_nav_total"]


def test_risk_and_allocation_read_the_newest_captured_factsheet():
    risk = rows_of("risk-spectrum.json")
    newest = max(risk, key=lambda r: r["start_date"])
    got = through_client("risk-spectrum.json", lambda c, e: c.fetch("E8", proj_id="M0000_2552"))
    assert got["risk_spectrum"] == newest["risk_spectrum"] and got["risk_level_label"] == newest["risk_spectrum"][2:]
    assert got["risk_spectrum_desc"] == newest["risk_spectrum_desc"].strip()
    allocation = rows_of("asset-allocation.json")
    latest_start = max(r["start_date"] for r in allocation)
    got = through_client("asset-allocation.json", lambda c, e: c.fetch("E13", proj_id="M0000_2552"))
    want = [r for r in allocation if r["start_date"] == latest_start]
    assert [(g["asset_name"], g["asset_ratio"]) for g in got] == [(r["asset_name"], r["asset_ratio"]) for r in want]


def test_missing_captures_fail_in_ci_and_are_skipped_elsewhere(monkeypatch, tmp_path):
    missing = tmp_path / "real-captures" / "MANIFEST.json"
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="is missing"):
        require(missing)
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="is missing"):
        require(missing)

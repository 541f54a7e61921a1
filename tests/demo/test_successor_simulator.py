"""The simulator's successor layout (/v2/fund, /v1/license-check) over the same demo data set."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
from collections import Counter
from datetime import date

import httpx
import pytest

from dashboard.records.values import single_number

from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.pools import ENFORCEMENT_TYPE_TH, SUCCESSOR_STATUS, TAX_SSF, TAX_THAI_ESG
from dashboard.demo.gateway import INVALID_KEY_BODY, MISSING_KEY_BODY, NOT_FOUND_BODY
from dashboard.demo.loopback import SimulatorServer
from dashboard.demo.simulator import create_app
from dashboard.demo.successor import FUND_ROUTES, LICENCE_ROUTES, no_data_status
from dashboard.records.labels import FACTSHEET_FEE_KINDS, REDEMP_PERIOD, fee_type_key

TODAY = date(2026, 11, 21)
KEY = "demo-test-key"
DS = generate_demo_dataset(today=TODAY)
V2 = "/v2/fund"
LC = "/v1/license-check/licensee"
ENVELOPE_KEYS = ["message", "page_size", "next_cursor", "items"]

MULTI = next(iter(DS.classes))
SINGLE = next(f["proj_id"] for f in DS.funds if f["proj_id"] not in DS.classes and f["proj_id"] in DS.fees)
# a quarter of more than 100 holding lines
BIG_PID, BIG_PERIOD = next((pid, period) for pid, by in DS.holdings.items() for period, rows in by.items() if len(rows) > 100)
OLDER = next(pid for pid, d in DS.fund_details.items() if d["older_factsheet"] and pid in DS.performance and pid in DS.fees)


def call(app, method: str, path: str, params: dict | None = None, json_body=None, key: str | None = KEY,
         content: bytes | None = None) -> httpx.Response:
    headers = {"Ocp-Apim-Subscription-Key": key} if key is not None else {}

    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sim.invalid") as client:
            return await client.request(method, path, params=params, json=json_body, content=content, headers=headers)

    return asyncio.run(go())


def get(app, path: str, **params) -> httpx.Response:
    return call(app, "GET", path, params=params or None)


def pages(app, path: str, method: str = "GET", json_body=None, start: str = "", **params) -> tuple[list[dict], list[dict]]:
    """Every item, following next_cursor only (never the page length), and every envelope (from the page `start`
    leads to; the first page without it)."""
    items, envelopes, cursor = [], [], start
    for _ in range(1000):
        r = call(app, method, path, params={**params, "next_cursor": cursor}, json_body=json_body)
        assert r.status_code == 200, r.text
        body = r.json()
        envelopes.append(body)
        items += body["items"]
        cursor = body["next_cursor"]
        if not cursor:
            return items, envelopes
    raise AssertionError("the cursor never ended")


@pytest.fixture
def app():
    return create_app(DS, valid_keys={KEY})


# ---- envelope and pagination ---------------------------------------------------------------------


@pytest.mark.parametrize("route", FUND_ROUTES, ids=lambda r: r.id)
def test_every_fund_endpoint_answers_the_envelope_over_the_whole_market(app, route):
    r = get(app, route.path, page_size=3)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json; charset=utf-8"
    body = r.json()
    assert list(body) == ENVELOPE_KEYS
    assert body["message"] == "success" and body["page_size"] == 3
    assert len(body["items"]) == 3 and isinstance(body["next_cursor"], str) and body["next_cursor"]
    offset, mac = base64.b64decode(body["next_cursor"]).decode().split("|")
    assert offset == "3" and len(base64.b64decode(mac)) == 32
    assert all("last_upd_date" in item for item in body["items"])
    assert get(app, route.path).json()["page_size"] == 100  # the default


def test_a_quarter_of_over_100_lines_arrives_whole_only_by_following_the_cursor(app):
    legacy = DS.holdings[BIG_PID][BIG_PERIOD]
    query = {"proj_id": BIG_PID, "start_period": BIG_PERIOD, "end_period": BIG_PERIOD}
    first = get(app, f"{V2}/outstanding/portfolio", **query).json()
    assert len(first["items"]) == 100 and first["next_cursor"]  # a client stopping here loses lines
    items, envelopes = pages(app, f"{V2}/outstanding/portfolio", **query)
    assert len(envelopes) == 2 and envelopes[-1]["next_cursor"] == ""
    assert len(items) == len(legacy) > 100
    code_key, value_key = DS.fund_details[BIG_PID]["holdings_keys"]
    got = sorted((i[code_key], i["issue_code"], i["isin_code"], i["percent_nav"], i[value_key]) for i in items)
    want = sorted((r["assetliab_id"], r["issue_code"], r["isin_code"], float(r["percent_nav"]), float(r["assetliab_value"]))
                  for r in legacy)
    assert got == want
    assert {i["period"] for i in items} == {int(BIG_PERIOD)} and {i["proj_id"] for i in items} == {BIG_PID}
    # pages that divide the quarter exactly: the same rows, and the last page is full
    size = max(d for d in range(1, 101) if len(legacy) % d == 0)
    small, envelopes = pages(app, f"{V2}/outstanding/portfolio", page_size=size, **query)
    assert sorted(map(json.dumps, small)) == sorted(map(json.dumps, items))
    assert len(envelopes[-1]["items"]) == envelopes[-1]["page_size"]


def test_the_last_cursor_can_be_null(app):
    app.end_cursor_null = True
    body = get(app, f"{V2}/general-info/amcs").json()
    assert list(body) == ENVELOPE_KEYS and body["next_cursor"] is None


@pytest.mark.parametrize("size", ["0", "101", "abc", "", "-5", "2.5"])
def test_bad_page_sizes_answer_400(app, size):
    r = get(app, f"{V2}/general-info/profiles", page_size=size)
    assert r.status_code == 400 and "page_size" in r.json()["message"]


def test_a_cursor_is_bound_to_its_endpoint_and_filters(app):
    path = f"{V2}/general-info/profiles"
    first = get(app, path, page_size=5, fund_status="Registered").json()
    cursor = first["next_cursor"]
    ok = get(app, path, page_size=5, fund_status="Registered", next_cursor=cursor)
    assert ok.status_code == 200 and ok.json()["items"] != first["items"]
    assert get(app, path, page_size=7, fund_status="Registered", next_cursor=cursor).status_code == 200  # page size is no filter
    for changed in ({"fund_status": "Expired"}, {}, {"fund_status": "Registered", "company_info": DS.amc_ids()[0]}):
        r = get(app, path, page_size=5, next_cursor=cursor, **changed)
        assert r.status_code == 400 and r.json()["message"] == "invalid cursor", changed
    r = get(app, f"{V2}/factsheet/fees", page_size=5, fund_status="Registered", next_cursor=cursor)
    assert r.status_code == 400 and r.json()["message"] == "invalid cursor"
    forged = base64.b64encode(b"10|" + base64.b64encode(b"x" * 32)).decode()
    for garbage in ("not-a-cursor", "%%%", forged, base64.b64encode(b"abc").decode()):
        r = get(app, path, page_size=5, fund_status="Registered", next_cursor=garbage)
        assert r.status_code == 400 and r.json()["message"] == "invalid cursor", garbage
    assert get(app, path, page_size=5, fund_status="Registered", next_cursor="").json() == first  # page 1


def test_rows_come_shuffled_but_deterministically(app):
    path = f"{V2}/factsheet/performance"
    one = get(app, path, proj_id=MULTI, latest="true").json()["items"]
    assert one == get(app, path, proj_id=MULTI, latest="true").json()["items"]
    keys = [(r["fund_class_name"], r["performance_type_desc"], r["reference_period"]) for r in one]
    business = [(r["class_abbr_name"], r["performance_type_desc"], r["reference_period"]) for r in DS.performance[MULTI]]
    assert sorted(keys) == sorted(business) and keys != business and keys != sorted(keys)
    profiles = [r["proj_id"] for r in get(app, f"{V2}/general-info/profiles").json()["items"]]
    assert profiles != sorted(profiles) and profiles != [f["proj_id"] for f in DS.funds][: len(profiles)]


def test_the_whole_market_pages_through_every_funds_profiles(app):
    items, envelopes = pages(app, f"{V2}/general-info/profiles", page_size=7)
    assert len(envelopes) > 10 and all(len(e["items"]) <= 7 for e in envelopes)
    assert {i["proj_id"] for i in items} == {f["proj_id"] for f in DS.funds}
    want = sum(len(DS.classes.get(f["proj_id"], [None])) for f in DS.funds)
    assert len(items) == want == len({(i["proj_id"], i["fund_class_name"]) for i in items})
    holders, _ = pages(app, f"{V2}/factsheet/risk-spectrum", latest="true")
    assert {i["proj_id"] for i in holders} == set(DS.suitability)


def test_the_pages_after_the_first_read_the_answer_the_first_page_built():
    """The small data set is read live by each first page; the pages its cursor then leads to read the answer that
    first page built (not every fund's rows built again for each page: a demo sync's paging was quadratic)."""
    app = create_app(copy.deepcopy(DS), valid_keys={KEY})
    path = f"{V2}/general-info/profiles"
    whole = {(i["proj_id"], i["fund_class_name"]) for i in pages(app, path, page_size=50)[0]}
    first = get(app, path, page_size=50).json()
    assert first["next_cursor"] and len(app.answer_cache) == 1  # only an answer with pages to come is kept
    gone = app.dataset.funds.pop()["proj_id"]  # the data set changes while a client pages through it
    rest, _ = pages(app, path, page_size=50, start=first["next_cursor"])
    assert {(i["proj_id"], i["fund_class_name"]) for i in first["items"] + rest} == whole  # one answer, whole
    again = {i["proj_id"] for i in pages(app, path, page_size=50)[0]}  # a first page reads the data set again
    assert gone not in again and again == {f["proj_id"] for f in app.dataset.funds}
    one = get(app, f"{V2}/factsheet/fees", proj_id=SINGLE).json()
    assert not one["next_cursor"] and len(app.answer_cache) == 1  # a one-page answer is not kept


# ---- layouts and keys ----------------------------------------------------------------------------

LEGACY_PATHS = [("GET", f"/FundFactsheet/fund/{MULTI}/class_fund"), ("GET", "/LicenseCheck/licensee/company"),
                ("GET", f"/FundFactsheet/fund/{BIG_PID}/FundPort/{BIG_PERIOD}")]
SUCCESSOR_PATHS = [("GET", f"{V2}/general-info/amcs"), ("GET", f"{LC}/company"), ("GET", f"{V2}/factsheet/fees?proj_id={SINGLE}")]


def test_layouts_hide_the_other_paths():
    app = create_app(DS, valid_keys={KEY})
    assert app.layout == "both"
    assert all(call(app, m, p).status_code == 200 for m, p in LEGACY_PATHS + SUCCESSOR_PATHS)
    app.layout = "successor"  # the service as it answers today
    for m, p in LEGACY_PATHS + [("POST", "/FundFactsheet/fund")]:
        r = call(app, m, p, json_body={"name": "demo"} if m == "POST" else None)
        assert r.status_code == 404 and r.json() == NOT_FOUND_BODY, p
    assert all(call(app, m, p).status_code == 200 for m, p in SUCCESSOR_PATHS)
    app.layout = "legacy"
    for m, p in SUCCESSOR_PATHS + [("POST", f"{LC}/company"), ("GET", f"{V2}/nope")]:
        r = call(app, m, p)
        assert r.status_code == 404 and r.json() == NOT_FOUND_BODY, p
    assert all(call(app, m, p).status_code == 200 for m, p in LEGACY_PATHS)
    app.legacy_gone = True
    app.layout = "both"
    assert {call(app, m, p).status_code for m, p in LEGACY_PATHS + SUCCESSOR_PATHS} == {404}
    with pytest.raises(ValueError):
        app.layout = "v2"
    with pytest.raises(ValueError):
        create_app(DS, layout="modern")
    with pytest.raises(ValueError):
        create_app(DS, licence_shape="xml")


def test_legacy_answers_are_the_legacy_records_in_every_layout_that_has_them():
    for layout in ("legacy", "both"):
        app = create_app(DS, valid_keys={KEY}, layout=layout)
        assert call(app, "GET", f"/FundFactsheet/fund/{MULTI}/class_fund").json() == DS.classes[MULTI]
        assert call(app, "GET", f"/FundFactsheet/fund/{SINGLE}/fee").json() == DS.fees[SINGLE]


def test_keys_are_checked_per_group_on_successor_paths():
    app = create_app(DS, valid_keys={"fund": {"F"}, "license": {"L"}})
    fund, licence = f"{V2}/general-info/amcs", f"{LC}/company"
    assert call(app, "GET", fund, key=None).json() == MISSING_KEY_BODY
    assert call(app, "GET", licence, key=None).status_code == 401
    assert call(app, "GET", fund, key="F").status_code == 200 and call(app, "GET", licence, key="L").status_code == 200
    assert call(app, "GET", fund, key="L").json() == INVALID_KEY_BODY
    assert call(app, "GET", licence, key="F").json() == INVALID_KEY_BODY


def test_unknown_successor_paths_and_methods(app):
    for path in (f"{V2}/factsheet/nope", f"{V2}/general-info/amcs/", f"{LC}/person/x/y/z", "/v2/fund"):
        r = get(app, path)
        assert r.status_code == 404 and r.json() == NOT_FOUND_BODY, path
    r = call(app, "DELETE", f"{LC}/company")
    assert r.status_code == 405 and r.headers["allow"] == "GET, POST"
    assert call(app, "POST", f"{V2}/factsheet/fees", json_body={}).status_code == 405


# ---- fund values ---------------------------------------------------------------------------------


def profile_rows(app, **filters) -> list[dict]:
    return pages(app, f"{V2}/general-info/profiles", **filters)[0]


def test_profiles_carry_status_words_classes_and_no_dropped_fields(app):
    rows = profile_rows(app)
    by_fund: dict[str, list[dict]] = {}
    for r in rows:
        by_fund.setdefault(r["proj_id"], []).append(r)
    for fund in DS.funds:
        pid = fund["proj_id"]
        mine = by_fund[pid]
        assert {r["fund_status"] for r in mine} == {SUCCESSOR_STATUS[fund["fund_status"]]}
        names = sorted(r["fund_class_name"] for r in mine)
        assert names == sorted(c["class_abbr_name"] for c in DS.classes.get(pid, [{"class_abbr_name": "main"}]))
        for r in mine:
            assert r["proj_abbr_name"] == fund["proj_abbr_name"] and r["unique_id"] == fund["unique_id"]
            if fund["fund_status"] == "LI" and (fund.get("cancel_date") or "9999") < "2022-05-01":
                # wound up before May 2022: null on the current service, as captured (M0001_2558)
                assert r["invest_country_flag"] is r["proj_retail_type"] is r["proj_term_flag"] is None
            else:
                assert r["invest_country_flag"] == fund.get("invest_country_flage", fund.get("invest_country_flag"))
            assert "permit_us_investment" not in r and "invest_country_flage" not in r
            for term in ("proj_term_day", "proj_term_month", "proj_term_year"):
                assert r[term] is None or type(r[term]) is int
    assert set(rows[0]) == {
        "unique_id", "comp_name_th", "comp_name_en", "proj_id", "regis_id", "init_date", "regis_date", "cancel_date",
        "proj_name_th", "proj_name_en", "proj_abbr_name", "fund_status", "invest_country_flag", "proj_retail_type",
        "proj_term_flag", "proj_term_day", "proj_term_month", "proj_term_year", "policy_desc", "investment_policy_desc",
        "management_style", "feederfund_master_fund", "feederfund_country", "exchange_rate_protection_policy",
        "fund_class_name", "fund_class_detail", "fund_class_description", "fund_class_tax_incentive_type",
        "fund_class_isin_code", "last_upd_date"}
    main = by_fund[SINGLE]
    assert len(main) == 1 and main[0]["fund_class_name"] == "main" and main[0]["fund_class_detail"] is None
    taxes = Counter(r["fund_class_tax_incentive_type"] for r in rows)
    assert taxes[TAX_SSF] >= 3 and taxes[TAX_THAI_ESG] >= 2 and taxes[""] > len(rows) / 2
    assert all(r["fund_class_tax_incentive_type"] == TAX_SSF for r in rows if r["fund_class_name"].endswith("-SSF"))
    assert any(r["comp_name_en"].endswith(" ") for r in rows) and any(not r["comp_name_en"].endswith(" ") for r in rows)
    assert any(r["feederfund_master_fund"] for r in rows) and any(r["management_style"] == "AN" for r in rows)
    assert any(r["last_upd_date"].endswith("Z") for r in rows) and any("." in r["last_upd_date"] for r in rows)


def test_profile_filters(app):
    se = {f["proj_id"] for f in DS.funds if f["fund_status"] == "SE"}
    assert {r["proj_id"] for r in profile_rows(app, fund_status="IPO")} == se
    legacy_code = get(app, f"{V2}/general-info/profiles", fund_status="SE")  # codes are no status words
    assert legacy_code.status_code == 204 or legacy_code.json()["items"] == []
    fund = DS.fund(MULTI)
    assert {r["proj_id"] for r in profile_rows(app, project_info=MULTI)} == {MULTI}
    found = {r["proj_id"] for r in profile_rows(app, project_info=fund["proj_abbr_name"].lower())}
    assert MULTI in found
    assert all(fund["proj_abbr_name"].lower() in DS.fund(p)["proj_abbr_name"].lower() for p in found)
    amc = DS.amc_ids()[1]
    assert {r["proj_id"] for r in profile_rows(app, company_info=amc)} == {f["proj_id"] for f in DS.funds if f["unique_id"] == amc}
    stem = DS.amc_name(amc).split()[1].upper()  # part of the company name, any case
    assert {r["unique_id"] for r in profile_rows(app, company_info=stem)} == {amc}
    ssf = profile_rows(app, fund_class_name="-ssf")
    assert ssf and all(r["fund_class_name"].endswith("-SSF") for r in ssf)
    assert get(app, f"{V2}/general-info/profiles", color="blue", page_size=2).status_code == 200  # unknown: ignored


def test_minimums_pad_currencies_and_drop_the_extra_texts(app):
    pid = MULTI
    rows = get(app, f"{V2}/factsheet/subscription-redemption-minimums", proj_id=pid, latest="true").json()["items"]
    assert sorted(r["fund_class_name"] for r in rows) == sorted(c["class_abbr_name"] for c in DS.classes[pid])
    assert len(rows) == len(DS.investment[pid])
    for r in rows:
        assert not any(k.endswith("_addi_desc") for k in r)
        for key in ("minimum_sub_ipo_cur", "minimum_sub_cur", "minimum_redempt_cur"):
            assert r[key] is None or (len(r[key]) == 50 and r[key].rstrip() == "THB")
        assert r["lowbal_val_cur"] == "THB" and isinstance(r["lowbal_unit"], str)
        assert r["minimum_sub"] is None or isinstance(r["minimum_sub"], (int, float))
    legacy = {float(rec["minimum_sub"].replace(",", "")) for rec in DS.investment[pid] if rec["minimum_sub"] != "-"}
    assert {float(r["minimum_sub"]) for r in rows if r["minimum_sub"] is not None} == legacy


def test_redemption_periods_are_thai_text_per_class_and_direction(app):
    for pid in (MULTI, SINGLE):
        rows = get(app, f"{V2}/factsheet/subscription-redemption-periods", proj_id=pid, latest="true").json()["items"]
        classes = [c["class_abbr_name"] for c in DS.classes.get(pid, [])] or ["main"]
        assert Counter((r["fund_class_name"], r["type"]) for r in rows) == Counter(
            (c, t) for c in classes for t in ("subscription", "redemption"))
        legacy = DS.redemption[pid]
        for r in rows:
            assert "buying_cut_off_time" not in r and "selling_cut_off_time" not in r
            if r["type"] == "redemption":
                assert r["period"] == REDEMP_PERIOD[legacy["redemp_period"]][0]
                assert r["settlement_period"] == legacy["settlement_period"]
    texts = {r["period"] for r in pages(app, f"{V2}/factsheet/subscription-redemption-periods", latest="true")[0]
             if r["type"] == "redemption"}
    assert {REDEMP_PERIOD[rec["redemp_period"]][0] for rec in DS.redemption.values()} == texts
    assert "ทุกวันทำการ" in texts


def test_risk_spectrum_is_plain_text(app):
    pid = next(p for p, s in DS.suitability.items() if s["risk_spectrum_desc"])
    (row,) = get(app, f"{V2}/factsheet/risk-spectrum", proj_id=pid, latest="true").json()["items"]
    legacy = DS.suitability[pid]
    assert row["risk_spectrum"] == legacy["risk_spectrum"]
    assert row["risk_spectrum_desc"] == base64.b64decode(legacy["risk_spectrum_desc"]).decode("utf-8")
    assert not {"fund_suitable_desc", "fund_not_suitable_desc", "important_notice"} & set(row)


def test_performance_fees_and_allocation(app):
    perf = pages(app, f"{V2}/factsheet/performance", latest="true")[0]
    assert {r["fund_class_name"] for r in perf if r["proj_id"] == SINGLE or r["proj_id"] not in DS.classes} == {"main"}
    types = {type(r["performance_value"]) for r in perf}
    assert {str, float} <= types
    assert {r["reference_period"] for r in perf} == {r["reference_period"] for rs in DS.performance.values() for r in rs}
    assert not {"performance_val", "class_abbr_name", "as_of_date"} & set(perf[0])
    fees = get(app, f"{V2}/factsheet/fees", proj_id=SINGLE, latest="true").json()["items"]
    # the factsheet fee lines the current service documents (spec 4.14): no trustee or registrar line
    documented = [f for f in DS.fees[SINGLE] if fee_type_key(f["fee_type_desc"]) in FACTSHEET_FEE_KINDS]
    assert len(documented) < len(DS.fees[SINGLE])
    assert len(fees) == len(documented) and {r["fund_class_name"] for r in fees} == {"main"}
    assert {r["fee_type_desc"] for r in fees} == {f["fee_type_desc"] for f in documented}
    for r in fees:
        assert "rate_unit" not in r and "actual_value_unit" not in r
        assert r["rate"] is None or isinstance(r["rate"], float)
    # a text holding one number ("ไม่เกิน 1.50") is that number; words and ranges have none
    legacy_rates = sorted(n for n in (single_number(f["rate"]) for f in documented) if n is not None)
    assert sorted(r["rate"] for r in fees if r["rate"] is not None) == legacy_rates
    pid = next(iter(DS.allocation))
    alloc = get(app, f"{V2}/factsheet/asset-allocation", proj_id=pid, latest="true").json()["items"]
    assert sorted((r["asset_seq"], r["asset_name"], r["asset_ratio"]) for r in alloc) == sorted(
        (int(a["asset_seq"]), a["asset_name"], float(a["asset_ratio"])) for a in DS.allocation[pid])


def test_forgetting_latest_returns_older_factsheets_too(app):
    for endpoint in ("performance", "fees", "subscription-redemption-minimums", "risk-spectrum"):
        path = f"{V2}/factsheet/{endpoint}"
        every = pages(app, path, proj_id=OLDER)[0]
        latest = pages(app, path, proj_id=OLDER, latest="true")[0]
        assert len(every) == 2 * len(latest) and all(r["end_date"] is None for r in latest)
        older = [r for r in every if r["end_date"] is not None]
        current = DS.fund_details[OLDER]["factsheet"]["start_date"]
        assert older and all(r["end_date"] < current and r["start_date"] < current for r in older)
        # the dates filter picks the older version only
        picked = pages(app, path, proj_id=OLDER, start_date=older[0]["start_date"], end_date=older[0]["end_date"])[0]
        assert sorted(map(json.dumps, picked)) == sorted(map(json.dumps, older))
    values = {(r["start_date"], r["fund_class_name"], r["performance_type_desc"], r["reference_period"]): r["performance_value"]
              for r in pages(app, f"{V2}/factsheet/performance", proj_id=OLDER)[0]}
    dates = sorted({k[0] for k in values})
    differ = [k for k in values if k[0] == dates[1] and values[k] is not None and values[(dates[0], *k[1:])] != values[k]]
    assert differ  # a client that forgets latest=true gets visibly different figures
    assert get(app, f"{V2}/factsheet/fees", start_date="2026-13-01").status_code == 400


def test_holdings_values_and_both_spellings(app):
    code_funds = [p for p, d in DS.fund_details.items() if d["holdings_keys"][0] == "assetliab_code"]
    assert len(code_funds) == 2
    rows = get(app, f"{V2}/outstanding/portfolio", proj_id=code_funds[0], start_period=DS.periods[0],
               end_period=DS.periods[0]).json()["items"]
    assert rows and all("assetliab_code" in r and "market_value" in r and "assetliab_id" not in r for r in rows)
    nav_fund = next(p for p, by in DS.holdings.items() if any(r["assetliab_id"] == "903" for r in by[DS.periods[0]]))
    rows = pages(app, f"{V2}/outstanding/portfolio", proj_id=nav_fund, start_period=DS.periods[1], end_period=DS.periods[0])[0]
    assert {r["period"] for r in rows} == {int(DS.periods[0]), int(DS.periods[1])}
    code_key, value_key = DS.fund_details[nav_fund]["holdings_keys"]
    assert any(r[code_key] == "903" for r in rows)
    for r in rows:
        assert type(r["period"]) is int and isinstance(r["percent_nav"], float) and isinstance(r[value_key], float)
        assert r["assetliab_desc"] and r["as_of_date"] and r["proj_id"] == nav_fund
    assert get(app, f"{V2}/outstanding/portfolio", start_period="2026-06").status_code == 400


def test_urls_are_a_time_series_without_report_links(app):
    pid = next(p for p, u in DS.urls.items() if u["url_factsheet"].startswith("https://"))
    rows = get(app, f"{V2}/factsheet/urls", proj_id=pid, latest="true").json()["items"]  # latest: not a parameter here
    classes = [c["class_abbr_name"] for c in DS.classes.get(pid, [])] or ["main"]
    for name in classes:
        dated = [r for r in rows if r["fund_class_name"] == name]
        assert len({r["as_of_date"] for r in dated}) == len(dated) >= 2
    for r in rows:
        assert r["amc_url_factsheet"] == DS.urls[pid]["url_factsheet"] and r["pdf_factsheet"].endswith(f"/{pid}.pdf")
        assert "url_halfyear_report" not in r and "url_annual_report" not in r


def test_no_data_answers(app):
    unknown = "M0000_2500"
    r = get(app, f"{V2}/factsheet/fees", proj_id=unknown)
    assert r.status_code == no_data_status(unknown)
    assert r.status_code == 204 and r.content == b"" or r.json()["items"] == []
    statuses = set()
    for pid in [f["proj_id"] for f in DS.funds if f["proj_id"] not in DS.performance]:
        r = get(app, f"{V2}/factsheet/performance", proj_id=pid)
        if (pid, "E10") in DS.empty_200:
            assert (r.status_code, r.content) == (200, b"")
        elif r.status_code == 200:
            assert r.json() == {"message": "success", "page_size": 100, "next_cursor": "", "items": []}
        statuses.add((r.status_code, r.content == b""))
    assert statuses == {(204, True), (200, False), (200, True)}
    mapped = {"E6": "outstanding/portfolio", "E10": "factsheet/performance", "E12": "factsheet/fees"}
    for pid, endpoint_id in DS.empty_200:
        if endpoint_id in mapped:
            r = get(app, f"{V2}/{mapped[endpoint_id]}", proj_id=pid)
            assert (r.status_code, r.content) == (200, b""), (pid, endpoint_id)


# ---- licence register ----------------------------------------------------------------------------


PERSON = next(p["unique_id"] for p in DS.persons if p["unique_id"] in DS.duties)
SUBJECT, CASE = next(iter(DS.enforcement))
ALERT = next(iter(DS.alerts))
COMPANY = next(iter(DS.company_licences))


def test_licence_shapes(app):
    lists = {f"{LC}/company": DS.company_register(), f"{LC}/person/{PERSON}/license": DS.approvals[PERSON]}
    singles = {f"{LC}/{SUBJECT}/enforcement/{CASE}": DS.enforcement[(SUBJECT, CASE)],
               f"{LC}/investoralert/{ALERT}/alertaction": DS.alerts[ALERT]}
    app.licence_shape = "bare"
    for path, legacy in lists.items():
        body = get(app, path).json()
        assert isinstance(body, list) and len(body) == len(legacy)
    for path, legacy in singles.items():
        assert get(app, path).json() == legacy
    assert sorted(map(json.dumps, get(app, f"{LC}/company").json())) == sorted(map(json.dumps, DS.company_register()))
    app.licence_shape = "items"
    for path, legacy in lists.items():
        body = get(app, path).json()
        assert list(body) == ["items"] and len(body["items"]) == len(legacy)
    for path, legacy in singles.items():
        assert get(app, path).json() == {"items": legacy}
    app.licence_shape = "envelope"
    for path, legacy in {**lists, **singles}.items():
        body = get(app, path).json()
        assert list(body) == ENVELOPE_KEYS and len(body["items"]) == (len(legacy) if isinstance(legacy, list) else 1)
    items, envelopes = pages(app, f"{LC}/investoralert/alertdetail", page_size=3)
    assert len(envelopes) >= 3 and {i["case_id"] for i in items} == set(DS.alerts)


def test_licence_records_gain_names(app):
    rows = get(app, f"{LC}/person/{PERSON}/license").json()["items"]
    assert sorted(r["lic_code"] for r in rows) == sorted(a["lic_code"] for a in DS.approvals[PERSON])
    assert all(r["lic_name_th"] and r["lic_name_en"] for r in rows)
    duties = get(app, f"{LC}/person/{PERSON}/work_info").json()["items"]
    assert sorted(d["company_unique_id"] for d in duties) == sorted(d["company_unique_id"] for d in DS.duties[PERSON])
    assert all(d["lic_action_name_th"] and d["lic_action_name_en"] for d in duties)
    company = DS.duties[PERSON][0]["company_unique_id"]
    staff = get(app, f"{LC}/company/{company}/personnel").json()["items"]
    assert PERSON in {s["person_unique_id"] for s in staff} and {s["company_unique_id"] for s in staff} == {company}
    cases = get(app, f"{LC}/{SUBJECT}/enforcement").json()["items"]
    assert CASE in {c["case_id"] for c in cases}
    for c in cases:
        assert c["enforcement_type"] == ENFORCEMENT_TYPE_TH[DS.enforcement_types[(SUBJECT, c["case_id"])]]
    assert set(ENFORCEMENT_TYPE_TH.values()) == {"กล่าวโทษ", "เปรียบเทียบ", "ปรับทางปกครอง", "การดำเนินการทางบริหาร", "การดำเนินการทางแพ่ง"}
    licences = get(app, f"{LC}/company/{COMPANY}/license").json()["items"]
    assert sorted(map(json.dumps, licences)) == sorted(map(json.dumps, DS.company_licences[COMPANY]))
    acts = pages(app, f"{LC}/company/{COMPANY}/business_act")[0]
    assert {a["action_status"] for a in acts} <= {"NORMAL", "HOLD"} and len(acts) == len(DS.business_acts[COMPANY])
    assert any(a["action_status"] == "HOLD" for acts in DS.business_acts.values() for a in acts)
    alerts = get(app, f"{LC}/investoralert/alertdetail").json()["items"]
    assert set(alerts[0]) == {"last_upd_date", "case_id", "disclosure_date", "name_th", "name_en", "address_th", "address_en",
                              "persuade_desc", "website", "facebook", "line", "remark"}


def test_licence_searches_and_no_data(app):
    person = DS.persons[0]
    first_en = person["name_en"].split()[1]
    found = call(app, "POST", f"{LC}/person", json_body={"Name": first_en.lower(), "regis_sale_no": ""}).json()["items"]
    assert person["unique_id"] in {p["unique_id"] for p in found}
    assert all(first_en in p["givenname_en"] + p["surname_en"] for p in found)
    number = next(a["regis_sale_no"] for a in DS.approvals[person["unique_id"]] + [a for rs in DS.approvals.values() for a in rs]
                  if a["regis_sale_no"] and a["regis_sale_no"].strip("- "))
    by_number = call(app, "POST", f"{LC}/person", json_body={"Name": "", "regis_sale_no": number}).json()["items"]
    assert by_number
    for found_person in by_number:
        assert any(number in (a["regis_sale_no"] or "") for a in DS.approvals[found_person["unique_id"]])
    for body in ({"Name": "securities"}, {"name": "SECURITIES"}):
        rows = pages(app, f"{LC}/company", method="POST", json_body=body)[0]
        assert rows and all("Securities" in r["name_en"] for r in rows)
    assert call(app, "POST", f"{LC}/company", json_body={}).status_code == 400
    assert call(app, "POST", f"{LC}/person", json_body={"Name": "", "regis_sale_no": ""}).status_code == 400
    for path in (f"{LC}/person/P0000000000/license", f"{LC}/company/C0000000000/license", f"{LC}/{SUBJECT}/enforcement/EN-2500-999",
                 f"{LC}/investoralert/IA-2500-999/alertaction"):
        r = get(app, path)
        assert (r.status_code, r.content) == (204, b""), path
    r = call(app, "POST", f"{LC}/company", json_body={"Name": "nobody at all"})
    assert r.status_code == 204


# ---- faults, counters, socket --------------------------------------------------------------------


def test_faults_work_on_successor_paths(app):
    path = f"{V2}/general-info/amcs"
    app.inject("421", retry_after=3)
    r = get(app, path)
    assert r.status_code == 421 and r.headers["retry-after"] == "3"
    app.inject("429")
    assert get(app, path).status_code == 429
    app.inject("503")
    assert get(app, path).status_code == 503
    app.inject("malformed_json")
    with pytest.raises(ValueError):
        json.loads(get(app, path).content)
    app.inject("wrong_shape", times=2)
    body = get(app, path).json()
    assert isinstance(body, dict) and "items" not in body
    assert isinstance(get(app, f"{LC}/company").json(), str)
    app.inject("html")
    assert get(app, path).headers["content-type"].startswith("text/html")
    assert get(app, path).status_code == 200


def test_queries_are_recorded(app):
    app.reset_counters()
    get(app, f"{V2}/factsheet/fees", proj_id=SINGLE, latest="true")
    call(app, "POST", f"{LC}/company", json_body={"Name": "demo"})
    get(app, f"/FundFactsheet/fund/{SINGLE}/fee")
    assert app.queries == [("GET", f"{V2}/factsheet/fees", f"proj_id={SINGLE}&latest=true"), ("POST", f"{LC}/company", ""),
                           ("GET", f"/FundFactsheet/fund/{SINGLE}/fee", "")]
    assert app.requests == [(m, p) for m, p, _ in app.queries] and app.request_count == 3
    app.reset_counters()
    assert app.queries == [] and app.requests == []


def test_the_successor_layout_on_a_socket():
    with SimulatorServer(dataset=DS, valid_keys={KEY}, layout="successor", licence_shape="bare") as server:
        assert server.app.layout == "successor" and server.base_url.startswith("http://127.0.0.1:")
        headers = {"Ocp-Apim-Subscription-Key": KEY}
        r = httpx.get(f"{server.base_url}{V2}/general-info/profiles", params={"project_info": MULTI}, headers=headers)
        assert r.status_code == 200 and {i["proj_id"] for i in r.json()["items"]} == {MULTI}
        assert isinstance(httpx.get(f"{server.base_url}{LC}/company", headers=headers).json(), list)
        assert httpx.get(f"{server.base_url}/LicenseCheck/licensee/company", headers=headers).status_code == 404


def test_successor_details_are_deterministic_and_kept_apart_from_legacy_records():
    again = generate_demo_dataset(today=TODAY)
    assert again.fund_details == DS.fund_details and again.company_licences == DS.company_licences
    assert set(DS.fund_details) == {f["proj_id"] for f in DS.funds}
    words = set(SUCCESSOR_STATUS.values())
    assert not any(f["fund_status"] in words for f in DS.funds)
    assert all("fund_class_tax_incentive_type" not in c for cs in DS.classes.values() for c in cs)
    assert "successor fund details" in repr(DS)
    assert len(LICENCE_ROUTES) == 12 and len(FUND_ROUTES) == 12  # with daily-info/nav and dividend-history


def test_a_fund_added_after_generation_is_served_with_plain_defaults():
    ds = generate_demo_dataset(today=TODAY)
    record = dict(ds.fund(SINGLE), proj_id="M9999_2569", proj_abbr_name="DEMO-NEW", fund_status="SE")
    ds.add_fund(record, fees=[dict(f) for f in ds.fees[SINGLE]])
    app = create_app(ds, require_key=False)
    (row,) = get(app, f"{V2}/general-info/profiles", project_info="M9999_2569").json()["items"]
    assert row["fund_status"] == "IPO" and row["fund_class_name"] == "main" and row["policy_desc"] is None
    fees = get(app, f"{V2}/factsheet/fees", proj_id="M9999_2569", latest="true").json()["items"]
    documented = [f for f in ds.fees[SINGLE] if fee_type_key(f["fee_type_desc"]) in FACTSHEET_FEE_KINDS]
    assert len(fees) == len(documented) and {f["end_date"] for f in fees} == {None}
    assert "M9999_2569" not in DS.fund_details

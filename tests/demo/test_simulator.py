"""The simulator answers like the real gateway, in-process (ASGITransport) and on a loopback socket."""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import subprocess
import sys
import time
import urllib.parse
from datetime import date
from pathlib import Path

import httpx
import pytest

from dashboard.api.endpoints import ENDPOINTS
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.gateway import DEFAULT_FAULTS, FAULT_KINDS, INVALID_KEY_BODY, MISSING_KEY_BODY, NOT_FOUND_BODY
from dashboard.demo.loopback import SimulatorServer, keys_from_env
from dashboard.demo.simulator import create_app

TODAY = date(2026, 11, 21)
KEY = "demo-test-key"
DS = generate_demo_dataset(today=TODAY)
PERIOD = DS.periods[0]
F = "/FundFactsheet/fund"
L = "/LicenseCheck/licensee"


def first_key(mapping: dict, skip=()) -> str:
    return next(k for k in mapping if k not in skip)


MULTI = first_key(DS.classes)
HOLDER = first_key(DS.holdings)
PERSON = next(p["unique_id"] for p in DS.persons if p["unique_id"] in DS.duties)
ENF_SUBJECT, ENF_CASE = first_key(DS.enforcement)
ALERT = first_key(DS.alerts)
AMC = DS.amc_ids()[0]

# endpoint id -> (method, path, body, expected payload or a check of it)
CASES = {
    "E1": ("POST", F, {"name": "CHAO phraya"}, lambda p: all("chao phraya" in r["proj_name_en"].lower() for r in p)),
    "E2": ("GET", f"{F}/amc/{AMC}", None, [f for f in DS.funds if f["unique_id"] == AMC]),
    "E3": ("POST", f"{F}/class_fund", {"name": "-ssf"}, lambda p: len({r["proj_id"] for r in p}) >= 2
           and all(r["class_abbr_name"].endswith("-SSF") for r in p)),
    "E4": ("GET", f"{F}/{MULTI}/class_fund", None, DS.classes[MULTI]),
    "E5": ("GET", f"{F}/{first_key(DS.investment)}/investment", None, DS.investment[first_key(DS.investment)]),
    "E6": ("GET", f"{F}/{HOLDER}/FundPort/{PERIOD}", None, DS.holdings[HOLDER][PERIOD]),
    "E7": ("GET", f"{F}/{first_key(DS.project_type)}/project_type", None, DS.project_type[first_key(DS.project_type)]),
    "E8": ("GET", f"{F}/{first_key(DS.suitability)}/suitability", None, DS.suitability[first_key(DS.suitability)]),
    "E9": ("GET", f"{F}/{first_key(DS.return_estimate)}/return", None, DS.return_estimate[first_key(DS.return_estimate)]),
    "E10": ("GET", f"{F}/{first_key(DS.performance)}/performance", None, DS.performance[first_key(DS.performance)]),
    "E11": ("GET", f"{F}/{first_key(DS.redemption)}/redemption", None, DS.redemption[first_key(DS.redemption)]),
    "E12": ("GET", f"{F}/{first_key(DS.fees)}/fee", None, DS.fees[first_key(DS.fees)]),
    "E13": ("GET", f"{F}/{first_key(DS.allocation)}/asset", None, DS.allocation[first_key(DS.allocation)]),
    "E14": ("GET", f"{F}/{first_key(DS.urls)}/URLs", None, DS.urls[first_key(DS.urls)]),
    "E15": ("POST", f"{L}/company", {"name": "SECURITIES"}, lambda p: p and all("Securities" in r["name_en"] for r in p)),
    "E16": ("GET", f"{L}/company", None, DS.company_register()),
    "E17": ("GET", f"{L}/person/{PERSON}/license", None, DS.approvals[PERSON]),
    "E18": ("GET", f"{L}/person/{PERSON}/work_info", None, DS.duties[PERSON]),
    "E19": ("GET", f"{L}/{ENF_SUBJECT}/enforcement/{ENF_CASE}", None, DS.enforcement[(ENF_SUBJECT, ENF_CASE)]),
    "E20": ("GET", f"{L}/investoralert/{ALERT}/alertaction", None, DS.alerts[ALERT]),
}
NO_DATA = {
    "E1": ("POST", F, {"name": "no such fund anywhere"}),
    "E2": ("GET", f"{F}/amc/C0000000000", None),
    "E3": ("POST", f"{F}/class_fund", {"name": "zzz-none"}),
    "E4": ("GET", f"{F}/M0000_2500/class_fund", None),
    "E6": ("GET", f"{F}/{HOLDER}/FundPort/201003", None),
    "E10": ("GET", f"{F}/M0000_2500/performance", None),
    "E15": ("POST", f"{L}/company", {"Name": "nobody at all"}),
    "E17": ("GET", f"{L}/person/P0000000000/license", None),
    "E19": ("GET", f"{L}/{ENF_SUBJECT}/enforcement/EN-2500-999", None),
    "E20": ("GET", f"{L}/investoralert/IA-2500-999/alertaction", None),
}
EMPTY_200_PATHS = {
    "E4": "{F}/{id}/class_fund", "E6": "{F}/{id}/FundPort/" + PERIOD, "E9": "{F}/{id}/return",
    "E10": "{F}/{id}/performance", "E12": "{F}/{id}/fee", "E18": "{L}/person/{id}/work_info",
}


class Api:
    """One way of calling a simulator app: in-process through ASGITransport, or over a socket."""

    def __init__(self, app, base_url: str | None = None):
        self.app = app
        self.base_url = base_url

    def client(self, **kw) -> httpx.AsyncClient:
        if self.base_url:
            return httpx.AsyncClient(base_url=self.base_url, **kw)
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url="http://sim.invalid", **kw)

    def call(self, method: str, path: str, json_body=None, key: str | None = KEY, headers: dict | None = None,
             content: bytes | None = None, timeout: float = 10.0) -> httpx.Response:
        headers = dict(headers or {})
        if key is not None:
            headers["Ocp-Apim-Subscription-Key"] = key

        async def go():
            async with self.client() as client:
                return await asyncio.wait_for(
                    client.request(method, path, json=json_body, content=content, headers=headers), timeout)

        try:
            return asyncio.run(go())
        except (asyncio.TimeoutError, httpx.TimeoutException):
            raise TimeoutError(f"{method} {path} took longer than {timeout} s") from None

    async def gather(self, n: int, path: str) -> list[httpx.Response]:
        async with self.client(headers={"Ocp-Apim-Subscription-Key": KEY}) as client:
            return await asyncio.gather(*(client.get(path) for _ in range(n)))


@pytest.fixture(scope="module")
def live():
    with SimulatorServer(create_app(DS, valid_keys={KEY})) as server:
        yield server


@pytest.fixture(params=["asgi", "socket"])
def api(request, live) -> Api:
    if request.param == "asgi":
        return Api(create_app(DS, valid_keys={KEY}))
    app = live.app
    app.reset_counters()
    app.clear_faults()
    app.latency_ms = 0.0
    app.timeout_s = 30.0
    return Api(app, live.base_url)


# ---- data answers --------------------------------------------------------------------------------


def test_the_table_has_twenty_endpoints_and_every_one_is_exercised():
    assert sorted(CASES, key=lambda i: int(i[1:])) == [e.id for e in ENDPOINTS]


@pytest.mark.parametrize("endpoint_id", list(CASES))
def test_every_endpoint_answers_200_with_its_shape(api, endpoint_id):
    method, path, body, expected = CASES[endpoint_id]
    r = api.call(method, path, body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/json; charset=utf-8"
    payload = r.json()
    endpoint = next(e for e in ENDPOINTS if e.id == endpoint_id)
    assert isinstance(payload, list if endpoint.returns_list else dict)
    records = payload if isinstance(payload, list) else [payload]
    assert records and all("last_upd_date" in rec for rec in records)
    if callable(expected):
        assert expected(payload)
    else:
        assert payload == expected


def test_thai_text_is_sent_as_utf8_not_escaped(api):
    r = api.call("POST", F, {"name": "เจ้าพระยา"})
    assert r.status_code == 200 and "เจ้าพระยา".encode() in r.content
    assert all("เจ้าพระยา" in f["proj_name_th"] for f in r.json())


@pytest.mark.parametrize("endpoint_id", list(NO_DATA))
def test_no_data_answers_204_without_a_body(api, endpoint_id):
    method, path, body = NO_DATA[endpoint_id]
    r = api.call(method, path, body)
    assert r.status_code == 204 and r.content == b""


def test_some_no_data_cases_answer_200_with_an_empty_body(api):
    assert DS.empty_200
    for key, endpoint_id in DS.empty_200:
        path = EMPTY_200_PATHS[endpoint_id].format(F=F, L=L, id=key)
        r = api.call("GET", path)
        assert (r.status_code, r.content) == (200, b""), (endpoint_id, key)


def test_searches_match_case_insensitive_substrings(api):
    fund = next(f for f in DS.funds if f["fund_status"] == "RG")
    for text in (fund["proj_abbr_name"].lower(), fund["proj_name_en"].upper()[5:20], fund["proj_name_th"][-6:]):
        found = api.call("POST", F, {"name": text}).json()
        assert fund in found
    classes = api.call("POST", f"{F}/class_fund", {"name": DS.classes[MULTI][0]["proj_abbr_name"].lower()}).json()
    assert DS.classes[MULTI][0] in classes
    assert api.call("POST", f"{L}/company", {"Name": "demo"}).json() == DS.licensees  # E15 accepts "Name"
    assert api.call("POST", f"{L}/company", {"name": "เดโม"}).status_code == 200


def test_amc_funds_include_every_status(api):
    funds = api.call("GET", f"{F}/amc/{AMC}").json()
    assert {f["unique_id"] for f in funds} == {AMC}
    assert len({f["fund_status"] for f in funds}) >= 2


# ---- refused requests ----------------------------------------------------------------------------


def test_missing_and_wrong_keys_get_the_gateway_401(api):
    method, path, body, _ = CASES["E7"]
    r = api.call(method, path, body, key=None)
    assert r.status_code == 401 and r.json() == MISSING_KEY_BODY
    r = api.call(method, path, body, key="")
    assert r.status_code == 401 and r.json() == MISSING_KEY_BODY
    r = api.call(method, path, body, key="wrong-key-4711")
    assert r.status_code == 401 and r.json() == INVALID_KEY_BODY
    assert "wrong-key-4711" not in r.text and "wrong-key-4711" not in str(r.headers)


def test_keys_per_endpoint_group():
    api = Api(create_app(DS, valid_keys={"fund": {"F-KEY"}, "license": {"L-KEY"}}))
    fund_path, licence_path = CASES["E14"][1], CASES["E16"][1]
    assert api.call("GET", fund_path, key="F-KEY").status_code == 200
    assert api.call("GET", fund_path, key="L-KEY").json() == INVALID_KEY_BODY
    assert api.call("GET", licence_path, key="L-KEY").status_code == 200
    assert api.call("GET", licence_path, key="F-KEY").json() == INVALID_KEY_BODY


def test_any_key_or_no_key_when_so_configured():
    path = CASES["E14"][1]
    assert Api(create_app(DS)).call("GET", path, key="whatever").status_code == 200
    assert Api(create_app(DS)).call("GET", path, key=None).status_code == 401
    assert Api(create_app(DS, require_key=False)).call("GET", path, key=None).status_code == 200
    assert Api(create_app(DS, valid_keys="one")).call("GET", path, key="one").status_code == 200


def test_unknown_paths_answer_404_and_wrong_methods_405(api):
    for path in ("/nope", f"{F}/x/y/z/w", "/FundFactsheet", f"{F}/{HOLDER}/unknown", f"{F}/{HOLDER}/URLs/"):
        r = api.call("GET", path)
        assert r.status_code == 404 and r.json() == NOT_FOUND_BODY, path
    r = api.call("DELETE", F)
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert api.call("PUT", f"{L}/company").headers["allow"] == "GET, POST"
    assert api.call("POST", CASES["E7"][1], {"name": "x"}).status_code == 405


def test_legacy_gone_answers_404_everywhere():
    api = Api(create_app(DS, valid_keys={KEY}, legacy_gone=True))
    for method, path, body, _ in CASES.values():
        r = api.call(method, path, body)
        assert r.status_code == 404 and r.json() == NOT_FOUND_BODY


def test_bad_periods_and_bodies_answer_400(api):
    for period in ("202605", "2026-06", "abcd06", "20266", "2026063"):
        r = api.call("GET", f"{F}/{HOLDER}/FundPort/{period}")
        assert r.status_code == 400 and r.json()["statusCode"] == 400, period
    for body in (None, b"{not json", b"[1, 2]", b'{"name": ""}', b'{"name": 42}', b'{"Name": "x"}', b"\xff\xfe"):
        r = api.call("POST", F, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, body
        assert "name" in r.json()["message"] or "JSON" in r.json()["message"], body
    assert api.call("POST", f"{L}/company", content=b'{"Name": "Demo"}').status_code == 200


def test_path_segments_are_percent_decoded():
    ds = generate_demo_dataset(today=TODAY)
    record = {"last_upd_date": "2025-07-04T08:10:00", "url_halfyear_report": "-", "url_annual_report": "-", "url_factsheet": "-"}
    ds.urls["กองทุน ทดสอบ"] = record
    ds.urls["A/B"] = record
    app = create_app(ds, require_key=False)
    for api in (Api(app),):
        assert api.call("GET", f"{F}/{urllib.parse.quote('กองทุน ทดสอบ')}/URLs").json() == record
        assert api.call("GET", f"{F}/A%2FB/URLs").json() == record
    with SimulatorServer(app) as server:
        assert httpx.get(f"{server.base_url}{F}/A%2FB/URLs").json() == record


def test_a_hostile_fund_is_served_verbatim():
    ds = generate_demo_dataset(today=TODAY)
    hostile = dict(ds.funds[0], proj_id="M9999_2569", proj_name_en="<img src=x onerror=alert(1)>")
    ds.add_fund(hostile)
    api = Api(create_app(ds, valid_keys={KEY}))
    found = api.call("POST", F, {"name": "onerror"}).json()
    assert found == [hostile]
    assert DS.fund("M9999_2569") is None


# ---- faults --------------------------------------------------------------------------------------


def test_injected_throttling_carries_retry_after(api):
    path = CASES["E7"][1]
    api.app.inject("429", retry_after=7)
    r = api.call("GET", path)
    assert r.status_code == 429 and r.headers["retry-after"] == "7" and r.json()["statusCode"] == 429
    api.app.inject("421", times=2)
    assert [api.call("GET", path).status_code for _ in range(3)] == [421, 421, 200]
    api.app.inject("429")
    r = api.call("GET", path)
    assert r.status_code == 429 and "retry-after" not in r.headers


@pytest.mark.parametrize("kind", ["500", "502", "503", "504"])
def test_injected_server_errors(api, kind):
    api.app.inject(kind, retry_after=1 if kind == "503" else None)
    r = api.call("GET", CASES["E10"][1])
    assert r.status_code == int(kind)
    if kind == "500":
        assert r.json()["statusCode"] == 500
    else:
        assert r.headers["content-type"].startswith("text/html") and "<html>" in r.text
    assert api.call("GET", CASES["E10"][1]).status_code == 200


def test_injected_broken_bodies(api):
    api.app.inject("malformed_json")
    r = api.call("GET", CASES["E10"][1])
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    with pytest.raises(ValueError):
        json.loads(r.content)
    api.app.inject("html")
    r = api.call("GET", CASES["E10"][1])
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    api.app.inject("wrong_shape", times=2)
    assert isinstance(api.call("GET", CASES["E10"][1]).json(), dict)  # a list was expected
    assert isinstance(api.call("GET", CASES["E7"][1]).json(), str)  # an object was expected


def test_injected_timeout_is_a_slow_answer_that_can_be_abandoned(api):
    path = CASES["E14"][1]
    api.app.timeout_s = 0.25
    api.app.inject("timeout")
    start = time.perf_counter()
    assert api.call("GET", path).status_code == 200
    assert time.perf_counter() - start >= 0.25
    api.app.timeout_s = 30.0
    api.app.inject("timeout")
    start = time.perf_counter()
    with pytest.raises(TimeoutError):
        api.call("GET", path, timeout=0.3)
    assert time.perf_counter() - start < 5
    assert api.call("GET", path).status_code == 200


def test_every_fault_kind_can_be_injected():
    app = create_app(DS, require_key=False, timeout_s=0.01)
    api = Api(app)
    for kind in FAULT_KINDS:
        app.inject(kind)
        r = api.call("GET", CASES["E14"][1])
        assert r.status_code == (int(kind) if kind.isdigit() else 200), kind
    with pytest.raises(ValueError):
        app.inject("418")


def test_random_faults_are_reproducible():
    def statuses(seed: int) -> list[int]:
        api = Api(create_app(DS, require_key=False, fault_rate=0.5, seed=seed))
        return [api.call("GET", CASES["E14"][1]).status_code for _ in range(30)]

    first = statuses(3)
    assert first == statuses(3)
    assert 200 in first and set(first) - {200} <= {int(k) for k in DEFAULT_FAULTS} and len(set(first)) > 2
    always = Api(create_app(DS, require_key=False, fault_rate=1.0, faults=("503",)))
    assert {always.call("GET", CASES["E14"][1]).status_code for _ in range(5)} == {503}
    with pytest.raises(ValueError):
        create_app(DS, fault_rate=1.5)


# ---- latency and counters ------------------------------------------------------------------------


def test_latency_overlaps_between_concurrent_requests(api):
    api.app.latency_ms = 200
    start = time.perf_counter()
    responses = asyncio.run(api.gather(10, CASES["E14"][1]))
    elapsed = time.perf_counter() - start
    assert all(r.status_code == 200 for r in responses)
    assert elapsed >= 0.2
    assert elapsed / (10 * 0.2) < 0.5  # serial would be 1.0


def test_request_counters(api):
    api.app.reset_counters()
    api.call("GET", CASES["E14"][1])
    api.call("POST", F, {"name": "demo"}, key=None)
    api.call("GET", "/nope")
    assert api.app.request_count == 3
    assert api.app.requests == [("GET", CASES["E14"][1]), ("POST", F), ("GET", "/nope")]
    api.app.reset_counters()
    assert api.app.request_count == 0 and api.app.requests == []


def test_the_app_reads_its_data_set_live():
    ds = generate_demo_dataset(today=TODAY)
    app = create_app(ds, require_key=False)
    assert app.dataset is ds
    ds.performance.pop(first_key(DS.performance))
    assert Api(app).call("GET", CASES["E10"][1]).status_code == 204


# ---- on a socket ---------------------------------------------------------------------------------


def test_server_binds_a_free_port_and_stops(live):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", live.base_url) and live.port > 0
    with SimulatorServer(require_key=False, dataset=DS) as other:
        assert other.port != live.port
        assert httpx.get(other.base_url + CASES["E16"][1]).status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(other.base_url + CASES["E16"][1], timeout=2)


def test_the_key_is_never_logged(live, capfd):
    secret = "SECRET-KEY-DO-NOT-LOG-0815"
    r = httpx.get(live.base_url + CASES["E16"][1], headers={"Ocp-Apim-Subscription-Key": secret})
    assert r.status_code == 401 and secret not in r.text
    r = httpx.get(live.base_url + CASES["E16"][1], headers={"Ocp-Apim-Subscription-Key": KEY})
    assert r.status_code == 200
    out, err = capfd.readouterr()
    assert secret not in out + err and KEY not in out + err
    assert secret not in repr(live.app) and KEY not in repr(live.app)


def test_keys_from_env():
    assert keys_from_env({}) is None
    assert keys_from_env({"SEC_API_KEY": "s"}) == {"fund": {"s"}, "license": {"s"}}
    assert keys_from_env({"SEC_FUND_API_KEY": "f", "SEC_LICENSE_API_KEY": " l "}) == {"fund": {"f"}, "license": {"l"}}
    assert keys_from_env({"SEC_FUND_API_KEY": "f"}) == {"fund": {"f"}, "license": None}


def test_serve_prints_its_url_and_takes_keys_from_the_environment():
    secret = "env-key-for-serve-123"
    env = dict(os.environ, SEC_API_KEY=secret, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    env.pop("SEC_FUND_API_KEY", None)
    env.pop("SEC_LICENSE_API_KEY", None)
    code = "from dashboard.demo.loopback import serve; serve(0)"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        assert ready, "serve() printed nothing"
        line = proc.stdout.readline()
        assert secret not in line and "DEMO DATA" in line
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        path = CASES["E16"][1]
        deadline = time.monotonic() + 10
        while True:
            try:
                r = httpx.get(url + path, headers={"Ocp-Apim-Subscription-Key": secret})
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert r.status_code == 200
        assert httpx.get(url + path, headers={"Ocp-Apim-Subscription-Key": "other"}).status_code == 401
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    assert secret not in proc.stdout.read() + proc.stderr.read()

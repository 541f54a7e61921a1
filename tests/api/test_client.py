"""The client against the simulator over loopback: every endpoint, faults, retries, auth, cache."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from dashboard.api.cache import ResponseCache
from dashboard.errors import (
    AuthenticationError,
    BadInputError,
    MalformedResponseError,
    NotFoundError,
    RateLimitError,
    ServiceError,
)
from dashboard.api.periods import valid_periods
from tests.conftest import KEY, TODAY


def first_with(dataset, part: str) -> str:
    return next(p for p in getattr(dataset, part) if getattr(dataset, part)[p])


def ids(dataset):
    case_uid, case_id = next(iter(dataset.enforcement))
    person = next(p for p in dataset.approvals if dataset.approvals[p])
    duty_person = next(p for p in dataset.duties if dataset.duties[p])
    return {
        "E1": {"name": dataset.funds[0]["proj_abbr_name"]},
        "E2": {"unique_id": dataset.funds[0]["unique_id"]},
        "E3": {"name": next(iter(dataset.classes.values()))[0]["class_abbr_name"]},
        "E4": {"proj_id": first_with(dataset, "classes")},
        "E5": {"proj_id": first_with(dataset, "investment")},
        "E6": {"proj_id": first_with(dataset, "holdings"), "period": valid_periods(TODAY)[0]},
        "E7": {"proj_id": first_with(dataset, "project_type")},
        "E8": {"proj_id": first_with(dataset, "suitability")},
        "E9": {"proj_id": first_with(dataset, "return_estimate")},
        "E10": {"proj_id": first_with(dataset, "performance")},
        "E11": {"proj_id": first_with(dataset, "redemption")},
        "E12": {"proj_id": first_with(dataset, "fees")},
        "E13": {"proj_id": first_with(dataset, "allocation")},
        "E14": {"proj_id": first_with(dataset, "urls")},
        "E15": {"name": dataset.licensees[0]["name_en"][:6]},
        "E16": {},
        "E17": {"unique_id": person},
        "E18": {"unique_id": duty_person},
        "E19": {"unique_id": case_uid, "case_id": case_id},
        "E20": {"case_id": next(iter(dataset.alerts))},
    }


@pytest.mark.parametrize("eid", [f"E{i}" for i in range(1, 21)])
def test_every_endpoint_answers_normalised_records(eid, make_client, dataset, simulator):
    from dashboard.api.endpoints import endpoint

    client = make_client()
    data = client.fetch(eid, **ids(dataset)[eid])
    if endpoint(eid).returns_list:
        assert isinstance(data, list) and data and all("last_upd_date" in row for row in data)
    else:
        assert isinstance(data, dict) and "last_upd_date" in data
    method, path = simulator.app.requests[-1]
    assert method == endpoint(eid).method and path.startswith("/")


def test_no_data_is_an_empty_answer_not_an_error(make_client, dataset, simulator):
    client = make_client()
    no_perf = next(f["proj_id"] for f in dataset.funds if f["proj_id"] not in dataset.performance)
    no_suit = next(f["proj_id"] for f in dataset.funds if f["proj_id"] not in dataset.suitability)
    assert client.fetch("E10", proj_id=no_perf) == []
    assert client.fetch("E8", proj_id=no_suit) is None
    assert client.fetch("E1", name="no fund has this name zzz") == []


def test_200_with_an_empty_body_means_no_data(make_client, dataset, simulator):
    from dashboard.api.endpoints import endpoint

    client = make_client()
    checked = 0
    for ident, eid in sorted(dataset.empty_200):
        ep = endpoint(eid)
        params = {ep.path_params[0]: ident}
        if eid == "E6":
            params["period"] = valid_periods(TODAY)[0]
        data = client.fetch(eid, **params)
        assert data == ([] if ep.returns_list else None), (eid, ident)
        checked += 1
    assert checked >= 2 and simulator.app.request_count == checked


def test_missing_key_is_refused_before_any_request(make_client, simulator):
    client = make_client(api_key=None)
    with pytest.raises(AuthenticationError, match="SEC_API_KEY") as err:
        client.fetch("E16")
    assert err.value.exit_code == 3
    assert simulator.app.request_count == 0


def test_rejected_key_gives_the_gateway_message_and_is_not_retried(make_client, simulator):
    wrong = "ffffffffffffffffffffffffffffffff"
    client = make_client(api_key=wrong)
    with pytest.raises(AuthenticationError) as err:
        client.fetch("E16")
    assert "invalid subscription key" in str(err.value) and err.value.status_code == 401
    assert wrong not in str(err.value)
    assert simulator.app.request_count == 1


def test_per_group_keys(dataset):
    from dashboard.api.sync import SecClient
    from dashboard.config import ApiSettings
    from dashboard.demo.loopback import SimulatorServer
    from dashboard.demo.simulator import create_app

    app = create_app(dataset, valid_keys={"fund": {"fund-key"}, "license": {"licence-key"}})
    with SimulatorServer(app) as server:
        good = SecClient(ApiSettings.from_env(base_url=server.base_url, fund_api_key="fund-key",
                                              license_api_key="licence-key", use_cache=False, environ={}))
        assert good.fetch("E16") and good.fetch("E1", name=dataset.funds[0]["proj_abbr_name"])
        shared = SecClient(ApiSettings.from_env(base_url=server.base_url, api_key="fund-key", use_cache=False, environ={}))
        assert shared.fetch("E1", name=dataset.funds[0]["proj_abbr_name"])
        with pytest.raises(AuthenticationError):
            shared.fetch("E16")
        good.close()
        shared.close()


@pytest.mark.parametrize("kind", ["500", "502", "503", "504", "429", "421"])
def test_transient_failures_are_retried(kind, make_client, simulator):
    simulator.app.inject(kind, times=2)
    client = make_client()
    assert client.fetch("E16")
    assert simulator.app.request_count == 3
    assert client.stats.retries == 2


def test_retry_after_is_honoured(make_client, simulator):
    simulator.app.inject("429", times=1, retry_after=0.6)
    client = make_client()
    start = time.perf_counter()
    client.fetch("E16")
    assert time.perf_counter() - start >= 0.6
    assert simulator.app.request_count == 2


def test_retries_run_out_with_a_clear_error(make_client, simulator):
    simulator.app.inject("503", times=10)
    with pytest.raises(ServiceError, match="try again later") as err:
        make_client(max_attempts=3).fetch("E16")
    assert err.value.exit_code == 4 and simulator.app.request_count == 3
    simulator.app.clear_faults()
    simulator.app.inject("429", times=10)
    with pytest.raises(RateLimitError, match="throttling"):
        make_client(max_attempts=2).fetch("E16")


def test_a_retry_after_beyond_the_total_budget_stops_at_once(make_client, simulator):
    simulator.app.inject("429", times=1, retry_after=60)
    start = time.perf_counter()
    with pytest.raises(RateLimitError) as err:
        make_client(total_timeout=2.0).fetch("E16")
    assert time.perf_counter() - start < 30 and err.value.retry_after == 60


def test_timeouts_are_retried(make_client, simulator):
    simulator.app.inject("timeout", times=1)
    client = make_client(timeout=0.4)
    assert client.fetch("E16")
    assert simulator.app.request_count == 2


@pytest.mark.parametrize("kind, tries", [("malformed_json", 2), ("html", 2), ("wrong_shape", 1)])
def test_malformed_answers_are_errors_and_never_cached(kind, tries, make_client, simulator):
    """A damaged body (cut off, an HTML page) may be a passing fault and is tried again; a body of the
    wrong shape is the service's format and is not."""
    client = make_client(max_attempts=2)
    simulator.app.inject(kind, times=5)
    with pytest.raises(MalformedResponseError):
        client.fetch("E16")
    assert simulator.app.request_count == tries
    simulator.app.clear_faults()
    assert client.fetch("E16")  # and the bad answer was not cached
    assert simulator.app.request_count == tries + 1
    assert client.cache.info()["entries"] == 1


def test_client_errors_are_not_retried(make_client, simulator):
    simulator.app.legacy_gone = True
    with pytest.raises(NotFoundError, match="SEC_API_BASE_URL"):
        make_client().fetch("E16")
    assert simulator.app.request_count == 1


def test_unreachable_service_is_a_service_error(tmp_path):
    import socket

    from dashboard.api.sync import SecClient
    from dashboard.config import ApiSettings

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = SecClient(ApiSettings.from_env(base_url=f"http://127.0.0.1:{port}", api_key=KEY, cache_dir=tmp_path, environ={}),
                       max_attempts=2, backoff_base=0.01)
    with pytest.raises(ServiceError, match="could not connect"):
        client.fetch("E16")
    client.close()


@pytest.mark.parametrize(
    "eid, params, words",
    [
        ("E4", {"proj_id": "../E16"}, "slash"),
        ("E4", {"proj_id": ".."}, "'[.][.]'"),
        ("E4", {"proj_id": "a/b"}, "slash"),
        ("E4", {"proj_id": ""}, "empty"),
        ("E6", {"proj_id": "M1_2564", "period": "202605"}, "quarter end"),
        ("E6", {"proj_id": "M1_2564", "period": "202609"}, "not published yet"),
        ("E6", {"proj_id": "M1_2564", "period": "201912"}, "3 years back"),
        ("E1", {"name": " "}, "empty"),
    ],
)
def test_bad_input_is_refused_before_any_request(eid, params, words, make_client, simulator):
    with pytest.raises(BadInputError, match=words):
        make_client().fetch(eid, **params)
    assert simulator.app.request_count == 0


def test_cache_hit_then_expiry(make_client, simulator, tmp_path):
    clock = [1_000_000.0]
    cache = ResponseCache(tmp_path / "ttl", clock=lambda: clock[0])
    client = make_client(cache=cache)
    client.fetch("E16")
    client.fetch("E16")
    assert simulator.app.request_count == 1 and client.stats.cache_hits == 1
    clock[0] += 13 * 3600  # beyond the licence-list TTL
    client.fetch("E16")
    assert simulator.app.request_count == 2


def test_stale_entry_is_served_when_the_service_fails(make_client, simulator, tmp_path, caplog):
    clock = [1_000_000.0]
    cache = ResponseCache(tmp_path / "stale", clock=lambda: clock[0])
    client = make_client(cache=cache, max_attempts=2)
    fresh = client.request("E16")
    clock[0] += 30 * 24 * 3600
    simulator.app.inject("503", times=5)
    with caplog.at_level(logging.WARNING, logger="dashboard.api"):
        stale = client.request("E16")
    assert stale.stale and stale.from_cache and stale.data == fresh.data
    assert "stale" in caplog.text and client.stats.stale_served == 1


def test_errors_are_not_cached(make_client, simulator, tmp_path):
    client = make_client()
    simulator.app.inject("503", times=10)
    with pytest.raises(ServiceError):
        client.fetch("E16")
    assert client.cache.info()["entries"] == 0


def test_corrupted_cache_is_rebuilt_and_the_client_keeps_working(make_client, tmp_path, caplog):
    directory = tmp_path / "broken"
    make_client(cache_dir=directory).fetch("E16")
    (directory / "cache.db").write_bytes(b"garbage" * 1000)
    with caplog.at_level(logging.WARNING, logger="dashboard.cache"):
        client = make_client(cache_dir=directory)
    assert client.fetch("E16") and "rebuilding" in caplog.text


def test_the_key_appears_in_no_log_error_repr_or_cache_file(make_client, simulator, tmp_path, caplog):
    directory = tmp_path / "secret-check"
    client = make_client(cache_dir=directory)
    messages = []
    with caplog.at_level(logging.DEBUG):
        client.fetch("E16")
        client.fetch("E1", name="demo")
        for kind in ("503", "429", "html"):
            simulator.app.inject(kind, times=10)
            try:
                client.fetch("E15", name="demo")
            except Exception as exc:  # noqa: BLE001 - every error kind is inspected below
                messages.append(str(exc) + repr(exc))
            simulator.app.clear_faults()
    text = caplog.text + "".join(messages) + repr(client) + repr(client.settings) + str(client.async_client)
    assert KEY not in text
    assert messages
    for path in directory.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_rate_limiter_is_shared_by_every_client_with_the_same_key(make_client):
    from dashboard.api.ratelimit import limiter_for

    a = make_client(rate_limit_calls=4, rate_limit_period=1.0, use_cache=False)
    b = make_client(rate_limit_calls=4, rate_limit_period=1.0, use_cache=False)
    limiter = limiter_for(KEY, 4, 1.0)
    assert limiter is limiter_for(KEY, 4, 1.0)
    start = time.perf_counter()
    for client in (a, b, a, b, a, b):
        client.fetch("E16")
    # six calls at four a second: the fifth had to wait for the window to move
    assert time.perf_counter() - start >= 0.9
    assert limiter.waited_s > 0


def test_demo_clients_keep_limits_of_their_own():
    """The demo's clients have no key: one that used up its limit leaves another's calls unhindered (one
    process-wide limit for every keyless client made unrelated demo sessions, and test runs, wait for each
    other's calls)."""
    from dashboard.config import ApiSettings
    from dashboard.demo.connect import open_client

    settings = ApiSettings.from_env(demo=True, use_cache=False, environ={})
    options = dict(today=lambda: TODAY, rate_limit_calls=2, rate_limit_period=300.0, deadline_s=10.0)
    a, b = open_client(settings, **options), open_client(settings, **options)
    try:
        own = a.async_client._limiter(None)
        assert own is a.async_client._limiter(None) and own is not b.async_client._limiter(None)
        a.fetch("E16")
        a.fetch("E16")
        b.fetch("E16")
        b.fetch("E16")  # with one shared limit, this third and fourth call would wait five minutes
        assert b.stats.requests_sent == 2 and a.stats.requests_sent == 2
        assert own.waited_s == 0 and b.async_client._limiter(None).waited_s == 0
    finally:
        a.close()
        b.close()


def test_factsheet_loads_in_about_one_round_trip(make_client, simulator, dataset):
    """The factsheet's parts go out together: counted as requests inside the service's latency at the
    same moment (not timed, so a busy machine cannot fail it)."""
    from dashboard.models import FundFactsheet
    from dashboard.models.source import run

    proj_id = first_with(dataset, "holdings")
    simulator.app.latency_ms = 150
    client = make_client(use_cache=False)
    simulator.app.reset_counters()
    sheet = run(FundFactsheet(client=client).load(proj_id))
    assert simulator.app.request_count >= 22  # 10 parts and 12 quarters (and maybe a name lookup)
    # one after another, one request would be in flight at a time
    assert simulator.app.most_in_flight >= 20, (simulator.app.most_in_flight, simulator.app.request_count)
    assert len(sheet.holdings) == 12


def test_sync_facade_works_inside_a_running_event_loop(demo_client):
    async def notebook_cell():
        # as in Jupyter: a loop is running and the user calls the synchronous API
        return demo_client.fetch("E16")

    assert asyncio.run(notebook_cell())


def test_a_warm_factsheet_makes_no_request_and_frames_are_private_copies(make_client, simulator, dataset):
    from dashboard.models import FundFactsheet
    from dashboard.models.source import run

    proj_id = first_with(dataset, "holdings")
    client = make_client()
    first = run(FundFactsheet(client=client).load(proj_id))
    simulator.app.reset_counters()
    second = run(FundFactsheet(client=client).load(proj_id))
    assert simulator.app.request_count == 0
    assert second.fees.equals(first.fees)
    second.fees.loc[:, "rate"] = "changed"  # a view may not change another view's data
    assert not run(FundFactsheet(client=client).load(proj_id)).fees["rate"].eq("changed").any()


def test_no_cache_means_no_memory_either(make_client, simulator):
    client = make_client(use_cache=False)
    client.fetch("E16")
    client.fetch("E16")
    assert simulator.app.request_count == 2 and client.cache is None


def test_a_key_echoed_back_in_any_case_or_encoding_is_redacted(tmp_path):
    """The simulator never echoes keys; a gateway might. The transport stands in for such a gateway."""
    import urllib.parse

    import httpx

    from dashboard.api.sync import SecClient
    from dashboard.config import ApiSettings

    key = "AbCdEf0123456789AbCdEf0123456789"
    echoes = [key.lower(), key.upper(), urllib.parse.quote(key + "/", safe="")]

    def gateway(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"message": "bad request for key " + " and ".join(echoes)})

    client = SecClient(ApiSettings.from_env(base_url="http://gateway.invalid", api_key=key, use_cache=False, environ={}),
                       transport=httpx.MockTransport(gateway))
    with pytest.raises(BadInputError) as err:
        client.fetch("E16")
    assert key.lower() not in str(err.value).lower() and "***" in str(err.value)
    client.close()


def test_clients_share_one_tls_context_that_still_verifies(make_client, monkeypatch):
    """Building a verifying TLS context loads the whole CA bundle (~20 ms); a client per fund switch,
    sync or command built one each. Every client shares one now, and it still checks the service."""
    import ssl

    built: list[ssl.SSLContext] = []
    create = ssl.create_default_context
    monkeypatch.setattr(ssl, "create_default_context", lambda *a, **k: built.append(create(*a, **k)) or built[-1])
    clients = [make_client(use_cache=False) for _ in range(3)]
    assert len(built) <= 1, f"{len(built)} TLS contexts built for {len(clients)} clients"
    from dashboard.api.client import tls_context

    context = tls_context()
    assert context is tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert clients[0].fetch("E16") is not None  # the clients work

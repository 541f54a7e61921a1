"""A hostile or broken service, served over loopback: bombs, endless and deep bodies, corrupt
compression and echoed keys. Each becomes a clean error, is tried again, and is never cached."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import threading
import tracemalloc
import zlib

import diskcache
import pytest

from dashboard.api.sync import SecClient
from dashboard.api.wire import MAX_BODY_BYTES, MAX_JSON_DEPTH
from dashboard.errors import MalformedResponseError
from dashboard.config import ApiSettings
from dashboard.demo.loopback import SimulatorServer
from tests.conftest import KEY, TODAY

LICENSEES = [{"last_upd_date": "2025-07-02T06:47:30.35", "unique_id": "0105536000001", "name_th": "บริษัท หนึ่ง จำกัด",
              "name_en": "One Company Limited"}]
MB = 1024 * 1024


def _bomb(expanded_mb: int) -> bytes:
    """A gzip body of zeros, built piece by piece so the test itself never holds the expanded size."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(MB)
    return b"".join(packer.compress(block) for _ in range(expanded_mb)) + packer.flush()


class HostileService:
    """An ASGI app that answers every request with the body queued for it (then the healthy one)."""

    def __init__(self):
        self.queue: list[dict] = []
        self.requests = 0
        self.bytes_sent = 0
        self.finished = threading.Event()  # an endless answer ended (the client hung up)
        self._lock = threading.Lock()

    def serve(self, times: int = 1, **answer) -> None:
        self.queue.extend([answer] * times)

    def wake_sleepers(self) -> None:
        """SimulatorServer calls this on shutdown; nothing here sleeps."""

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return
        with self._lock:
            self.requests += 1
            answer = self.queue.pop(0) if self.queue else {"body": json.dumps(LICENSEES).encode()}
        headers = [(b"content-type", b"application/json")] + [(k.encode(), v.encode()) for k, v in
                                                               answer.get("headers", {}).items()]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if answer.get("endless"):
            gone = asyncio.Event()

            async def watch() -> None:
                while (await receive())["type"] != "http.disconnect":
                    continue
                gone.set()

            watcher = asyncio.ensure_future(watch())
            chunk = b"[" + b" " * (MB - 1)
            # sends until the client hangs up (a safety stop far past the client's bound)
            while not gone.is_set() and self.bytes_sent < 20 * MAX_BODY_BYTES:
                self.bytes_sent += len(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await asyncio.sleep(0)
                chunk = b" " * MB
            self.finished.set()
            watcher.cancel()
            return
        self.bytes_sent += len(answer["body"])
        await send({"type": "http.response.body", "body": answer["body"], "more_body": False})


@pytest.fixture(scope="module")
def hostile_server():
    with SimulatorServer(HostileService()) as server:
        yield server


@pytest.fixture
def hostile(hostile_server, tmp_path):
    service: HostileService = hostile_server.app
    service.queue.clear()
    service.requests = service.bytes_sent = 0
    service.finished.clear()
    clients = []

    def client(**options) -> SecClient:
        settings = ApiSettings.from_env(base_url=hostile_server.base_url, api_key=KEY, cache_dir=tmp_path / "cache",
                                        layout="legacy", environ={})
        options.setdefault("max_attempts", 2)
        made = SecClient(settings, today=lambda: TODAY, backoff_base=0.01, backoff_max=0.02,
                         rate_limit_calls=1_000_000, **options)
        clients.append(made)
        return made

    yield service, client
    for made in clients:
        made.close()


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("answer", [
    pytest.param({"body": _nested(600)}, id="600-deep"),
    pytest.param({"body": _nested(50_000)}, id="50000-deep"),
    pytest.param({"body": b'[{"unique_id": "0105536000001", "name_en": ' + _nested(MAX_JSON_DEPTH) + b"}]"},
                 id="deep-inside-a-record"),
    pytest.param({"body": b"\x1f\x8b\x08\x00garbage-not-gzip", "headers": {"content-encoding": "gzip"}}, id="corrupt-gzip"),
    pytest.param({"body": b"not deflate at all", "headers": {"content-encoding": "deflate"}}, id="corrupt-deflate"),
    pytest.param({"body": gzip.compress(json.dumps(LICENSEES).encode())[:-12], "headers": {"content-encoding": "gzip"}},
                 id="cut-off-gzip"),
    pytest.param({"body": b"[]", "headers": {"content-encoding": "br"}}, id="unknown-encoding"),
])
def test_a_broken_body_is_a_malformed_answer_tried_again_and_never_cached(answer, hostile, caplog):
    service, make = hostile
    client = make()
    service.serve(times=2, **answer)
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(MalformedResponseError) as err:
            client.fetch("E16")
    assert service.requests == 2  # tried again, like other bad answers
    assert err.value.exit_code == 4 and "\n" not in str(err.value)
    assert "Traceback" not in caplog.text
    assert client.cache.info()["entries"] == 0  # nothing cached
    rows = client.fetch("E16")  # the service is healthy again: the answer is fetched, not a cached failure
    assert rows[0]["name_en"] == "One Company Limited" and service.requests == 3


def test_a_bad_answer_does_not_outlive_the_fault_in_a_new_process(hostile):
    """The 600-deep body used to be cached and to crash every later run until it expired."""
    service, make = hostile
    service.serve(times=2, body=_nested(600))
    with pytest.raises(MalformedResponseError):
        make().fetch("E16")
    later = make()  # a new client on the same cache directory, as the next CLI run
    assert later.fetch("E16")[0]["unique_id"] == "0105536000001"


@pytest.mark.parametrize("encoding, pack", [
    ("gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, as some servers send it
    ("identity", lambda data: data),
])
def test_well_formed_compressed_answers_still_read(encoding, pack, hostile):
    service, make = hostile
    service.serve(body=pack(json.dumps(LICENSEES).encode()), headers={"content-encoding": encoding})
    assert make().fetch("E16")[0]["unique_id"] == "0105536000001" and service.requests == 1


def test_a_decompression_bomb_stops_at_the_bound_without_taking_its_size(hostile):
    service, make = hostile
    expanded = MAX_BODY_BYTES // MB * 4  # four times the bound, from about a quarter of a MB on the wire
    service.serve(times=1, body=_bomb(expanded), headers={"content-encoding": "gzip"})
    client = make(max_attempts=1)
    tracemalloc.start()
    try:
        with pytest.raises(MalformedResponseError, match="MB and was stopped"):
            client.fetch("E16")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * MAX_BODY_BYTES < expanded * MB  # bounded by the limit, far below what it expands to


def test_an_endless_body_stops_at_the_bound(hostile):
    service, make = hostile
    service.serve(times=1, endless=True)
    with pytest.raises(MalformedResponseError, match="stopped"):
        make(max_attempts=1).fetch("E16")
    assert service.finished.wait(10)
    # reading stopped near the bound: the service would have sent twenty times as much
    assert service.bytes_sent < 2 * MAX_BODY_BYTES


def test_a_smaller_bound_can_be_set_per_client(hostile):
    service, make = hostile
    service.serve(times=1, body=json.dumps(LICENSEES * 100).encode())
    with pytest.raises(MalformedResponseError, match="stopped"):
        make(max_attempts=1, max_body_bytes=1000).fetch("E16")
    assert make(max_body_bytes=1000).fetch("E16")  # the healthy (small) answer fits


def test_a_key_echoed_inside_data_fields_reaches_no_record_cache_or_index(hostile, tmp_path):
    service, make = hostile
    echoed = {"last_upd_date": "2025-07-02T06:47:30.35", "proj_id": "M0001_2560", "regis_id": KEY.upper(),
              "proj_name_th": f"กองทุน {KEY}", "proj_name_en": f"Fund for key%20{KEY.lower()}",
              "proj_abbr_name": "KEY-FUND", "fund_status": "RG", "unique_id": "C0000000001", KEY: "as a field name"}
    service.serve(body=json.dumps([echoed]).encode())
    client = make()
    records = client.fetch("E1", name="KEY-FUND")
    text = json.dumps(records, ensure_ascii=False) + json.dumps(client.known_fund("M0001_2560"), ensure_ascii=False)
    assert KEY.lower() not in text.lower() and "***" in text
    assert records[0]["proj_name_th"] == "กองทุน ***"
    client.close()
    # what the cache holds, read back as the stored JSON (its files are compressed)
    stored = diskcache.Cache(str(tmp_path / "cache"), disk=diskcache.JSONDisk)
    cached_text = json.dumps([[key, stored.get(key)] for key in stored.iterkeys()], ensure_ascii=False)
    stored.close()
    assert "M0001_2560" in cached_text and "***" in cached_text
    assert KEY.lower() not in cached_text.lower()

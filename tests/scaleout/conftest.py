"""Fixtures of the scale-out tests: a real redis-server on a free loopback port, a simulator that
records when each call arrives (and throttles past a quota, as the service does), client processes."""

from __future__ import annotations

import bisect
import collections
import copy
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from dashboard.demo.loopback import SimulatorServer

from dashboard.demo.simulator import create_app
from tests.conftest import KEY
from tests.helpers import free_port

REDIS_SERVER = "/usr/bin/redis-server"
WORKER = Path(__file__).with_name("worker.py")
ROOT = Path(__file__).resolve().parents[2]


class RedisServer:
    """Debian's redis-server on 127.0.0.1, nothing saved to disk; started and stopped by the test."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


@pytest.fixture
def redis_server(tmp_path):
    if not os.access(REDIS_SERVER, os.X_OK):
        pytest.fail(f"{REDIS_SERVER} is missing: run `bash scripts/setup.sh --test` (it installs Debian's redis-server)")
    server = RedisServer(tmp_path).start()
    try:
        yield server
    finally:
        server.stop()


class ArrivalLog:
    """ASGI wrapper: notes when each call arrives and answers 429 past `calls` in any `period` seconds,
    counted from arrival as the service counts (the service's sliding quota)."""

    def __init__(self, app, calls: int, period: float):
        self.app, self.calls, self.period = app, calls, period
        self.arrivals: list[tuple[float, str]] = []  # (wall-clock time, path) of every call let through
        self._recent: collections.deque[float] = collections.deque()
        self.throttled = 0
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            now = time.time()
            with self._lock:
                while self._recent and now - self._recent[0] >= self.period:
                    self._recent.popleft()
                refuse = len(self._recent) >= self.calls
                if refuse:
                    self.throttled += 1
                else:
                    self._recent.append(now)
                    self.arrivals.append((now, scope["path"]))
            if refuse:
                await send({"type": "http.response.start", "status": 429,
                            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1")]})
                await send({"type": "http.response.body", "body": b'{"statusCode": 429, "message": "Rate limit is exceeded."}'})
                return
        await self.app(scope, receive, send)

    def __getattr__(self, name: str):
        return getattr(self.app, name)  # the simulator's own controls (wake_sleepers on shutdown)

    def reset(self) -> None:
        with self._lock:
            self.arrivals.clear()
            self._recent.clear()
            self.throttled = 0

    def times(self, path_part: str = "") -> list[float]:
        with self._lock:
            return sorted(t for t, path in self.arrivals if path_part in path)


def max_in_window(times: list[float], period: float, *, since: float = float("-inf")) -> int:
    """The most calls in any window (t - period, t] that ends at a call at or after `since`."""
    times = sorted(times)
    best = 0
    for i, t in enumerate(times):
        if t >= since:
            best = max(best, i + 1 - bisect.bisect_right(times, t - period))
    return best


@pytest.fixture(scope="module")
def quota_server(dataset):
    """The simulator on a free loopback port, behind a 20 calls / 2 s quota that notes arrivals."""
    log = ArrivalLog(create_app(copy.deepcopy(dataset), valid_keys={KEY}, timeout_s=5.0), calls=20, period=2.0)
    with SimulatorServer(log) as server:
        # one call first, so that the simulator's own first-call work is not timed as arrivals
        httpx.get(f"{server.base_url}/FundFactsheet/fund/amc/C0000000000", headers={"Ocp-Apim-Subscription-Key": KEY})
        yield server


@pytest.fixture
def arrivals(quota_server):
    quota_server.app.reset()
    return quota_server.app


@dataclass
class Worker:
    process: subprocess.Popen
    prefix: str
    result: dict = field(default_factory=dict)


def start_workers(base_url: str, specs: list[tuple[str, Path, int]], env: dict[str, str], *, start_in: float = 1.5,
                  extra: tuple[str, ...] = ()) -> list[Worker]:
    """One client process per (prefix, cache directory, count); they start their calls together."""
    start_at = time.time() + start_in
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    environment.update({"SEC_API_KEY": KEY, "PYTHONPATH": str(ROOT), **env})
    workers = []
    for prefix, cache_dir, count in specs:
        process = subprocess.Popen([sys.executable, str(WORKER), base_url, str(cache_dir), f"{start_at:.3f}", prefix,
                                    str(count), *extra], env=environment, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        workers.append(Worker(process, prefix))
    return workers


def finish(workers: list[Worker], timeout: float = 120) -> list[dict]:
    for worker in workers:
        out, err = worker.process.communicate(timeout=timeout)
        assert worker.process.returncode == 0, f"worker {worker.prefix} failed:\n{err[-3000:]}"
        worker.result = json.loads(out.strip().splitlines()[-1])
    return [w.result for w in workers]

"""Benchmark: calls per window across 2 client processes against the simulator with a low configured limit.

Two processes (each the real client, run by this script in `--worker` mode) ask the loopback simulator
for distinct answers at once; the simulator notes when each call arrives and, like the service,
answers 429 past the limit in any sliding window counted from arrival. Printed for each shared
limiter (the file in a shared cache directory; Redis, when /usr/bin/redis-server is installed):
calls per consecutive window, the most in any sliding window against the limit, throttling answers.

    python benchmarks/bench_limits.py [--limit 20/2] [--calls 60]
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "0123456789abcdef0123456789abcdef"  # a made-up key the simulator is told to accept
REDIS_SERVER = "/usr/bin/redis-server"


class ArrivalQuota:
    """ASGI wrapper: notes arrivals; 429 past `calls` per `period` seconds counted from arrival."""

    def __init__(self, app, calls: int, period: float):
        self.app, self.calls, self.period = app, calls, period
        self.arrivals: list[float] = []
        self.recent: collections.deque[float] = collections.deque()
        self.throttled = 0
        self.lock = threading.Lock()

    def __getattr__(self, name):
        return getattr(self.app, name)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            now = time.time()
            with self.lock:
                while self.recent and now - self.recent[0] >= self.period:
                    self.recent.popleft()
                refuse = len(self.recent) >= self.calls
                if refuse:
                    self.throttled += 1
                else:
                    self.recent.append(now)
                    self.arrivals.append(now)
            if refuse:
                await send({"type": "http.response.start", "status": 429, "headers": [(b"retry-after", b"1")]})
                await send({"type": "http.response.body", "body": b'{"statusCode": 429}'})
                return
        await self.app(scope, receive, send)


def worker(argv: list[str]) -> int:
    from dashboard.config import ApiSettings
    from dashboard.demo.connect import open_client

    base_url, cache_dir, start_at, prefix, count = argv
    client = open_client(ApiSettings.from_env(base_url=base_url, cache_dir=cache_dir, layout="legacy"),
                         backoff_base=0.05, backoff_max=0.2)
    try:
        time.sleep(max(0.0, float(start_at) - time.time()))
        calls = [("E2", {"unique_id": f"{prefix}{i:09d}"}) for i in range(int(count))]
        results = [r for i in range(0, len(calls), 10) for r in client.fetch_many(calls[i:i + 10])]
        print(json.dumps({"sent": client.stats.requests_sent, "failed": sum(isinstance(r, Exception) for r in results)}))
    finally:
        client.close()
    return 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_redis(workdir: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                "no", "--dir", str(workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("redis-server did not start")


def run_pair(quota: ArrivalQuota, base_url: str, limit: str, per_process: int, cache_dirs: tuple[Path, Path],
             env: dict[str, str], prefix: str) -> list[dict]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    environment.update({"SEC_API_KEY": KEY, "SEC_API_RATE_LIMIT": limit, **env})
    start_at = time.time() + 2.0
    processes = [subprocess.Popen([sys.executable, __file__, "--worker", base_url, str(cache_dir), f"{start_at:.3f}",
                                   f"{prefix}{n}", str(per_process)], env=environment, stdout=subprocess.PIPE, text=True)
                 for n, cache_dir in enumerate(cache_dirs, start=1)]
    return [json.loads(p.communicate(timeout=600)[0].strip().splitlines()[-1]) for p in processes]


def report(label: str, quota: ArrivalQuota, calls: int, period: float, results: list[dict]) -> None:
    times = sorted(quota.arrivals)
    first = times[0]
    per_window = collections.Counter(int((t - first) // period) for t in times)
    sliding = max(i + 1 - bisect.bisect_right(times, t - period) for i, t in enumerate(times))
    windows = " ".join(f"{per_window[w]:>3}" for w in range(max(per_window) + 1))
    print(f"  {label:<34} calls per {period:g} s window: {windows}")
    print(f"  {'':<34} most in any sliding window {sliding} (limit {calls}); throttled {quota.throttled}; "
          f"sent {sum(r['sent'] for r in results)}, failed {sum(r['failed'] for r in results)}; "
          f"{times[-1] - first:.1f} s", flush=True)


def main() -> int:
    if sys.argv[1:2] == ["--worker"]:
        return worker(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", default="20/2", help="SEC_API_RATE_LIMIT for both processes (default 20/2)")
    parser.add_argument("--calls", type=int, default=60, help="calls per process (default 60)")
    args = parser.parse_args()

    from dashboard.config import parse_rate_limit
    from dashboard.demo.loopback import SimulatorServer
    from dashboard.demo.simulator import create_app

    calls, period = parse_rate_limit(args.limit)
    quota = ArrivalQuota(create_app(valid_keys={KEY}, timeout_s=5.0), calls, period)
    print(f"2 processes x {args.calls} calls, limit {calls} per {period:g} s, simulator on loopback", flush=True)
    with SimulatorServer(quota) as server, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = [("file limiter (one cache directory)", {}, (work / "shared", work / "shared"))]
        redis_process = None
        if os.access(REDIS_SERVER, os.X_OK):
            redis_process, url = start_redis(work)
            cases.append(("Redis limiter (own cache dirs)", {"SEC_DASHBOARD_REDIS_URL": url}, (work / "a", work / "b")))
        else:
            print(f"  (Redis limiter skipped: {REDIS_SERVER} is not installed)")
        try:
            for n, (label, env, dirs) in enumerate(cases):
                quota.arrivals.clear(), quota.recent.clear()
                quota.throttled = 0
                results = run_pair(quota, server.base_url, args.limit, args.calls, dirs, env, prefix=f"C{n}")
                report(label, quota, calls, period, results)
        finally:
            if redis_process is not None:
                redis_process.terminate()
                redis_process.wait(5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

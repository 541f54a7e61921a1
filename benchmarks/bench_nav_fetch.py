"""Benchmark: one class's five-year NAV history against the simulator at 100 ms injected latency.

Side by side in one run: one round trip (a one-page call), the history cold (empty cache), warm (the
same client: memory) and warm from disk (a new client over the same cache directory), with the
requests each sent, over several runs with median and spread, and the cold load in round trips.
Targets (issue 27): cold within 4 round trips; warm 0 requests. The cold fetch is also timed with no
latency, to tell the waiting (round trips) from the processing on a shared machine. Also the older service's
one-day-per-call layout for its last 30 days, for contrast.

    python benchmarks/bench_nav_fetch.py [--latency-ms 100] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.api.connect import open_client  # noqa: E402
from dashboard.api.nav import fetch_nav_history  # noqa: E402
from dashboard.config import ApiSettings  # noqa: E402
from dashboard.demo.generator import generate_demo_dataset  # noqa: E402
from dashboard.demo.loopback import SimulatorServer  # noqa: E402
from dashboard.demo.simulator import create_app  # noqa: E402

KEY = "benchmark-key-not-a-real-one"


def summary(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):8.1f} ms   min {ms[0]:8.1f}   max {ms[-1]:8.1f}   (n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    today = date.today()
    dataset = generate_demo_dataset(today=today)
    # a fund with several classes and five years of history: one class of it
    proj_id, profile = next((p, v) for p, v in dataset.nav_profiles.items()
                            if len(v["classes"]) >= 2 and v["first"] <= (today - timedelta(days=5 * 366)).isoformat())
    class_name = profile["classes"][0]["name"]
    app = create_app(dataset, valid_keys={KEY}, latency_ms=args.latency_ms, today=today)
    end = today - timedelta(days=1)
    start = end.replace(year=end.year - 5)
    print(f"fund {proj_id}, class {class_name}, {start} .. {end}; injected latency {args.latency_ms:.0f} ms")
    with SimulatorServer(app) as server, tempfile.TemporaryDirectory() as tmp:
        for layout in ("successor", "legacy"):
            app.layout = layout
            print(f"\n== {layout} layout ==")
            bench(app, server, tmp, layout, proj_id, class_name, start, end, args)


def bench(app, server, tmp, layout, proj_id, class_name, start, end, args) -> None:
    one, cold, warm, disk = [], [], [], []
    cold_requests, warm_requests, disk_requests, rows = [], [], [], 0
    for index in range(args.runs):
        settings = ApiSettings.from_env(base_url=server.base_url, api_key=KEY, cache_dir=f"{tmp}/{layout}{index}",
                                        layout=layout, environ={})
        client = open_client(settings)
        client.fetch("E16")  # the connection pool warmed, as a running dashboard has it
        app.reset_counters()
        t = time.perf_counter()
        client.fetch("E4", proj_id=proj_id)
        one.append(time.perf_counter() - t)

        app.reset_counters()
        t = time.perf_counter()
        history = fetch_nav_history(client, proj_id, start=start, end=end, class_name=class_name)
        cold.append(time.perf_counter() - t)
        cold_requests.append(app.request_count)
        rows = len(history.classes[class_name].nav)

        app.reset_counters()
        t = time.perf_counter()
        fetch_nav_history(client, proj_id, start=start, end=end, class_name=class_name)
        warm.append(time.perf_counter() - t)
        warm_requests.append(app.request_count)
        client.close()

        again = open_client(settings)  # a new process's client over the same cache directory
        app.reset_counters()
        t = time.perf_counter()
        fetch_nav_history(again, proj_id, start=start, end=end, class_name=class_name)
        disk.append(time.perf_counter() - t)
        disk_requests.append(app.request_count)
        again.close()
    # The same cold fetch with no injected latency: the processing (client and simulator, one machine).
    latency, app.latency_ms, processing = app.latency_ms, 0.0, []
    for index in range(args.runs):
        settings = ApiSettings.from_env(base_url=server.base_url, api_key=KEY, cache_dir=f"{tmp}/{layout}-0ms{index}",
                                        layout=layout, environ={})
        client = open_client(settings)
        client.fetch("E16")
        t = time.perf_counter()
        fetch_nav_history(client, proj_id, start=start, end=end, class_name=class_name)
        processing.append(time.perf_counter() - t)
        client.close()
    app.latency_ms = latency
    rt = statistics.median(one)
    print(f"NAV rows of the class   {rows}")
    print(f"one round trip          {summary(one)}")
    print(f"cold history            {summary(cold)}   requests {statistics.median(cold_requests):.0f}")
    print(f"warm (same client)      {summary(warm)}   requests {max(warm_requests)}")
    print(f"warm (disk, new client) {summary(disk)}   requests {max(disk_requests)}")
    print(f"cold, no latency        {summary(processing)}   (processing: JSON, records, cache, the simulator)")
    print(f"round trips (cold)      {statistics.median(cold) / rt:.2f}  (target <= 4 on the current service)")
    waiting = statistics.median(cold) - statistics.median(processing)
    print(f"round trips waited      {waiting / rt:.2f}  (cold minus processing: the service's share)")
    print(f"warm target             {'met' if max(warm_requests) == 0 and max(disk_requests) == 0 else 'MISSED'} (0 requests)")


if __name__ == "__main__":
    main()

"""Benchmark: one fund's full factsheet against the simulator at 100 ms injected latency, on each layout.

For the legacy layout and the current service's (successor) layout in the same run, prints cold
time (empty cache), warm time (everything cached), the sequential baseline (one request at a time)
and the request counts, each over several runs with median and spread, and the cold load in round
trips at the service. Targets: cold within 3x one round trip; warm under 20 ms with zero requests.

    python benchmarks/bench_factsheet.py [--latency-ms 100] [--runs 5] [--layouts legacy,successor]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.config import ApiSettings  # noqa: E402
from dashboard.demo.connect import open_client  # noqa: E402
from dashboard.demo.loopback import SimulatorServer  # noqa: E402
from dashboard.demo.simulator import create_app  # noqa: E402
from dashboard.models import FundFactsheet  # noqa: E402
from dashboard.models.source import run  # noqa: E402

KEY = "benchmark-key-not-a-real-one"


def summary(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):8.1f} ms   min {ms[0]:8.1f}   max {ms[-1]:8.1f}   (n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--layouts", default="legacy,successor")
    args = parser.parse_args()

    app = create_app(valid_keys={KEY}, latency_ms=args.latency_ms)
    # A multi-class fund whose largest quarter needs two pages on the current service.
    proj_id = max((p for p in app.dataset.holdings if app.dataset.classes.get(p)),
                  key=lambda p: max(len(rows) for rows in app.dataset.holdings[p].values()))
    for layout in args.layouts.split(","):
        app.layout = layout
        print(f"\n== {layout} layout ==")
        bench(app, proj_id, layout, args)


def bench(app, proj_id: str, layout: str, args) -> None:
    with SimulatorServer(app) as server, tempfile.TemporaryDirectory() as tmp:
        fund = next(f for f in app.dataset.funds if f["proj_id"] == proj_id)
        one, cold, known, warm, sequential = [], [], [], [], []
        cold_requests, warm_requests, seq_requests = [], [], []
        for index in range(args.runs):
            settings = ApiSettings.from_env(base_url=server.base_url, api_key=KEY, cache_dir=f"{tmp}/run{index}",
                                            layout=layout, environ={})
            client = open_client(settings)
            client.fetch("E16")  # warm the connection pool, as a running dashboard has it

            app.reset_counters()
            start = time.perf_counter()
            client.fetch("E7", proj_id=proj_id)
            one.append(time.perf_counter() - start)
            client.cache.clear()
            client.async_client.memory.clear()

            app.reset_counters()
            start = time.perf_counter()
            sheet = run(FundFactsheet(client=client).load(proj_id))
            cold.append(time.perf_counter() - start)
            cold_requests.append(app.request_count)

            # As the dashboard does it: the fund record is known from the search that found it.
            client.cache.clear()
            client.async_client.memory.clear()
            start = time.perf_counter()
            run(FundFactsheet(client=client).load(proj_id, fund=fund))
            known.append(time.perf_counter() - start)

            app.reset_counters()
            start = time.perf_counter()
            run(FundFactsheet(client=client).load(proj_id, fund=fund))
            warm.append(time.perf_counter() - start)
            warm_requests.append(app.request_count)

            # Sequential baseline: the same calls, one after the other, no cache.
            prepared = FundFactsheet(client=client)
            calls = prepared._calls(*prepared._prepare(proj_id))
            nocache = open_client(ApiSettings.from_env(base_url=server.base_url, api_key=KEY, use_cache=False, layout=layout,
                                                       environ={}))
            nocache.fetch("E16")
            app.reset_counters()

            async def one_by_one():
                for key, params in calls:
                    await nocache.async_client.request(key, **params)

            start = time.perf_counter()
            nocache.run(one_by_one())
            sequential.append(time.perf_counter() - start)
            seq_requests.append(app.request_count)
            nocache.close()
            client.close()

    rt = statistics.median(one)
    print(f"fund {proj_id}: {len(sheet.holdings)} quarters of holdings, {sum(len(f) for f in sheet.holdings.values())} lines")
    print(f"injected latency       {args.latency_ms:.0f} ms")
    print(f"one round trip         {summary(one)}")
    print(f"cold, proj_id only     {summary(cold)}   requests {statistics.median(cold_requests):.0f}")
    print(f"cold, fund known       {summary(known)}")
    print(f"warm factsheet         {summary(warm)}   requests {max(warm_requests)}")
    print(f"sequential baseline    {summary(sequential)}   requests {statistics.median(seq_requests):.0f}")
    print(f"round trips (cold)     {statistics.median(known) / rt:.2f} fund known, {statistics.median(cold) / rt:.2f} proj_id only  (target <= 3)")
    print(f"sequential / cold      {statistics.median(sequential) / statistics.median(cold):.1f}x faster concurrently")
    print(f"warm target            {'met' if statistics.median(warm) < 0.020 and max(warm_requests) == 0 else 'MISSED'} (< 20 ms, 0 requests)")


if __name__ == "__main__":
    main()

"""Benchmark: the tax planner's fund ranking from the market store (target: under 200 ms), and the plan itself.

Syncs the default demo data set (about 100 funds, a year of NAV) into a temporary store with the command a
user runs, then times `qualifying_funds` for every wrapper and ranking figure (read from the published
snapshot, as the dashboard reads it) and `plan` (pure Python). Prints median, p95, max and the spread
(standard deviation) over `--runs` repetitions: the figures' noise on a shared machine.

    python benchmarks/bench_tax_plan.py [--runs 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _figures(times_ms: list[float]) -> str:
    ordered = sorted(times_ms)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return (f"median {statistics.median(ordered):7.2f} ms  p95 {p95:7.2f} ms  max {ordered[-1]:7.2f} ms  "
            f"sd {statistics.pstdev(ordered):6.2f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    from dashboard.market.store import open_reader
    from dashboard.market.tax_funds import RANK_FIGURES, WRAPPERS, qualifying_funds
    from dashboard.models.tax_plan import plan

    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
        env.update(SEC_DASHBOARD_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        done = subprocess.run([sys.executable, "-m", "dashboard", "--demo", "market", "sync", "--nav-days", "400"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
        if done.returncode:
            print(done.stderr[-2000:])
            return 1
        path = next(Path(cache).glob("market-demo*.duckdb"))
        with open_reader(path=path) as store:
            qualifying_funds(store, "RMF")  # the first read opens the snapshot's files
            for wrapper in WRAPPERS:
                for figure in RANK_FIGURES:
                    times = []
                    for _ in range(args.runs):
                        start = time.perf_counter()
                        rows = qualifying_funds(store, wrapper, figure, 10)
                        times.append((time.perf_counter() - start) * 1000)
                    print(f"rank {wrapper:9s} by {figure:10s} ({len(rows):2d} funds): {_figures(times)}")
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                for wrapper in ("RMF", "ThaiESG"):
                    qualifying_funds(store, wrapper, "fee", 5)
                times.append((time.perf_counter() - start) * 1000)
            print(f"the Plan tab's fund list (RMF and Thai ESG, 5 each): {_figures(times)}")
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        plan(2026, 1_200_000, provident_fund=60_000, purchase_day="2026-03-01")
        times.append((time.perf_counter() - start) * 1000)
    print(f"plan (pure Python): {_figures(times)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: how long the demo data set takes to generate, and to copy once it is cached.

    python benchmarks/bench_demo_data.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.demo.generator import _generated, generate_demo_dataset  # noqa: E402

TODAY = date(2026, 11, 21)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.runs):
        _generated.cache_clear()
        start = time.perf_counter()
        generate_demo_dataset(seed=11, today=TODAY)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        generate_demo_dataset(seed=11, today=TODAY)
        warm.append(time.perf_counter() - start)
    print(f"[demo data] generation {statistics.median(cold) * 1000:.0f} ms, "
          f"cached copy {statistics.median(warm) * 1000:.0f} ms (median of {args.runs})")


if __name__ == "__main__":
    main()

"""Benchmark: build time and file size of a 1-fund factsheet report and a 5-fund comparison report.

Runs on the demo data (the simulator in-process). Each run uses a fresh client, so fetching the
data is part of the time, as it is for `sec-dashboard report fund`. The first build of the process
(imports, HoloViews and Bokeh warming up) is shown apart. Targets: under 3 s and under 6 MB each.

    python benchmarks/bench_reports.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_S = 3.0
TARGET_BYTES = 6_000_000


def summary(values: list[float], unit: str = "s") -> str:
    ordered = sorted(values)
    return (f"median {statistics.median(ordered):7.3f} {unit}   min {ordered[0]:7.3f}   max {ordered[-1]:7.3f}   "
            f"spread {ordered[-1] - ordered[0]:6.3f}   (n={len(ordered)})")


def pick_funds(count: int) -> list[str]:
    """Registered demo funds with every part the reports draw: holdings, fees, performance, allocation."""
    from dashboard.demo.generator import generate_demo_dataset

    ds = generate_demo_dataset()
    full = [f["proj_id"] for f in ds.funds
            if f["fund_status"] == "RG" and f["proj_id"] in ds.holdings and ds.fees.get(f["proj_id"])
            and ds.performance.get(f["proj_id"]) and ds.allocation.get(f["proj_id"])]
    return full[:count]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    start = time.perf_counter()
    from dashboard.config import ApiSettings
    from dashboard.demo.connect import open_client
    from dashboard.reports import fund_report_html
    from dashboard.reports import comparison, factsheet  # noqa: F401 - HoloViews and Bokeh load here
    imports = time.perf_counter() - start

    settings = ApiSettings.from_env(demo=True, environ={})
    print(f"imports (dashboard.reports, HoloViews, Bokeh): {imports:.2f} s")
    ok = True
    for count in (1, 5):
        proj_ids = pick_funds(count)
        start = time.perf_counter()
        html = fund_report_html(open_client(settings), proj_ids)
        first = time.perf_counter() - start
        times, sizes = [], []
        for _ in range(args.runs):
            client = open_client(settings)
            start = time.perf_counter()
            html = fund_report_html(client, proj_ids)
            times.append(time.perf_counter() - start)
            sizes.append(len(html.encode("utf-8")) / 1_000_000)
            client.close()
        kind = "factsheet" if count == 1 else "comparison"
        print(f"\n{count}-fund {kind} report ({', '.join(proj_ids)})")
        print(f"  first build in process  {first:7.3f} s")
        print(f"  build time              {summary(times)}")
        print(f"  file size               {summary(sizes, 'MB')}")
        within = statistics.median(times) < TARGET_S and max(sizes) * 1_000_000 < TARGET_BYTES
        ok &= within
        print(f"  targets (< {TARGET_S:.0f} s, < {TARGET_BYTES / 1e6:.0f} MB): {'met' if within else 'MISSED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

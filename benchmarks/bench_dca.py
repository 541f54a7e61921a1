"""Benchmark: a 10-year monthly regular-investing simulation from the market store (issue 37, item 2).

A store holds 200 classes' ten years of daily NAVs (a random walk, half of them distributing twice a year).
Each run reads one class's NAVs and distributions from the store (`nav_store.class_nav`,
`class_distributions`) and simulates 120 monthly purchases beside the lump sum, with the money-weighted
return of each (`models.dca.simulate`) [target < 100 ms]. Prints the median, p90, min and max of the
reading, the simulation and the two together over --runs runs on classes taken in turn.
Not a timed test: the figures depend on the machine and on what else runs on it.

    python benchmarks/bench_dca.py [--runs 50]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from dashboard.market.nav_store import class_distributions, class_nav, load_nav  # noqa: E402
from dashboard.market.store import MarketStore  # noqa: E402
from dashboard.models.dca import DcaPlan, simulate  # noqa: E402

CLASSES = 200
FIRST, LAST = date(2015, 11, 2), date(2026, 11, 20)


def history() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(37)
    days = pd.bdate_range(FIRST, LAST)
    navs, dists = [], []
    for n in range(CLASSES):
        nav = 10 * np.exp(np.cumsum(rng.normal(0.0002, 0.01, len(days))))
        navs.append(pd.DataFrame({"proj_id": f"M{n:04d}_2558", "class": f"BENCH{n}-A", "nav_date": days, "nav": nav,
                                  "offer": np.nan, "bid": np.nan, "net_asset": np.nan}))
        if n % 2:
            ex = pd.DatetimeIndex([d for d in pd.date_range(FIRST, LAST, freq="MS") if d.month in (1, 7)]) + pd.Timedelta(days=24)
            dists.append(pd.DataFrame({"proj_id": f"M{n:04d}_2558", "class": f"BENCH{n}-A", "ex_date": ex,
                                       "pay_date": ex + pd.Timedelta(days=10), "per_unit": 0.2}))
    return pd.concat(navs, ignore_index=True), pd.concat(dists, ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-dca-"))
    store = MarketStore(workdir / "market.duckdb")
    nav, dists = history()
    load_nav(store, nav, dists, fetched_on=LAST)
    print(f"DCA benchmark: {CLASSES} classes x {nav['nav_date'].nunique():,} daily NAVs ({len(nav):,} rows) in the "
          f"store; plan: 120 monthly purchases from {date(2016, 11, 1)} to {LAST}. A shared, loaded machine: times vary.")
    plan = DcaPlan(monthly=5000, start=date(2016, 11, 1), end=LAST, day=25, front_end_pct=1.5)
    reads, sims, totals = [], [], []
    for run in range(args.runs + 3):
        n = run % CLASSES
        t0 = time.perf_counter()
        series = class_nav(store, f"M{n:04d}_2558", f"BENCH{n}-A")
        paid = class_distributions(store, f"M{n:04d}_2558", f"BENCH{n}-A")
        t1 = time.perf_counter()
        result = simulate(series, paid, plan, label=f"BENCH{n}-A")
        t2 = time.perf_counter()
        assert int((result.regular.purchases["kind"] == "plan").sum()) == 120
        if run >= 3:  # the first runs warm the imports and DuckDB's caches
            reads.append(1000 * (t1 - t0))
            sims.append(1000 * (t2 - t1))
            totals.append(1000 * (t2 - t0))
    for name, values in (("read from the store", reads), ("simulate (plan + lump sum, 2 XIRR)", sims),
                         ("together [target < 100 ms]", totals)):
        ordered = sorted(values)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        print(f"  {name:36s} median {statistics.median(values):6.1f} ms   p90 {p90:6.1f} ms   "
              f"min {ordered[0]:6.1f} ms   max {ordered[-1]:6.1f} ms   ({len(values)} runs)")
    store.close()


if __name__ == "__main__":
    main()

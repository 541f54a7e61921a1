"""Benchmark: masters and sibling feeders at market scale (issue 36, "Performance").

Prints:
  1. the market-scale demo's store (every dataset but the NAV synced from the simulator without pacing, the
     NAV loaded directly, as bench_market_nav does): its funds, feeders and masters;
  2. the rebuild of masters + siblings after a sync: `refresh_feeders` (the derived table, rewritten whenever
     funds or holdings are swapped in) followed by `masters()` (the Market tab's list) and `siblings()` of
     every master's first feeder [target < 2 s];
  3. the answers kept per snapshot (market/kept.py): the sibling returns of every master, computed when a publish
     changes the NAVs, fees, classes or feeders (part of "computed in the store after a sync");
  4. `fund siblings QUERY` from the store: `siblings()` on a reader of the published snapshot, over the
     feeders of the largest masters taken in turn [target < 200 ms], and the whole command (`--json`) in
     this process (a new reader of the snapshot each time, as a command opens one);
Each as median and p95 over --runs runs, with min and max (the machine's noise: 2 shared cores), and the
median CPU time (process time, all threads: less dependent on what else runs), with the load average.
Not a timed test: the figures depend on the machine and on what else runs on it.

`--keep DIR` builds the store in DIR once and reuses it on later runs (the build takes minutes).

    python benchmarks/bench_feeders.py [--scale market|small] [--runs 20] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_market import client_for, line  # noqa: E402
from dashboard.demo.generator import generate_demo_dataset  # noqa: E402
from dashboard.demo.nav import market_nav_frame  # noqa: E402
from dashboard.demo.simulator import create_app  # noqa: E402
from dashboard.demo.successor_nav import dividend_rows  # noqa: E402
from dashboard.market.feeders import masters, refresh_feeders, siblings  # noqa: E402
from dashboard.market.kept import refresh_kept  # noqa: E402
from dashboard.market.nav_figures_table import refresh_nav_figures  # noqa: E402
from dashboard.market.nav_store import from_market_frame, load_nav, window_rows  # noqa: E402
from dashboard.market.store import MarketStore  # noqa: E402
from dashboard.market.sync import sync_blocking  # noqa: E402


_CPU: list[float] = []  # the CPU times of the runs `_timed` measured last


def spread(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    cpu = f"   cpu median {statistics.median(_CPU) * 1000:7.1f} ms" if len(_CPU) == len(values) else ""
    _CPU.clear()
    return (f"median {statistics.median(ms):8.1f} ms   p95 {p95:8.1f} ms   min {ms[0]:7.1f}   max {ms[-1]:7.1f}"
            f"   (n={len(ms)}){cpu}")


def build(path: Path, scale: str, today: date) -> None:
    started = time.perf_counter()
    ds = generate_demo_dataset(today=today, scale=scale)
    app = create_app(ds, require_key=False, today=today, layout="successor")
    with MarketStore(path) as store:
        with client_for(app, "successor", today, rate_limit_calls=10 ** 9) as client:
            sync_blocking(store, client, nav_days=0)
        nav = from_market_frame(market_nav_frame(ds.nav_profiles, today))
        dist = window_rows([], dividend_rows(ds, {}), date(2000, 1, 1), today).distributions
        load_nav(store, nav, dist, fetched_on=today)
        refresh_nav_figures(store, risk_free=0.0)
        store.publish()
    line("store built (sync without pacing, NAV loaded)", f"{time.perf_counter() - started:8.1f} s")


def rebuild(store: MarketStore) -> None:
    """What a sync that swapped funds or holdings in does for masters and siblings, then reads them all."""
    with store.transaction() as con:
        refresh_feeders(con)
    found = masters(store)
    for m in found:
        first = store.query("SELECT proj_id FROM feeders WHERE master_id = ? ORDER BY proj_id LIMIT 1",
                            [m["master_id"]])[0]["proj_id"]
        siblings(store, first)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("market", "small"), default="market")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--keep", default=None, help="a directory to build the store in once and reuse")
    args = parser.parse_args()
    today = date.today()
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-feeders-"))
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"market-{args.scale}.duckdb"
    print(f"feeders benchmark ({args.scale} scale), store {path}. A shared, loaded machine (2 cores): times vary.",
          flush=True)
    if not path.exists():
        build(path, args.scale, today)
    with MarketStore(path) as store:
        counts = store.query("SELECT (SELECT count(*) FROM funds) AS funds, count(*) AS feeders, "
                             "count(DISTINCT master_id) AS masters, count(undecided) AS undecided FROM feeders")[0]
        navs = store.query("SELECT count(*) AS n FROM nav")[0]["n"]
        line("funds / feeders / masters / undecided", f"{counts['funds']:,} / {counts['feeders']:,} / "
             f"{counts['masters']:,} / {counts['undecided']:,}   ({navs:,} NAV rows)")
        runs = max(3, args.runs // 4)
        line("load average at the start", f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        line("rebuild: feeders table + masters + all siblings", spread([_timed(lambda: rebuild(store))
                                                                        for _ in range(runs)]), "< 2 s")

        def refresh() -> None:
            with store.transaction() as con:
                refresh_feeders(con)

        line("  of which the feeders table", spread([_timed(refresh) for _ in range(runs)]))
        line("  masters()", spread([_timed(lambda: masters(store)) for _ in range(runs)]))
        line("kept sibling returns of every master (at publish)",
             spread([_timed(lambda: refresh_kept(store, ["sibling_returns"])) for _ in range(runs)]))
        store.publish()
    with MarketStore(path, read_only=True) as reader:
        top = masters(reader, limit=5)
        picks = [r["proj_id"] for m in top for r in reader.query(
            "SELECT proj_id FROM feeders WHERE master_id = ? ORDER BY proj_id", [m["master_id"]])]
        widest = max(len(siblings(reader, p)["rows"]) for p in picks[:5])
        times = [_timed(lambda p=picks[i % len(picks)]: siblings(reader, p)) for i in range(args.runs)]
        line(f"siblings() on the snapshot ({len(picks)} feeders, <= {widest} classes)", spread(times), "< 200 ms")
    from dashboard.cli.main import main as cli
    times = []
    for i in range(args.runs):
        sink = io.StringIO()

        def command(pick=picks[i % len(picks)]) -> None:
            with contextlib.redirect_stdout(sink):
                assert cli(["fund", "siblings", pick, "--json", "--store", str(path)]) == 0, sink.getvalue()[:300]

        times.append(_timed(command))
    line("`fund siblings QUERY --json` in-process", spread(times), "< 200 ms")
    line("load average at the end", f"{os.getloadavg()[0]:.1f}")


def _timed(fn) -> float:
    cpu, started = time.process_time(), time.perf_counter()
    fn()
    wall = time.perf_counter() - started
    _CPU.append(time.process_time() - cpu)
    return wall


if __name__ == "__main__":
    main()

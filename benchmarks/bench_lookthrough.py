"""Benchmark: holdings looked through at market scale (funds of Thai funds expanded), and a basket with amounts.

Builds a store of the demo generator's market-size data set (2,100 fund projects, their classes and the newest
quarters of holdings; synced from the simulator in process, no latency, no rate limit; the sync is not timed), then
prints, median and p95 over --runs runs each, read through a snapshot reader as the Market tab reads:
  1. the most-held securities, direct and looked through (target, issue 36: looked through p95 under 100 ms);
  2. who holds the most-held security, direct and looked through;
  3. the overlap of 5 funds, looked through (two of them the funds of funds);
  4. a 30-fund basket with amounts looked through: holdings added up across the funds, and the pairs' overlap
     (target, issue 37: under 1 s).
  5. the answers kept per snapshot (market/kept.py): the most held of every stored quarter, direct and looked
     through, computed when a publish changes the holdings, funds or classes; and the most held looked through
     on a new reader (its first question: the view made, the kept table read).
The machine is shared: run it twice and read the spread between runs as the noise; each line also gives the
median CPU time (process time, all threads), which depends less on what else runs.

    python benchmarks/bench_lookthrough.py [--scale market|small] [--quarters 2] [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from dashboard.config import ApiSettings  # noqa: E402
from dashboard.demo.connect import open_client  # noqa: E402
from dashboard.demo.generator import generate_demo_dataset  # noqa: E402
from dashboard.demo.simulator import create_app  # noqa: E402
from dashboard.market import holdings  # noqa: E402
from dashboard.market.basket_holdings import basket_holdings, basket_overlap  # noqa: E402
from dashboard.market.kept import refresh_kept  # noqa: E402
from dashboard.market.lookthrough import look_through  # noqa: E402
from dashboard.market.store import MarketStore, open_reader  # noqa: E402
from dashboard.market.sync import sync_blocking  # noqa: E402

TODAY = date(2026, 11, 20)


_CPU: list[float] = []  # the CPU times of the runs `timed` measured last


def quantiles(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    cpu = f"   cpu median {statistics.median(_CPU) * 1000:7.2f} ms" if len(_CPU) == len(values) else ""
    _CPU.clear()
    return f"median {statistics.median(ms):8.2f} ms   p95 {p95:8.2f} ms   (n={len(ms)}){cpu}"


def timed(fn, runs: int, warm: bool = True) -> list[float]:
    if warm:
        fn()  # one warm-up (the reader's first look at the snapshot)
    out = []
    _CPU.clear()
    for _ in range(runs):
        cpu, started = time.process_time(), time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
        _CPU.append(time.process_time() - cpu)
    return out


def line(label: str, text: str, target: str = "") -> None:
    print(f"  {label:<52} {text}" + (f"   [{target}]" if target else ""), flush=True)


class _kept:
    """A directory kept after the run (a context manager like TemporaryDirectory's)."""

    def __init__(self, path: str):
        self.path = Path(path)

    def __enter__(self) -> str:
        self.path.mkdir(parents=True, exist_ok=True)
        return str(self.path)

    def __exit__(self, *exc) -> None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("market", "small"), default="market")
    parser.add_argument("--quarters", type=int, default=2)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--keep", metavar="DIR", help="build the store in DIR and keep it (reused when it is there)")
    args = parser.parse_args()

    started = time.perf_counter()
    ds = generate_demo_dataset(today=TODAY, scale=args.scale)
    app = create_app(ds, require_key=False, today=TODAY, layout="successor")
    settings = ApiSettings.from_env(base_url="http://simulator.test", use_cache=False, layout="successor", environ={})
    client = open_client(settings, transport=httpx.ASGITransport(app=app), cache=None, require_keys=False,
                         today=lambda: TODAY, rate_limit_calls=10**9)
    with (tempfile.TemporaryDirectory() if not args.keep else _kept(args.keep)) as tmp:
        store = MarketStore(Path(tmp) / "market.duckdb")
        if not store.has_snapshot():
            sync_blocking(store, client, quarters=args.quarters, only="funds,companies,holdings")
        client.close()
        reader = open_reader(path=Path(tmp) / "market.duckdb")
        funds = reader.count("funds")
        lines = reader.count("holdings")
        print(f"store: {funds:,} funds, {lines:,} holding lines, {args.quarters} quarters "
              f"(built in {time.perf_counter() - started:.0f} s); load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} CPUs (a shared machine's figures scale with it)", flush=True)
        quarter = holdings.latest_period(reader)
        view = look_through(reader, quarter)
        print(f"  {view.summary()}", flush=True)

        line("most held, direct", quantiles(timed(lambda: holdings.most_held(reader), args.runs)))
        line("most held, looked through", quantiles(timed(lambda: holdings.most_held(reader, looked_through=True),
                                                          args.runs)), "p95 < 100 ms")
        top = holdings.most_held(reader, limit=1, looked_through=True)[0]["security"]
        line("who holds the most held, direct", quantiles(timed(lambda: holdings.holders(reader, top), args.runs)))
        line("who holds the most held, looked through",
             quantiles(timed(lambda: holdings.holders(reader, top, looked_through=True), args.runs)))
        roots = view.expanded_roots
        with_lines = [r["proj_id"] for r in reader.query(
            "SELECT DISTINCT proj_id FROM holdings WHERE period = ? ORDER BY proj_id", [quarter])]
        rng = random.Random(36)
        five = roots[:2] + rng.sample([p for p in with_lines if p not in roots], 3)
        line("overlap of 5 funds, looked through",
             quantiles(timed(lambda: holdings.overlap(reader, five, quarter, looked_through=True), args.runs)))
        thirty = roots[:2] + rng.sample([p for p in with_lines if p not in roots], 28)
        amounts = {p: float(rng.randrange(10_000, 2_000_000)) for p in thirty}

        def basket() -> None:
            basket_holdings(reader, amounts)
            basket_overlap(reader, thirty)

        line("30-fund basket: holdings added up + overlap", quantiles(timed(basket, max(5, args.runs // 3))),
             "< 1 s")
        line("30-fund basket: holdings added up only",
             quantiles(timed(lambda: basket_holdings(reader, amounts), max(5, args.runs // 3))))

        line("kept most held, every quarter (at publish)",
             quantiles(timed(lambda: refresh_kept(store, ["most_held_kept"]), 3, warm=False)))

        def cold() -> None:
            with open_reader(path=Path(tmp) / "market.duckdb") as fresh:
                holdings.most_held(fresh, looked_through=True)

        line("most held, looked through, a new reader's first", quantiles(timed(cold, max(5, args.runs // 3))))
        print(f"  load average at the end: {os.getloadavg()[0]:.1f}", flush=True)
        reader.close()
        store.close()


if __name__ == "__main__":
    main()

"""Benchmark: the whole-market sync against the simulator, and the store's questions.

Prints:
  1. a whole-market sync on the successor layout at the given latency and the default rate limit:
     calls, wall time and its ratio to the floor the rate limit sets (calls / allowed rate),
     throttling answers received (the simulator is wrapped in a quota of the default rate limit
     here, answering 429 past it), store size on disk;
  2. the per-fund crawl's calls for comparison (the legacy layout's walk, run without latency or
     pacing; at market scale estimated by default as companies + funds x per-fund endpoints +
     funds x quarters, an estimate checked against a real crawl of the small data set);
  3. a second sync right after: calls (target: almost none);
  4. screener, holders and overlap-of-5-funds query times, median and p95.
Targets (issue 8): sync within 1.2x the rate-limit floor with no throttling, a whole-market sync on
the successor layout in under 2,500 calls, screener p95 under 50 ms, overlap of 5 funds under 100 ms.

`--scale market` (the default, the issue's figures) uses the demo generator's market-size data set
(22 companies, 2,100 fund projects, 4,700 unit classes, twelve quarters of holdings); `--scale small`
the default demo data set (about 100 funds), for a quick run. At market scale the sync is paced by
the default rate limit (10 calls a second), so it takes minutes.

    python benchmarks/bench_market.py [--scale market|small] [--latency-ms 80] [--quarters 2] [--runs 50]
                                      [--legacy-crawl estimate|run]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from dashboard.api.periods import valid_periods  # noqa: E402
from dashboard.config import DEFAULT_RATE_LIMIT, ApiSettings  # noqa: E402
from dashboard.demo.connect import open_client  # noqa: E402
from dashboard.demo.generator import generate_demo_dataset  # noqa: E402
from dashboard.demo.simulator import create_app  # noqa: E402
from dashboard.market import queries  # noqa: E402
from dashboard.market import holdings  # noqa: E402
from dashboard.market.store import MarketStore  # noqa: E402
from dashboard.market.datasets import DATASETS, DEFAULT_QUARTERS  # noqa: E402
from dashboard.market.sync import COMPANY_SEARCH_WORDS, sync_blocking  # noqa: E402


class Quota:
    """ASGI wrapper: at most `calls` requests per `period` seconds (sliding window), else 429."""

    def __init__(self, app, calls: int, period: float):
        self.app, self.calls, self.period = app, calls, period
        self.times: collections.deque[float] = collections.deque()
        self.throttled = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            now = time.monotonic()
            while self.times and now - self.times[0] >= self.period:
                self.times.popleft()
            if len(self.times) >= self.calls:
                self.throttled += 1
                await send({"type": "http.response.start", "status": 429,
                            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1")]})
                await send({"type": "http.response.body", "body": b'{"statusCode": 429, "message": "Rate limit is exceeded."}'})
                return
            self.times.append(now)
        await self.app(scope, receive, send)


def dataset_for(scale: str, today: date):
    started = time.perf_counter()
    ds = generate_demo_dataset(today=today, scale=scale)
    return ds, time.perf_counter() - started


def legacy_estimate(ds, quarters: int) -> int:
    """The per-fund crawl's calls, counted: the register (E16, one E15 per search word), one E2 per
    company found, each fund's endpoints (one call per dataset) and one E6 per fund and quarter."""
    per_fund = [d for d in DATASETS.values() if d.name not in ("companies", "funds", "holdings")]
    companies = len(ds.amcs) + len(ds.former_licensees)
    return 1 + len(COMPANY_SEARCH_WORDS) + companies + len(ds.funds) * (len(per_fund) + quarters)


def run_legacy(ds, today: date, workdir: Path, quarters: int, name: str) -> int:
    legacy_app = create_app(ds, require_key=False, today=today, layout="legacy")
    legacy_store = MarketStore(workdir / name)
    try:
        return sync_blocking(legacy_store, client_for(legacy_app, "legacy", today, rate_limit_calls=10**9),
                             quarters=quarters).calls
    finally:
        legacy_store.close()


def disk_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def client_for(app, layout: str, today: date, **options):
    settings = ApiSettings.from_env(base_url="http://simulator.test", use_cache=False, layout=layout, environ={})
    return open_client(settings, transport=httpx.ASGITransport(app=app), cache=None, require_keys=False,
                       today=lambda: today, **options)


class ProgressLines:
    """A line to stderr when a dataset completes, and at most one a minute meanwhile."""

    def __init__(self, every_s: float = 60.0):
        self.every_s, self.last = every_s, 0.0

    def __call__(self, p) -> None:
        if p.done or p.elapsed_s - self.last >= self.every_s:
            self.last = p.elapsed_s
            print(f"    [{p.elapsed_s:6.0f} s] {p.dataset}: {p.rows:,} rows, {p.calls:,} calls"
                  + (" (done)" if p.done else ""), file=sys.stderr, flush=True)


def quantiles(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"median {statistics.median(ms):7.2f} ms   p95 {p95:7.2f} ms   (n={len(ms)})"


def line(label: str, text: str, target: str = "") -> None:
    print(f"  {label:<44} {text}" + (f"   [{target}]" if target else ""), flush=True)


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=80.0)
    parser.add_argument("--quarters", type=int, default=DEFAULT_QUARTERS,
                        help=f"quarters of holdings (default {DEFAULT_QUARTERS}, as the sync; 12 for all the service keeps)")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--scale", choices=("market", "small"), default="market")
    parser.add_argument("--legacy-crawl", choices=("estimate", "run"), default=None,
                        help="the per-fund crawl for comparison: counted (default at market scale) or run")
    args = parser.parse_args()
    legacy_mode = args.legacy_crawl or ("estimate" if args.scale == "market" else "run")
    today = date.today()
    ds, built_s = dataset_for(args.scale, today)
    classes = sum(len(ds.classes.get(f["proj_id"]) or [None]) for f in ds.funds)
    rows = sum(len(r) for by_period in ds.holdings.values() for r in by_period.values())
    print(f"market benchmark ({args.scale} scale): {len(ds.amcs)} companies, {len(ds.funds):,} funds, {classes:,} unit classes, "
          f"{rows:,} holdings rows in {len(ds.periods)} quarters (data set built in {built_s:.1f} s); "
          f"latency {args.latency_ms:g} ms, rate limit {DEFAULT_RATE_LIMIT[0]} calls / {DEFAULT_RATE_LIMIT[1]:g} s", flush=True)

    # 1. the whole-market sync, successor layout, paced by the default rate limit
    app = create_app(ds, require_key=False, today=today, layout="successor", latency_ms=args.latency_ms)
    quota = Quota(app, *DEFAULT_RATE_LIMIT)
    workdir = Path(tempfile.mkdtemp(prefix="bench-market-"))
    store = MarketStore(workdir / "market.duckdb")
    # A long per-request timeout: the simulator runs in this process, so a slow store write on the
    # same event loop must not count as a service failure (the wall time still shows it).
    client = client_for(quota, "successor", today, timeout=120.0, total_timeout=600.0)
    started = time.perf_counter()
    result = sync_blocking(store, client, quarters=args.quarters, progress=ProgressLines())
    wall = time.perf_counter() - started
    calls, per_s = result.calls, DEFAULT_RATE_LIMIT[0] / DEFAULT_RATE_LIMIT[1]
    floor = calls / per_s
    line("successor sync: calls", f"{calls:,}", "< 2,500")
    line("successor sync: wall time", f"{wall:8.1f} s   floor {floor:.1f} s   ratio {wall / floor:.2f}x", "<= 1.2x")
    line("throttling answers received", f"{quota.throttled} (client retries {result.throttled})", "0")
    line("datasets", ", ".join(f"{k} {v}" for k, v in sorted(result.datasets.items()) if v != "fetched") or "all fetched")
    store.close()
    db = workdir / "market.duckdb"
    line("store size on disk", f"{disk_size(workdir) / 2**20:8.1f} MB   (database file {db.stat().st_size / 2**20:.1f} MB)")

    # 2. the per-fund crawl for comparison (legacy layout), without latency or pacing
    if legacy_mode == "run":
        legacy_calls = run_legacy(ds, today, workdir, args.quarters, "legacy.duckdb")
        line("per-fund crawl (legacy layout): calls", f"{legacy_calls:,}   ({legacy_calls / max(calls, 1):.1f}x the successor's)")
    else:
        small, _ = dataset_for("small", today)
        small_run = run_legacy(small, today, workdir, args.quarters, "legacy-small.duckdb")
        line("per-fund crawl, small data set: run / counted", f"{small_run:,} / {legacy_estimate(small, args.quarters):,}")
        legacy_calls = legacy_estimate(ds, args.quarters)
        line("per-fund crawl (legacy layout): calls, counted", f"{legacy_calls:,}   ({legacy_calls / max(calls, 1):.1f}x the successor's; "
             f"{legacy_calls / per_s / 3600:.1f} h at the rate limit)")

    # 3. a second run right after
    store = MarketStore(workdir / "market.duckdb")
    again = sync_blocking(store, client, quarters=args.quarters)
    line("second sync right after: calls", f"{again.calls}", "almost none")

    # 4. the questions
    period = valid_periods(today, "successor")[0]  # the store was filled from the successor layout
    top = store.query("SELECT issue_code FROM holdings WHERE period = ? AND NOT is_nav_total AND issue_code IS NOT NULL "
                      "GROUP BY 1 ORDER BY count(DISTINCT proj_id) DESC LIMIT 1", [period])
    code = top[0]["issue_code"] if top else "PTT"
    five = [r["proj_id"] for r in store.query(
        "SELECT proj_id FROM holdings WHERE period = ? GROUP BY 1 ORDER BY count(*) DESC LIMIT 5", [period])]
    line("screener (status, risk, fee, sort)", quantiles(timed(lambda: queries.screen(
        store, status="RG", risk=["RS5", "RS6"], max_fee=2.0, sort="-return_1y", limit=50), args.runs)), "p95 < 50 ms")
    line("screener (no filter, all funds)", quantiles(timed(lambda: queries.screen(store), args.runs)), "p95 < 50 ms")
    line(f"holders of {code}", quantiles(timed(lambda: holdings.holders(store, code), args.runs)))
    if len(five) == 5:
        line("overlap of 5 funds", quantiles(timed(lambda: holdings.overlap(store, five), args.runs)), "< 100 ms")
    store.close()
    client.close()


if __name__ == "__main__":
    main()

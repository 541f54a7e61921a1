"""Benchmark: the market store with every class's five years of NAV (issue 27, "Speed and scale").

Prints one table:
  1. the market-scale demo's NAV rows (~4,700 classes x 5 years, ~5.7 M rows) loaded into the store:
     the time to build the frame, to load it, to compute every class's figures (`nav_figures`) and to
     publish the snapshot; the store's size on disk (the DuckDB file and the published Parquet);
  2. the screener p95, with and without NAV filters, on the writer and on a reader of the snapshot
     (what the CLI and the Market tab read) [target p95 < 50 ms];
  3. one class's chart series from the store, p95 [target < 30 ms];
  4. the whole-market daily update against the simulator at the given latency, paced by the default
     rate limit (the simulator wrapped in a quota of that limit, answering 429 past it): calls, the
     wall time of the calls against the floor the rate limit sets (calls / allowed rate) [target
     <= 1.2x], the figures' refresh after it, and a re-run the same day (calls: target almost none).
The store is set up as if the last sync had run yesterday (every day up to the day before yesterday
fetched then), so the update asks the new day and the days still settling (OVERLAP_DAYS).
Not a timed test: the figures depend on the machine (and on what else runs on it).

    python benchmarks/bench_market_nav.py [--scale market|small] [--latency-ms 80] [--runs 50]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_market import Quota, client_for, disk_size, line, quantiles, timed  # noqa: E402
from dashboard.config import DEFAULT_RATE_LIMIT  # noqa: E402
from dashboard.demo.generator import generate_demo_dataset  # noqa: E402
from dashboard.demo.nav import market_nav_frame  # noqa: E402
from dashboard.demo.simulator import create_app  # noqa: E402
from dashboard.demo.successor_nav import dividend_rows  # noqa: E402
from dashboard.market import queries  # noqa: E402
from dashboard.market.nav_figures_table import refresh_nav_figures  # noqa: E402
from dashboard.market.nav_store import class_nav, fetched_days, from_market_frame, load_nav, window_rows  # noqa: E402
from dashboard.market.nav_sync import DEFAULT_NAV_DAYS, DIVIDEND_PATH, NAV_PATH, needed_days, windows  # noqa: E402
from dashboard.market.store import MarketStore  # noqa: E402
from dashboard.market.sync import sync_blocking  # noqa: E402


def seconds(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def load(store: MarketStore, ds, today: date) -> None:
    frame, built = seconds(lambda: market_nav_frame(ds.nav_profiles, today))
    rows = from_market_frame(frame)
    dist = window_rows([], dividend_rows(ds, {}), date(2000, 1, 1), today).distributions
    classes = rows.groupby(["proj_id", "class"], observed=True).ngroups
    line("NAV rows (classes)", f"{len(rows):,} ({classes:,} classes), {len(dist):,} distributions; "
         f"frame built in {built:.1f} s")
    _, loaded = seconds(lambda: load_nav(store, rows, dist, fetched_on=today))
    line("load into the store", f"{loaded:8.1f} s")
    n, figured = seconds(lambda: refresh_nav_figures(store, risk_free=0.0))
    line("figures of every class (nav_figures)", f"{figured:8.1f} s   ({n:,} classes, "
         f"{1000 * figured / max(n, 1):.1f} ms a class)")
    _, published = seconds(lambda: store.publish())
    line("publish the snapshot (every table)", f"{published:8.1f} s")


def questions(store: MarketStore, runs: int, who: str) -> None:
    nav_filters = {"min_return_3y": 2.0, "max_volatility": 15.0, "max_drawdown": 20.0}
    line(f"{who}: screener, no filter (all funds)", quantiles(timed(lambda: queries.screen(store), runs)), "p95 < 50 ms")
    line(f"{who}: screener, NAV filters + sort sharpe", quantiles(timed(lambda: queries.screen(
        store, sort="-sharpe_1y", limit=50, **nav_filters), runs)), "p95 < 50 ms")
    line(f"{who}: screener, status, risk + NAV filters", quantiles(timed(lambda: queries.screen(
        store, status="RG", risk=["RS5", "RS6"], sort="-peer_pct_return_1y", **nav_filters), runs)), "p95 < 50 ms")
    picks = store.query("SELECT proj_id, class FROM nav_figures USING SAMPLE 50 ROWS")
    i = iter(range(10 ** 9))
    line(f"{who}: one class's chart series", quantiles(timed(
        lambda: class_nav(store, *picks[next(i) % len(picks)].values()), runs)), "p95 < 30 ms")


def as_of_yesterday(store: MarketStore, today: date) -> None:
    """The store as a sync yesterday left it: every day up to the day before yesterday fetched yesterday."""
    yesterday = today - timedelta(days=1)
    with store.transaction() as con:
        con.execute("DELETE FROM nav WHERE nav_date >= ?", [yesterday])
        con.execute("DELETE FROM nav_days WHERE day >= ?", [yesterday])
        con.execute("UPDATE nav_days SET fetched_on = ?", [yesterday])


def daily_update(store: MarketStore, ds, today: date, latency_ms: float) -> None:
    app = create_app(ds, require_key=False, today=today, layout="successor", latency_ms=latency_ms)
    quota = Quota(app, *DEFAULT_RATE_LIMIT)
    client = client_for(quota, "successor", today, timeout=120.0, total_timeout=600.0)
    plan = windows(today, needed_days(today, DEFAULT_NAV_DAYS, fetched_days(store)))
    # the simulator builds a whole-market day's rows once per window and keeps them: asked once before
    # the clock starts, so the wall time is the client's and the limiter's, not the in-process simulator's
    with client_for(app, "successor", today, rate_limit_calls=10 ** 9) as warm:
        for _key, a, b in plan:
            for endpoint_id, path, names in (("S8", NAV_PATH, "nav_date"), ("S9", DIVIDEND_PATH, "dividend_date")):
                warm.run(warm.async_client.send_page(endpoint_id, path, {
                    f"start_{names}": a.isoformat(), f"end_{names}": b.isoformat(), "page_size": "100"}))
    calls_at = []
    started = time.perf_counter()

    def progress(p):
        calls_at.append((time.perf_counter() - started, p.calls))

    result = sync_blocking(store, client, only="nav", nav_days=DEFAULT_NAV_DAYS, progress=progress)
    wall = time.perf_counter() - started
    per_s = DEFAULT_RATE_LIMIT[0] / DEFAULT_RATE_LIMIT[1]
    last_call = max((t for t, c in calls_at if c == result.calls), default=wall)
    floor = result.calls / per_s
    line("daily update: windows (days) asked", f"{len(plan)}: " + ", ".join(a.isoformat() for _k, a, _b in plan))
    line("daily update: calls", f"{result.calls:,}   ({quota.throttled} throttled, {result.throttled} retries)")
    line("daily update: wall time of the calls", f"{last_call:8.1f} s   floor {floor:.1f} s   ratio {last_call / floor:.2f}x",
         "<= 1.2x")
    line("daily update: whole run (with figures, publish)", f"{wall:8.1f} s")
    again = sync_blocking(store, client, only="nav", nav_days=DEFAULT_NAV_DAYS)
    line("re-run the same day: calls", f"{again.calls}", "almost none")
    client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=80.0)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--scale", choices=("market", "small"), default="market")
    args = parser.parse_args()
    today = date.today()
    ds, built = seconds(lambda: generate_demo_dataset(today=today, scale=args.scale))
    print(f"market NAV benchmark ({args.scale} scale): {len(ds.funds):,} funds, {len(ds.nav_profiles):,} with NAV "
          f"(data set built in {built:.1f} s); latency {args.latency_ms:g} ms, rate limit "
          f"{DEFAULT_RATE_LIMIT[0]} calls / {DEFAULT_RATE_LIMIT[1]:g} s. A shared, loaded machine: times vary.", flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="bench-market-nav-"))
    store = MarketStore(workdir / "market.duckdb")
    app = create_app(ds, require_key=False, today=today, layout="successor")
    with client_for(app, "successor", today, rate_limit_calls=10 ** 9) as client:
        sync_blocking(store, client, only="funds,companies,risk")
    load(store, ds, today)
    store.con.execute("CHECKPOINT")
    line("store on disk", f"{disk_size(workdir) / 2**20:8.1f} MB   (database file "
         f"{(workdir / 'market.duckdb').stat().st_size / 2**20:.1f} MB, the rest the published snapshot)")
    questions(store, args.runs, "writer")
    with MarketStore(workdir / "market.duckdb", read_only=True) as reader:
        questions(reader, args.runs, "reader")
    as_of_yesterday(store, today)
    daily_update(store, ds, today, args.latency_ms)
    store.close()


if __name__ == "__main__":
    main()

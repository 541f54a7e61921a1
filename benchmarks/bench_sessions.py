"""Many sessions: fund-switch time with 10, 25 and 50 concurrent sessions on 1 and 2 processes, and server memory.

Each session is a real server session opened over the websocket the way BokehJS opens one
(`tests.views.test_sessions.ServedSession`: pull the document, report it drawn, pick a results row,
read the patches), without a browser, so the time measured is the server's: from the row's
selection being sent to the new fund's overview having arrived. The servers run
`python -m dashboard --demo serve [--num-procs 2]` (demo data answers in-process), on the
allocator `serve` picks (jemalloc where installed; `--allocator malloc` or `python` to compare).

Memory is the resident set (RSS) of the server process(es): idle (after a warm-up, its sessions
ended), warm idle (after five sessions have opened every fund once and ended, so the bounded
caches hold what later sessions ask for), with 50 sessions open (delta / 50 = per session), after
200 sessions opened and closed and ended by the server, and after 200 more (Bokeh ends a session
15 s after its last connection, checking every 17 s, so the run waits 40 s for that). Nothing
renews the process: a memory limit is the supervisor's (docs/deploy.md). With `--baseline DIR`
the same memory sequence runs, in the same run, on another checkout of the project ("before", as
its `sec-dashboard --demo serve` runs itself); `--memory-only` skips the fund-switch timings.

Beside it, the same memory sequence on the stack's floor: the minimal panel-material-ui page with a
Tabulator (`minimal_page.py`, the page first paint is measured against) on the same allocator, with
the same purge after sessions end and with panel-material-ui's leak of every page fixed as the
dashboard fixes it (`--reference-as-shipped` also runs it without those). Its sessions are only
opened, drawn and closed: it has nothing to switch.

    python benchmarks/bench_sessions.py [--switches 5] [--no-reference] [--reference-as-shipped]
                                        [--memory-only] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.dashboard_server import DashboardProcess  # noqa: E402
from tests.views.test_sessions import ServedSession  # noqa: E402

from deployment import deployment_environment  # noqa: E402  (this folder)
from minimal_page import MinimalProcess  # noqa: E402  (this folder)

COUNTS = (10, 25, 50)
CHURN = 200
SESSION_END_WAIT_S = 40  # Bokeh's defaults: unused session lifetime 15 s, checked every 17 s


class ServerProcesses(DashboardProcess):
    """The dashboard CLI with `--num-procs N`."""

    def __init__(self, num_procs: int, allocator: str = "jemalloc", root: Path = ROOT):
        # this checkout runs on the allocator the deployment sets; another one (--baseline) as it runs itself
        env = deployment_environment(allocator) if root == ROOT else None
        super().__init__(demo=True, env=env, serve_args=("--num-procs", str(num_procs)), root=root)
        self.num_procs = num_procs

    def rss_mb(self) -> float:
        """RSS of the serving processes (the children when forked; the parent only waits on them)."""
        parent = psutil.Process(self.pid)
        children = parent.children(recursive=True)
        procs = children if (self.num_procs > 1 and children) else [parent]
        return sum(p.memory_info().rss for p in procs) / 2**20


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def open_sessions(port: int, count: int, parallel: int = 5, dashboard: bool = True) -> list[ServedSession]:
    """`count` sessions, `parallel` at a time; the dashboard's once their first fund is shown."""
    gate = asyncio.Semaphore(parallel)

    async def one() -> ServedSession:
        async with gate:
            session = await ServedSession.open(port, timeout=120, dashboard=dashboard)
            if dashboard:
                await session.first_load(timeout=120)
            return session

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def switch_all(sessions: list[ServedSession], switches: int) -> list[float]:
    """Every session switches fund `switches` times (a random 0-0.5 s pause before each), all at once."""
    async def one(session: ServedSession, seed: int) -> list[float]:
        rng = random.Random(seed)
        rows = [r for r in range(min(20, len(session.proj_ids))) if session.labels[r]]
        times = []
        for _ in range(switches):
            await asyncio.sleep(rng.uniform(0, 0.5))
            row = rng.choice([r for r in rows if not session.shows(r)])
            times.append(await session.switch(row, timeout=120))
        return times

    results = await asyncio.gather(*(one(s, i) for i, s in enumerate(sessions)))
    return [t for times in results for t in times]


async def visit_every_fund(port: int, parallel: int = 5) -> None:
    """Five sessions that between them open every fund in the results, then end: the process's
    caches (answers, derived tables) hold what any later session can ask for."""
    sessions = await open_sessions(port, parallel)
    for i, session in enumerate(sessions):
        for row, label in enumerate(session.labels):
            if row % parallel == i and label and not session.shows(row):
                await session.switch(row, timeout=120)
    await close_all(sessions)


async def close_all(sessions: list[ServedSession]) -> None:
    for session in sessions:
        await session.close()


async def switching(server: ServerProcesses, switches: int, memory: dict | None) -> dict[int, list[float]]:
    port = server.port
    if memory is not None:
        memory["cold idle"] = server.rss_mb()
        await close_all(await open_sessions(port, 5))  # warm-up: modules, demo data, caches
        await asyncio.sleep(SESSION_END_WAIT_S)
        memory["idle"] = server.rss_mb()
        await visit_every_fund(port)
        await asyncio.sleep(SESSION_END_WAIT_S)
        memory["warm idle"] = server.rss_mb()
    out: dict[int, list[float]] = {}
    sessions: list[ServedSession] = []
    for count in COUNTS if switches else (max(COUNTS),):
        sessions += await open_sessions(port, count - len(sessions))
        if switches:
            out[count] = await switch_all(sessions, switches)
            print(f"  {server.num_procs} proc, {count} sessions: p50 {statistics.median(out[count]) * 1000:.0f} ms",
                  flush=True)
    if memory is not None:
        memory["50 open"] = server.rss_mb()
    await close_all(sessions)
    if memory is not None:
        await churn(port, len(sessions), memory, server.rss_mb)
    return out


async def churn(port: int, opened: int, memory: dict, rss_mb, dashboard: bool = True) -> None:
    """Open and close sessions in batches of 25 until 200 have been opened, wait for the server to
    end them, read the memory; again up to 400 (whether what stays is bounded or grows per session)."""
    for rounds in (1, 2):
        while opened < CHURN * rounds:
            batch = min(25, CHURN * rounds - opened)
            await close_all(await open_sessions(port, batch, dashboard=dashboard))
            opened += batch
        await asyncio.sleep(SESSION_END_WAIT_S)
        memory[f"after {CHURN * rounds}"] = rss_mb()


async def reference_memory(page: MinimalProcess) -> dict[str, float]:
    """The same memory sequence on the minimal page (its sessions are pulled, drawn and closed: it
    has nothing to switch): idle after 5 sessions, warm idle after 5 more, 50 open, 200 and 400."""
    rss_mb = page.rss_mb
    memory = {"cold idle": rss_mb()}
    for name in ("idle", "warm idle"):
        await close_all(await open_sessions(page.port, 5, dashboard=False))
        await asyncio.sleep(SESSION_END_WAIT_S)
        memory[name] = rss_mb()
    sessions = await open_sessions(page.port, 50, dashboard=False)
    memory["50 open"] = rss_mb()
    await close_all(sessions)
    await churn(page.port, len(sessions), memory, rss_mb, dashboard=False)
    return memory


def print_memory(memory: dict[str, float], references: dict[str, dict[str, float]]) -> None:
    """The dashboard's memory sequence and the references', side by side."""
    columns = {"dashboard": memory, **references}
    print(f"  {'':<38}" + "".join(f"{name:>22}" for name in columns))

    def row(label: str, cell) -> None:
        print(f"  {label:<38}" + "".join(f"{cell(m):>22}" for m in columns.values()))

    def against_warm(key: str):
        return lambda m: f"{m[key]:.0f} ({m[key] - m['warm idle']:+.1f}, {(m[key] / m['warm idle'] - 1) * 100:+.1f}%)"

    row("cold idle", lambda m: f"{m['cold idle']:.0f}")
    row("idle after warm-up", lambda m: f"{m['idle']:.0f}")
    row("warm idle (dashboard: every fund once)", lambda m: f"{m['warm idle']:.0f}")
    row("50 sessions open", against_warm("50 open"))
    row("  per session (KB)", lambda m: f"{(m['50 open'] - m['warm idle']) / 50 * 1024:.0f}")
    row(f"after {CHURN} opened, closed and ended", against_warm(f"after {CHURN}"))
    row(f"after {CHURN} more", against_warm(f"after {2 * CHURN}"))
    print(f"  (after {CHURN} more against after {CHURN}: whether what stays is bounded or grows per session)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, default=5, help="fund switches per session at each count")
    parser.add_argument("--allocator", choices=("jemalloc", "malloc", "python"), default="jemalloc",
                        help="the served processes' allocator (default: jemalloc, as docs/deploy.md sets it)")
    parser.add_argument("--no-reference", action="store_true", help="skip the minimal page's memory sequence")
    parser.add_argument("--reference-as-shipped", action="store_true",
                        help="also run the minimal page without its leak fixed and without the purge")
    parser.add_argument("--memory-only", action="store_true", help="only the memory sequence (no fund-switch timings)")
    parser.add_argument("--baseline", help="another checkout of the project: its memory sequence beside this one's")
    args = parser.parse_args()
    started = time.monotonic()
    timings: dict[int, dict[int, list[float]]] = {}
    memory: dict[str, float] = {}
    switches = 0 if args.memory_only else args.switches
    for procs in (1,) if args.memory_only else (1, 2):
        with ServerProcesses(procs, args.allocator) as server:
            timings[procs] = asyncio.run(switching(server, switches, memory if procs == 1 else None))
    references: dict[str, dict[str, float]] = {}
    if args.baseline:
        references["before"] = {}
        with ServerProcesses(1, root=Path(args.baseline)) as server:
            asyncio.run(switching(server, 0, references["before"]))
    environ = deployment_environment(args.allocator)
    variants = [] if args.no_reference else [("minimal page", True)]
    variants += [("minimal, as shipped", False)] if args.reference_as_shipped else []
    for name, release in variants:
        with MinimalProcess(release_sessions=release, env=environ) as page:
            references[name] = asyncio.run(reference_memory(page))
    if not args.memory_only:
        print("\nFund switch (server-side sessions over the websocket, no browser: row selection sent -> new overview "
              f"received; {args.switches} switches per session, random 0-0.5 s pause, all sessions at once)")
        print(f"{'sessions':>9} | {'1 proc p50':>10} {'p95':>7} | {'2 procs p50':>11} {'p95':>7}   (ms)")
        for count in COUNTS:
            one, two = timings[1][count], timings[2][count]
            print(f"{count:>9} | {statistics.median(one) * 1000:>10.0f} {pct(one, .95) * 1000:>7.0f} | "
                  f"{statistics.median(two) * 1000:>11.0f} {pct(two, .95) * 1000:>7.0f}")
    print(f"\nServer memory (RSS, 1 process, allocator: {args.allocator}; MB, and against warm idle)")
    print_memory(memory, references)
    print(f"\n(run took {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

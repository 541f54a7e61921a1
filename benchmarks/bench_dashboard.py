"""Benchmark: the served dashboard in Chromium, and a 20-fund basket against the simulator.

Prints, each over several runs with median and spread:
  1. time from navigation to the fund overview rendered (a fresh browser context: cold cache),
     and the same with the browser's cache warm (a reload);
  2. time to switch fund (warm: the session is open), from the click on a result row to the new
     overview on screen;
  3. time to load a 20-fund basket at 100 ms injected latency, concurrent, against the
     sequential baseline (one request at a time), with the count of round trips it amounts to;
  4. server memory (VmRSS of the server process) idle and with 10 open sessions.
Targets: first render under 2 s, warm switch under 0.5 s, the basket within 5 round trips.

    python benchmarks/bench_dashboard.py [--runs 5] [--latency-ms 100] [--sessions 10]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.config import ApiSettings  # noqa: E402
from dashboard.demo.connect import open_client  # noqa: E402
from dashboard.demo.generator import generate_demo_dataset  # noqa: E402
from dashboard.models.basket import BASKET_PARTS, FundBasket  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.dashboard_server import DashboardProcess, free_port, wait_for_overview  # noqa: E402

KEY = "benchmark-key-not-a-real-one"


def summary(values: list[float], unit: str = "ms") -> str:
    scale = 1000 if unit == "ms" else 1
    vals = sorted(v * scale for v in values)
    spread = vals[-1] - vals[0]
    return (f"median {statistics.median(vals):8.1f} {unit}   min {vals[0]:8.1f}   max {vals[-1]:8.1f}   "
            f"spread {spread:7.1f}   (n={len(vals)})")


def line(label: str, text: str, target: str = "") -> None:
    print(f"  {label:<44} {text}" + (f"   [{target}]" if target else ""), flush=True)


# ---- 1 and 2: the browser ------------------------------------------------------------------------------


def bench_browser(server: DashboardProcess, runs: int) -> None:
    from playwright.sync_api import sync_playwright

    print("Browser (Debian Chromium, 1280x900, demo data served by `python -m dashboard --demo serve`)")
    data = generate_demo_dataset()
    targets = [f for f in data.funds if f["fund_status"] == "RG"][:runs + 1]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        # one warm-up visit: the server's first session pays for imports and caches
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(server.url)
        wait_for_overview(page)
        context.close()

        cold, warm = [], []
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            started = time.perf_counter()
            page.goto(server.url)
            wait_for_overview(page)
            cold.append(time.perf_counter() - started)
            started = time.perf_counter()
            page.reload()
            wait_for_overview(page)
            warm.append(time.perf_counter() - started)
            context.close()
        line("navigation -> overview, cold browser cache", summary(cold), "target < 2000 ms")
        line("navigation -> overview, warm browser cache", summary(warm), "target < 2000 ms")

        # switching fund in an open session: every fund is in the default search's results
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(server.url)
        wait_for_overview(page)
        page.get_by_label("Fund name or abbreviation (E1), or unit class (E3)").fill("Demo")
        page.get_by_role("button", name="Search").click()
        page.locator(".tabulator-row").first.wait_for()
        switches = []
        for round_ in range(2):  # the first round visits each fund once; the second is the warm one
            for fund in targets:
                row = page.locator(".tabulator-row").filter(has_text=fund["proj_name_en"]).first
                if not row.count():
                    continue
                title = page.locator(".sd-title").filter(has_text=fund["proj_abbr_name"])
                if title.count():  # already shown: pick another first
                    continue
                started = time.perf_counter()
                row.click()
                # locator.wait_for polls on animation frames; expect() retries at 100/250/500/1000 ms
                # steps and would add up to that much to each measurement
                title.wait_for(state="visible", timeout=15_000)
                page.get_by_text("Registration no.").first.wait_for()
                if round_ == 1:
                    switches.append(time.perf_counter() - started)
        line("switch fund (warm session): click -> overview", summary(switches), "target < 500 ms")
        context.close()
        browser.close()


# ---- 3: the basket ---------------------------------------------------------------------------------------


def _simulator_process(latency_ms: float):
    """The service simulator in its own process (`sec-dashboard demo-server`), as a remote service is:
    its work does not compete with the client for this process's interpreter."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SEC_API_KEY": KEY}
    process = subprocess.Popen([sys.executable, "-m", "dashboard", "demo-server", "--port", str(port),
                                "--latency-ms", str(latency_ms)], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/LicenseCheck/licensee/company", timeout=2)
            break
        except urllib.error.HTTPError:
            break  # it answers (401 without a key)
        except OSError:
            time.sleep(0.2)
    return process, url


def _basket_loads(url: str, funds: list[dict], runs: int) -> tuple[list[float], list[int], int]:
    settings = ApiSettings.from_env(base_url=url, api_key=KEY, use_cache=False, environ={})
    client = open_client(settings, rate_limit_calls=1_000_000)
    client.fetch("E16")  # open the connection pool, as a running dashboard has it
    times, requests, steps = [], [], 0
    for _ in range(runs):
        basket = FundBasket(client=client)
        for fund in funds:
            basket.add(fund["proj_id"], fund)
        progress: list[float] = []
        basket.param.watch(lambda e: progress.append(e.new), "progress")
        before = client.stats.requests_sent
        started = time.perf_counter()
        asyncio.run(basket.load())
        times.append(time.perf_counter() - started)
        requests.append(client.stats.requests_sent - before)
        steps = len(progress)
    client.close()
    return times, requests, steps


def bench_basket(latency_ms: float, runs: int) -> None:
    print(f"Basket of 20 funds x {len(BASKET_PARTS)} calls; simulator in its own process at {latency_ms:g} ms per request")
    funds = [f for f in generate_demo_dataset().funds if f["fund_status"] == "RG"][:20]
    process, url = _simulator_process(latency_ms)
    try:
        concurrent, requests, steps = _basket_loads(url, funds, runs)
        settings = ApiSettings.from_env(base_url=url, api_key=KEY, use_cache=False, environ={})
        client = open_client(settings, rate_limit_calls=1_000_000)
        client.fetch("E16")
        single = []
        for fund in funds[:runs]:  # one round trip: a single request on an open connection
            started = time.perf_counter()
            client.request("E12", proj_id=fund["proj_id"])
            single.append(time.perf_counter() - started)
        started = time.perf_counter()
        for fund in funds:  # the baseline: the same calls, one after another
            for ep in BASKET_PARTS:
                client.request(ep, proj_id=fund["proj_id"])
        sequential = time.perf_counter() - started
        client.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    trip = statistics.median(single)
    median = statistics.median(concurrent)
    line("one request (one round trip)", summary(single))
    line("concurrent load (FundBasket.load)", summary(concurrent))
    line("  = round trips (load / one request)", f"{median / trip:5.1f}", "target <= 5")
    line("  requests per load; progress updates", f"{statistics.median(requests):.0f}; {steps}")
    line("sequential baseline (one request at a time)", f"{sequential * 1000:8.1f} ms = {sequential / trip:.1f} round trips")
    line("speed-up over sequential", f"{sequential / median:5.1f}x")


# ---- 4: memory ---------------------------------------------------------------------------------------------


def bench_memory(server: DashboardProcess, sessions: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"Server memory (VmRSS of the server process) with {sessions} open sessions")
    idle = server.rss_mb()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        pages = []
        for _ in range(sessions):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(server.url)
            wait_for_overview(page)
            pages.append(page)
        time.sleep(1.0)
        loaded = server.rss_mb()
        # every session also opens the chart-heaviest tab
        for page in pages:
            page.get_by_role("tab", name="Holdings").click()
            page.get_by_text("Weights over the quarters").first.wait_for()
        time.sleep(1.0)
        heavy = server.rss_mb()
        browser.close()
    line("server before these sessions", f"{idle:8.1f} MB")
    line(f"with {sessions} sessions on the Fund explorer", f"{loaded:8.1f} MB   (+{(loaded - idle) / sessions:.1f} MB a session)")
    line(f"with {sessions} sessions on Holdings", f"{heavy:8.1f} MB   (+{(heavy - idle) / sessions:.1f} MB a session)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--sessions", type=int, default=10)
    args = parser.parse_args()
    # The demo data has broken Base64 on purpose; its warnings are not benchmark output.
    logging.getLogger("dashboard.records").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        with DashboardProcess(demo=True, log_path=Path(tmp) / "server.log") as server:
            bench_browser(server, args.runs)
        print()
        bench_basket(args.latency_ms, args.runs)
        print()
        with DashboardProcess(demo=True, log_path=Path(tmp) / "server-memory.log") as server:
            with_browser_warmup(server)
            bench_memory(server, args.sessions)


def with_browser_warmup(server: DashboardProcess) -> None:
    """One session first, so the memory figures are of sessions, not of imports."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url)
        wait_for_overview(page)
        page.get_by_role("tab", name="Holdings").click()
        page.get_by_text("Weights over the quarters").first.wait_for()
        browser.close()
    time.sleep(1.0)


if __name__ == "__main__":
    main()

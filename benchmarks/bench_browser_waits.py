"""Benchmark: what a browser test's wait costs Chromium (and the served dashboard) while it waits.

The demo dashboard is served (`sec-dashboard --demo serve`) and opened on a tab in Chromium; once it is drawn and idle,
each way of waiting waits `--seconds` for something that never comes, and the CPU seconds Chromium's processes (and
the server) used meanwhile are printed. The waits run while the server builds the page, on the same cores: what they
cost is taken from it. Ways: the idle page (no wait), `page.wait_for_function` on COUNT_JS (a walk of every element
through the shadow roots) at Playwright's default polling (every animation frame) and every 100 ms,
`expect(locator).to_be_attached()`, `expect(get_by_text).to_be_visible()`, `locator.wait_for(state="attached")` and
`get_by_text(...).wait_for()`. Figures: docs/test-speed-browser.md.

    python benchmarks/bench_browser_waits.py [--tab holdings] [--seconds 6] [--rounds 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.dashboard_server import COUNT_JS, DashboardProcess, wait_count, wait_idle  # noqa: E402


def chromium_cpu() -> float:
    """CPU seconds (user + system) of this process's Chromium descendants so far."""
    import psutil

    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            if "chrom" in child.name():
                times = child.cpu_times()
                total += times.user + times.system
        except psutil.Error:
            pass
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tab", default="holdings", help="the tab to open (its key in the link: holdings, market...)")
    parser.add_argument("--seconds", type=float, default=6.0, help="how long each wait waits")
    parser.add_argument("--rounds", type=int, default=2, help="how many times each way is measured")
    args = parser.parse_args(argv)

    import psutil
    from playwright.sync_api import expect, sync_playwright

    ms = int(args.seconds * 1000)
    ways = {
        "idle page (a sleep)": lambda page: time.sleep(args.seconds),
        "wait_for_function(COUNT_JS), every frame": lambda page: page.wait_for_function(
            f"() => ({COUNT_JS})('.nothing-here') > 0", timeout=ms),
        "wait_for_function(COUNT_JS), polling=100": lambda page: page.wait_for_function(
            f"() => ({COUNT_JS})('.nothing-here') > 0", timeout=ms, polling=100),
        "expect(locator).to_be_attached()": lambda page: expect(page.locator(".nothing-here").first).to_be_attached(
            timeout=ms),
        "expect(get_by_text).to_be_visible()": lambda page: expect(page.get_by_text("Nothing here at all").first)
        .to_be_visible(timeout=ms),
        "locator.wait_for(state='attached')": lambda page: page.locator(".nothing-here").first.wait_for(
            state="attached", timeout=ms),
        "get_by_text(...).wait_for()": lambda page: page.get_by_text("Nothing here at all").first.wait_for(timeout=ms),
    }
    with DashboardProcess(demo=True) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.url}?tab={args.tab}", timeout=120_000)
        wait_count(page, f".sd-view-{args.tab}", timeout=120_000)
        wait_idle(page, 120_000)
        time.sleep(2)
        elements = page.evaluate("() => { let n = 0; const walk = r => { for (const e of r.querySelectorAll('*')) "
                                 "{ n++; if (e.shadowRoot) walk(e.shadowRoot); } }; walk(document); return n; }")
        served = psutil.Process(server.pid)
        print(f"tab {args.tab}: {elements} elements (shadow roots included); each wait {args.seconds:g} s")
        print(f"{'way of waiting':45} {'Chromium CPU-s':>15} {'server CPU-s':>13}")
        for _ in range(args.rounds):
            for name, wait in ways.items():
                chromium, server_cpu = chromium_cpu(), sum(served.cpu_times()[:2])
                try:
                    wait(page)
                except Exception:  # noqa: BLE001 - every wait but the sleep times out: that is the measurement
                    pass
                print(f"{name:45} {chromium_cpu() - chromium:15.2f} {sum(served.cpu_times()[:2]) - server_cpu:13.2f}",
                      flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: first paint of the dashboard against a minimal panel-material-ui page with a Tabulator.

Both are served side by side on this machine (the dashboard in demo mode with `sec-dashboard
--demo serve`, the minimal page of `minimal_page.py`: `pn.serve` of a pmui.Page holding a 20-row Tabulator), each
in its own process on a free loopback port. Chromium loads them alternately:

  cold  a fresh browser context whose HTTP cache is cleared and disabled-then-enabled (CDP), so
        every script and stylesheet comes over the network;
  warm  a second load in the same context (the browser's cache holds what the first load left).

The dashboard is loaded at its plain address (`/`) and as a shared link (`/?q=Demo`); beside them, in
the same run, the dashboard on Panel's own `pn.config.reuse_sessions = "warm"` ("reuse") and, with
`--baseline DIR`, another checkout of the project ("before", as `sec-dashboard --demo serve` runs there).

First paint is the time from navigation start (performance.timeOrigin) to the first Tabulator row
drawn (for the dashboard: the Fund explorer's search results), polled every animation frame
through the shadow roots Panel renders into. Prints median and p90 of each, the ratio
dashboard/minimal (target: at most 1.25, cold and warm), and for each page the bytes and requests
transferred and the Bokeh models of the first document (`Bokeh.documents[0].all_models`).

    python benchmarks/bench_first_paint.py [--runs 7] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.dashboard_server import DashboardProcess  # noqa: E402

from deployment import deployment_environment  # noqa: E402  (this folder)
from minimal_page import MinimalProcess  # noqa: E402  (this folder)


class ServedVariant(DashboardProcess):
    """The dashboard served by `dashboard.server.serve.serve` on Panel's `reuse_sessions="warm"`."""

    def __init__(self, reuse: bool, env: dict[str, str]):
        super().__init__(demo=True, env=env)
        self.reuse = reuse

    def command(self) -> list[str]:
        reuse = '"warm"' if self.reuse else "False"
        code = ("import panel as pn\n"
                f"pn.config.reuse_sessions = {reuse}\n"
                "from dashboard.config import ApiSettings\n"
                "from dashboard.server.serve import serve\n"
                f"serve(port={self.port}, settings=ApiSettings.from_env(demo=True))\n")
        return [sys.executable, "-c", code]


# performance.now() once a Tabulator row is in the page (shadow roots included), else null.
FIRST_ROW_JS = """() => {
  const walk = root => { if (root.querySelector('.tabulator-row')) return true;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot && walk(el.shadowRoot)) return true;
    return false; };
  return walk(document) ? performance.now() : null; }"""

# What the page transferred (bytes on the wire, cached answers count 0) and how many requests.
TRANSFER_JS = """() => { const entries = [...performance.getEntriesByType('navigation'),
                                        ...performance.getEntriesByType('resource')];
  const nav = performance.getEntriesByType('navigation')[0];
  return { bytes: entries.reduce((s, e) => s + (e.transferSize || 0), 0),
           html_ms: nav ? nav.responseStart - nav.requestStart : null,
           requests: entries.length,
           fetched: entries.filter(e => (e.transferSize || 0) > 0).length }; }"""

MODELS_JS = """() => { const d = window.Bokeh && Bokeh.documents[0];
  return d ? { models: d.all_models.size, roots: d.roots().length } : null; }"""

def load(page, url: str) -> dict:
    """Navigate and wait for the first Tabulator row; the time is from navigation start."""
    page.goto(url, wait_until="commit")
    handle = page.wait_for_function(FIRST_ROW_JS, polling="raf", timeout=60_000)
    paint_ms = handle.json_value()
    out = {"ms": paint_ms, **(page.evaluate(MODELS_JS) or {})}
    page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0 && Bokeh.documents.every(d => d.is_idle)",
                           timeout=60_000)
    # settled: what follows once the page is drawn (the sidebar, the unit classes) has arrived,
    # i.e. the model count held for a second
    settled, since = {}, time.monotonic()
    while time.monotonic() - since < 1.0:
        page.wait_for_timeout(200)
        now = page.evaluate(MODELS_JS) or {}
        if now != settled:
            settled, since = now, time.monotonic()
    out.update(page.evaluate(TRANSFER_JS))
    out["models_settled"] = settled.get("models")
    return out


def measure(browser, url: str) -> tuple[dict, dict]:
    """One cold load (fresh context, cache cleared) and one warm load (same context, again)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.clearBrowserCache")
        cold = load(page, url)
        page.goto("about:blank")
        warm = load(page, url)
        return cold, warm
    finally:
        context.close()


def p90(values: list[float]) -> float:
    vals = sorted(values)
    return vals[min(len(vals) - 1, int(round(0.9 * (len(vals) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", help="another checkout of the project to load beside this one")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results: dict[tuple[str, str], list[dict]] = {}
    parser_env = {"SEC_DASHBOARD_CACHE_DIR": os.environ["SEC_DASHBOARD_CACHE_DIR"]} if os.environ.get("SEC_DASHBOARD_CACHE_DIR") else {}
    env = {**parser_env, **deployment_environment()}
    with contextlib.ExitStack() as stack:
        dashboard = stack.enter_context(DashboardProcess(demo=True, env=env))
        reuse = stack.enter_context(ServedVariant(reuse=True, env=env))
        minimal = stack.enter_context(MinimalProcess(env=env))
        pages = {"dashboard": dashboard.url, "dashboard link": dashboard.url + "?q=Demo", "reuse": reuse.url,
                 "minimal": minimal.url}
        if args.baseline:  # as that checkout runs itself (its own allocator choice included)
            before = stack.enter_context(DashboardProcess(demo=True, env=parser_env, root=Path(args.baseline)))
            pages.update({"before": before.url, "before link": before.url + "?q=Demo"})
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for name, url in pages.items():  # one untimed load each: server-side imports and caches
            measure(browser, url)
        for run in range(args.runs):
            order = list(pages.items()) if run % 2 == 0 else list(pages.items())[::-1]
            for name, url in order:
                cold, warm = measure(browser, url)
                results.setdefault((name, "cold"), []).append(cold)
                results.setdefault((name, "warm"), []).append(warm)
        browser.close()

    print(f"First paint (navigation start -> first Tabulator row), {args.runs} runs each, alternating:")
    medians = {}
    for (name, cache), rows in sorted(results.items()):
        ms = [r["ms"] for r in rows]
        medians[(name, cache)] = statistics.median(ms)
        print(f"  {name:<14} {cache:<5} median {statistics.median(ms):7.0f} ms   p90 {p90(ms):7.0f} ms   "
              f"min {min(ms):7.0f}   max {max(ms):7.0f}   "
              f"transferred {statistics.median(r['bytes'] for r in rows) / 1024:7.0f} KiB in "
              f"{statistics.median(r['requests'] for r in rows):.0f} requests "
              f"({statistics.median(r['fetched'] for r in rows):.0f} from the network), "
              f"HTML answered in {statistics.median(r['html_ms'] for r in rows):.0f} ms "
              f"(max {max(r['html_ms'] for r in rows):.0f})")
    for cache in ("cold", "warm"):
        ratio = medians[("dashboard", cache)] / medians[("minimal", cache)]
        link = medians[("dashboard link", cache)] / medians[("minimal", cache)]
        print(f"  ratio dashboard/minimal, {cache}: {ratio:.2f}  (target <= 1.25; a shared link: {link:.2f})")
        for name in ("reuse", "before", "before link"):
            if (name, cache) in medians:
                print(f"  ratio {name}/minimal, {cache}: {medians[(name, cache)] / medians[('minimal', cache)]:.2f}")
    for name in ("dashboard", "minimal"):
        rows = results[(name, "cold")]
        print(f"  Bokeh models, {name}: at first paint {statistics.median(r.get('models', 0) for r in rows):.0f} "
              f"({statistics.median(r.get('roots', 0) for r in rows):.0f} roots), settled "
              f"{statistics.median(r.get('models_settled') or 0 for r in rows):.0f}")


if __name__ == "__main__":
    main()

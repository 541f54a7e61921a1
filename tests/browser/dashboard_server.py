"""Serve the dashboard in a child process for browser tests and benchmarks, and drive its page.

`DashboardProcess` runs `python -m dashboard [--demo] serve --port N` on 127.0.0.1 with a free
port (the command a user runs), waits until it answers, and stops it by its own process id.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.helpers import free_port, wait_until_live

ROOT = Path(__file__).resolve().parents[2]
TABS = ("Fund explorer", "Allocation", "Holdings", "Fees", "Risk", "Performance", "Licensee")
# Bokeh plots per tab on the demo data (a chart that failed to draw is one fewer).
CHARTS_PER_TAB = {"Fund explorer": 0, "Allocation": 2, "Holdings": 3, "Fees": 2, "Risk": 3, "Performance": 3, "Licensee": 0}

# Height of the page's scrolling main area, looking through shadow roots.
MAIN_HEIGHT_JS = """() => { let h = 0;
  const walk = root => { for (const el of root.querySelectorAll('*')) {
    if (el.classList && el.classList.contains('main-content')) h = Math.max(h, el.scrollHeight);
    if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document); return h; }"""

# Elements anywhere in the page (shadow roots included) matching a CSS selector.
COUNT_JS = """(selector) => { let n = 0;
  const walk = root => { n += root.querySelectorAll(selector).length;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return n; }"""


class DashboardProcess:
    """`python -m dashboard ... serve` in a child process; `with DashboardProcess(demo=True) as server:`."""

    #: The servers running now: a failing browser test's report ends with their logs' last lines (conftest).
    running: "set[DashboardProcess]" = set()

    def __init__(self, *, demo: bool = True, env: dict[str, str] | None = None, log_path: Path | None = None,
                 startup_timeout: float = 90.0, serve_args: tuple[str, ...] = (), root: Path = ROOT):
        self.demo = demo
        self.root = Path(root)  # the checkout to run (the benchmarks also run an earlier one beside it)
        self.serve_args = tuple(serve_args)
        self.port = free_port()
        self.extra_env = dict(env or {})
        self.log_path = log_path
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None
        self._log = None
        self._own_cache: str | None = None  # a cache directory made for this server (removed when it stops)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    what = "the dashboard"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "dashboard", *(["--demo"] if self.demo else []), "serve",
                "--port", str(self.port), "--address", "127.0.0.1", *self.serve_args]

    def environment(self) -> dict[str, str]:
        """The server's environment: this one's without the service's settings, and a cache directory of its
        own unless one is given (made here; `stop` removes it)."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("SEC_") or k == "SEC_DASHBOARD_CACHE_DIR"}
        env["PYTHONPATH"] = os.pathsep.join([str(self.root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env.update(self.extra_env)
        if not env.get("SEC_DASHBOARD_CACHE_DIR"):
            # A server made by a module's fixture starts before the test's own isolated environment exists: it read
            # and wrote the real per-user cache (~/.cache/sec-dashboard), shared by every run.
            self._own_cache = self._own_cache or tempfile.mkdtemp(prefix="sec-dashboard-cache-")
            env["SEC_DASHBOARD_CACHE_DIR"] = self._own_cache
        return env

    def start(self) -> "DashboardProcess":
        env = self.environment()
        self._log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(self.command(), cwd=self.root, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        DashboardProcess.running.add(self)
        try:
            wait_until_live(self.url, self.startup_timeout, process=self.process,
                            what=f"{self.what} (its log: {self.log_path})")
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        DashboardProcess.running.discard(self)
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._log not in (None, subprocess.DEVNULL):
            self._log.close()
        self._log = None
        if self._own_cache:
            shutil.rmtree(self._own_cache, ignore_errors=True)
            self._own_cache = None

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of the server's log ("" without one)."""
        if self.log_path is None or not Path(self.log_path).exists():
            return ""
        return "\n".join(Path(self.log_path).read_text(errors="replace").splitlines()[-lines:])

    def cpu_seconds(self) -> float:
        """CPU time the server process has used so far (user + system, from /proc/<pid>/stat), in seconds."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        """Resident memory of the server process (VmRSS), in MB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS in /proc status")

    def __enter__(self) -> "DashboardProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# ---- page helpers ---------------------------------------------------------------------------------


def count(page, selector: str) -> int:
    return page.evaluate(COUNT_JS, selector)


# Waiting costs the page CPU on the cores the server builds it with (measured, 6 s of waiting on the Holdings tab,
# docs/test-speed-browser.md): `locator.wait_for()` 0.07-0.2 CPU-s, a page function every 100 ms 0.2,
# `expect(locator).to_be_visible()` 0.9-1.3 and a page function every frame (Playwright's default) 1.0-1.4. So a
# wait for something to show is `locator.wait_for()` (what `expect` asserts at once after it is cheap).
# How often a `wait_js` wait runs its function, in ms. Playwright's default is every animation frame: a walk of every
# element through the shadow roots (COUNT_JS, ~2,200 elements, ~23 ms) on every frame cost Chromium ~1 CPU-s per
# 6 s of waiting, against ~0.2 at 100 ms, on the cores the server is building the page with.
POLL_MS = 100


def wait_js(page, js: str, arg=None, *, timeout: float = 30_000):
    """Until the page function `js` (given `arg`) returns something true, run every POLL_MS ms; its handle."""
    return page.wait_for_function(js, arg=arg, timeout=timeout, polling=POLL_MS)


def wait_count(page, selector: str, at_least: int = 1, *, timeout: float = 30_000) -> None:
    """Until at least `at_least` elements match the CSS `selector` anywhere in the page (Playwright's locators pierce
    open shadow roots, as COUNT_JS walks them). `Locator.wait_for`, not `expect(...)`: measured on the Holdings tab
    (~2,200 elements), 6 s of waiting cost Chromium 0.07 CPU-s this way, 0.85 with `expect(...).to_be_attached`,
    0.2 with COUNT_JS every 100 ms and 1.0-1.4 with COUNT_JS every frame (docs/test-speed-browser.md)."""
    page.locator(selector).nth(at_least - 1).wait_for(state="attached", timeout=timeout)


def open_tab(page, name: str, timeout: float = 20_000) -> None:
    """Click a tab and wait until it is selected and its charts are drawn (Bokeh figures)."""
    from playwright.sync_api import expect

    from dashboard.models.dashboard_state import TAB_TITLES

    tab = page.get_by_role("tab", name=name)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true", timeout=timeout)
    # The bar marks the tab at once; the server then puts the tab in the address and, once what it shows
    # is ready, its view below the bar: until then the page still shows the last tab's view, charts and all.
    key = next(key for key, title in TAB_TITLES.items() if title == name)
    wait_js(page, "(tab) => new URLSearchParams(location.search).get('tab') === tab", key, timeout=timeout)
    # the tab's own view in the page (the server puts it there once what it shows is read)
    wait_count(page, f".sd-view-{key}", timeout=timeout)
    expected = CHARTS_PER_TAB.get(name, 0)
    if expected:
        wait_count(page, ".bk-Figure", expected, timeout=timeout)
    wait_idle(page, timeout)


def wait_idle(page, timeout: float = 20_000) -> None:
    """Until Bokeh has finished laying out and drawing every view (switching tabs mid-draw makes
    BokehJS log an error about a view it is removing)."""
    wait_js(page, "() => window.Bokeh && Bokeh.documents.length > 0 && Bokeh.documents.every(d => d.is_idle)",
            timeout=timeout)


def screenshot_full(page, path: Path) -> None:
    """A screenshot of the whole main area (it scrolls inside the page), at 1280 px wide."""
    size = page.viewport_size
    height = page.evaluate(MAIN_HEIGHT_JS)
    page.set_viewport_size({"width": size["width"], "height": int(min(max(height + 110, size["height"]), 8000))})
    # Responsive plots re-lay themselves out to the new size: a resize observer's callbacks run before the
    # next frame is painted, and Bokeh draws on the frame after (three frames, and Bokeh idle, instead of a
    # fixed 700 ms: this runs about thirty times a suite).
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(done))))")
    wait_idle(page)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


def wait_for_overview(page, timeout: float = 30_000) -> None:
    page.get_by_text("Registration no.").first.wait_for(timeout=timeout)


# Words of developers, not of investors or compliance officers (the Licensee tab is checked by its owner).
DEVELOPER_WORDS = re.compile(r"\(E\d{1,2}\)|\bactual_value\b|\brate_num\b|\bunique_id\b|\bproj_id\b|inception date")
MY_TABS = ("Fund explorer", "Allocation", "Fees", "Risk", "Performance")


# Panel draws into shadow roots: gather the visible text of the whole tree, shadow roots included.
TEXT_JS = """() => { const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      for (const n of el.childNodes) if (n.nodeType === 3 && n.textContent.trim() && el.offsetParent !== null) out.push(n.textContent.trim()); } };
  walk(document); return out.join('\\n'); }"""


# The page's whole text, hidden parts and shadow roots included (what a page must not name anywhere).
ALL_TEXT_JS = """() => { const out = [];
  const walk = (root) => { out.push(root.textContent || ''); for (const el of root.querySelectorAll('*'))
    if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document.body); return out.join(' '); }"""


# Each table that scrolls sideways: whether it scrolls (overflow-x not hidden) and whether the page's style gives
# its scrollbar a height and a thumb a person sees. (Headless Chromium under Playwright runs with --hide-scrollbars,
# so no scrollbar is ever drawn in these screenshots: the style is what can be checked; drawn without that flag, each
# such table shows a 10 px bar under it.)
HIDDEN_COLUMNS_JS = """() => { const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll('.tabulator-tableholder')) {
      if (el.offsetParent === null || el.scrollWidth <= el.clientWidth + 1) continue;
      const styled = [...root.querySelectorAll('style')].some(s => /tabulator-tableholder::-webkit-scrollbar\\s*\\{\\s*height:\\s*([89]|\\d\\d)px/.test(s.textContent));
      out.push({fields: [...el.closest('.tabulator').querySelectorAll('.tabulator-col[tabulator-field]')].slice(0, 2)
                  .map(c => c.getAttribute('tabulator-field')).join(','),
                scrolls: getComputedStyle(el).overflowX !== 'hidden', styled, hidden: el.scrollWidth - el.clientWidth}); }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return out; }"""


# The right edge of every drawn chart (Bokeh canvases live in shadow roots).
CANVAS_RIGHT_JS = """() => { let right = 0;
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName === 'CANVAS' && el.offsetParent !== null) {
        const box = el.getBoundingClientRect(); if (box.width > 0) right = Math.max(right, box.right); } } };
  walk(document); return right; }"""


# Each Tabulator table in the page, from Bokeh's views: its first columns, the rows it was sent, the rows drawn in
# the page, and whether its view is still being built (what a failing wait for a table's rows reports).
TABLES_JS = """() => { const out = [];
  const walk = (view, depth) => { if (!view || depth > 60) return;
    const m = view.model;
    if (m && String(m.type || '').includes('Tabulator')) {
      const data = m.source ? m.source.data : {}; const first = Object.keys(data)[0];
      const drawn = view.shadow_el ? view.shadow_el.querySelectorAll('.tabulator-row').length : -1;
      const fields = (m.columns || []).map(c => c.field).filter(f => f && f !== '_index').slice(0, 2).join(', ');
      out.push(`table of ${fields || '?'}: sent ${first ? data[first].length : 0} rows, drawn ${drawn}` +
               `${view._initializing ? ', initializing' : ''}${view._building ? ', building' : ''}`); }
    for (const child of (view.child_views || [])) walk(child, depth + 1); };
  const index = window.Bokeh ? Bokeh.index : {};
  for (const root of (typeof index.values === "function" ? index.values() : Object.values(index))) walk(root, 0);
  return out; }"""


def tables_state(page) -> str:
    """TABLES_JS in lines, or why it could not be read."""
    try:
        return "\n".join(page.evaluate(TABLES_JS)) or "(no tables)"
    except Exception as exc:  # noqa: BLE001 - a report on a failure: what went wrong reading it is the report
        return f"(the tables could not be read: {exc})"

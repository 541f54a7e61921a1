"""Memory of the NAV & returns tab: what one dashboard session showing a fund's 5-year NAV chart adds.

Each "session" is the dashboard's page as a served session builds it (`create_dashboard`, its Bokeh
models in a document of its own), on the demo data, its NAV tab shown with the range at 5 years
(the fund's and the basket's histories fetched and drawn). The resident set size (RSS) of this
process is read after a warm-up session (modules, demo data, the client's cache), then with N
sessions alive: (RSS with N - RSS after the warm-up) / N is the cost of one session; the same with
the tab left on the Fund explorer is the comparison. A served session adds its websocket and the
browser's patches on top (benchmarks/bench_sessions.py measures served sessions).

    python benchmarks/bench_nav_memory.py [--sessions 8]
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bokeh.document import Document  # noqa: E402
from panel.io.state import set_curdoc  # noqa: E402

from dashboard.app import create_dashboard  # noqa: E402
from dashboard.config import ApiSettings  # noqa: E402
from dashboard.demo.connect import open_client  # noqa: E402
from dashboard.models.source import run  # noqa: E402


def rss_mb() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


def session(client, tab: str):
    """One dashboard page with its Bokeh models, `tab` shown (the NAV tab at 5 years)."""
    doc = Document()
    with set_curdoc(doc):
        app = create_dashboard(client=client)
        run(app.start())
        app.state.tab = tab
        if tab == "nav":
            app.state.nav.range = "5Y"
            run(app.views["nav"].refresh())
            assert len(app.state.nav.series()) > 1000, "the 5-year series was not loaded"
        doc.add_root(app.page.get_root(doc))
    return app, doc


def per_session(client, tab: str, count: int) -> tuple[float, float]:
    session(client, tab)  # warm-up: what every session shares afterwards
    base = rss_mb()
    kept = [session(client, tab) for _ in range(count)]
    grown = rss_mb() - base
    del kept
    return base, grown / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=8)
    args = parser.parse_args()
    client = open_client(ApiSettings.from_env(demo=True))
    try:
        results = {tab: per_session(client, tab, args.sessions) for tab in ("explorer", "nav")}
    finally:
        client.close()
    print(f"{'tab shown':<34}{'RSS after warm-up (MB)':>24}{'per session (MB)':>20}")
    for tab, (base, each) in results.items():
        label = "NAV & returns, 5-year range" if tab == "nav" else "Fund explorer"
        print(f"{label:<34}{base:>24.0f}{each:>20.1f}")
    print(f"the NAV tab at 5 years adds {results['nav'][1] - results['explorer'][1]:.1f} MB a session over the explorer "
          f"({args.sessions} sessions each; one process, RSS after a full collection)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Server CPU of one visit of the served demo dashboard, per tab (in process).

One visit = create_dashboard, start (first load), show(tab) (the tab's view, as on
pn.state.onload), and the page's Bokeh root for a new Document (the GET).  CPU is
time.process_time (not wall time: the machine is shared).  After one warm round,
ROUNDS rounds are measured and the median and min per phase are printed.

    python benchmarks/bench_page_cost.py [--rounds 3] [--profile FILE]

Copied from the harness used to find the costs (issue 40's first paint).
"""
import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TABS = ["explorer", "allocation", "holdings", "fees", "risk", "performance", "nav", "licensee", "plan"]
PHASES = ["create", "start", "show", "get_root"]


def one(settings, client, tab):
    from bokeh.document import Document

    from dashboard.app import create_dashboard

    t = time.process_time()
    app = create_dashboard(settings, client)
    t1 = time.process_time()
    loop = asyncio.new_event_loop()
    loop.run_until_complete(app.start())
    t2 = time.process_time()
    app.state.tab = tab
    loop.run_until_complete(app.show(tab))
    t3 = time.process_time()
    doc = Document()
    doc.add_root(app.page.get_root(doc))
    t4 = time.process_time()
    loop.close()
    return (t1 - t, t2 - t1, t3 - t2, t4 - t3)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds measured after one warm round")
    parser.add_argument("--profile", default=None, help="a file to write a cProfile of one more round to")
    args = parser.parse_args(argv)
    rounds, profile = args.rounds, args.profile
    from dashboard.config import ApiSettings
    from dashboard.models.source import default_client

    # the demo data in a cache directory of the benchmark's own (set here, not on import: nothing changes on --help)
    settings = ApiSettings.from_env(demo=True, cache_dir=tempfile.mkdtemp())
    client = default_client(settings)
    for tab in TABS:
        one(settings, client, tab)  # warm: imports, the client's cache, first-time costs
    runs = {tab: [] for tab in TABS}
    for _ in range(rounds):
        for tab in TABS:
            runs[tab].append(one(settings, client, tab))
    print(f"load average {os.getloadavg()[0]:.1f}; {rounds} rounds; ms CPU, median (min)")
    print(f"{'tab':12}" + "".join(f"{p:>14}" for p in PHASES) + f"{'total':>14}")
    grand = 0.0
    for tab in TABS:
        cols = list(zip(*runs[tab]))
        totals = [sum(r) for r in runs[tab]]
        grand += statistics.median(totals)
        cells = "".join(f"{statistics.median(c)*1000:7.0f} ({min(c)*1000:4.0f})" for c in cols)
        print(f"{tab:12}{cells}{statistics.median(totals)*1000:7.0f} ({min(totals)*1000:4.0f})")
    print(f"sum of medians over the tabs: {grand*1000:.0f} ms")
    if profile:
        import cProfile
        pr = cProfile.Profile()
        pr.enable()
        for tab in TABS:
            one(settings, client, tab)
        pr.disable()
        pr.dump_stats(profile)


if __name__ == "__main__":
    main(sys.argv[1:])

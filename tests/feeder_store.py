"""A demo market snapshot with the feeder families and their daily NAV (what the sibling views read), built
in a directory: the `market sync --demo` of the datasets the feeders need, then the demo's NAV loaded."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from dashboard.cli.main import main
from dashboard.demo.feeders import FEEDERS
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.nav import market_nav_frame
from dashboard.demo.successor_nav import dividend_rows
from dashboard.market.nav_figures_table import refresh_nav_figures
from dashboard.market.nav_store import from_market_frame, load_nav, window_rows
from dashboard.market.store import MarketStore
from tests.built_once import built_once, copy_built
from tests.conftest import TODAY

STORE_FILE = "market-demo.duckdb"


def build_feeder_store(directory: Path) -> Path:
    """The demo cache directory `directory` with a published market snapshot; the store file's path."""
    assert main(["market", "sync", "--demo", "--cache-dir", str(directory), "--only",
                 "funds,companies,risk,fees,holdings", "--quarters", "1", "--nav-days", "0", "--json"]) == 0
    ds = generate_demo_dataset(today=TODAY)
    nav = from_market_frame(market_nav_frame(ds.nav_profiles, TODAY))
    dist = window_rows([], dividend_rows(ds, {}), date(2000, 1, 1), TODAY).distributions
    with MarketStore(directory / STORE_FILE) as store:
        load_nav(store, nav, dist, fetched_on=TODAY)
        refresh_nav_figures(store, risk_free=0.0)
        store.publish(["nav", "distributions", "nav_figures"])
    return directory / STORE_FILE


def feeder_store_once(tmp_path_factory, name: str) -> Path:
    """A copy of its own (a directory `name` of the test's temporary folders) of the demo cache directory
    `build_feeder_store` makes, built once in the whole run (tests/built_once.py) for every module that reads it
    (the feeders, the siblings view, the feeder reports, the screener's NAV figures: four builds, one each, before);
    the copy's store file's path. A copy, since a CLI command or a client over the directory may write to it."""
    built, _ = built_once(tmp_path_factory, "feeder-store", build_feeder_store)
    return copy_built(built, tmp_path_factory.mktemp(name) / "cache") / STORE_FILE


def feeder_abbr(company: int, suffix: str) -> str:
    """The abbreviation of a demo feeder (dashboard.demo.feeders: its company's index and suffix)."""
    ds = generate_demo_dataset(today=TODAY)
    assert any(f.company == company and f.suffix == suffix for f in FEEDERS)
    return f"{ds.amcs[company % len(ds.amcs)]['abbr']}{suffix}"

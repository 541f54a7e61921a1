"""Market store fixtures: the demo simulator in process (counting its requests) and clients of it."""

from __future__ import annotations

import copy
import dataclasses
import marshal
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.simulator import create_app
from dashboard.market.store import MarketStore
from dashboard.market.sync import sync_blocking
from tests.built_once import built_once, copy_built
from tests.conftest import TODAY

# Holdings quarters synced in the tests (all 12 work; fewer keep the tests fast).
QUARTERS = {"successor": 2, "legacy": 1}


def independent_copy(dataset: DemoDataset) -> DemoDataset:
    """A copy of `dataset` that no change reaches the original through (or the other way): its payloads are plain
    data, copied through marshal as `generate_demo_dataset` copies its cached build (tens of milliseconds; a
    deepcopy took half a second of CPU, and the market tests made one for every simulator they start). A payload
    marshal cannot carry (a test put an object in it) is deep-copied."""
    fixed = ("seed", "today", "label", "scale")  # immutable values, shared
    payloads = {f.name: getattr(dataset, f.name) for f in dataclasses.fields(dataset) if f.name not in fixed}
    try:
        copied = marshal.loads(marshal.dumps(payloads))
    except ValueError:
        copied = copy.deepcopy(payloads)
    return dataclasses.replace(dataset, **copied)


class Market:
    """A simulator app over a copy of the demo data set, answering on one layout, and clients of it."""

    def __init__(self, dataset, layout: str):
        self.dataset = independent_copy(dataset)
        self.layout = layout
        self.app = create_app(self.dataset, require_key=False, today=TODAY, layout=layout)
        self.clients = []

    def client(self):
        settings = ApiSettings.from_env(base_url="http://simulator.test", use_cache=False, layout=self.layout,
                                        environ={})
        client = open_client(settings, transport=httpx.ASGITransport(app=self.app), cache=None, require_keys=False,
                             today=lambda: TODAY, rate_limit_calls=1_000_000, backoff_base=0.01, backoff_max=0.02)
        self.clients.append(client)
        return client

    def sync(self, store: MarketStore, **options):
        options.setdefault("quarters", QUARTERS[self.layout])
        return sync_blocking(store, self.client(), **options)

    def close(self):
        for client in self.clients:
            client.close()


@pytest.fixture(scope="session")
def market_factory(dataset):
    made: list[Market] = []

    def make(layout: str) -> Market:
        market = Market(dataset, layout)
        made.append(market)
        return market

    yield make
    for market in made:
        market.close()


@pytest.fixture(scope="session")
def synced_by_layout(market_factory, tmp_path_factory):
    """Whole syncs of the demo market, made once a layout when first asked for (see `synced`): synced once in
    the whole run (tests/built_once.py), each worker writing to a copy of its own."""
    made: dict[str, tuple] = {}

    def get(layout: str) -> tuple:
        if layout not in made:
            market = market_factory(layout)
            built, result = synced_once(tmp_path_factory, layout)
            copy = copy_built(built, Path(tmp_path_factory.mktemp(f"store-{layout}")) / "store")
            made[layout] = (market, MarketStore(copy / "market.duckdb"), result)
        return made[layout]

    yield get
    for _market, store, _result in made.values():
        store.close()


def synced_once(tmp_path_factory, layout: str, **options) -> tuple[Path, Any]:
    """(directory, SyncResult): the directory holding `market.duckdb` (closed) and its snapshot, of one whole
    sync of the demo market on `layout` with these options, made once in the run. Read-only: copy it to write."""
    def build(directory: Path):
        market = Market(generate_demo_dataset(today=TODAY), layout)
        try:
            with MarketStore(directory / "market.duckdb") as store:
                return market.sync(store, **options)
        finally:
            market.close()

    name = "-".join([f"market-{layout}", *(f"{k}={v}" for k, v in sorted(options.items()))])
    return built_once(tmp_path_factory, name, build)


CLI_MARKET = ["market", "sync", "--demo", "--only", "funds,companies,risk,fees,holdings", "--json"]


def cli_synced_once(tmp_path_factory, name: str) -> Path:
    """A cache directory of its own (a folder `name` of the test's temporary ones) holding the demo market as
    `CLI_MARKET` (the command, its default quarters) syncs it: synced once in the whole run (tests/built_once.py)
    and copied, for the modules that each synced it (or a part of it) for themselves before."""
    def build(directory: Path) -> None:
        from dashboard.cli import market as cli

        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("SEC_DASHBOARD_CACHE_DIR", str(directory))
            assert cli.main(CLI_MARKET) == 0

    built, _ = built_once(tmp_path_factory, "cli-market", build)
    return copy_built(built, tmp_path_factory.mktemp(name) / "cache")


def copy_of(store: MarketStore, path: Path) -> MarketStore:
    """A store of its own holding what `store` holds (its file, checkpointed, copied): for a test that changes
    a whole sync's store without syncing the market once more."""
    store.con.execute("CHECKPOINT")  # everything in the file itself, nothing left in the write-ahead log
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(store.path, path)
    return MarketStore(path)


@pytest.fixture(params=["successor", "legacy"])
def synced(request, synced_by_layout):
    """(market, store, result): a whole sync of the demo market on each layout. (A parametrised session
    fixture was torn down and synced again each time the next test wanted the other layout: six whole
    syncs a run where two do.)"""
    return synced_by_layout(request.param)

"""The market-scale demo data set: the whole market's size, deterministic, served by the simulator.

Building it takes several seconds, so it is built once per session (the fixture below) and every
test here reads that one data set; the determinism check builds it once more in a subprocess
(another process, another string-hash seed) while this process builds its own.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import httpx
import pytest

from dashboard.api.periods import offered_periods
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.generator import SCALES, generate_demo_dataset
from dashboard.demo.nav import market_nav_frame
from dashboard.demo.simulator import create_app

pytestmark = pytest.mark.slow  # generates the whole market (~4,700 classes) once, and again in a subprocess

TODAY = date(2026, 11, 21)
ROOT = Path(__file__).resolve().parents[2]

# A digest of what identifies the data set: every fund, class and fee record, and every 40th
# portfolio in full. Computed here and in the subprocess with the same code.
DIGEST = """
import hashlib, json
def digest(ds):
    pids = sorted(ds.holdings)[::40]
    part = {"funds": ds.funds, "classes": ds.classes, "fees": ds.fees, "amcs": ds.amcs,
            "holdings": {p: ds.holdings[p] for p in pids}, "details": {p: ds.fund_details[p] for p in pids}}
    return hashlib.sha256(json.dumps(part, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
"""
namespace: dict = {}
exec(DIGEST, namespace)  # noqa: S102 - the same helper text runs in the subprocess
digest = namespace["digest"]


@pytest.fixture(scope="session")
def other_process_digest():
    """The digest of the market data set built in another process (started first, so both build at once)."""
    code = DIGEST + (
        "import datetime\nfrom dashboard.demo.generator import generate_demo_dataset\n"
        f"print(digest(generate_demo_dataset(today=datetime.date({TODAY.year}, {TODAY.month}, {TODAY.day}), scale='market')))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    yield proc
    proc.kill()


@pytest.fixture(scope="session")
def market(other_process_digest) -> DemoDataset:
    return generate_demo_dataset(today=TODAY, scale="market")


def class_count(ds: DemoDataset) -> int:
    """Unit classes as the service lists them: a fund without classes is one class."""
    return sum(len(ds.classes.get(f["proj_id"]) or [None]) for f in ds.funds)


def test_the_market_data_set_has_the_whole_markets_size(market):
    assert market.scale == "market"
    assert 20 <= len(market.amcs) <= 24
    assert 2000 <= len(market.funds) <= 2200
    assert 4500 <= class_count(market) <= 4900
    assert len({f["proj_id"] for f in market.funds}) == len(market.funds)
    assert len({f["proj_abbr_name"] for f in market.funds}) == len(market.funds)
    statuses = Counter(f["fund_status"] for f in market.funds)
    assert statuses["RG"] > 0.7 * len(market.funds) and {"SE", "LI", "CA", "EX"} <= set(statuses)
    companies = Counter(f["unique_id"] for f in market.funds)
    assert set(companies) == {a["unique_id"] for a in market.amcs}
    assert max(companies.values()) > 4 * min(companies.values())  # a few large companies, many small ones


def test_every_active_portfolio_has_twelve_quarters(market):
    assert len(market.periods) == len(offered_periods(TODAY)) >= 12  # 13 while one layout publishes first
    assert 1000 <= len(market.holdings) <= 2000
    for by_period in market.holdings.values():
        assert sorted(by_period) == sorted(market.periods)
    rows = sum(len(rows) for by_period in market.holdings.values() for rows in by_period.values())
    assert 400_000 <= rows <= 1_000_000  # the real market: about 760,000 rows over twelve quarters


def test_the_market_scale_generator_gives_about_six_million_nav_rows(market):
    frame = market_nav_frame(market.nav_profiles, TODAY)
    classes = frame.groupby(["proj_id", "fund_class_name"], observed=True).ngroups
    assert classes > 4000
    assert 4_500_000 < len(frame) < 8_000_000
    assert frame["nav"].gt(0).all() and frame["nav_date"].dt.day_of_week.lt(5).all()


def test_the_market_data_set_is_deterministic(market, other_process_digest):
    out, _ = other_process_digest.communicate(timeout=180)
    assert other_process_digest.returncode == 0
    assert out.strip() == digest(market)
    assert digest(generate_demo_dataset(today=TODAY, scale="market")) == digest(market)  # the cached copy


def test_the_default_scale_is_small_and_unknown_scales_are_refused():
    small = generate_demo_dataset(today=TODAY)
    assert small.scale == "small" and len(small.funds) < 200 and len(small.amcs) == 9
    assert SCALES == ("small", "market")
    with pytest.raises(ValueError, match="scale"):
        generate_demo_dataset(today=TODAY, scale="huge")


def test_the_simulator_serves_the_market_page_by_page(market):
    app = create_app(market, require_key=False, today=TODAY, layout="successor")

    async def pages() -> tuple[int, set[str]]:
        seen: set[str] = set()
        calls = 0
        cursor = ""
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sim.test") as client:
            while True:
                query = {"page_size": "100"} | ({"next_cursor": cursor} if cursor else {})
                answer = await client.get("/v2/fund/general-info/profiles", params=query)
                calls += 1
                assert answer.status_code == 200
                body = answer.json()
                seen.update(item["proj_id"] for item in body["items"])
                cursor = body["next_cursor"]
                if not cursor:
                    return calls, seen

    calls, seen = asyncio.run(pages())
    assert seen == {f["proj_id"] for f in market.funds}
    assert calls == -(-class_count(market) // 100)  # one profile row per unit class
    assert len(app.answer_cache) == 1  # built once, not once per page


def test_the_market_data_set_agrees_with_itself(market):
    from tests.demo.test_consistency import check_allocations, check_fees, check_tax_incentives

    assert check_allocations(market) > 500
    assert check_tax_incentives(market) > 50
    check_fees(market)

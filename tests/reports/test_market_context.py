"""The factsheet report's market context: the fund's fee and risk level against its peers, only when a
market store exists (synced here from the demo simulator), and not a word about the market otherwise."""

from __future__ import annotations

import html
import re

import pytest

from dashboard.config import ApiSettings
from dashboard.demo.generator import generate_demo_dataset
from dashboard.market import queries
from dashboard.market.store import MarketStore
from dashboard.market.sync import sync_blocking
from dashboard.reports import fund_report_html
from dashboard.reports.factsheet import factsheet_document
from tests.conftest import TODAY
from tests.reports.helpers import client_for, factsheet_report, full_funds

DATASETS = "companies,funds,fees,risk"  # what the market context reads (no holdings: a quicker sync)
UNLIMITED = 10**9  # no pacing against the in-process simulator


@pytest.fixture(scope="module")
def dataset():
    return generate_demo_dataset(today=TODAY)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("market-report-cache")


@pytest.fixture(scope="module")
def settings(cache_dir):
    return ApiSettings.from_env(demo=True, layout="successor", environ={}, cache_dir=cache_dir)


@pytest.fixture(scope="module")
def client(dataset, settings):
    client = client_for(dataset, TODAY, "successor", settings=settings, rate_limit_calls=UNLIMITED)
    yield client
    client.close()


@pytest.fixture(scope="module")
def store(client, settings):
    """The demo market synced into the store these settings name (the snapshot a report looks for)."""
    store = MarketStore(settings=settings)
    result = sync_blocking(store, client, only=DATASETS)
    assert result.complete
    yield store
    store.close()


@pytest.fixture(scope="module")
def fund(dataset):
    return full_funds(dataset)[0]


def section(page: str, ident: str) -> str | None:
    match = re.search(rf'<section[^>]*id="{ident}"[^>]*>(.*?)</section>', page, re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", match.group(1))) if match else None


def words(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def expected_context(store: MarketStore, proj_id: str) -> dict:
    """The fund's place among its peers, counted here from the screener's rows (not from the report's reads)."""
    rows = queries.screen(store)
    me = next(r for r in rows if r["proj_id"] == proj_id)
    policy = (me["policy_desc"] or "").strip()
    peers = [r for r in rows if (r["policy_desc"] or "").strip() == policy]
    charged = [r["total_fee_actual"] for r in peers if r["total_fee_actual"] is not None]
    fee = me["total_fee_actual"]
    ranked = [r for r in peers if r["risk_spectrum"]]
    rank = {f"RS{n}": n for n in range(1, 9)} | {"RS81": 9, "RS8+": 9}
    mine = rank[me["risk_spectrum"]]
    return {
        "policy": policy, "fee": fee, "risk": me["risk_spectrum"],
        "peers": len(charged), "cheaper": sum(v < fee for v in charged), "dearer": sum(v > fee for v in charged),
        "lower": sum(rank[r["risk_spectrum"]] < mine for r in ranked),
        "higher": sum(rank[r["risk_spectrum"]] > mine for r in ranked),
        "same": sum(rank[r["risk_spectrum"]] == mine for r in ranked) - 1,
    }


@pytest.fixture(scope="module")
def found_page(client, store, fund):
    """The fund's report as the command line makes it: the market snapshot next to the client's settings is found
    and read without being handed in (two tests read this one report: a report is seconds of CPU to draw)."""
    return fund_report_html(client, [fund["proj_id"]])


def test_the_report_puts_the_funds_fee_and_risk_among_its_peers(found_page, store, fund):
    text = words(section(found_page, "market") or "")
    assert text, "a market context section when a market store is given"
    want = expected_context(store, fund["proj_id"])
    assert want["peers"] > 1
    # the policy type in English beside the Thai the service sends (equity · ตราสารทุน)
    assert re.search(rf"policy type \([a-z][a-z ()]+ · {re.escape(want['policy'])}\)", text)
    assert f"{want['cheaper']} of {want['peers'] - 1} peers charge less, {want['dearer']} charge more" in text
    assert f"{want['fee']:.2f} % a year" in text or f"{want['fee']:.2f}% a year" in text
    assert f"{want['lower']} / {want['same']} / {want['higher']}" in text
    assert want["risk"] in text
    assert "prospectus ceilings" in text  # says which fee is compared


def test_the_report_finds_the_published_snapshot_of_its_settings(found_page):
    assert section(found_page, "market"), "the snapshot next to the settings' store is read without being handed in"


def test_without_a_market_store_the_report_says_nothing_about_the_market(fund, tmp_path_factory):
    # The same fund's report over a cache directory with no market store in it (its own empty build directory),
    # rendered once in the run for the modules that read it (tests/reports/helpers.py).
    page = factsheet_report(tmp_path_factory, "successor", fund["proj_id"])
    assert section(page, "market") is None
    assert "Market context" not in page and "peers" not in page
    assert section(page, "risk")  # the rest of the report is all there


def test_a_fund_added_after_the_sync_is_named_as_missing_from_the_snapshot(store):
    later = generate_demo_dataset(today=TODAY)
    src = full_funds(later)[1]
    later.add_fund(dict(src, proj_id="M9997_2569", proj_abbr_name="DEMO-NEW"), fees=later.fees[src["proj_id"]],
                   suitability=later.suitability[src["proj_id"]], performance=later.performance[src["proj_id"]])
    with client_for(later, TODAY, "successor", rate_limit_calls=UNLIMITED) as other:
        page = factsheet_document(other, "M9997_2569", market=store).render()
    assert "not in the market snapshot" in words(section(page, "market") or "")

"""The reports' parts of issue 36 on the demo market snapshot: a feeder's sibling feeders in its factsheet
report (nothing for a fund that is not a feeder), and the fee drag in the comparison report, each class at its
own 5-year NAV return, the figures worked out here from the store's fees and returns."""

from __future__ import annotations

import html
import re

import pytest

from dashboard.config import ApiSettings
from dashboard.demo.generator import generate_demo_dataset
from dashboard.market.feeders import class_fees, class_nav_returns, siblings
from dashboard.market.store import MarketStore
from dashboard.models.fee_drag import fee_drag, gross_from_nav
from dashboard.reports import fund_report_html
from dashboard.reports.factsheet import factsheet_document
from tests.conftest import TODAY
from tests.feeder_store import feeder_abbr, feeder_store_once
from tests.reports.helpers import client_for


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return feeder_store_once(tmp_path_factory, "feeder-reports").parent


@pytest.fixture(scope="module")
def reader(cache_dir):
    with MarketStore(cache_dir / "market-demo.duckdb", read_only=True) as store:
        yield store


@pytest.fixture(scope="module")
def client(cache_dir):
    settings = ApiSettings.from_env(demo=True, layout="successor", environ={}, cache_dir=cache_dir)
    client = client_for(generate_demo_dataset(today=TODAY), TODAY, "successor", settings=settings,
                        rate_limit_calls=10**9)
    yield client
    client.close()


def section(page: str, ident: str) -> str | None:
    match = re.search(rf'<section[^>]*id="{ident}"[^>]*>(.*?)</section>', page, re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", match.group(1)))) if match else None


def proj_id_of(reader, abbr: str) -> str:
    return reader.query("SELECT proj_id FROM funds WHERE proj_abbr_name = ?", [abbr])[0]["proj_id"]


def test_a_feeders_factsheet_report_lists_its_siblings(client, reader):
    proj_id = proj_id_of(reader, feeder_abbr(2, "GQ"))
    text = section(factsheet_document(client, proj_id, market=reader).render(), "siblings")
    assert text, "a sibling feeders section for a feeder"
    data = siblings(reader, proj_id)
    assert data["master"]["master_name"] in text and "the ISIN of its master-fund holding" in text
    for row in data["rows"]:
        assert row["proj_abbr_name"] in text
    cheapest = data["cheapest"]
    assert f"{cheapest['proj_abbr_name']} {cheapest['class'] or '(only class)'}: {cheapest['total_expense']:.2f} % a year" in text
    assert "this fund" in text and str(data["nav_date"]) in text


def test_a_fund_that_is_not_a_feeder_has_no_siblings_section(client, reader):
    other = reader.query("SELECT proj_id FROM funds WHERE proj_id NOT IN (SELECT proj_id FROM feeders) "
                         "ORDER BY proj_id LIMIT 1")[0]["proj_id"]
    assert section(factsheet_document(client, other, market=reader).render(), "siblings") is None


def test_the_comparison_report_shows_the_fee_drag_at_each_classs_own_return(client, reader):
    ids = [proj_id_of(reader, feeder_abbr(1, "GQ-UH")), proj_id_of(reader, feeder_abbr(3, "GQ"))]
    text = section(fund_report_html(client, ids), "fee-drag")
    assert text and "100,000 THB held 10 years" in text
    returns = class_nav_returns(reader, ids)
    fees = class_fees(reader, ids)
    for proj_id in ids:
        first = sorted(c for p, c in fees if p == proj_id)[0]
        charged = fees[(proj_id, first)]["charged"]
        nav5, day = returns[(proj_id, first)]
        gross = gross_from_nav(nav5, charged.total_expense)
        cost = fee_drag(100_000, 10, gross, charged).cost
        assert f"its 5-year NAV return, {nav5:.2f} % a year to {day}" in text
        assert f"{cost:,.0f}" in text, (proj_id, first, cost)

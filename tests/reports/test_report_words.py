"""Reports use the dashboard's words: names beside codes, baht, "may (not) invest", periods in words."""

from __future__ import annotations

import html
import re
from datetime import datetime, timezone

import pytest

from dashboard.demo.generator import generate_demo_dataset
from dashboard.reports import fund_report_html, licensee_report_html
from dashboard.records.labels import ASSET_TYPE
from tests.conftest import TODAY
from tests.reports.helpers import client_for, factsheet_report, full_funds

GENERATED = datetime(2026, 11, 21, 2, 30, tzinfo=timezone.utc)


def section(page: str, ident: str) -> str:
    match = re.search(rf'<section id="{ident}">(.*?)</section>', page, re.S)
    assert match, f"no section {ident}"
    return html.unescape(match.group(1))


def header_cells(table_html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<th[^>]*>(.*?)</th>", table_html, re.S)]


@pytest.fixture(scope="module")
def data():
    return generate_demo_dataset(today=TODAY)


@pytest.fixture(scope="module", params=["legacy", "successor"])
def page(request, data, tmp_path_factory):
    """The first full fund's report on each layout, rendered once in the run (tests/reports/helpers.py)."""
    fund = full_funds(data)[0]
    return factsheet_report(tmp_path_factory, request.param, fund["proj_id"]), fund, request.param


def test_holdings_show_asset_types_by_name_with_the_code(page):
    text, _, _ = page
    holdings = section(text, "holdings")
    assert "Asset type" in header_cells(holdings) and "Asset code" not in header_cells(holdings)
    named = [f"{english}" for _, english in ASSET_TYPE.values() if english in holdings]
    assert named, "no asset type shown by name"
    assert re.search(r"[a-z] · [\u0e00-\u0e7f].*?\(\d{3}\)", holdings), "name, Thai text and code together"


def test_overview_speaks_like_the_dashboard(page):
    text, fund, layout = page
    overview = section(text, "overview")
    assert "US investors permitted" not in overview
    row = re.search(r"US investors</th>\s*<td>(.*?)</td>", overview, re.S)
    assert row, "no US investors row"
    expected = {"successor": "not published by the current service"}.get(
        layout, {"Y": "may invest", "N": "may not invest"}.get(fund.get("permit_us_investment")))
    assert expected and expected in row.group(1)
    amounts = re.findall(r"(?:First purchase|Later purchases|Minimum balance)</th>\s*<td>(.*?)</td>", overview)
    # the product's words for the amount; a note after it (in parentheses) is the service's text
    assert any(re.match(r"[\d,.]+ baht", a) for a in amounts), amounts
    assert not any(re.match(r"[\d,.]+ บาท", a) for a in amounts), amounts


def test_the_header_names_the_company(page):
    text, fund, layout = page
    subtitle = re.search(r'<p class="subtitle">(.*?)</p>', text, re.S)
    assert subtitle, "no subtitle"
    if layout == "successor":  # the current service names the company on every fund
        assert f"company {fund['unique_id']}" not in subtitle.group(1) and "Demo" in subtitle.group(1)


def test_periods_are_words(page):
    text, _, _ = page
    performance = section(text, "performance")
    assert "since inception" in performance and "inception date" not in performance


def test_comparison_report_periods_are_words(data):
    client = client_for(data, TODAY, layout="successor")
    try:
        ids = [f["proj_id"] for f in full_funds(data)[:3]]
        text = fund_report_html(client, ids, generated_at=GENERATED)
    finally:
        client.close()
    performance = section(text, "performance")
    assert "since inception" in performance and "inception date" not in performance
    assert "(rate)" not in text


def test_licensee_report_names_approvals_and_duties_and_reads_for_people(data):
    person = next(uid for uid, rows in data.approvals.items() if rows and data.duties.get(uid))
    client = client_for(data, TODAY, layout="successor")
    try:
        text = html.unescape(licensee_report_html(client, person, generated_at=GENERATED))
    finally:
        client.close()
    approvals = section(text, "approvals")
    code = data.approvals[person][0]["lic_code"]
    assert "Approval code" not in approvals
    assert re.search(rf"[A-Za-z\u0e00-\u0e7f][^<]* \({re.escape(code)}\)", approvals), "approval named, code beside it"
    assert "Duty code" not in section(text, "duties")
    assert "The specification numbers" not in text

"""The NAV sections of the reports: the factsheet's NAV chart and figures table, the comparison's rebased chart
and table, offline, with service text escaped and the older service's limit said. The first full fund's
factsheet and comparison reports are the ones rendered once in the run for every module that reads them (tests/reports/helpers.py)."""

from __future__ import annotations

import copy
import re
from datetime import date

import pytest

from dashboard.demo.generator import generate_demo_dataset
from dashboard.reports import fund_report_html
from tests.conftest import TODAY
from tests.reports.helpers import HOSTILE_ABBR, RAW_MARKUP, client_for, factsheet_report, full_funds, report_once


@pytest.fixture(scope="module")
def dataset_module():
    return generate_demo_dataset(today=TODAY)


def section(html: str, ident: str) -> str:
    match = re.search(rf'<section id="{ident}">(.*?)</section>', html, re.S)
    assert match, f"no section {ident}"
    return match.group(1)


def test_the_factsheet_report_draws_the_nav_and_its_figures_beside_the_published(dataset_module, tmp_path_factory):
    fund = full_funds(dataset_module)[0]
    html = factsheet_report(tmp_path_factory, "successor", fund["proj_id"])  # rendered once in the run
    nav = section(html, "nav")
    assert "NAV history and returns" in nav and 'aria-label="NAV history"' in nav
    classes = [c["name"] for c in dataset_module.nav_profiles[fund["proj_id"]]["classes"]]
    tables = re.findall(r'<table class="data" id="nav-figures-\d+">', nav)
    assert len(tables) == len(classes) > 1
    assert all(f"<h3>Class {name}</h3>" in nav for name in classes)
    assert "Published in the factsheet" in nav and re.search(r"<td>Return, 1 year</td><td class=\"num\">-?\d", nav)
    assert "difference is taken at that date" in nav and "days without a NAV" in nav
    assert not re.search(r"<script[^>]+src=", html)  # offline: Bokeh inline, nothing fetched


def test_the_comparison_report_rebases_the_funds_on_their_common_start(dataset_module, tmp_path_factory):
    ids = [f["proj_id"] for f in full_funds(dataset_module)[:3]]
    html = report_once(tmp_path_factory, "successor", ids)  # rendered once in the run (test_reports.py reads it)
    nav = section(html, "nav")
    assert 'aria-label="NAV rebased to 100"' in nav
    rows = re.findall(r"<tr><td>[^<]+</td>(?:<td[^>]*>[^<]*</td>){8}</tr>", nav)
    assert len(rows) == len(ids)
    starts = set(re.findall(r'<td class="nowrap">(\d{4}-\d\d-\d\d)</td><td class="nowrap">\d{4}', nav))
    assert len(starts) == 1
    start = date.fromisoformat(starts.pop())
    assert f"from {start.day} {start:%b %Y} (the first day every fund has a NAV)" in nav


def test_service_text_in_the_nav_section_is_escaped(dataset_module):
    ds = copy.deepcopy(dataset_module)
    fund = full_funds(ds)[0]["proj_id"]
    for cls in ds.nav_profiles[fund]["classes"]:
        cls["name"] = HOSTILE_ABBR + cls["name"]
    client = client_for(ds, TODAY, layout="successor")
    try:
        nav = section(fund_report_html(client, [fund]), "nav")
    finally:
        client.close()
    assert "EVIL&lt;b&gt;FUND&lt;/b&gt;" in nav and not any(raw in nav for raw in RAW_MARKUP)


def test_the_older_service_report_says_recent_weeks_only(dataset_module, tmp_path_factory):
    fund = full_funds(dataset_module)[0]
    nav = section(factsheet_report(tmp_path_factory, "legacy", fund["proj_id"]), "nav")  # rendered once in the run
    assert "Recent weeks only" in nav and "one day per call" in nav

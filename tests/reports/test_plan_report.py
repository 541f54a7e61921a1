"""The plan report (`reports.plan`) and the regular-investing section (`reports.dca`), read back from the HTML: the
estimate note, the rules' date and sources, the worked example's figures, a hand-worked simulation's figures and its
chart, service text escaped (a hostile fund name), no key, no resource fetched; `plan tax|dca --report FILE`."""

from __future__ import annotations

import datetime as dt
import html
import re

import pandas as pd
import pytest

from dashboard.cli.main import main
from dashboard.config import ApiSettings
from dashboard.models.dca import ESTIMATE_NOTE, DcaPlan, simulate
from dashboard.models.tax_plan import plan
from dashboard.reports.plan import plan_document
from tests.conftest import KEY
from tests.reports.helpers import HOSTILE_ABBR, HOSTILE_NAME, RAW_MARKUP
from tests.reports.test_reports import external_references, fact, section

GENERATED = dt.datetime(2026, 11, 21, 9, 30, 5, tzinfo=dt.timezone(dt.timedelta(hours=7)))


def cells(page: str, css_id: str) -> list[list[str]]:
    """A table's rows as text (the header row first)."""
    match = re.search(rf'<table class="data" id="{css_id}">(.*?)</table>', page, re.S)
    assert match, f"no table {css_id}"
    rows = re.findall(r"<tr>(.*?)</tr>", match.group(1), re.S)
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)]
            for r in rows]


def worked_example():
    """PwC's salaried person (docs/tax-planner.md): 1,200,000 baht, 60,000 to a provident fund, tax year 2025."""
    return plan(2025, 1_200_000, provident_fund=60_000, purchase_day="2025-06-01")


def flat_then_up(label: str = "A-CLASS"):
    """NAV 10 every business day of Q1 2024, 12 on its last: 1,000 baht on the 1st of January, February and March
    buys 100 units each (no fee); at the end 300 units are worth 3,600 baht, 600 more than the 3,000 put in."""
    days = pd.bdate_range("2024-01-01", "2024-03-29")
    nav = pd.DataFrame({"nav_date": days, "nav": [10.0] * (len(days) - 1) + [12.0]})
    return simulate(nav, None, DcaPlan(monthly=1000, start=dt.date(2024, 1, 1), end=dt.date(2024, 3, 31), day=1),
                    label=label)


@pytest.fixture(scope="module")
def demo_settings():
    return ApiSettings.from_env(demo=True, environ={})


def test_the_tax_plan_report_of_a_worked_example(demo_settings):
    result = worked_example()
    funds = {"RMF": [{"wrapper": "RMF", "rank": 1, "proj_abbr_name": "DDI-RMF", "company": "Demo Doi Inthanon",
                      "total_fee_actual": 1.25, "nav_total_return_1y": 4.5, "volatility_1y": None}], "ThaiESG": []}
    page = plan_document(demo_settings, tax=result, funds=funds, rank_by="fee", generated_at=GENERATED).render()
    assert fact(page, "tax-year") == "2025" and fact(page, "rules-dated") == "2025-04-16"
    plan_part = section(page, "tax-plan")
    assert "An estimate, not tax or investment advice. Rules of tax year 2025 as in force on 2025-04-16" in plan_part
    rows = cells(page, "tax-plan-table")
    assert rows[0][:4] == ["Wrapper", "Room left (baht)", "Limit that binds", "Tax saved (baht)"]
    rmf = next(r for r in rows if r[0] == "Retirement Mutual Fund (RMF)")
    assert rmf[1] == "360,000" and rmf[3] == "65,500"  # worked by hand in tests/models/test_tax_plan.py
    esg = next(r for r in rows if r[0] == "Thailand ESG Fund (Thai ESG)")
    assert esg[-1] == "2030-06-01"  # five years from the purchase, day to day
    assert "980,000 (estimated for a salaried person)" in html.unescape(plan_part)
    found = cells(page, "tax-funds-RMF")
    assert found[1][:3] == ["1", "DDI-RMF", "Demo Doi Inthanon"] and found[1][3] == "1.25 %"
    assert "No fund in the market snapshot qualifies." in section(page, "tax-funds")
    sources = section(page, "tax-sources")
    assert 'href="https://www.gcc.go.th/?p=2061"' in sources
    assert 'href="https://taxsummaries.pwc.com/thailand/individual/deductions"' in sources
    assert "sources read 2026-11-29" in sources
    assert not [r for r in external_references(page) if "src" in r.lower()]  # links only: nothing is loaded


def test_the_dca_section_of_a_simulation_worked_by_hand(demo_settings):
    result = flat_then_up()
    page = plan_document(demo_settings, dca=[result], fee_sources=["as given"], generated_at=GENERATED).render()
    part = section(page, "dca")
    assert html.escape(ESTIMATE_NOTE, quote=True) in part
    assert "1,000.00 baht on day 1 of each month in A-CLASS" in part and "front-end fee 0.00 % (as given)" in part
    rows = {r[0]: r[1:] for r in cells(page, "dca-figures")}
    assert rows["Figure"] == ["A-CLASS: monthly", "A-CLASS: all at the start"]
    assert rows["Purchases made"] == ["3", "1"]
    assert rows["Put in (baht)"] == ["3,000.00", "3,000.00"]
    assert rows["Units held at the end"] == ["300.0000", "300.0000"]
    assert rows["Value at the end (baht)"] == ["3,600.00", "3,600.00"]
    assert rows["Gain on what was put in (%)"] == ["+20.00", "+20.00"]
    # 88 days: the money-weighted return for the period (the lump sum's 20 %), not 113 % a year
    assert rows["Money-weighted return for the period (not annualised, %)"][1] == "+20.00"
    assert part.count('class="chart"') == 1 and 'aria-label="Value over time"' in part
    assert "Tax-saving" not in page.split("<main>")[1].split("<section")[0].replace("Regular-investing plan", "")


def test_nothing_simulated_is_said(demo_settings):
    page = plan_document(demo_settings, tax=worked_example(), dca_note="No regular-investing plan is shown: "
                         "select a fund in the Fund explorer.").render()
    assert "select a fund in the Fund explorer" in section(page, "dca") and 'class="chart"' not in section(page, "dca")


def test_a_hostile_fund_name_is_escaped_everywhere(demo_settings):
    funds = {"RMF": [{"wrapper": "RMF", "rank": 1, "proj_abbr_name": HOSTILE_ABBR, "company": HOSTILE_NAME,
                      "total_fee_actual": None, "nav_total_return_1y": None, "volatility_1y": None}]}
    page = plan_document(demo_settings, tax=worked_example(), funds=funds, dca=[flat_then_up(HOSTILE_NAME)],
                         fee_sources=["the class's published fee"]).render()
    markup = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", page, flags=re.S | re.I)
    for raw in RAW_MARKUP:
        assert raw not in markup, raw
    assert "EVIL&lt;b&gt;FUND&lt;/b&gt;" in page and "&lt;script&gt;alert(&quot;name&quot;)" in page
    # in the chart's data (a script) too: the name never closes the script it travels in
    for script in re.findall(r"<script\b[^>]*>(.*?)</script>", page, re.S | re.I):
        assert "</script" not in script.lower() and "<script>alert" not in script


def test_no_key_in_the_report():
    keyed = ApiSettings.from_env(environ={"SEC_API_KEY": KEY, "SEC_API_BASE_URL": "https://api.example.test/x"})
    page = plan_document(keyed, tax=worked_example(), dca=[flat_then_up()]).render()
    assert KEY not in page and KEY[:12] not in page
    assert fact(page, "source") == "https://api.example.test/x"


def test_plan_tax_report_file(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "plan.html"
    code = main(["plan", "tax", "--year", "2025", "--income", "1,200,000", "--provident-fund", "60000",
                 "--on", "2025-06-01", "--demo", "--report", str(target)])
    captured = capsys.readouterr()
    assert code == 0 and "wrote" in captured.err and "Tax-saving plan, tax year 2025" in captured.out
    page = target.read_text(encoding="utf-8")
    assert "DEMO DATA" in page and "Rules of tax year 2025 as in force on 2025-04-16" in page
    assert "No market snapshot yet" in section(page, "tax-funds")  # said in the report too
    assert next(r for r in cells(page, "tax-plan-table") if "RMF" in r[0])[3] == "65,500"


def test_plan_tax_report_to_a_missing_directory_is_one_line_and_writes_nothing(capsys, tmp_path):
    code = main(["plan", "tax", "--year", "2025", "--income", "900000", "--funds", "0", "--demo",
                 "--report", str(tmp_path / "no" / "plan.html")])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and "does not exist" in captured.err
    assert not (tmp_path / "no").exists()

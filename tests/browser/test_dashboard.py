"""The served dashboard in Chromium: the demo data end to end, a failing service, and a hostile fund name.

Each test serves the app with `python -m dashboard serve` (the user's command) in a child process.
Screenshots of every tab are saved as test-artifacts/dashboard-<tab>.png.
"""

from __future__ import annotations

import copy
import re
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.dashboard_server import (
    DashboardProcess, count, open_tab, screenshot_full, wait_for_overview, wait_js,
)

pytestmark = pytest.mark.browser

HOSTILE = "<img src=x onerror=alert(1)>"
HOSTILE_TH = "<script>alert(2)</script>"
HOSTILE_REMARK = "<img src=y onerror=alert(4)>"
HOSTILE_ISSUER = "<svg onload=alert(5)>"
KEY = "test-key"


@pytest.fixture(scope="module")
def demo_server(demo_dashboard):
    """The run's demo dashboard (conftest): this module only reads it."""
    return demo_dashboard


# Tornado logs these when a browser page closes while the server is still writing to its
# websocket: a disconnect, not an error of the app. Bokeh's connection asserts it still has a
# session when a reloading page's last patch arrives after the session was torn down.
DISCONNECT_NOISE = ("WebSocketClosedError", "StreamClosedError", "assert self._session is not None")


def assert_clean_log(path) -> None:
    """The server logged no exception while the browser used it (disconnect noise aside)."""
    text = path.read_text() if path.exists() else ""
    # One record per log line the server's logging format starts ("LEVEL name: message"),
    # with its traceback lines; a record is an error unless it is only disconnect noise.
    records = re.split(r"(?m)^(?=(?:CRITICAL|ERROR|WARNING|INFO|DEBUG) )", text)
    errors = [r for r in records if ("Traceback" in r or r.startswith(("ERROR", "CRITICAL")))
              and not any(n in r for n in DISCONNECT_NOISE)]
    assert not errors, "\n".join(errors)[-3000:]


def full_fund(exclude=()) -> dict:
    """A registered demo fund with holdings, performance, fees and allocation (today's demo data)."""
    from dashboard.demo.generator import generate_demo_dataset

    data = generate_demo_dataset()
    return next(f for f in data.funds if f["fund_status"] == "RG" and f["proj_id"] not in exclude
                and len(data.holdings.get(f["proj_id"], {})) > 1 and data.performance.get(f["proj_id"])
                and data.fees.get(f["proj_id"]) and data.allocation.get(f["proj_id"]))


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).items()}


def test_demo_dashboard_end_to_end(demo_server, page, artifacts_dir):
    page.goto(demo_server.url)
    page.get_by_text("DEMO DATA — fictional funds and companies").wait_for(timeout=30_000)
    wait_for_overview(page)
    # first visit: a default search, a selected fund and a basket, all in the address
    wait_js(page, "() => new URLSearchParams(location.search).get('basket')")
    state = query(page)
    assert state.get("q") == "Demo" and re.fullmatch(r"M\d+_\d{4}", state.get("fund", ""))
    assert len(state["basket"].split(",")) == 4
    assert count(page, ".tabulator-row") > 0

    # search and pick another fund (one with every part of a factsheet)
    target = full_fund(exclude=state["basket"].split(","))
    search = page.get_by_label("Fund name or abbreviation, or unit class")
    search.fill(target["proj_abbr_name"])
    page.get_by_role("button", name="Search").click()
    wait_js(page, "(q) => new URLSearchParams(location.search).get('q') === q", arg=target["proj_abbr_name"])
    row = page.locator(".tabulator-row").filter(has_text=target["proj_name_en"]).first
    expect(row).to_be_visible()
    row.click()
    page.locator(".sd-title").filter(has_text=target["proj_abbr_name"]).wait_for(timeout=15_000)
    wait_js(page, "(p) => new URLSearchParams(location.search).get('fund') === p", arg=target["proj_id"])
    picked = target["proj_id"]
    # the demo plays the current service: the footer says so, and retired parts say they are not published
    expect(page.get_by_role("contentinfo")).to_contain_text("current service paths (/v2/fund, /v1/license-check)")
    expect(page.get_by_text("not published by the current service").first).to_be_visible()

    # add it to the basket (a failed wait prints what the page holds)
    add = page.get_by_role("button", name="Add to basket")
    expect(add).to_be_enabled(timeout=15_000)
    add.click()
    wait_js(page, "(p) => (new URLSearchParams(location.search).get('basket') || '').includes(p)", arg=picked)
    expect(page.get_by_text(re.compile(r"Comparison basket: 5 funds"))).to_be_visible()

    # (every tab drawn, its tables filled and screenshotted at both widths: tests/browser/test_issue30.py)

    # the report of what is on screen: the basket comparison from the Fees tab
    open_tab(page, "Fees")
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Download report").click()
    report = download.value
    assert report.suggested_filename == "comparison-5-funds.html"
    text = Path(report.path()).read_text(encoding="utf-8")
    assert text.lstrip().startswith("<!DOCTYPE html>") and picked in text
    open_tab(page, "Licensee")
    wait_js(page, "() => new URLSearchParams(location.search).get('tab') === 'licensee'")

    # the address reopens the same view
    page.goto(page.url)
    page.get_by_role("tab", name="Licensee").wait_for(timeout=30_000)  # (the page drawn: a cheap wait, expect's is not)
    expect(page.get_by_role("tab", name="Licensee")).to_have_attribute("aria-selected", "true", timeout=30_000)
    assert query(page)["fund"] == picked and picked in query(page)["basket"]

    # dark theme
    open_tab(page, "Risk")
    page.get_by_role("button", name=re.compile("dark|theme", re.I)).first.click()
    page.wait_for_timeout(800)
    screenshot_full(page, artifacts_dir / "dashboard-risk-dark.png")

    assert page.console_log.errors == []
    assert page.dialogs == []
    assert_clean_log(artifacts_dir / "dashboard-demo-server.log")


def test_a_failing_service_shows_a_notification_and_the_app_keeps_working(page, artifacts_dir, tmp_path):
    from dashboard.demo.loopback import SimulatorServer
    from dashboard.demo.simulator import create_app

    sim_app = create_app(valid_keys={KEY})
    with SimulatorServer(sim_app) as simulator:
        env = {"SEC_API_BASE_URL": simulator.base_url, "SEC_API_KEY": KEY, "SEC_DASHBOARD_CACHE_DIR": str(tmp_path)}
        with DashboardProcess(demo=False, env=env, log_path=artifacts_dir / "dashboard-faults-server.log") as server:
            sim_app.inject("503", times=100_000)
            page.goto(server.url)
            notification = page.locator(".MuiAlert-message").filter(has_text="503")
            notification.first.wait_for(timeout=45_000)
            expect(page.get_by_text(re.compile("The search failed"))).to_be_visible()
            expect(page.get_by_text("DEMO DATA — fictional funds and companies")).to_have_count(0)
            screenshot_full(page, artifacts_dir / "dashboard-error.png")

            # the service recovers: the same page searches, loads a fund and opens other tabs
            sim_app.clear_faults()
            page.get_by_label("Fund name or abbreviation, or unit class").fill("Equity")
            page.get_by_role("button", name="Search").click()
            row = page.locator(".tabulator-row").filter(has_text="Equity").first
            row.wait_for(timeout=30_000)
            row.click()
            wait_for_overview(page)
            expect(page.get_by_text(re.compile("The search failed"))).to_have_count(0)
            open_tab(page, "Holdings")
            expect(page.get_by_text(re.compile(r"Data: http://127\.0\.0\.1:\d+"))).to_be_visible()
    assert page.dialogs == []
    assert [e for e in page.console_log.errors if "503" not in e] == []
    assert_clean_log(artifacts_dir / "dashboard-faults-server.log")


def test_a_hostile_fund_name_runs_no_script(page, artifacts_dir, tmp_path):
    from dashboard.demo.generator import generate_demo_dataset
    from dashboard.demo.loopback import SimulatorServer
    from dashboard.demo.simulator import create_app

    data = copy.deepcopy(generate_demo_dataset())
    fund = next(f for f in data.funds if f["fund_status"] == "RG" and data.fees.get(f["proj_id"])
                and data.holdings.get(f["proj_id"]))
    fund.update(proj_name_en=HOSTILE, proj_name_th=HOSTILE_TH, proj_abbr_name="DX<b>BOLD</b>")
    for row in data.fees[fund["proj_id"]]:
        row["fee_other_desc"] = HOSTILE_REMARK
    for lines in data.holdings[fund["proj_id"]].values():  # every quarter: the newest depends on the layout's lag
        largest = sorted((r for r in lines if r["assetliab_id"] != "903"), key=lambda r: -float(r["percent_nav"]))
        for row in largest[:3]:  # on the table's first page
            row["issuer"] = HOSTILE_ISSUER
    for row in data.allocation.get(fund["proj_id"], [])[:1]:
        row["asset_name"] = HOSTILE
    for cls in data.classes.get(fund["proj_id"], []):
        cls["proj_abbr_name"] = fund["proj_abbr_name"]

    with SimulatorServer(create_app(data, valid_keys={KEY})) as simulator:
        env = {"SEC_API_BASE_URL": simulator.base_url, "SEC_API_KEY": KEY, "SEC_DASHBOARD_CACHE_DIR": str(tmp_path),
               "SEC_DASHBOARD_DEFAULT_QUERY": "Demo"}
        with DashboardProcess(demo=False, env=env, log_path=artifacts_dir / "dashboard-hostile-server.log") as server:
            page.goto(server.url)
            wait_for_overview(page)
            page.get_by_label("Fund name or abbreviation, or unit class").fill("DX<b>")
            page.get_by_role("button", name="Search").click()
            cell = page.locator(".tabulator-cell").filter(has_text=HOSTILE).first
            cell.wait_for(timeout=20_000)
            cell.click()
            page.locator(".sd-title").filter(has_text="DX<b>BOLD</b>").wait_for(timeout=20_000)
            expect(page.get_by_text(HOSTILE).first).to_be_visible()
            expect(page.get_by_text(HOSTILE_TH).first).to_be_visible()
            page.get_by_role("button", name="Clear the basket").click()
            expect(page.get_by_text("Comparison basket: 0 funds (at most 30)")).to_be_visible()
            add = page.get_by_role("button", name="Add to basket")
            expect(add).to_be_enabled(timeout=20_000)  # a failed wait prints what the page holds
            add.click()
            expect(page.get_by_text("Comparison basket: 1 fund (at most 30)")).to_be_visible()
            screenshot_full(page, artifacts_dir / "dashboard-hostile.png")

            open_tab(page, "Fees")
            page.get_by_text(HOSTILE_REMARK).first.wait_for(timeout=20_000)
            open_tab(page, "Holdings")
            page.get_by_text(HOSTILE_ISSUER).first.wait_for(timeout=20_000)
            open_tab(page, "Allocation")
            # hover every chart so tooltips with service text are drawn too
            for figure in page.locator(".bk-Canvas").all():
                box = figure.bounding_box()
                if box:
                    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                    page.wait_for_timeout(150)
            page.wait_for_timeout(500)
            # nothing the service sent became markup
            assert count(page, "img[src='x'], img[src='y'], svg[onload], [onerror]") == 0
            injected = page.evaluate("""() => { let n = 0; const walk = r => { for (const el of r.querySelectorAll('script'))
                                         if (el.textContent.includes('alert(')) n++; for (const el of r.querySelectorAll('*'))
                                         if (el.shadowRoot) walk(el.shadowRoot); }; walk(document); return n; }""")
            assert injected == 0, "a service string became a script element"
            bold = page.evaluate("""() => { let n = 0; const walk = r => { for (const el of r.querySelectorAll('b'))
                                     if (el.textContent === 'BOLD') n++; for (const el of r.querySelectorAll('*'))
                                     if (el.shadowRoot) walk(el.shadowRoot); }; walk(document); return n; }""")
            assert bold == 0, "an abbreviation's <b> became markup"
    assert page.dialogs == []
    assert not any("alert" in e for e in page.console_log.errors)
    assert page.console_log.errors == []
    assert_clean_log(artifacts_dir / "dashboard-hostile-server.log")

"""Shared links in Chromium: a basket, the Holdings comparison, a theme and a bad value opened from
the address, and the page at phone width (390 px).

Each test opens a link directly, as a person who was sent it does (no clicks before).
Screenshots: test-artifacts/shared-link-*.png.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.browser.dashboard_server import count, wait_idle, wait_js

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
APP_TITLE = "SEC Thailand funds and licences"
# Whether what is drawn at a point belongs to the sidebar drawer or its backdrop, looking
# through the shadow roots Panel renders into (document.elementFromPoint stops at their host).
COVERED_JS = """([x, y]) => { let root = document, el = null;
  for (let i = 0; i < 20; i++) {
    const hit = root.elementFromPoint(x, y);
    if (!hit || hit === el) break;
    el = hit;
    if (el.closest('.MuiDrawer-root, .MuiDrawer-paper, .MuiBackdrop-root')) return true;
    if (!el.shadowRoot) break;
    root = el.shadowRoot;
  }
  return false; }"""


@pytest.fixture(scope="module")
def demo_server(demo_dashboard):
    """The run's demo dashboard (conftest): this module only reads it."""
    return demo_dashboard


@pytest.fixture(scope="module")
def data():
    from dashboard.demo.generator import generate_demo_dataset

    return generate_demo_dataset()  # what the served demo plays today


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).items()}


def test_a_basket_link_names_its_funds_in_the_sidebar(demo_server, page, data, artifacts_dir):
    # single-class funds too: their E4 answers no data, which is how the bare ids stayed
    single = [f for f in data.funds if not data.classes.get(f["proj_id"])][:1]
    funds = (single + [f for f in data.funds if f not in single])[:2]
    ids = [f["proj_id"] for f in funds]
    page.goto(f"{demo_server.url}?basket={','.join(ids)}")
    page.get_by_text("Comparison basket: 2 funds (at most 30)").wait_for(timeout=30_000)
    for fund in funds:
        page.get_by_text(fund["proj_abbr_name"], exact=True).first.wait_for(timeout=20_000)
    # the sidebar lists names, never a bare id as a fund's heading
    for fund in funds:
        expect(page.get_by_text(fund["proj_id"], exact=True)).to_have_count(0)
    page.screenshot(path=str(artifacts_dir / "shared-link-basket.png"))
    assert page.console_log.errors == []


def test_holdings_comparison_from_a_link_shows_rows(demo_server, page, data, artifacts_dir):
    fund = next(f for f in data.funds if len([p for p, rows in data.holdings.get(f["proj_id"], {}).items() if rows]) >= 3)
    page.goto(f"{demo_server.url}?tab=holdings&fund={fund['proj_id']}")
    page.get_by_role("tab", name="Holdings").wait_for(timeout=30_000)  # (the page drawn: a cheap wait, expect's is not)
    expect(page.get_by_role("tab", name="Holdings")).to_have_attribute("aria-selected", "true", timeout=30_000)
    page.get_by_text("What changed between two quarters").wait_for(timeout=30_000)
    # the change counts appear only when the comparison has rows
    page.get_by_text(re.compile(r"^unchanged: \d+$")).first.wait_for(timeout=30_000)
    expect(page.get_by_text("Choose two different quarters.")).to_have_count(0)
    wait_idle(page)
    assert count(page, ".tabulator-row") > 0
    page.screenshot(path=str(artifacts_dir / "shared-link-holdings.png"))
    assert page.console_log.errors == []


def test_theme_comes_from_the_link_and_a_bad_value_is_named_and_cleaned(demo_server, page, artifacts_dir):
    page.goto(f"{demo_server.url}?tab=licensee&theme=dark&person=..%2Fetc")
    page.get_by_role("tab", name="Licensee").wait_for(timeout=30_000)  # (the page drawn: a cheap wait, expect's is not)
    expect(page.get_by_role("tab", name="Licensee")).to_have_attribute("aria-selected", "true", timeout=30_000)
    page.get_by_text(re.compile(r"Parts of the link could not be used.*person=\.\./etc")).wait_for(timeout=20_000)
    # cleaned from the address (the demo's example person may take its place once looked up)
    wait_js(page, "() => new URLSearchParams(location.search).get('person') !== '../etc'", timeout=20_000)
    state = query(page)
    assert state["theme"] == "dark" and state["tab"] == "licensee"
    # the page is dark: its background is darker than mid grey
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number)")
    assert sum(background[:3]) < 3 * 128, background
    page.screenshot(path=str(artifacts_dir / "shared-link-bad-value.png"))


def test_phone_width_opens_with_the_content_and_title_visible(demo_server, browser, artifacts_dir):
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    try:
        page.goto(demo_server.url)
        page.get_by_text("Registration no.").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.wait_for_timeout(500)  # a drawer's closing transition
        title = page.get_by_text(APP_TITLE, exact=True).first
        expect(title).to_be_visible()
        box = title.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + 20 < PHONE["width"]
        # what is at the title's and the content's left edge is the page, not the sidebar drawer
        covered = page.evaluate(COVERED_JS, [box["x"] + 5, box["y"] + box["height"] / 2])
        assert not covered, "the title is covered"
        tab = page.get_by_role("tab", name="Fund explorer")
        tab_box = tab.bounding_box()
        assert tab_box and tab_box["x"] < PHONE["width"] / 2
        covered = page.evaluate(COVERED_JS, [max(tab_box["x"], 0) + 5, tab_box["y"] + tab_box["height"] / 2])
        assert not covered, "the main content's left edge is covered"
        page.screenshot(path=str(artifacts_dir / "shared-link-phone.png"))
    finally:
        context.close()

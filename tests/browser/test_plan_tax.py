"""The Plan tab's tax-saving planner served in Chromium at 1280 px and on a 390 px phone: the estimate note and
the rules' date on screen, the plan's table and the qualifying funds drawn, nothing past a phone's right edge.

Screenshots: test-artifacts/plan-tax-<width>.png.
"""

from __future__ import annotations

import pytest

from tests.browser.dashboard_server import screenshot_full, wait_count, wait_idle, wait_js

pytestmark = pytest.mark.browser
LONG = 120_000  # generous: a first wait on a fresh page covers the server building it (over 60 s seen at load 12)
# What is drawn past a phone's right edge (a table scrolls inside its own box: the box is what must fit).
WIDER_THAN_SCREEN_JS = """(width) => { const out = [];
  const walk = root => { for (const el of root.querySelectorAll('.tabulator, p, li, input, .bk-panel-models-markup-HTML')) {
      if (el.offsetParent === null) continue; const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 1) out.push(`${el.tagName}.${el.className}`.slice(0, 80) + ` ${Math.round(r.right)}`); }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return out.slice(0, 5); }"""

# Tables that scroll sideways (their holder wider inside than out): by how many pixels.
TABLE_SCROLLS_JS = """() => { const out = [];
  const walk = root => { for (const el of root.querySelectorAll('.tabulator-tableholder')) {
      if (el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1) out.push(el.scrollWidth - el.clientWidth); }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return out; }"""
# A number input by its label: what it shows and its placeholder (null when it is not shown).
INPUT_JS = """(label) => { let found = null;
  const walk = root => { for (const box of root.querySelectorAll('.MuiFormControl-root')) {
      const text = box.querySelector('label'); const input = box.querySelector('input');
      if (text && input && text.textContent.trim().startsWith(label) && box.offsetParent !== null)
        found = {value: input.value, placeholder: input.placeholder}; }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot); };
  walk(document); return found; }"""


@pytest.fixture(scope="module")
def server(market_dashboard):
    """The run's demo dashboard on the demo market's snapshot (conftest): this module only reads it."""
    return market_dashboard


@pytest.mark.parametrize("width", [1280, 390])
def test_the_tax_planner_on_screen(browser, server, artifacts_dir, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server.url + "?tab=plan", wait_until="domcontentloaded")
        page.get_by_text("not tax or investment advice").first.wait_for(timeout=LONG)
        wait_count(page, ".tabulator-cell[tabulator-field='tax_saved']", timeout=LONG)
        wait_count(page, ".tabulator-cell[tabulator-field='proj_abbr_name']", timeout=LONG)
        # every input drawn (each is a React component of its own, drawn after Bokeh is idle): the last of each section
        for label in ("Rank funds by", "Taxable income, if known", "Front-end fee (%)", "Beside the class"):
            wait_js(page, f"() => ({INPUT_JS})({label!r}) !== null", timeout=LONG)
        wait_idle(page, LONG)
        page.wait_for_timeout(500)  # (the inputs' last paint)
        shot = artifacts_dir / f"plan-tax-{width}.png"
        screenshot_full(page, shot)
        assert shot.stat().st_size > 5_000
        if width < 600:
            assert page.evaluate(WIDER_THAN_SCREEN_JS, width) == []
        else:  # the plan's table fits the page beside the basket: no column past its box, no sideways scrolling
            assert page.evaluate(TABLE_SCROLLS_JS) == [], "a table of the Plan tab scrolls sideways"
        # an empty taxable income is empty (its placeholder says what is used), not a 0 seemingly typed in
        assert page.evaluate(INPUT_JS, "Taxable income, if known") == {"value": "", "placeholder": "estimated"}
        assert page.evaluate(INPUT_JS, "SSF already bought") is None  # the year shown has no SSF
        assert page.evaluate(INPUT_JS, "Front-end fee (%)") == {"value": "", "placeholder": "published"}
        assert page.get_by_text("Empty: estimated").count() == 1 and page.get_by_text("Empty: the published fee").count() == 1
    finally:
        context.close()

"""One FundOverview, three renderings: the explorer, the factsheet report and `fund show` carry the
same labels and values (they used to build the overview each on its own, and disagreed)."""

from __future__ import annotations

import contextlib
import html
import io
import re

import pytest

from dashboard.cli.factsheet import print_factsheet
from dashboard.cli.output import FIELD_WIDTH
from dashboard.demo.generator import generate_demo_dataset
from dashboard.models.factsheet import FundFactsheet
from dashboard.models.source import run
from dashboard.present.overview import LINK, UNPUBLISHED, build_overview, dealing_period, fund_overview
from dashboard.records.successor import NOT_PUBLISHED_NOTE
from dashboard.views.explorer import fund_overview_html
from tests.conftest import TODAY
from tests.reports.helpers import client_for, factsheet_report, full_funds


def _flat(text: str) -> str:
    """Text as a reader sees it: tags dropped, entities decoded, runs of white space as one."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def _html_values(text: str) -> str:
    """HTML with the link targets kept (a link's address is its value) and tags dropped."""
    hrefs = " ".join(re.findall(r'href="([^"]*)"', text))
    return _flat(text) + " " + " ".join(html.unescape(hrefs).split())


@pytest.fixture(scope="module")
def data():
    return generate_demo_dataset(today=TODAY)


def _funds(data) -> list[str]:
    full = [f["proj_id"] for f in full_funds(data)]
    other = [p for p, r in data.redemption.items() if str(r.get("redemp_period")) == "9" and r.get("redemp_period_oth")]
    single = [p for p in full if not data.classes.get(p)]
    return list(dict.fromkeys([full[0], full[-1], *single[:1], *other[:1]]))


@pytest.fixture(scope="module", params=["legacy", "successor"])
def client(request, data):
    client = client_for(data, TODAY, layout=request.param)
    yield client
    client.close()


@pytest.mark.slow  # a whole sync, a subprocess or whole reports: seconds each
def test_the_three_renderings_carry_the_same_labels_and_values(data, client, tmp_path_factory):
    funds = _funds(data)
    assert len(funds) >= 3
    # A whole report (charts and all) takes seconds: the first fund's and the one with an "other"
    # redemption period are rendered as reports; every fund in the explorer and the CLI.
    reported = {funds[0], funds[-1]}
    for proj_id in funds:
        sheet = FundFactsheet(client=client)
        run(sheet.load(proj_id))
        overview = fund_overview(sheet)
        rows = overview.rows()
        assert len(rows) > 15

        explorer = _html_values(str(fund_overview_html(overview)))
        renderings = [("explorer", explorer)]
        if proj_id in reported:
            page = factsheet_report(tmp_path_factory, client.settings.layout, proj_id)  # rendered once in the run
            renderings.append(("report", _html_values(re.search(r'<section id="overview">(.*?)</section>', page, re.S).group(1))))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            print_factsheet(sheet.as_dict(), sheet.unpublished)
        cli = " ".join(out.getvalue().split())

        for name, shown in (*renderings, ("cli", cli)):
            for section in overview.sections:
                assert section.title in shown or section.title.upper() in shown, (name, proj_id, section.title)
            for row in rows:
                assert row.label in shown, (name, proj_id, row.label)
                if row.value is not None:
                    value = row.value if row.kind == LINK else " ".join(row.text.split())
                    value = " ".join(value.split())
                    if name == "cli":  # a terminal line is cut to FIELD_WIDTH characters
                        value = value[:FIELD_WIDTH - 2].rstrip()
                    assert value in shown, (name, proj_id, row.label, value)


def test_the_cli_and_the_model_read_the_same_overview(data, client):
    """`fund show` builds from the JSON object, the views from the model's frames: the same rows."""
    for proj_id in _funds(data):
        sheet = FundFactsheet(client=client)
        run(sheet.load(proj_id))
        from_json = build_overview(proj_id, sheet.fund, sheet.as_dict(), unpublished=sheet.unpublished, errors=sheet.errors)
        assert from_json.rows() == fund_overview(sheet).rows()


def test_the_redemption_period_other_is_joined_to_its_text():
    """Code 9 ("other") comes with the service's text; every output shows them as one value."""
    red = {"redemp_period": "9", "redemp_period_label_en": "Other", "redemp_period_oth": "every 1st business day"}
    assert dealing_period(red) == "Other: every 1st business day"
    assert dealing_period({"redemp_period": "1", "redemp_period_label_en": "Every business day",
                           "redemp_period_oth": "note"}) == "Every business day"
    assert dealing_period({"redemp_period_oth": "weekly"}) == "weekly"
    overview = build_overview("M0001_2564", {}, {"redemption": red})
    dealing = next(r for r in overview.section("redemption").rows if r.label == "Dealing")
    assert dealing.value == "Other: every 1st business day"


def test_fields_the_service_does_not_publish_say_so():
    from dashboard.records.successor import NOT_PUBLISHED_FIELD

    fund = {"proj_id": "M0001_2564", NOT_PUBLISHED_FIELD: ["permit_us_investment"]}
    overview = build_overview("M0001_2564", fund, {}, unpublished={"return_estimate": ["total_estimated_return"]})
    us = next(r for r in overview.rows() if r.label == "US investors")
    assert (us.value, us.kind) == (NOT_PUBLISHED_NOTE, UNPUBLISHED)
    assert overview.section("estimate").rows[0].value == NOT_PUBLISHED_NOTE
    assert overview.section("risk").empty == "No risk level or suitability published for this fund."


HOSTILE = '<script>alert("x")</script>'


def test_a_service_string_with_a_script_is_escaped_in_every_output():
    fund = {"proj_id": "M0001_2564", "proj_abbr_name": HOSTILE, "proj_name_en": HOSTILE, "fund_status": "RG",
            "comp_name_en": HOSTILE, "unique_id": "C1"}
    parts = {"suitability": {"risk_spectrum": "RS5", "risk_level_label": "5", "important_notice": HOSTILE},
             "redemption": {"redemp_period": "9", "redemp_period_oth": HOSTILE, "settlement_period": HOSTILE},
             "urls": {"url_factsheet": "javascript:alert(1)"},
             "classes": [{"class_abbr_name": HOSTILE, "class_name": HOSTILE, "class_additional_desc": HOSTILE}]}
    page = str(fund_overview_html(build_overview("M0001_2564", fund, parts)))
    assert "<script" not in page and page.count("&lt;script&gt;") >= 6
    assert 'href="javascript' not in page

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_factsheet({"proj_id": "M0001_2564", "fund": fund, **parts})
    assert HOSTILE in out.getvalue()  # a terminal shows markup as the text it is


def test_minimums_carry_their_currency_and_note():
    rows = {"class_abbr_name": "A", "minimum_sub_ipo": 1000, "minimum_sub_ipo_cur": "บาท",
            "minimum_sub_ipo_addi_desc": "ขั้นต่ำ", "minimum_sub": 500, "minimum_redempt_unit": 10, "lowbal_val": None}
    section = build_overview("M0001_2564", {}, {"investment": [rows]}).section("minimums")
    shown = {r.label: (r.value, r.note, r.group) for r in section.rows}
    assert shown["First purchase"] == ("1,000.00 baht", "ขั้นต่ำ", "Class A")
    assert shown["Later purchases"] == ("500.00", None, "Class A")  # no currency sent: the number alone
    assert shown["Redemption units"][0] == "10.00 units" and shown["Minimum balance"][0] is None

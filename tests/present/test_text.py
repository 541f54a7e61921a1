"""Words and numbers without Panel: text stays text, numbers carry units, codes become words."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dashboard.present.text import (
    asset_name_text,
    asset_type_text,
    card,
    company_text,
    currency_word,
    display_frame,
    empty_html,
    esc,
    fmt_amount,
    fmt_baht,
    fmt_date,
    fmt_number,
    fmt_percent,
    kv_table,
    link,
    number,
    pill,
    published,
    safe_url,
    status_text,
    typed_number,
    us_investors_text,
)
from markupsafe import Markup

HOSTILE = "<img src=x onerror=alert(1)>"


def test_esc_escapes_and_keeps_line_breaks():
    assert esc(HOSTILE) == "&lt;img src=x onerror=alert(1)&gt;"
    assert esc('a "b" & c') == "a &#34;b&#34; &amp; c"  # markupsafe's spelling of &quot;
    assert esc("line 1\nline 2") == "line 1<br>line 2"
    assert esc(None) == "–" and esc(float("nan")) == "–" and esc("  ", "none") == "none"


def test_links_only_for_http():
    assert safe_url("https://example.com/a.pdf") == "https://example.com/a.pdf"
    assert safe_url("javascript:alert(1)") is None and safe_url("data:text/html,x") is None and safe_url("-") is None
    assert 'href="https://example.com/?a=1&amp;b=&quot;"' not in link('https://example.com/?a=1&b="', "open")
    html = link("https://example.com/?a=1&b=2", "open")
    assert 'href="https://example.com/?a=1&amp;b=2"' in html and 'rel="noopener noreferrer"' in html
    assert "<a" not in link("javascript:alert(1)", "open")


@pytest.mark.parametrize("value, expected", [(1.234, "1.23 %"), (-0.5, "-0.50 %"), (None, "–"), ("x", "–"), (math.inf, "–")])
def test_fmt_percent(value, expected):
    assert fmt_percent(value) == expected


def test_amounts_with_units():
    assert fmt_baht(1234567.891) == "1,234,567.89 baht"
    assert fmt_amount("1000", "บาท") == "1,000.00 baht"
    assert fmt_amount(50, "units", digits=0) == "50 units"
    assert fmt_amount(None, "บาท") == "–"
    assert fmt_percent(2, signed=True) == "+2.00 %"
    assert fmt_date(pd.Timestamp("2026-01-02 10:00")) == "2026-01-02" and fmt_date(None) == "–"


def test_kv_table_labels_are_escaped_and_values_trusted_as_built():
    html = kv_table([("A <b>", esc(HOSTILE))])
    assert "A &lt;b&gt;" in html and "&lt;img" in html and "<img" not in html
    assert "&amp;lt;" not in html  # escaped once: esc() gives Markup, which is not escaped again
    assert "<img" not in empty_html(HOSTILE) and 'role="alert"' in empty_html("x", error=True)


SCRIPT = '<script>alert("x")</script>'


def test_only_markup_is_trusted_a_plain_string_is_escaped():
    """HTML built with an f-string is a plain str: it is escaped, never taken as markup (the old rule,
    "values are already escaped HTML", trusted it)."""
    built = f"<b>{SCRIPT}</b>"
    for html in (kv_table([("Name", built)]), card("Title", built), card(SCRIPT, "x"), pill(SCRIPT),
                 published({}, "field", SCRIPT), company_text({"comp_name_en": SCRIPT, "unique_id": SCRIPT}),
                 link(SCRIPT, "open"), esc(SCRIPT), empty_html(SCRIPT)):
        assert isinstance(html, Markup)
        assert "<script" not in html and "&lt;script&gt;" in html, html
    assert kv_table([("Name", Markup("<b>bold</b>"))]).count("<b>bold</b>") == 1


def test_service_text_with_a_script_is_escaped_in_the_licence_records():
    from dashboard.views.licensee import alert_html, enforcement_html

    record = {k: SCRIPT for k in ("enforcement_relevant_section_law", "enforcement_summarized_facts", "enforcement_date",
                                  "enforcement_details", "enforcement_remark", "case_id", "seq_no", "license_th",
                                  "license_en")}
    for html in (enforcement_html(record), enforcement_html(record, 3), alert_html(record)):
        assert "<script" not in html and "&lt;script&gt;" in html and "&amp;lt;" not in html
        assert "<table" in html  # the markup we built stays markup


@pytest.mark.parametrize("text, expected", [
    ("1,234.5", 1234.5), ("1.605", 1.605), (" 1.605 ", 1.605), ("-2", -2.0), ("+0.5", 0.5), ("๑๒", 12.0),
    (3, 3.0), (2.5, 2.5), (np.float64(1.5), 1.5),
    ("-", None), ("", None), ("  ", None), (None, None), ("garbage", None), ("1,5", None), ("1.2.3", None),
    ("12abc", None), (float("nan"), None), (math.inf, None), (True, None), (pd.NA, None),
])
def test_one_number_parser_for_service_text(text, expected):
    assert number(text) == expected


@pytest.mark.parametrize("typed, expected", [("1,234.5", 1234.5), ("1.605", 1.605), ("-3 %", -3.0), ("2%", 2.0),
                                             ("", None), ("  ", None), (None, None)])
def test_a_typed_number(typed, expected):
    assert typed_number(typed) == expected


@pytest.mark.parametrize("typed", ["-", "garbage", "1,5", "1.2.3", "%", "1 2"])
def test_a_typed_number_that_is_not_one_is_refused_with_a_message(typed):
    with pytest.raises(ValueError, match="is not a number"):
        typed_number(typed)


def test_the_market_tab_and_the_command_line_read_numbers_alike():
    """The Market tab read "1,234.5" with the comma as a decimal point; the CLI as a thousands separator."""
    from dashboard.cli.terminal import baht
    from dashboard.views.market_notes import number_or_none

    assert number_or_none("1,234.5") == 1234.5 == number("1,234.5")
    assert baht("1,234.5") == "1,234.50" and fmt_number("1,234.5") == "1,234.50"
    with pytest.raises(ValueError):
        number_or_none("1,5")


@pytest.mark.parametrize("value, kwargs, expected", [
    (24.30435, {"up_to": 5, "sign": ""}, "24.30435"), (65.48, {"up_to": 5, "sign": ""}, "65.48"),
    (100, {"up_to": 5, "sign": ""}, "100.00"), ("1.625", {}, "1.62 %"), ("2.5", {}, "2.50 %"), ("1,234.5", {}, "1,234.50 %"),
    (0.125, {"digits": 3, "signed": True}, "+0.125 %"), ("-", {}, "–"), (None, {"missing": ""}, ""),
])
def test_one_percent_formatter(value, kwargs, expected):
    assert fmt_percent(value, **kwargs) == expected


def test_the_command_line_percent_is_the_one_formatter():
    from dashboard.cli.terminal import percent

    assert percent(24.30435) == "24.30435" and percent("1.605") == "1.605" and percent(None) == ""
    assert percent("1,234.5") == "1,234.50"


def test_display_frame_for_tables():
    frame = pd.DataFrame({
        "text": pd.array(["a", None], dtype="string"),
        "when": pd.to_datetime(["2026-01-02", None]),
        "seq": pd.array([1, None], dtype="Int64"),
        "flag": [True, False],
        "value": [1.5, np.nan],
    })
    out = display_frame(frame)
    assert out["text"].tolist() == ["a", ""]
    assert out["when"].tolist() == ["2026-01-02", ""]
    assert out["seq"].tolist() == ["1", ""]
    assert out["flag"].tolist() == ["yes", "no"]
    assert out["value"].iloc[0] == 1.5 and np.isnan(out["value"].iloc[1])


@pytest.mark.parametrize("code, text", [("RG", "registered (RG)"), ("Registered", "registered (RG)"),
                                        ("LI", "liquidated (LI)"), ("ZZ", "ZZ"), (None, "")])
def test_a_status_is_a_word_with_its_code_beside_it(code, text):
    assert status_text(code) == text


def test_an_asset_type_shows_english_thai_and_code():
    assert asset_type_text("301", "เงินฝากธนาคาร") == "bank deposits · เงินฝากธนาคาร (301)"
    assert asset_type_text("301") == "bank deposits · เงินฝากธนาคาร (301)"  # legacy: the code only
    assert asset_type_text("888", "สัญญาแลกเปลี่ยน (Swap)") == "Swap · สัญญาแลกเปลี่ยน (888)"
    assert asset_type_text("888", "สัญญาแลกเปลี่ยน") == "สัญญาแลกเปลี่ยน (888)"


def test_asset_names_give_the_english_the_text_carries():
    assert asset_name_text("สัญญาซื้อขายล่วงหน้า (Forward)") == "Forward · สัญญาซื้อขายล่วงหน้า"
    assert asset_name_text("เงินฝากธนาคาร") == "bank deposits · เงินฝากธนาคาร"  # a common class named from the table
    assert asset_name_text("บมจ.ปตท.") == "บมจ.ปตท."  # no English known: the Thai text alone
    assert asset_name_text("หุ้น (ไทย)") == "หุ้น (ไทย)"  # Thai in the parentheses is not an English name


def test_the_same_words_for_us_investors_and_baht():
    assert (us_investors_text("Y"), us_investors_text("n"), us_investors_text(None)) == ("may invest", "may not invest", None)
    assert [currency_word(u) for u in ("บาท", "THB", "USD", None)] == ["baht", "baht", "USD", ""]


def test_policy_types_are_named_in_english_beside_the_thai_the_service_sends():
    from dashboard.present.text import policy_type_text

    # the values the reference lists for policy_desc (successor-api.md, section 4)
    assert policy_type_text("ตราสารทุน") == "equity · ตราสารทุน"
    assert policy_type_text(" ตราสารหนี้ ") == "fixed income · ตราสารหนี้"
    assert policy_type_text("อื่น ๆ") == "other · อื่น ๆ"
    assert policy_type_text("ไม่ระบุ เนื่องจากเป็นกองทุนรวมอีทีเอฟแบบ leveraged / inverse").startswith(
        "not stated (a leveraged or inverse ETF) · ไม่ระบุ")
    assert policy_type_text("ผสม").startswith("mixed") and policy_type_text("ทรัพย์สินทางเลือก").startswith("alternative")
    # a value the table lacks stays as sent; nothing is nothing
    assert policy_type_text("กองทุนใหม่") == "กองทุนใหม่"
    assert policy_type_text(None) is None and policy_type_text("  ") is None

"""Every spelling the reference lists for an enumerated field is recognised through labels.SPELLINGS.

The lists are read out of the reference itself (shared/spec/successor-api.md 4.1, 4.8, 4.14 and
sec-open-api.md), so a spelling added there and not here fails.
"""

from __future__ import annotations

import re

import pytest

from dashboard.market.figures import total_fee
from dashboard.models.fund import total_annual_fee
from dashboard.records import normalise_payload, records_frame
from dashboard.records.labels import (
    FEE_TYPE,
    MANAGEMENT_STYLE,
    PROJ_RETAIL_TYPE,
    SPELLINGS,
    fee_type_key,
    label,
    normalise_fund_status,
    normalise_risk_code,
    performance_kind,
    policy_type_english,
    redemption_code,
    tax_incentive_key,
)
from dashboard.records.successor import fee_records, tax_incentive
from tests.shared_files import SPEC, require


def spec_text(name: str) -> str:
    # Table rows wrap across lines in the files: one line per paragraph, so a backticked value is whole.
    return re.sub(r"(?<=\S)\n(?=[^\n|#`\-])", " ", require(SPEC / name).read_text(encoding="utf-8"))


def enum_row(field: str) -> str:
    """The values cell of one row of successor-api.md 4.14's enumeration table."""
    text = spec_text("successor-api.md").split("### 4.14 Enumerations", 1)[1].split("\n## ", 1)[0]
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] == field:
            return cells[1]
    raise AssertionError(f"no row {field!r} in successor-api.md 4.14")


def ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]*)`", text)


def test_every_factsheet_fee_type_named_in_the_reference_is_recognised():
    cell = enum_row("factsheet `fee_type_desc`")
    names = [n.strip() for n in cell.split("(Thai name", 1)[0].split(",")]
    assert len(names) == 7 and "Total Fee and Expense" in names
    for name in names:
        kind = fee_type_key(name)
        assert kind is not None, name
        thai, english = FEE_TYPE[kind]
        assert english == name
        # The form the service sends: the Thai name with the English one in parentheses.
        assert fee_type_key(f"{thai} ({english})") == kind
        assert f"{thai} ({english})" in SPELLINGS["fee_type_desc"]["successor"]


def test_every_project_fee_type_named_in_the_reference_is_recognised():
    names = [n.strip() for n in enum_row("project `fee_type_desc`").split("[", 1)[0].split(",")]
    assert len(names) == 7
    assert all(fee_type_key(n) for n in names), [n for n in names if not fee_type_key(n)]
    assert fee_type_key("Total Fee") == "total"


def test_every_thai_fee_line_quoted_in_the_references_is_recognised():
    quoted = [t for name in ("successor-api.md", "real-world-notes.md")
              for t in re.findall(r"ค่าธรรมเนียม[^`\"]*\([A-Za-z][^`\")]*\)", spec_text(name))]
    assert len(quoted) >= 3
    assert all(fee_type_key(text) for text in quoted), [t for t in quoted if not fee_type_key(t)]
    # The total line as the current service spells it (issue 26, from the reference's 4.14 pattern).
    assert fee_type_key("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)") == "total"
    assert label("fee_type", "ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)") == "Total Fee and Expense"


@pytest.mark.parametrize("text", ["ค่าใช้จ่ายรวมทั้งหมด (Total Expense)", "Total Expense", "total expense ratio",
                                  "ค่าธรรมเนียมการจัดการ (Management Fee) สูงสุด", "", None, 1.5])
def test_a_fee_line_in_no_documented_spelling_is_not_recognised(text):
    assert fee_type_key(text) is None


def test_fund_statuses_of_both_layouts_are_recognised():
    words = list(dict.fromkeys(w for w in ticked(enum_row("`fund_status`")) if w.isalpha() and len(w) > 2))
    legacy = re.findall(r"^\| (SE|EX|RG|CA|LI) \|", spec_text("sec-open-api.md"), re.M)
    assert len(words) == 5 and sorted(legacy) == ["CA", "EX", "LI", "RG", "SE"]
    assert {normalise_fund_status(w) for w in words} == set(legacy)
    assert all(label("fund_status", code) for code in words + legacy)
    assert label("fund_status", "Cancelled") is None  # not a documented spelling: shown as sent


def test_risk_levels_including_8_plus_are_recognised():
    cell = enum_row("`risk_spectrum`")
    codes = [f"RS{n}" for n in range(1, 9)] + [c for c in ticked(cell) if c.startswith("RS8") and len(c) > 3]
    assert {"RS81", "RS8+"} <= set(codes)
    assert "RS81" in spec_text("sec-open-api.md")
    for code in codes:
        assert label("risk_spectrum", code) is not None, code
    assert normalise_risk_code("RS8+") == normalise_risk_code("RS81") == "RS81"
    assert label("risk_spectrum", "RS9") is None  # shown as sent


def test_performance_types_are_recognised():
    names = ticked(enum_row("`performance_type_desc`"))
    assert len(names) == 5
    assert {performance_kind(n) for n in names} == {"fund_return", "benchmark_return", "fund_volatility",
                                                    "benchmark_volatility", "peer_average"}
    assert performance_kind("ผลตอบแทนกองทุนรวม (ต่อปี)") is None  # no guessing from part of a text


def test_policy_types_are_recognised():
    names = ticked(enum_row("`policy_desc`"))
    assert len(names) == 6
    assert all(policy_type_english(n) for n in names), [n for n in names if not policy_type_english(n)]


def test_tax_incentives_are_recognised_and_other_text_is_kept_as_sent():
    texts = [t for t in ticked(spec_text("successor-api.md").split("| `fund_class_tax_incentive_type` |")[1].split("\n")[0])
             if t.strip("\"")]
    assert len(texts) == 2
    assert {tax_incentive_key(t) for t in texts} == {"SSF", "ThaiESG"}
    assert tax_incentive("") is None and tax_incentive(None) is None
    assert tax_incentive("กองทุนรวมเพื่อการเลี้ยงชีพ แบบใหม่") == "กองทุนรวมเพื่อการเลี้ยงชีพ แบบใหม่"
    assert tax_incentive_key("not an SSF fund") is None


def test_redemption_codes_and_the_texts_sent_for_them_are_recognised():
    legacy = spec_text("sec-open-api.md").split("`redemp_period` values:", 1)[1].split("###", 1)[0]
    codes = re.findall(r"^\| (\w) \|", legacy, re.M)
    assert len(codes) == 11
    assert [redemption_code(c) for c in codes] == codes
    assert redemption_code("ทุกวันทำการ") == "1"  # the successor's example text (4.6)
    for text, code in SPELLINGS["redemp_period"]["successor"].items():
        assert redemption_code(text) == code
    assert redemption_code("ทุกวันจันทร์") is None


def test_retail_types_and_management_styles_are_recognised():
    retail = re.findall(r"`([A-Z])` [a-z]", enum_row("`proj_retail_type`"))
    styles = re.findall(r"`([A-Z]{2})`", enum_row("`management_style`"))
    assert len(retail) == 9 and len(styles) == 11
    assert set(retail) <= set(PROJ_RETAIL_TYPE) and set(styles) <= set(MANAGEMENT_STYLE)
    assert all(label("proj_retail_type", c) for c in retail)


def test_every_spelling_in_the_table_is_read_by_the_product():
    readers = {"fund_status": normalise_fund_status, "risk_spectrum": normalise_risk_code, "fee_type_desc": fee_type_key,
               "project_fee_type_desc": fee_type_key, "performance_type_desc": performance_kind,
               "policy_desc": policy_type_english, "fund_class_tax_incentive_type": tax_incentive_key,
               "redemp_period": redemption_code}
    assert set(readers) == set(SPELLINGS)
    for field, layouts in SPELLINGS.items():
        for layout, table in layouts.items():
            for spelling, key in table.items():
                assert readers[field](spelling) is not None, (field, layout, spelling)
                if field not in ("policy_desc",):
                    assert readers[field](spelling) == key, (field, layout, spelling)


# One class's factsheet fees as the current service sends them (successor-api.md 4.8 field list and
# sample row; 4.14 spellings), with a published total of 0.89 % against 0.535 + 0 trustee/registrar lines.
REAL_FEES = [
    {"proj_id": "M0009_2543", "fund_class_name": "main", "start_date": "2026-09-30", "end_date": None,
     "prospectus_type": "Monthly", "fee_type_desc": desc, "rate": rate, "actual_value": actual,
     "fee_other_desc": "ค่าธรรมเนียมดังกล่าวรวมภาษีมูลค่าเพิ่ม ภาษีธุรกิจเฉพาะหรือภาษีอื่นใดแล้ว",
     "last_upd_date": "2026-10-26T07:53:25.193"}
    for desc, rate, actual in [
        ("ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)", 1.0, 0.0),
        ("ค่าธรรมเนียมการรับซื้อคืนหน่วยลงทุน (Back-end Fee)", 1.0, None),
        ("ค่าธรรมเนียมการสับเปลี่ยนหน่วยลงทุนเข้า (Switching In)", 1.0, 0.0),
        ("ค่าธรรมเนียมการสับเปลี่ยนหน่วยลงทุนออก (Switching Out)", 1.0, 0.0),
        ("ค่าธรรมเนียมการโอนหน่วยลงทุน (Transfer Fee)", None, None),
        ("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด (Total Fee and Expense)", 2.675, 0.89),
        ("ค่าธรรมเนียมการจัดการ (Management Fee)", 1.605, 0.6),
    ]
]


def test_the_total_fee_of_a_real_format_fee_list_is_its_published_total():
    records = normalise_payload("fee", fee_records(REAL_FEES), list_expected=True)
    frame = records_frame("fee", records)
    assert total_annual_fee(frame) == pytest.approx(0.89)  # was 0.60: management alone
    assert [r["fee_kind"] for r in records if r["fee_kind"] == "total"] == ["total"]
    # The market store reads the stored columns (proj_id, seq, class, desc, en, rate, actual) by the same rule.
    rows = [("M0009_2543", n, None, r["fee_type_desc"], r["fee_type_en"], r["rate_num"], r["actual_value_num"])
            for n, r in enumerate(records)]
    assert total_fee(rows, 6) == pytest.approx(0.89) and total_fee(rows, 5) == pytest.approx(2.675)


def test_an_undocumented_total_line_is_shown_as_sent_and_not_counted():
    odd = [dict(REAL_FEES[-1]), dict(REAL_FEES[-2], fee_type_desc="ค่าใช้จ่ายรวมทั้งหมด (Total Expense)")]
    records = normalise_payload("fee", fee_records(odd), list_expected=True)
    assert total_annual_fee(records_frame("fee", records)) == pytest.approx(0.6)  # management only
    shown = next(r for r in records if r["fee_kind"] is None)
    assert shown["fee_type_desc"] == "ค่าใช้จ่ายรวมทั้งหมด (Total Expense)" and shown["fee_type_en"] == "Total Expense"


@pytest.mark.parametrize("form", ["thai_english", "english", "thai"])
def test_a_fee_line_in_any_documented_form_reads_the_same(form):
    from dashboard.records.labels import fee_type_text

    row = dict(REAL_FEES[5], fee_type_desc=fee_type_text("total", form))
    record = normalise_payload("fee", fee_records([row]), list_expected=True)[0]
    assert record["fee_kind"] == "total" and record["fee_type_en"] == "Total Fee and Expense"
    assert record["fee_type_desc"] == fee_type_text("total", form)  # shown as sent

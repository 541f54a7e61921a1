"""The successor's items (as captured from the live service, successor-api.md section 6) as legacy records."""

from __future__ import annotations

import base64

import pytest

from dashboard.errors import MalformedResponseError
from dashboard.records import normalise_payload, normalise_record
from dashboard.records.successor import (
    NOT_PUBLISHED_FIELD,
    class_records,
    fee_records,
    fund_records,
    holding_records,
    html_to_text,
    not_published,
    performance_records,
    project_type_record,
    redemption_record,
    suitability_record,
    to_legacy,
    urls_record,
)

KFEQ = {"unique_id": "C0000000021", "comp_name_th": "บริษัทหลักทรัพย์จัดการกองทุน กสิกรไทย จำกัด",
        "comp_name_en": "KASIKORN ASSET MANAGEMENT COMPANY LIMITED ", "proj_id": "M0009_2543", "regis_id": "017_2543",
        "init_date": "2000-03-17", "regis_date": "2000-04-07", "cancel_date": None, "proj_name_th": "กองทุนเปิดเค เฟล็กซิเบิ้ล",
        "proj_name_en": "K Flexible Equity Fund", "proj_abbr_name": "K-FEQ", "fund_status": "Registered",
        "invest_country_flag": "3", "proj_retail_type": "R", "proj_term_flag": "N", "proj_term_day": None,
        "proj_term_month": None, "proj_term_year": None, "policy_desc": "ผสม",
        "investment_policy_desc": "<p>ลงทุนใน&nbsp;ตราสารทุน</p><table><tr><td>80%</td></tr></table>",
        "management_style": "AM", "feederfund_master_fund": None, "feederfund_country": None,
        "exchange_rate_protection_policy": None, "fund_class_name": "main", "fund_class_detail": None,
        "fund_class_description": None, "fund_class_tax_incentive_type": "", "fund_class_isin_code": None,
        "last_upd_date": "2026-06-05T15:15:20.9"}
FIXEDPLUS = [
    dict(KFEQ, proj_id="M0054_2560", proj_abbr_name="K-FIXEDPLUS", proj_name_en="K Fixed Income Plus Fund",
         fund_class_name="K-FIXEDPLUS-SSF", fund_class_detail="ชนิดเพื่อการออม", management_style="SM",
         fund_class_tax_incentive_type="กองทุนรวมเพื่อการออม (Super Savings Fund : SSF)",
         fund_class_isin_code="TH7864B10001", last_upd_date="2026-06-05T15:15:20.9"),
    dict(KFEQ, proj_id="M0054_2560", proj_abbr_name="K-FIXEDPLUS", proj_name_en="K Fixed Income Plus Fund",
         fund_class_name="K-FIXEDPLUS-A", fund_class_detail="ชนิดผู้ลงทุนทั่วไป", management_style="SM",
         fund_class_isin_code="TH7864A10003", last_upd_date="2026-06-06T01:00:00"),
]


def test_profiles_become_one_fund_record_per_project_with_the_company_name():
    funds = normalise_payload("fund", fund_records([*FIXEDPLUS, KFEQ]), list_expected=True)
    assert [f["proj_id"] for f in funds] == ["M0009_2543", "M0054_2560"]
    kfeq, plus = funds
    assert kfeq["fund_status"] == "RG" and kfeq["fund_status_label_en"] == "registered"
    assert kfeq["invest_country_flage"] == "3" and kfeq["invest_country_flage_label_en"]
    assert kfeq["comp_name_en"] == "KASIKORN ASSET MANAGEMENT COMPANY LIMITED"  # trailing space gone
    assert kfeq["class_count"] == 0 and plus["class_count"] == 2
    assert plus["tax_incentives"] == ["SSF"]
    assert plus["last_upd_date"] == "2026-06-06T01:00:00"  # the newest of the project's rows
    assert kfeq["management_style_label_en"] == "active"
    assert kfeq["investment_policy"] == "ลงทุนใน ตราสารทุน\n80%"  # HTML read as text
    assert kfeq["permit_us_investment"] is None and not_published(kfeq, "permit_us_investment")


def test_fund_lookup_by_company_keeps_only_that_company():
    other = dict(KFEQ, unique_id="C0000000460", proj_id="M0124_2558")
    assert [f["proj_id"] for f in to_legacy("E2", [KFEQ, other], {"unique_id": "C0000000460"})] == ["M0124_2558"]


@pytest.mark.parametrize("word, code", [("Registered", "RG"), ("IPO", "SE"), ("Expired", "EX"), ("Canceled", "CA"),
                                        ("Liquidated", "LI"), ("RG", "RG")])
def test_status_words_map_onto_the_legacy_codes(word, code):
    record = normalise_record("fund", fund_records([dict(KFEQ, fund_status=word)])[0])
    assert record["fund_status"] == code and record["fund_status_label_en"]


def test_classes_leave_out_the_main_row_and_keep_isin_and_tax_incentive():
    assert class_records([KFEQ], proj_id="M0009_2543") == []
    classes = normalise_payload("unit_class", class_records([*FIXEDPLUS, KFEQ], proj_id="M0054_2560"), list_expected=True)
    assert [c["class_abbr_name"] for c in classes] == ["K-FIXEDPLUS-A", "K-FIXEDPLUS-SSF"]
    assert classes[1]["fund_class_isin_code"] == "TH7864B10001" and classes[1]["tax_incentive"] == "SSF"
    assert classes[0]["class_name"] == "ชนิดผู้ลงทุนทั่วไป"


def test_class_search_union_keeps_only_matching_rows():
    rows = class_records([*FIXEDPLUS, *FIXEDPLUS], match="ssf")
    assert [r["class_abbr_name"] for r in rows] == ["K-FIXEDPLUS-SSF"]  # deduplicated too


def test_project_type_renames_the_term_fields():
    row = dict(KFEQ, proj_term_flag="Y", proj_term_day=0, proj_term_month=6, proj_term_year=0)
    record = normalise_record("project_type", project_type_record([row], proj_id="M0009_2543"))
    assert (record["proj_term_dd"], record["proj_term_mm"], record["proj_term_yy"]) == (0, 6, 0)
    assert record["proj_term_flag_label_en"] == "term is fixed"
    assert project_type_record([row], proj_id="M0000_0000") is None


def test_holdings_accept_both_spellings_and_keep_the_nav_total_row_flagged():
    rows = [
        {"proj_id": "M0016_2565", "period": 202306, "as_of_date": "2023-06-30", "assetliab_id": "205",
         "assetliab_desc": "ตั๋วเงินคลัง (Treasury Bill)", "issue_code": "TB23705A", "isin_code": "TH0623073788",
         "issuer": "MINISTRY OF FINANCE", "assetliab_value": 94984906.4, "percent_nav": 2.72392,
         "last_upd_date": "2023-07-04T14:50:02"},
        {"proj_id": "M0016_2565", "period": 202306, "as_of_date": "2023-06-30", "assetliab_code": "903",
         "assetliab_desc": "มูลค่าทรัพย์สินสุทธิ", "market_value": 3487141220.0, "percent_nav": 100.0},
        {"proj_id": "M0016_2565", "period": 202306, "as_of_date": "2023-06-30", "assetliab_id": "205",
         "issue_code": "TB23816A", "assetliab_value": 144680792.65, "percent_nav": 4.14908},
    ]
    holdings = normalise_payload("holding", holding_records(rows), list_expected=True)
    assert [h["percent_nav"] for h in holdings] == [100.0, 4.14908, 2.72392]  # sorted, not as sent
    assert [h["is_nav_total"] for h in holdings] == [True, False, False]
    assert holdings[0]["assetliab_value"] == 3487141220.0 and holdings[0]["assetliab_id"] == "903"
    assert holdings[1]["period"] == "202306" and holdings[2]["as_of_date"] == "2023-06-30"


def test_risk_text_is_plain_now_and_suitability_texts_are_not_published():
    rows = [
        {"proj_id": "M0000_2552", "start_date": "2022-06-30", "end_date": "2022-07-26", "risk_spectrum": "RS5",
         "risk_spectrum_desc": "เก่า", "last_upd_date": "2022-07-26T07:53:25.193"},
        {"proj_id": "M0000_2552", "start_date": "2023-06-30", "end_date": None, "risk_spectrum": "RS8+",
         "risk_spectrum_desc": "ลงทุนในตราสารทุนเป็นหลัก โดยเฉลี่ยในรอบปีไม่น้อยกว่า 80% ของ NAV"},
    ]
    record = normalise_record("suitability", suitability_record(rows))
    assert record["risk_spectrum"] == "RS81" and record["risk_level_label"] == "8+"
    assert record["risk_spectrum_desc"].startswith("ลงทุนในตราสารทุนเป็นหลัก")
    assert record["fund_suitable_desc"] is None and not_published(record, "fund_suitable_desc")
    assert not not_published(record, "risk_spectrum")


def test_performance_main_class_value_as_string_or_number_and_as_of_from_start():
    rows = [
        {"proj_id": "M0000_2552", "fund_class_name": "main", "start_date": "2022-06-30", "end_date": None,
         "performance_type_desc": "ความผันผวนของกองทุนรวม", "reference_period": "1 year", "performance_value": "11.89"},
        {"proj_id": "M0000_2552", "fund_class_name": "main", "start_date": "2022-06-30", "end_date": None,
         "performance_type_desc": "ผลตอบแทนกองทุนรวม", "reference_period": "3 years", "performance_value": -0.74},
    ]
    perf = normalise_payload("performance", performance_records(rows), list_expected=True)
    assert {p["performance_kind"]: p["performance_val"] for p in perf} == {"fund_volatility": 11.89, "fund_return": -0.74}
    assert all(p["class_abbr_name"] is None and p["is_class_fund"] is False for p in perf)
    assert all(p["as_of_date"] == "2022-06-30" for p in perf)


def test_only_the_factsheet_in_force_is_kept_when_history_comes_back():
    old = {"fund_class_name": "main", "start_date": "2022-06-30", "end_date": "2022-07-26",
           "fee_type_desc": "ค่าธรรมเนียมการจัดการ (Management Fee)", "rate": 2.5, "actual_value": 2.0}
    new = dict(old, start_date="2023-06-30", end_date=None, rate=2, actual_value=1.605)
    fees = normalise_payload("fee", fee_records([old, new]), list_expected=True)
    assert len(fees) == 1
    assert (fees[0]["rate"], fees[0]["rate_num"], fees[0]["actual_value_num"]) == ("2", 2.0, 1.605)
    assert fees[0]["fee_type_en"] == "Management Fee"
    assert fees[0]["rate_unit"] is None and not_published(fees[0], "rate_unit")


@pytest.mark.parametrize("text, code, other", [
    ("ทุกวันทำการ", "1", None),
    ("every business day", "1", None),
    ("ทุกวันที่ 15 ของเดือน", "9", "ทุกวันที่ 15 ของเดือน"),
])
def test_redemption_text_maps_to_the_legacy_code_and_keeps_the_text(text, code, other):
    rows = [
        {"fund_class_name": "A", "type": "subscription", "period": "ไม่เปิดขาย", "start_date": "2023-01-31"},
        {"fund_class_name": "A", "type": "redemption", "period": text, "redemp_period_oth": "",
         "settlement_period": "T+3", "start_date": "2023-01-31"},
    ]
    record = normalise_record("redemption", redemption_record(rows))
    assert record["redemp_period"] == code and record["redemp_period_label_en"]
    assert record["redemp_period_text"] == text and record["redemp_period_oth"] == other
    assert record["settlement_period"] == "T+3"
    assert record["buying_cut_off_time"] is None and not_published(record, "buying_cut_off_time")


def test_urls_keep_the_newest_factsheet_and_say_report_links_are_gone():
    rows = [
        {"fund_class_name": "HIDIV-AR", "pdf_factsheet": "https://example.invalid/old.pdf", "as_of_date": "2025-06-30"},
        {"fund_class_name": "HIDIV-AR", "pdf_factsheet": "", "amc_url_factsheet": "https://example.invalid/new",
         "as_of_date": "2025-09-30"},
    ]
    record = normalise_record("urls", urls_record(rows))
    assert record["url_factsheet"] == "https://example.invalid/new"
    assert record["url_annual_report"] is None and not_published(record, "url_annual_report")
    assert record[NOT_PUBLISHED_FIELD] == ["url_halfyear_report", "url_annual_report"]


def test_items_that_are_not_records_are_refused():
    with pytest.raises(MalformedResponseError):
        fund_records(["not a record"])
    with pytest.raises(MalformedResponseError):
        holding_records("text")


def test_html_to_text_is_bounded_and_escapes_nothing_into_markup():
    text = html_to_text("<script>alert(1)</script>" + "ก" * 5000)
    assert "<" not in text and len(text) <= 4000


def test_plain_text_round_trips_through_the_legacy_base64_field():
    record = suitability_record([{"risk_spectrum": "RS1", "risk_spectrum_desc": "ตราสารหนี้ระยะสั้น"}])
    assert base64.b64decode(record["risk_spectrum_desc"]).decode() == "ตราสารหนี้ระยะสั้น"

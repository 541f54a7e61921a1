"""Record normalisers per kind, payload shapes, typed frames and enumeration labels."""

from __future__ import annotations

import base64
import copy
import datetime as dt
import json
import logging

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.api.endpoints import ENDPOINTS, SUCCESSOR_ENDPOINTS
from dashboard.errors import MalformedResponseError
from dashboard.records import (
    ADDED_FIELDS,
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    RECORD_KINDS,
    UNREQUESTED_KINDS,
    REFERENCE_PERIOD,
    SPEC_FIELDS,
    label,
    normalise_payload,
    normalise_record,
    records_frame,
)

TODAY = dt.date(2025, 8, 1)
UPDATED = "2025-07-02T06:47:30.35"
UPDATED_ISO = "2025-07-02T06:47:30.350000"


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


# One realistic raw record per kind (values from the specification and real-world notes), with
# the fields of its normalised form worth checking.
EXAMPLES: dict[str, tuple[dict, dict]] = {
    "fund": (
        {
            "last_upd_date": UPDATED,
            "proj_id": "M0774_2554",
            "regis_id": "ก.123/2554",
            "regis_date": "2011-12-21",
            "cancel_date": "-",
            "proj_name_th": "กองทุนเปิดเค โกลบอล อินคัม ",
            "proj_name_en": "K Global Income Fund",
            "proj_abbr_name": "K-GINCOME",
            "fund_status": " rg ",
            "unique_id": "C0000000021",
            "permit_us_investment": "N",
            "invest_country_flage": "1",
        },
        {
            "last_upd_date": UPDATED_ISO,
            "regis_date": "2011-12-21",
            "cancel_date": None,
            "proj_name_th": "กองทุนเปิดเค โกลบอล อินคัม",
            "fund_status": "RG",
            "fund_status_label_en": "registered",
            "fund_status_label_th": "จดทะเบียนแล้ว",
            "invest_country_flage": "1",
            "invest_country_flage_label_en": "fund focused on investment with foreign risk",
        },
    ),
    "unit_class": (
        {
            "proj_id": "M0774_2554",
            "last_upd_date": "2025-07-04T08:10:00.54",
            "proj_abbr_name": "ONE-UGG-ASSF",
            "class_abbr_name": "ONE-UGG-ASSF",
            "class_name": "ชนิดเพื่อการออม",
            "class_additional_desc": " ",
        },
        {
            "last_upd_date": "2025-07-04T08:10:00.540000",
            "class_abbr_name": "ONE-UGG-ASSF",
            "class_name": "ชนิดเพื่อการออม",
            "class_additional_desc": None,
        },
    ),
    "investment": (
        {
            "last_upd_date": UPDATED,
            "minimum_sub_ipo": "1000",
            "minimum_sub_ipo_cur": "บาท",
            "minimum_sub_ipo_addi_desc": "-",
            "minimum_sub": "1000.00",
            "minimum_sub_cur": "บาท",
            "minimum_sub_addi_desc": None,
            "minimum_redempt": "0.01",
            "minimum_redempt_cur": "บาท",
            "minimum_redempt_addi_desc": "",
            "minimum_redempt_unit": "0.0001",
            "minimum_redempt_unit_addi_desc": "-",
            "lowbal_val": 0,
            "lowbal_val_cur": "บาท",
            "lowbal_unit": 0.5,
        },
        {
            "minimum_sub_ipo": 1000.0,
            "minimum_sub": 1000.0,
            "minimum_redempt": 0.01,
            "minimum_redempt_unit": 0.0001,
            "minimum_sub_ipo_addi_desc": None,
            "lowbal_val": 0.0,
            "lowbal_unit": 0.5,
            "lowbal_val_cur": "บาท",
        },
    ),
    "holding": (
        {
            "last_upd_date": UPDATED,
            "as_of_date": "2025-03-31",
            "assetliab_id": "101",
            "issue_code": "PTT",
            "isin_code": "TH0646010Z00",
            "issuer": "บริษัท ปตท. จำกัด (มหาชน)",
            "assetliab_value": "12345678.12345",
            "percent_nav": "4.56789",
        },
        {"as_of_date": "2025-03-31", "assetliab_value": 12345678.12345, "percent_nav": 4.56789, "is_nav_total": False},
    ),
    "project_type": (
        {
            "last_upd_date": UPDATED,
            "proj_retail_type": "R",
            "proj_term_flag": "Y",
            "proj_term_dd": "0",
            "proj_term_mm": "6",
            "proj_term_yy": "1",
        },
        {
            "proj_retail_type_label_en": "fund for general investors",
            "proj_term_flag": "Y",
            "proj_term_flag_label_en": "term is fixed",
            "proj_term_dd": 0.0,
            "proj_term_mm": 6.0,
            "proj_term_yy": 1.0,
        },
    ),
    "suitability": (
        {
            "last_upd_date": UPDATED,
            "fund_suitable_desc": b64("ผู้ลงทุนที่ต้องการผลตอบแทนสูงnและรับความเสี่ยงได้"),
            "fund_not_suitable_desc": b64("ผู้ลงทุนที่ต้องการเงินต้นคืนเต็มจำนวน"),
            "important_notice": "",
            "risk_spectrum_desc": b64("ความเสี่ยงสูง ลงทุนใน Equity Fund ต่างประเทศ"),
            "risk_spectrum": "RS6",
        },
        {
            "fund_suitable_desc": "ผู้ลงทุนที่ต้องการผลตอบแทนสูง\nและรับความเสี่ยงได้",
            "fund_not_suitable_desc": "ผู้ลงทุนที่ต้องการเงินต้นคืนเต็มจำนวน",
            "important_notice": None,
            "risk_spectrum_desc": "ความเสี่ยงสูง ลงทุนใน Equity Fund ต่างประเทศ",
            "risk_spectrum": "RS6",
            "risk_spectrum_label_en": "risk level 6",
            "risk_level_label": "6",
            "risk_rank": 6,
        },
    ),
    "return_estimate": (
        {
            "last_upd_date": UPDATED,
            "total_estimated_return": "2.50",
            "annual_estimated_expense": "0.35",
            "annual_average_return": "2.15",
            "investment_period_year": "1",
            "investment_period_month": "-",
        },
        {
            "total_estimated_return": 2.5,
            "annual_estimated_expense": 0.35,
            "annual_average_return": 2.15,
            "investment_period_year": 1.0,
            "investment_period_month": None,
        },
    ),
    "performance": (
        {
            "last_upd_date": "2025-11-15T16:11:03.813",
            "class_abbr_name": "-",
            "performance_type_desc": "ผลตอบแทนตัวชี้วัด",
            "reference_period": "3 years",
            "performance_val": "-1.23",
            "as_of_date": "2025-07-01 00:00:00.0000000",
        },
        {
            "last_upd_date": "2025-11-15T16:11:03.813000",
            "class_abbr_name": None,
            "is_class_fund": False,
            "performance_kind": "benchmark_return",
            "performance_kind_label_en": "benchmark return",
            "reference_period": "3 years",
            "reference_period_order": 5,
            "reference_period_label_th": "3 ปี",
            "performance_val": -1.23,
            "as_of_date": "2025-07-01",
        },
    ),
    "redemption": (
        {
            "last_upd_date": UPDATED,
            "redemp_period": "1",
            "redemp_period_oth": "-",
            "settlement_period": "T+3",
            "buying_cut_off_time": "15:30",
            "selling_cut_off_time": "15:30",
        },
        {
            "redemp_period": "1",
            "redemp_period_label_en": "every business day",
            "redemp_period_label_th": "ทุกวันทำการ",
            "redemp_period_oth": None,
            "settlement_period": "T+3",
            "buying_cut_off_time": "15:30",
        },
    ),
    "fee": (
        {
            "last_upd_date": UPDATED,
            "class_abbr_name": "main",
            "fee_type_desc": "ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)",
            "rate": "1.605",
            "rate_unit": "% ของมูลค่าซื้อขาย",
            "actual_value": "ยกเว้น",
            "actual_value_unit": "% ของมูลค่าซื้อขาย",
            "fee_other_desc": "-",
        },
        {
            "class_abbr_name": "main",
            "is_class_fund": True,
            "rate": "1.605",
            "rate_num": 1.605,
            "actual_value": "ยกเว้น",
            "actual_value_num": None,
            "fee_type_th": "ค่าธรรมเนียมการขายหน่วยลงทุน",
            "fee_type_en": "Front-end Fee",
            "fee_other_desc": None,
        },
    ),
    "allocation": (
        {"last_upd_date": UPDATED, "asset_seq": "2", "asset_name": "ตราสารหนี้ภาครัฐ", "asset_ratio": "35.50"},
        {"asset_seq": 2, "asset_name": "ตราสารหนี้ภาครัฐ", "asset_ratio": 35.5},
    ),
    "urls": (
        {"last_upd_date": UPDATED, "url_halfyear_report": "-", "url_annual_report": "-", "url_factsheet": "-"},
        {"url_halfyear_report": None, "url_annual_report": None, "url_factsheet": None},
    ),
    "licensee": (
        {
            "last_upd_date": UPDATED,
            "unique_id": "0105536092641",
            "name_th": "บริษัทหลักทรัพย์จัดการกองทุน กสิกรไทย จำกัด",
            "name_en": "KASIKORN ASSET MANAGEMENT CO., LTD.",
        },
        {"unique_id": "0105536092641", "name_en": "KASIKORN ASSET MANAGEMENT CO., LTD."},
    ),
    "approval": (
        {
            "last_upd_date": UPDATED,
            "regis_sale_no": "012345",
            "lic_code": "IC1",
            "effective_date": "2019-01-15",
            "expire_date": "2024-12-31",
            "privilege_type": "FM",
        },
        {
            "effective_date": "2019-01-15",
            "expire_date": "2024-12-31",
            "privilege_type": "FM",
            "privilege_type_label_en": "registered as qualified fund manager",
            "approval_state": "expired",
        },
    ),
    "duty": (
        {
            "last_upd_date": UPDATED,
            "company_unique_id": "0105536092641",
            "person_unique_id": "P0001",
            "lic_action_code": "FM",
            "action_start_date": "2020-03-01",
            "action_end_date": "",
        },
        {"action_start_date": "2020-03-01", "action_end_date": None, "is_current": True},
    ),
    "enforcement": (
        {
            "last_upd_date": UPDATED,
            "enforcement_relevant_section_law": "มาตรา 296 พ.ร.บ.หลักทรัพย์ฯ",
            "enforcement_summarized_facts": "ไม่ปฏิบัติตามหลักเกณฑ์",
            "enforcement_date": "15/03/2567",
            "enforcement_details": "คำสั่งเปรียบเทียบปรับที่ 12/2567 ปรับเป็นเงิน 500,000 บาท",
            "enforcement_remark": "-",
        },
        {
            "enforcement_date": "2024-03-15",
            "enforcement_details": "คำสั่งเปรียบเทียบปรับที่ 12/2567 ปรับเป็นเงิน 500,000 บาท",
            "enforcement_remark": None,
        },
    ),
    "alert": (
        {"last_updated": "2025-07-02T06:47:30", "case_id": "IA-2025-001", "seq_no": "1", "license_th": "ชักชวนลงทุน",
         "license_en": "Soliciting investment"},
        {"last_upd_date": "2025-07-02T06:47:30", "last_updated": "2025-07-02T06:47:30", "seq_no": "1"},
    ),
    "person": (
        {"last_upd_date": UPDATED, "unique_id": "P0000001", "regis_sale_no": "012345", "prefix_th": "นาย",
         "givenname_th": "สมชาย", "surname_th": "ใจดี", "prefix_en": "Mr.", "givenname_en": "Somchai", "surname_en": "Jaidee"},
        {"name_en": "Mr. Somchai Jaidee", "name_th": "นาย สมชาย ใจดี", "regis_sale_no": "012345"},
    ),
    "company_licence": (
        {"last_upd_date": None, "lic_no": "", "lic_code": "B1", "lic_name_th": "การจัดการกองทุนรวม",
         "lic_name_en": "Mutual fund management", "acc_type": "SEA", "apply_type": "licensed",
         "effective_date": "01/02/2550", "expire_date": " "},
        {"lic_no": None, "effective_date": "2007-02-01", "expire_date": None, "approval_state": "no expiry"},
    ),
    "business_activity": (
        {"last_upd_date": UPDATED, "lic_code": "B1", "lic_action_code": "B101", "action_status": "hold",
         "action_start_date": "2020-01-01", "action_remark": None},
        {"action_status": "HOLD", "action_status_label_en": "on hold", "action_start_date": "2020-01-01"},
    ),
    "enforcement_case": (
        {"last_upd_date": UPDATED, "enforcement_type": "ปรับทางปกครอง", "case_id": "ENF-1"},
        {"enforcement_type_label_en": "administrative fine", "case_id": "ENF-1"},
    ),
    "alert_case": (
        {"last_upd_date": UPDATED, "case_id": "IA-1", "disclosure_date": "2025-01-31", "name_en": " Fake Co ",
         "website": "-"},
        {"disclosure_date": "2025-01-31", "name_en": "Fake Co", "website": None},
    ),
    "amc": (
        {"unique_id": "C0000000460", "comp_name_en": "KRUNG THAI ASSET MANAGEMENT PUBLIC COMPANY LIMITED ",
         "comp_name_th": "บริษัทหลักทรัพย์จัดการกองทุน กรุงไทย จำกัด (มหาชน)", "last_upd_date": "2026-06-05T15:15:05.93"},
        {"comp_name_en": "KRUNG THAI ASSET MANAGEMENT PUBLIC COMPANY LIMITED", "last_upd_date": "2026-06-05T15:15:05.930000"},
    ),
    # successor-api.md section 6 sample rows
    "nav": (
        {"proj_id": "M0799_2566", "unique_id": "C0000000021", "fund_class_name": "K-TNZ-ThaiESG", "nav_date": "2026-06-04",
         "net_asset": 5739025472.45, "last_val": 12.5147, "sell_price": 12.5148, "buy_price": 12.5147,
         "sell_swap_price": 0.0, "buy_swap_price": 0.0, "last_upd_date": "2026-06-05T15:08:32.48"},
        {"nav_date": "2026-06-04", "net_asset": 5739025472.45, "sell_swap_price": 0.0, "fund_class_name": "K-TNZ-ThaiESG",
         "last_upd_date": "2026-06-05T15:08:32.480000"},
    ),
    "dividend": (
        {"proj_id": "M0512_2546", "unique_id": "C0000000569", "class_abbr_name": "1AMSET50-ID",
         "book_close_date": "2024-01-25 00:00:00.0000000", "dividend_date": "2024-02-05 00:00:00.0000000",
         "dividend_value": 0.15, "last_upd_date": "2025-12-31T15:11:08.17"},
        {"book_close_date": "2024-01-25", "dividend_date": "2024-02-05", "dividend_value": 0.15},
    ),
    "top_holding": (
        {"proj_id": "M0000_2552", "start_date": "2022-07-27", "end_date": "2022-08-30", "prospectus_type": "Monthly",
         "asset_seq": 2, "asset_name": "บมจ.ปตท.", "asset_ratio": 5.22, "last_upd_date": "2022-08-24T09:33:03.523"},
        {"start_date": "2022-07-27", "asset_seq": 2, "asset_name": "บมจ.ปตท.", "asset_ratio": 5.22},
    ),
    "asset_type": (
        {"proj_id": "M0000_2552", "period": 201101, "assetliab_code": "101", "assetliab_desc": "หุ้น (รหัส 101-102)",
         "market_value": 1296947797.6, "percent_nav": 91.18823},
        {"period": 201101, "assetliab_code": "101", "market_value": 1296947797.6, "is_nav_total": False},
    ),
}


def test_every_endpoint_kind_is_covered():
    asked = {e.record_kind for e in (*ENDPOINTS, *SUCCESSOR_ENDPOINTS)}
    assert asked | set(UNREQUESTED_KINDS) == set(RECORD_KINDS) == set(EXAMPLES)
    assert not asked & set(UNREQUESTED_KINDS)


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_realistic_record(kind):
    raw, expected = EXAMPLES[kind]
    before = copy.deepcopy(raw)
    record = normalise_record(kind, raw, today=TODAY)
    assert raw == before  # a new dict; the raw record is untouched
    assert {k: record[k] for k in expected} == expected
    assert list(record)[: len(SPEC_FIELDS[kind])] == list(SPEC_FIELDS[kind])
    assert set(ADDED_FIELDS[kind]) <= set(record)
    json.dumps(record, allow_nan=False)


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_missing_fields_become_none(kind):
    record = normalise_record(kind, {}, today=TODAY)
    assert all(record[field] is None for field in SPEC_FIELDS[kind])
    assert list(record) == list(SPEC_FIELDS[kind]) + list(ADDED_FIELDS[kind])


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_unknown_fields_are_kept_after_known_ones(kind):
    raw = dict(EXAMPLES[kind][0], new_field=" ใหม่ ", new_number=3, new_list=[1, "-"], new_null=None, blank="-")
    record = normalise_record(kind, raw, today=TODAY)
    assert record["new_field"] == "ใหม่"
    assert record["new_number"] == 3
    assert record["new_list"] == [1, None]
    assert record["new_null"] is None and "new_null" in record
    assert record["blank"] is None
    assert list(record)[-5:] == ["new_field", "new_number", "new_list", "new_null", "blank"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"invest_country_flage": "2"}, "2"),
        ({"invest_country_flag": "3"}, "3"),
        ({"invest_country_flag": 4}, "4"),
        ({"invest_country_flage": "1", "invest_country_flag": "3"}, "1"),  # the payload spelling wins
        ({"invest_country_flage": None, "invest_country_flag": "3"}, "3"),
    ],
)
def test_both_country_flag_spellings_end_in_the_payload_spelling(raw, expected):
    record = normalise_record("fund", raw)
    assert record["invest_country_flage"] == expected
    assert record["invest_country_flage_label_en"] == label("invest_country_flage", expected)
    if "invest_country_flag" in raw:
        assert "invest_country_flag" in record  # kept as sent, normalised the same way


@pytest.mark.parametrize(
    ("code", "expected", "level", "rank"),
    [
        ("RS8+", "RS81", "8+", 9),
        ("rs8+", "RS81", "8+", 9),
        ("RS81", "RS81", "8+", 9),
        ("RS8", "RS8", "8", 8),
        (" RS1 ", "RS1", "1", 1),
        ("-", None, None, None),
        ("RS9", "RS9", None, None),
    ],
)
def test_risk_codes(code, expected, level, rank):
    record = normalise_record("suitability", {"risk_spectrum": code})
    assert record["risk_spectrum"] == expected
    assert record["risk_level_label"] == level
    assert record["risk_rank"] == rank


def test_invalid_base64_becomes_none_with_a_warning(caplog):
    raw = {"important_notice": "ข้อความที่ไม่ได้เข้ารหัส", "fund_suitable_desc": b64("เหมาะกับผู้ลงทุนทั่วไป")}
    with caplog.at_level(logging.WARNING, logger="dashboard.records"):
        record = normalise_record("suitability", raw)
    assert record["important_notice"] is None
    assert record["fund_suitable_desc"] == "เหมาะกับผู้ลงทุนทั่วไป"
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1 and "important_notice" in messages[0]
    assert "ข้อความ" not in messages[0]


def test_nav_total_line_is_flagged():
    rows = [
        dict(EXAMPLES["holding"][0]),
        dict(EXAMPLES["holding"][0], assetliab_id="903", issue_code="-", percent_nav="100.00000"),
        dict(EXAMPLES["holding"][0], assetliab_id=903),
    ]
    records = normalise_payload("holding", rows, list_expected=True)
    assert [r["is_nav_total"] for r in records] == [False, True, True]
    assert records[1]["issue_code"] is None
    frame = records_frame("holding", records)
    assert frame["is_nav_total"].dtype == bool
    assert frame.loc[~frame["is_nav_total"], "percent_nav"].sum() == pytest.approx(4.56789)


@pytest.mark.parametrize(
    ("rate", "text", "number"),
    [
        ("1.605", "1.605", 1.605),
        (" ไม่เกิน 1.50 ", "ไม่เกิน 1.50", 1.5),
        ("0.25 - 1.00", "0.25 - 1.00", None),
        ("ยกเว้น", "ยกเว้น", None),
        ("1,070.00", "1,070.00", 1070.0),
        (1.07, "1.07", 1.07),
        ("-", None, None),
        (None, None, None),
    ],
)
def test_fee_text_is_kept_beside_its_number(rate, text, number):
    record = normalise_record("fee", {"rate": rate, "actual_value": rate})
    assert record["rate"] == text and record["actual_value"] == text
    assert record["rate_num"] == number and record["actual_value_num"] == number


@pytest.mark.parametrize(
    ("desc", "thai", "english"),
    [
        ("ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)", "ค่าธรรมเนียมการขายหน่วยลงทุน", "Front-end Fee"),
        ("ค่าธรรมเนียมการจัดการ(Management Fee)", "ค่าธรรมเนียมการจัดการ", "Management Fee"),
        ("ค่าใช้จ่ายอื่น (ถ้ามี)", "ค่าใช้จ่ายอื่น (ถ้ามี)", None),
        ("Switching Fee", None, "Switching Fee"),
        ("-", None, None),
    ],
)
def test_fee_type_is_split_into_thai_and_english(desc, thai, english):
    record = normalise_record("fee", {"fee_type_desc": desc})
    assert (record["fee_type_th"], record["fee_type_en"]) == (thai, english)


@pytest.mark.parametrize("class_abbr_name", ["-", None, " ", "null"])
def test_non_class_fund(class_abbr_name):
    for kind in ("performance", "fee"):
        record = normalise_record(kind, {"class_abbr_name": class_abbr_name})
        assert record["class_abbr_name"] is None and record["is_class_fund"] is False


@pytest.mark.parametrize(
    ("desc", "kind"),
    [
        ("ผลตอบแทนกองทุนรวม", "fund_return"),
        ("ผลตอบแทนตัวชี้วัด", "benchmark_return"),
        ("ความผันผวนของกองทุนรวม", "fund_volatility"),
        ("ความผันผวนของตัวชี้วัด", "benchmark_volatility"),
        ("ค่าเฉลี่ยในกลุ่มเดียวกัน", "peer_average"),
        (" ผลตอบแทน กองทุนรวม ", "fund_return"),
        ("อื่น ๆ", None),
    ],
)
def test_performance_kinds(desc, kind):
    assert normalise_record("performance", {"performance_type_desc": desc})["performance_kind"] == kind


def test_reference_periods_are_ordered():
    orders = [normalise_record("performance", {"reference_period": p})["reference_period_order"] for p in REFERENCE_PERIOD]
    assert orders == sorted(orders) == list(range(1, 9))
    assert normalise_record("performance", {"reference_period": "1 Year"})["reference_period_order"] == 4
    assert normalise_record("performance", {"reference_period": "since inception"})["reference_period_label_en"] == (
        "since inception"
    )
    assert normalise_record("performance", {"reference_period": "2 weeks"})["reference_period_order"] is None


def test_performance_as_of_date_keeps_free_text():
    assert normalise_record("performance", {"as_of_date": "30 มิ.ย. 2568"})["as_of_date"] == "2025-06-30"
    assert normalise_record("performance", {"as_of_date": "ณ สิ้นไตรมาส"})["as_of_date"] == "ณ สิ้นไตรมาส"


@pytest.mark.parametrize(
    ("expire", "state"),
    [
        ("", "no expiry"),
        (" ", "no expiry"),
        (None, "no expiry"),
        ("2025-07-31", "expired"),
        ("2025-08-01", "active"),
        ("2569-12-31", "active"),
        ("not a date", None),
    ],
)
def test_approval_state(expire, state):
    assert normalise_record("approval", {"expire_date": expire}, today=TODAY)["approval_state"] == state


def test_approval_state_defaults_to_the_real_today():
    assert normalise_record("approval", {"expire_date": "2000-01-01"})["approval_state"] == "expired"
    assert normalise_record("approval", {"expire_date": "9999-12-31"})["approval_state"] == "active"


@pytest.mark.parametrize(("privilege", "code", "english"), [
    ("", "", "no privilege exercised"),
    ("MD", "MD", "exercised executive privilege"),
    (" fm ", "FM", "registered as qualified fund manager"),
    (None, None, None),
])
def test_privilege_type(privilege, code, english):
    record = normalise_record("approval", {"privilege_type": privilege})
    assert record["privilege_type"] == code and record["privilege_type_label_en"] == english


@pytest.mark.parametrize(
    ("end", "current"), [("", True), (None, True), ("2025-07-31", False), ("2025-08-01", True), ("2030-01-01", True)]
)
def test_duty_is_current(end, current):
    assert normalise_record("duty", {"action_end_date": end}, today=TODAY)["is_current"] is current


def test_proj_retail_type_null_is_not_stated():
    record = normalise_record("project_type", {"proj_retail_type": None})
    assert record["proj_retail_type"] is None
    assert record["proj_retail_type_label_en"] == "not stated"


def test_dates_in_buddhist_era_and_placeholders():
    record = normalise_record("fund", {"regis_date": "2568-07-02", "cancel_date": "0000-00-00", "last_upd_date": "x"})
    assert record["regis_date"] == "2025-07-02"
    assert record["cancel_date"] is None and record["last_upd_date"] is None


def test_unknown_kind_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown record kind"):
        normalise_record("nonsense", {})


# --- normalise_payload -------------------------------------------------------------------------


def test_payload_list():
    raw = [EXAMPLES["fee"][0], dict(EXAMPLES["fee"][0], rate="2.00")]
    records = normalise_payload("fee", raw, list_expected=True)
    assert [r["rate_num"] for r in records] == [1.605, 2.0]
    assert normalise_payload("fee", None, list_expected=True) == []
    assert normalise_payload("fee", [], list_expected=True) == []


def test_payload_object():
    raw = EXAMPLES["suitability"][0]
    assert normalise_payload("suitability", raw, list_expected=False)["risk_rank"] == 6
    assert normalise_payload("suitability", [raw], list_expected=False)["risk_rank"] == 6  # one-element list
    assert normalise_payload("suitability", None, list_expected=False) is None
    assert normalise_payload("suitability", [], list_expected=False) is None


def test_payload_passes_today():
    raw = [{"expire_date": "2025-07-31"}]
    assert normalise_payload("approval", raw, list_expected=True, today=dt.date(2025, 7, 1))[0]["approval_state"] == (
        "active"
    )


@pytest.mark.parametrize(
    ("payload", "list_expected", "message"),
    [
        ({"proj_id": "M1"}, True, "expected a list of fund records"),
        ("text", True, "a string"),
        (42, True, "a number"),
        ([{"proj_id": "M1"}, "x"], True, "item 1"),
        ([None], True, "item 0"),
        ([[{}]], True, "item 0"),
        ([{}, {}], False, "list of 2"),
        (["x"], False, "a string"),
        ("text", False, "a string"),
        (True, False, "a boolean"),
    ],
)
def test_payload_shape_errors(payload, list_expected, message):
    with pytest.raises(MalformedResponseError, match=message) as raised:
        normalise_payload("fund", payload, list_expected=list_expected, endpoint="E1")
    assert raised.value.endpoint == "E1"


# --- records_frame -----------------------------------------------------------------------------


def test_frame_dtypes():
    raw = [EXAMPLES["performance"][0], dict(EXAMPLES["performance"][0], performance_val=None, as_of_date="free text")]
    frame = records_frame("performance", normalise_payload("performance", raw, list_expected=True))
    assert frame["performance_val"].dtype == "float64"
    assert frame["performance_val"].isna().tolist() == [False, True]
    assert pd.api.types.is_datetime64_any_dtype(frame["last_upd_date"])
    assert pd.api.types.is_datetime64_any_dtype(frame["as_of_date"])
    assert frame["as_of_date"].isna().tolist() == [False, True]
    assert frame["last_upd_date"][0] == pd.Timestamp("2025-11-15T16:11:03.813")
    assert frame["is_class_fund"].dtype == bool
    assert pd.api.types.is_string_dtype(frame["performance_type_desc"])
    assert frame["reference_period_order"].dtype == "Int64"
    assert list(frame.columns) == list(SPEC_FIELDS["performance"]) + list(ADDED_FIELDS["performance"])


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_frame_of_each_kind(kind):
    record = normalise_record(kind, EXAMPLES[kind][0], today=TODAY)
    frame = records_frame(kind, [record, normalise_record(kind, {}, today=TODAY)])
    assert len(frame) == 2
    assert list(frame.columns[: len(SPEC_FIELDS[kind])]) == list(SPEC_FIELDS[kind])
    if kind == "asset_type":  # the monthly asset types carry no update date in any source (spec 4.12)
        assert "last_upd_date" not in frame
    else:
        assert pd.api.types.is_datetime64_any_dtype(frame["last_upd_date"])


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_empty_frame_keeps_its_columns_and_dtypes(kind):
    empty = records_frame(kind, [])
    full = records_frame(kind, [normalise_record(kind, EXAMPLES[kind][0], today=TODAY)])
    assert empty.empty
    assert list(empty.columns) == list(SPEC_FIELDS[kind]) + list(ADDED_FIELDS[kind])
    pd.testing.assert_series_equal(empty.dtypes, full.dtypes[empty.columns])


def test_an_empty_frame_changed_by_its_caller_leaves_the_next_one_empty():
    """Empty frames are built once per kind and copied: a caller's changes stay its own."""
    first = records_frame("fee", [])
    first["added_by_caller"] = 1
    first.loc[0] = None
    again = records_frame("fee", None)
    assert again.empty and "added_by_caller" not in again
    assert list(again.columns) == list(SPEC_FIELDS["fee"]) + list(ADDED_FIELDS["fee"])


def test_empty_frames_share_no_axis_or_column_with_each_other():
    """Each empty frame is made new from its kind's dtypes: two share no index, column labels or column values
    (a copy of one kept frame would, and each copy leaves a weak reference on the kept frame's axes)."""
    first, second = records_frame("fund", []), records_frame("fund", [])
    assert first.index is not second.index and first.columns is not second.columns
    assert not any(pd.Series(first[c]).array is pd.Series(second[c]).array for c in first.columns)
    pd.testing.assert_frame_equal(first, second)


def test_frame_numeric_and_date_columns():
    records = normalise_payload("holding", [EXAMPLES["holding"][0], {}], list_expected=True)
    frame = records_frame("holding", records)
    assert frame["assetliab_value"].dtype == "float64" and frame["percent_nav"].dtype == "float64"
    assert frame["as_of_date"].tolist()[0] == pd.Timestamp("2025-03-31")
    assert pd.isna(frame["as_of_date"][1])
    allocation = records_frame("allocation", [normalise_record("allocation", EXAMPLES["allocation"][0])])
    assert allocation["asset_seq"].dtype == "Int64" and allocation["asset_ratio"].dtype == "float64"


@pytest.mark.parametrize(("seq", "expected"), [("3", 3), (3, 3), ("3.0", 3), ("1.5", None), (10**30, None), ("-", None)])
def test_asset_seq_is_a_whole_number(seq, expected):
    assert normalise_record("allocation", {"asset_seq": seq})["asset_seq"] == expected


def test_frame_puts_unknown_fields_last():
    records = [normalise_record("licensee", {"name_th": "ก", "zeta": 1}), normalise_record("licensee", {"alpha": "x"})]
    frame = records_frame("licensee", records)
    assert list(frame.columns) == list(SPEC_FIELDS["licensee"]) + ["zeta", "alpha"]
    assert frame["zeta"].tolist()[0] == 1 and pd.isna(frame["zeta"][1])


def test_frame_of_one_object_and_of_none():
    record = normalise_payload("urls", EXAMPLES["urls"][0], list_expected=False)
    assert len(records_frame("urls", record)) == 1
    assert len(records_frame("urls", None)) == 0


# --- labels ------------------------------------------------------------------------------------


def test_labels():
    assert label("fund_status", "RG") == "registered"
    assert label("fund_status", "rg", "th") == "จดทะเบียนแล้ว"
    assert label("fund_status", "ZZ") is None
    assert label("fund_status", None) is None
    assert label("no_such_enum", "RG") is None
    assert label("fund_status", "RG", "fr") is None
    assert label("fund_status", ["unhashable"]) is None
    assert label("risk_spectrum", "RS8+") == "risk level 8+"
    assert label("invest_country_flag", 2) == label("invest_country_flage", "2") == "partly invests abroad"
    assert label("redemp_period", "e") == "at the end of the project term"
    assert label("redemp_period", "T", "th")
    assert label("proj_retail_type", None) == "not stated"
    assert label("proj_retail_type", "null") == "not stated"
    assert label("privilege_type", "") == "no privilege exercised"
    assert label("proj_term_flag", "N") == "term is not fixed"
    assert label("reference_period", "inception date", "th") == "ตั้งแต่จัดตั้งกองทุน"


def test_enforcement_numbering_differs_between_fields():
    assert set(ENFORCEMENT_DATE_MEANING) == set(ENFORCEMENT_DETAILS_MEANING) == {1, 2, 3, 4, 5}
    assert ENFORCEMENT_DATE_MEANING[3][1].startswith("date of administrative action")
    assert ENFORCEMENT_DATE_MEANING[4][1] == "date of administrative fine"
    assert ENFORCEMENT_DETAILS_MEANING[3][1].startswith("administrative fine")
    assert ENFORCEMENT_DETAILS_MEANING[4][1].startswith("administrative action")
    assert label("enforcement_date", "3") == ENFORCEMENT_DATE_MEANING[3][1]
    assert label("enforcement_details", 3, "th") == ENFORCEMENT_DETAILS_MEANING[3][0]
    assert label("enforcement_details", 6) is None


# --- properties --------------------------------------------------------------------------------

loose_values = st.one_of(
    st.none(),
    st.text(max_size=40),
    st.sampled_from(["-", "", " ", "null", "0000-00-00", "RS8+", "903", "1,234.5", "2568-07-02", "02/07/2025",
                     "2025-07-01 00:00:00.0000000", "ค่าธรรมเนียม (Fee)", "0.25 - 1.00", "4pyh4Liy4Liq4Lix4LiU4Li1"]),
)


@st.composite
def raw_records(draw):
    kind = draw(st.sampled_from(RECORD_KINDS))
    fields = SPEC_FIELDS[kind] + ("invest_country_flag", "last_updated", "extra")
    raw = draw(st.dictionaries(st.sampled_from(fields), loose_values))
    return kind, raw


@given(raw_records(), st.dates())
@settings(max_examples=300, deadline=None)
def test_normalise_record_never_raises(kind_and_raw, today):
    kind, raw = kind_and_raw
    record = normalise_record(kind, raw, today=today)
    assert set(SPEC_FIELDS[kind]) | set(ADDED_FIELDS[kind]) | set(raw) <= set(record)
    json.dumps(record, allow_nan=False)
    frame = records_frame(kind, [record])
    assert len(frame) == 1


@pytest.mark.parametrize("code, total", [("903", True), ("903.00", True), ("0903", True), (903, True), (" 903 ", True),
                                         ("9030", False), ("93", False), ("-", False), (None, False)])
def test_nav_total_line_is_recognised_in_any_numeric_form(code, total):
    assert normalise_record("holding", {"assetliab_id": code, "percent_nav": "100"})["is_nav_total"] is total

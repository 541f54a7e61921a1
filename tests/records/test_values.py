"""Value normalisers: example tables from real responses, and properties over arbitrary input."""

from __future__ import annotations

import base64
import datetime as dt
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.records.values import (
    clean_text,
    decode_base64_text,
    is_placeholder,
    single_number,
    to_iso_date,
    to_iso_datetime,
    to_number,
)


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(),
    st.text(),
    st.text(alphabet="0123456789+-.,eE/: T%", max_size=30),
    st.binary(max_size=20),
    st.lists(st.integers(), max_size=2),
    st.dates(),
    st.datetimes(),
)


# --- is_placeholder ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [None, "", " ", "\t\n", "-", "--", "N/A", "n/a", "null", "NULL", "0000-00-00", "0000-00-00 00:00:00", float("nan")],
)
def test_placeholders(value):
    assert is_placeholder(value)


@pytest.mark.parametrize("value", ["0", 0, "x", "-1", "ไม่มี", "2025-07-02", False])
def test_not_placeholders(value):
    assert not is_placeholder(value)


# --- to_number ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1000", 1000.0),
        ("0.01", 0.01),
        ("1000.00", 1000.0),
        ("1,234.5", 1234.5),
        ("1,234,567", 1234567.0),
        (" 1.605 ", 1.605),
        ("-0.5", -0.5),
        ("+2", 2.0),
        (".5", 0.5),
        ("1e3", 1000.0),
        ("๑๐๐", 100.0),
        (1000, 1000),
        (0.25, 0.25),
        (None, None),
        ("", None),
        (" ", None),
        ("-", None),
        ("N/A", None),
        ("null", None),
        ("abc", None),
        ("1.5%", None),
        ("1,23", None),
        ("1.2.3", None),
        ("+", None),
        (".", None),
        ("e5", None),
        ("nan", None),
        ("inf", None),
        ("1e999", None),
        (float("nan"), None),
        (float("inf"), None),
        (True, None),
        (False, None),
        ([1], None),
    ],
)
def test_to_number(value, expected):
    result = to_number(value)
    assert result == expected
    if isinstance(value, str) and expected is not None:
        assert isinstance(result, float)


def test_to_number_keeps_json_ints():
    assert type(to_number(7)) is int


# --- single_number -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.605", 1.605),
        ("ไม่เกิน 1.50", 1.5),
        ("1.50 % ต่อปี", 1.5),
        ("ไม่เกินร้อยละ 2.14 ของ NAV", 2.14),
        ("1,070.00", 1070.0),
        ("1,070.00 บาท", 1070.0),
        ("-0.5%", -0.5),
        ("0.25 - 1.00", None),
        ("0.25-1.00", None),
        ("1.00 (รวม VAT 7%)", None),
        ("ยกเว้น", None),
        ("ไม่เรียกเก็บ", None),
        ("", None),
        ("-", None),
        (None, None),
        (1.5, 1.5),
        (2, 2.0),
        (True, None),
    ],
)
def test_single_number(text, expected):
    assert single_number(text) == expected


# --- to_iso_date -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-07-02", "2025-07-02"),
        ("2025-07-02T06:47:30.35", "2025-07-02"),
        ("2025-11-15T16:11:03.813", "2025-11-15"),
        ("2025-07-01 00:00:00.0000000", "2025-07-01"),
        ("02/07/2025", "2025-07-02"),
        ("2/7/2025", "2025-07-02"),
        ("2568-07-02", "2025-07-02"),
        ("02/07/2568", "2025-07-02"),
        ("30 มิ.ย. 2568", "2025-06-30"),
        ("30 มิถุนายน 2568", "2025-06-30"),
        ("2 Jul 2025", "2025-07-02"),
        ("20250702", "2025-07-02"),
        (" 2025-07-02 ", "2025-07-02"),
        (dt.date(2025, 7, 2), "2025-07-02"),
        (dt.datetime(2025, 7, 2, 6, 47), "2025-07-02"),
        ("2025-02-30", None),
        ("2024-02-29", "2024-02-29"),
        ("2025-13-01", None),
        ("0000-00-00", None),
        ("0000-00-00 00:00:00", None),
        ("2025-07-02T25:00:00", None),
        ("2025-07-02 and more", None),
        ("30 Foo 2025", None),
        ("-", None),
        ("", None),
        (None, None),
        (20250702, None),
    ],
)
def test_to_iso_date(value, expected):
    assert to_iso_date(value) == expected


# --- to_iso_datetime ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-07-02T06:47:30.35", "2025-07-02T06:47:30.350000"),
        ("2025-07-04T08:10:00.54", "2025-07-04T08:10:00.540000"),
        ("2025-11-15T16:11:03.813", "2025-11-15T16:11:03.813000"),
        ("2025-11-15T16:11:03", "2025-11-15T16:11:03"),
        ("2025-11-15T16:11", "2025-11-15T16:11:00"),
        ("2025-07-01 00:00:00.0000000", "2025-07-01T00:00:00.000000"),
        ("2025-07-01T12:00:00.123456789", "2025-07-01T12:00:00.123456"),
        ("2025-07-02", "2025-07-02T00:00:00"),
        ("2568-07-02T06:47:30", "2025-07-02T06:47:30"),
        ("02/07/2025 06:47:30", "2025-07-02T06:47:30"),
        (dt.datetime(2025, 7, 2, 6, 47, 30, 350000), "2025-07-02T06:47:30.350000"),
        ("2025-07-02T24:00:00", None),
        ("2025-02-30T00:00:00", None),
        ("yesterday", None),
        ("0000-00-00", None),
        (None, None),
    ],
)
def test_to_iso_datetime(value, expected):
    assert to_iso_datetime(value) == expected


# --- decode_base64_text ------------------------------------------------------------------------

SUITABLE = "ผู้ลงทุนที่ต้องการกระจายการลงทุนไปยังต่างประเทศ"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (b64(SUITABLE), SUITABLE),
        (b64(SUITABLE).rstrip("="), SUITABLE),  # padding missing
        (" " + b64(SUITABLE)[:8] + "\n" + b64(SUITABLE)[8:] + " ", SUITABLE),  # whitespace inside
        (b64("ผู้ลงทุนnที่รับความเสี่ยงได้"), "ผู้ลงทุน\nที่รับความเสี่ยงได้"),  # stray n between Thai
        (b64("1. ลงทุนระยะยาวn2. รับความเสี่ยงได้"), "1. ลงทุนระยะยาว\n2. รับความเสี่ยงได้"),
        (b64("ข้อความ.nข้อความ"), "ข้อความ.\nข้อความ"),
        (b64("ย่อหน้าnnย่อหน้า"), "ย่อหน้า\n\nย่อหน้า"),
        (b64("ลงทุนใน Fund and Bond"), "ลงทุนใน Fund and Bond"),  # n inside Latin words stays
        (b64("กองทุน n ตราสารหนี้"), "กองทุน \n ตราสารหนี้"),
        (b64("บรรทัดแรก\\nบรรทัดสอง"), "บรรทัดแรก\nบรรทัดสอง"),  # a literal backslash-n
        (b64("ข้อความท้าย  \n\n"), "ข้อความท้าย"),
        (b64("n"), "n"),
        (base64.urlsafe_b64encode("ข้อ ๑ ~~~>>>???".encode()).decode(), "ข้อ ๑ ~~~>>>???"),
        ("", None),
        (" ", None),
        ("-", None),
        (None, None),
        (b64("   "), None),
    ],
)
def test_decode_base64_text(value, expected):
    assert decode_base64_text(value, field="fund_suitable_desc") == expected


@pytest.mark.parametrize(
    "value",
    [
        "ไม่ใช่ base64",  # Thai text sent as is
        "abc!def",
        "A",  # one character cannot be Base64
        "AAAAA",
        base64.b64encode(b"\xff\xfe\xfd").decode(),  # Base64, but not UTF-8
        "QUJD=QUJD",  # padding in the middle
        123,
    ],
)
def test_invalid_base64_gives_none_and_names_the_field(value, caplog):
    with caplog.at_level(logging.WARNING, logger="dashboard.records"):
        assert decode_base64_text(value, field="important_notice") is None
    assert any("important_notice" in r.getMessage() for r in caplog.records)
    if isinstance(value, str) and len(value) > 3:
        assert all(value not in r.getMessage() for r in caplog.records)


def test_placeholder_base64_does_not_warn(caplog):
    with caplog.at_level(logging.WARNING, logger="dashboard.records"):
        assert decode_base64_text("-", field="important_notice") is None
        assert decode_base64_text("", field="important_notice") is None
    assert not caplog.records


# --- clean_text --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("  กองทุนเปิด เค  ", "กองทุนเปิด เค"),
        ("ONE-UGG-ASSF", "ONE-UGG-ASSF"),
        ("\u200bข้อความ\u200b", "ข้อความ"),
        ("-", None),
        (" ", None),
        ("", None),
        ("null", None),
        ("0000-00-00", None),
        (None, None),
        (1, "1"),
        (1.5, "1.5"),
        (float("nan"), None),
        (True, None),
        ({"a": 1}, None),
    ],
)
def test_clean_text(value, expected):
    assert clean_text(value) == expected


# --- properties --------------------------------------------------------------------------------


@given(anything)
def test_normalisers_never_raise(value):
    assert to_number(value) is None or isinstance(to_number(value), (int, float))
    assert single_number(value) is None or isinstance(single_number(value), float)
    assert to_iso_date(value) is None or len(to_iso_date(value)) == 10
    assert to_iso_datetime(value) is None or to_iso_datetime(value)[10] == "T"
    assert decode_base64_text(value, field="f") is None or isinstance(decode_base64_text(value), str)
    assert clean_text(value) is None or isinstance(clean_text(value), str)
    assert isinstance(is_placeholder(value), bool)


@given(st.text(alphabet=st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n")))
def test_base64_alphabet_text_never_raises(value):
    result = decode_base64_text(value, field="f")
    assert result is None or isinstance(result, str)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_formatted_float_reads_back(x):
    assert to_number(repr(x)) == x
    assert to_number(str(x)) == x
    assert to_number(format(x, ",")) == x
    assert to_number(f" {x!r} ") == x


@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: "e" not in repr(x)))
def test_single_number_finds_a_float_among_words(x):
    assert single_number(f"ไม่เกิน {x!r} % ต่อปี") == x


# Gregorian years up to 2400 stay as they are; Buddhist-era years (> 2400) are Gregorian 1858 and later.
service_dates = st.dates(min_value=dt.date(1858, 1, 1), max_value=dt.date(2400, 12, 31))


@given(service_dates)
def test_date_round_trips_in_every_calendar_and_layout(day):
    iso = day.isoformat()
    buddhist = day.year + 543
    assert to_iso_date(iso) == iso
    assert to_iso_date(f"{buddhist:04d}-{day.month:02d}-{day.day:02d}") == iso
    assert to_iso_date(f"{day.day:02d}/{day.month:02d}/{day.year:04d}") == iso
    assert to_iso_date(f"{day.day:02d}/{day.month:02d}/{buddhist:04d}") == iso
    assert to_iso_date(f"{iso}T06:47:30.35") == iso
    assert to_iso_datetime(iso) == f"{iso}T00:00:00"


@given(st.datetimes(min_value=dt.datetime(1858, 1, 1), max_value=dt.datetime(2400, 12, 31, 23, 59, 59)))
def test_datetime_round_trips(moment):
    expected = moment.isoformat(timespec="microseconds" if moment.microsecond else "seconds")
    assert to_iso_datetime(moment.isoformat()) == expected
    assert to_iso_datetime(f"{moment.year + 543:04d}" + moment.isoformat()[4:]) == expected


@given(st.text().filter(lambda t: "n" not in t and "\\" not in t))
@settings(max_examples=200)
def test_base64_of_text_without_n_round_trips(text):
    expected = text.rstrip() or None
    encoded = b64(text)
    assert decode_base64_text(encoded) == expected
    assert decode_base64_text(encoded.rstrip("=")) == expected
    assert decode_base64_text(base64.urlsafe_b64encode(text.encode()).decode()) == expected

"""The one CSV writer: Excel opens it with Thai intact and readable titles."""

import io

import pandas as pd

from dashboard.present.text import csv_bytes, quarter_text


def test_csv_has_a_byte_order_mark_thai_intact_and_titles_not_field_names():
    frame = pd.DataFrame({"proj_abbr_name": ["DEMO-EQ"], "unique_id": ["C0000000104"],
                          "remark": ["ปัจจุบันยกเว้นการเรียกเก็บ"], "last_upd_date": [pd.Timestamp("2026-05-01 10:00")]})
    data = csv_bytes(frame)
    assert data.startswith(b"\xef\xbb\xbf")
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", dtype=str)
    assert list(back.columns) == ["Fund", "Id", "Remark", "Updated"]
    assert back.loc[0, "Remark"] == "ปัจจุบันยกเว้นการเรียกเก็บ"
    assert back.loc[0, "Updated"] == "2026-05-01"


def test_quarters_read_as_quarters():
    assert quarter_text("202606") == "Q2 2026"
    assert quarter_text(202612) == "Q4 2026"
    assert quarter_text("202603") == "Q1 2026"
    assert quarter_text("latest") == "latest"

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
    assert list(back.columns) == ["Fund", "Identifier", "Remark", "Updated"]
    assert back.loc[0, "Remark"] == "ปัจจุบันยกเว้นการเรียกเก็บ"
    assert back.loc[0, "Updated"] == "2026-05-01"


def test_quarters_read_as_quarters():
    assert quarter_text("202606") == "Q2 2026"
    assert quarter_text(202612) == "Q4 2026"
    assert quarter_text("202603") == "Q1 2026"
    assert quarter_text("latest") == "latest"


def test_every_csv_column_has_a_title_for_people_not_its_field_name():
    """The CSV of every table (the command line's kinds, `market screen` and `market holders`, the Market tab's
    results) is titled for people: "Class abbr name", "Total fee actual" were field names with spaces (issue 30)."""
    from dashboard.cli import market
    from dashboard.cli.output import HEADERS, TABLE_COLUMNS
    from dashboard.market.screen import empty_results
    from dashboard.present.text import COLUMN_TITLES

    written = {c: HEADERS.get(c) or COLUMN_TITLES.get(c) for columns in TABLE_COLUMNS.values() for c in columns}
    written.update({c: market.HEADERS.get(c) or COLUMN_TITLES.get(c) for c in (*market.SCREEN_COLUMNS, *market.HOLDER_COLUMNS)})
    untitled = sorted(c for c, title in written.items() if not title)
    assert not untitled, untitled
    tab = pd.read_csv(io.BytesIO(csv_bytes(empty_results())), encoding="utf-8-sig").columns
    assert set(tab) <= set(COLUMN_TITLES.values()), sorted(set(tab) - set(COLUMN_TITLES.values()))
    assert "Unit class" in list(pd.read_csv(io.BytesIO(csv_bytes(pd.DataFrame({"class_abbr_name": ["A"]}))),
                                            encoding="utf-8-sig").columns)


def test_the_market_csv_says_who_may_buy_in_words():
    from dashboard.views.market_notes import retail_text

    assert retail_text("R") == "fund for general investors (R)"
    assert retail_text("Q") == "Q" and retail_text(None) == ""

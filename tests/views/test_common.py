"""View helpers: text stays text, numbers carry units, tables never render cell HTML."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dashboard.views.common import data_source_note, data_table, table_formatters, update_table
from dashboard.present.text import (
    display_frame,
    empty_html,
    esc,
    fmt_amount,
    fmt_baht,
    fmt_date,
    fmt_percent,
    kv_table,
    link,
    safe_url,
)

HOSTILE = "<img src=x onerror=alert(1)>"


def test_esc_escapes_and_keeps_line_breaks():
    assert esc(HOSTILE) == "&lt;img src=x onerror=alert(1)&gt;"
    assert esc('a "b" & c') == "a &quot;b&quot; &amp; c"
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
    assert "<img" not in empty_html(HOSTILE) and 'role="alert"' in empty_html("x", error=True)


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


def test_every_text_column_is_plaintext():
    frame = display_frame(pd.DataFrame({"name": [HOSTILE], "pct": [1.0], "value": [2.0], "n": [3]}))
    formatters = table_formatters(frame, percent=["pct"], baht=["value"])
    assert formatters["name"] == "plaintext"
    assert formatters["pct"].nan_format == "–" and formatters["value"].format == "0,0.00"
    table = data_table(frame, titles={"pct": "Share", "value": "Value"}, percent=["pct"], baht=["value"])
    assert table.titles["pct"] == "Share (%)" and table.titles["value"] == "Value (baht)"
    assert table.titles["name"] == "name"  # untitled columns get their (escaped) name
    assert table.formatters["name"] == "plaintext" and table.disabled and not table.show_index
    update_table(table, frame.assign(other=["<b>x</b>"]))
    assert table.formatters["other"] == "plaintext"


def test_data_source_note():
    from dashboard.config import ApiSettings

    assert "DEMO DATA — fictional funds and companies" in data_source_note(ApiSettings.from_env(demo=True, environ={})).object
    live = data_source_note(ApiSettings.from_env(base_url="https://api.example.test", api_key="secret-key", environ={}))
    assert "Data: https://api.example.test" in live.object and "secret-key" not in live.object


def test_risk_spectrum_stacks_funds_of_one_level():
    import holoviews as hv

    from dashboard.present.charts import risk_spectrum_chart

    risk = pd.DataFrame({"fund": list("ABCD"), "proj_id": list("ABCD"), "name_en": ["x"] * 4, "risk_level": ["6"] * 4,
                         "risk_rank": [6.0, 6.0, 6.0, 2.0], "risk_spectrum": ["RS6"] * 3 + ["RS2"]})
    plot = hv.render(risk_spectrum_chart(risk))
    assert isinstance(plot.height, int) and plot.height >= 370


def test_table_titles_are_escaped_even_for_columns_named_by_the_service():
    import pandas as pd

    from dashboard.views.common import data_table, update_table

    hostile = "<img src=x onerror=alert(1)>"
    table = data_table(pd.DataFrame({"fund": ["A"], hostile: [1.0]}), titles={"fund": "Fund & class"})
    assert table.titles[hostile] == "&lt;img src=x onerror=alert(1)&gt;"
    assert table.titles["fund"] == "Fund &amp; class"
    update_table(table, pd.DataFrame({"fund": ["B"], "<b>1 year</b>": [2.0]}))
    assert table.titles["<b>1 year</b>"] == "&lt;b&gt;1 year&lt;/b&gt;"
    assert all("<" not in t for t in table.titles.values())

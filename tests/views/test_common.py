"""View helpers: tables never render cell HTML and keep their number formats; the data-source note."""

from __future__ import annotations

import pandas as pd

from dashboard.demo.pools import DEMO_LABEL
from dashboard.present.text import display_frame
from dashboard.views.common import TableSlot, data_source_note, data_table, table_formatters

HOSTILE = "<img src=x onerror=alert(1)>"


def test_every_text_column_is_plaintext():
    frame = display_frame(pd.DataFrame({"name": [HOSTILE], "pct": [1.0], "value": [2.0], "n": [3]}))
    formatters = table_formatters(frame, percent=["pct"], baht=["value"])
    assert formatters["name"] == "plaintext"
    assert formatters["pct"].nan_format == "–" and formatters["value"].format == "0,0.00"
    table = data_table(frame, titles={"pct": "Share", "value": "Value"}, percent=["pct"], baht=["value"])
    assert table.titles["pct"] == "Share (%)" and table.titles["value"] == "Value (baht)"
    assert table.titles["name"] == "Name"  # a column the view does not title gets the product's title for it
    assert table.formatters["name"] == "plaintext" and table.disabled and not table.show_index
    slot = TableSlot(titles={"pct": "Share"}, percent=["pct"])
    slot.show(frame.assign(other=["<b>x</b>"]))
    assert slot.formatters["other"] == "plaintext" and slot.titles["pct"] == "Share (%)"


def test_data_source_note():
    from dashboard.config import ApiSettings

    demo = ApiSettings.from_env(demo=True, environ={})
    assert "DEMO DATA — fictional funds and companies" in data_source_note(demo, banner=DEMO_LABEL).object
    live = data_source_note(ApiSettings.from_env(base_url="https://api.example.test", api_key="secret-key", environ={}))
    assert "Data: https://api.example.test" in live.object and "secret-key" not in live.object


def test_table_titles_are_escaped_even_for_columns_named_by_the_service():
    hostile = "<img src=x onerror=alert(1)>"
    table = data_table(pd.DataFrame({"fund": ["A"], hostile: [1.0]}), titles={"fund": "Fund & class"})
    assert table.titles[hostile] == "&lt;img src=x onerror=alert(1)&gt;"
    assert table.titles["fund"] == "Fund &amp; class"
    slot = TableSlot(titles={"fund": "Fund & class"})
    slot.show(pd.DataFrame({"fund": ["B"], "<b>1 year</b>": [2.0]}))
    assert slot.titles["<b>1 year</b>"] == "&lt;b&gt;1 year&lt;/b&gt;"
    assert all("<" not in t for t in slot.titles.values())


def test_a_text_box_is_its_parameter_and_enter_runs_with_the_text_as_typed():
    import param

    from dashboard.views.common import text_box

    class Lookup(param.Parameterized):
        query = param.String(default="first", doc="What to look up.")

    model, seen = Lookup(), []
    box = text_box(model.param.query, lambda: seen.append(model.query), label="Name")
    assert box.value == "first" and box.label == "Name"
    model.query = "second"
    assert box.value == "second"  # the box shows the parameter
    box.value_input = "typed"  # the browser sends Enter before it commits the text
    box.param.trigger("enter_pressed")
    assert model.query == "typed" and seen == ["typed"]


def test_a_slot_replaces_its_table_and_never_changes_the_one_shown():
    """A new frame (or selection) is a new table, made with its rows; the same frame changes nothing."""
    picked = []
    slot = TableSlot(selectable=1, on_select=picked.append, hide_empty=True)
    slot.show(pd.DataFrame({"proj_id": [], "name": []}))
    assert slot.table is None and slot.__panel__().objects == []  # hidden while empty
    slot.show(pd.DataFrame({"proj_id": ["A", "B"], "name": ["a", "b"]}), selection=[1])
    first = slot.table
    assert first.value["proj_id"].tolist() == ["A", "B"] and first.selection == [1]
    slot.show(pd.DataFrame({"proj_id": ["A", "B"], "name": ["a", "b"]}), selection=[1])
    assert slot.table is first  # the same rows: nothing made anew
    slot.show(pd.DataFrame({"proj_id": ["C", "B"], "name": ["c", "b"]}), selection=[0])
    assert slot.table is not first and slot.__panel__().objects == [slot.table]
    assert first.value["proj_id"].tolist() == ["A", "B"] and first.selection == [1]  # never patched
    assert slot.table.value["proj_id"].tolist() == ["C", "B"] and slot.selection == [0]
    slot.selection = [1]  # as a click in the browser
    assert picked == [[1]] and slot.table.selection == [1]


def test_a_held_slot_makes_one_table_with_the_last_frame_when_released():
    slot = TableSlot(selectable=1)
    slot.show(pd.DataFrame({"proj_id": ["A"]}))
    shown = slot.table
    slot.hold()
    slot.show(pd.DataFrame({"proj_id": ["B"]}))
    slot.show(pd.DataFrame({"proj_id": ["C", "D"]}), selection=[1])
    assert slot.table is shown and slot.__panel__().objects == [shown]  # nothing made while held
    assert slot.value["proj_id"].tolist() == ["C", "D"]  # what is to be shown
    slot.release()
    assert slot.table is not shown and slot.table.value["proj_id"].tolist() == ["C", "D"] and slot.selection == [1]
    assert shown.value["proj_id"].tolist() == ["A"]  # never patched
    made = slot.table
    slot.hold()
    slot.release()  # nothing asked meanwhile: nothing made
    assert slot.table is made

"""The report templates: every block kind draws service text as text (autoescape on), never as markup."""

from __future__ import annotations

import html

import pytest

from dashboard.reports.blocks import (Card, Caution, Column, Heading, Link, Note, TextBlock, key_values, table,
                                      text_block)
from dashboard.reports.document import ChartSlot, environment

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & \'q\''


def draw(block, divs=()) -> str:
    return str(environment().get_template("blocks.html.j2").module.block(block, divs))


def test_the_engine_escapes_with_autoescape_on():
    env = environment()
    assert env.autoescape is True
    assert env.from_string("{{ v }}").render(v=HOSTILE) == html.escape(HOSTILE)


@pytest.mark.parametrize("block", [
    Note(HOSTILE), Caution(HOSTILE), Heading(HOSTILE), text_block(HOSTILE),
    key_values([("label", HOSTILE), ("link", Link(HOSTILE, HOSTILE)), ("code", Link(HOSTILE))], caption=HOSTILE),
    table([{"a": HOSTILE}], [Column(HOSTILE, "a")], caption=HOSTILE, css_id="t"),
    Card("enforcement", HOSTILE, HOSTILE, [(HOSTILE, HOSTILE)], HOSTILE),
])
def test_every_block_kind_shows_service_text_as_text(block):
    drawn = draw(block)
    assert "<script" not in drawn and "<img" not in drawn
    assert html.escape(HOSTILE) in drawn


def test_a_missing_text_is_a_note_and_an_empty_table_says_so():
    assert draw(text_block(None, "not published")) == '<p class="note">not published</p>'
    assert draw(TextBlock(None)) == '<p class="note">not published</p>'
    assert draw(table([], [Column("A", "a")], empty="No rows here.")) == '<p class="note">No rows here.</p>'


def test_links_only_where_an_address_is_given_and_chart_divs_as_bokeh_made_them():
    drawn = draw(key_values([("a", Link("https://example.org/x", "https://example.org/x")), ("b", Link("ftp://x"))]))
    assert '<a href="https://example.org/x" rel="noopener noreferrer nofollow">https://example.org/x</a>' in drawn
    assert "<code>ftp://x</code>" in drawn
    assert draw(ChartSlot(0, "A <chart>"), ['<div id="bokeh-1"></div>']) == \
        '<div class="chart" role="figure" aria-label="A &lt;chart&gt;"><div id="bokeh-1"></div></div>'

"""The NAV charts and the basket's figures table: breaks stay breaks, distributions sit on the line, one window."""

from __future__ import annotations

from datetime import date

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

from dashboard.models.nav_figures import Gap, figures_since, gaps, rebase
from dashboard.present import nav_charts
from dashboard.present.nav_compare import COMMON_FIGURES, common_figures_frame, common_figures_notes


def nav_frame(days: list[str], navs: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"nav_date": pd.to_datetime(days), "nav": navs, "offer": np.nan, "bid": np.nan,
                         "net_asset": [1e9] * len(days)})


def business_days(start: str, periods: int) -> list[str]:
    return [d.strftime("%Y-%m-%d") for d in pd.bdate_range(start, periods=periods)]


# 30 business days, then nothing for three weeks (an outage), then 30 more.
DAYS = business_days("2024-01-01", 30) + business_days("2024-03-01", 30)
NAV = nav_frame(DAYS, list(np.linspace(10.0, 12.0, 60)))


def curves(element) -> list[hv.Curve]:
    return [layer for layer in element if isinstance(layer, hv.Curve)]


def test_a_gap_is_a_break_in_the_line_never_joined():
    data = nav_charts.broken_at_gaps(NAV)
    assert len(data) == len(NAV) + 1
    blank = data[data["nav"].isna()]
    assert len(blank) == 1 and blank["nav_date"].iloc[0] == pd.Timestamp(DAYS[29]) + pd.Timedelta(days=1)
    # Days a week apart or closer (weekends, a long weekend) are joined.
    assert len(nav_charts.broken_at_gaps(NAV.iloc[:30])) == 30


def test_the_nav_chart_breaks_shades_and_marks_distributions():
    dividends = pd.DataFrame({"ex_date": pd.to_datetime(["2024-01-15", "2025-06-01"]),
                              "pay_date": pd.to_datetime(["2024-01-30", None]), "per_unit": [0.25, 0.3]})
    found = gaps(NAV, "daily")
    chart = nav_charts.nav_chart(NAV, dividends, gaps=found)
    line = curves(chart)[0]
    assert line.dimension_values("nav").size == 61 and np.isnan(line.dimension_values("nav")).sum() == 1
    spans = [layer for layer in chart if isinstance(layer, hv.VSpan)]
    assert len(spans) == len(found) == 1
    marks = next(layer for layer in chart if isinstance(layer, hv.Scatter)).dframe()
    # Only the distribution inside the NAV's dates, drawn at that day's NAV.
    assert list(marks["per_unit"]) == [0.25]
    assert marks["nav"].iloc[0] == NAV.set_index("nav_date").loc["2024-01-15", "nav"]
    assert len(curves(chart)) == 1  # no offer or bid line when none is published
    hv.render(nav_charts.nav_with_drawdown(chart, nav_charts.drawdown_chart(pd.Series([0.0, -1.0], index=NAV["nav_date"][:2]))))


def test_offer_and_bid_are_drawn_where_published():
    nav = NAV.assign(offer=NAV["nav"] * 1.01, bid=NAV["nav"] * 0.99)
    assert [c.label for c in curves(nav_charts.nav_chart(nav))] == ["NAV", "Offer price", "Bid price"]


def test_empty_ranges_say_so():
    for element in (nav_charts.nav_chart(NAV.iloc[0:0]), nav_charts.drawdown_chart(pd.Series(dtype=float)),
                    nav_charts.rebased_chart(pd.DataFrame(), None)):
        assert isinstance(element, hv.Text)


def test_the_rebased_chart_starts_every_fund_at_100_on_the_common_start():
    later = nav_frame(DAYS[5:], list(np.linspace(20.0, 18.0, 55)))
    start, frame = rebase({"A": NAV, "B": later})
    assert start == date(2024, 1, 8)
    chart = nav_charts.rebased_chart(frame, start, names={"A": "Fund A", "B": "Fund B"})
    lines = curves(chart)
    assert [c.label for c in lines] == ["Fund A", "Fund B"]
    assert [c.dimension_values("value")[0] for c in lines] == pytest.approx([100.0, 100.0])
    assert all(np.isnan(c.dimension_values("value")).sum() == 1 for c in lines)  # the outage stays a break
    assert chart.opts.get().kwargs["title"] == "Rebased to 100 on 8 Jan 2024"


def test_the_basket_table_measures_every_fund_from_the_common_start():
    later = nav_frame(DAYS[5:], list(np.linspace(20.0, 18.0, 55)))
    start, _ = rebase({"A": NAV, "B": later})
    figures = {name: figures_since(frame, start=start) for name, frame in (("A", NAV), ("B", later))}
    table = common_figures_frame(figures, {"A": "Fund A"})
    assert list(table["Fund"]) == ["Fund A", "B"] and set(table["From"]) == {"2024-01-08"}
    a = NAV.set_index("nav_date")["nav"]
    assert table.loc[0, "Return"] == 100 * (a.iloc[-1] / a.loc["2024-01-08"] - 1)
    assert list(table.columns[1:-2]) == [title for _, title in COMMON_FIGURES]
    # Under a year: no annualised return, and the note says why (never a figure from too little data).
    assert table["A year"].isna().all()
    assert any("Fund A, return, since the common start (a year): " in note for note in common_figures_notes(figures, {"A": "Fund A"}))


def test_a_gap_has_one_length_in_every_output():
    # Issue 38: the command line said 14 days, the NAV tab 13 days without a NAV. One length: the days from
    # the NAV before the gap to the NAV after it (`Gap.days`, what the 7-day rule compares), one wording.
    gap = Gap(date(2024, 2, 7), date(2024, 2, 21), 14)
    assert nav_charts.gap_text(gap) == "7 Feb 2024 to 21 Feb 2024: 14 days between two NAVs"
    from dashboard.present.nav import gap_text
    assert gap_text(gap) == nav_charts.gap_text(gap)

"""Charts drawn the same for the screen and the reports."""

from __future__ import annotations

import holoviews as hv
import pandas as pd

from dashboard.present.charts import risk_spectrum_chart


def test_risk_spectrum_stacks_funds_of_one_level():
    risk = pd.DataFrame({"fund": list("ABCD"), "proj_id": list("ABCD"), "name_en": ["x"] * 4, "risk_level": ["6"] * 4,
                         "risk_rank": [6.0, 6.0, 6.0, 2.0], "risk_spectrum": ["RS6"] * 3 + ["RS2"]})
    plot = hv.render(risk_spectrum_chart(risk))
    assert isinstance(plot.height, int) and plot.height >= 370


def test_licence_timeline_draws_open_approvals_to_today_and_says_when_nothing_is_dated():
    from dashboard.present.charts import licence_timeline
    from dashboard.records import APPROVAL_NO_EXPIRY

    today = pd.Timestamp("2026-11-23")
    approvals = pd.DataFrame({"effective_date": pd.to_datetime(["2020-01-01", "2022-05-01"]),
                              "expire_date": pd.to_datetime(["2023-01-01", None]),
                              "approval_state": ["expired", APPROVAL_NO_EXPIRY], "lic_code": ["IP", "IC"]})
    duties = pd.DataFrame({"action_start_date": pd.to_datetime(["2021-03-01"]), "action_end_date": pd.to_datetime([None]),
                           "lic_action_code": ["MD"], "company_unique_id": ["C0000000101"]})
    chart = licence_timeline(approvals, duties, today)
    segments = chart.get(0).dframe()
    assert list(segments["kind"]) == ["approval", "approval (no expiry)", "duty"]
    assert list(segments["to"]) == ["2023-01-01", "no expiry", "still serving"]
    assert (segments["end"].iloc[1], segments["end"].iloc[2]) == (today, today)
    empty = licence_timeline(approvals.iloc[0:0], duties.iloc[0:0], today)
    assert isinstance(empty, hv.Text)


# A fund that publishes a negative line (net liabilities): the shares add to 100 % only with it.
SIGNED_SHARES = pd.DataFrame({"asset_seq": [1, 2, 3, 4],
                              "asset_name": ["Shares", "Debentures", "Units of property funds", "Other assets and liabilities"],
                              "asset_ratio": [60.50, 25.25, 15.31, -1.06]})


def test_allocation_with_a_negative_share_is_drawn_as_signed_bars_not_a_ring():
    from dashboard.present.charts import allocation_caption, allocation_chart

    chart = allocation_chart(SIGNED_SHARES, title="t")
    assert isinstance(chart, hv.Bars) and not isinstance(chart, hv.Donut)
    drawn = dict(zip(chart.dframe()["asset_name"], chart.dframe()["asset_ratio"]))
    assert drawn == dict(zip(SIGNED_SHARES["asset_name"], SIGNED_SHARES["asset_ratio"]))
    from bokeh.models import AnnularWedge

    assert hv.render(chart).select_one({"type": AnnularWedge}) is None
    caption = allocation_caption(SIGNED_SHARES)
    assert "add up to 100.00 %" in caption and "Other assets and liabilities -1.06 %" in caption and "bars" in caption


def test_allocation_past_100_percent_is_bars_and_a_whole_is_a_ring():
    from dashboard.present.charts import allocation_caption, allocation_chart

    over = SIGNED_SHARES.iloc[:3]  # 101.06 %: past rounding
    assert isinstance(allocation_chart(over), hv.Bars)
    assert "101.06 %" in allocation_caption(over) and "Below zero" not in allocation_caption(over)
    whole = SIGNED_SHARES.assign(asset_ratio=[60.0, 25.0, 14.95, 0.1])  # 100.05 %: rounding still a whole
    ring = allocation_chart(whole)
    assert isinstance(ring, hv.Donut) and "bars" not in allocation_caption(whole)
    assert sorted(ring.dframe()["asset_ratio"]) == sorted(whole["asset_ratio"])

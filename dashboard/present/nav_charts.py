"""NAV history charts: one class's NAV with its distributions and a linked drawdown, and a basket rebased to 100.

Shared by the dashboard, the notebook and the reports, like `present.charts`. Every function takes
the frames of notes/nav-interface.md (nav: nav_date, nav, offer, bid, net_asset; distributions:
ex_date, pay_date, per_unit) and returns one HoloViews element. A break in a series (a market-wide
outage, a weekly fund's week) is drawn as a break: a missing row is inserted where the dates jump,
so the line stops and starts again; nothing is ever interpolated across it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import holoviews as hv
import pandas as pd

from dashboard.models.nav_windows import GAP_DAYS
from dashboard.present.charts import SERIES_COLORS, empty_chart
from dashboard.present.nav import gap_text as nav_gap_text

NAV_HEIGHT = 300
DRAWDOWN_HEIGHT = 190
REBASED_HEIGHT = 320
NAV_COLOR = "#3b6ea5"
OFFER_COLOR = "#59a14f"
BID_COLOR = "#e15759"
DISTRIBUTION_COLOR = "#b07aa1"
GAP_COLOR = "#bab0ac"
DRAWDOWN_COLOR = "#d62728"
# Responsive in width, fixed in height, like present.charts; the wheel zooms nothing (the page
# scrolls), hover says what a point is. The NAV and drawdown pair has a small toolbar (zoom into
# dates, reset): its axes are linked, so both follow. The basket's chart has none (a phone has no room).
_COMMON = dict(responsive=True, default_tools=[], min_width=280)
DATE = hv.Dimension("nav_date", label="Date")
ZOOM_TOOLS = ["xbox_zoom", "reset"]
# A few date ticks ("Mar 2026"), so they never run into each other on a phone.
DATE_TICKS = 4


def _date_axis():
    from bokeh.models import DatetimeTickFormatter

    return DatetimeTickFormatter(days="%d %b", months="%b %Y", years="%Y")


def _few_date_ticks(plot, element) -> None:
    """Ask Bokeh's date ticker for a few ticks (its default, about six, crowds a phone's axis)."""
    for axis in plot.state.xaxis:
        ticker = getattr(axis, "ticker", None)
        if ticker is not None and hasattr(ticker, "desired_num_ticks"):
            ticker.desired_num_ticks = DATE_TICKS


def _layer_opts() -> list:
    """No default tools on any layer (each would add its own to the toolbar)."""
    return [getattr(hv.opts, kind)(default_tools=[]) for kind in ("Curve", "Scatter", "Area", "VSpan", "HLine")]


def broken_at_gaps(frame: pd.DataFrame, column: str = "nav_date", limit_days: int = GAP_DAYS["daily"]) -> pd.DataFrame:
    """The frame with an empty row (every value missing) one day after each jump of more than
    `limit_days` days in `column`: a line drawn through it stops there and starts again after."""
    if frame.empty:
        return frame
    dates = pd.to_datetime(frame[column])
    jumps = dates.diff().dt.days > limit_days
    if not jumps.any():
        return frame.reset_index(drop=True)
    blanks = pd.DataFrame({column: dates.shift(1)[jumps] + pd.Timedelta(days=1)})
    return (pd.concat([frame, blanks], ignore_index=True).sort_values(column, kind="stable")
            .reset_index(drop=True))


def _limit(frequency: str) -> int:
    return GAP_DAYS.get(frequency, GAP_DAYS["daily"])


def _gap_spans(gaps: Iterable) -> list[hv.VSpan]:
    """A light band over each gap (its last NAV before to its first after), so a break is seen as a break."""
    return [hv.VSpan(pd.Timestamp(g.start), pd.Timestamp(g.end)).opts(color=GAP_COLOR, alpha=0.18, line_alpha=0)
            for g in gaps]


def nav_chart(nav: pd.DataFrame | None, distributions: pd.DataFrame | None = None, *, gaps: Iterable = (),
              frequency: str = "daily", title: str = "", height: int = NAV_HEIGHT) -> hv.Element:
    """NAV per unit over time, the offer and bid prices where published, fund size on hover, each
    distribution marked at its ex (XD) date, and each gap shaded and left unjoined."""
    if nav is None or nav.empty:
        return empty_chart("No NAV in this range", height=height)
    data = nav[["nav_date", "nav", "offer", "bid", "net_asset"]].copy()
    data["size_m"] = data["net_asset"] / 1e6
    data = broken_at_gaps(data, limit_days=_limit(frequency))
    hover = [hv.Dimension("offer", label="Offer price (you buy at)"), hv.Dimension("bid", label="Bid price (you sell at)"),
             hv.Dimension("size_m", label="Fund size (million baht)")]
    layers = [*_gap_spans(gaps)]
    layers.append(hv.Curve(data, DATE, [hv.Dimension("nav", label="NAV (baht per unit)"), *hover], label="NAV").opts(
        color=NAV_COLOR, line_width=2, tools=["hover", *ZOOM_TOOLS]))
    for column, label, color in (("offer", "Offer price", OFFER_COLOR), ("bid", "Bid price", BID_COLOR)):
        if data[column].notna().any():
            layers.append(hv.Curve(data, DATE, hv.Dimension(column, label="NAV (baht per unit)"), label=label).opts(
                color=color, line_width=1, line_dash="dashed"))
    marks = distribution_points(nav, distributions)
    if not marks.empty:
        layers.append(hv.Scatter(marks, DATE, [hv.Dimension("nav", label="NAV (baht per unit)"),
                                               hv.Dimension("per_unit", label="Distribution (baht per unit)"),
                                               hv.Dimension("paid", label="Paid on")],
                                 label="Distribution (XD date)").opts(
            color=DISTRIBUTION_COLOR, marker="triangle", size=11, tools=["hover"]))
    return hv.Overlay(layers).opts(
        *_layer_opts(),
        hv.opts.Overlay(height=height, title=title, legend_position="top", legend_cols=2, show_legend=True, padding=(0, 0.05),
                        hooks=[_few_date_ticks], xformatter=_date_axis(), **_COMMON),
        hv.opts.Curve(ylabel="NAV (baht per unit)", xlabel=""))


def distribution_points(nav: pd.DataFrame, distributions: pd.DataFrame | None) -> pd.DataFrame:
    """Where each distribution sits on the NAV line: its ex date and the NAV of that day (or the last NAV
    before it); distributions outside the NAV's dates are left out (nothing to put them on)."""
    columns = ["nav_date", "nav", "per_unit", "paid"]
    if distributions is None or distributions.empty or nav is None or nav.empty:
        return pd.DataFrame(columns=columns)
    series = nav.set_index("nav_date")["nav"].sort_index()
    rows = []
    for row in distributions.itertuples(index=False):
        ex = pd.Timestamp(row.ex_date)
        if ex < series.index[0] or ex > series.index[-1]:
            continue
        paid = "" if pd.isna(row.pay_date) else pd.Timestamp(row.pay_date).strftime("%Y-%m-%d")
        rows.append((ex, float(series.loc[:ex].iloc[-1]), float(row.per_unit), paid))
    return pd.DataFrame(rows, columns=columns)


def drawdown_chart(drawdown: pd.Series | None, *, gaps: Iterable = (), frequency: str = "daily",
                   height: int = DRAWDOWN_HEIGHT) -> hv.Element:
    """The fall from the running peak (percent, 0 at a peak) at each NAV date, under the NAV chart."""
    if drawdown is None or drawdown.empty:
        return empty_chart("No drawdown in this range", height=height)
    data = broken_at_gaps(pd.DataFrame({"nav_date": pd.to_datetime(drawdown.index), "drawdown": drawdown.to_numpy()}),
                          limit_days=_limit(frequency))
    area = hv.Area(data, DATE, hv.Dimension("drawdown", label="Below its peak (%)"), label="Drawdown").opts(
        color=DRAWDOWN_COLOR, alpha=0.35, line_color=DRAWDOWN_COLOR, line_width=1, tools=["hover", *ZOOM_TOOLS])
    return hv.Overlay([*_gap_spans(gaps), area]).opts(
        *_layer_opts(),
        hv.opts.Overlay(height=height, title="Drawdown: how far below its previous peak", show_legend=False, padding=(0, 0.05),
                        hooks=[_few_date_ticks], yticks=4, xformatter=_date_axis(), **_COMMON),
        hv.opts.Area(ylabel="Below peak (%)", xlabel=""))


def nav_with_drawdown(nav_element: hv.Element, drawdown_element: hv.Element) -> hv.Layout:
    """The NAV chart over the drawdown chart, their date axes linked (zoom one, the other follows)."""
    return (nav_element + drawdown_element).cols(1).opts(shared_axes=True, toolbar="above", merge_tools=True)


def rebased_chart(rebased: pd.DataFrame | None, start: date | None, *, names: dict[str, str] | None = None,
                  height: int = REBASED_HEIGHT) -> hv.Element:
    """Several classes' NAVs rebased to 100 on their common start (the frame of `nav_figures.rebase`:
    indexed by nav_date, a column per series); each line broken where its own dates jump."""
    if rebased is None or rebased.empty or start is None:
        return empty_chart("No day on which every fund has a NAV: nothing to compare", height=height)
    names = names or {}
    layers = [hv.HLine(100).opts(color="#999999", line_width=1, line_dash="dotted")]
    for i, column in enumerate(rebased.columns):
        series = rebased[column].dropna()
        data = broken_at_gaps(pd.DataFrame({"nav_date": series.index, "value": series.to_numpy()}))
        label = names.get(column, str(column))
        layers.append(hv.Curve(data, DATE, hv.Dimension("value", label="Value of 100 invested"), label=label).opts(
            color=SERIES_COLORS[i % len(SERIES_COLORS)], line_width=2, tools=["hover"]))
    title = f"Rebased to 100 on {start.day} {start:%b %Y}"  # the first day all have a NAV (the page says so)
    return hv.Overlay(layers).opts(
        *_layer_opts(),
        hv.opts.Overlay(height=height, title=title, legend_position="bottom", legend_cols=2, show_legend=True, padding=(0, 0.05),
                        toolbar=None, hooks=[_few_date_ticks], xformatter=_date_axis(), **_COMMON),
        hv.opts.Curve(ylabel="Value of 100 invested", xlabel=""))


def gap_text(gap) -> str:
    """A gap as people read it: `present.nav.gap_text`, the one wording (and length) of every output."""
    return nav_gap_text(gap)

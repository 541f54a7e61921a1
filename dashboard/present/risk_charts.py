"""The basket's risk charts: its funds on the RS1 to RS8+ scale, and risk against fees or return.

Shared by the Risk tab and the reports, like the other charts (see charts.py). Each fund's name is
drawn beside its point, placed so that names never lie on top of each other: funds at one level
are drawn in separate rows on the spectrum, and on the scatter charts the names of funds at one
level with close values are moved apart (on a phone "DLN-CX" was drawn over "DDI-CX" at RS8+).
"""

from __future__ import annotations

import holoviews as hv
import pandas as pd

from dashboard.present.charts import COMMON_OPTS, HEIGHT, RISK_LEVELS, empty_chart

RISK_COLORS = ["#1a9850", "#66bd63", "#a6d96a", "#d9ef8b", "#fee08b", "#fdae61", "#f46d43", "#d73027", "#a50026"]
# The chart's last risk level (RS8+, drawn at 9): its points' names are drawn to their left.
LAST_RISK_RANK = 9
SCATTER_MEASURES = {"total_annual_fee": "Total annual fee (actual), % a year", "return_1y": "1-year return, %"}
# The scatter's names: 8 pt text is 11 px high; names at one level are kept LABEL_GAP_PX apart on a plot
# area of at least SCATTER_FRAME_PX (the chart's height less its title and risk-level axis).
LABEL_GAP_PX = 18
SCATTER_FRAME_PX = HEIGHT - 100
SCATTER_PADDING = 0.1  # share of the values' span left free above and below them


def _ticks() -> list[tuple[int, str]]:
    return [(i + 1, f"RS{label}") for i, label in enumerate(RISK_LEVELS)]


def risk_spectrum_chart(risk: pd.DataFrame | None) -> hv.Element:
    """The funds at their risk level, one row per fund at a level; a name above its point, or below it where
    the next level's fund in the same row would have its name on top of this one (on a phone a level is
    narrower than a name)."""
    if risk is None or risk.empty or risk["risk_rank"].isna().all():
        return empty_chart("No risk levels for the funds in the basket")
    data = risk.dropna(subset=["risk_rank"]).copy()
    data["slot"] = data.groupby("risk_rank").cumcount() + 1
    data = data.fillna({"name_en": "", "risk_level": ""}).astype(
        {"fund": str, "risk_level": str, "risk_rank": float, "slot": float, "proj_id": str, "name_en": str})
    taken = set(zip(data["risk_rank"], data["slot"]))
    below = [rank % 2 == 0 and ((rank - 1, slot) in taken or (rank + 1, slot) in taken)
             for rank, slot in zip(data["risk_rank"], data["slot"])]
    data["label_y"] = data["slot"] + pd.Series(below, index=data.index).map({True: -0.38, False: 0.38})
    points = hv.Points(data, kdims=["risk_rank", "slot"],
                       vdims=[hv.Dimension("fund", label="Fund"), hv.Dimension("name_en", label="Name"),
                              hv.Dimension("risk_level", label="Risk level"), hv.Dimension("proj_id", label="proj_id")]).opts(
        size=16, color="risk_rank", cmap=RISK_COLORS, clim=(0.5, 9.5), tools=["hover"], line_color="black")
    # Names at the top level end at their point: centred, they ran off the chart's right edge.
    last = data["risk_rank"] >= LAST_RISK_RANK
    labels = (hv.Labels(data[~last], kdims=["risk_rank", "label_y"], vdims=["fund"]).opts(text_font_size="9pt")
              * hv.Labels(data[last], kdims=["risk_rank", "label_y"], vdims=["fund"]).opts(
                  xoffset=0.3, text_align="right", text_font_size="9pt"))
    top = int(data["slot"].max())
    bands = pd.DataFrame({"x0": [i + 0.5 for i in range(9)], "y0": 0.0, "x1": [i + 1.5 for i in range(9)],
                          "y1": float(top) + 2, "level": [float(i + 1) for i in range(9)]})
    band = hv.Rectangles(bands, vdims=["level"]).opts(color="level", cmap=RISK_COLORS, clim=(0.5, 9.5), alpha=0.18,
                                                       line_alpha=0, tools=[])
    return (band * points * labels).opts(
        hv.opts.Overlay(height=int(max(HEIGHT - 60, 90 * top + 100)), title="Risk spectrum (RS1 low to RS8+ high)",
                        **COMMON_OPTS),
        hv.opts.Points(xticks=_ticks(), xlim=(0.5, 9.5), ylim=(0.2 if any(below) else 0.4, top + 0.9), yaxis=None,
                       xlabel="Risk level"),
    )


def spread_labels(values: list[float], gap: float) -> list[float]:
    """Where the names of points at one level go on the value axis: each at its point, except that names
    closer than `gap` are moved apart, as little as they can be, around their points' middle."""
    blocks: list[tuple[float, list[int]]] = []  # (the first name's place, the points named from there up)
    for i in sorted(range(len(values)), key=values.__getitem__):
        blocks.append((values[i], [i]))
        while len(blocks) > 1 and blocks[-2][0] + gap * len(blocks[-2][1]) > blocks[-1][0]:
            members = blocks[-2][1] + blocks[-1][1]
            start = sum(values[j] - gap * k for k, j in enumerate(members)) / len(members)
            blocks[-2:] = [(start, members)]
    places = [0.0] * len(values)
    for start, members in blocks:
        for k, j in enumerate(members):
            places[j] = start + gap * k
    return places


def _value_range(values: pd.Series) -> tuple[float, float]:
    low, high = float(values.min()), float(values.max())
    span = (high - low) or max(abs(high), 1.0)
    return low - SCATTER_PADDING * span, high + SCATTER_PADDING * span


def risk_scatter(risk: pd.DataFrame | None, measure: str) -> hv.Element:
    """Risk level against `total_annual_fee` or `return_1y`, funds named on hover and beside the point."""
    label = SCATTER_MEASURES[measure]
    short = label.split(",")[0]
    data = risk.dropna(subset=["risk_rank", measure]) if risk is not None and not risk.empty else None
    if data is None or data.empty:
        return empty_chart(f"No {short.lower()} figures for the basket")
    data = data.fillna({"name_en": "", "risk_level": ""}).astype(
        {"fund": str, "risk_rank": float, measure: float, "risk_level": str, "proj_id": str, "name_en": str})
    low, high = _value_range(data[measure])
    gap = (high - low) * LABEL_GAP_PX / SCATTER_FRAME_PX
    places = pd.Series(index=data.index, dtype=float)
    for _, level in data.groupby("risk_rank"):
        places[level.index] = spread_labels(level[measure].tolist(), gap)
    data = data.assign(label_y=places)
    # The names moved apart may reach past the points: the value axis holds them too.
    low, high = min(low, places.min() - gap), max(high, places.max() + gap)
    points = hv.Scatter(data, kdims=[hv.Dimension("risk_rank", label="Risk level")],
                        vdims=[hv.Dimension(measure, label=label), hv.Dimension("fund", label="Fund"),
                               hv.Dimension("name_en", label="Name"), hv.Dimension("risk_level", label="Risk level"),
                               hv.Dimension("proj_id", label="proj_id")]).opts(
        size=12, tools=["hover"], xticks=_ticks(), xlim=(0.5, 9.5), ylim=(low, high), color="#3b6ea5", line_color="black")
    last = data["risk_rank"] >= LAST_RISK_RANK  # names at the top level to the left of their point, not off the chart
    names = (hv.Labels(data[~last], kdims=["risk_rank", "label_y"], vdims=["fund"]).opts(
        xoffset=0.12, text_align="left", text_font_size="8pt")
             * hv.Labels(data[last], kdims=["risk_rank", "label_y"], vdims=["fund"]).opts(
                 xoffset=-0.12, text_align="right", text_font_size="8pt"))
    return (points * names).opts(hv.opts.Overlay(height=HEIGHT, title=f"Risk against {short.lower()}", **COMMON_OPTS))

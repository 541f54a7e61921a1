"""What a chart really draws: a HoloViews element rendered to its Bokeh figure, read back glyph by glyph.

Tests of the frames a chart is built from cannot see a colour drawn on the wrong bar (issue 39: the
market's risk spectrum drew RS6's equity funds in fixed income's colour, its `color` column in another
row order than its `level` and `policy`). This reads what Bokeh is handed to draw: each glyph's
coordinates and categories, its colours resolved through their colour mappers as the browser would,
and each legend entry with the colour it shows, so a test can compare the picture with the model's
data row by row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import holoviews as hv
import numpy as np
from bokeh.models import (CategoricalColorMapper, ColumnDataSource, FactorRange, GlyphRenderer, GridPlot,
                          LinearColorMapper, Plot)
from bokeh.core.property.vectorization import Field, Value

COLOR_SPECS = ("fill_color", "line_color", "color", "text_color")
# Properties of how a line is joined or hatched: nothing a reader of the chart sees as data.
UNREAD = ("hatch_", "line_join", "line_cap", "line_dash_offset")
# Bokeh's named dash patterns, as it stores them (bokeh.core.property.visual.DashPattern).
DASH_NAMES = {(): "solid", (6,): "dashed", (2, 4): "dotted", (2, 4, 6, 4): "dotdash", (6, 4, 2, 4): "dashdot"}


@dataclass
class Layer:
    """One glyph renderer: its kind (VBar, HBar, Scatter, Line, Rect, Segment, ...) and its rows."""

    kind: str
    rows: list[dict[str, Any]]
    source: dict[str, list]


@dataclass
class Drawn:
    """One figure as drawn."""

    title: str
    layers: list[Layer]
    legend: list[tuple[str, str | None]]  # (entry, the colour its swatch shows), in the order shown
    x_label: str = ""
    y_label: str = ""
    x_factors: list = field(default_factory=list)
    y_factors: list = field(default_factory=list)
    x_ticks: dict = field(default_factory=dict)  # fixed ticks: value -> label
    y_ticks: dict = field(default_factory=dict)
    x_label_angle: float = 0.0  # the x axis's tick labels turned by this many radians ("horizontal": 0)

    def glyphs(self, *kinds: str) -> list[dict[str, Any]]:
        """Every drawn row of the layers of these kinds (all kinds when none is named)."""
        return [row for layer in self.layers if not kinds or layer.kind in kinds for row in layer.rows]

    def legend_colors(self) -> dict[str, str | None]:
        return dict(self.legend)


def _plain(value: Any) -> Any:
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(float(value)) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.str_):
        return str(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (np.datetime64, )):
        return str(np.datetime_as_string(value, unit="D"))
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    return value


def color_hex(value: Any) -> str | None:
    """A colour as Bokeh is given it, lower-case: "#3b6ea5"; RGB(A) tuples as hex."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)) and len(value) in (3, 4):
        return "#" + "".join(f"{int(c):02x}" for c in value[:3])
    return str(value).lower()


def _mapped(mapper, values: list) -> list:
    if isinstance(mapper, CategoricalColorMapper):
        factors = [tuple(f) if isinstance(f, list) else f for f in mapper.factors]
        out = []
        for v in values:
            v = tuple(v) if isinstance(v, list) else v
            out.append(mapper.palette[factors.index(v) % len(mapper.palette)] if v in factors else mapper.nan_color)
        return out
    if isinstance(mapper, LinearColorMapper):
        numbers = [float(v) if v is not None else math.nan for v in values]
        finite = [v for v in numbers if not math.isnan(v)]
        low = mapper.low if mapper.low is not None else min(finite, default=0.0)
        high = mapper.high if mapper.high is not None else max(finite, default=1.0)
        palette, out = list(mapper.palette), []
        for v in numbers:
            if math.isnan(v):
                out.append(mapper.nan_color)
            elif v < low:
                out.append(mapper.low_color or palette[0])
            elif v > high:
                out.append(mapper.high_color or palette[-1])
            else:
                index = len(palette) - 1 if v == high else int((v - low) / ((high - low) or 1) * len(palette))
                out.append(palette[min(index, len(palette) - 1)])
        return out
    raise AssertionError(f"no reading for colour mapper {type(mapper).__name__}")


def _resolve(spec: Any, data: dict[str, list], n: int) -> list | None:
    """One property of a glyph, for each of its n rows."""
    transform = None
    if isinstance(spec, Field):
        values, transform = list(data.get(spec.field, [None] * n)), spec.transform
    elif isinstance(spec, Value):
        values, transform = [spec.value] * n, spec.transform
    elif isinstance(spec, dict) and "field" in spec:
        values, transform = list(data.get(spec["field"], [None] * n)), spec.get("transform")
    elif isinstance(spec, dict) and "value" in spec:
        values = [spec["value"]] * n
    elif isinstance(spec, str) and spec in data and n:
        values = list(data[spec])
    else:
        values = [spec] * n
    if transform is not None and hasattr(transform, "palette"):
        values = _mapped(transform, values)
    return values


def _layer(renderer: GlyphRenderer) -> Layer | None:
    source = renderer.data_source
    if not isinstance(source, ColumnDataSource):
        return None
    data = {k: list(v) for k, v in source.data.items()}
    n = max((len(v) for v in data.values()), default=0)
    glyph = renderer.glyph
    resolved = {}
    for name in glyph.dataspecs():
        if name.startswith(UNREAD):
            continue
        resolved[name] = _resolve(getattr(glyph, name), data, n)
    # A line or a patch has one colour for all its points: a plain property, not a column.
    scalars = {name: getattr(glyph, name) for name in COLOR_SPECS if name not in resolved and hasattr(glyph, name)}
    # How a line is dashed is seen (a lump sum's dashed line beside its plan's solid one in the same colour).
    dash = getattr(glyph, "line_dash", None) if "line_dash" not in resolved else None
    rows = []
    for i in range(n):
        row = {k: _plain(v[i]) for k, v in data.items() if len(v) == n}
        for name, values in resolved.items():
            if values is None:
                continue
            value = values[i]
            row[name] = color_hex(value) if name in COLOR_SPECS else _plain(value)
        row.update({name: color_hex(value) for name, value in scalars.items()})
        if isinstance(dash, (str, list, tuple)):
            row["line_dash"] = dash if isinstance(dash, str) else DASH_NAMES.get(tuple(dash), tuple(dash))
        rows.append(row)
    return Layer(type(glyph).__name__, rows, data)


def _legend(plot: Plot) -> list[tuple[str, str | None]]:
    entries = []
    for legend in plot.legend:
        for item in legend.items:
            label = item.label
            renderer = item.renderers[0] if item.renderers else None
            layer = _layer(renderer) if renderer is not None else None
            color_of = (lambda row: row.get("fill_color") or row.get("line_color") or row.get("color"))
            if isinstance(label, Field) or (isinstance(label, dict) and "field" in label):
                name = label.field if isinstance(label, Field) else label["field"]
                seen = {}
                for row in layer.rows if layer else []:
                    seen.setdefault(str(row[name]) if name in row else str(layer.source[name][0]), color_of(row))
                entries.extend(seen.items())
            else:
                text = label.value if isinstance(label, Value) else (label["value"] if isinstance(label, dict) else label)
                row = layer.rows[item.index or 0] if layer and layer.rows else {}
                entries.append((str(text), color_of(row) if row else None))
    return entries


def _ticks(axis) -> dict:
    ticker = getattr(axis, "ticker", None)
    overrides = dict(getattr(axis, "major_label_overrides", {}) or {})
    ticks = list(getattr(ticker, "ticks", []) or [])
    return {t: overrides.get(t, overrides.get(str(t), t)) for t in ticks} if ticks else overrides


def _angle(axis) -> float:
    turn = getattr(axis, "major_label_orientation", "horizontal") if axis is not None else "horizontal"
    return {"horizontal": 0.0, "vertical": math.pi / 2, "parallel": 0.0, "normal": math.pi / 2}.get(turn, turn)


def read_plot(plot: Plot) -> Drawn:
    layers = [layer for r in plot.renderers if isinstance(r, GlyphRenderer) and (layer := _layer(r)) is not None]
    xaxis, yaxis = (plot.xaxis[0] if plot.xaxis else None), (plot.yaxis[0] if plot.yaxis else None)
    factors = lambda rng: [_plain(tuple(f)) if isinstance(f, (list, tuple)) else _plain(f) for f in rng.factors] if isinstance(rng, FactorRange) else []
    return Drawn(title=plot.title.text if plot.title is not None else "", layers=layers, legend=_legend(plot),
                 x_label=str(xaxis.axis_label or "") if xaxis is not None else "",
                 y_label=str(yaxis.axis_label or "") if yaxis is not None else "",
                 x_factors=factors(plot.x_range), y_factors=factors(plot.y_range),
                 x_ticks=_ticks(xaxis) if xaxis is not None else {}, y_ticks=_ticks(yaxis) if yaxis is not None else {},
                 x_label_angle=_angle(xaxis))


def drawn(element: hv.core.Dimensioned) -> Drawn | list[Drawn]:
    """The element rendered to Bokeh, read back: one `Drawn` for a plot, a list for a layout of plots."""
    figure = hv.render(element, backend="bokeh")
    if isinstance(figure, GridPlot):
        return [read_plot(child[0] if isinstance(child, tuple) else child) for child in figure.children]
    if isinstance(figure, Plot):
        return read_plot(figure)
    plots = list(figure.select({"type": Plot}))
    return [read_plot(p) for p in plots]

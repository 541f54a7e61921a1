"""HoloViews charts built from the models' frames; shared by the dashboard, notebooks and reports.

Every function takes a DataFrame and returns one HoloViews element (or an empty-state element),
so views stay thin and reports draw exactly what the screen draws. Service text only ever
reaches Bokeh as data (axis labels, canvas labels, hover fields), which Bokeh renders as text,
never as HTML. Charts are responsive in width (they fill their column) and fixed in height.
"""

from __future__ import annotations

import holoviews as hv
import pandas as pd

from dashboard.models.fund import SINGLE_CLASS, class_key, fund_returns
from dashboard.present.text import asset_name_text, fmt_date, policy_type_text, quarter_text
from dashboard.records import APPROVAL_NO_EXPIRY
from dashboard.records.labels import RISK_LEVEL

RISK_LEVELS = list(RISK_LEVEL.values())  # "1" .. "8", "8+"

hv.extension("bokeh", logo=False)

# Reference width for callers that lay charts out at a fixed size (reports); the dashboard's charts
# are responsive and fill their column.
WIDTH = 640
HEIGHT = 340
DONUT_SIZE = 260  # the ring's frame in px: with its legend underneath it fits a 390 px phone
# The basket's lying stacked bars: px a fund, px a legend row, legend columns, characters of an asset's name.
STACK_ROW_PX, STACK_LEGEND_ROW_PX, STACK_LEGEND_COLUMNS, STACK_LEGEND_CHARS = 34, 22, 1, 30
# Lying grouped bars: px a bar, px of space between groups (a group's name is 9.5 pt, 13 px high).
LYING_BAR_PX, LYING_GROUP_PX = 9, 10
CHANGE_COLORS = {"new": "#2ca02c", "increased": "#98df8a", "decreased": "#ff9896", "exited": "#d62728", "unchanged": "#c7c7c7"}
SERIES_COLORS = ["#3b6ea5", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]
PERFORMANCE_SERIES = {"fund_return": "Fund", "benchmark_return": "Benchmark", "peer_average": "Peer average"}
VOLATILITY_SERIES = {"fund_volatility": "Fund", "benchmark_volatility": "Benchmark"}
# Options every responsive chart shares (the risk charts in risk_charts.py too).
COMMON_OPTS = dict(responsive=True, toolbar=None, default_tools=[], min_width=280)


def empty_chart(message: str, height: int = 120) -> hv.Element:
    """A blank plot that says why it is blank (no data is not the same as a broken chart)."""
    return hv.Text(0.5, 0.5, message).opts(
        xaxis=None, yaxis=None, height=height, text_font_size="12pt", text_color="#777", show_frame=False,
        xlim=(0, 1), ylim=(0, 1), **COMMON_OPTS)


def _group_labels_only(plot, element) -> None:
    """Grouped bars: show the group names on the axis, the series only in the legend (inner labels overlap).
    Lying bars have their group names level."""
    from bokeh.models import CategoricalAxis

    for axis in [*plot.state.xaxis, *plot.state.yaxis]:
        if not isinstance(axis, CategoricalAxis):
            continue
        # Alpha, not font size: the Material theme re-applies its label font size in the browser.
        axis.major_label_text_alpha = 0.0
        axis.major_label_text_font_size = "1px"
        axis.major_tick_line_color = None
        axis.group_text_font_size = "9.5pt"
        axis.group_text_font_style = "normal"
        axis.group_text_color = "#444"
        axis.separator_line_alpha = 0.4
        if axis in plot.state.yaxis:
            axis.group_label_orientation = "horizontal"


def grouped_bars(data: pd.DataFrame, group: str, series: str, value: str, *, groups: list[str], names: list[str],
                 group_label: str, value_label: str, title: str, colors: list[str] | None = None,
                 extra_vdims: list[hv.Dimension] | None = None, height: int = HEIGHT, lying: bool = False) -> hv.Element:
    """Bars grouped by `group`, one bar per `series` in a fixed order and colour, series named in the legend.

    (HoloViews' single-level grouped bars order each group differently; nested factors keep one order.)
    `lying`: a group a block of lying bars, its name level on the left (the first group on top), the legend a
    name a row underneath and the height growing with the bars: standing, on a phone the legend on the right
    took the chart's width and the group names ran into each other ("since inception" over "5 years").
    """
    colors = colors or SERIES_COLORS
    # Rows in group then series order: the legend lists series in the order they first appear.
    order = {name: i for i, name in enumerate(names)}
    rank = {g: i for i, g in enumerate(groups)}
    data = data.assign(_g=data[group].map(rank), _s=data[series].map(order)).sort_values(["_g", "_s"]).drop(columns=["_g", "_s"])
    cmap = {name: colors[i % len(colors)] for i, name in enumerate(names)}
    placed = dict(legend_position="right", height=height, hooks=[_group_labels_only])
    if lying:  # a lying chart's first category is at the bottom
        groups, names = groups[::-1], names[::-1]
        placed = dict(legend_position="bottom", invert_axes=True, hooks=[_group_labels_only, legend_columns(1)],
                      height=LYING_BAR_PX * len(groups) * len(names) + LYING_GROUP_PX * len(groups)
                      + STACK_LEGEND_ROW_PX * len(names) + 120)
    return hv.Bars(data, kdims=[hv.Dimension(group, label=group_label, values=groups),
                                hv.Dimension(series, label="Series", values=names)],
                   vdims=[hv.Dimension(value, label=value_label), *(extra_vdims or [])]).opts(
        tools=["hover"], color=series, cmap=cmap, title=title, show_legend=True, xlabel=group_label, **placed,
        **COMMON_OPTS)


def _quarter(period: str) -> str:
    """A quarter as every output spells it: "Q3 2026" (the axes said "2026-09" where the text said "Q3 2026")."""
    return quarter_text(period)


def asset_label(name: object) -> str:
    """An allocation asset for a chart: its English name first where the text carries one in parentheses."""
    return asset_name_text(name) or str(name)


def _short(text: str, limit: int = 28) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- allocation -------------------------------------------------------------------------------


# Published shares may add up to a little more than 100 % by rounding; beyond that (or below zero: a
# fund's net liabilities or hedges) they are not parts of one whole and a ring would misdraw them.
SHARES_ROUNDING_PP = 0.1


def _allocation_frame(allocation: pd.DataFrame | None) -> pd.DataFrame | None:
    data = allocation.dropna(subset=["asset_ratio"]) if allocation is not None and not allocation.empty else None
    if data is None or data.empty:
        return None
    frame = data[["asset_name", "asset_ratio"]].astype({"asset_name": str, "asset_ratio": float})
    return frame.assign(asset_name=frame["asset_name"].map(asset_label).map(_short))


def shares_form_a_whole(ratios: pd.Series) -> bool:
    """Whether published shares of NAV can be drawn as slices of one ring: none below zero, and
    together no more than 100 % (plus rounding)."""
    values = pd.to_numeric(ratios, errors="coerce").dropna()
    return bool((values >= 0).all() and values.sum() <= 100 + SHARES_ROUNDING_PP)


def allocation_caption(allocation: pd.DataFrame | None) -> str:
    """The sentence that goes beside the allocation chart, the same on the screen and in the reports:
    the shares' total and, when they are not parts of one whole, why the chart is bars."""
    data = _allocation_frame(allocation)
    if data is None:
        return ""
    total = data["asset_ratio"].sum()
    text = f"Shares of NAV as published; they add up to {total:,.2f} %."
    negative = data[data["asset_ratio"] < 0]
    if not negative.empty:
        lines = ", ".join(f"{name} {ratio:,.2f} %" for name, ratio in zip(negative["asset_name"], negative["asset_ratio"]))
        text += f" Below zero: {lines}."
    if not shares_form_a_whole(data["asset_ratio"]):
        text += " Drawn as bars, not a ring: shares below zero or past 100 % are not slices of one whole."
    return text


def allocation_chart(allocation: pd.DataFrame | None, title: str = "Asset allocation") -> hv.Element:
    """The one fund's allocation: a ring when the shares are parts of one whole, else signed bars
    (negative shares to the left of a zero line), so no slice is ever drawn for a negative share."""
    frame = _allocation_frame(allocation)
    if frame is None:
        return empty_chart("No asset allocation published for this fund")
    if shares_form_a_whole(frame["asset_ratio"]):
        return _allocation_ring(frame, title)
    data = frame.iloc[::-1]  # the first published line at the top
    return hv.Bars(data, kdims=[hv.Dimension("asset_name", label="Asset")],
                   vdims=[hv.Dimension("asset_ratio", label="% of NAV")]).opts(
        # As wide as the ring's frame with its margins, fixed: the Allocation tab holds it in a fixed-size pane.
        invert_axes=True, height=max(220, 26 * len(data) + 90), width=DONUT_SIZE + 120, tools=["hover"],
        color="#3b6ea5", title=title, toolbar=None, default_tools=[])


def _allocation_ring(frame: pd.DataFrame, title: str) -> hv.Element:
    """A ring of shares that are parts of one whole; only `allocation_chart` decides when it fits."""
    return hv.Donut(frame, kdims=[hv.Dimension("asset_name", label="Asset")],
                    vdims=[hv.Dimension("asset_ratio", label="% of NAV")]).opts(
        title=title, frame_width=DONUT_SIZE, frame_height=DONUT_SIZE, tools=["hover"], cmap="Category20",
        legend_position="bottom", inner_radius=0.55, toolbar=None, default_tools=[], hooks=[_donut_ranges])


def _donut_ranges(plot, element) -> None:
    """HoloViews 1.23.2 gives a Donut a categorical x range with no factors, so Bokeh draws no wedge;
    a numeric range centred on the ring draws it."""
    from bokeh.models import LinearScale, Range1d

    state = plot.state
    if not isinstance(state.x_range, Range1d):
        state.x_range, state.x_scale = Range1d(-1.1, 1.1), LinearScale()
    if not isinstance(state.y_range, Range1d):
        state.y_range, state.y_scale = Range1d(-1.1, 1.1), LinearScale()
    # The legend goes under the ring, one asset a line, so the chart is no wider than a phone (390 px).
    for legend in state.legend:
        legend.orientation = "vertical"
        legend.label_text_font_size = "9pt"
    entries = len(element)  # one legend line per asset (Bokeh holds them as one field-driven item)
    # frame_width/frame_height size the plot; a fixed sizing mode without width would only warn
    state.width, state.height = state.frame_width + 70, state.frame_height + 70 + 20 * entries


def legend_columns(columns: int):
    """A hook setting the legend in `columns` columns of 11 px names (a phone's width holds one name a row)."""
    def hook(plot, element) -> None:
        for legend in plot.state.legend:
            legend.orientation = "vertical"
            legend.ncols = columns
            legend.label_text_font_size = "11px"
    return hook


def allocation_stacked(frame: pd.DataFrame | None) -> hv.Element:
    if frame is None or frame.empty or frame["asset_ratio"].isna().all():
        return empty_chart("No asset allocation for the funds in the basket")
    data = frame[["fund", "asset_name", "asset_ratio"]].dropna(subset=["asset_ratio"])
    data = data.astype({"fund": str, "asset_name": str, "asset_ratio": float})
    data = data.assign(asset_name=data["asset_name"].map(asset_label).map(lambda n: _short(n, STACK_LEGEND_CHARS)))
    funds, assets = data["fund"].nunique(), data["asset_name"].nunique()
    # Lying bars, a fund a row with its name level on the left (the basket's first fund on top), and the legend
    # underneath: standing bars left a phone's width to a legend on the right and slanted names that overlapped.
    order = list(dict.fromkeys(data["fund"]))[::-1]  # a lying chart's first category is at the bottom
    rows = -(-assets // STACK_LEGEND_COLUMNS)
    return hv.Bars(data, kdims=[hv.Dimension("fund", label="Fund", values=order), hv.Dimension("asset_name", label="Asset")],
                   vdims=[hv.Dimension("asset_ratio", label="% of NAV")]).opts(
        stacked=True, invert_axes=True, height=STACK_ROW_PX * funds + STACK_LEGEND_ROW_PX * rows + 120, tools=["hover"],
        cmap="Category20", legend_position="bottom", hooks=[legend_columns(STACK_LEGEND_COLUMNS)],
        title="Asset allocation across the basket", **COMMON_OPTS)


# ---- holdings ---------------------------------------------------------------------------------


def top_holdings_bars(table: pd.DataFrame | None, period: str | None) -> hv.Element:
    if table is None or table.empty or not period:
        return empty_chart(f"No holdings published for {_quarter(period)}" if period else "No holdings published for this fund")
    data = table[["security", "issuer", "percent_nav"]].copy()
    data = data.fillna({"issuer": ""}).astype({"security": str, "issuer": str, "percent_nav": float}).iloc[::-1]
    return hv.Bars(data, kdims=[hv.Dimension("security", label="Holding")],
                   vdims=[hv.Dimension("percent_nav", label="% of NAV"), hv.Dimension("issuer", label="Issuer")]).opts(
        invert_axes=True, height=max(220, 26 * len(data) + 70), tools=["hover"], color="#3b6ea5",
        title=f"Top {len(data)} holdings, {_quarter(period)}", **COMMON_OPTS)


def holdings_heatmap(weights: pd.DataFrame | None) -> hv.Element:
    if weights is None or weights.empty or weights.isna().all().all():
        return empty_chart("No quarterly holdings to compare")
    long = weights.rename_axis("security").reset_index().melt(id_vars="security", var_name="period", value_name="percent_nav")
    long["quarter"] = long["period"].map(_quarter)
    long = long.astype({"security": str, "percent_nav": float})
    quarters = [_quarter(p) for p in weights.columns]
    securities = [str(s) for s in weights.index][::-1]  # largest at the top
    return hv.HeatMap(long, kdims=[hv.Dimension("quarter", label="Quarter", values=quarters),
                                   hv.Dimension("security", label="Holding", values=securities)],
                      vdims=[hv.Dimension("percent_nav", label="% of NAV")]).opts(
        height=max(300, 18 * weights.shape[0] + 110), tools=["hover"], cmap="Blues", colorbar=True,
        xrotation=45, title=f"Holding weights across the {len(quarters)} quarters (largest holdings)",
        clipping_colors={"NaN": "#eeeeee"}, **COMMON_OPTS)


def holdings_changes_bars(changes: pd.DataFrame | None, start: str | None, end: str | None, limit: int = 25) -> hv.Element:
    if changes is None or changes.empty or not start or not end:
        return empty_chart("Pick two quarters with holdings to see what changed")
    moved = changes[changes["change"].astype(str) != "unchanged"].copy()
    if moved.empty:
        return empty_chart("Nothing changed between the two quarters")
    moved = moved.reindex(moved["change_pp"].abs().sort_values(ascending=False).index).head(limit).iloc[::-1]
    moved = moved.astype({"security": str, "change_pp": float}).assign(change=moved["change"].astype(str))
    return hv.Bars(moved[["security", "change_pp", "change"]], kdims=[hv.Dimension("security", label="Holding")],
                   vdims=[hv.Dimension("change_pp", label="Change, percentage points"), hv.Dimension("change", label="Change")]).opts(
        invert_axes=True, color="change", cmap=CHANGE_COLORS, height=max(240, 22 * len(moved) + 90),
        tools=["hover"], title=f"What changed, {_quarter(min(start, end))} to {_quarter(max(start, end))}",
        show_legend=True, legend_position="bottom_right", **COMMON_OPTS)


# ---- fees -------------------------------------------------------------------------------------

FEE_MEASURES = {"actual_value_num": "Actual charge", "rate_num": "Prospectus ceiling"}


def _series_name(frame: pd.DataFrame) -> pd.Series:
    cls = class_key(frame)
    fund = frame["fund"].astype(str)
    return fund.where(cls == SINGLE_CLASS, fund + " · " + cls)


def fee_bars(fees: pd.DataFrame | None, value: str = "actual_value_num", fee_type: str | None = None) -> hv.Element:
    """Bars of one fee measure: `actual_value_num` (charged) or `rate_num` (ceiling), never both.

    With many fee types, bars are grouped by fee type (one bar per fund and class); for a single
    fee type, one bar per fund and class.
    """
    if value not in FEE_MEASURES:
        raise ValueError("fee bars show either actual_value_num or rate_num")
    measure = FEE_MEASURES[value]
    unit_col = "actual_value_unit" if value == "actual_value_num" else "rate_unit"
    data = fees.dropna(subset=[value]) if fees is not None and not fees.empty else None
    if data is None or data.empty:
        return empty_chart(f"No numeric {measure.lower()} to chart (the table keeps the service's text)")
    data = data.assign(series=_series_name(data),
                       fee_type=data["fee_type_en"].fillna(data["fee_type_desc"]).fillna("(unnamed)").astype(str),
                       unit=data[unit_col].fillna("").astype(str))
    units = data["unit"][data["unit"] != ""]
    unit = units.mode().iloc[0] if not units.empty else ""
    # The current service publishes no unit with a fee (E12's units were dropped): its figures are the factsheet's
    # percentages, said so on the axis (an axis without a unit read as baht to some).
    # Short enough to fit under a phone's chart (the longer "% (the service publishes no unit)" was cut off).
    ylabel = f"{measure}, " + (unit if unit else "%")
    title = f"{measure}" + (f": {fee_type}" if fee_type else " by fee type")
    if data["fee_type"].nunique() == 1:
        table = data[["series", value, "unit", "fee_type"]].astype({value: float})
        return hv.Bars(table, kdims=[hv.Dimension("series", label="Fund · class")],
                       vdims=[hv.Dimension(value, label=ylabel), hv.Dimension("unit", label="Unit"),
                              hv.Dimension("fee_type", label="Fee type")]).opts(
            height=HEIGHT, tools=["hover"], color="#3b6ea5" if value == "actual_value_num" else "#9c755f",
            xrotation=30 if len(table) > 4 or table["series"].str.len().max() > 12 else 0, title=title, **COMMON_OPTS)
    table = data[["fee_type", "series", value, "unit"]].astype({value: float})
    return grouped_bars(table, "fee_type", "series", value, groups=list(dict.fromkeys(table["fee_type"])),
                        names=list(dict.fromkeys(table["series"])), group_label="Fee type", value_label=ylabel,
                        title=title, extra_vdims=[hv.Dimension("unit", label="Unit")], height=HEIGHT + 40)


# ---- performance ------------------------------------------------------------------------------


def _class_rows(performance: pd.DataFrame, class_name: str | None) -> pd.DataFrame:
    if class_name is None:
        return performance
    return performance[class_key(performance) == class_name]


def _period_bars(data: pd.DataFrame, kinds: dict[str, str], ylabel: str, title: str, empty: str) -> hv.Element:
    data = data[data["performance_kind"].isin(kinds)].dropna(subset=["performance_val"])
    if data.empty:
        return empty_chart(empty)
    labels = data["reference_period_label_en"] if "reference_period_label_en" in data else data["reference_period"]
    data = data.assign(series=data["performance_kind"].map(kinds), period=labels.fillna(data["reference_period"]).astype(str))
    data = data.sort_values(["reference_period_order", "performance_kind"])
    periods = list(dict.fromkeys(data["period"]))
    series = [s for s in kinds.values() if s in set(data["series"])]
    data = data[["period", "series", "performance_val"]].astype({"performance_val": float})
    return grouped_bars(data, "period", "series", "performance_val", groups=periods, names=series,
                        group_label="Period", value_label=ylabel, title=title, lying=True)


def performance_bars(performance: pd.DataFrame | None, class_name: str | None = None) -> hv.Element:
    """Fund return against benchmark and peer average for each reference period (one class)."""
    if performance is None or performance.empty:
        return empty_chart("No past performance published for this fund")
    suffix = f" ({class_name})" if class_name and class_name != SINGLE_CLASS else ""
    return _period_bars(_class_rows(performance, class_name), PERFORMANCE_SERIES, "Return, %",
                        "Return by period" + suffix, "No return figures for this class")


def volatility_bars(performance: pd.DataFrame | None, class_name: str | None = None) -> hv.Element:
    """Fund volatility against benchmark volatility for each reference period (one class)."""
    if performance is None or performance.empty:
        return empty_chart("No volatility published for this fund")
    suffix = f" ({class_name})" if class_name and class_name != SINGLE_CLASS else ""
    return _period_bars(_class_rows(performance, class_name), VOLATILITY_SERIES, "Volatility, % a year",
                        "Volatility" + suffix, "No volatility figures for this class")


def basket_return_bars(performance: pd.DataFrame | None) -> hv.Element:
    """Fund return of each basket fund (its first unit class) for each reference period."""
    if performance is None or performance.empty:
        return empty_chart("No past performance for the funds in the basket")
    data = fund_returns(performance)
    if data.empty:
        return empty_chart("No fund returns for the funds in the basket")
    data = data.assign(fund=data["fund"].astype(str))
    periods = list(dict.fromkeys(data["period"]))
    funds = [f for f in dict.fromkeys(performance["fund"].astype(str)) if f in set(data["fund"])]
    data = data[["period", "fund", "performance_val"]].astype({"performance_val": float})
    return grouped_bars(data, "period", "fund", "performance_val", groups=periods, names=funds, group_label="Period",
                        value_label="Fund return, %", title="Returns, first unit class",
                        lying=True)


# ---- licences ---------------------------------------------------------------------------------

LICENCE_KIND_COLORS = {"approval": "#3b6ea5", "approval (no expiry)": "#9ecae1", "duty": "#59a14f"}


def licence_timeline(approvals: pd.DataFrame, duties: pd.DataFrame, today, names: dict[str, str] | None = None) -> hv.Element:
    """Approvals (effective to expiry) and current duties (start to today) as bars on a time axis; a duty's company
    by its name from `names` (by identifier) where it has one."""
    names = names or {}
    rows = []
    now = pd.Timestamp(today)
    for r in approvals.sort_values("effective_date").to_dict("records"):
        if pd.isna(r.get("effective_date")):
            continue
        open_ended = r.get("approval_state") == APPROVAL_NO_EXPIRY or pd.isna(r.get("expire_date"))
        end = now if open_ended else r["expire_date"]
        rows.append({"what": f"approval {r.get('lic_code') or '?'}", "kind": "approval (no expiry)" if open_ended else "approval",
                     "start": r["effective_date"], "end": max(end, r["effective_date"]),
                     "state": str(r.get("approval_state") or "-"), "from": fmt_date(r["effective_date"]),
                     "to": "no expiry" if open_ended else fmt_date(r["expire_date"])})
    for r in duties.sort_values("action_start_date").to_dict("records"):
        if pd.isna(r.get("action_start_date")):
            continue
        end = now if pd.isna(r.get("action_end_date")) else r["action_end_date"]
        company = r.get("company_unique_id") or "?"
        rows.append({"what": f"duty {r.get('lic_action_code') or '?'} at {_short(names.get(company, company), 44)}", "kind": "duty",
                     "start": r["action_start_date"], "end": max(end, r["action_start_date"]),
                     "state": "serving" if pd.isna(r.get("action_end_date")) else "ended",
                     "from": fmt_date(r["action_start_date"]),
                     "to": "still serving" if pd.isna(r.get("action_end_date")) else fmt_date(r["action_end_date"])})
    if not rows:
        return empty_chart("No dated approvals or duties to draw")
    data = pd.DataFrame(rows)
    data["y0"] = data["y1"] = range(len(data))
    data = data.astype({"what": str, "kind": str, "state": str, "from": str, "to": str})
    ticks = [(i, w) for i, w in enumerate(data["what"])]
    segments = hv.Segments(data, kdims=[hv.Dimension("start", label="From"), hv.Dimension("y0", label="Item"), "end", "y1"],
                           vdims=["what", "kind", "state", "from", "to"]).opts(
        color=hv.dim("kind").categorize(LICENCE_KIND_COLORS, default="#999999"), line_width=14, tools=["hover"],
        yticks=ticks, ylim=(-0.7, len(data) - 0.3), xlabel="Date", ylabel="", title="Approvals and current duties over time",
        width=WIDTH + 160, height=max(200, 34 * len(data) + 90), toolbar=None)
    return segments * hv.VLine(now).opts(color="#d62728", line_dash="dashed", line_width=1)


# ---- the whole market -------------------------------------------------------------------------

NO_POLICY = "no policy type published"


def _policy_name(value: object) -> str:
    text = policy_type_text(value)
    return _short(text, 44) if text else NO_POLICY


def market_spectrum_bars(spectrum: pd.DataFrame | None, title: str = "Funds per risk level, by policy type") -> hv.Element:
    """The market's risk spectrum: funds per risk level (RS1 to RS8+), stacked by policy type
    (rows of `queries.risk_spectrum`: risk_spectrum, risk_rank, policy_type, funds)."""
    if spectrum is None or spectrum.empty or spectrum["risk_rank"].isna().all():
        return empty_chart("No risk levels in the market snapshot")
    data = spectrum.dropna(subset=["risk_rank"]).copy()
    data["level"] = data["risk_spectrum"].map(lambda c: f"RS{RISK_LEVEL.get(c, c)}")
    data["policy"] = data["policy_type"].map(_policy_name)
    data = data.groupby(["level", "policy"], as_index=False)["funds"].sum().astype({"funds": float})
    levels = [f"RS{lv}" for lv in RISK_LEVELS]
    policies = data.groupby("policy")["funds"].sum().sort_values(ascending=False).index.tolist()
    colors = {p: SERIES_COLORS[i % len(SERIES_COLORS)] for i, p in enumerate(policies)}
    # No `color="policy"`: HoloViews 1.23 maps such a style column in the frame's row order while it draws the
    # stacks in stack order, so a bar took another row's colour (RS6's equity funds in fixed income's colour).
    # The stack dimension coloured through `cmap` is mapped per stacked row.
    return hv.Bars(data, kdims=[hv.Dimension("level", label="Risk level", values=levels),
                                hv.Dimension("policy", label="Policy type", values=policies)],
                   vdims=[hv.Dimension("funds", label="Funds")]).opts(
        # The legend a name a row under the chart: in three columns its right column ran off a phone's screen.
        stacked=True, height=HEIGHT + 22 * len(policies), tools=["hover"], cmap=colors, title=title,
        show_legend=True, legend_position="bottom", hooks=[legend_columns(1)], xlabel="Risk level (RS1 low to RS8+ high)",
        ylabel="Funds", **COMMON_OPTS)


def market_fee_ranges(fees: pd.DataFrame | None, position: dict | None = None) -> hv.Element:
    """Total annual fees as actually charged, by policy type (rows of `queries.fees_by_policy`): the range
    (min to max) as a thin line, the middle half (25th to 75th percentile) as a bar, the median as a tick,
    and the chosen fund's own fee (`queries.fee_percentile`) as a red point on its policy type's row.
    Only charged fees: prospectus ceilings are never drawn here."""
    if fees is None or fees.empty or fees["median"].isna().all():
        return empty_chart("No charged fees in the market snapshot")
    data = fees.dropna(subset=["median"]).copy().reset_index(drop=True)
    data["policy"] = data["policy_type"].map(_policy_name)
    data["y"] = [float(i) for i in range(len(data))]
    data = data.astype({"min": float, "p25": float, "median": float, "p75": float, "max": float, "funds": float})
    data["y0"], data["y1"] = data["y"] - 0.28, data["y"] + 0.28
    # The axis names the policy types in English (the Thai is in the hover): with the Thai beside them the names took
    # half a phone's width, and the title, the ticks and the axis label were cut or ran together.
    ticks = list(zip(data["y"], data["policy"].map(lambda p: p.split(" · ")[0])))
    hover = [hv.Dimension("policy", label="Policy type"), hv.Dimension("funds", label="Funds"),
             hv.Dimension("min", label="Lowest, %"), hv.Dimension("median", label="Median, %"),
             hv.Dimension("max", label="Highest, %")]
    whiskers = hv.Segments(data, kdims=["min", "y", "max", "y"], vdims=hover).opts(color="#777777", line_width=2)
    boxes = hv.Rectangles(data, kdims=["p25", "y0", "p75", "y1"], vdims=hover).opts(
        color="#9ecae1", line_color="#3b6ea5", tools=["hover"])
    medians = hv.Segments(data.assign(m0=data["y0"], m1=data["y1"]), kdims=["median", "m0", "median", "m1"]).opts(
        color="#08306b", line_width=3)
    layers = whiskers * boxes * medians
    if position and position.get("total_fee_actual") is not None:
        row = data[data["policy_type"].fillna(NO_POLICY) == (position.get("policy_type") or NO_POLICY)]
        if not row.empty:
            point = pd.DataFrame({"fee": [float(position["total_fee_actual"])], "y": [float(row["y"].iloc[0])],
                                  "fund": [str(position.get("proj_abbr_name") or position.get("proj_id") or "")],
                                  "percentile": [float(position["percentile"]) if position.get("percentile") is not None
                                                 else float("nan")]})
            layers = layers * hv.Scatter(point, kdims=["fee"], vdims=["y", hv.Dimension("fund", label="Fund"),
                                                                     hv.Dimension("percentile", label="Percentile")]).opts(
                size=13, color="#d62728", line_color="black", marker="diamond", tools=["hover"])
    return layers.opts(hv.opts.Overlay(
        height=int(max(200, 46 * len(data) + 110)), title="Fees charged, by policy type",
        xlabel="Total annual fee, % a year", ylabel="", yticks=ticks, xticks=5, ylim=(-0.7, len(data) - 0.3),
        **COMMON_OPTS))

"""The regular-investing simulation for people: its figures as rows (one table for the command line, the
dashboard and the report), the sentence that says what was simulated, and the value-over-time chart."""

from __future__ import annotations

from collections.abc import Sequence

import holoviews as hv
import pandas as pd

from dashboard.models.dca import ESTIMATE_NOTE, PAID, DcaResult, Outcome
from dashboard.present.charts import SERIES_COLORS, empty_chart
from dashboard.present.text import fmt_baht, fmt_date, fmt_number, fmt_percent

CHART_HEIGHT = 320
INVESTED_COLOR = "#7f7f7f"
# The figures, in the order shown: (key, label, how it is written).
FIGURES = (
    ("purchases", "Purchases made", "count"),
    ("invested", "Put in (baht)", "baht"),
    ("fees", "Front-end fees paid (baht)", "baht"),
    ("units", "Units held at the end", "units"),
    ("end_value", "Value at the end (baht)", "baht"),
    ("paid_out", "Distributions paid to you (baht)", "baht"),
    ("gain", "Gain (baht)", "baht"),
    ("gain_pct", "Gain on what was put in (%)", "percent"),
    ("money_weighted_pct", "Money-weighted return, a year (XIRR, %)", "percent"),
)
# The money-weighted return's row says which return it shows (models.dca.Outcome.money_weighted_pct).
A_YEAR, PERIOD = "a year", "period"
MONEY_WEIGHTED_TITLES = {A_YEAR: "Money-weighted return, a year (XIRR, %)",
                         PERIOD: "Money-weighted return for the period (not annualised, %)",
                         None: "Money-weighted return (%, a year or for the period)"}
CELL_WORDS = {A_YEAR: " a year", PERIOD: " for the period"}
# The value-over-time columns under the names COLUMN_TITLES titles (present.text).
VALUE_COLUMNS = {"invested": "dca_put_in", "units": "dca_units", "value": "dca_value", "paid_out": "dca_paid_out",
                 "total": "dca_total", "lump_total": "dca_lump_total"}
__all__ = ["VALUE_COLUMNS", "CHART_HEIGHT", "ESTIMATE_NOTE", "FIGURES", "figure_values", "figures_frame", "plan_text", "value_chart",
           "values_frame"]


def figure_values(outcome: Outcome) -> dict[str, float | int | None]:
    """One way of investing's figures by key (numbers, unformatted)."""
    return {"purchases": int((outcome.purchases["kind"] == "plan").sum()), "invested": outcome.invested,
            "fees": outcome.fees, "units": outcome.units, "end_value": outcome.end_value, "paid_out": outcome.paid_out,
            "gain": outcome.gain, "gain_pct": outcome.gain_pct,
            "money_weighted_pct": outcome.money_weighted_pct,
            "money_weighted_basis": A_YEAR if outcome.annualised else PERIOD}


def _shown(value, kind: str) -> str:
    if kind == "count":
        return fmt_number(value, 0)
    if kind == "baht":
        return fmt_number(value, 2)
    if kind == "units":
        return fmt_number(value, 4)
    return fmt_percent(value, 2, signed=True, sign="")


def columns(results: Sequence[DcaResult]) -> list[tuple[str, str, Outcome]]:
    """(key, title, outcome) of each column: each class's monthly plan, then its lump sum."""
    out = []
    for n, result in enumerate(results):
        out.append((f"plan_{n}", f"{result.label}: monthly", result.regular))
        out.append((f"lump_{n}", f"{result.label}: all at the start", result.lump_sum))
    return out


def figures_frame(results: Sequence[DcaResult]) -> pd.DataFrame:
    """The figures table: a row per figure, a column per way of investing (text as shown)."""
    cols = columns(results)
    values = {key: figure_values(outcome) for key, _, outcome in cols}
    rows = [{"figure": label, **{key: _shown(values[key][name], kind) for key, _, _ in cols}}
            for name, label, kind in FIGURES]
    # One basis for every column: the row's title says it. Both (a class a year, another under one): each cell says.
    bases = {values[key]["money_weighted_basis"] for key, _, _ in cols}
    basis = bases.pop() if len(bases) == 1 else None
    row = rows[[name for name, _, _ in FIGURES].index("money_weighted_pct")]
    row["figure"] = MONEY_WEIGHTED_TITLES[basis]
    if basis is None:
        for key, _, _ in cols:
            if values[key]["money_weighted_pct"] is not None:
                row[key] += CELL_WORDS[values[key]["money_weighted_basis"]]
    return pd.DataFrame(rows, columns=["figure", *[key for key, _, _ in cols]])


def column_titles(results: Sequence[DcaResult]) -> dict[str, str]:
    return {"figure": "Figure", **{key: title for key, title, _ in columns(results)}}


def plan_text(result: DcaResult, fee_source: str = "") -> str:
    """What was simulated, in one sentence (plain text: the caller escapes it)."""
    plan, r = result.plan, result.regular
    first = r.purchases["nav_date"].iloc[0]
    fee = f"front-end fee {fmt_number(plan.front_end_pct, 2)} %" + (f" ({fee_source})" if fee_source else "")
    distributions = ("distributions paid to you in cash" if result.policy == PAID else
                     "distributions reinvested at the next NAV, without a fee")
    return (f"{fmt_baht(plan.monthly)} on day {plan.day} of each month in {result.label} (at the first NAV on or "
            f"after that day), from {fmt_date(first)} to {fmt_date(r.end_date)}; {fee}; {distributions}. "
            f"The lump sum puts the same {fmt_baht(r.invested)} in at the first purchase.")


def values_frame(results: Sequence[DcaResult]) -> pd.DataFrame:
    """The value over time, long: date, class, NAV, then VALUE_COLUMNS: put in, units, their value, distributions
    paid, the total, the lump sum's total (the command line's CSV)."""
    frames = []
    for result in results:
        mine = result.regular.values
        lump = result.lump_sum.values.set_index("nav_date")["total"].reindex(mine["nav_date"]).to_numpy()
        frames.append(mine.assign(class_abbr_name=result.label, lump_total=lump)[
            ["nav_date", "class_abbr_name", "nav", *VALUE_COLUMNS]].rename(columns=VALUE_COLUMNS))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _few_date_ticks(plot, element) -> None:
    """A few date ticks, so they never run into each other on a phone (as the NAV charts do)."""
    for axis in plot.state.xaxis:
        ticker = getattr(axis, "ticker", None)
        if ticker is not None and hasattr(ticker, "desired_num_ticks"):
            ticker.desired_num_ticks = 4


def value_chart(results: Sequence[DcaResult]) -> hv.Element:
    """The plan's value (units x NAV, with the distributions paid) over time beside the money put in and the
    lump sum, for each class simulated."""
    if not results:
        return empty_chart("Nothing simulated yet")
    date_dim = hv.Dimension("nav_date", label="Date")
    baht = hv.Dimension("baht", label="Baht")
    layers = []
    for n, result in enumerate(results):
        color = SERIES_COLORS[n % len(SERIES_COLORS)]
        frame = result.regular.values.rename(columns={"total": "baht"})
        layers.append(hv.Curve(frame, date_dim, baht, label=f"{result.label}: monthly plan").opts(
            color=color, line_width=2, tools=["hover"]))
        lump = result.lump_sum.values.rename(columns={"total": "baht"})
        layers.append(hv.Curve(lump, date_dim, baht, label=f"{result.label}: all at the start").opts(
            color=color, line_dash="dashed", line_width=1.5, tools=["hover"]))
    put_in = results[0].regular.values.rename(columns={"invested": "baht"})
    layers.append(hv.Curve(put_in, date_dim, baht, label="Money put in").opts(
        color=INVESTED_COLOR, line_width=1.5, interpolation="steps-post", tools=["hover"]))
    return hv.Overlay(layers).opts(
        hv.opts.Overlay(responsive=True, height=CHART_HEIGHT + 90, min_width=280, legend_position="bottom",
                        legend_cols=2, title="Value over time (estimate)", yformatter="%.0f",
                        hooks=[_few_date_ticks]),
        hv.opts.Curve(default_tools=[]))

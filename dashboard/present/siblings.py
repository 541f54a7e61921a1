"""Sibling feeders and fee drag in words: how a master was matched, why one is undecided, what each figure
is measured on and to which date, and the tables every output (CLI, dashboard, report) draws from."""

from __future__ import annotations

import pandas as pd

from dashboard.models.feeders import BY_ISIN, BY_NAME, BY_NAME_TO_ISIN, MASTER_SHARE_PCT, NAME_FITS_SEVERAL, NO_MASTER
from dashboard.present.overview import OverviewRow, OverviewSection
from dashboard.present.text import column_title, quarter_text

MATCH_WORDS = {
    BY_ISIN: "the ISIN of its master-fund holding",
    BY_NAME_TO_ISIN: "the master's name, matched to a master other feeders hold by ISIN",
    BY_NAME: "the master's name alone (no feeder files the master's ISIN)",
}
UNDECIDED_WORDS = {
    NO_MASTER: f"names no master and holds no one foreign fund at {MASTER_SHARE_PCT:g} % of NAV or more",
    NAME_FITS_SEVERAL: "the master's name fits masters of different domiciles (different funds): not guessed",
}

SIBLING_COLUMNS = ("proj_abbr_name", "class", "company", "fx_policy", "matched_by", "total_expense",
                   "total_expense_ceiling", "front_fee", "front_fee_ceiling", "back_fee", "back_fee_ceiling",
                   "total_return_1y", "total_return_3y_ann", "volatility_1y", "diff_1y_vs_cheapest",
                   "diff_3y_vs_cheapest")
MASTER_COLUMNS = ("master_name", "master_isins", "feeders", "companies", "classes", "matched_by",
                  "total_expense_min", "total_expense_max")
COST_COLUMNS = ("comparison", "proj_abbr_name", "class", "total_expense", "front_fee", "back_fee",
                "total_expense_ceiling", "front_fee_ceiling", "back_fee_ceiling", "cost", "final_value", "extra_cost",
                "unstated", "basis")
UNDECIDED_COLUMNS = ("proj_abbr_name", "declared_name", "holding_pct", "candidates", "undecided")


def matched_text(code: str | None) -> str:
    return ", ".join(MATCH_WORDS.get(c, c) for c in (code or "").split(",") if c)


def master_title(master: dict) -> str:
    isins = f" (ISIN {master['master_isins'].replace(',', ', ')})" if master.get("master_isins") else " (no ISIN filed)"
    return f"{master.get('master_name') or 'an unnamed master'}{isins}"


def siblings_summary(data: dict, abbr: str) -> list[str]:
    """The lines above a sibling table: the master, how this fund was matched, the cheapest class, the dates."""
    if data.get("master") is None:
        reason = (data.get("undecided") or {}).get("undecided")
        return [f"{abbr}: its master is not decided: {UNDECIDED_WORDS.get(reason, reason)}."]
    m = data["master"]
    lines = [f"{abbr} feeds {master_title(m)}: {m['feeders']} Thai feeder{'s' if m['feeders'] != 1 else ''} at "
             f"{m['companies']} compan{'ies' if m['companies'] != 1 else 'y'}.",
             f"Matched by {matched_text(data.get('matched_by'))}."]
    holding = data.get("holding") or {}
    if holding.get("holding_isin") and holding.get("holding_pct") is not None:
        lines.append(f"Its master holding: {holding['holding_isin']}, {holding['holding_pct']:.2f} % of NAV "
                     f"({quarter_text(holding.get('holding_period'))}).")
    cheapest = data.get("cheapest")
    if cheapest:
        lines.append(f"Cheapest sibling: {cheapest['proj_abbr_name']} {cheapest['class'] or '(its only class)'}, "
                     f"{cheapest['total_expense']:.2f} % a year charged (the factsheet's total expense line).")
    if data.get("nav_date"):
        lines.append(f"Total returns from the stored NAVs (distributions reinvested) to {data['nav_date']}; a difference "
                     "is measured on the days both classes have a NAV.")
    if m["feeders"] == 1:
        lines.append("No other Thai fund names this master (an unmatched master name, or the only feeder).")
    return lines


def siblings_frame(data: dict) -> pd.DataFrame:
    """The sibling table with its titles (COLUMN_TITLES), the matching in words."""
    rows = []
    for row in data.get("rows", []):
        shown = {c: row.get(c) for c in SIBLING_COLUMNS}
        shown["class"] = row.get("class") or "(only class)"
        shown["matched_by"] = matched_text(row.get("matched_by"))
        rows.append(shown)
    frame = pd.DataFrame(rows, columns=list(SIBLING_COLUMNS))
    return frame.rename(columns={c: column_title(c) for c in SIBLING_COLUMNS})


def costs_summary(data: dict) -> list[str]:
    """What the fee-drag figures rest on: the amount, the years, the return and where it came from."""
    basis = data["return_basis"]
    if basis.startswith("5y_nav:"):
        _, nav5, day = basis.split(":", 2)
        source = (f"the class's own 5-year NAV return ({float(nav5):.2f} % a year to {day}) with its total expense "
                  "added back (NAV returns are after it)")
    elif basis == "default":
        source = "an assumed figure (the class has no 5-year NAV return)"
    else:
        source = "the figure given"
    return [f"{data['amount']:,.0f} THB held {data['years']} years at {data['return_pct']:.2f} % a year before fees: "
            f"{source}.",
            "Charged fees compound yearly: front-end fee on buying, total expense each year, back-end fee on selling. "
            "Ceilings (what the prospectus allows) are shown beside, never used."]


def costs_frame(data: dict) -> pd.DataFrame:
    rows = [{c: r.get(c) for c in COST_COLUMNS} for r in data.get("rows", [])]
    frame = pd.DataFrame(rows, columns=list(COST_COLUMNS))
    return frame.rename(columns={c: column_title(c) for c in COST_COLUMNS})


def undecided_text(code: str | None) -> str:
    return UNDECIDED_WORDS.get(code or "", code or "")


def fee_drag_inputs_lines(frame: pd.DataFrame, inputs: dict, day) -> list[str]:
    """What the fee-drag chart rests on, in words: the amount, the years, the fees counted and the day they were
    read, and each class's yearly return before fees with where it comes from (its 5-year NAV return and the
    day it is measured to, or the stated figure)."""
    lines = [f"{inputs['amount']:,.0f} THB held {inputs['years']} year{'s' if inputs['years'] != 1 else ''}, each "
             "fund's first unit class: its charged fees (front-end fee on buying, total expense each year, back-end "
             f"fee on selling; ceilings never used), as the service publishes them on {day}."]
    if inputs.get("return_pct") is not None:
        lines.append(f"Yearly return before fees: {inputs['return_pct']:g} % for every class, as given.")
    elif frame is not None and not frame.empty:
        firsts = frame[frame["series"] != "No fees"].drop_duplicates("series")
        lines += [f"{r.series}: {r.gross_pct:.2f} % a year before fees: {r.basis}." for r in firsts.itertuples()]
    return lines


def fee_drag_chart(frame: pd.DataFrame, amount: float, years: int, gross_pct: float | None):
    """The basket's funds on one chart: value over the years of `amount` with each one's charged fees."""
    import holoviews as hv

    from dashboard.present.charts import COMMON_OPTS, HEIGHT, empty_chart

    if frame is None or frame.empty:
        return empty_chart("No charged total expense to compute a fee drag from")
    # A title read whole on a phone (390 px): the inputs and each class's return are said in words above the chart
    # (fee_drag_inputs_lines). Baht with thousands separators, not 1.500e+5; the legend bottom right, where value
    # lines rising from the amount never run.
    from bokeh.models import NumeralTickFormatter

    title = f"{amount:,.0f} THB after charged fees"
    curves = [hv.Curve(part, kdims=[hv.Dimension("year", label="Years held")],
                       vdims=[hv.Dimension("value", label="Value (THB)"), hv.Dimension("cost", label="Fees take (THB)")],
                       label=name).opts(tools=["hover"], line_dash="dashed" if name == "No fees" else "solid")
              for name, part in frame.groupby("series", sort=False)]
    return hv.Overlay(curves).opts(height=HEIGHT, title=title, legend_position="bottom_right",
                                   yformatter=NumeralTickFormatter(format="0,0"), **COMMON_OPTS)


# ---- the dashboard's tables and the overview's section (one set of words for the view, the report) -------

# The dashboard's order: the figures first, beside the fund and class; the long texts (company, the Thai hedging
# policy, the matching in words) after them, so that a phone's first screen shows what is compared.
SIBLING_TABLE_COLUMNS = ("proj_abbr_name", "class", "sibling_marks", "total_expense", "total_expense_ceiling", "front_fee",
                         "front_fee_ceiling", "back_fee", "back_fee_ceiling", "total_return_1y", "total_return_3y_ann",
                         "diff_1y_vs_cheapest", "diff_3y_vs_cheapest", "volatility_1y", "company", "fx_policy",
                         "matched_by", "proj_id")
SIBLING_TEXT_WIDTHS = {"company": 230, "fx_policy": 260, "matched_by": 260}
SIBLING_PERCENT = ("total_expense", "total_expense_ceiling", "front_fee", "front_fee_ceiling", "back_fee",
                   "back_fee_ceiling", "total_return_1y", "total_return_3y_ann", "volatility_1y")
SIBLING_POINTS = ("diff_1y_vs_cheapest", "diff_3y_vs_cheapest")
MASTER_TABLE_COLUMNS = ("master_name", "feeders", "companies", "classes", "total_expense_min", "total_expense_max",
                        "master_isins", "matched_by", "master_id")
UNDECIDED_TABLE_COLUMNS = (*UNDECIDED_COLUMNS, "proj_id")


def sibling_marks(row: dict) -> str:
    """"this fund", "cheapest", both or neither: what a sibling row is to the reader."""
    return " · ".join(word for flag, word in (("is_fund", "this fund"), ("is_cheapest", "cheapest")) if row.get(flag))


def siblings_table(data: dict | None) -> pd.DataFrame:
    """The sibling rows as the dashboard's table holds them (field names; titles are COLUMN_TITLES'): the class
    and the matching in words, this fund and the cheapest marked, figures as floats (NaN when not known)."""
    rows = []
    for row in (data or {}).get("rows", []):
        shown = {c: row.get(c) for c in SIBLING_TABLE_COLUMNS}
        shown["class"] = row.get("class") or "(only class)"
        shown["matched_by"] = matched_text(row.get("matched_by"))
        shown["sibling_marks"] = sibling_marks(row)
        rows.append(shown)
    frame = pd.DataFrame(rows, columns=list(SIBLING_TABLE_COLUMNS))
    for col in (*SIBLING_PERCENT, *SIBLING_POINTS):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
    return frame


def masters_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The masters list as shown: ISINs spaced, the matching in words, the fee range as floats."""
    out = frame.reindex(columns=list(MASTER_TABLE_COLUMNS)).copy()
    out["master_isins"] = out["master_isins"].map(lambda v: v.replace(",", ", ") if isinstance(v, str) else "no ISIN filed")
    out["matched_by"] = out["matched_by"].map(matched_text)
    out["master_name"] = out["master_name"].map(lambda v: v if isinstance(v, str) and v else "(unnamed)")
    for col in ("total_expense_min", "total_expense_max"):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype("float64")
    return out


def candidates_text(value) -> str:
    """The masters an undecided feeder could be, as a reader names them: "isin:LU..." as the ISIN, "name:key" as
    the name key."""
    if not isinstance(value, str) or not value:
        return ""
    words = []
    for ident in value.split(","):
        kind, _, rest = ident.strip().partition(":")
        words.append(f"ISIN {rest}" if kind == "isin" else f"named {rest}" if kind == "name" and rest else ident.strip())
    return "; ".join(words)


def undecided_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The undecided feeders as shown: the reason in words, the candidate masters spaced."""
    out = frame.reindex(columns=list(UNDECIDED_TABLE_COLUMNS)).copy()
    out["undecided"] = out["undecided"].map(undecided_text)
    out["candidates"] = out["candidates"].map(candidates_text)
    out["declared_name"] = out["declared_name"].map(lambda v: v if isinstance(v, str) and v else "(none named)")
    out["holding_pct"] = pd.to_numeric(out["holding_pct"], errors="coerce").astype("float64")
    return out


def _pct(value, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f} %"


def siblings_section(data: dict | None, abbr: str) -> OverviewSection | None:
    """The fund overview's section "Sibling feeders" (present.overview's data: the explorer draws it as a card,
    the factsheet report as labelled values): the master, how it was matched, the feeders, the cheapest
    sibling and this fund's classes against it, the day the returns are measured to. None for a fund that
    is not a feeder (nothing to say)."""
    title = "Sibling feeders (the same master fund)"
    if data is None:
        return None
    if data.get("master") is None:
        return OverviewSection("siblings", title, (OverviewRow("Master fund", siblings_summary(data, abbr)[0]),))
    m, cheapest = data["master"], data.get("cheapest")
    rows = [OverviewRow("Master fund", master_title(m)),
            OverviewRow("Matched by", matched_text(data.get("matched_by"))),
            OverviewRow("Thai feeders", f"{m['feeders']} fund{'s' if m['feeders'] != 1 else ''} at {m['companies']} "
                        f"compan{'ies' if m['companies'] != 1 else 'y'}, {len(data['rows'])} unit classes")]
    if cheapest:
        rows.append(OverviewRow("Cheapest sibling", f"{cheapest['proj_abbr_name']} {cheapest['class'] or '(only class)'}: "
                                f"{_pct(cheapest['total_expense'])} a year charged"))
    for row in data["rows"]:
        if not row.get("is_fund"):
            continue
        parts = [f"{_pct(row['total_expense'])} a year charged"]
        if row.get("total_return_1y") is not None:
            parts.append(f"1-year total return {_pct(row['total_return_1y'])}")
        if row.get("diff_1y_vs_cheapest") is not None and not row.get("is_cheapest"):
            parts.append(f"{row['diff_1y_vs_cheapest']:+.2f} points against the cheapest")
        if row.get("is_cheapest"):
            parts.append("the cheapest")
        rows.append(OverviewRow(f"This fund, {row['class'] or 'its only class'}", "; ".join(parts)))
    if data.get("nav_date"):
        rows.append(OverviewRow("Returns measured to", f"{data['nav_date']} (stored NAVs, distributions reinvested)"))
    return OverviewSection("siblings", title, tuple(rows))

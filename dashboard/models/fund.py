"""The rules about one fund's data that the factsheet, the basket, the views and the reports share.

Each rule lives here once, as a pure function of the service's frames and records; the models
apply them, and views and reports read the results instead of repeating them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from dashboard.records.labels import RECURRING_FEE_KINDS, REFERENCE_PERIOD_ORDER, TOTAL_FEE_KIND, fee_type_key, label
from dashboard.records.values import to_number

# The class key of a fund without unit classes (its rows carry no class abbreviation).
SINGLE_CLASS = "-"
ONE_YEAR = REFERENCE_PERIOD_ORDER["1 year"]
# The kinds of performance figure, in the order a table shows them.
PERFORMANCE_KINDS = ("fund_return", "benchmark_return", "peer_average", "fund_volatility", "benchmark_volatility")
RISK_COLUMNS = ["fund", "proj_id", "name_en", "name_th", "fund_status", "risk_spectrum", "risk_level", "risk_rank",
                "total_annual_fee", "return_1y"]
TERM_UNITS = (("proj_term_yy", "years"), ("proj_term_mm", "months"), ("proj_term_dd", "days"))


def fund_label(record: dict | None, proj_id: str | None) -> str:
    """What a fund is called on screen and in reports: its abbreviation, else its proj_id."""
    return (record or {}).get("proj_abbr_name") or proj_id or ""


def class_key(frame: pd.DataFrame) -> pd.Series:
    """Each row's unit class as text; SINGLE_CLASS ("-") for a fund without unit classes."""
    return frame["class_abbr_name"].fillna(SINGLE_CLASS).astype(str)


def first_class_key(frame: pd.DataFrame) -> pd.Series:
    """Each row's class as the first-class rule orders it: its name, "" for a fund without unit classes."""
    return frame["class_abbr_name"].fillna("").astype(str)


def first_class_rows(frame: pd.DataFrame, by: str | None = "proj_id") -> pd.DataFrame:
    """The rows of each fund's first unit class, so one figure per fund.

    The first unit class is the one first by name ("" for a fund without classes): the rule the market
    store's SQL follows (`market.figures`, `market.nav_figures_table`: ORDER BY coalesce(class_abbr_name, '')),
    so a fund's figure is the same class's on its page, in the basket and in the screener, whatever order the
    service lists the classes in (the two layouts list them differently). `by` names the fund column of a
    frame across funds; None (or a frame without it) treats the whole frame as one fund. Rows keep their
    order and index.
    """
    if frame.empty:
        return frame
    key = first_class_key(frame)
    first = key.groupby(frame[by]).transform("min") if by and by in frame else key.min()
    return frame[key == first]


def fee_type_name(frame: pd.DataFrame) -> pd.Series:
    """The English fee type when the service gave one, else its full text."""
    return frame["fee_type_en"].fillna(frame["fee_type_desc"]).fillna("(unnamed fee)").astype("string")


def total_annual_fee(fees: pd.DataFrame) -> float | None:
    """Annual charges actually taken from one fund (percent), for its first unit class.

    Its total fee and expense line when it has one, else management + trustee + registrar. Actual
    values only, never prospectus ceilings; None when nothing was charged or published.
    """
    fees = first_class_rows(fees, by=None)
    if fees.empty:
        return None
    return fee_total(zip(fees["fee_type_desc"], fees["actual_value_num"]))


def fee_total(lines: Iterable[tuple[object, object]]) -> float | None:
    """The rule itself, over one unit class's (fee_type_desc as sent, value) lines: the total fee and
    expense line when there is one, else management + trustee + registrar; None when no such line has a
    value. Lines are recognised only by the spellings the layouts are documented to send
    (`labels.fee_type_key`): a line of any other text is never counted. The market store applies the rule
    to charged values and to ceilings alike, each on its own."""
    kinds = [(fee_type_key(name), _number(value)) for name, value in lines]
    kinds = [(kind, value) for kind, value in kinds if kind is not None and value is not None]
    total = [value for kind, value in kinds if kind == TOTAL_FEE_KIND]
    if total:
        return total[0]
    recurring = [value for kind, value in kinds if kind in RECURRING_FEE_KINDS]
    return float(sum(recurring)) if recurring else None


def one_year_return(performance: pd.DataFrame) -> float | None:
    """One fund's 1-year fund return (percent): the first unit class listed that has one."""
    perf = performance[(performance["performance_kind"] == "fund_return")
                       & (performance["reference_period_order"] == ONE_YEAR)]
    values = perf["performance_val"].dropna()
    return float(values.iloc[0]) if not values.empty else None


def period_words(frame: pd.DataFrame) -> pd.Series:
    """Look-back periods in words ("since inception", not the key "inception date")."""
    raw = frame["reference_period"]
    named = raw.map(lambda p: label("reference_period", p, "en") or p)
    words = frame["reference_period_label_en"].fillna(named) if "reference_period_label_en" in frame else named
    return words.astype(str)


def performance_pivot(performance: pd.DataFrame | None, class_name: str | None = None) -> pd.DataFrame:
    """One fund's past performance: a row per reference period (shortest first), a column per kind.

    Columns: `period` (the service's English label, else its key), every kind of
    PERFORMANCE_KINDS (percent; all missing where the fund publishes none of that kind) and
    `as_of` (ISO date text of the period's latest figure). `class_name` keeps one unit class
    (SINGLE_CLASS for a fund without classes); None keeps every row.
    """
    columns = ["period", *PERFORMANCE_KINDS, "as_of"]
    empty = pd.DataFrame({"period": pd.Series(dtype=str), **{k: pd.Series(dtype="float64") for k in PERFORMANCE_KINDS},
                          "as_of": pd.Series(dtype=str)})
    if performance is None or performance.empty:
        return empty
    data = performance
    if class_name is not None:
        data = data[class_key(data) == class_name]
    data = data.dropna(subset=["performance_kind"])
    if data.empty:
        return empty
    data = data.assign(period=data["reference_period_label_en"].fillna(data["reference_period"]).astype(str))
    order = data.groupby("period")["reference_period_order"].min().sort_values(na_position="last", kind="stable")
    wide = data.pivot_table(index="period", columns="performance_kind", values="performance_val", aggfunc="first")
    wide = wide.reindex(index=order.index, columns=list(PERFORMANCE_KINDS))
    wide.columns = list(PERFORMANCE_KINDS)
    as_of = data.groupby("period")["as_of_date"].max().reindex(wide.index)
    wide["as_of"] = as_of.dt.strftime("%Y-%m-%d") if pd.api.types.is_datetime64_any_dtype(as_of) else as_of
    return wide.reset_index()[columns]


def fund_returns(performance: pd.DataFrame) -> pd.DataFrame:
    """Fund returns across funds, long: each fund's first unit class, rows with a figure, shortest period first.

    Takes a performance frame with `proj_id` and `fund` columns (FundBasket.performance_frame) and
    adds `class` (the class key) and `period` (in words).
    """
    data = performance[performance["performance_kind"] == "fund_return"]
    data = first_class_rows(data)
    data = data.dropna(subset=["performance_val"])
    data = data.sort_values("reference_period_order", kind="stable")
    return data.assign(**{"class": class_key(data), "period": period_words(data)})


def returns_by_fund(performance: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Fund returns across funds, wide: a row per fund (`proj_id`, `fund`, `class`), a column per period in words.

    Rows follow `order` (proj_ids) when given, else the order funds first appear; periods run
    shortest first. Funds without any fund return are left out.
    """
    long = fund_returns(performance)
    if long.empty:
        return pd.DataFrame(columns=["proj_id", "fund", "class"])
    periods = long["period"].drop_duplicates().tolist()
    wide = long.pivot_table(index="proj_id", columns="period", values="performance_val", aggfunc="first")
    ids = [p for p in (order if order is not None else dict.fromkeys(performance["proj_id"])) if p in wide.index]
    firsts = long.drop_duplicates("proj_id").set_index("proj_id")
    out = wide.reindex(index=ids, columns=periods)
    out.columns = [str(c) for c in out.columns]
    out.insert(0, "class", firsts.loc[ids, "class"].astype(str).to_numpy() if ids else [])
    out.insert(0, "fund", firsts.loc[ids, "fund"].astype(str).to_numpy() if ids else [])
    out.index.name = "proj_id"
    return out.reset_index()


def _number(value: Any) -> float | None:
    number = to_number(value)
    return None if number is None or not math.isfinite(number) else float(number)


def project_term(project_type: dict | None) -> str:
    """The project's term as text ("2 years, 6 months"): the stated years, months and days that are not
    zero; "" when no length is stated (a fund without a fixed term, or a term the service left out)."""
    parts = []
    for key, unit in TERM_UNITS:
        number = _number((project_type or {}).get(key))
        if number:
            parts.append(f"{number:,.0f} {unit}")
    return ", ".join(parts)


def risk_row(proj_id: str, record: dict | None, suitability: dict | None, fees: pd.DataFrame | None,
             performance: pd.DataFrame | None) -> dict:
    """One fund's row of a risk frame: names, status, risk level, total annual fee and 1-year return."""
    fund, suit = record or {}, suitability or {}
    return {
        "fund": fund_label(record, proj_id),
        "proj_id": proj_id,
        "name_en": fund.get("proj_name_en"),
        "name_th": fund.get("proj_name_th"),
        "fund_status": fund.get("fund_status"),
        "risk_spectrum": suit.get("risk_spectrum"),
        "risk_level": suit.get("risk_level_label"),
        "risk_rank": suit.get("risk_rank"),
        "total_annual_fee": total_annual_fee(fees) if fees is not None else None,
        "return_1y": one_year_return(performance) if performance is not None and not performance.empty else None,
    }


def risk_frame(rows: list[dict]) -> pd.DataFrame:
    """Risk rows (risk_row) as a frame with RISK_COLUMNS and fixed dtypes (numbers float, text string)."""
    frame = pd.DataFrame(rows, columns=RISK_COLUMNS)
    for col in ("risk_rank", "total_annual_fee", "return_1y"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
    for col in ("fund", "proj_id", "name_en", "name_th", "fund_status", "risk_spectrum", "risk_level"):
        frame[col] = frame[col].astype("string")
    return frame

"""The market store's derived table `fund_figures`: one fee and one return figure per fund, by the
models' rules, so the screener sorts and filters on them without reading every fee line."""

from __future__ import annotations

import duckdb

from dashboard.market.tables import record_frame
from dashboard.models.fee_drag import charged_number
from dashboard.models.fund import fee_total
from dashboard.records.labels import REFERENCE_PERIOD_ORDER

ONE_YEAR_ORDER = REFERENCE_PERIOD_ORDER["1 year"]


def total_fee(rows: list[tuple], column: int) -> float | None:
    """The models' total-annual-fee rule over one class's fee rows (fee_type_desc as sent in column 3)."""
    return fee_total((r[3], r[column]) for r in rows)


def total_fee_charged(rows: list[tuple]) -> float | None:
    """The total-annual-fee rule over one class's charged figures (column 6, its text as sent in column 7): a fee
    sent as waived ("ยกเว้น") is 0 charged, as the fee drag reads it (models.fee_drag.charged_number); read as no
    figure, a waived total expense left the screener's cost of 100,000 THB over 10 years empty."""
    return fee_total((r[3], charged_number(r[6], r[7])) for r in rows)


def refresh_fund_figures(con: duckdb.DuckDBPyConnection) -> None:
    """Rewrite `fund_figures` from the fees and performance stored (in the caller's transaction).

    The models' rules: the first unit class (by name, so both layouts agree), the total fee and expense
    line else management + trustee + registrar, as charged and as ceiling apart; the 1-year fund return
    of the first class that has one."""
    fees = con.execute("SELECT proj_id, seq, class_abbr_name, fee_type_desc, fee_type_en, rate_num, "
                       "actual_value_num, actual_value FROM fees ORDER BY proj_id, coalesce(class_abbr_name, ''), seq").fetchall()
    perf = con.execute("SELECT proj_id, seq, performance_kind, reference_period_order, performance_val "
                       "FROM performance ORDER BY proj_id, coalesce(class_abbr_name, ''), seq").fetchall()
    figures: dict[str, dict] = {}
    by_fund: dict[str, list] = {}
    for row in fees:
        by_fund.setdefault(row[0], []).append(row)
    for proj_id, rows in by_fund.items():
        first = rows[0][2]
        rows = [r for r in rows if r[2] == first]
        figures.setdefault(proj_id, {})["total_fee_actual"] = total_fee_charged(rows)
        figures[proj_id]["total_fee_ceiling"] = total_fee(rows, 5)
    for row in perf:
        proj_id, _seq, kind, order, value = row
        if kind == "fund_return" and order == ONE_YEAR_ORDER and value is not None:
            figures.setdefault(proj_id, {}).setdefault("return_1y", value)
    con.execute("DELETE FROM fund_figures")
    if figures:
        frame = record_frame("fund_figures", [{"proj_id": p, **f} for p, f in sorted(figures.items())])
        con.register("_figures", frame)
        con.execute("INSERT INTO fund_figures SELECT * FROM _figures")
        con.unregister("_figures")

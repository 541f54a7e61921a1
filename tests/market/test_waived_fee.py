"""A total expense sent as waived ("ยกเว้น", the legacy layout's text; the real K-FEQ factsheet waives its front- and
back-end fees so) is 0 charged: the screener's fee and its cost of 100,000 THB over 10 years (SQL) agree with the
fee drag (models.fee_drag), which read it so already. Before, the store read it as no figure: no cost in the screener.
"""

from __future__ import annotations

import pytest

from dashboard.market import queries
from dashboard.market.figures import refresh_fund_figures
from dashboard.models.fee_drag import ClassFees, fee_drag
from tests.market.conftest import copy_of


def test_a_waived_total_expense_costs_only_the_one_off_fees(synced, tmp_path):
    _market, store, _result = synced
    with copy_of(store, tmp_path / "market.duckdb") as copy:
        # a fund whose first class has a total fee and expense line (the models' rule reads that line first)
        line = copy.query(
            "SELECT f.proj_id, f.seq FROM fees f JOIN (SELECT proj_id, min(coalesce(class_abbr_name, '')) AS class "
            "FROM fees GROUP BY proj_id) c ON c.proj_id = f.proj_id AND c.class = coalesce(f.class_abbr_name, '') "
            "WHERE f.fee_type_desc LIKE '%Total Fee%' AND f.actual_value_num IS NOT NULL ORDER BY f.proj_id LIMIT 1")[0]
        proj_id = line["proj_id"]
        copy.con.execute("UPDATE fees SET actual_value = 'ยกเว้น', actual_value_num = NULL WHERE proj_id = ? AND seq = ?",
                         [proj_id, line["seq"]])
        refresh_fund_figures(copy.con)
        row = next(r for r in queries.screen(copy) if r["proj_id"] == proj_id)
        one_off = copy.query(queries._ONE_OFF_FEES_SQL.replace("GROUP BY e.proj_id", "AND e.proj_id = ? GROUP BY e.proj_id"),
                             [proj_id])
    front = (one_off[0]["front"] if one_off else None) or 0.0
    back = (one_off[0]["back"] if one_off else None) or 0.0
    assert row["total_fee_actual"] == 0.0
    # by hand: 100,000 x 1.05^10 = 162,889.46 without fees; with none each year, only the front-end fee on buying
    # and the back-end fee on selling take a part of it
    expected = 100_000 * 1.05 ** 10 * (1 - (1 - front / 100) * (1 - back / 100))
    assert row["cost_100k_10y"] == pytest.approx(expected, abs=0.01)
    assert row["cost_100k_10y"] == pytest.approx(fee_drag(100_000, 10, 5.0, ClassFees(0.0, front, back)).cost, abs=0.01)

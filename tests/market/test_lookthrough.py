"""Holdings looked through (funds of Thai funds): figures worked out by hand on a small store built here.

The store (quarter 202606 unless said):
  TOP: MID 50 % (500 baht), EQA's class by its ISIN 30 % (300), GHOST 10 % (fund units, not in the store),
       a deposit BANK-SA 10 %.
  MID (only 202603 stored): EQA by abbreviation 60 % (600), BND's class BND-R 40 % (400).
  EQA: PTT 50 %, SCB 50 % (and in 202609, later than asked: PTT 100 %).
  BND: GOV1 80 %, PTT 20 %, its NAV total line (903) 100 %.
  CYA: CYB 40 % (400), PTT 60 %;  CYB: CYA 50 % (500), SCB 50 %   (a cycle).
  X: NOH 20 % (a stored fund without holdings), PTT 80 %.
By hand, TOP looked through: through MID (share 0.5) and EQA (0.6): PTT 15 %, SCB 15 %; through MID and BND (0.4):
GOV1 16 %, PTT 4 %; through EQA (0.3): PTT 15 %, SCB 15 %; GHOST 10 %, BANK-SA 10 % kept.
So PTT 34 % (340 baht), SCB 30 %, GOV1 16 %: 100 % in all.
"""

from __future__ import annotations

import pytest

from dashboard.market import holdings
from dashboard.market.lookthrough import (CYCLE, NO_HOLDINGS, NOT_IN_STORE, Link, expand, look_through)
from dashboard.market.store import MarketStore

Q = "202606"
PTT, SCB, GOV = "TH0646010015", "TH0015010018", "TH0623000001"
EQA_ISIN = "TH7001A00010"


def line(proj_id, code, pct, value=None, *, isin="-", kind="101", period=Q, issuer="Demo issuer"):
    return {"proj_id": proj_id, "period": period, "assetliab_id": kind, "issue_code": code, "isin_code": isin,
            "issuer": issuer, "percent_nav": pct, "assetliab_value": pct * 10 if value is None else value,
            "is_nav_total": kind == "903"}


@pytest.fixture
def store(tmp_path):
    store = MarketStore(tmp_path / "market.duckdb")
    funds = [{"proj_id": p, "proj_abbr_name": a} for p, a in (
        ("M0001_2560", "TOP"), ("M0002_2560", "MID"), ("M0003_2560", "EQA"), ("M0004_2560", "BND"),
        ("M0005_2560", "CYA"), ("M0006_2560", "CYB"), ("M0007_2560", "X"), ("M0008_2560", "NOH"))]
    classes = [{"proj_id": "M0003_2560", "class_abbr_name": "EQA-A", "fund_class_isin_code": EQA_ISIN},
               {"proj_id": "M0004_2560", "class_abbr_name": "BND-R", "fund_class_isin_code": None}]
    store.swap("funds", {"funds": funds, "classes": classes}, extra_meta=("classes",))
    rows = [
        line("M0001_2560", "MID", 50, kind="104"), line("M0001_2560", "EQA-A", 30, isin=EQA_ISIN, kind="104"),
        line("M0001_2560", "GHOST", 10, kind="104"), line("M0001_2560", "BANK-SA", 10, kind="301"),
        line("M0002_2560", "EQA", 60, kind="104", period="202603"),
        line("M0002_2560", "BND-R", 40, kind="104", period="202603"),
        line("M0003_2560", "PTT", 50, isin=PTT), line("M0003_2560", "SCB", 50, isin=SCB),
        line("M0003_2560", "PTT", 100, isin=PTT, period="202609"),
        line("M0004_2560", "GOV1", 80, isin=GOV, kind="201"), line("M0004_2560", "PTT", 20, isin=PTT),
        line("M0004_2560", "-", 100, kind="903"),
        line("M0005_2560", "CYB", 40, kind="104"), line("M0005_2560", "PTT", 60, isin=PTT),
        line("M0006_2560", "CYA", 50, kind="104"), line("M0006_2560", "SCB", 50, isin=SCB),
        line("M0007_2560", "NOH", 20, kind="104"), line("M0007_2560", "PTT", 80, isin=PTT),
    ]
    store.swap("holdings", {"holdings": rows})
    yield store
    store.close()


def weights(rows, proj_id):
    return {r["issue_code"]: round(r["percent_nav"], 6) for r in rows if r["proj_id"] == proj_id}


def lines_of(store, proj_id):
    from dashboard.market.lookthrough import lines_sql
    view = look_through(store, Q, [proj_id])
    sql, params, frames = lines_sql(view, only=[proj_id])
    rows = store.query(f"{sql} SELECT issue_code, sum(percent_nav) AS pct, sum(assetliab_value) AS baht, "
                       "string_agg(DISTINCT through, '; ' ORDER BY through) AS through FROM lt_lines "
                       "GROUP BY issue_code", params, frames=frames)
    return {r["issue_code"]: (round(r["pct"], 6), round(r["baht"], 6), r["through"]) for r in rows}, view


def test_a_fund_of_funds_two_levels_deep_by_hand(store):
    lines, view = lines_of(store, "M0001_2560")
    assert lines == {"PTT": (34.0, 340.0, "EQA; MID > BND; MID > EQA"), "SCB": (30.0, 300.0, "EQA; MID > EQA"),
                     "GOV1": (16.0, 160.0, "MID > BND"), "GHOST": (10.0, 100.0, ""), "BANK-SA": (10.0, 100.0, "")}
    assert sum(v[0] for v in lines.values()) == pytest.approx(100.0)
    # MID's holdings are its latest quarter at or before the one asked; EQA's those of 202606, not 202609
    assert {(u.fund, u.period) for u in view.units} == {("M0001_2560", Q), ("M0002_2560", "202603"),
                                                        ("M0003_2560", Q), ("M0004_2560", Q)}
    assert [(n.holder, n.code, n.percent_nav, n.reason) for n in view.not_expanded] == [
        ("M0001_2560", "GHOST", 10.0, NOT_IN_STORE)]
    assert "GHOST" in view.summary() and "2 levels deep" in view.summary()


def test_a_cycle_is_expanded_once_and_named(store):
    lines, view = lines_of(store, "M0005_2560")
    assert lines == {"PTT": (60.0, 600.0, ""), "SCB": (20.0, 200.0, "CYB"), "CYA": (20.0, 200.0, "CYB")}
    assert [(n.root, n.holder, n.code, n.percent_nav, n.reason) for n in view.not_expanded] == [
        ("M0005_2560", "M0006_2560", "CYA", 20.0, CYCLE)]


def test_a_stored_fund_without_holdings_is_named(store):
    lines, view = lines_of(store, "M0007_2560")
    assert lines == {"PTT": (80.0, 800.0, ""), "NOH": (20.0, 200.0, "")}
    assert [(n.code, n.reason) for n in view.not_expanded] == [("NOH", NO_HOLDINGS)]


def test_most_held_direct_and_looked_through(store):
    direct = {r["security"]: r for r in holdings.most_held(store, Q, limit=None)}
    through = {r["security"]: r for r in holdings.most_held(store, Q, limit=None, looked_through=True)}
    assert direct[PTT]["funds"] == 4  # EQA, BND, CYA, X
    assert through[PTT]["funds"] == 6  # and TOP (three ways, counted once), CYB through CYA
    # the mean share of NAV over the six: (34 + 50 + 20 + 60 + 30 + 80) / 6
    assert through[PTT]["percent_nav_avg"] == pytest.approx(274 / 6)
    assert direct[SCB]["funds"] == 2 and through[SCB]["funds"] == 4
    assert "MID" not in through  # expanded, no longer a holding of TOP


def test_holders_looked_through_name_the_funds_between(store):
    rows = holdings.holders(store, "PTT", Q, looked_through=True)
    got = {r["proj_abbr_name"]: (round(r["percent_nav"], 6), r["through"]) for r in rows}
    assert got == {"X": (80.0, ""), "CYA": (60.0, ""), "EQA": (50.0, ""), "TOP": (34.0, "EQA; MID > BND; MID > EQA"),
                   "CYB": (30.0, "CYA"), "BND": (20.0, "")}
    assert [r["proj_abbr_name"] for r in holdings.holders(store, "PTT", Q)] == ["X", "CYA", "EQA", "BND"]


def test_overlap_looked_through(store):
    direct = holdings.overlap(store, ["TOP", "CYA"], Q)
    assert direct["overlap_pct"] == {"M0001_2560|M0005_2560": 0.0}
    through = holdings.overlap(store, ["TOP", "CYA"], Q, looked_through=True)
    # PTT: min(34, 60); SCB: min(30, 20)
    assert through["overlap_pct"] == {"M0001_2560|M0005_2560": 54.0}
    assert "GHOST" in through["looked_through_note"] and "cycle" in through["looked_through_note"]


def test_expand_alone_scales_every_level():
    links = {("A", Q): [Link("A", Q, "B", "B", "B", 50.0, 500.0)],
             ("B", Q): [Link("B", Q, "C", "C", "C", 20.0, 100.0)],
             ("C", Q): [Link("C", Q, "A", "A", "A", 10.0, 10.0)]}
    units, left = expand({"A": Q}, links, {"A": Q, "B": Q, "C": Q})
    assert [(u.fund, u.share, u.baht, u.depth) for u in units] == [("A", 1.0, None, 0), ("B", 0.5, 500.0, 1),
                                                                   ("C", 0.1, 100.0, 2)]
    assert [(n.holder, n.code, round(n.percent_nav, 9), n.reason) for n in left] == [("C", "A", 1.0, CYCLE)]


def test_a_basket_with_amounts_looked_through_adds_the_same_security_up(store):
    from dashboard.market.basket_holdings import basket_holdings

    rows, view, left_out = basket_holdings(store, {"M0001_2560": 1_000_000, "M0005_2560": 500_000,
                                                   "M0007_2560": 250_000, "M0002_2560": 100_000}, Q)
    got = {r["issue_code"]: (round(r["baht"], 6), round(r["percent"], 6), r["funds"]) for r in rows}
    # PTT: TOP 34 % of 1 M + CYA 60 % of 500 k + X 80 % of 250 k = 340k + 300k + 200k = 840k, of 1.85 M
    assert got["PTT"] == (840_000.0, round(100 * 840_000 / 1_850_000, 6), 3)
    # SCB: TOP 30 % of 1 M + CYA 20 % of 500 k (through CYB) = 400k
    assert got["SCB"] == (400_000.0, round(100 * 400_000 / 1_850_000, 6), 2)
    assert next(r["through"] for r in rows if r["issue_code"] == "PTT") == "CYA; TOP; X"  # the basket funds, by name
    assert left_out == ["M0002_2560"]  # MID has no holdings in the quarter asked
    assert "GHOST" in view.summary()

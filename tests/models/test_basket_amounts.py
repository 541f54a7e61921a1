"""A basket that holds amounts: what the amounts add up to, with values worked out by hand, and bad input refused
whole (one line, nothing changed; a CSV's unknown funds listed, the rest kept)."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.errors import BadInputError
from dashboard.models.basket_amounts import (BasketAmounts, amounts_csv, parse_amount, portfolio_nav,
                                             read_amounts_csv, weighted_allocation, weighted_expense)


@pytest.mark.parametrize("text, value", [("100000", 100000.0), ("100,000", 100000.0), ("250000 baht", 250000.0),
                                         ("฿ 1,000.50", 1000.5), ("1.5e5", 150000.0), (" 7 บาท", 7.0)])
def test_amounts_as_typed(text, value):
    assert parse_amount(text) == value


@pytest.mark.parametrize("text, says", [("", "empty amount"), ("abc", "not an amount"), ("0", "more than 0"),
                                        ("-5", "more than 0"), ("nan", "more than 0"), ("1e20", "more than this basket"),
                                        ("1e309", "more than this basket"), ("inf", "more than this basket")])
def test_bad_amounts_are_one_line(text, says):
    with pytest.raises(BadInputError, match=says) as err:
        parse_amount(text)
    assert "\n" not in str(err.value)


def test_weighted_allocation_by_hand():
    allocation = pd.DataFrame({"proj_id": ["A", "A", "B", "B"], "asset_name": ["equity", "bonds", "bonds", "cash"],
                               "asset_ratio": [80.0, 20.0, 50.0, 50.0]})
    frame, left_out = weighted_allocation(allocation, {"A": 600_000, "B": 400_000, "C": 100_000})
    # equity 600k x 80 % = 480k; bonds 600k x 20 % + 400k x 50 % = 320k; cash 200k; of the 1 M with an allocation
    assert frame.to_dict("records") == [{"asset_name": "equity", "percent": 48.0, "baht": 480_000.0},
                                        {"asset_name": "bonds", "percent": 32.0, "baht": 320_000.0},
                                        {"asset_name": "cash", "percent": 20.0, "baht": 200_000.0}]
    assert left_out == ["C"]


def test_weighted_expense_and_its_yearly_baht_by_hand():
    cost = weighted_expense({"A": 1.5, "B": 0.5, "C": None}, {"A": 600_000, "B": 400_000, "C": 100_000})
    # 600k x 1.5 % + 400k x 0.5 % = 9,000 + 2,000 = 11,000 baht a year, over the 1 M with a fee: 1.1 %
    assert cost.yearly_baht == pytest.approx(11_000.0)
    assert cost.percent == pytest.approx(1.1)
    assert cost.covered == 1_000_000 and cost.left_out == ["C"]


def test_the_basket_as_one_portfolio_by_hand():
    d = pd.to_datetime(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"])
    navs = {"A": pd.Series([10.0, 11.0, 12.0], index=d[1:]), "B": pd.Series([5.0, 5.5], index=[d[0], d[2]]),
            "C": pd.Series([], dtype="float64")}
    start, value, left_out = portfolio_nav(navs, {"A": 100.0, "B": 200.0, "C": 50.0})
    # bought on 2 Jan (A's first NAV; B's NAV of 1 Jan stands): 100 + 200 = 300; 3 Jan 110 + 220; 4 Jan 120 + 220
    assert str(start) == "2026-01-02"
    assert value.round(9).tolist() == [300.0, 330.0, 340.0]
    assert left_out == ["C"]


def test_a_csv_with_unknown_funds_lists_them_and_keeps_the_rest():
    basket = BasketAmounts()
    known = {"DAM-EQ": "M0001_2560", "M0002_2560": "M0002_2560"}
    text = "Fund,Class,Amount\nDAM-EQ,DAMEQ-A,\"100,000\"\nNOPE,,5000\nM0002_2560,,250000\n"
    unknown = basket.load_csv(text, lambda f: known.get(f.upper()))
    assert unknown == ["NOPE"] and basket.unknown == ["NOPE"]
    assert basket.amounts == {"M0001_2560": 100_000.0, "M0002_2560": 250_000.0}
    assert basket.classes == {"M0001_2560": "DAMEQ-A"}
    # and it writes back what it reads
    again = BasketAmounts()
    again.load_csv(amounts_csv(basket.amounts, basket.classes, {"M0001_2560": "DAM-EQ"}), lambda f: known.get(f.upper()))
    assert again.amounts == basket.amounts and again.classes == basket.classes


@pytest.mark.parametrize("text, says", [
    ("", "empty"), ("fund,class\nA,", "must name its columns"), ("fund,amount\nA,lots\n", "line 2 \\(A\\)"),
    ("fund,amount\nA,100\nA,200\n", "line 3"), ("fund,amount\n", "no fund under it"),
    ("fund,amount\n,100\n", "line 2: no fund")])
def test_a_malformed_csv_changes_nothing(text, says):
    basket = BasketAmounts()
    basket.set_amount("M0001_2560", "5,000")
    with pytest.raises(BadInputError, match=says) as err:
        basket.load_csv(text, lambda f: f)
    assert "\n" not in str(err.value)
    assert basket.amounts == {"M0001_2560": 5000.0}


def test_a_csv_of_only_unknown_funds_changes_nothing():
    basket = BasketAmounts()
    basket.set_amount("M0001_2560", "5000")
    with pytest.raises(BadInputError, match="no fund of the CSV is known"):
        basket.load_csv("fund,amount\nX,1\n", lambda f: None)
    assert basket.amounts == {"M0001_2560": 5000.0}


def test_a_typed_amount_that_is_bad_changes_nothing():
    basket = BasketAmounts()
    basket.set_amount("A", "1000")
    with pytest.raises(BadInputError):
        basket.set_amount("A", "ten")
    assert basket.amounts == {"A": 1000.0}
    basket.set_amount("A", "")
    assert basket.amounts == {}


def test_read_amounts_csv_takes_excel_bytes():
    lines = read_amounts_csv("\ufefffund,amount\r\nDAM-EQ,1000\r\n".encode("utf-8-sig"))
    assert [(l.fund, l.unit_class, l.amount) for l in lines] == [("DAM-EQ", "", 1000.0)]


def test_the_link_carries_amounts_only_when_opted_in():
    from dashboard.models.dashboard_state import DashboardState

    state = DashboardState()
    state.apply_url({"basket": "M0001_2560,M0002_2560"})
    state.amounts.set_amount("M0001_2560", "100,000")
    assert state.url_state()["amounts"] == ""  # nothing in the link until its holder opts in
    state.amounts.in_link = True
    assert state.url_state()["amounts"] == "M0001_2560:100000"
    state.amounts.in_link = False
    assert state.url_state()["amounts"] == ""


def test_a_link_with_amounts_sets_them_and_a_bad_one_changes_nothing():
    from dashboard.models.dashboard_state import DashboardState

    state = DashboardState()
    ignored = state.apply_url({"basket": "M0001_2560,M0002_2560",
                               "amounts": "M0001_2560:1000,M0002_2560:2500.5:DAMEQ-A"})
    assert ignored == []
    assert state.amounts.amounts == {"M0001_2560": 1000.0, "M0002_2560": 2500.5}
    assert state.amounts.classes == {"M0002_2560": "DAMEQ-A"} and state.amounts.in_link
    assert state.url_state()["amounts"] == "M0001_2560:1000,M0002_2560:2500.5:DAMEQ-A"
    ignored = state.apply_url({"basket": "M0001_2560,M0002_2560", "amounts": "M0001_2560:lots"})
    assert ignored == ["amounts=M0001_2560:lots"]
    assert state.amounts.amounts == {"M0001_2560": 1000.0, "M0002_2560": 2500.5}
    # a fund leaving the basket takes its amount with it
    state.basket.remove("M0002_2560")
    assert state.amounts.amounts == {"M0001_2560": 1000.0}

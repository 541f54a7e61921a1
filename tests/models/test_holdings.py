"""HoldingsByQuarter: quarters, tables, totals as reported, the weights matrix and what changed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal, assert_series_equal

from dashboard.errors import BadInputError
from dashboard.api.periods import valid_periods
from dashboard.models.factsheet import FundFactsheet
from dashboard.models.holdings import (
    CHANGE_ORDER,
    HoldingsByQuarter,
    portfolio_lines,
    quarter_label,
    security_label,
    split_nav_total,
)
from dashboard.records import normalise_payload, records_frame
from dashboard.models.source import run
from tests.conftest import TODAY

PERIODS = valid_periods(TODAY)  # newest first, 12 quarters


def holding(code, pct, *, isin=None, issuer=None, value=None, asset="101", as_of="2026-06-30"):
    return {"last_upd_date": "2026-08-01T10:00:00.5", "as_of_date": as_of, "assetliab_id": asset, "issue_code": code,
            "isin_code": isin or "-", "issuer": issuer or f"{code} PCL", "assetliab_value": str(value or pct * 1e6),
            "percent_nav": str(pct)}


def frame(rows):
    return records_frame("holding", normalise_payload("holding", rows, list_expected=True))


def sheet_with(holdings: dict[str, list[dict]]) -> FundFactsheet:
    sheet = FundFactsheet()
    sheet.param.update(periods=list(PERIODS), holdings={p: frame(rows) for p, rows in holdings.items()})
    return sheet


LATEST, PREVIOUS, OLDER = PERIODS[0], PERIODS[1], PERIODS[2]
BASE = {
    LATEST: [holding("AAA", 40.0), holding("BBB", 35.1), holding("NEW", 25.0),
             holding("-", 100.1, asset="903", issuer="NAV total")],
    PREVIOUS: [holding("AAA", 30.0), holding("BBB", 35.1), holding("OLD", 20.0), holding("CCC", 15.0)],
    # OLDER has no data: the fund did not publish that quarter
}


@pytest.fixture
def model():
    return HoldingsByQuarter(factsheet=sheet_with(BASE))


def test_quarter_label():
    assert quarter_label("202606") == "Q2 2026"  # one spelling everywhere (issue 40: "2026-06" on charts)
    assert quarter_label("202312") == "Q4 2023"
    assert quarter_label(None) == "" and quarter_label("x") == "x"


def test_every_valid_quarter_is_offered_and_the_latest_with_data_is_chosen(model):
    assert model.periods == PERIODS and len(model.periods) == 12
    assert model.periods_with_data == [LATEST, PREVIOUS]
    assert model.period == LATEST
    assert (model.compare_from, model.compare_to) == (PREVIOUS, LATEST)


def test_a_new_factsheet_resets_the_choices_it_cannot_keep(model):
    model.period = PREVIOUS
    model.factsheet.holdings = {OLDER: frame([holding("ZZZ", 99.0)])}
    assert model.period == OLDER
    assert (model.compare_from, model.compare_to) == (None, OLDER)
    model.factsheet.holdings = {}
    assert model.period is None and model.table().empty and model.total_percent() is None


def test_a_choice_still_offered_is_kept(model):
    model.period = PREVIOUS
    model.factsheet.holdings = dict(model.factsheet.holdings)  # a reload of the same fund
    assert model.period == PREVIOUS


def test_nav_total_lines_are_not_holdings(model):
    lines = model.lines()
    assert "903" not in set(lines["assetliab_id"].dropna())
    assert list(model.table()["security"]) == ["AAA", "BBB", "NEW"]


def test_records_and_frames_follow_one_nav_total_rule(model):
    records = normalise_payload("holding", BASE[LATEST], list_expected=True)
    holdings, totals = split_nav_total(records)
    assert [r["assetliab_id"] for r in totals] == ["903"] and len(holdings) == len(model.lines())
    assert split_nav_total([{"is_nav_total": None, "assetliab_id": "101"}])[1] == []


def test_total_percent_is_shown_as_reported_even_above_100(model):
    assert model.total_percent() == pytest.approx(100.1)  # 40 + 35.1 + 25: not "fixed" to 100
    assert model.total_percent(PREVIOUS) == pytest.approx(100.1)
    assert model.total_value() == pytest.approx(100.1e6)


def test_a_quarter_without_data_is_empty_and_an_invalid_one_is_refused(model):
    assert model.table(OLDER).empty and model.total_percent(OLDER) is None and not model.has_data(OLDER)
    with pytest.raises(BadInputError, match="not a valid quarter"):
        model.table("202607")
    with pytest.raises(ValueError):
        model.period = "202001"  # not among the selector's objects


def test_table_columns_and_order(model):
    table = model.table()
    assert list(table.columns) == ["security", "issue_code", "isin_code", "issuer", "assetliab_id", "assetliab_value", "percent_nav"]
    assert table["percent_nav"].is_monotonic_decreasing
    assert model.top(n=2)["security"].tolist() == ["AAA", "BBB"]
    assert model.as_of() == "2026-06-30"


def test_security_label_falls_back_to_isin_then_issuer():
    rows = frame([holding("-", 1.0, isin="TH0000000001"), {**holding("-", 2.0), "issuer": "Only Issuer"},
                  {**holding("-", 3.0), "issuer": "-"}])
    assert security_label(rows).tolist() == ["TH0000000001", "Only Issuer", "(unnamed)"]
    assert portfolio_lines(None).empty and "security" in portfolio_lines(None)


def test_weights_span_every_valid_quarter_oldest_first(model):
    weights = model.weights()
    assert list(weights.columns) == sorted(PERIODS)
    assert weights.index.tolist()[:2] == ["BBB", "AAA"]  # largest average weight first (70.2 > 70)
    assert weights.loc["AAA", LATEST] == 40.0 and weights.loc["AAA", PREVIOUS] == 30.0
    assert np.isnan(weights.loc["NEW", PREVIOUS]) and weights[OLDER].isna().all()
    assert weights.shape == (5, 12)
    assert model.weights(max_securities=2).shape == (2, 12)


def test_weights_of_a_fund_without_holdings():
    empty = HoldingsByQuarter(factsheet=sheet_with({}))
    weights = empty.weights()
    assert weights.empty and list(weights.columns) == sorted(PERIODS)


def test_changes_between_two_quarters(model):
    changes = model.changes()
    expected = pd.DataFrame({
        "security": pd.array(["NEW", "AAA", "BBB", "OLD", "CCC"], dtype="string"),
        "issuer": pd.array(["NEW PCL", "AAA PCL", "BBB PCL", "OLD PCL", "CCC PCL"], dtype="string"),
        "weight_from": [np.nan, 30.0, 35.1, 20.0, 15.0],
        "weight_to": [25.0, 40.0, 35.1, np.nan, np.nan],
        "change_pp": [25.0, 10.0, 0.0, -20.0, -15.0],
        "change": pd.Categorical(["new", "increased", "unchanged", "exited", "exited"], categories=CHANGE_ORDER, ordered=True),
    })
    assert_frame_equal(changes, expected, check_exact=False)
    assert model.change_counts() == {"new": 1, "increased": 1, "decreased": 0, "unchanged": 1, "exited": 2}
    # order of the two quarters does not matter
    assert_frame_equal(model.changes(LATEST, PREVIOUS), changes)


def test_changes_need_two_different_quarters_with_data(model):
    with pytest.raises(BadInputError, match="two different"):
        model.changes(LATEST, LATEST)
    assert model.changes(OLDER, LATEST).empty  # no data for OLDER: nothing can be said
    assert list(model.changes(OLDER, LATEST).columns) == ["security", "issuer", "weight_from", "weight_to", "change_pp", "change"]


def test_a_small_flicker_is_unchanged_and_a_drop_is_decreased():
    sheet = sheet_with({LATEST: [holding("A", 10.002), holding("B", 5.0)], PREVIOUS: [holding("A", 10.0), holding("B", 6.0)]})
    model = HoldingsByQuarter(factsheet=sheet)
    changes = model.changes().set_index("security")["change"].astype(str)
    assert_series_equal(changes, pd.Series({"B": "decreased", "A": "unchanged"}, name="change").rename_axis("security"),
                        check_index_type=False)


def test_duplicate_lines_of_one_security_add_up():
    sheet = sheet_with({LATEST: [holding("DEP", 3.0, issuer="Bank A"), holding("DEP", 2.0, issuer="Bank A")]})
    model = HoldingsByQuarter(factsheet=sheet)
    assert model.weights().loc["DEP", LATEST] == 5.0
    assert len(model.table()) == 2  # the full table keeps every line as the service sent it


def test_on_the_demo_data(demo_client, dataset):
    fund = next(f for f in dataset.funds if len(dataset.holdings.get(f["proj_id"], {})) >= 2)
    sheet = run(FundFactsheet(client=demo_client).load(fund["proj_id"], fund=fund))
    model = HoldingsByQuarter(factsheet=sheet)
    assert model.period == sheet.latest_period
    latest_rows = dataset.holdings[fund["proj_id"]][model.period]
    expected = sum(float(r["percent_nav"]) for r in latest_rows if r["assetliab_id"] != "903")
    assert model.total_percent() == pytest.approx(expected)
    counts = model.change_counts()
    assert sum(counts.values()) == len(model.changes()) > 0


def test_quarter_selectors_bound_to_widgets_keep_two_different_quarters():
    """Select widgets bound to the selectors (as the Holdings tab binds them) before the fund
    loads, as when the tab is opened from a link: announcing the new choices in one batch with
    the values made each widget pick its first option and write it back, so the comparison
    became a quarter compared with itself."""
    import panel as pn  # the widgets only; the model itself never imports Panel

    sheet = FundFactsheet()
    model = HoldingsByQuarter(factsheet=sheet)
    widgets = {name: pn.widgets.Select.from_param(model.param[name]) for name in ("period", "compare_from", "compare_to")}
    pn.Column(*widgets.values()).get_root()  # rendered, as in a served page
    sheet.param.update(periods=list(PERIODS), holdings={p: frame(rows) for p, rows in BASE.items()})
    assert (model.period, model.compare_from, model.compare_to) == (LATEST, PREVIOUS, LATEST)
    assert {name: w.value for name, w in widgets.items()} == {"period": LATEST, "compare_from": PREVIOUS,
                                                              "compare_to": LATEST}
    assert set(model.changes()["change"]) == {"new", "increased", "unchanged", "exited"}


def test_a_late_due_quarter_shows_the_one_before_and_the_model_says_why():
    """The quarter the rules make due has no holdings for the fund yet (companies file late): the Holdings tab's
    model shows the quarter before and carries the note every output says (issue 39)."""
    sheet = sheet_with({PREVIOUS: BASE[PREVIOUS], OLDER: BASE[PREVIOUS]})
    sheet.proj_id = "M0001_2560"
    model = HoldingsByQuarter(factsheet=sheet)
    assert model.period == PREVIOUS
    assert model.note == (f"{quarter_label(LATEST)} is not published for this fund yet (companies sometimes file "
                          f"late): showing {quarter_label(PREVIOUS)}, the newest quarter with holdings.")
    assert model.note == sheet.holdings_note
    sheet.param.update(holdings={p: frame(rows) for p, rows in BASE.items()})  # the company files
    assert model.note == "" and sheet.holdings_note == ""
    sheet.param.update(holdings={PREVIOUS: frame(BASE[PREVIOUS])}, errors={f"holdings {LATEST}": "the service failed"})
    assert "could not be loaded (the service failed)" in model.note


def test_a_quarter_chosen_for_a_late_fund_does_not_stick_to_the_next_fund():
    """Fund A's due quarter is late, so A shows the one before; fund B then loaded has the due quarter: B shows
    its newest, not A's fallback kept as if the user had chosen it (issue 39: the newest published quarter per
    fund). A quarter the user picks is still kept."""
    sheet = sheet_with({PREVIOUS: BASE[PREVIOUS], OLDER: BASE[PREVIOUS]})
    sheet.proj_id = "M0001_2560"
    model = HoldingsByQuarter(factsheet=sheet)
    assert (model.period, model.compare_from, model.compare_to) == (PREVIOUS, OLDER, PREVIOUS) and model.note
    sheet.param.update(holdings={p: frame(rows) for p, rows in BASE.items()})  # fund B
    assert (model.period, model.compare_from, model.compare_to) == (LATEST, PREVIOUS, LATEST) and model.note == ""
    model.period = PREVIOUS  # the user's choice
    sheet.param.update(holdings={p: frame(rows) for p, rows in {**BASE, OLDER: BASE[PREVIOUS]}.items()})
    assert model.period == PREVIOUS


def test_lines_and_changes_worked_out_once_per_answer_and_each_caller_gets_its_own(model):
    """The tab asks for the same quarter a dozen times: the lines and the changes are worked out once for the
    frames the factsheet holds, each caller changing its copy freely; a new load (new frames) is worked out anew."""
    first = model.lines(LATEST)
    assert_frame_equal(first, portfolio_lines(model.factsheet.holdings[LATEST]))
    first["percent_nav"] = 0.0
    first.drop(first.index, inplace=True)
    assert model.lines(LATEST)["percent_nav"].tolist() == [40.0, 35.1, 25.0]  # not the caller's changes
    changes = model.changes(PREVIOUS, LATEST)
    changes["change_pp"] = np.nan
    assert model.changes(PREVIOUS, LATEST)["change_pp"].notna().all()
    # The same fund loaded again with AAA at 10 %: a new answer, never the old lines or changes.
    model.factsheet.holdings = {**model.factsheet.holdings,
                                LATEST: frame([holding("AAA", 10.0), holding("BBB", 35.1)])}
    assert model.lines(LATEST)["percent_nav"].tolist() == [10.0, 35.1]
    moved = model.changes(PREVIOUS, LATEST).set_index("security")
    assert moved.loc["AAA", "change_pp"] == pytest.approx(-20.0) and moved.loc["AAA", "change"] == "decreased"

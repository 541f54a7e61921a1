"""The Market tab's figures from the NAV history (issue 27): the results' NAV columns and their titles, the NAV
filters' boxes (a value narrows the rows; a value past sense is an error that changes nothing), the sorts, the
note under the table, and a snapshot without NAV (a dash and how to get them, no error)."""

from __future__ import annotations

import csv
import shutil

import pytest
from pandas.testing import assert_frame_equal

from dashboard.market import queries
from dashboard.market.screen import SORT_FIELDS
from dashboard.market.snapshot import default_dir
from dashboard.market.storefile import DEMO_STORE_FILE
from dashboard.present.text import DASH
from dashboard.views.market import RESULT_COLUMNS, SORT_OPTIONS, results_frame
from dashboard.views.market_nav import NAV_COLUMNS, NAV_PERCENT
from tests.conftest import run
from tests.market.conftest import synced_once
from tests.views.test_market import _App

# Each title names the figure it reads (issue 38): price or total return, from the NAV, per unit.
TITLES = {"nav_return_1y": "1-year price return (NAV, %)", "nav_total_return_1y": "1-year total return (NAV, distributions reinvested, %)",
          "return_3y_ann": "3-year price return (NAV, a year, %)",
          "volatility_1y": "Volatility (1 year, %)", "max_drawdown_1y": "Max drawdown (1 year, NAV per unit, %)",
          "sharpe_1y": "Sharpe (1 year)", "peer_pct_return_1y": "1-year total return percentile among peers",
          "last_nav_date": "Last NAV date"}


def _synced(cache, **options):
    made = _App(cache)
    run(made.app.market.sync_demo(made.client, quarters=1, **options))
    view = made.view()
    run(view.refresh())
    assert made.app.market.has_store and made.app.market.error == ""
    return made, view


@pytest.fixture(scope="module")
def nav_view(tmp_path_factory):
    """The Market tab over a demo market synced with 400 days of NAV (the 1-year figures): the run's one such
    sync (tests/market/conftest.py's `synced_once`, which tests/market/test_screen_nav.py reads too), copied
    into this app's cache directory as the demo store."""
    built, _result = synced_once(tmp_path_factory, "successor", quarters=1, nav_days=400)
    cache = tmp_path_factory.mktemp("market-nav-cache")
    shutil.copyfile(built / "market.duckdb", cache / DEMO_STORE_FILE)
    shutil.copytree(built / "market-snapshot", default_dir(cache / DEMO_STORE_FILE))
    made = _App(cache)
    view = made.view()
    run(view.refresh())
    assert made.app.market.has_store and made.app.market.error == "" and made.app.market.nav_funds > 0
    yield view
    made.close()


@pytest.fixture(scope="module")
def no_nav_view(tmp_path_factory):
    """The Market tab over a snapshot synced with --nav-days 0 (as the browser tests' is)."""
    made, view = _synced(tmp_path_factory.mktemp("market-no-nav-cache"), only="companies,funds,risk", nav_days=0)
    yield view
    made.close()


@pytest.fixture
def view(nav_view):
    yield nav_view
    nav_view.param.update(min_return_3y_text="", max_volatility_text="", max_drawdown_text="", min_sharpe_text="")
    nav_view.market.param.update(sort="proj_id", error="")
    run(nav_view.market.screen())


def test_the_results_show_the_nav_figures_under_titles_with_their_units(view):
    table, market = view.results, view.market
    assert [c for c in table.value.columns if c in NAV_COLUMNS] == NAV_COLUMNS
    for column, title in TITLES.items():
        assert table.titles[column] == title, column
    assert table.titles["return_1y"] == "1-year return (factsheet, %)"  # apart from the NAV's own
    assert table.value.columns[0] == "proj_abbr_name" and table.table.frozen_columns == ["proj_abbr_name"]
    shown = table.value.set_index("proj_id")
    with_nav = market.results[market.results["last_nav_date"].notna()]
    assert 0 < len(with_nav) < len(market.results)
    for _, row in with_nav.iterrows():
        assert shown.loc[row["proj_id"], "volatility_1y"] == pytest.approx(row["volatility_1y"])
        assert shown.loc[row["proj_id"], "last_nav_date"] == row["last_nav_date"].isoformat()
    without = market.results.loc[market.results["last_nav_date"].isna(), "proj_id"]
    assert (shown.loc[without, "last_nav_date"] == DASH).all()
    for column in NAV_PERCENT + ["sharpe_1y", "peer_pct_return_1y"]:
        assert shown[column].dtype == "float64"
        assert table.formatters[column].null_format == DASH, column  # a fund without the figure shows a dash


def test_the_note_states_the_peer_rule_and_where_the_figures_come_from(view):
    note = view.nav_note.object
    assert "same policy type and risk level" in note and "whatever the filters" in note
    assert "daily NAV" in note and "--nav-days" in note and f"{view.market.nav_funds:,} funds" in note
    assert "no NAV history" not in note


def test_a_nav_filter_typed_in_its_box_narrows_the_rows(view):
    market = view.market
    everyone = len(view.results.value)
    volatility = market.results["volatility_1y"].dropna().median()
    view.max_volatility_text = f"{volatility:.4f}"
    assert market.max_volatility == pytest.approx(volatility, abs=1e-4)
    run(market.screen())
    table = view.results.value
    assert 0 < len(table) < everyone and table["volatility_1y"].le(market.max_volatility).all()
    expected = queries.screen(market.reader(), sort="proj_id", max_volatility=market.max_volatility)
    assert table["proj_id"].tolist() == [r["proj_id"] for r in expected]
    view.max_drawdown_text = "20"  # a fall of at most 20 %, typed as a size
    run(market.screen())
    assert market.max_drawdown == 20 and view.results.value["max_drawdown_1y"].ge(-20).all()


def test_a_value_past_sense_is_an_error_and_changes_nothing(view):
    market = view.market
    view.min_sharpe_text = "1"
    run(market.screen())
    before = view.results.value.copy()
    assert 0 < len(before) < len(market.results) + 1
    view.max_drawdown_text = "150"
    assert market.max_drawdown is None and market.min_sharpe == 1.0  # the filters stay as they were
    assert market.error == "Max drawdown at most 150 is out of range (a fall from a peak, 0 to 100 percent)"
    assert market.error in view.status.object  # shown where the screener's errors are
    run(market.screen())
    assert_frame_equal(view.results.value, before)
    view.min_sharpe_text = "1000"
    assert market.min_sharpe == 1.0 and market.error == "Sharpe ratio at least 1000 is out of range (from -100 to 100)"
    view.min_sharpe_text = "1e999"  # not a finite number: the box's warning, the filter stays
    assert market.min_sharpe == 1.0
    view.max_drawdown_text = "15"  # a good value: the error goes
    assert market.max_drawdown == 15 and market.error == ""


def test_the_nav_sorts_are_offered_in_words_and_order_the_rows(view):
    nav_sorts = {label: key for label, key in SORT_OPTIONS.items() if key.lstrip("-") in queries.NAV_FIELDS}
    assert set(nav_sorts.values()) == {s for s in SORT_FIELDS if s.lstrip("-") in queries.NAV_FIELDS}
    assert {"-sharpe_1y", "volatility_1y", "-return_3y_ann"} <= set(nav_sorts.values())
    assert not any("_" in label for label in SORT_OPTIONS)  # words, not field names
    view.market.sort = "-sharpe_1y"
    run(view.market.screen())
    sharpe = view.results.value["sharpe_1y"]
    known = sharpe.dropna().tolist()
    assert known == sorted(known, reverse=True) and sharpe.iloc[: len(known)].notna().all()


def test_the_download_titles_the_nav_figures_in_words(view):
    header = view.results_csv().getvalue().decode("utf-8-sig").splitlines()[0]
    for title in ("Volatility (1 year, %)", "3-year price return (NAV, a year, %)",
                  "1-year total return percentile among peers", "Last NAV date"):
        assert title in header
    assert not set(header.split(",")) & set(queries.NAV_FIELDS)  # titles, not field names
    # the table on screen and its download say the same words for the same figures
    shown = [view.results.titles[c] for c in [*NAV_COLUMNS, "return_1y"]]
    titles = next(csv.reader([header]))
    assert set(shown) <= set(titles), sorted(set(shown) - set(titles))


def test_without_nav_the_columns_show_a_dash_and_the_note_says_how_to_get_them(no_nav_view):
    market, table = no_nav_view.market, no_nav_view.results
    assert market.nav_funds == 0 and market.error == "" and len(table.value) == market.fund_count > 0
    assert list(table.value.columns) == RESULT_COLUMNS
    assert table.value[NAV_PERCENT + ["sharpe_1y", "peer_pct_return_1y"]].isna().all().all()
    assert (table.value["last_nav_date"] == DASH).all()
    note = no_nav_view.nav_note.object
    assert "holds no NAV history" in note and "<code>sec-dashboard --demo market sync --nav-days 472</code>" in note
    assert "same policy type" not in note
    assert_frame_equal(results_frame(market.results), table.value)

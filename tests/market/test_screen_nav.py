"""MarketScreen's figures from the NAV history (issue 27, the Market tab): over a demo market synced with
400 days of NAV, the model's frame keeps the NAV figures as numbers, its NAV filters and sorts answer what
queries.screen answers, a value past sense changes nothing; a snapshot without NAV screens as before."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from dashboard.errors import BadInputError
from dashboard.market import queries
from dashboard.market.screen import (NAV_FILTER_LABELS, NAV_FILTER_NAMES, NAV_NUMBER_FIELDS, SORT_FIELDS, MarketScreen,
                                     screen_frame)
from dashboard.market.store import MarketStore, open_reader
from tests.built_once import copy_built
from tests.conftest import run
from tests.market.conftest import synced_once

NAV_DAYS = 400  # the 1-year figures (the sync's default); no fund has the 3 years a 3-year return needs


@pytest.fixture(scope="module")
def nav_store(tmp_path_factory):
    """The store file of a whole demo-market sync with 400 days of NAV (successor layout), closed. (The run's one
    such sync, tests/market/conftest.py's `synced_once`, copied: tests/views/test_market_nav.py reads it too.)"""
    built, result = synced_once(tmp_path_factory, "successor", quarters=1, nav_days=NAV_DAYS)
    assert result.datasets["nav"] == "fetched"
    return copy_built(built, Path(tmp_path_factory.mktemp("screen-nav-store")) / "store") / "market.duckdb"


@pytest.fixture(scope="module")
def reader(nav_store):
    with open_reader(path=nav_store) as store:
        yield store


@pytest.fixture(scope="module")
def model(nav_store):
    screen = MarketScreen(snapshot_dir=str(nav_store))
    run(screen.refresh())
    yield screen
    screen.close()


@pytest.fixture
def screen(model):
    """The module's model, its filters and sort put back after each test."""
    yield model
    model.param.update(sort="proj_id", **{name: None for name in NAV_FILTER_NAMES})
    run(model.screen())


def test_the_frame_keeps_the_nav_figures_as_numbers(screen, reader):
    rows = queries.screen(reader, sort="proj_id")
    assert_frame_equal(screen.results, screen_frame(rows))
    for column in NAV_NUMBER_FIELDS:
        assert screen.results[column].dtype == "float64", column
    with_nav = [r for r in rows if r["last_nav_date"] is not None]
    assert 0 < len(with_nav) < len(rows)  # the demo has funds without a NAV history too
    assert screen.nav_funds == len(with_nav)
    assert screen.nav_until == max(r["last_nav_date"] for r in with_nav).isoformat()
    by_id = screen.results.set_index("proj_id")
    for row in with_nav:
        assert by_id.loc[row["proj_id"], "volatility_1y"] == pytest.approx(row["volatility_1y"])
        assert by_id.loc[row["proj_id"], "last_nav_date"] == row["last_nav_date"]
    assert screen.results["return_3y_ann"].isna().all()  # 400 days: no fund has three years


@pytest.mark.parametrize("name,pick", [
    ("max_volatility", lambda rows: sorted(r["volatility_1y"] for r in rows)[len(rows) // 2]),
    ("min_sharpe", lambda rows: sorted(r["sharpe_1y"] for r in rows)[len(rows) // 2]),
    ("max_drawdown", lambda rows: -sorted(r["max_drawdown_1y"] for r in rows)[len(rows) // 2]),
    ("min_return_3y", lambda rows: -50.0),
])
def test_each_nav_filter_answers_what_the_query_layer_answers(screen, reader, name, pick):
    with_nav = [r for r in queries.screen(reader) if r["last_nav_date"] is not None]
    value = pick(with_nav)
    setattr(screen, name, value)
    run(screen.screen())
    expected = [r["proj_id"] for r in queries.screen(reader, sort="proj_id", **{name: value})]
    assert screen.results["proj_id"].tolist() == expected
    assert screen.error == ""
    if name == "min_return_3y":
        assert expected == []  # a fund without the figure does not pass
    else:
        assert 0 < len(expected) < len(with_nav)  # the filter narrows


def test_a_drawdown_is_a_fall_whichever_sign_is_typed(screen):
    screen.max_drawdown = 1.0
    run(screen.screen())
    positive = screen.results["proj_id"].tolist()
    screen.max_drawdown = -1.0
    run(screen.screen())
    assert screen.results["proj_id"].tolist() == positive and positive
    assert screen.results["max_drawdown_1y"].ge(-1.0).all()


@pytest.mark.parametrize("sort", [s for s in SORT_FIELDS if s.lstrip("-") in queries.NAV_FIELDS])
def test_each_nav_sort_orders_by_its_figure_funds_without_it_last(screen, sort):
    screen.sort = sort
    run(screen.screen())
    column = screen.results[sort.lstrip("-")]
    known = column.dropna()
    if sort == "-return_3y_ann":  # no fund has three years: every fund without it, in proj_id order
        assert known.empty and screen.results["proj_id"].is_monotonic_increasing and screen.error == ""
        return
    assert len(known) > 0 and column.isna().sum() > 0
    assert column.iloc[: len(known)].notna().all()  # those without the figure last
    values = known.tolist()
    assert values == sorted(values, reverse=sort.startswith("-"))


def test_values_past_sense_change_nothing(screen):
    """The model refuses a value out of the query layer's bounds (the query layer says why, naming the filter as
    it is given), and the results stay as they were."""
    before = screen.results.copy()
    for name, value in (("max_drawdown", 150.0), ("max_volatility", -1.0), ("min_sharpe", 1000.0),
                        ("min_return_3y", -101.0)):
        with pytest.raises(ValueError):
            setattr(screen, name, value)
        assert getattr(screen, name) is None
        with pytest.raises(BadInputError, match="out of range"):
            queries.nav_filter_value(name, value, NAV_FILTER_LABELS[name])
    for value in (math.nan, math.inf):
        with pytest.raises(ValueError):
            screen.min_sharpe = value
        with pytest.raises(BadInputError, match="Sharpe ratio at least must be a finite number"):
            queries.nav_filter_value("min_sharpe", value, NAV_FILTER_LABELS["min_sharpe"])
    run(screen.screen())
    assert screen.min_sharpe is None and screen.error == ""
    assert_frame_equal(screen.results, before)


def test_the_query_layer_names_a_filter_by_the_label_given(screen):
    with pytest.raises(BadInputError) as caught:
        queries.nav_filter_value("max_drawdown", 150, "Max drawdown at most")
    assert str(caught.value) == "Max drawdown at most 150 is out of range (a fall from a peak, 0 to 100 percent)"
    assert queries.nav_filter_value("max_drawdown", 20) == queries.nav_filter_value("max_drawdown", -20) == -20.0
    assert queries.nav_filter_value("min_sharpe", None) is None


def test_a_snapshot_without_nav_screens_as_before(market_factory, tmp_path):
    path = tmp_path / "market.duckdb"
    with MarketStore(path) as store:
        market_factory("successor").sync(store, only="companies,funds,risk", nav_days=0)
    screen = MarketScreen(snapshot_dir=str(path))
    try:
        run(screen.refresh())
        assert screen.has_store and screen.nav_funds == 0 and screen.nav_until == ""
        assert len(screen.results) == screen.fund_count > 0
        assert screen.results[NAV_NUMBER_FIELDS].isna().all().all()
        assert all(dtype == "float64" for dtype in screen.results[NAV_NUMBER_FIELDS].dtypes)
        screen.max_volatility = 50.0  # a NAV filter on a snapshot without NAV: no fund has the figure
        run(screen.screen())
        assert screen.results.empty and screen.error == ""
        assert isinstance(screen.results, pd.DataFrame)
    finally:
        screen.close()


def test_the_screen_commands_readable_figures_have_the_readmes_decimals(nav_store, capsys):
    """Issue 39: `market screen` printed the store's raw figures ("0.273298", "83.3333"). Computed percents
    have two decimals, a Sharpe ratio two, a percentile none, a fee as charged two to five; --json keeps
    the numbers whole."""
    import csv
    import io
    import json
    import re

    from dashboard.cli import market as cli

    args = ["market", "screen", "--demo", "--store", str(nav_store), "--sort", "-sharpe_1y", "--limit", "20"]
    assert cli.main([*args, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert cli.main([*args, "--csv"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out.lstrip("\ufeff"))))
    titles, shown = table[0], table[1:]
    assert len(shown) == len(rows) == 20
    # each figure under the command's own title for it (the titles name the figure read: factsheet or NAV)
    # (the cost of 100,000 THB over 10 years came later, with the feeders, and printed "13899.46995": baht, two decimals)
    decimals = {"return_1y": 2, "volatility_1y": 2, "max_drawdown_1y": 2, "sharpe_1y": 2, "peer_pct_return_1y": 0,
                "peer_pct_volatility_1y": 0, "cost_100k_10y": 2}
    keys = {cli.HEADERS.get(field, field): field for field in decimals}
    checked = 0
    for field, places in decimals.items():
        title = cli.HEADERS.get(field, field)
        column = [t.lower() for t in titles].index(title.lower())
        for row, line in zip(rows, shown):
            value = row.get(keys[title])
            if value is None:
                assert line[column] == ""
                continue
            pattern = r"-?\d{1,3}(,\d{3})*" + (rf"\.\d{{{places}}}" if places else "")
            assert re.fullmatch(pattern, line[column]), (title, line[column])
            assert float(line[column].replace(",", "")) == pytest.approx(value, abs=0.5 * 10 ** -places + 1e-9)
            checked += 1
    assert checked >= 60  # the NAV figures were there to read
    fee = [t.lower() for t in titles].index("fee % (charged)")
    assert all(re.fullmatch(r"\d+\.\d{2,5}", line[fee]) for row, line in zip(rows, shown)
               if row.get("total_fee_actual") is not None)

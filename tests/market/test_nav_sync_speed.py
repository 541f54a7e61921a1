"""The NAV sync's tables, whichever way its pages were parsed and written: a sync of several windows (single
days and calendar weeks of several pages each) stores exactly the rows the service's whole answer for the span
gives at once, its days marked fetched today, its distributions and every class's figures as a bulk load of
those rows computes them, and no staged page left behind; a sync interrupted part-way and resumed stores the
same tables (the pages kept by the first run parsed from the store, the rest as they come)."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest

from dashboard.demo.successor_nav import NAV_QUIRKS, dividend_rows, nav_rows
from dashboard.market import nav_store
from dashboard.market.nav_figures_table import refresh_nav_figures
from dashboard.market.nav_store import load_nav, window_rows
from dashboard.market.store import MarketStore
from tests.conftest import TODAY
from tests.market.test_nav_sync import Interrupted, NavMarket

LONG = 125  # 14 single-day windows and calendar weeks before them (several pages each), a distribution day in them
SHORT = 40  # the resumed sync's: four calendar weeks
ORDER = {"nav": "proj_id, class, nav_date", "nav_days": "day", "distributions": "proj_id, class, ex_date, per_unit",
         "nav_figures": "proj_id, class"}


def tables(store: MarketStore) -> dict[str, list[dict]]:
    return {name: store.query(f"SELECT * FROM {name} ORDER BY {order}") for name, order in ORDER.items()}


@pytest.fixture(scope="module")
def whole_answer(dataset, tmp_path_factory):
    """The tables as the service's whole answer for the `days` days up to yesterday gives them, loaded at once."""
    return lambda days: _whole_answer(dataset, tmp_path_factory, days)


def _whole_answer(dataset, tmp_path_factory, days: int) -> dict[str, list[dict]]:
    FIRST, LAST = TODAY - timedelta(days=days), TODAY - timedelta(days=1)  # noqa: N806 - the span's ends
    span = {"start_nav_date": FIRST.isoformat(), "end_nav_date": LAST.isoformat()}
    dividends = {"start_dividend_date": FIRST.isoformat(), "end_dividend_date": LAST.isoformat()}
    rows = window_rows(nav_rows(dataset, span), dividend_rows(dataset, dividends), FIRST, LAST)
    with MarketStore(tmp_path_factory.mktemp("bulk") / "market.duckdb") as store:
        load_nav(store, rows.nav, rows.distributions, fetched_on=TODAY)
        refresh_nav_figures(store)
        out = tables(store)
    counts: dict[date, int] = {}
    for row in out["nav"]:
        counts[row["nav_date"]] = counts.get(row["nav_date"], 0) + 1
    out["nav_days"] = [{"day": FIRST + timedelta(days=i), "fetched_on": TODAY,
                        "rows": counts.get(FIRST + timedelta(days=i), 0)} for i in range(days)]
    return out


def test_a_sync_stores_the_tables_of_the_whole_answer_at_once(dataset, whole_answer, tmp_path):
    market = NavMarket(dataset)
    try:
        with MarketStore(tmp_path / "market.duckdb") as store:
            result = market.sync(store, nav_days=LONG)
            assert result.complete and result.datasets == {"nav": "fetched"}
            got = tables(store)
            assert store.query("SELECT count(*) AS n FROM stage")[0]["n"] == 0  # every window's pages forgotten
    finally:
        market.close()
    assert len(got["nav"]) > 1000 and got["distributions"] and len(got["nav_figures"]) > 10
    weeks = [w for w in market.nav_windows_asked() if w[0] != w[1]]
    assert weeks and market.app.request_count > len(market.nav_windows_asked()) + 1  # windows of several pages
    expected = whole_answer(LONG)
    for name in ORDER:
        assert got[name] == expected[name], name


def test_a_resumed_sync_stores_the_same_tables(dataset, whole_answer, tmp_path):
    market = NavMarket(dataset)
    stop_at = 25  # part-way through the first windows' pages (8 windows go side by side)

    def progress(p):
        if p.calls >= stop_at:
            raise Interrupted

    try:
        with MarketStore(tmp_path / "market.duckdb") as store:
            with pytest.raises(Interrupted):
                market.sync(store, nav_days=SHORT, progress=progress)
            kept = store.query("SELECT count(*) AS n FROM stage")[0]["n"]
            assert kept > 0  # pages kept for windows not finished: the next run goes on from them
            market.app.reset_counters()
            result = market.sync(store, nav_days=SHORT)
            assert result.complete and result.datasets == {"nav": "fetched"}
            got = tables(store)
    finally:
        market.close()
    expected = whole_answer(SHORT)
    for name in ORDER:
        assert got[name] == expected[name], name


def _quirky_answers(dataset) -> list[list]:
    span = {"start_nav_date": "2026-03-02", "end_nav_date": "2026-03-08"}
    answers = [nav_rows(dataset, span, frozenset(q)) for q in [(), *[(x,) for x in NAV_QUIRKS], NAV_QUIRKS]]
    base = answers[0]
    answers.append([dict(b, last_val=None) if i % 7 == 0 else b for i, b in enumerate(base)]
                   + ["not a row", {"proj_id": " "}, {"nav_date": "2026-03-03"}])
    answers.append([{k: v for k, v in b.items() if k not in ("last_upd_date", "sell_price")} for b in base])
    answers.append([dict(b, proj_id=f" {b['proj_id']} ", last_val=int(b["last_val"])) for b in base])
    answers.append([dict(b, last_val=str(b["last_val"])) for b in base])  # text numbers: the pandas path coerces
    answers.append([dict(b, nav_date=b["nav_date"].replace("-0", "-")) for b in base])  # unpadded dates: likewise
    return answers


def test_the_plain_rows_are_those_pandas_makes_of_any_answer(dataset, monkeypatch):
    """The rows of a window made in plain Python (items as the service sends them) are, with their counts, those
    the pandas steps make of the same items: with every quirk of the simulator, rows without a NAV, ids to trim,
    whole-number NAVs, and items the plain path leaves to pandas."""
    first, last = date(2026, 3, 2), date(2026, 3, 8)
    answers = _quirky_answers(dataset)
    plain = [window_rows(items, [], first, last) for items in answers]
    monkeypatch.setattr(nav_store, "_plain_nav_rows", lambda *_args: None)
    for items, got in zip(answers, plain):
        want = window_rows(items, [], first, last)
        assert (got.duplicates, got.dropped, got.outside) == (want.duplicates, want.dropped, want.outside)
        pd.testing.assert_frame_equal(got.nav, want.nav, check_dtype=False)
    assert {(p.duplicates > 0, p.dropped > 0, p.outside > 0) for p in plain} >= {(True, False, False),
                                                                              (False, True, False),
                                                                              (False, False, True)}

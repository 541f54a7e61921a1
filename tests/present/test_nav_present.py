"""dashboard/present/nav.py: figures beside the published ones, the labelled NAV table, the rebased basket.

The issue's check "a test computes them on the demo": the demo's factsheet publishes each class's fund
returns computed from its own NAV series at the month end before today; the model computes them again
from the series the client fetched, at the same date, and they must agree within the published rounding.
"""

from __future__ import annotations

import json
from datetime import date

import httpx
import numpy as np
import pandas as pd
import pytest

from dashboard.api.connect import open_client
from dashboard.api.nav import fetch_nav_history
from dashboard.api.sync import SecClient
from dashboard.config import ApiSettings
from dashboard.errors import BadInputError
from dashboard.models.factsheet import FundFactsheet
from dashboard.models.nav import FundNav
from dashboard.models.nav_figures import FIGURE_KEYS, class_figures
from dashboard.models.source import run
from dashboard.present.nav import (NAV_COLUMN_TITLES, NOT_PUBLISHED, PUBLISHED_FOR, figure_rows, nav_table_frame,
                                   published_as_of, published_for_class, rebased_frame)
from dashboard.present.text import DASH, csv_bytes
from tests.conftest import TODAY
from tests.shared_files import CAPTURES, require

COMPARED = ("return_3m", "return_6m", "return_ytd", "return_1y", "return_3y_ann", "return_5y_ann")


@pytest.fixture(scope="module")
def demo():
    client = open_client(ApiSettings.from_env(demo=True, layout="successor", environ={}), today=lambda: TODAY)
    yield client
    client.close()


def _decimals(value: float) -> int:
    return 2 if round(value, 2) == value else 4


def test_computed_price_returns_agree_with_the_demos_published_ones(demo, dataset):
    """Every class of the first demo funds with a five-year history (renamed classes aside: the factsheet
    publishes their whole series under the new name): 3M/6M/YTD/1Y/3Y/5Y at the published date."""
    funds = [pid for pid, p in dataset.nav_profiles.items()
             if p["first"] < "2021-10-01" and not any(c["former"] for c in p["classes"])][:12]
    compared = {key: 0 for key in COMPARED}
    for pid in funds:
        model = FundNav(demo)
        run(model.load(pid))
        sheet = FundFactsheet(client=demo)
        run(sheet.load(pid))
        records = sheet.records["performance"]
        as_of = published_as_of(records)
        assert as_of == date(2026, 10, 31)  # the month end before the demo's today
        for name in model.classes():
            model.class_name = name
            mine = published_for_class(records, name)
            assert mine, f"{pid} class {name!r}: no published figures"
            rows = figure_rows(model.figures(), mine, at_published=model.figures(as_of=as_of))
            for row in rows:
                if row.key not in COMPARED or row.raw_published is None:
                    continue
                assert row.raw_compared is not None, (pid, name, row.key, row.reason)
                tolerance = 0.5 * 10 ** -_decimals(row.raw_published) + 1e-9
                assert abs(row.raw_compared - row.raw_published) <= tolerance, (pid, name, row)
                assert row.published_as_of == "31 Oct 2026"
                compared[row.key] += 1
    assert all(count >= 10 for count in compared.values()), compared


def test_computed_at_the_last_nav_the_figures_differ_from_the_published_ones(demo, dataset):
    # the comparison at the published date is what makes them agree: at the last NAV they do not
    pid = next(pid for pid, p in dataset.nav_profiles.items() if p["first"] < "2021-10-01" and p["frequency"] == "daily")
    model = FundNav(demo)
    run(model.load(pid))
    sheet = FundFactsheet(client=demo)
    run(sheet.load(pid))
    rows = {r.key: r for r in figure_rows(model.figures(), published_for_class(sheet.records["performance"],
                                                                                model.selected_class()))}
    assert rows["return_3m"].raw_compared == rows["return_3m"].raw
    assert abs(rows["return_3m"].raw - rows["return_3m"].raw_published) > 0.01


def _series(days: int = 400, start: str = "2025-01-01", growth: float = 0.0004) -> pd.DataFrame:
    dates = pd.bdate_range(start, periods=days)
    nav = 10.0 * np.cumprod(np.full(days, 1.0 + growth) * (1 + 0.004 * np.sin(np.arange(days))))
    return pd.DataFrame({"nav_date": dates, "nav": nav})


def record(kind_thai: str, period: str, value, as_of: str = "2026-06-30", name: str | None = None) -> dict:
    """A performance record as the service spells it (no records-layer keys)."""
    return {"class_abbr_name": name, "performance_type_desc": kind_thai, "reference_period": period,
            "performance_val": value, "as_of_date": as_of}


FUND_RETURN, FUND_VOLATILITY, BENCHMARK = "ผลตอบแทนกองทุนรวม", "ความผันผวนของกองทุนรวม", "ผลตอบแทนตัวชี้วัด"


def test_figure_rows_match_the_published_spellings_and_say_what_is_not_published():
    figures = class_figures(_series())
    one_year = figures["return_1y"].value
    published = [record(FUND_RETURN, "1 ปี", f"{one_year - 0.25:.2f}"),  # Thai period, number as text
                 record(BENCHMARK, "1 year", 99.0),  # a benchmark is not the fund's figure
                 record(FUND_VOLATILITY, "1 Year", None),  # sent empty: not published
                 record(FUND_RETURN, "3 months", 1.0, as_of="2026-03-31"),
                 record(FUND_RETURN, "3 months", 2.0, as_of="2026-06-30")]  # the newer one counts
    rows = figure_rows(figures, published)
    assert [r.key for r in rows] == list(FIGURE_KEYS)
    by_key = {r.key: r for r in rows}
    row = by_key["return_1y"]
    assert row.raw_published == pytest.approx(round(one_year - 0.25, 2)) and row.difference == "+0.25 pp"
    assert row.value == f"{one_year:,.2f} %" and row.published_as_of == "30 Jun 2026"
    assert row.window == f"{figures['return_1y'].start.day} {figures['return_1y'].start:%b %Y} to " \
                         f"{figures.last_nav_date.day} {figures.last_nav_date:%b %Y}"
    assert by_key["return_3m"].raw_published == 2.0
    assert by_key["volatility_1y"].published == NOT_PUBLISHED and by_key["volatility_1y"].difference == DASH
    assert by_key["return_6m"].published == NOT_PUBLISHED
    for key in ("total_return_1y", "max_drawdown_1y", "sharpe_1y", "return_1m", "return_since_start"):
        assert by_key[key].published == "" and by_key[key].difference == ""  # nothing published to compare
    assert by_key["sharpe_1y"].value == f"{figures['sharpe_1y'].value:,.2f}"  # a ratio, no percent sign


def test_figure_rows_without_a_figure_give_the_reason():
    figures = class_figures(_series(days=60))  # under a year: no 1Y figure
    row = next(r for r in figure_rows(figures, [record(FUND_RETURN, "1 year", 3.0)]) if r.key == "return_1y")
    assert row.value == DASH and row.raw is None and "history starts" in row.reason
    assert row.published == "3.00 %" and row.difference == DASH


def test_a_difference_that_rounds_to_nothing_has_no_sign():
    figures = class_figures(_series())
    value = figures["return_1y"].value
    row = next(r for r in figure_rows(figures, [record(FUND_RETURN, "1 year", value + 1e-6)]) if r.key == "return_1y")
    assert row.difference == "0.00 pp"


def test_published_for_class_keeps_exact_names_and_the_fund_without_classes():
    rows = [record(FUND_RETURN, "1 year", 1.0, name="X-A"), record(FUND_RETURN, "1 year", 2.0, name="X-ACC"),
            record(FUND_RETURN, "1 year", 3.0, name=None)]
    assert [r["performance_val"] for r in published_for_class(rows, "X-A")] == [1.0]  # not X-ACC's
    assert [r["performance_val"] for r in published_for_class(rows, "")] == [3.0]
    assert published_for_class(rows, "X-B") == []
    # a fund without classes whose records name one label ("1"): that label's rows
    assert len(published_for_class([record(FUND_RETURN, "1 year", 4.0, name="1")], "")) == 1
    assert published_as_of(rows) == date(2026, 6, 30) and published_as_of([]) is None


def test_every_compared_key_is_a_figure_key():
    assert set(PUBLISHED_FOR) <= set(FIGURE_KEYS)


def test_nav_table_frame_has_labelled_columns_and_empty_unoffered_prices(demo, dataset):
    pid = next(pid for pid, p in dataset.nav_profiles.items()
               if any(not c["swap"] for c in p["classes"]) and p["frequency"] == "daily")
    name = next(c["name"] for c in dataset.nav_profiles[pid]["classes"] if not c["swap"])
    history = fetch_nav_history(demo, pid, start=date(2026, 10, 1), end=date(2026, 10, 31))
    frame = nav_table_frame(history, name)
    assert list(frame.columns) == list(NAV_COLUMN_TITLES.values())
    assert not any("_" in c for c in frame.columns)  # titles for people, never field names
    assert frame["NAV (baht per unit)"].gt(0).all() and frame["Switching-in price (baht per unit)"].isna().all()
    text = csv_bytes(frame)
    assert text.startswith("\ufeff".encode()) and text.decode("utf-8-sig").splitlines()[0].startswith(
        "NAV date,NAV (baht per unit),Offer price (baht per unit)")
    assert text.decode("utf-8-sig").splitlines()[1].startswith("2026-10-")
    with pytest.raises(BadInputError, match="has no class 'NOPE'"):
        nav_table_frame(history, "NOPE")


def test_rebased_frame_starts_at_the_first_common_day(demo, dataset):
    pids = [pid for pid, p in dataset.nav_profiles.items() if p["frequency"] == "daily"][:2]
    histories = {}
    for pid in pids:
        history = fetch_nav_history(demo, pid, start=date(2026, 1, 1), end=date(2026, 11, 20))
        first = next(iter(history.classes))
        histories[f"{pid} {first}"] = history.classes[first]
    start, frame = rebased_frame(histories)
    firsts = [h.nav["nav_date"].iloc[0] for h in histories.values()]
    assert start == max(firsts).date() and list(frame.columns) == list(histories)
    assert frame.iloc[0].tolist() == [100.0, 100.0]
    name, history = next(iter(histories.items()))
    nav = history.nav.set_index("nav_date")["nav"]
    assert frame[name].iloc[-1] == pytest.approx(100.0 * nav.iloc[-1] / nav[pd.Timestamp(start)])


def test_rebased_frame_without_a_common_day():
    from dashboard.api.nav import ClassHistory

    a = ClassHistory("M1", "", _series(days=5, start="2024-01-01"), pd.DataFrame(), "daily")
    b = ClassHistory("M2", "", _series(days=5, start="2025-01-01"), pd.DataFrame(), "daily")
    start, frame = rebased_frame({"A": a, "B": b})
    assert start is None and frame.empty and list(frame.columns) == ["A", "B"]


def test_the_captured_class_in_the_nav_table():
    """The real capture's ThaiESG class: swap prices of 0.0 are not offered, the rest as sent."""
    body = require(CAPTURES / "daily-nav-range.json").read_bytes()
    dividends = require(CAPTURES / "dividend-history.json").read_bytes()

    def handle(request: httpx.Request) -> httpx.Response:
        if "next_cursor" in request.url.params:
            return httpx.Response(200, json={"message": "success", "page_size": 100, "next_cursor": "", "items": []})
        content = body if request.url.path.endswith("/nav") else dividends
        return httpx.Response(200, content=content, headers={"Content-Type": "application/json"})

    settings = ApiSettings.from_env(base_url="http://capture.test", use_cache=False, layout="successor", environ={})
    client = SecClient(settings, transport=httpx.MockTransport(handle), cache=None, require_keys=False,
                       today=lambda: date(2026, 6, 10), max_attempts=1)
    row = next(r for r in json.loads(body)["items"] if r["fund_class_name"] == "K-TNZ-ThaiESG")
    try:
        history = fetch_nav_history(client, row["proj_id"], start=date(2026, 5, 29), end=date(2026, 6, 5))
    finally:
        client.close()
    frame = nav_table_frame(history, "K-TNZ-ThaiESG")
    shown = frame.iloc[0]
    assert shown["NAV date"] == pd.Timestamp(row["nav_date"]) and shown["NAV (baht per unit)"] == row["last_val"]
    assert shown["Offer price (baht per unit)"] == row["sell_price"] and shown["Fund size (baht)"] == row["net_asset"]
    assert row["sell_swap_price"] == 0.0 and pd.isna(shown["Switching-in price (baht per unit)"])

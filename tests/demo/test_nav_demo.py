"""The demo's NAV history and the simulator's daily-info answers (issue 27): deterministic series on the
demo's own calendar, the service's quirks in the data, the captured formats, the quirk switches, and
the factsheet's fund returns following from the series by the issue's conventions."""

from __future__ import annotations

import calendar
import json
import re
from datetime import date, timedelta

import pandas as pd
import pytest

from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.nav import OUTAGES, class_series, history_start, last_nav_day, market_nav_frame
from dashboard.demo.pools import PERF_FUND
from dashboard.demo.successor import SuccessorView
from dashboard.records.labels import performance_kind
from tests.demo.test_successor_simulator import call, get, pages
from tests.shared_files import CAPTURES, require

TODAY = date(2026, 11, 25)
DS = generate_demo_dataset(today=TODAY)
NAV = "/v2/fund/daily-info/nav"
DIVIDENDS = "/v2/fund/daily-info/dividend-history"


def app_with(**options):
    from dashboard.demo.simulator import create_app

    options.setdefault("layout", "both")
    return create_app(DS, require_key=False, today=TODAY, **options)


def profile_where(test) -> tuple[str, dict]:
    return next((pid, p) for pid, p in DS.nav_profiles.items() if test(p))


WEEKLY, _ = profile_where(lambda p: p["frequency"] == "weekly")
MONTHLY, _ = profile_where(lambda p: p["frequency"] == "monthly")
RENAMED, RENAMED_PROFILE = profile_where(lambda p: any(c["former"] for c in p["classes"]))
DIVIDEND, DIVIDEND_PROFILE = profile_where(lambda p: any(c["dividend_yield"] for c in p["classes"]))
ZERO_SWAP, ZERO_SWAP_PROFILE = profile_where(lambda p: any(not c["swap"] for c in p["classes"]) and
                                             any(c["swap"] for c in p["classes"]))
SINGLE, _ = profile_where(lambda p: p["classes"][0]["name"] == "main" and p["frequency"] == "daily")


def rows(app, **params) -> list[dict]:
    return pages(app, NAV, **params)[0]


# ---- the series -----------------------------------------------------------------------------------------


def test_the_series_follow_the_demo_day_not_the_wall_clock():
    for today in (date(2026, 11, 25), date(2031, 3, 2)):  # a Monday after a weekend: the Friday before
        ds = generate_demo_dataset(today=today)
        pid, profile = next(iter(ds.nav_profiles.items()))
        series = class_series(profile, today)[0]
        assert series["nav_date"][-1].astype(object) == last_nav_day(today) < today
        assert date.fromisoformat(profile["first"]) >= history_start(today)
    assert last_nav_day(date(2031, 3, 3)) == date(2031, 2, 28)
    # five years and a quarter back: every 5-year figure has its start NAV
    assert history_start(TODAY) <= date(TODAY.year - 5, TODAY.month - 1, 1)


def test_the_series_are_deterministic_and_independent_of_the_data_set_copy():
    again = generate_demo_dataset(today=TODAY)
    assert again.nav_profiles == DS.nav_profiles
    pid, profile = next(iter(DS.nav_profiles.items()))
    a, b = class_series(profile, TODAY), class_series(again.nav_profiles[pid], TODAY)
    assert all((x["nav"] == y["nav"]).all() and (x["nav_date"] == y["nav_date"]).all() for x, y in zip(a, b))


def test_no_rows_in_the_market_wide_outages_and_rows_around_them():
    frame = market_nav_frame(DS.nav_profiles, TODAY)
    days = frame["nav_date"].dt.date
    for first, last in OUTAGES:
        if last < TODAY:
            assert not ((days >= first) & (days <= last)).any(), (first, last)
            assert (days == first - timedelta(days=1 if first.weekday() else 3)).any()


def test_a_weekly_and_a_monthly_fund():
    weekly = class_series(DS.nav_profiles[WEEKLY], TODAY)[0]["nav_date"].astype("datetime64[D]").astype(object)
    steps = pd.Series([(b - a).days for a, b in zip(weekly, weekly[1:])])
    assert steps.median() == 7 and steps.min() >= 3
    monthly = class_series(DS.nav_profiles[MONTHLY], TODAY)[0]["nav_date"].astype("datetime64[D]").astype(object)
    months = [(d.year, d.month) for d in monthly]
    assert len(months) == len(set(months)) >= 12
    for day in monthly[:-1]:  # the last business day of its month
        assert day.day > calendar.monthrange(day.year, day.month)[1] - 4 and day.weekday() < 5


def test_a_class_renamed_mid_history_carries_its_old_name_before_the_rename():
    cls = next(c for c in RENAMED_PROFILE["classes"] if c["former"])
    old, until = cls["former"]
    assert cls["name"] in old  # the new name is part of the old one: a filter on part of a name meets both
    series = next(s for s in class_series(RENAMED_PROFILE, TODAY) if s["class"] == cls["name"])
    names = dict(zip(series["nav_date"].astype(object), series["name"]))
    assert {n for d, n in names.items() if d <= date.fromisoformat(until)} == {old}
    assert {n for d, n in names.items() if d > date.fromisoformat(until)} == {cls["name"]}


def test_distributions_lower_the_nav_on_their_book_close_day():
    cls = next(c for c in DIVIDEND_PROFILE["classes"] if c["dividend_yield"])
    all_series = class_series(DIVIDEND_PROFILE, TODAY)
    series = next(s for s in all_series if s["class"] == cls["name"])
    plain = next(s for s in all_series if not len(s["per_unit"]))  # the same fund's path without distributions
    assert len(series["per_unit"]) >= 8  # twice a year for five years
    ratio = series["nav"] / plain["nav"]
    dates = list(series["nav_date"].astype(object))
    for ex, amount in zip(series["ex_date"].astype(object), series["per_unit"]):
        i = dates.index(ex)
        assert ratio[i] / ratio[i - 1] == pytest.approx(1 - amount / series["nav"][i - 1], abs=2e-4)
        assert ratio[i + 1] / ratio[i] == pytest.approx(1, abs=2e-4)  # once only


# The market scale's NAV rows (about six million) are checked in test_market_scale.py, on the data set
# built once there.


# ---- the published figures follow from the series ----------------------------------------------------


def _on_or_before(series: pd.Series, day: date):
    before = series[series.index <= pd.Timestamp(day)]
    return None if before.empty else (before.index[-1].date(), float(before.iloc[-1]))


def expected_return(series: pd.Series, as_of: date, period: str, inception: bool) -> float | None:
    """The issue's conventions, written again here from the text."""
    end = _on_or_before(series, as_of)
    months = {"3 months": 3, "6 months": 6, "1 year": 12, "3 years": 36, "5 years": 60, "10 years": 120}
    if period == "year to date":
        start = _on_or_before(series, date(end[0].year - 1, 12, 31))
    elif period == "inception date":
        start = (series.index[0].date(), float(series.iloc[0])) if inception else None
    else:
        back = (pd.Timestamp(end[0]) - pd.DateOffset(months=months[period])).date()
        start = _on_or_before(series, back)
    if start is None:
        return None
    r = end[1] / start[1] - 1
    days = (end[0] - start[0]).days
    if months.get(period, 0) > 12 or (period == "inception date" and days > 365):
        return ((1 + r) ** (365 / days) - 1) * 100
    return r * 100


def test_the_factsheet_fund_returns_follow_from_the_nav_series():
    from dashboard.demo.successor_nav import nav_rows

    checked = 0
    app = app_with()
    for pid, profile in DS.nav_profiles.items():
        records = [r for r in DS.performance.get(pid, []) if r["performance_type_desc"] == PERF_FUND]
        if not records:
            continue
        as_of = date.fromisoformat(records[0]["as_of_date"][:10])
        # every class, every day: the rows the service pages out for the fund, read from the simulator's own
        # function; for the first fund also through the service itself, page by page, and the same rows (in the
        # pages' own order; every fund's five years as JSON pages were most of this test's CPU)
        served = nav_rows(DS, {"proj_id": pid})
        if checked == 0:
            by_day = lambda r: (r["fund_class_name"], r["nav_date"])  # noqa: E731
            assert sorted(rows(app, proj_id=pid), key=by_day) == sorted(served, key=by_day)
        for cls in profile["classes"]:
            names = {cls["name"], *(cls["former"][:1] if cls["former"] else ())}
            mine = sorted((r["nav_date"], r["last_val"]) for r in served if r["fund_class_name"] in names)
            series = pd.Series([v for _, v in mine], index=pd.to_datetime([d for d, _ in mine]))
            label = cls["name"] if cls["name"] != "main" else records[0]["class_abbr_name"]
            for record in (r for r in records if r["class_abbr_name"] == label):
                want = expected_return(series, as_of, record["reference_period"], profile["inception"])
                if want is None:
                    continue
                published = float(record["performance_val"])
                decimals = len(record["performance_val"].split(".")[1])
                assert abs(published - want) <= 0.5 * 10 ** -decimals + 1e-9, (pid, label, record["reference_period"])
                checked += 1
    assert checked > 500


def test_the_current_successor_factsheet_publishes_the_same_fund_returns():
    pid = next(p for p in DS.nav_profiles if DS.performance.get(p))
    legacy = {(r["class_abbr_name"], r["reference_period"]): r["performance_val"] for r in DS.performance[pid]
              if r["performance_type_desc"] == PERF_FUND}
    view = SuccessorView(DS)
    current = [r for r in view.performance({"proj_id": pid}) if r["end_date"] is None
               and performance_kind(r["performance_type_desc"]) == "fund_return"]
    assert current
    for row in current:
        label = row["fund_class_name"]
        key = next(k for k in legacy if k[1] == row["reference_period"] and (k[0] == label or label == "main"))
        value = row["performance_value"]
        assert (value is None) == (legacy[key] is None)
        if value is not None:
            assert float(value) == pytest.approx(float(legacy[key]))


# ---- the simulator: formats ------------------------------------------------------------------------------


def captured_items(name: str) -> list[dict]:
    return json.loads(require(CAPTURES / name).read_text(encoding="utf-8"))["items"]


def _types(row: dict) -> list[tuple[str, str]]:
    return [(k, type(v).__name__) for k, v in row.items()]


def test_nav_rows_are_in_the_captured_format():
    captured = captured_items("daily-nav-range.json")
    app = app_with()
    items, envelopes = pages(app, NAV, proj_id=RENAMED, start_nav_date="2025-01-01", end_nav_date="2025-12-31")
    assert list(envelopes[0]) == ["message", "page_size", "next_cursor", "items"] and len(envelopes) > 3
    assert envelopes[0]["page_size"] == 100 and envelopes[-1]["next_cursor"] == ""
    assert all(_types(row) == _types(captured[0]) for row in items)
    for row in items:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["nav_date"])
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?", row["last_upd_date"])
        assert "2025-01-01" <= row["nav_date"] <= "2025-12-31" and row["proj_id"] == RENAMED
    single = rows(app, proj_id=SINGLE, start_nav_date="2026-01-01", end_nav_date="2026-01-31")
    assert {r["fund_class_name"] for r in single} == {"main"}  # as captured ("-" in the reference's example)
    zero = rows(app, proj_id=ZERO_SWAP, start_nav_date="2026-03-02", end_nav_date="2026-03-02")
    assert {(r["sell_swap_price"], r["buy_swap_price"]) for r in zero if r["sell_swap_price"] == 0.0} == {(0.0, 0.0)}
    assert any(r["sell_swap_price"] > 0 for r in zero)
    assert json.dumps(zero[0]).count("_swap_price") == 2


def test_dividend_rows_are_in_the_captured_format():
    captured = captured_items("dividend-history.json")
    items, envelopes = pages(app_with(), DIVIDENDS, proj_id=DIVIDEND)
    assert items and list(envelopes[0]) == ["message", "page_size", "next_cursor", "items"]
    for row in items:
        assert _types(row) == _types(captured[0])
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2} 00:00:00\.0000000", row["book_close_date"])
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2} 00:00:00\.0000000", row["dividend_date"])
        assert row["dividend_value"] > 0


def test_the_whole_market_form_by_date_window():
    items = rows(app_with(), start_nav_date="2026-11-16", end_nav_date="2026-11-20")
    funds = {r["proj_id"] for r in items}
    assert len(funds) > 50 and all("2026-11-16" <= r["nav_date"] <= "2026-11-20" for r in items)
    assert len(items) == len({(r["proj_id"], r["fund_class_name"], r["nav_date"]) for r in items})


def test_a_bad_date_is_answered_400():
    r = get(app_with(), NAV, proj_id=SINGLE, start_nav_date="2026-13-01")
    assert r.status_code == 400 and "start_nav_date" in r.text


# ---- the simulator: quirk switches ---------------------------------------------------------------------


def test_the_class_filter_matches_part_of_a_name_and_can_be_ignored():
    cls = next(c for c in RENAMED_PROFILE["classes"] if c["former"])
    window = {"proj_id": RENAMED, "start_nav_date": "2021-01-01", "end_nav_date": "2026-11-24"}
    plain = {r["fund_class_name"] for r in rows(app_with(), fund_class_name=cls["name"], **window)}
    assert plain == {cls["name"], cls["former"][0]}
    ignored = {r["fund_class_name"] for r in rows(app_with(nav_quirks={"class_filter_ignored"}),
                                                   fund_class_name=cls["name"], **window)}
    assert ignored == {c["name"] for c in RENAMED_PROFILE["classes"]} | {cls["former"][0]}


def test_the_date_filter_can_be_ignored():
    window = {"proj_id": SINGLE, "start_nav_date": "2026-11-02", "end_nav_date": "2026-11-06"}
    assert len(rows(app_with(), **window)) == 5
    assert len(rows(app_with(nav_quirks={"date_filter_ignored"}), **window)) > 1000


def test_a_day_sent_twice_and_zero_or_negative_navs():
    window = {"proj_id": SINGLE, "start_nav_date": "2026-11-02", "end_nav_date": "2026-11-13"}
    twice = rows(app_with(nav_quirks={"day_twice"}), **window)
    days = [r["nav_date"] for r in twice]
    repeated = [d for d in set(days) if days.count(d) == 2]
    assert len(twice) == 11 and len(repeated) == 1
    a, b = sorted((r for r in twice if r["nav_date"] == repeated[0]), key=lambda r: r["last_upd_date"])
    assert a["last_val"] != b["last_val"]
    bad = sorted(r["last_val"] for r in rows(app_with(nav_quirks={"bad_nav"}), **window))
    assert bad[0] < 0 and bad[1] == 0.0 and bad[2] > 0


def test_unknown_quirks_are_refused():
    with pytest.raises(ValueError, match="nav_quirks"):
        app_with(nav_quirks={"sometimes"})


# ---- the simulator: the older service, one day per call -----------------------------------------------


def test_the_legacy_daily_nav_is_one_fund_and_one_day():
    app = app_with()
    r = get(app, f"/FundDailyInfo/{RENAMED}/dailynav/2026-11-24")
    assert r.status_code == 200
    records = r.json()
    assert {x["class_abbr_name"] for x in records} == {c["name"] for c in RENAMED_PROFILE["classes"]}
    assert all(x["nav_date"] == "2026-11-24" and float(x["last_val"]) > 0 for x in records)
    assert get(app, f"/FundDailyInfo/{RENAMED}/dailynav/2026-11-22").status_code == 204  # a Sunday
    assert get(app, f"/FundDailyInfo/{RENAMED}/dailynav/2026-02-16").status_code == 204  # an outage
    assert get(app, f"/FundDailyInfo/{RENAMED}/dailynav/24-11-2026").status_code == 400
    assert call(app_with(layout="successor"), "GET", f"/FundDailyInfo/{RENAMED}/dailynav/2026-11-24").status_code == 404

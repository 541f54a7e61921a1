"""dashboard/api/nav.py: a fund's NAV history through the client, against the simulator and the real captures.

Each of the service's quirks is switched on in the simulator (or is in the demo data) and the fetch must
undo it; each test would fail without its handling. No timing: round trips are counted as requests that
were in flight together.
"""

from __future__ import annotations

import asyncio
import json
from datetime import date, timedelta

import httpx
import numpy as np
import pandas as pd
import pytest

from dashboard.api.nav import LEGACY_DAYS, NAV_COLUMNS, afetch_nav_history, fetch_nav_history, quarter_windows, year_windows
from dashboard.api.sync import SecClient
from dashboard.config import ApiSettings
from dashboard.demo.generator import generate_demo_dataset
from dashboard.demo.nav import class_series
from dashboard.demo.simulator import create_app
from dashboard.errors import BadInputError, NotFoundError
from tests.shared_files import CAPTURES, require

TODAY = date(2026, 11, 25)
DS = generate_demo_dataset(today=TODAY)
FIVE_YEARS = {"start": date(2021, 11, 25), "end": date(2026, 11, 24)}


def profile_where(test) -> tuple[str, dict]:
    return next((pid, p) for pid, p in DS.nav_profiles.items() if test(p))


RENAMED, RENAMED_PROFILE = profile_where(lambda p: any(c["former"] for c in p["classes"]))
RENAMED_CLASS = next(c for c in RENAMED_PROFILE["classes"] if c["former"])
WEEKLY, _ = profile_where(lambda p: p["frequency"] == "weekly")
MONTHLY, _ = profile_where(lambda p: p["frequency"] == "monthly")
DIVIDEND, DIVIDEND_PROFILE = profile_where(lambda p: any(c["dividend_yield"] for c in p["classes"]))
ZERO_SWAP, ZERO_SWAP_PROFILE = profile_where(lambda p: any(not c["swap"] for c in p["classes"]) and
                                             any(c["swap"] for c in p["classes"]))
SINGLE, _ = profile_where(lambda p: p["classes"][0]["name"] == "main" and p["frequency"] == "daily"
                          and p["first"] < "2022-01-01")
MULTI, MULTI_PROFILE = profile_where(lambda p: len(p["classes"]) >= 2 and not any(c["former"] for c in p["classes"])
                                     and p["first"] < "2022-01-01")


class Counting:
    """An ASGI wrapper that counts the requests in flight at once (how many went out together)."""

    def __init__(self, app):
        self.app, self.now, self.most = app, 0, 0

    async def __call__(self, scope, receive, send):
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await self.app(scope, receive, send)
        finally:
            self.now -= 1


def client_over(app, layout: str = "successor", use_cache: bool = True) -> SecClient:
    settings = ApiSettings.from_env(base_url="http://sim.test", use_cache=use_cache, layout=layout, environ={})
    return SecClient(settings, transport=httpx.ASGITransport(app=app), cache=None, require_keys=False,
                     today=lambda: TODAY, max_attempts=1)


def simulator(**options):
    options.setdefault("layout", "both")
    return create_app(DS, require_key=False, today=TODAY, **options)


def fetch(app, proj_id, layout="successor", **kw):
    kw = {**FIVE_YEARS, **kw}
    return fetch_nav_history(client_over(app, layout), proj_id, **kw)


# ---- the shapes of the interface note ---------------------------------------------------------------------


def test_a_five_year_history_has_the_agreed_shapes_and_the_service_values():
    history = fetch(simulator(), MULTI)
    assert history.proj_id == MULTI and (history.start, history.end) == (FIVE_YEARS["start"], FIVE_YEARS["end"])
    assert set(history.classes) == {c["name"] for c in MULTI_PROFILE["classes"]}
    for name, cls in history.classes.items():
        nav = cls.nav
        assert list(nav.columns) == list(NAV_COLUMNS)
        assert nav["nav_date"].dtype == "datetime64[ns]" and all(nav[c].dtype == "float64" for c in NAV_COLUMNS[1:])
        assert nav["nav_date"].is_monotonic_increasing and nav["nav_date"].is_unique
        assert list(cls.dividends.columns) == ["ex_date", "pay_date", "per_unit"]
        assert cls.frequency == "daily" and cls.class_name == name
        truth = next(s for s in class_series(MULTI_PROFILE, TODAY) if s["class"] == name)
        inside = (truth["nav_date"] >= np.datetime64(FIVE_YEARS["start"])) & (truth["nav_date"] <= np.datetime64(FIVE_YEARS["end"]))
        assert (nav["nav_date"].to_numpy().astype("datetime64[D]") == truth["nav_date"][inside]).all()
        assert (nav["nav"].to_numpy() == truth["nav"][inside]).all()
        assert nav["nav_date"].iloc[-1].date() == date(2026, 11, 24)
    assert history.notes == ()


def test_windows_cut_at_calendar_years_and_quarters():
    assert year_windows(date(2021, 11, 25), date(2023, 2, 1)) == [
        (date(2021, 11, 25), date(2021, 12, 31)), (date(2022, 1, 1), date(2022, 12, 31)), (date(2023, 1, 1), date(2023, 2, 1))]
    quarters = quarter_windows(date(2021, 11, 25), date(2023, 2, 1))
    assert quarters[:2] == [(date(2021, 11, 25), date(2021, 12, 31)), (date(2022, 1, 1), date(2022, 3, 31))]
    assert quarters[-1] == (date(2023, 1, 1), date(2023, 2, 1)) and len(quarters) == 6
    assert all(b + timedelta(days=1) == c for (_, b), (c, _) in zip(quarters, quarters[1:]))  # no day lost or twice


def test_the_windows_go_out_together_one_page_each_and_a_warm_fetch_sends_nothing():
    app = simulator(latency_ms=20)
    counting = Counting(app)
    client = client_over(counting)
    first = fetch_nav_history(client, SINGLE, **FIVE_YEARS)
    navs = [q for _, path, q in app.queries if path.endswith("/daily-info/nav")]
    assert len(navs) == 21 and not any("next_cursor" in q for q in navs)  # 21 quarters, one page each
    assert counting.most == 22  # every quarter and the distributions in flight at once: one round trip
    before = app.request_count
    again = fetch_nav_history(client, SINGLE, **FIVE_YEARS)
    assert app.request_count == before  # warm: no request at all
    pd.testing.assert_frame_equal(first.classes[""].nav, again.classes[""].nav)


# ---- the quirks --------------------------------------------------------------------------------------------


def test_a_fund_without_classes_is_keyed_by_the_empty_name():
    history = fetch(simulator(), SINGLE)
    assert list(history.classes) == [""]
    assert fetch(simulator(), SINGLE, class_name="main").classes[""].nav.equals(history.classes[""].nav)


def test_rows_of_other_classes_are_left_out_when_the_class_filter_is_ignored():
    other = next(c["name"] for c in MULTI_PROFILE["classes"][1:])
    plain = fetch(simulator(), MULTI, class_name=other)
    ignored = fetch(simulator(nav_quirks={"class_filter_ignored"}), MULTI, class_name=other)
    assert list(ignored.classes) == [other]
    pd.testing.assert_frame_equal(ignored.classes[other].nav, plain.classes[other].nav)
    assert any("other classes" in n for n in ignored.notes)


def test_a_class_name_inside_another_is_not_taken_for_it():
    # the renamed class's old name (X-ACC) holds its new one (X-A): the service's filter returns both
    name, (old, until) = RENAMED_CLASS["name"], RENAMED_CLASS["former"]
    history = fetch(simulator(), RENAMED, class_name=name)
    nav = history.classes[name].nav
    assert list(history.classes) == [name]
    assert nav["nav_date"].iloc[0].date() > date.fromisoformat(until)
    assert any(old in n for n in history.notes)


def test_a_renamed_class_shows_as_two_series_with_a_note():
    name, (old, until) = RENAMED_CLASS["name"], RENAMED_CLASS["former"]
    history = fetch(simulator(), RENAMED)
    assert history.classes[old].nav["nav_date"].iloc[-1].date() <= date.fromisoformat(until)
    assert any("renamed" in n and old in n and name in n for n in history.notes)


def test_rows_of_other_days_are_left_out_when_the_date_filter_is_ignored():
    window = {"start": date(2026, 11, 2), "end": date(2026, 11, 13)}
    history = fetch(simulator(nav_quirks={"date_filter_ignored"}), SINGLE, **window)
    nav = history.classes[""].nav
    assert len(nav) == 10 and nav["nav_date"].min().date() >= window["start"]
    assert any("date filter was ignored" in n for n in history.notes)


def test_a_day_sent_twice_is_kept_once_the_later_update_winning():
    window = {"start": date(2026, 11, 2), "end": date(2026, 11, 13)}
    plain = fetch(simulator(), SINGLE, **window).classes[""].nav
    history = fetch(simulator(nav_quirks={"day_twice"}), SINGLE, **window)
    nav = history.classes[""].nav
    assert nav["nav_date"].is_unique and len(nav) == len(plain) == 10
    changed = nav["nav"].to_numpy() != plain["nav"].to_numpy()
    assert changed.sum() == 1
    assert nav["nav"][changed].iloc[0] == pytest.approx(plain["nav"][changed].iloc[0] * 1.01, abs=1e-4)
    assert any("came twice" in n for n in history.notes)


def test_zero_and_negative_navs_are_dropped_with_a_note():
    window = {"start": date(2026, 11, 2), "end": date(2026, 11, 13)}
    history = fetch(simulator(nav_quirks={"bad_nav"}), SINGLE, **window)
    nav = history.classes[""].nav
    assert len(nav) == 8 and (nav["nav"] > 0).all()
    assert any("2 NAVs of 0, below 0" in n for n in history.notes)


def test_zero_swap_prices_are_not_offered_not_a_price_of_zero():
    history = fetch(simulator(), ZERO_SWAP, start=date(2026, 10, 1), end=date(2026, 10, 30))
    for c in ZERO_SWAP_PROFILE["classes"]:
        nav = history.classes[c["name"]].nav
        if c["swap"]:
            assert (nav["switch_in"] > 0).all() and (nav["switch_out"] > 0).all()
        else:
            assert nav["switch_in"].isna().all() and nav["switch_out"].isna().all()
        assert (nav["offer"] > 0).all() and (nav["bid"] > 0).all()


def test_weekly_and_monthly_funds_are_recognised():
    assert fetch(simulator(), WEEKLY).classes[""].frequency == "weekly"
    assert fetch(simulator(), MONTHLY).classes[""].frequency == "monthly"


def test_the_outages_are_gaps_not_rows():
    nav = fetch(simulator(), SINGLE).classes[""].nav
    inside = nav["nav_date"].between("2024-10-31", "2024-11-15")
    assert not inside.any()
    steps = nav["nav_date"].diff().dt.days
    assert steps.max() >= 15  # the gap is there, never filled in


def test_distributions_per_class_with_their_dates():
    history = fetch(simulator(), DIVIDEND)
    payer = next(c for c in DIVIDEND_PROFILE["classes"] if c["dividend_yield"])
    truth = next(s for s in class_series(DIVIDEND_PROFILE, TODAY) if s["class"] == payer["name"])
    dividends = history.classes[payer["name"]].dividends
    inside = truth["ex_date"] >= np.datetime64(FIVE_YEARS["start"])
    assert dividends["ex_date"].dtype == "datetime64[ns]" and dividends["ex_date"].is_monotonic_increasing
    assert (dividends["ex_date"].to_numpy().astype("datetime64[D]") == truth["ex_date"][inside]).all()
    assert (dividends["per_unit"].to_numpy() == truth["per_unit"][inside]).all()
    assert ((dividends["pay_date"] - dividends["ex_date"]).dt.days == 10).all()
    assert all(history.classes[c["name"]].dividends.empty for c in DIVIDEND_PROFILE["classes"] if not c["dividend_yield"])


# ---- the older service ------------------------------------------------------------------------------------


def test_the_older_service_gives_the_last_weeks_only_and_says_why():
    app = simulator(layout="legacy")
    history = fetch(app, MULTI, layout="legacy")
    assert app.request_count <= LEGACY_DAYS  # one call per business day of the last 30 days
    assert all(p.startswith(f"/FundDailyInfo/{MULTI}/dailynav/") for _, p in app.requests)
    for cls in history.classes.values():
        assert cls.nav["nav_date"].min().date() >= date(2026, 10, 26) and len(cls.nav) == 22
        assert cls.nav["nav_date"].iloc[-1].date() == date(2026, 11, 24)
    assert any("one day per call" in n and "30 days" in n for n in history.notes)
    full = fetch(simulator(), MULTI, start=date(2026, 10, 26))
    for name, cls in history.classes.items():
        pd.testing.assert_frame_equal(cls.nav, full.classes[name].nav)


# ---- bad input -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("window, words", [
    ({"start": date(2026, 5, 1), "end": date(2026, 4, 1)}, "after the to date"),
    ({"start": date(2026, 5, 1), "end": date(2026, 12, 1)}, "in the future"),
    ({"start": "2026-02-30", "end": date(2026, 4, 1)}, "is not a date"),
])
def test_bad_windows_are_refused_before_anything_is_sent(window, words):
    app = simulator()
    with pytest.raises(BadInputError, match=words):
        fetch_nav_history(client_over(app), SINGLE, **window)
    assert app.request_count == 0


def test_a_class_the_fund_does_not_have():
    with pytest.raises(BadInputError, match="has no class .*NOPE.*its classes are"):
        fetch(simulator(), MULTI, class_name="NOPE")


def test_the_only_class_asked_of_a_fund_with_classes():
    with pytest.raises(BadInputError, match="has unit classes .*: name one"):
        fetch(simulator(), MULTI, class_name="main")
    with pytest.raises(BadInputError, match="has no unit classes"):
        fetch(simulator(), SINGLE, class_name="SOME-CLASS")


def test_the_whole_market_form_pages_through_every_fund_of_a_window():
    client = client_over(simulator())
    query = {"start_nav_date": "2026-11-16", "end_nav_date": "2026-11-20", "page_size": "100"}
    funds, cursor, pages = set(), None, 0
    while cursor != "":
        page = client.run(client.async_client.send_page("S8", "/v2/fund/daily-info/nav",
                                                        {**query, **({"next_cursor": cursor} if cursor else {})}))
        funds |= {r["proj_id"] for r in page["items"]}
        cursor, pages = page["next_cursor"], pages + 1
    assert pages > 1 and len(funds) > 50


def test_a_fund_with_no_nav_yet():
    ds = generate_demo_dataset(today=TODAY)
    pid = next(iter(ds.nav_profiles))
    del ds.nav_profiles[pid]  # as a fund registered today: no NAV published yet
    app = create_app(ds, require_key=False, today=TODAY)
    with pytest.raises(NotFoundError, match=f"fund {pid} has no NAV"):
        fetch(app, pid)
    with pytest.raises(BadInputError, match="not a fund project id"):
        fetch(app, "not an id")
    offering = next(f["proj_id"] for f in DS.funds if f["fund_status"] == "SE")  # in its first offering: no NAV yet
    with pytest.raises(NotFoundError, match="a new fund may not have published one yet"):
        fetch(simulator(), offering)


# ---- the real captures through the same parsing ------------------------------------------------------------


def captured(name: str) -> bytes:
    return require(CAPTURES / name).read_bytes()


def serving_captures(nav_body: bytes) -> httpx.MockTransport:
    """The captured pages at their endpoints (whatever the filters: the captures ignore them)."""
    bodies = {"/v2/fund/daily-info/nav": nav_body, "/v2/fund/daily-info/dividend-history": captured("dividend-history.json")}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path not in bodies:
            return httpx.Response(404)
        if "next_cursor" in request.url.params:
            return httpx.Response(200, json={"message": "success", "page_size": 100, "next_cursor": "", "items": []})
        return httpx.Response(200, content=bodies[request.url.path], headers={"Content-Type": "application/json"})
    return httpx.MockTransport(handle)


def from_captures(nav_file: str, proj_id: str, start: date, end: date, **kw):
    settings = ApiSettings.from_env(base_url="http://capture.test", use_cache=False, layout="successor", environ={})
    client = SecClient(settings, transport=serving_captures(captured(nav_file)), cache=None, require_keys=False,
                       today=lambda: date(2026, 6, 10), max_attempts=1)
    try:
        return fetch_nav_history(client, proj_id, start=start, end=end, **kw)
    finally:
        client.close()


def test_the_captured_nav_page_read_for_one_fund_and_class():
    rows = json.loads(captured("daily-nav-range.json"))["items"]
    esg = next(r for r in rows if r["fund_class_name"] == "K-TNZ-ThaiESG")
    history = from_captures("daily-nav-range.json", esg["proj_id"], date(2026, 5, 29), date(2026, 6, 5))
    nav = history.classes["K-TNZ-ThaiESG"].nav
    assert nav.to_dict("records") == [{
        "nav_date": pd.Timestamp(esg["nav_date"]), "nav": esg["last_val"], "offer": esg["sell_price"],
        "bid": esg["buy_price"], "net_asset": esg["net_asset"], "switch_in": pytest.approx(np.nan, nan_ok=True),
        "switch_out": pytest.approx(np.nan, nan_ok=True)}]  # the captured 0.0 swap prices: not offered
    assert any("4 rows of other funds" in n for n in history.notes)


def test_the_captured_main_marker_is_the_fund_without_classes():
    history = from_captures("daily-nav-range.json", "M0155_2569", date(2026, 5, 1), date(2026, 6, 5))
    assert list(history.classes) == [""] and history.classes[""].nav["nav"].tolist() == [19.6995]


def test_the_captured_recent_page_outside_the_window_is_no_nav():
    # the recent capture's rows are of 2022..2025: none is in June 2026
    with pytest.raises(NotFoundError, match="has no NAV"):
        from_captures("daily-nav-recent.json", "M0504_2559", date(2026, 6, 1), date(2026, 6, 5))
    history = from_captures("daily-nav-recent.json", "M0504_2559", date(2025, 1, 1), date(2025, 12, 31))
    assert history.classes["LHSTPLUS-A"].nav["nav"].tolist() == [11.1129]


def test_the_captured_distributions_with_their_seven_digit_fractions():
    history = from_captures("daily-nav-recent.json", "M0504_2559", date(2024, 1, 1), date(2025, 12, 31))
    assert all(c.dividends.empty for c in history.classes.values())  # another fund's distributions are not its own
    # the distributions of 1AMSET50-ID (M0512_2546), with the NAV page of that capture set ignored
    from dashboard.api.nav import _dividends

    from dashboard.records.successor import successor_only_records
    records = successor_only_records("dividend", json.loads(captured("dividend-history.json"))["items"])
    notes: list[str] = []
    by_class = _dividends(records, "M0512_2546", date(2024, 1, 1), date(2024, 12, 31), notes)
    frame = by_class["1AMSET50-ID"]
    assert frame["ex_date"].dt.date.tolist() == [date(2024, 1, 25), date(2024, 4, 30)]
    assert frame["pay_date"].dt.date.tolist() == [date(2024, 2, 5), date(2024, 5, 13)]
    assert frame["per_unit"].tolist() == [0.15, 0.52] and list(by_class) == ["1AMSET50-ID"] and not notes


def test_the_async_form_runs_in_a_loop_of_its_own():
    app = simulator()
    client = client_over(app)

    async def go():
        return await afetch_nav_history(client.async_client, SINGLE, start=date(2026, 11, 2), end=date(2026, 11, 13))

    assert len(client.run(go()).classes[""].nav) == 10
    assert asyncio.iscoroutinefunction(afetch_nav_history)

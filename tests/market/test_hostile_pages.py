"""Pages that misbehave: a cursor that loops or never ends stops the sync with a clear message after a
bounded number of requests; pages that overlap leave nothing counted twice, on both paths."""

from __future__ import annotations

from collections import Counter

import pytest

from dashboard.api.periods import valid_periods
from dashboard.demo.simulator import create_app
from dashboard.errors import MalformedResponseError
from dashboard.market.store import MarketStore
from dashboard.market.sync import sync_blocking
from tests.conftest import TODAY
from tests.market.conftest import independent_copy
from tests.market.hostile import MisbehavingPages, misbehaving_client

OVERLAPPING = ("fees", "performance", "allocation", "minimums", "holdings")


@pytest.fixture
def app(dataset):
    return create_app(independent_copy(dataset), require_key=False, today=TODAY, layout="successor")


def _sync(service, tmp_path, name: str, **options):
    client = misbehaving_client(service)
    try:
        with MarketStore(tmp_path / name / "market.duckdb") as store:
            result = sync_blocking(store, client, quarters=1, **options)
            tables = {t: Counter(r["record"] for r in store.query(f"SELECT record FROM {t}")) for t in OVERLAPPING}
            figures = {r["proj_id"]: r["total_fee_actual"] for r in store.query("SELECT * FROM fund_figures")}
        return result, tables, figures
    finally:
        client.close()


def test_a_looping_cursor_stops_the_sync_at_the_first_repeat(app, tmp_path):
    service = MisbehavingPages(app, loop=True, fresh=True)
    with pytest.raises(MalformedResponseError, match="same page cursor twice"):
        _sync(service, tmp_path, "loop", only="fees")
    assert service.requests == 3  # first page, A, B; A again is refused (1,100+ requests a minute before)


@pytest.mark.parametrize("dataset_name", ["fees", "funds", "holdings", "links"])
def test_a_service_that_repeats_its_page_under_new_cursors_stops_the_sync_after_one_page_more(
        app, tmp_path, dataset_name):
    """Issue 39: a new cursor with the same rows for ever was followed for 2,000 pages per dataset."""
    service = MisbehavingPages(app, endless=True)
    seen = []
    with pytest.raises(MalformedResponseError, match="the service repeated itself: page 2 held only rows") as err:
        _sync(service, tmp_path, "repeats", only=dataset_name, progress=seen.append)
    assert dataset_name in str(err.value)
    assert service.requests == 2
    assert max(p.pages for p in seen) == 2


def test_a_service_that_repeats_its_nav_page_stops_the_sync_after_one_page_more(app, tmp_path):
    service = MisbehavingPages(app, endless=True)
    client = misbehaving_client(service)
    try:
        with MarketStore(tmp_path / "market.duckdb") as store:
            with pytest.raises(MalformedResponseError, match="the service repeated itself"):
                sync_blocking(store, client, only="nav", nav_days=1)
    finally:
        client.close()
    assert service.requests <= 4  # one day's NAVs and its distributions, side by side: two pages of each at most


def test_a_client_call_to_a_service_that_repeats_its_page_stops_after_one_page_more(app, dataset):
    proj_id, period = next((pid, q) for pid, by in dataset.holdings.items() for q, rows in by.items()
                           if q in set(valid_periods(TODAY)) and rows)
    service = MisbehavingPages(app, endless=True)
    client = misbehaving_client(service)
    try:
        with pytest.raises(MalformedResponseError, match="E6 .*the service repeated itself"):
            client.fetch("E6", proj_id=proj_id, period=period)
    finally:
        client.close()
    assert service.requests == 2


def test_a_cursor_that_never_ends_is_stopped_at_the_page_cap_and_the_progress_shows_the_pages(app, tmp_path):
    service = MisbehavingPages(app, endless=True, fresh=True)
    seen = []
    with pytest.raises(MalformedResponseError, match="ran past 7 pages"):
        _sync(service, tmp_path, "endless", only="fees", max_pages=7, progress=seen.append)
    assert service.requests == 7
    pages = [p.pages for p in seen if p.dataset == "fees"]
    assert pages == list(range(1, 8)) and all(p.max_pages == 7 for p in seen)


def test_overlapping_pages_are_kept_once_in_the_store_and_counted(app, dataset, tmp_path):
    clean_result, clean, clean_figures = _sync(app, tmp_path, "clean", only=",".join(OVERLAPPING))
    service = MisbehavingPages(app, overlap=3)
    result, overlapped, figures = _sync(service, tmp_path, "overlap", only=",".join(OVERLAPPING))
    assert service.repeated > 0
    assert overlapped == clean  # every table holds each row once, as with a service that does not repeat
    assert figures == clean_figures  # and no fund's total fee doubled
    assert sum(result.duplicates.values()) == service.repeated
    assert not clean_result.duplicates


def test_overlapping_pages_are_kept_once_by_the_client(app, dataset):
    periods = set(valid_periods(TODAY))
    proj_id, period, n = max(((pid, q, len(rows)) for pid, by in dataset.holdings.items() for q, rows in by.items()
                              if q in periods), key=lambda t: t[2])
    assert n > 100  # two pages at least
    service = MisbehavingPages(app, overlap=2)
    client = misbehaving_client(service)
    try:
        rows = client.fetch("E6", proj_id=proj_id, period=period)
    finally:
        client.close()
    assert service.repeated > 0
    assert len(rows) == n
    assert client.stats.duplicates == service.repeated


def test_waiting_for_the_rate_limit_does_not_count_against_a_sync_pages_bound(app, tmp_path):
    """A long sync spends most of its time waiting for the rate limit; each page is bounded in the service's
    time only (here: 1 s per call, while the limit of 2 calls per 1.5 s makes later pages wait longer)."""
    client = misbehaving_client(app, deadline_s=1.0, rate_limit_calls=2, rate_limit_period=1.5)
    try:
        with MarketStore(tmp_path / "market.duckdb") as store:
            result = sync_blocking(store, client, only="fees")
            assert result.datasets == {"fees": "fetched"} and result.calls > 4
            assert client.async_client.rate_limit == (2, 1.5)
    finally:
        client.close()

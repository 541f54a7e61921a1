"""The basket's NAV comparison model on the demo: parallel fetch, common start, a fund without NAV left out and named."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.models.basket_nav import BasketNav
from tests.conftest import TODAY, run


@pytest.fixture(scope="module")
def client():
    client = open_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY)
    yield client
    client.close()


def test_the_basket_is_rebased_on_the_first_day_all_have_a_nav(client, dataset):
    with_nav = [p for p, profile in dataset.nav_profiles.items() if profile["frequency"] == "daily"][:2]
    offering = next(f["proj_id"] for f in dataset.funds if f["fund_status"] == "SE")  # no NAV yet
    model = BasketNav(client=client)
    run(model.load([*with_nav, offering]))
    assert list(model.histories) == with_nav and list(model.failed) == [offering]
    assert "no NAV" in model.failed[offering]
    start, frame = model.rebased()
    firsts = [h.nav["nav_date"].iloc[0] for h in model.histories.values()]
    assert pd.Timestamp(start) == max(firsts) and list(frame.columns) == with_nav
    assert list(frame.iloc[0]) == pytest.approx([100.0, 100.0])
    figures = model.figures()
    assert all(f["return_common"].start == start for f in figures.values())
    assert not model.loading


def test_an_empty_basket_has_nothing_to_compare(client):
    model = BasketNav(client=client)
    run(model.load([]))
    assert model.rebased()[0] is None and model.figures() == {} and model.failed == {}

"""The Market tab's NAV figure filters in the page's link (issue 27): a link carries them and reopens them; a
value that is not a number, not finite or past the filter's bounds is named and left out, the others kept."""

from __future__ import annotations

import pytest

from dashboard.app import url_search
from dashboard.config import ApiSettings
from dashboard.market.screen import MarketScreen
from dashboard.models.dashboard_state import DashboardState
from dashboard.models.url_codec import MARKET_URL

NAV_LINK = {"min_return_3y": "4.5", "max_volatility": "12", "max_drawdown": "-20", "min_sharpe": "0.5"}


@pytest.fixture
def markets(tmp_path):
    made = []

    def make() -> MarketScreen:
        market = MarketScreen(settings=ApiSettings.from_env(demo=True, cache_dir=tmp_path / str(len(made)), environ={}))
        made.append(market)
        return market

    yield make
    for market in made:
        market.close()


def _values(market: MarketScreen) -> tuple:
    return market.min_return_3y, market.max_volatility, market.max_drawdown, market.min_sharpe


def test_the_nav_filters_have_their_names_in_the_link():
    assert {MARKET_URL[f"market.{name}"] for name in NAV_LINK} == set(NAV_LINK)


def test_a_link_carries_the_nav_filters_and_reopens_them(markets):
    state = DashboardState()
    assert state.apply_url({"tab": "market", **NAV_LINK, "sort": "-sharpe_1y"}) == []
    state.market = market = markets()  # the view layer sets it later: the link's values waited for it
    assert _values(market) == (4.5, 12.0, -20.0, 0.5) and market.sort == "-sharpe_1y"
    query = url_search(state)
    for part in ("min_return_3y=4.5", "max_volatility=12", "max_drawdown=-20", "min_sharpe=0.5", "sort=-sharpe_1y"):
        assert part in query, query
    seen = []
    state.url_watch(lambda *events: seen.append([e.name for e in events]))
    market.max_volatility = None  # a filter cleared on screen: the address follows
    assert seen == [["max_volatility"]] and "max_volatility" not in url_search(state)
    again = DashboardState()
    again.market = other = markets()  # the model set first this time
    assert again.apply_url(dict(part.split("=", 1) for part in url_search(state)[1:].split("&"))) == []
    assert _values(other) == (4.5, None, -20.0, 0.5) and other.sort == "-sharpe_1y"


@pytest.mark.parametrize("market_first", [False, True])
def test_bad_nav_values_in_a_link_are_named_and_left_out(markets, market_first):
    state = DashboardState()
    if market_first:
        state.market = market = markets()
    ignored = state.apply_url({"tab": "market", "min_return_3y": "lots", "max_volatility": "nan",
                               "max_drawdown": "150", "min_sharpe": "0.5", "max_fee": "1.5"})
    if not market_first:
        state.market = market = markets()
    assert _values(market) == (None, None, None, 0.5) and market.max_fee == 1.5  # the good ones kept
    named = state.ignored_url
    for part in ("min_return_3y=lots", "max_volatility=nan", "max_drawdown=150"):
        assert part in named, named
    assert len(named) == 3 and (ignored == named if market_first else len(ignored) == 2)
    query = url_search(state)  # the address is cleaned: only what was used
    assert "min_sharpe=0.5" in query and "max_fee=1.5" in query
    assert "min_return_3y" not in query and "max_volatility" not in query and "max_drawdown" not in query

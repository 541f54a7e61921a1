"""The funds that qualify for a tax wrapper, from a demo market synced with a year of NAV, ranked by the
figure picked; checked against the store's own rows worked out here in Python."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from dashboard.errors import BadInputError
from dashboard.market.store import open_reader
from dashboard.market.tax_funds import qualifying_funds
from tests.built_once import copy_built
from tests.market.conftest import synced_once


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    # the run's one sync of the demo market with a year of NAV (tests/market/conftest.py), copied here
    built, _ = synced_once(tmp_path_factory, "successor", quarters=1, nav_days=400)
    path = copy_built(built, Path(tmp_path_factory.mktemp("tax-funds-store")) / "store") / "market.duckdb"
    with open_reader(path=path) as store:
        yield store


def _all(reader):
    return reader.query("SELECT f.proj_id, f.proj_name_en, f.proj_name_th, f.fund_status, f.tax_incentives, "
                        "g.total_fee_actual, n.volatility_1y, n.total_return_1y FROM funds f "
                        "LEFT JOIN fund_figures g USING (proj_id) "
                        "LEFT JOIN nav_figures n ON n.proj_id = f.proj_id AND n.fund_figure")


@pytest.mark.parametrize("wrapper", ["RMF", "SSF", "ThaiESG"])
def test_each_wrapper_lists_its_registered_funds(reader, wrapper):
    rows = qualifying_funds(reader, wrapper, "fee", limit=1000)
    everything = _all(reader)
    if wrapper == "RMF":
        expected = {r["proj_id"] for r in everything if r["fund_status"] == "RG" and "เพื่อการเลี้ยงชีพ" in (r["proj_name_th"] or "")}
    else:
        expected = {r["proj_id"] for r in everything
                    if r["fund_status"] == "RG" and wrapper in (r["tax_incentives"] or "").split(",")}
    assert expected and {r["proj_id"] for r in rows} == expected
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))


@pytest.mark.parametrize("rank_by, column, ascending", [("fee", "total_fee_actual", True),
                                                        ("return", "nav_total_return_1y", False),
                                                        ("volatility", "volatility_1y", True)])
def test_ranked_by_the_figure_picked_funds_without_it_last(reader, rank_by, column, ascending):
    rows = qualifying_funds(reader, "ThaiESG", rank_by, limit=1000)
    values = [r[column] for r in rows]
    known = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    assert known, f"the demo has Thai ESG funds with a {rank_by}"
    assert values[:len(known)] == known  # the ones without the figure come last
    assert known == sorted(known, reverse=not ascending)


def test_limit_and_refusals(reader):
    assert len(qualifying_funds(reader, "SSF", "fee", limit=2)) == 2
    with pytest.raises(BadInputError, match="not a tax-advantaged wrapper"):
        qualifying_funds(reader, "LTF")
    with pytest.raises(BadInputError, match="cannot rank by"):
        qualifying_funds(reader, "RMF", "popularity")

"""The Market tab's questions (risk spectrum, fees by policy type, most-held securities, snapshot state)
against values computed from the demo data set, read through the published snapshot as a dashboard does."""

from __future__ import annotations

import datetime as dt
import statistics
from collections import Counter

import pytest

from dashboard.api.periods import valid_periods
from dashboard.errors import BadInputError
from dashboard.market import queries as Q
from dashboard.market import holdings as H
from dashboard.market import status as S
from dashboard.market.store import MarketStore
from tests.conftest import TODAY
from tests.market import expected as X


@pytest.fixture(params=["writer", "reader"])
def store(request, synced):
    """The synced store itself, or a reader of the snapshot it published (both answer the same)."""
    market, writer, _ = synced
    if request.param == "writer":
        yield market, writer
        return
    reader = MarketStore(writer.path, read_only=True)
    yield market, reader
    reader.close()


def policy_of(market, proj_id: str) -> str | None:
    """The policy type the service publishes for a fund (the current service only)."""
    if market.layout != "successor":
        return None
    value = (market.dataset.fund_details.get(proj_id) or {}).get("policy_desc")
    return value.strip() or None if isinstance(value, str) else None


def risk_of(market, proj_id: str) -> str | None:
    entry = market.dataset.suitability.get(proj_id)
    return entry["risk_spectrum"].replace("RS8+", "RS81") if entry else None


def charged_fees(market) -> dict[str, float]:
    fees = {pid: X.first_class_total_fee(rows) for pid, rows in market.dataset.fees.items()}
    return {pid: fee for pid, fee in fees.items() if fee is not None}


def iso(stamp: float) -> str:
    return dt.datetime.fromtimestamp(stamp, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else [values[0]] * 3
    return q[0], q[1], q[2]


def test_risk_spectrum_counts_funds_per_level_and_policy_type(store):
    market, s = store
    ds = market.dataset
    want = Counter((risk_of(market, f["proj_id"]), policy_of(market, f["proj_id"])) for f in ds.funds)
    rows = Q.risk_spectrum(s)
    assert {(r["risk_spectrum"], r["policy_type"]): r["funds"] for r in rows} == dict(want)
    assert sum(r["funds"] for r in rows) == len(ds.funds)
    ranks = [r["risk_rank"] for r in rows if r["risk_rank"] is not None]
    assert ranks == sorted(ranks) and rows[-1]["risk_spectrum"] is None  # funds with no level come last
    if market.layout == "successor":
        assert len({r["policy_type"] for r in rows}) >= 3
    registered = Counter((risk_of(market, f["proj_id"]), policy_of(market, f["proj_id"]))
                         for f in ds.funds if f["fund_status"] == "RG")
    assert {(r["risk_spectrum"], r["policy_type"]): r["funds"] for r in Q.risk_spectrum(s, status="RG")} == dict(registered)


def test_fees_by_policy_type_are_charged_fees_only(store):
    market, s = store
    fees = charged_fees(market)
    groups: dict[str | None, list[float]] = {}
    for f in market.dataset.funds:
        if f["proj_id"] in fees:
            groups.setdefault(policy_of(market, f["proj_id"]), []).append(fees[f["proj_id"]])
    rows = Q.fees_by_policy(s)
    assert {r["policy_type"] for r in rows} == set(groups)
    for row in rows:
        values = sorted(groups[row["policy_type"]])
        p25, median, p75 = quartiles(values)
        assert row["funds"] == len(values)
        assert (row["min"], row["max"]) == pytest.approx((values[0], values[-1]))
        assert (row["p25"], row["median"], row["p75"]) == pytest.approx((p25, median, p75))
        assert row["mean"] == pytest.approx(statistics.fmean(values))
    # never a prospectus ceiling: the ceilings differ from the charged fees in the demo data
    ceilings = s.query("SELECT count(*) AS n FROM fund_figures WHERE total_fee_ceiling <> total_fee_actual")[0]["n"]
    assert ceilings > 0
    biggest = max(groups, key=lambda k: len(groups[k]))
    peers = Q.fee_distribution(s, biggest)
    assert [r["total_fee_actual"] for r in peers] == pytest.approx(sorted(groups[biggest]))


def test_a_funds_fee_percentile_among_its_peers(store):
    market, s = store
    fees = charged_fees(market)
    policy = {f["proj_id"]: policy_of(market, f["proj_id"]) for f in market.dataset.funds}
    abbr = {f["proj_id"]: f["proj_abbr_name"] for f in market.dataset.funds}
    checked = 0
    for proj_id in sorted(fees)[:12]:
        peers = [fees[p] for p in fees if policy.get(p) == policy[proj_id]]
        cheaper = sum(1 for f in peers if f < fees[proj_id] - 1e-12)
        same = sum(1 for f in peers if abs(f - fees[proj_id]) <= 1e-12)
        answer = Q.fee_percentile(s, abbr[proj_id].lower())  # an abbreviation, any case, names the fund
        assert answer["proj_id"] == proj_id and answer["policy_type"] == policy[proj_id]
        assert answer["total_fee_actual"] == pytest.approx(fees[proj_id])
        assert (answer["peers"], answer["cheaper"], answer["same"]) == (len(peers), cheaper, same)
        assert answer["percentile"] == pytest.approx(100 * (cheaper + same / 2) / len(peers), abs=1e-3)
        assert answer["peer_median"] == pytest.approx(statistics.median(peers))
        checked += 1
    assert checked
    cheapest = min(fees, key=fees.get)
    assert Q.fee_percentile(s, cheapest)["percentile"] <= 50
    assert Q.fee_percentile(s, "NO-SUCH-FUND") is None
    without = next((f["proj_id"] for f in market.dataset.funds if f["proj_id"] not in fees), None)
    if without is not None:
        answer = Q.fee_percentile(s, without)
        assert answer["percentile"] is None and answer["total_fee_actual"] is None


def test_most_held_securities_in_a_quarter(store):
    market, s = store
    ds = market.dataset
    period = valid_periods(TODAY, market.layout)[0]
    funds: dict[str, set] = {}
    value: dict[str, float] = {}
    for pid, by_period in ds.holdings.items():
        for row in by_period.get(period, []):
            key = X.security_key(row)
            if X.is_nav_total(row) or key is None:
                continue
            funds.setdefault(key, set()).add(pid)
            value[key] = value.get(key, 0.0) + (X.number(row.get("assetliab_value")) or 0.0)
    rows = H.most_held(s, limit=10)
    assert len(rows) == min(10, len(funds))
    assert rows[0]["funds"] == max(len(v) for v in funds.values()) >= 2
    for row in rows:
        assert row["period"] == period
        assert row["funds"] == len(funds[row["security"]])
        assert row["total_value"] == pytest.approx(value[row["security"]], rel=1e-9)
        # the security is what `holders` takes, and it finds the same funds
        assert {h["proj_id"] for h in H.holders(s, row["security"], period)} == funds[row["security"]]
    order = [(-r["funds"], -(r["total_value"] or 0)) for r in rows]
    assert order == sorted(order)
    everything = H.most_held(s, period, limit=None)
    assert len(everything) == len(funds)
    assert sum(r["funds"] for r in everything) == sum(len(v) for v in funds.values())  # NAV totals never counted
    if len(valid_periods(TODAY, market.layout)) > 1 and H.periods(s)[1:]:
        older = H.periods(s)[1]
        assert all(r["period"] == older for r in H.most_held(s, older, limit=3))
    with pytest.raises(BadInputError):
        H.most_held(s, "2026-06")


def test_periods_and_policy_types(store):
    market, s = store
    stored = H.periods(s)
    assert stored == sorted(stored, reverse=True) and stored[0] == valid_periods(TODAY, market.layout)[0]
    want = sorted({p for p in (policy_of(market, f["proj_id"]) for f in market.dataset.funds) if p})
    assert Q.policy_types(s) == want


def test_snapshot_state_after_a_sync(store):
    _market, s = store
    state = S.snapshot_state(s)
    assert state["has_snapshot"] and state["complete"] and state["sync"] is None
    stamps = [m["fetched_at"] for m in s.meta().values()]
    assert state["fetched_at"] == iso(max(stamps)) and state["oldest_fetched_at"] == iso(min(stamps))
    assert S.snapshot_state(s, now=max(stamps) + 90)["age_s"] == pytest.approx(90)

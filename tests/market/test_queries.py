"""Screener, holders, overlap and status against values computed from the demo data set."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from dashboard.api.periods import valid_periods
from dashboard.errors import BadInputError
from dashboard.market import queries as Q
from dashboard.market import holdings as H
from dashboard.market import status as S
from tests.conftest import TODAY
from tests.market import expected as X

STATUS_WORDS = {"RG": "Registered", "SE": "IPO", "EX": "Expired", "CA": "Canceled", "LI": "Liquidated"}


def ids(rows):
    return {r["proj_id"] for r in rows}


def test_screen_rows_carry_the_issue_fields(synced):
    _market, store, _ = synced
    rows = Q.screen(store)
    assert len(rows) == store.count("funds")
    for field in ("proj_id", "proj_abbr_name", "proj_name_en", "proj_name_th", "company_name_en", "fund_status",
                  "risk_spectrum", "total_fee_actual", "return_1y"):
        assert field in rows[0]


def test_screen_filters(synced):
    market, store, _ = synced
    ds = market.dataset
    company = ds.funds[0]["unique_id"]
    assert ids(Q.screen(store, company=company.lower())) == {f["proj_id"] for f in ds.funds if f["unique_id"] == company}
    registered = {f["proj_id"] for f in ds.funds if f["fund_status"] == "RG"}
    assert ids(Q.screen(store, status="RG")) == registered == ids(Q.screen(store, status="Registered"))
    risk = {pid for pid, s in ds.suitability.items() if s["risk_spectrum"] in ("RS6", "RS8+", "RS81")}
    assert ids(Q.screen(store, risk=["RS6", "8+"])) == risk
    fees = {pid: X.first_class_total_fee(rows) for pid, rows in ds.fees.items()}
    assert ids(Q.screen(store, max_fee=1.5)) == {pid for pid, fee in fees.items() if fee is not None and fee <= 1.5}
    returns = {pid: X.one_year_return(rows) for pid, rows in ds.performance.items()}
    assert ids(Q.screen(store, min_return_1y=5)) == {pid for pid, r in returns.items() if r is not None and r >= 5}
    both = Q.screen(store, status="RG", max_fee=2.0, min_return_1y=0)
    assert ids(both) == {pid for pid in registered if (fees.get(pid) is not None and fees[pid] <= 2.0
                                                       and returns.get(pid) is not None and returns[pid] >= 0)}
    for row in Q.screen(store):
        assert row["total_fee_actual"] == pytest.approx(fees.get(row["proj_id"])) if fees.get(row["proj_id"]) is not None \
            else row["total_fee_actual"] is None


def test_screen_sort_and_limit(synced):
    _market, store, _ = synced
    rows = Q.screen(store, sort="-return_1y", limit=5)
    values = [r["return_1y"] for r in rows]
    assert len(rows) == 5 and values == sorted(values, reverse=True)
    everything = [r["return_1y"] for r in Q.screen(store, sort="-return_1y") if r["return_1y"] is not None]
    assert values == everything[:5]
    with pytest.raises(BadInputError, match="cannot sort by"):
        Q.screen(store, sort="nav")
    with pytest.raises(BadInputError, match="risk level"):
        Q.screen(store, risk=["high"])


def test_screen_policy_tax_and_retail_type(synced):
    market, store, _ = synced
    if market.layout != "successor":
        pytest.skip("policy type, tax incentives and investor type are published by the current service only")
    ds = market.dataset
    details = ds.fund_details
    ssf = {pid for pid, d in details.items()
           if any(re.search(r"SSF", c.get("fund_class_tax_incentive_type") or "") for c in d["classes"].values())}
    esg = {pid for pid, d in details.items()
           if any(re.search(r"Thai ESG", c.get("fund_class_tax_incentive_type") or "") for c in d["classes"].values())}
    assert ids(Q.screen(store, tax="SSF")) == ssf and ssf
    assert ids(Q.screen(store, tax="thaiesg")) == esg
    equity = {pid for pid, d in details.items() if "ตราสารทุน" in (d.get("policy_desc") or "")}
    assert ids(Q.screen(store, policy="ตราสารทุน")) == equity and equity
    # English names find the Thai policy types (the service sends Thai only)
    assert ids(Q.screen(store, policy="Equity")) == equity
    debt = {pid for pid, d in details.items() if "ตราสารหนี้" in (d.get("policy_desc") or "")}
    assert ids(Q.screen(store, policy="fixed income")) == debt and debt and not debt & equity
    assert Q.screen(store, policy="no policy is called this") == []
    retail = Counter(r["proj_retail_type"] for r in Q.screen(store))
    code = next(c for c in retail if c)
    assert len(Q.screen(store, retail_type=code.lower())) == retail[code]


def test_holders(synced):
    market, store, _ = synced
    ds = market.dataset
    period = valid_periods(TODAY, market.layout)[0]
    counts = Counter(str(r.get("issue_code")) for by in ds.holdings.values() for r in by.get(period, [])
                     if not X.is_nav_total(r) and X.text(r.get("issue_code")))
    code = counts.most_common(1)[0][0]
    want = X.holders(ds, code, period)
    rows = H.holders(store, code.lower())
    assert {r["proj_id"]: r["percent_nav"] for r in rows} == pytest.approx(want)
    assert all(r["period"] == period for r in rows) and len(rows) >= 2
    assert [r["percent_nav"] for r in rows] == sorted((r["percent_nav"] for r in rows), reverse=True)
    isin = next(r["isin_code"] for by in ds.holdings.values() for r in by.get(period, [])
                if str(r.get("issue_code")) == code and X.text(r.get("isin_code")))
    assert ids(H.holders(store, isin)) >= set(X.holders(ds, isin, period))
    assert H.holders(store, "NO-SUCH-SECURITY") == []
    with pytest.raises(BadInputError):
        H.holders(store, "-")


def test_nav_total_rows_are_never_counted(synced):
    market, store, _ = synced
    period = valid_periods(TODAY, market.layout)[0]
    nav = [r for by in market.dataset.holdings.values() for r in by.get(period, []) if X.is_nav_total(r)]
    assert store.query("SELECT count(*) AS n FROM holdings WHERE is_nav_total AND period = ?", [period])[0]["n"] == len(nav)
    for row in nav[:3]:
        code = X.text(row.get("issue_code")) or X.text(row.get("isin_code"))
        if code:
            assert all(X.holders(market.dataset, code, period).get(r["proj_id"]) == pytest.approx(r["percent_nav"])
                       for r in H.holders(store, code))


def test_overlap(synced):
    market, store, _ = synced
    ds = market.dataset
    period = valid_periods(TODAY, market.layout)[0]
    held = [pid for pid in ds.holdings if X.weights(ds, pid, period)]
    best = max(((a, b) for i, a in enumerate(held) for b in held[i + 1:]),
               key=lambda p: X.pair_overlap(ds, p[0], p[1], period))
    third = next(p for p in held if p not in best)
    abbr = {f["proj_id"]: f["proj_abbr_name"] for f in ds.funds}
    answer = H.overlap(store, [best[0], abbr[best[1]].lower(), third])
    assert answer["funds"] == [best[0], best[1], third] and answer["missing"] == {}
    trio = answer["funds"]
    for i, a in enumerate(trio):
        for b in trio[i + 1:]:
            assert answer["overlap_pct"][f"{a}|{b}"] == pytest.approx(X.pair_overlap(ds, a, b, period), abs=1e-5)
    assert answer["overlap_pct"][f"{best[0]}|{best[1]}"] > 0
    weights = {pid: X.weights(ds, pid, period) for pid in trio}
    common_keys = {k for k in set().union(*weights.values()) if sum(k in w for w in weights.values()) >= 2}
    assert len(answer["common"]) == len(common_keys)
    for item in answer["common"]:
        key = (item["isin_code"] or item["issue_code"]).upper()
        assert item["weights"] == pytest.approx({p: weights[p][key] for p in trio if key in weights[p]}, abs=1e-5)
    with pytest.raises(BadInputError, match="no fund"):
        H.overlap(store, [best[0], "NO-SUCH-FUND"])
    with pytest.raises(BadInputError, match="two different"):
        H.overlap(store, [best[0], best[0]])


def test_overlap_of_funds_with_holdings_but_no_profile_answers_from_the_holdings(market_factory, tmp_path):
    from dashboard.market.store import MarketStore

    market = market_factory("successor")
    with MarketStore(tmp_path / "market.duckdb") as store:
        market.sync(store, only="holdings", quarters=1)  # holdings without the fund profiles
        ds, period = market.dataset, valid_periods(TODAY, market.layout)[0]
        held = [pid for pid in ds.holdings if X.weights(ds, pid, period)]
        a, b = max(((a, b) for i, a in enumerate(held) for b in held[i + 1:]), key=lambda p: X.pair_overlap(ds, *p, period))
        assert store.count("funds") == 0 and H.holders(store, next(iter(X.weights(ds, a, period))))  # holders list it
        answer = H.overlap(store, [a, b.lower()])
        assert answer["funds"] == [a, b] and answer["period"] == period
        assert answer["overlap_pct"][f"{a}|{b}"] == pytest.approx(X.pair_overlap(ds, a, b, period), abs=1e-5)
        assert answer["overlap_pct"][f"{a}|{b}"] > 0
        assert set(answer["missing"]) == {a, b} and "no profile" in answer["missing"][a]
        with pytest.raises(BadInputError, match="neither a profile nor holdings"):
            H.overlap(store, [a, "NO-SUCH-FUND"])


def test_status_shape(synced):
    _market, store, result = synced
    status = S.status(store)
    assert set(status) == {"funds", "classes", "datasets", "calls"}
    assert status["funds"] == store.count("funds") and status["classes"] == store.count("classes")
    assert set(status["datasets"]) >= {"companies", "funds", "classes", "fees", "risk", "performance", "allocation",
                                       "minimums", "dealing", "links", "holdings"}
    for name, entry in status["datasets"].items():
        assert set(entry) == {"rows", "fetched_at", "complete"} and entry["complete"], name
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", entry["fetched_at"])
    assert status["datasets"]["holdings"]["rows"] == store.count("holdings")
    assert isinstance(status["calls"], int)


def test_fund_record_from_the_store_else_from_what_the_client_saw(synced):
    market, store, _ = synced
    fund = market.dataset.funds[0]
    record = Q.fund_record(fund["proj_id"], store)
    assert record["proj_abbr_name"] == fund["proj_abbr_name"] and record["company_name_en"]

    class Seen:
        def known_fund(self, proj_id):
            return {"proj_id": proj_id, "proj_abbr_name": "SEEN"} if proj_id == "M0001_2999" else None

    assert Q.fund_record("M0001_2999", store, Seen())["proj_abbr_name"] == "SEEN"
    assert Q.fund_record("M0002_2999", store, Seen()) is None


def test_holders_by_a_part_of_the_issuers_name(synced):
    """"Who holds this" finds a security by a part of its issuer's name (issue 30), any case."""
    market, store, _ = synced
    ds = market.dataset
    period = valid_periods(TODAY, market.layout)[0]
    lines = [r for by in ds.holdings.values() for r in by.get(period, [])
             if not X.is_nav_total(r) and X.text(r.get("issuer")) and len(str(r["issuer"])) > 8]
    issuer = Counter(str(r["issuer"]) for r in lines).most_common(1)[0][0]
    part = issuer[2:-2].swapcase()
    rows = H.holders(store, part)
    assert rows, f"no fund found by {part!r}"
    assert all(part.casefold() in str(r["issuer"]).casefold() for r in rows)
    holding = {pid for pid, by in ds.holdings.items() for r in by.get(period, [])
               if not X.is_nav_total(r) and str(r.get("issuer")) == issuer}
    assert holding <= ids(rows)
    assert H.holders(store, "no issuer is called this") == []

"""The demo data set agrees with itself over every fund: allocation with holdings, names with tax
incentives, fee lines with the documented spellings and with each other."""

from __future__ import annotations

import pytest

from dashboard.records.labels import ASSET_TYPE, SPELLINGS, asset_class_english, fee_type_key
from dashboard.records.values import to_number


def newest_quarter(dataset, proj_id: str) -> list[dict]:
    by_period = dataset.holdings.get(proj_id) or {}
    return by_period[max(by_period)] if by_period else []


def check_allocations(dataset) -> int:
    checked = 0
    for proj_id, allocation in dataset.allocation.items():
        lines = [r for r in newest_quarter(dataset, proj_id) if str(r.get("assetliab_id")) != "903"]
        if not lines:
            continue
        held: dict[str, float] = {}
        for row in lines:
            english = ASSET_TYPE[str(row["assetliab_id"])][1]
            held[english] = held.get(english, 0.0) + float(row["percent_nav"])
        shown = {asset_class_english(r["asset_name"]): to_number(r["asset_ratio"]) for r in allocation}
        assert None not in shown, (proj_id, [r["asset_name"] for r in allocation])
        assert set(shown) == set(held), (proj_id, sorted(shown), sorted(held))
        for name, share in held.items():
            assert shown[name] == pytest.approx(share, abs=0.011), (proj_id, name)
        checked += 1
    return checked


def test_every_allocation_matches_the_funds_newest_holdings(dataset):
    assert check_allocations(dataset) >= 10


def _tags(dataset, proj_id: str) -> dict[str, str]:
    classes = (dataset.fund_details.get(proj_id) or {}).get("classes") or {}
    return {name: SPELLINGS["fund_class_tax_incentive_type"]["successor"].get(c["fund_class_tax_incentive_type"], "")
            for name, c in classes.items() if c.get("fund_class_tax_incentive_type")}


def check_tax_incentives(dataset) -> int:
    tagged = 0
    for fund in dataset.funds:
        name = fund.get("proj_name_en") or ""
        tags = _tags(dataset, fund["proj_id"])
        for class_name, tag in tags.items():
            tagged += 1
            if tag == "SSF":
                assert "Super Savings" in name or class_name.endswith("SSF"), (fund["proj_id"], name, class_name)
            elif tag == "ThaiESG":
                assert "ESG" in name, (fund["proj_id"], name, class_name)
            else:
                pytest.fail(f"{fund['proj_id']}: tax incentive text {tag!r} is not one the service sends")
        if "Retirement" in name:  # RMF: the current service publishes no RMF value (spec 4.1)
            assert not tags, (fund["proj_id"], name, tags)
        if "Super Savings" in name:
            assert set(tags.values()) == {"SSF"}, (fund["proj_id"], name, tags)
        if "ESG" in name and fund.get("fund_status") == "RG":
            assert set(tags.values()) == {"ThaiESG"}, (fund["proj_id"], name, tags)
    return tagged


def test_names_match_tax_incentives(dataset):
    assert check_tax_incentives(dataset) >= 3


def check_fees(dataset) -> None:
    legacy = SPELLINGS["fee_type_desc"]["legacy"]
    for proj_id, rows in dataset.fees.items():
        by_class: dict[str, dict[str, float | None]] = {}
        for row in rows:
            assert row["fee_type_desc"] in legacy, (proj_id, row["fee_type_desc"])
            kind = fee_type_key(row["fee_type_desc"])
            by_class.setdefault(row["class_abbr_name"], {})[kind] = to_number(row["actual_value"])
        for fees in by_class.values():
            parts = [fees.get(k) for k in ("management", "trustee", "registrar") if fees.get(k) is not None]
            if fees.get("total") is not None and parts:
                assert fees["total"] >= sum(parts), (proj_id, fees)


def test_every_fee_line_is_a_documented_spelling_and_totals_cover_their_parts(dataset):
    check_fees(dataset)

"""The simulator's current-service rows have the live service's shape: the captured key order and JSON
types (../shared/real-captures/successor-v2), and only the spellings labels.SPELLINGS documents."""

from __future__ import annotations

import json

import pytest

from dashboard.demo.successor import SuccessorView
from dashboard.records.labels import SPELLINGS
from tests.shared_files import CAPTURES, require

ENDPOINT_ROWS = {"amcs.json": "amcs", "profiles.json": "profiles", "asset-allocation.json": "allocation",
                 "risk-spectrum.json": "risk", "quarterly-portfolio.json": "portfolio"}


def json_type(value) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}.get(type(value), "other")


@pytest.fixture(scope="module")
def view(dataset):
    return SuccessorView(dataset)


@pytest.mark.parametrize("name", sorted(ENDPOINT_ROWS))
def test_rows_have_the_captured_fields_in_the_captured_order_and_types(view, name):
    captured = json.loads(require(CAPTURES / name).read_text(encoding="utf-8"))["items"]
    rows = getattr(view, ENDPOINT_ROWS[name])({})
    if name == "quarterly-portfolio.json":  # the two funds that use the dictionary's names are checked in 4.3's tests
        rows = [r for r in rows if "assetliab_id" in r]
    assert rows
    order = list(captured[0])
    seen: dict[str, set[str]] = {}
    for item in captured:
        for key, value in item.items():
            seen.setdefault(key, set()).add(json_type(value))
    for row in rows:
        assert list(row) == order, name
        for key, value in row.items():
            kind = json_type(value)
            # null where the captures show a value, and text where the captured rows happen to be all null
            # (spec 4.1 types them "string | null"), are allowed; a number never stands for text or back
            allowed = seen[key] | {"null"} | ({"string"} if seen[key] == {"null"} else set())
            assert kind in allowed, (name, key, value)


def test_enumerated_values_are_documented_spellings(view):
    successor = {field: set(layouts.get("successor", {})) for field, layouts in SPELLINGS.items()}
    profiles = view.profiles({})
    assert {r["fund_status"] for r in profiles} <= successor["fund_status"]
    assert {r["policy_desc"] for r in profiles} - {None} <= successor["policy_desc"]
    assert {r["fund_class_tax_incentive_type"] for r in profiles} - {""} <= successor["fund_class_tax_incentive_type"]
    assert {r["risk_spectrum"] for r in view.risk({})} <= successor["risk_spectrum"]
    assert {r["fee_type_desc"] for r in view.fees({})} <= successor["fee_type_desc"]
    assert {r["performance_type_desc"] for r in view.performance({})} <= successor["performance_type_desc"]
    redemption = {r["period"] for r in view.periods({}) if r["type"] == "redemption"}
    assert redemption - {None} <= successor["redemp_period"]

"""The service's answers as the market store's rows: records of the records layer, keyed by fund
(proj_id), their order (seq) and, for holdings, the quarter."""

from __future__ import annotations

from typing import Any

from dashboard.api.endpoints import endpoint
from dashboard.market.datasets import Dataset
from dashboard.records.kinds import normalise_payload, normalise_record
from dashboard.records.successor import class_records, fund_records, to_legacy


def successor_tables(ds: Dataset, items: list, today: Any) -> dict[str, list[dict]]:
    """The store's rows of a dataset from the successor's whole-market items (`today`: the client's date):
    the records layer's records, grouped by fund (and quarter), keyed by proj_id, their order and period."""
    if ds.name == "companies":
        return {"companies": [company_row(normalise_record("amc", item, today=today))
                              for item in items if isinstance(item, dict)]}
    if ds.name == "funds":
        funds = [normalise_record("fund", r, today=today) for r in fund_records(items)]
        classes = [normalise_record("unit_class", r, today=today) for r in class_records(items)]
        return {"funds": funds, "classes": classes}
    ep = endpoint(ds.endpoint)
    groups: dict[tuple[str, str], list] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        proj_id = str(item.get("proj_id") or "").strip()
        if not proj_id:
            continue
        period = str(item.get("period") or "").strip() if ds.name == "holdings" else ""
        groups.setdefault((proj_id, period), []).append(item)
    records: list[dict] = []
    for (proj_id, period), group in sorted(groups.items()):
        data = to_legacy(ep.id, group, {"proj_id": proj_id})
        normalised = normalise_payload(ep.record_kind, data, list_expected=ep.returns_list, today=today)
        records.extend(keyed(normalised, proj_id, period or None))
    return {ds.tables[0]: records}


def company_row(record: dict) -> dict:
    """A management company's record with its names trimmed."""
    for name in ("comp_name_en", "comp_name_th"):
        if isinstance(record.get(name), str):
            record[name] = record[name].strip()
    return record


def keyed(normalised: Any, proj_id: str, period: str | None) -> list[dict]:
    """Records of one fund (and quarter) with their keys: proj_id, their order (seq), the period."""
    if normalised is None:
        return []
    records = normalised if isinstance(normalised, list) else [normalised]
    out = []
    for seq, record in enumerate(records):
        if not isinstance(record, dict):
            continue
        keyed = {"proj_id": proj_id, "seq": seq, **{k: v for k, v in record.items() if k not in ("proj_id", "seq")}}
        if period is not None:
            keyed["period"] = str(period)
        out.append(keyed)
    return out

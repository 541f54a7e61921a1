"""One normaliser per record kind: raw JSON records in, tidy JSON-safe dicts out.

A normalised record keeps every field the service sent (new fields are drift worth seeing, not
noise), gains every specification field it lacks as None, holds numbers, ISO dates and decoded text
instead of loose strings, and carries a few derived fields (labels, ranks, flags) the views need.
The fields and their types are in `fields`, reading a value in `convert`, the derived fields in
`derived`, typed DataFrames of the records in `frames`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from dashboard.errors import MalformedResponseError
from dashboard.records.convert import convert, json_safe
from dashboard.records.derived import derive
from dashboard.records.fields import ALIASES, COMMON_ALIASES, spec_fields
from dashboard.records.values import is_placeholder


def _today(today: dt.date | None) -> dt.date:
    if isinstance(today, dt.datetime):
        return today.date()
    return today if isinstance(today, dt.date) else dt.date.today()


def normalise_record(kind: str, raw: Mapping, *, today: dt.date | None = None) -> dict:
    """A new JSON-safe dict: specification fields first (normalised, None when missing), then derived
    fields, then any unknown fields the service sent. `today` dates approval_state and is_current."""
    fields = spec_fields(kind)
    if not isinstance(raw, Mapping):
        raise MalformedResponseError(f"a {kind} record must be a JSON object, not {_json_type(raw)}")
    source = {str(key): value for key, value in raw.items()}
    aliases = {**COMMON_ALIASES, **ALIASES.get(kind, {})}
    for alias, canonical in aliases.items():
        if alias in source and is_placeholder(source.get(canonical)) and canonical in fields:
            source[canonical] = source[alias]

    record: dict = {field: convert(kind, field, source.get(field)) for field in fields}
    derive(kind, record, source, _today(today))
    for key, value in source.items():
        if key in record:
            continue
        canonical = aliases.get(key)
        record[key] = convert(kind, canonical, value) if canonical in fields else json_safe(value)
    return record


def normalise_payload(
    kind: str,
    payload: object,
    *,
    list_expected: bool,
    today: dt.date | None = None,
    endpoint: str | None = None,
) -> list[dict] | dict | None:
    """Normalised records of one response body: a list for list endpoints ([] for no data), one dict
    or None for object endpoints. A body of the wrong shape raises MalformedResponseError."""
    spec_fields(kind)
    where = f" from {endpoint}" if endpoint else ""
    if list_expected:
        if payload is None:
            return []
        if not isinstance(payload, list):
            raise MalformedResponseError(
                f"expected a list of {kind} records{where}, but the service sent {_json_type(payload)}",
                endpoint=endpoint,
            )
        records = []
        for index, item in enumerate(payload):
            if not isinstance(item, Mapping):
                raise MalformedResponseError(
                    f"item {index} of the {kind} list{where} is {_json_type(item)}, not a record (JSON object)",
                    endpoint=endpoint,
                )
            records.append(normalise_record(kind, item, today=today))
        return records
    if payload is None:
        return None
    if isinstance(payload, list):
        # Some gateways wrap a single object in a list; an empty list is "no data".
        if not payload:
            return None
        if len(payload) > 1:
            raise MalformedResponseError(
                f"expected one {kind} record{where}, but the service sent a list of {len(payload)}",
                endpoint=endpoint,
            )
        payload = payload[0]
    if not isinstance(payload, Mapping):
        raise MalformedResponseError(
            f"expected one {kind} record (JSON object){where}, but the service sent {_json_type(payload)}",
            endpoint=endpoint,
        )
    return normalise_record(kind, payload, today=today)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a JSON object"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    return f"a {type(value).__name__}"


"""An answer's records: checked before caching, normalised once and memoised by the answer's identity."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from dashboard.errors import MalformedResponseError
from dashboard.records.frames import records_frame
from dashboard.records.kinds import normalise_payload

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("dashboard.api")

MEMO_MAX = 2048  # derived forms (records, frames) kept for the most recently used answers


class RecordShape(Protocol):
    """What the records of an endpoint's answer look like (an `Endpoint` is one)."""

    id: str
    record_kind: str
    returns_list: bool


class Answer(Protocol):
    """One answered call (an `ApiResult` is one): its payload, its endpoint and its identity."""

    endpoint: RecordShape
    data: Any
    cache_key: str

    @property
    def identity(self) -> tuple[str, float]: ...


def checked_records(ep: RecordShape, data: Any, where: str) -> Any:
    """The payload's normalised records, or MalformedResponseError: what does not normalise is not cached."""
    try:
        return normalise_payload(ep.record_kind, data, list_expected=ep.returns_list)
    except MalformedResponseError as exc:
        raise MalformedResponseError(f"{where}: {exc}", status_code=200, endpoint=ep.id) from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        log.debug("%s: the answer does not normalise: %r", where, exc)
        raise MalformedResponseError(
            f"{where}: the answer's records are not of the form the service publishes ({type(exc).__name__}); "
            "the service's format may have changed", status_code=200, endpoint=ep.id) from None


def normalise(result: Answer) -> Any:
    """The answer as normalised records. Shared between callers: treat it as read-only."""
    ep = result.endpoint
    return _memoised("records", result, lambda: normalise_payload(ep.record_kind, result.data, list_expected=ep.returns_list))


def result_frame(result: Answer) -> "pd.DataFrame":
    """The answer as a typed DataFrame of the caller's own (callers may change it freely).

    A cached answer's frame is built once from its memoised records; each caller gets a new frame made from
    the kept columns (~6x cheaper than typing the records again: 12 -> 2 ms for a 107-fund search). The kept
    columns are arrays outside any DataFrame, not a kept frame: under copy-on-write a `DataFrame.copy()` (or a
    column read) hands out views of a kept frame's index and blocks, and every view leaves a weak reference on
    the frame the process keeps (pandas prunes them only when their number doubles past 500): hundreds per kept
    frame, scattered through the heap, after a crowd of sessions. Keyed by the answer's identity, as its
    records: a new answer is never given an old answer's frame."""
    kind = result.endpoint.record_kind
    if not result.cache_key:
        return records_frame(kind, normalise(result) or [])
    columns, rows = _memoised("frame", result, lambda: _detached(records_frame(kind, normalise(result) or [])))
    return _frame_of(columns, rows)


def _detached(frame: "pd.DataFrame") -> tuple[dict[str, Any], int]:
    """A frame's columns as arrays of their own (copies, in no DataFrame), and its number of rows."""
    return {column: frame[column].array.copy() for column in frame.columns}, len(frame)


def _frame_of(columns: dict[str, Any], rows: int) -> "pd.DataFrame":
    """A new frame of the kept columns (copied into it: a dict's arrays are copied by the DataFrame)."""
    import pandas as pd

    return pd.DataFrame(columns, columns=list(columns), index=pd.RangeIndex(rows), copy=True)


def remember_records(result: Answer, records: Any) -> Any:
    """Keep the records normalised while checking an answer, so `normalise(result)` does not redo them."""
    if result.cache_key:
        with _lock:
            _derived[("records", *result.identity)] = records
            _trim()
    return records


_lock = threading.Lock()
_derived: "OrderedDict[tuple, Any]" = OrderedDict()


def _trim() -> None:
    while len(_derived) > MEMO_MAX:
        _derived.popitem(last=False)


def _memoised(tag: str, result: Answer, build: Callable[[], Any]) -> Any:
    """Memoise a form derived from a cached answer; fresh (uncached) answers are always rebuilt."""
    if not result.cache_key:
        return build()
    key = (tag, *result.identity)
    with _lock:
        if key in _derived:
            _derived.move_to_end(key)
            return _derived[key]
    value = build()
    with _lock:
        _derived[key] = value
        _trim()
    return value

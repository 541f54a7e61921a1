"""An answer's records: checked before caching, normalised once per cached answer, frames as private copies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from dashboard.api.endpoints import endpoint
from dashboard.errors import MalformedResponseError
from dashboard.records.answers import checked_records, normalise, remember_records, result_frame

COMPANY = {"last_upd_date": "2026-01-02T03:04:05", "unique_id": "0105536000001", "name_th": "บริษัท", "name_en": "Demo Co."}


@dataclass
class Answer:
    endpoint: Any
    data: Any
    cache_key: str = ""
    fetched_at: float = 1.0

    @property
    def identity(self) -> tuple[str, float]:
        return (self.cache_key, self.fetched_at)


def test_a_cached_answer_is_normalised_once_and_an_uncached_one_every_time():
    ep = endpoint("E16")
    cached = Answer(ep, [COMPANY], cache_key="test|records|E16")
    assert normalise(cached) is normalise(cached)
    fresh = Answer(ep, [COMPANY])
    assert normalise(fresh) == normalise(cached) and normalise(fresh) is not normalise(fresh)


def test_records_kept_while_checking_are_the_ones_served():
    ep = endpoint("E16")
    answer = Answer(ep, [COMPANY], cache_key="test|remember|E16")
    records = checked_records(ep, answer.data, "E16 former_licensees")
    assert remember_records(answer, records) is records and normalise(answer) is records


def test_frames_are_private_copies():
    answer = Answer(endpoint("E16"), [COMPANY], cache_key="test|frame|E16")
    first = result_frame(answer)
    first.loc[0, "name_en"] = "changed"
    assert result_frame(answer).loc[0, "name_en"] == "Demo Co."


def test_what_does_not_normalise_is_refused_with_the_endpoint_named():
    with pytest.raises(MalformedResponseError) as error:
        checked_records(endpoint("E16"), {"not": "a list"}, "E16 former_licensees")
    assert str(error.value).startswith("E16 former_licensees: ") and error.value.endpoint == "E16"


def test_a_cached_answers_frame_is_built_once_the_same_as_from_its_records_and_a_new_answer_gets_its_own():
    import pandas as pd

    from dashboard.records import records_frame

    ep = endpoint("E16")
    other = {**COMPANY, "unique_id": "0105536000002", "name_en": "Other Co.", "last_upd_date": None}
    answer = Answer(ep, [COMPANY, other], cache_key="test|frame-once|E16")
    expected = records_frame("licensee", normalise(answer))
    frames = [result_frame(answer) for _ in range(3)]
    for frame in frames:
        pd.testing.assert_frame_equal(frame, expected, check_exact=True)
        assert type(frame.index) is pd.RangeIndex
    # each its own: no index, column labels or values shared (nothing a caller does reaches another)
    assert frames[0].index is not frames[1].index and frames[0].columns is not frames[1].columns
    frames[0].loc[1, "name_en"] = "changed"
    assert frames[1].loc[1, "name_en"] == "Other Co."
    # the same cache entry fetched again (a new answer): its own frame, never the old one
    again = Answer(ep, [COMPANY], cache_key="test|frame-once|E16", fetched_at=2.0)
    assert result_frame(again)["name_en"].tolist() == ["Demo Co."]
    assert result_frame(answer)["name_en"].tolist() == ["Demo Co.", "Other Co."]

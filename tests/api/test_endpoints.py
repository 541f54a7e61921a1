import re
from pathlib import Path

import pytest

from dashboard.api.endpoints import ENDPOINTS, MAX_PATH_PARAM_LENGTH, endpoint
from dashboard.errors import BadInputError

SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec" / "sec-open-api.md"


def spec_rows():
    if not SPEC.exists():
        pytest.skip("shared/spec is not beside this checkout")
    rows = re.findall(r"^\| (E\d+) \| (GET|POST) \| (\S+) \|", SPEC.read_text(), re.M)
    assert len(rows) == 20
    return rows


def test_table_matches_the_specification():
    table = {e.id: (e.method, e.path) for e in ENDPOINTS}
    assert len(ENDPOINTS) == 20
    for eid, method, path in spec_rows():
        assert table[eid] == (method, path), eid


def test_searches_have_a_body_and_gets_have_none():
    for ep in ENDPOINTS:
        assert (ep.method == "POST") == (ep.body_field is not None), ep.id


def test_lookup_by_id_and_name():
    assert endpoint("E6") is endpoint("holdings")
    with pytest.raises(BadInputError, match="unknown endpoint"):
        endpoint("E21")


def test_path_parameters_are_encoded():
    assert endpoint("E7").build_path({"proj_id": "M 1?#_2564"}) == "/FundFactsheet/fund/M%201%3F%23_2564/project_type"
    assert endpoint("E15").build_body("  Demo ") == {"name": "Demo"}


@pytest.mark.parametrize(
    "value, words",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("a/b", "slash"),
        ("..", "'..'"),
        ("M01..x", "'..'"),
        ("a\\b", "slash"),
        ("M\x0001", "control character"),
        ("M0\x7f1", "control character"),
        ("x" * (MAX_PATH_PARAM_LENGTH + 1), "at most"),
        (None, "must be text"),
    ],
)
def test_bad_path_parameters_are_refused(value, words):
    with pytest.raises(BadInputError) as err:
        endpoint("E7").build_path({"proj_id": value})
    assert words in str(err.value)


def test_missing_and_extra_parameters_are_refused():
    with pytest.raises(BadInputError, match="needs case_id"):
        endpoint("E19").build_path({"unique_id": "P1"})
    with pytest.raises(BadInputError, match="takes no parameter"):
        endpoint("E16").build_path({"unique_id": "P1"})
    with pytest.raises(BadInputError, match="search text is empty"):
        endpoint("E1").build_body("  ")

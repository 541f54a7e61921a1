"""The label tables added for people: holdings asset types by code."""

from __future__ import annotations

import pytest

from dashboard.demo.successor import ASSETLIAB_DESC
from dashboard.records.labels import ASSET_TYPE, label


@pytest.mark.parametrize("code, english", [("101", "ordinary shares"), (301, "bank deposits"), (" 903 ", "net asset value (NAV) total")])
def test_asset_type_codes_read_as_names(code, english):
    assert label("asset_type", code, "en") == english
    assert label("asset_type", code, "th") == ASSET_TYPE[str(code).strip()][0]


def test_every_code_the_service_names_has_an_english_name():
    # The current service's Thai texts (as the simulator plays them) name no code the table lacks.
    assert set(ASSETLIAB_DESC) <= set(ASSET_TYPE)
    assert all(thai and english and english.isascii() for thai, english in ASSET_TYPE.values())


def test_an_unknown_asset_type_has_no_label():
    assert label("asset_type", "999", "en") is None
    assert label("asset_type", None, "en") is None

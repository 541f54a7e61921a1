"""What a person sees: names and meanings instead of codes, and the same words on every screen."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.models.basket import FundBasket
from dashboard.views.allocation import basket_note_html, with_asset_names
from dashboard.present.text import asset_name_text, asset_type_text, currency_word, status_text, us_investors_text
from dashboard.views.performance import basket_table
from dashboard.views.risk import table_frame
from tests.conftest import TODAY
from tests.reports.helpers import client_for


@pytest.mark.parametrize("code, text", [("RG", "registered (RG)"), ("Registered", "registered (RG)"),
                                        ("LI", "liquidated (LI)"), ("ZZ", "ZZ"), (None, "")])
def test_a_status_is_a_word_with_its_code_beside_it(code, text):
    assert status_text(code) == text


def test_an_asset_type_shows_english_thai_and_code():
    assert asset_type_text("301", "เงินฝากธนาคาร") == "bank deposits · เงินฝากธนาคาร (301)"
    assert asset_type_text("301") == "bank deposits · เงินฝากธนาคาร (301)"  # legacy: the code only
    assert asset_type_text("888", "สัญญาแลกเปลี่ยน (Swap)") == "Swap · สัญญาแลกเปลี่ยน (888)"
    assert asset_type_text("888", "สัญญาแลกเปลี่ยน") == "สัญญาแลกเปลี่ยน (888)"


def test_asset_names_give_the_english_the_text_carries():
    assert asset_name_text("สัญญาซื้อขายล่วงหน้า (Forward)") == "Forward · สัญญาซื้อขายล่วงหน้า"
    assert asset_name_text("เงินฝากธนาคาร") == "bank deposits · เงินฝากธนาคาร"  # a common class named from the table
    assert asset_name_text("บมจ.ปตท.") == "บมจ.ปตท."  # no English known: the Thai text alone
    assert asset_name_text("หุ้น (ไทย)") == "หุ้น (ไทย)"  # Thai in the parentheses is not an English name
    frame = pd.DataFrame({"asset_name": ["หุ้นกู้อนุพันธ์ (Structured Note)", "เงินฝากธนาคาร"]})
    assert with_asset_names(frame)["asset_name"].tolist() == ["Structured Note · หุ้นกู้อนุพันธ์", "bank deposits · เงินฝากธนาคาร"]


def test_the_same_words_for_us_investors_and_baht():
    assert (us_investors_text("Y"), us_investors_text("n"), us_investors_text(None)) == ("may invest", "may not invest", None)
    assert [currency_word(u) for u in ("บาท", "THB", "USD", None)] == ["baht", "baht", "USD", ""]


@pytest.fixture(params=["legacy", "successor"])
def loaded_basket(request, dataset):
    """A basket of a fund with an asset allocation and one without, loaded through the simulator."""
    with_alloc = next(f["proj_id"] for f in dataset.funds if dataset.allocation.get(f["proj_id"]) and dataset.performance.get(f["proj_id"]))
    without = next(f["proj_id"] for f in dataset.funds if not dataset.allocation.get(f["proj_id"]) and dataset.fees.get(f["proj_id"]))
    client = client_for(dataset, TODAY, layout=request.param)
    basket = FundBasket(client=client)
    basket.set_funds([with_alloc, without])
    basket.load()
    yield basket, with_alloc, without
    client.close()


def test_the_allocation_tab_names_the_funds_its_chart_leaves_out(loaded_basket):
    basket, with_alloc, without = loaded_basket
    frame = basket.allocation_frame()
    assert set(frame["proj_id"]) == {with_alloc}
    note = basket_note_html(basket, frame)
    assert "No asset allocation published for" in note
    assert basket.label(without) in note and basket.label(with_alloc) not in note


def test_the_risk_table_shows_status_words(loaded_basket):
    basket, *_ = loaded_basket
    risk = basket.risk_frame()
    shown = dict(zip(risk["fund"].astype(str), table_frame(risk)["fund_status"]))
    codes = dict(zip(risk["fund"].astype(str), risk["fund_status"]))
    known = {f: s for f, s in shown.items() if isinstance(codes[f], str) and codes[f]}  # a record not found yet has no status (another issue)
    assert known, shown
    for fund, text in known.items():
        assert text == status_text(codes[fund]) and text.endswith(f"({codes[fund]})") and not text.startswith("("), text


def test_the_basket_performance_table_says_since_inception(loaded_basket):
    basket, *_ = loaded_basket
    columns = basket_table(basket.performance_frame()).columns.tolist()
    assert "since inception" in columns and "inception date" not in columns

"""Evidence for issue 26: the same totals whatever documented spelling the service uses for its fee lines.

`fund show --json`, `market sync` and `market screen --json` (the command line, in process) against
the loopback simulator on each layout, switched to each documented form of the fee lines.
"""

from __future__ import annotations

import json

import pytest

from dashboard.cli import market as market_cli
from dashboard.cli.main import main
from dashboard.records.labels import FEE_SPELLING_FORMS, SPELLINGS, fee_type_text
from tests.conftest import KEY
from tests.market.expected import first_class_total_fee

CASES = [(layout, form) for layout in ("legacy", "successor") for form in FEE_SPELLING_FORMS]


def five_funds(dataset) -> list[str]:
    """Five open funds with charged fees, one of them with unit classes."""
    charged = [f["proj_id"] for f in dataset.funds if f.get("fund_status") == "RG" and f["proj_id"] in dataset.fees
               and first_class_total_fee(dataset.fees[f["proj_id"]]) is not None]
    with_classes = next(p for p in charged if p in dataset.classes)
    return [with_classes] + [p for p in charged if p != with_classes][:4]


def totals(simulator, layout: str, form: str, funds: list[str], cache_dir, monkeypatch, capsys) -> dict:
    simulator.app.layout, simulator.app.fee_spelling = layout, form
    monkeypatch.setenv("SEC_API_KEY", KEY)
    monkeypatch.setenv("SEC_API_BASE_URL", simulator.base_url)
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(cache_dir))
    capsys.readouterr()
    shown = {}
    for proj_id in funds:
        assert main(["fund", "show", proj_id, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        total_line = [r for r in data["fees"] if r["fee_kind"] == "total"]
        assert total_line and total_line[0]["fee_type_desc"] == fee_type_text("total", form)  # the variant was served
        shown[proj_id] = data["total_annual_fee"]
    assert market_cli.main(["market", "sync", "--only", "funds,fees", "--json"]) == 0
    capsys.readouterr()
    assert market_cli.main(["market", "screen", "--limit", "10000", "--json"]) == 0
    screened = {r["proj_id"]: r["total_fee_actual"] for r in json.loads(capsys.readouterr().out)}
    charged = sorted(v for v in screened.values() if v is not None)
    ceiling = charged[len(charged) // 2]
    assert market_cli.main(["market", "screen", "--limit", "10000", "--max-fee", str(ceiling), "--json"]) == 0
    cheap = sorted(r["proj_id"] for r in json.loads(capsys.readouterr().out))
    return {"shown": shown, "screened": screened, "cheap": cheap, "ceiling": ceiling}


@pytest.mark.slow  # a whole sync, a subprocess or whole reports: seconds each
def test_every_documented_fee_spelling_gives_the_same_totals(simulator, dataset, tmp_path, monkeypatch, capsys):
    assert {fee_type_text("total", f) for f in FEE_SPELLING_FORMS} <= set(SPELLINGS["fee_type_desc"]["successor"])
    funds = five_funds(dataset)
    want = {p: first_class_total_fee(dataset.fees[p]) for p in funds}  # the published total line, read independently
    before = (simulator.app.layout, simulator.app.fee_spelling)
    try:
        results = {case: totals(simulator, *case, funds, tmp_path / "-".join(case), monkeypatch, capsys) for case in CASES}
    finally:
        simulator.app.layout, simulator.app.fee_spelling = before
    first = results[CASES[0]]
    for case, got in results.items():
        assert got["shown"] == pytest.approx(want), case  # fund show: the total line as published
        assert {p: got["screened"][p] for p in funds} == pytest.approx(want), case  # the screener's figure
        assert got["screened"] == pytest.approx(first["screened"]), case  # every fund, every variant
        assert got["cheap"] == first["cheap"] and got["ceiling"] == first["ceiling"], case  # --max-fee


def test_the_simulator_refuses_an_unknown_spelling():
    from dashboard.demo.simulator import create_app

    with pytest.raises(ValueError, match="fee_spelling"):
        create_app(fee_spelling="total expense")

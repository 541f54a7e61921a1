"""`sec-dashboard plan tax`: the plan as JSON and as a table, the qualifying funds from a synced demo store,
and bad input as one line with exit code 2 and nothing on stdout."""

from __future__ import annotations

import json

import pytest

from dashboard.cli.main import main


def _run(capsys, *argv):
    code = main(["plan", "tax", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_plan_of_a_worked_example(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))
    code, out, err = _run(capsys, "--year", "2025", "--income", "1,200,000", "--provident-fund", "60000",
                          "--on", "2025-06-01", "--funds", "0", "--json", "--demo")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert "not tax or investment advice" in data["note"] and data["rules_dated"] == "2025-04-16"
    assert (data["taxable_income"], data["income_tax"], data["marginal_rate"]) == (980_000, 111_000, 20)
    rmf = data["wrappers"][0]
    assert (rmf["wrapper"], rmf["room"], rmf["tax_saved"]) == ("RMF", 360_000, 65_500)
    assert all(w["sources"] and w["sources"][0]["url"].startswith("http") for w in data["wrappers"])


def test_readable_plan_says_estimate_and_date_first(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))
    code, out, err = _run(capsys, "--year", "2023", "--income", "1000000", "--on", "2023-12-22", "--demo")
    lines = out.splitlines()
    assert code == 0 and "An estimate, not tax or investment advice" in lines[0] and "2023-12-20" in lines[0]
    assert "2031-12-22" in out  # Thai ESG bought 22 December 2023 (RSM's example)
    assert "no market snapshot" in err  # the funds need a synced store: said, not an error


@pytest.mark.parametrize("argv, words", [
    (["--year", "2027", "--income", "900000"], "no tax rules for 2027"),
    (["--year", "2025", "--income", "-1"], "cannot be negative"),
    (["--year", "2025", "--income", "900000", "--ssf-bought", "5000"], "SSF bought in 2025 earns no deduction"),
    (["--year", "2025", "--income", "900000", "--on", "1 June"], "YYYY-MM-DD"),
    (["--year", "2025", "--income", "900000", "--on", "2026-01-05"],
     "a purchase on 2026-01-05 does not count for tax year 2025"),
    (["--year", "2025", "--income", "lots"], "not an amount in baht"),
    (["--year", "2025", "--income", "900000", "--rank-by", "popularity"], "invalid choice"),
])
def test_bad_input_is_one_line_exit_2_nothing_printed(capsys, argv, words):
    with pytest.raises(SystemExit) if "lots" in argv or "popularity" in argv else _no_exit() as caught:
        code = main(["plan", "tax", *argv, "--funds", "0", "--demo"])
    captured = capsys.readouterr()
    code = caught.value.code if hasattr(caught, "value") else code
    assert code == 2 and captured.out == "" and words in captured.err


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_funds_from_a_synced_demo_store(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path))
    assert main(["market", "sync", "--demo", "--only", "funds,companies,risk,fees", "--json"]) == 0
    capsys.readouterr()
    code, out, _err = _run(capsys, "--year", "2026", "--income", "900000", "--on", "2026-03-01", "--funds", "3",
                           "--rank-by", "fee", "--json", "--demo")
    data = json.loads(out)
    funds = data["funds"]["by_wrapper"]
    assert code == 0 and set(funds) == {"RMF", "ThaiESG"} and all(1 <= len(rows) <= 3 for rows in funds.values())
    fees = [r["total_fee_actual"] for r in funds["RMF"] if r["total_fee_actual"] is not None]
    assert fees == sorted(fees)

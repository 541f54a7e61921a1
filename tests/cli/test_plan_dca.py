"""`sec-dashboard plan dca`: in-process runs against the demo with the clock pinned to the tests' date."""

from __future__ import annotations

import io
import json
from datetime import date

import pandas as pd
import pytest

from dashboard.models.dca import ESTIMATE_NOTE, DcaPlan, simulate
from tests.cli.test_fund_nav import UNLIMITED, clock, cli, demo_history, dividend  # noqa: F401 (fixtures)


def test_json_is_the_simulation_of_the_class_asked(cli, dataset):
    pid, name = dividend(dataset)
    code, out, err = cli("--demo", "plan", "dca", pid, "--class", name, "--monthly", "2,000", "--from", "2023-01-01",
                         "--to", "2025-12-31", "--day", "10", "--fee", "1.5", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["note"] == ESTIMATE_NOTE
    (mine,) = data["classes"]
    assert mine["class"] == name and mine["plan"]["front_end_pct"] == 1.5 and mine["plan"]["distributions"] == "paid"
    # the same plan on the class's history, simulated here
    history = demo_history(pid).classes[name]
    expected = simulate(history.nav, history.dividends,
                        DcaPlan(monthly=2000, start=date(2023, 1, 1), end=date(2025, 12, 31), day=10, front_end_pct=1.5))
    monthly = mine["monthly"]["figures"]
    assert monthly["purchases"] == 36 and monthly["invested"] == 72000
    assert monthly["units"] == pytest.approx(expected.regular.units)
    # three years: the money-weighted return is shown a year, the XIRR itself
    assert monthly["money_weighted_pct"] == pytest.approx(100 * expected.regular.xirr)
    assert monthly["money_weighted_basis"] == "a year"
    assert monthly["paid_out"] > 0  # a distributing class pays
    bought = mine["monthly"]["purchases"]
    assert sum(p["units"] for p in bought) == pytest.approx(monthly["units"])
    assert all(p["nav_date"] >= p["planned"] for p in bought) and any(p["nav_date"] > p["planned"] for p in bought)
    lump = mine["lump_sum"]["figures"]
    assert lump["purchases"] == 1 and lump["invested"] == 72000
    assert mine["values"][-1]["nav_date"] <= "2025-12-31"


def test_readable_output_beside_another_class(cli, dataset):
    pid, name = dividend(dataset)
    other = next(c["name"] for c in dataset.nav_profiles[pid]["classes"] if c["name"] != name)
    code, out, err = cli("--demo", "plan", "dca", pid, "--class", name, "--monthly", "1000", "--from", "2023-01-01",
                         "--compare", pid, "--compare-class", other)
    assert code == 0, err
    assert f"{name}: monthly" in out and f"{other}: all at the start" in out
    assert "Money-weighted return, a year (XIRR, %)" in out and "(the class's published fee)" in out
    assert out.rstrip().endswith(ESTIMATE_NOTE)


def test_csv_is_the_value_over_time(cli, dataset):
    pid, name = dividend(dataset)
    code, out, err = cli("--demo", "plan", "dca", pid, "--class", name, "--monthly", "1000", "--from", "2024-01-01",
                         "--distributions", "reinvested", "--csv")
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame.columns[:3]) == ["NAV date", "Unit class", "NAV (baht per unit)"]
    assert (frame["Distributions paid so far (baht)"] == 0).all()  # reinvested
    last = frame.iloc[-1]
    assert last["Value of the units (baht)"] == pytest.approx(last["Units held"] * last["NAV (baht per unit)"])
    assert frame["Put in so far (baht)"].is_monotonic_increasing and frame["Put in so far (baht)"].iloc[0] == 1000
    assert ESTIMATE_NOTE in err


@pytest.mark.parametrize(("args", "words"), [
    (("--monthly", "1000", "--from", "2001-01-01"), "the from date 2001-01-01 is before"),
    (("--monthly", "none", "--from", "2024-01-01"), "the monthly amount 'none' is not a number"),
    (("--monthly", "-5", "--from", "2024-01-01"), "the monthly amount -5 is not more than 0 baht"),
    (("--monthly", "1000", "--from", "2024-01-01", "--day", "0"), "the day of the month 0 is not 1 to 31"),
    (("--monthly", "1000", "--from", "2024-01-01", "--fee", "20"), "the front-end fee 20 % is not 0 to 10 %"),
    (("--monthly", "1000", "--from", "2030-01-01"), "the from date 2030-01-01 is in the future"),
    (("--monthly", "1000", "--from", "2024-01-01", "--to", "2023-01-01"), "the to date 2023-01-01 is before"),
    (("--monthly", "1000", "--from", "24/01/2024"), "the from date '24/01/2024' is not a date"),
    # hostile: a date at the calendar's start (once an overflow traceback), an absurd amount
    (("--monthly", "1000", "--from", "0001-01-01"), "the from date 0001-01-01 is before 1996-01-01"),
    (("--monthly", "1e30", "--from", "2024-01-01"), "is more than 1,000,000,000 baht"),
])
def test_bad_input_is_one_line_and_exit_2(cli, dataset, args, words):
    pid, name = dividend(dataset)
    code, out, err = cli("--demo", "plan", "dca", pid, "--class", name, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err, err


def test_report_file_has_the_plan_in_words_the_figures_and_the_chart(cli, dataset, tmp_path):
    from tests.reports.test_plan_report import cells, section

    pid, name = dividend(dataset)
    target = tmp_path / "dca.html"
    code, out, err = cli("--demo", "plan", "dca", pid, "--class", name, "--monthly", "2,000", "--from", "2023-01-01",
                         "--to", "2025-12-31", "--day", "10", "--fee", "1.5", "--json", "--report", str(target))
    assert code == 0, err
    assert "wrote" in err and json.loads(out)["note"] == ESTIMATE_NOTE  # the JSON as without the report
    page = target.read_text(encoding="utf-8")
    part = section(page, "dca")
    assert f"2,000.00 baht on day 10 of each month in {name}" in part and "front-end fee 1.50 % (as given)" in part
    rows = {r[0]: r[1:] for r in cells(page, "dca-figures")}
    assert rows["Purchases made"] == ["36", "1"] and rows["Put in (baht)"] == ["72,000.00", "72,000.00"]
    assert part.count('class="chart"') == 1 and "Tax-saving plan" not in page


def test_report_to_a_missing_directory_is_refused_before_anything_is_read(cli, dataset, tmp_path):
    pid, name = dividend(dataset)
    code, out, err = cli("--demo", "plan", "dca", pid, "--monthly", "1000", "--from", "2024-01-01",
                         "--report", str(tmp_path / "nowhere" / "dca.html"))
    assert code == 2 and out == "" and "does not exist" in err


def test_a_plan_under_a_year_shows_the_return_for_the_period(cli, dataset):
    pid, name = dividend(dataset)
    history = demo_history(pid).classes[name]
    last = history.nav["nav_date"].iloc[-1].date()
    start = date(last.year - 1, last.month + 5, 1) if last.month <= 7 else date(last.year, last.month - 7, 1)
    code, out, err = cli("--demo", "plan", "dca", pid, "--class", name, "--monthly", "1000", "--from", start.isoformat())
    assert code == 0, err
    assert "Money-weighted return for the period (not annualised, %)" in out
    assert "a year (XIRR" not in out
    code, out, err = cli("--demo", "plan", "dca", pid, "--class", name, "--monthly", "1000", "--from", start.isoformat(),
                         "--json")
    monthly = json.loads(out)["classes"][0]["monthly"]["figures"]
    expected = simulate(history.nav, history.dividends, DcaPlan(monthly=1000, start=start)).regular
    assert monthly["money_weighted_basis"] == "period"
    assert monthly["money_weighted_pct"] == pytest.approx(100 * ((1 + expected.xirr) ** (expected.span_days / 365) - 1))

from datetime import date, timedelta

import pytest
from hypothesis import given, strategies as st

from dashboard.errors import BadInputError
from dashboard.api.periods import (
    QUARTERS_BACK,
    check_period,
    check_period_any_layout,
    offered_periods,
    quarter_end,
    valid_periods,
)


def test_periods_on_a_known_day():
    assert valid_periods(date(2026, 11, 21)) == [
        "202606", "202603", "202512", "202509", "202506", "202503",
        "202412", "202409", "202406", "202403", "202312", "202309",
    ]


def test_quarter_becomes_available_exactly_sixty_days_after_it_ends():
    end = date(2026, 9, 30)
    assert "202609" not in valid_periods(end + timedelta(days=59))
    assert valid_periods(end + timedelta(days=60))[0] == "202609"


def test_the_current_service_publishes_a_quarter_45_days_after_it_ends_the_legacy_60():
    end = date(2026, 9, 30)
    assert "202609" not in valid_periods(end + timedelta(days=44), "successor")
    assert valid_periods(end + timedelta(days=45), "successor")[0] == "202609"
    assert "202609" not in valid_periods(end + timedelta(days=59), "legacy")
    assert valid_periods(end + timedelta(days=60), "legacy")[0] == "202609"
    # a layout not known yet waits the legacy 60 days: a quarter is never asked for early
    assert valid_periods(end + timedelta(days=59)) == valid_periods(end + timedelta(days=59), "legacy")


def test_on_a_pinned_day_between_the_two_lags_each_layout_has_its_own_twelve_quarters():
    day = date(2026, 11, 21)  # 52 days after 2026-09-30
    current, legacy = valid_periods(day, "successor"), valid_periods(day, "legacy")
    assert current[0] == "202609" and legacy[0] == "202606"
    assert current[1:] == legacy[:-1] and len(current) == len(legacy) == QUARTERS_BACK
    assert offered_periods(day) == current + legacy[-1:]  # what a stand-in for both holds
    assert check_period("202609", day, "successor") == "202609"
    with pytest.raises(BadInputError, match="offered 60 days after it ends"):
        check_period("202609", day, "legacy")
    with pytest.raises(BadInputError, match="more than 3 years back"):
        check_period("202309", day, "successor")
    assert check_period_any_layout("202609", day) == "202609"
    assert check_period_any_layout("202309", day) == "202309"
    with pytest.raises(BadInputError, match="not published yet"):
        check_period_any_layout("202612", day)


def test_a_factsheet_asks_for_the_quarters_of_the_layout_that_answers(demo_client):
    from dashboard.models.factsheet import FundFactsheet
    from dashboard.models.source import run
    from tests.conftest import TODAY

    sheet = FundFactsheet(client=demo_client)
    run(sheet.load(sheet_fund(demo_client)))
    assert sheet.periods == valid_periods(TODAY, demo_client.layout())
    assert sheet.periods[0] == ("202609" if demo_client.layout() == "successor" else "202606")


def sheet_fund(client) -> str:
    """A demo fund with holdings in the newest quarter either layout offers on the tests' day."""
    from dashboard.demo.generator import generate_demo_dataset
    from tests.conftest import TODAY

    data = generate_demo_dataset(today=TODAY)
    return next(pid for pid, quarters in data.holdings.items() if "202609" in quarters and "202606" in quarters)


@pytest.mark.parametrize("layout, delay", [("legacy", 60), ("successor", 45)])
@given(today=st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31)))
def test_periods_obey_every_rule(layout, delay, today):
    periods = valid_periods(today, layout)
    assert len(periods) == QUARTERS_BACK
    assert periods == sorted(periods, reverse=True)
    for p in periods:
        assert p[4:] in {"03", "06", "09", "12"}
        assert quarter_end(p) + timedelta(days=delay) <= today
        assert check_period(p, today, layout) == p
    # the newest published quarter really is the newest: the next one is not yet `delay` days old
    nxt_year, nxt_month = (int(periods[0][:4]) + 1, 3) if periods[0][4:] == "12" else (int(periods[0][:4]), int(periods[0][4:]) + 3)
    assert quarter_end(f"{nxt_year}{nxt_month:02d}") + timedelta(days=delay) > today


@pytest.mark.parametrize(
    "period, words",
    [
        ("202605", "not a quarter end"),
        ("202609", "not published yet"),
        ("202306", "more than 3 years back"),
        ("2026-06", "not of the form YYYYMM"),
        ("", "not of the form YYYYMM"),
        ("256906", "Buddhist-era"),
        (202606, "must be text"),
    ],
)
def test_invalid_periods_name_the_rule_and_the_valid_range(period, words):
    with pytest.raises(BadInputError) as err:
        check_period(period, date(2026, 11, 21))
    assert words in str(err.value)
    assert "202309 to 202606" in str(err.value)


def test_before_the_layout_is_known_a_refusal_names_no_one_layouts_range():
    """Refused before the layout is known, a period was told the legacy range, and the layout's own check a moment
    later another (issue 39). Unknown: the form alone, or both layouts' rules; known: that layout's range and rule."""
    day = date(2026, 11, 28)
    with pytest.raises(BadInputError) as err:
        check_period_any_layout("202605", day)
    assert "not a quarter end" in str(err.value) and "valid periods" not in str(err.value)
    with pytest.raises(BadInputError) as err:
        check_period_any_layout("202612", day)
    assert "45 days after it ends on the current service" in str(err.value) and "60 days" in str(err.value)
    with pytest.raises(BadInputError) as err:
        check_period_any_layout("202306", day)
    assert "202312 on the current service" in str(err.value) or "202312" in str(err.value)
    for period, words in (("202605", "not a quarter end"), ("202612", "offered 45 days"), ("202309", "more than 3 years")):
        with pytest.raises(BadInputError) as err:
            check_period_any_layout(period, day, "successor")
        assert words in str(err.value) and "valid periods are 202312 to 202609" in str(err.value)

from datetime import date, timedelta

import pytest
from hypothesis import given, strategies as st

from dashboard.errors import BadInputError
from dashboard.api.periods import QUARTERS_BACK, check_period, quarter_end, valid_periods


def test_periods_on_a_known_day():
    assert valid_periods(date(2026, 11, 21)) == [
        "202606", "202603", "202512", "202509", "202506", "202503",
        "202412", "202409", "202406", "202403", "202312", "202309",
    ]


def test_quarter_becomes_available_exactly_sixty_days_after_it_ends():
    end = date(2026, 9, 30)
    assert "202609" not in valid_periods(end + timedelta(days=59))
    assert valid_periods(end + timedelta(days=60))[0] == "202609"


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31)))
def test_periods_obey_every_rule(today):
    periods = valid_periods(today)
    assert len(periods) == QUARTERS_BACK
    assert periods == sorted(periods, reverse=True)
    for p in periods:
        assert p[4:] in {"03", "06", "09", "12"}
        assert quarter_end(p) + timedelta(days=60) <= today
        assert check_period(p, today) == p
    # the newest published quarter really is the newest: the next one is not yet 60 days old
    nxt_year, nxt_month = (int(periods[0][:4]) + 1, 3) if periods[0][4:] == "12" else (int(periods[0][:4]), int(periods[0][4:]) + 3)
    assert quarter_end(f"{nxt_year}{nxt_month:02d}") + timedelta(days=60) > today


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

"""The E6 portfolio period rules: quarter ends only, 3 years back, published 60 days after the quarter ends
on the legacy layout and 45 days after on the current service (successor-api.md 2.2 and 4.3)."""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from dashboard.api.endpoints import ascii_digits
from dashboard.config import LAYOUT_LEGACY, LAYOUT_SUCCESSOR
from dashboard.errors import BadInputError

QUARTER_END_MONTHS = (3, 6, 9, 12)
# Days after a quarter's end until its holdings are published, by path layout.
PUBLICATION_DELAY_DAYS = {LAYOUT_LEGACY: 60, LAYOUT_SUCCESSOR: 45}
# "At most 3 years back" read as three years of quarters: the latest published quarter and the
# eleven before it. This is also what the heatmap and the demo data cover.
QUARTERS_BACK = 12

_PERIOD = re.compile(r"^([0-9]{4})([0-9]{2})$")


def quarter_name(period: str) -> str:
    """"Q3 2026" for "202609": the one spelling of a quarter people read; other text as it is."""
    text = str(period or "")
    if _PERIOD.match(text) and 1 <= int(text[4:]) <= 12:
        return f"Q{(int(text[4:]) - 1) // 3 + 1} {text[:4]}"
    return text


def late_quarter_note(due: str | None, shown: str | None, reason: str | None = None) -> str:
    """What every output says when a fund's newest quarter by the rules (`due`) has no holdings and an older one
    (`shown`) is shown instead; "" when the due quarter is the one shown. `reason`: why the due quarter could not
    be loaded (a failure rather than no data)."""
    if not due or shown == due:
        return ""
    why = f"could not be loaded ({reason})" if reason else "is not published for this fund yet (companies sometimes file late)"
    if not shown:
        return f"{quarter_name(due)} {why}, and no earlier quarter has holdings."
    return f"{quarter_name(due)} {why}: showing {quarter_name(shown)}, the newest quarter with holdings."


def quarter_end(period: str) -> date:
    """The last day of the quarter a well-formed YYYYMM period names."""
    year, month = int(period[:4]), int(period[4:])
    return date(year, month, calendar.monthrange(year, month)[1])


def _previous_quarter(year: int, month: int) -> tuple[int, int]:
    return (year - 1, 12) if month == 3 else (year, month - 3)


def publication_delay(layout: str | None = None) -> int:
    """Days after a quarter's end until the layout publishes it; a layout not known yet (an "auto"
    client before its first call) gets the legacy 60, so a quarter is never asked for early."""
    return PUBLICATION_DELAY_DAYS.get(layout, PUBLICATION_DELAY_DAYS[LAYOUT_LEGACY])


def valid_periods(today: date | None = None, layout: str | None = None) -> list[str]:
    """Every period E6 offers on `today` on this path layout, newest first."""
    today = today or date.today()
    delay = publication_delay(layout)
    year, month = today.year, today.month - (today.month - 1) % 3 + 2  # this quarter's end month
    out: list[str] = []
    while len(out) < QUARTERS_BACK:
        period = f"{year:04d}{month:02d}"
        if quarter_end(period) + timedelta(days=delay) <= today:
            out.append(period)
        year, month = _previous_quarter(year, month)
    return out


def offered_periods(today: date | None = None) -> list[str]:
    """Every period either layout offers on `today`, newest first (13 in the days one publishes and the other
    not yet): what a stand-in for both layouts holds data for."""
    both = set(valid_periods(today, LAYOUT_LEGACY)) | set(valid_periods(today, LAYOUT_SUCCESSOR))
    return sorted(both, reverse=True)


def check_period_any_layout(period: object, today: date | None = None, layout: str | None = None) -> str:
    """`period` if the layout in use offers it on `today`; before the layout is known (`layout` None), if either
    layout offers it: a check before anything (even the layout probe) is sent.

    With the layout known this is `check_period`, so every message names that layout's range and rule. Without
    it, a malformed period is refused for its form alone, and a period neither layout offers names both rules:
    a range of one layout there contradicted the other's range given a moment later (issue 39: "valid periods
    are 202309 to 202606" for 202605, then "202312 to 202609" for 202309, on the same service).
    """
    if layout is not None:
        return check_period(period, today, layout)
    today = today or date.today()
    text = _checked_form(period, None)
    if text in offered_periods(today):
        return text
    current, legacy = valid_periods(today, LAYOUT_SUCCESSOR), valid_periods(today, LAYOUT_LEGACY)
    if text > current[0]:
        dates = ", ".join(f"{PUBLICATION_DELAY_DAYS[lay]} days after it ends on the {name} "
                          f"(from {(quarter_end(text) + timedelta(days=PUBLICATION_DELAY_DAYS[lay])).isoformat()})"
                          for lay, name in ((LAYOUT_SUCCESSOR, "current service"), (LAYOUT_LEGACY, "legacy layout")))
        raise BadInputError(f"period {text} is not published yet: a quarter is offered {dates}")
    raise BadInputError(f"period {text} is more than 3 years back: the oldest quarter offered is {current[-1]} on the "
                        f"current service ({legacy[-1]} on the legacy layout)")


def latest_period(today: date | None = None, layout: str | None = None) -> str:
    return valid_periods(today, layout)[0]


def _span(valid: list[str]) -> str:
    return f"valid periods are {valid[-1]} to {valid[0]} (quarter ends only)"


def _checked_form(period: object, valid: list[str] | None) -> str:
    """The period as ASCII YYYYMM text if it is of the form of a quarter end, else one error naming what is
    wrong (with the range `valid` when the layout, and so the range, is known)."""
    span = f"; {_span(valid)}" if valid else ""
    example = valid[0] if valid else "202606"
    if not isinstance(period, str):
        raise BadInputError(f"period must be text of the form YYYYMM{span}")
    text = ascii_digits(period.strip())  # Thai or full-width digits name the same quarter
    match = _PERIOD.match(text)
    if not match:
        raise BadInputError(f"period {text!r} is not of the form YYYYMM (Gregorian year, e.g. {example}){span}")
    year, month = int(match.group(1)), int(match.group(2))
    if month not in QUARTER_END_MONTHS:
        raise BadInputError(f"period {text} is not a quarter end: the month must be 03, 06, 09 or 12{span}")
    if year > 2400:
        raise BadInputError(f"period {text} looks like a Buddhist-era year; use the Gregorian year ({year - 543}){span}")
    return text


def check_period(period: object, today: date | None = None, layout: str | None = None) -> str:
    """Return `period` if E6 offers it on `today` on this layout; otherwise refuse it naming the rule broken."""
    valid = valid_periods(today, layout)
    span = _span(valid)
    text = _checked_form(period, valid)
    if text in valid:
        return text
    if text > valid[0]:
        delay = publication_delay(layout)
        available = quarter_end(text) + timedelta(days=delay)
        raise BadInputError(
            f"period {text} is not published yet: a quarter is offered {delay} days after it ends "
            f"(from {available.isoformat()}); {span}"
        )
    raise BadInputError(f"period {text} is more than 3 years back; {span}")

"""How the service writes values, for the demo data: update stamps, blanks, Base64 texts, ISINs, numbers."""

from __future__ import annotations

import base64
import random
from datetime import date, timedelta


def update_stamp(rng: random.Random, day: date) -> str:
    """A `last_upd_date` as the service writes it: ISO 8601, no zone, 0 to 3 fractional digits."""
    text = f"{day.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
    digits = rng.choice((0, 1, 2, 2, 3, 3))
    if digits:
        text += "." + str(rng.randrange(1, 10**digits)).zfill(digits)
    return text


def blank(rng: random.Random) -> str | None:
    """One of the spellings the service uses for a missing text value."""
    return rng.choice(("-", "-", "-", "", "", None, " "))


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def invalid_b64(text: str) -> str:
    # A data length one more than a multiple of 4 is never valid Base64, whatever the decoder.
    raw = b64(text).rstrip("=")
    return raw[: len(raw) - (len(raw) % 4) + 1] if len(raw) % 4 != 1 else raw


def make_isin(country: str, body: str) -> str:
    """A 12-character ISIN with a correct check digit (country + 9 characters + check)."""
    code = (country + body).upper()
    digits = "".join(str(int(c, 36)) for c in code)
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return code + str((10 - total % 10) % 10)


def num(value: float, decimals: int = 2) -> str:
    return f"{value:.{decimals}f}"


def trim(value: float, decimals: int = 4) -> str:
    """A number as people type it: 1.605, 0.1, 2."""
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".") or "0"


def month_end_before(day: date) -> date:
    return day.replace(day=1) - timedelta(days=1)


def years_between(a: date, b: date) -> float:
    return (b - a).days / 365.25


def successor_stamp(rng: random.Random, day: date) -> str:
    """A successor `last_upd_date`: mostly no zone with 0 to 3 fractional digits, sometimes `Z` and no fraction."""
    if rng.random() < 0.3:
        return f"{day.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z"
    return update_stamp(rng, day)

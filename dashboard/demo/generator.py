"""A deterministic, fictional data set shaped exactly like the raw payloads of the SEC Open API.

Every payload is what the real service would send: strings everywhere (numbers only where the
specification says `number`), the missing-value spellings seen in the wild ("-", null, " ", "",
"0000-00-00"), Base64 texts with stray "n" line breaks, the two spellings of the country flag, a
NAV total line among the holdings, a feeder fund whose holdings add up to about 150 percent and
funds that answer 204. All names are invented and say "Demo".
"""

from __future__ import annotations

import functools
import marshal
from datetime import date

from dashboard.api.periods import offered_periods
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.feeders import FeederFamilies
from dashboard.demo.fund_of_funds import FundOfFundsBuilder
from dashboard.demo.funds import FundBuilder
from dashboard.demo.licences import LicenceBuilder
from dashboard.demo.pools import DEFAULT_SEED


SCALES = ("small", "market")


def generate_demo_dataset(seed: int = DEFAULT_SEED, today: date | None = None, scale: str = "small") -> DemoDataset:
    """The demo data set for `seed` as the service would show it on `today` (default: the real today).

    `scale`: "small" (the default: 9 companies, about 100 funds, fast) or "market" (the whole
    market's size: 22 companies, 2,100 fund projects, 4,700 unit classes, twelve quarters of
    holdings for every active fund that publishes them; a few seconds to build).
    Generation is cached per (seed, today, scale); every call returns an independent copy, so a
    caller that mutates its data set never changes anyone else's.
    """
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, not {scale!r}")
    today = today or date.today()
    payloads = marshal.loads(_generated(seed, today, scale))
    return DemoDataset(seed=seed, today=today, periods=offered_periods(today), scale=scale, **payloads)


@functools.lru_cache(maxsize=8)
def _generated(seed: int, today: date, scale: str = "small") -> bytes:
    # marshal: a deep copy of plain JSON-like data costs a few milliseconds, deepcopy ten times more
    return marshal.dumps(_Builder(seed, today, scale).build())


class _Builder(FeederFamilies, FundBuilder, LicenceBuilder, FundOfFundsBuilder):
    """Builds every payload from one seed; each record kind has its own small method."""

    def build(self) -> dict:
        self.securities = self.build_securities()
        plans = self.plan_funds()
        for plan in plans:
            self.write_fund(plan)
        self.choose_empty_200(plans)
        self.build_licence_side()
        # Last, and on their own random streams: the legacy records never change.
        self.build_successor_funds(plans)
        self.successor_licences()
        self.successor_alerts()
        self.build_feeder_families()  # appended after everything, on streams of their own
        self.build_funds_of_funds(plans)  # appended last, on streams of their own: no other fund's draws change
        return self.out

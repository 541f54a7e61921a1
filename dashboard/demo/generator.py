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

from dashboard.api.periods import valid_periods
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.funds import FundBuilder
from dashboard.demo.licences import LicenceBuilder
from dashboard.demo.pools import DEFAULT_SEED


def generate_demo_dataset(seed: int = DEFAULT_SEED, today: date | None = None) -> DemoDataset:
    """The demo data set for `seed` as the service would show it on `today` (default: the real today).

    Generation is cached per (seed, today); every call returns an independent copy, so a caller
    that mutates its data set never changes anyone else's.
    """
    today = today or date.today()
    payloads = marshal.loads(_generated(seed, today))
    return DemoDataset(seed=seed, today=today, periods=valid_periods(today), **payloads)


@functools.lru_cache(maxsize=8)
def _generated(seed: int, today: date) -> bytes:
    # marshal: a deep copy of plain JSON-like data costs a few milliseconds, deepcopy ten times more
    return marshal.dumps(_Builder(seed, today).build())


class _Builder(FundBuilder, LicenceBuilder):
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
        return self.out

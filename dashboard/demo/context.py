"""The state the demo data builders share: seed, day, random streams and the payloads written so far."""

from __future__ import annotations

import random
from datetime import date

from dashboard.api.periods import offered_periods


class BuildContext:
    """What every builder shares: the seed, the day, the periods and the payloads written so far."""

    def __init__(self, seed: int, today: date, scale: str = "small"):
        self.seed = seed
        self.today = today
        self.scale = scale  # "small" (the default demo) or "market" (the whole market's size)
        self.periods = offered_periods(today)
        self.rng = random.Random(seed)
        self.out: dict = {
            name: ({} if name not in ("amcs", "funds", "licensees", "former_licensees", "persons") else [])
            for name in (
                "amcs", "funds", "classes", "investment", "holdings", "project_type", "suitability", "return_estimate",
                "performance", "redemption", "fees", "allocation", "urls", "licensees", "former_licensees",
                "approvals", "duties", "enforcement", "enforcement_types", "alerts", "persons",
                "fund_details", "successor_amcs", "company_licences", "business_acts", "alert_details", "nav_profiles",
            )
        }
        self.out["successor_amcs"] = []
        self.out["empty_200"] = set()

    def sub_rng(self, *parts: object) -> random.Random:
        # A string seed is hashed with SHA-512 by `random`, so sub-streams are stable across runs.
        return random.Random(":".join(str(p) for p in (self.seed, *parts)))

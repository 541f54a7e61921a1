"""The basket on one NAV chart: each fund's NAV history rebased to 100 on the common start, and its figures since then.

A pure Param model (no Panel). Each basket fund is compared by its first unit class in the
service's order (as the basket's other comparisons do); the common start is the first day every
one of them has a NAV (`nav_figures.rebase`), and every figure is measured from that day to the
fund's last NAV (`nav_figures.figures_since`, keys `*_common`), so the table and the chart cover
the same window. A fund without any NAV is left out of both and named in `failed`.
"""

from __future__ import annotations

import asyncio
from datetime import date

import pandas as pd
import param

from dashboard.api.nav import ClassHistory, afetch_nav_history
from dashboard.errors import SecApiError
from dashboard.models.nav import DEFAULT_YEARS, load_start
from dashboard.models.nav_figures import ClassFigures, figures_since, rebase
from dashboard.models.source import ServiceModel

HISTORY_YEARS = DEFAULT_YEARS  # as a fund's own NAV view


class BasketNav(ServiceModel):
    """NAV histories of the basket's funds (first class of each), rebased on their common start."""

    proj_ids = param.List(default=[], item_type=str, doc="The funds loaded, in the basket's order.")
    histories = param.Dict(default={}, doc="proj_id -> the ClassHistory compared (its first unit class).")
    failed = param.Dict(default={}, doc="proj_id -> why it has no NAV to compare (a sentence for people).")
    risk_free_pct = param.Number(default=0.0, doc="Risk-free rate (percent a year) for the Sharpe ratios.")
    years = param.Integer(default=HISTORY_YEARS, bounds=(1, 30), doc="How many years of history are fetched.")

    async def load(self, proj_ids: list[str]) -> None:
        """Fetch every fund's history (in parallel, through the client's cache); a fund that fails is noted."""
        ids = list(dict.fromkeys(proj_ids))
        today = self.api.today
        start = load_start(today, self.years)

        async def one(proj_id: str):
            try:
                return proj_id, await afetch_nav_history(self.api.async_client, proj_id, start=start, end=today)
            except SecApiError as exc:
                return proj_id, exc

        async def every():
            return await asyncio.gather(*(one(p) for p in ids))

        results = await self._fetched(every()) if ids else []
        histories, failed = {}, {}
        for proj_id, result in results:
            if isinstance(result, SecApiError):
                failed[proj_id] = str(result)
            elif result.classes:
                histories[proj_id] = next(iter(result.classes.values()))
            else:
                failed[proj_id] = "no NAV published"
        self.param.update(proj_ids=ids, histories=histories, failed=failed)

    def rebased(self) -> tuple[date | None, pd.DataFrame]:
        """(common start, NAVs rebased to 100 from it: a column per proj_id, NaN where a fund has no NAV)."""
        if not self.histories:
            return None, pd.DataFrame()
        return rebase({proj_id: history.nav for proj_id, history in self.histories.items()})

    def figures(self) -> dict[str, ClassFigures]:
        """Each fund's figures from the common start to its last NAV (keys `*_common`); none without a common start."""
        start, _ = self.rebased()
        if start is None:
            return {}
        return {proj_id: figures_since(h.nav, h.dividends, start=start, frequency=h.frequency,
                                       risk_free_pct=self.risk_free_pct)
                for proj_id, h in self.histories.items()}

    def history(self, proj_id: str) -> ClassHistory | None:
        return self.histories.get(proj_id)


"""FeederFamily: the sibling-feeders view's model (no Panel): the masters with the most Thai feeders, the
feeders the matching cannot decide, and every feeder of one master side by side (market.feeders).

It reads through the Market tab's model (`MarketScreen.ask`: the published snapshot's one reader, in a worker
thread), so the explorer, the Market tab and a served view read the same snapshot the command line does.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import param

from dashboard.errors import BadInputError
from dashboard.market.feeders import MASTER_FIELDS, masters, siblings, undecided
from dashboard.market.screen import MarketScreen
from dashboard.market.store import MarketStore

MASTERS_LIMIT = 20
UNDECIDED_FIELDS = ("proj_id", "proj_abbr_name", "undecided", "declared_name", "holding_isin", "holding_pct",
                    "holding_period", "candidates")


class FeederFamily(param.Parameterized):
    """One master's feeders (`data`, the answer of market.feeders.siblings), the masters list and the
    undecided feeders, from the market snapshot."""

    market = param.ClassSelector(class_=MarketScreen, doc="The market snapshot's model, whose reader this one asks.")
    fund = param.String(default="", doc="proj_id of the fund whose sibling feeders are shown (empty: none asked).")
    data = param.Dict(default=None, allow_None=True,
                      doc="The sibling feeders of `fund` (market.feeders.siblings); None when there are none to show.")
    abbr = param.String(default="", doc="The abbreviation of the fund `data` is about.")
    message = param.String(default="", doc="Why there is no sibling table for `fund` (not a feeder, not in the "
                                           "snapshot); empty otherwise.")
    masters = param.DataFrame(default=None, allow_None=True,
                              doc="The masters with the most Thai feeders (market.feeders.masters rows, MASTER_FIELDS).")
    undecided = param.DataFrame(default=None, allow_None=True,
                                doc="The feeders whose master the matching cannot decide (UNDECIDED_FIELDS).")
    has_store = param.Boolean(default=False, doc="Whether a market snapshot has been published (a sync ran).")
    loading = param.Boolean(default=False, doc="True while the snapshot is read.")

    def __init__(self, **params: Any):
        super().__init__(**params)
        self.param.update(masters=pd.DataFrame(columns=list(MASTER_FIELDS)),
                          undecided=pd.DataFrame(columns=list(UNDECIDED_FIELDS)))

    async def _ask(self, work):
        self.loading = True
        try:
            return await self.market.ask(work)
        finally:
            self.loading = False

    async def refresh(self, fund: str | None = None) -> None:
        """Read the masters, the undecided feeders and `fund`'s siblings (the state's fund, say) anew."""
        if fund is not None:
            self.fund = fund
        asked = self.fund

        def work(store: MarketStore) -> dict[str, Any]:
            if not store.has_snapshot():
                return {"has_store": False}
            return {"has_store": True,
                    "masters": pd.DataFrame(masters(store, limit=MASTERS_LIMIT), columns=list(MASTER_FIELDS)),
                    "undecided": pd.DataFrame(undecided(store), columns=list(UNDECIDED_FIELDS)),
                    **_family(store, asked)}

        self._apply(await self._ask(work))

    async def show_fund(self, proj_id: str) -> None:
        """Show the sibling feeders of one fund."""
        self.fund = proj_id or ""
        asked = self.fund
        self._apply(await self._ask(lambda store: {"has_store": store.has_snapshot(), **_family(store, asked)}))

    async def show_master(self, master_id: str) -> None:
        """Show the feeders of one master (as the siblings of its first feeder by fund id)."""
        def work(store: MarketStore) -> dict[str, Any]:
            first = store.query("SELECT proj_id FROM feeders WHERE master_id = ? ORDER BY proj_id LIMIT 1", [master_id])
            if not first:
                return {"data": None, "abbr": "", "message": "That master is no longer in the market snapshot."}
            return {"fund": first[0]["proj_id"], **_family(store, first[0]["proj_id"])}

        self._apply(await self._ask(work))

    def _apply(self, update: dict[str, Any]) -> None:
        if update.get("has_store") is False:
            update.update(data=None, abbr="", message="")
            update["masters"] = pd.DataFrame(columns=list(MASTER_FIELDS))
            update["undecided"] = pd.DataFrame(columns=list(UNDECIDED_FIELDS))
        self.param.update(**update)


def _family(store: MarketStore, proj_id: str) -> dict[str, Any]:
    """`data`, `abbr` and `message` for one fund: its sibling feeders, or why there are none."""
    if not proj_id:
        return {"data": None, "abbr": "", "message": ""}
    try:
        data = siblings(store, proj_id)
    except BadInputError as exc:
        return {"data": None, "abbr": "", "message": str(exc)}
    abbr = store.query("SELECT proj_abbr_name FROM funds WHERE proj_id = ?", [data["fund"]])
    return {"data": data, "abbr": (abbr[0]["proj_abbr_name"] if abbr else None) or data["fund"], "message": ""}

"""Answers kept per snapshot: computed once by the writer when a publish changes what they are computed from, and
published with it, so readers (the dashboard, the CLI) serve them instead of computing them per question.

- `sibling_returns`: every master's sibling classes with their total returns and the differences against the
  cheapest class (market/feeders.py, `siblings`): reading three years of NAV is most of a siblings table's time.
- `most_held_kept`: the securities held by the most funds in every stored quarter, direct and looked through
  (market/holdings.py, `most_held`): a GROUP BY over a quarter's lines, and a look-through besides.

A snapshot is immutable once published: a reader serves a kept table only when its snapshot published it with or
after every table it is computed from (`MarketStore.kept`), so a new snapshot never serves the old answers and a
snapshot written without them (an older version's) is answered afresh. The writer always computes afresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from dashboard.market.store import MarketStore


def refresh_kept(store: "MarketStore", tables: Sequence[str], *, period: str | None = None) -> list[str]:
    """Compute again the kept tables that depend on `tables` (about to be published), or are among them, each in one
    transaction; the kept tables written. `period`: a publish of one quarter of holdings changes only that quarter's
    answers and later ones (a look-through reads the quarters up to its own)."""
    from dashboard.market.feeders import SIBLING_INPUTS, sibling_returns_frame
    from dashboard.market.holdings import MOST_HELD_INPUTS

    changed = set(tables)
    written = []
    if changed & {*SIBLING_INPUTS, "sibling_returns"}:
        _replace(store, "sibling_returns", sibling_returns_frame(store))
        written.append("sibling_returns")
    if changed & {*MOST_HELD_INPUTS, "most_held_kept"}:
        only_from = period if changed & {*MOST_HELD_INPUTS, "most_held_kept"} == {"holdings"} else None
        _replace(store, "most_held_kept", most_held_frame(store, only_from), only_from=only_from)
        written.append("most_held_kept")
    return written


def most_held_frame(store: "MarketStore", only_from: str | None = None) -> pd.DataFrame:
    """Every security's row of `most_held` (no limit), direct and looked through, for every stored quarter (from
    `only_from` on when given)."""
    from dashboard.market.holdings import MOST_HELD_FIELDS, most_held_afresh, periods
    from dashboard.market.lookthrough import look_through

    frames = []
    for quarter in periods(store):
        if only_from is not None and quarter < only_from:
            continue
        for looked in (False, True):
            view = look_through(store, quarter) if looked else False
            rows = most_held_afresh(store, quarter, limit=None, looked_through=view)
            frame = pd.DataFrame(rows, columns=list(MOST_HELD_FIELDS), dtype=object)
            frame.insert(0, "looked_through", looked)
            frames.append(frame)
    columns = ["looked_through", *MOST_HELD_FIELDS]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns, dtype=object)


def _replace(store: "MarketStore", table: str, frame: pd.DataFrame, *, only_from: str | None = None) -> None:
    """The kept table's rows replaced by the frame's (those of quarters from `only_from` on, and of quarters no
    longer stored, when given), by column name."""
    columns = list(frame.columns)
    names = ", ".join(columns)
    with store.transaction() as con:
        if only_from is None:
            con.execute(f"DELETE FROM {table}")
        else:
            con.execute(f"DELETE FROM {table} WHERE period >= ? OR period NOT IN "
                        "(SELECT DISTINCT period FROM holdings WHERE period IS NOT NULL)", [only_from])
        if len(frame):
            con.register("_kept", frame)
            try:
                con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _kept")
            finally:
                con.unregister("_kept")

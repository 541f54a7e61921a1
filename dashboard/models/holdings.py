"""HoldingsByQuarter: one fund's portfolio by quarter, the weights over time and what changed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd
import param

from dashboard.api.periods import quarter_name
from dashboard.errors import BadInputError
from dashboard.models.factsheet import FundFactsheet
from dashboard.records import records_frame

CHANGE_ORDER = ("new", "increased", "decreased", "unchanged", "exited")
# A weight that moved by less than this (percentage points) counts as unchanged: the service
# rounds to 5 decimals, and a flicker in the last digit is not a portfolio decision.
UNCHANGED_TOLERANCE = 0.005
TABLE_COLUMNS = ["security", "issue_code", "isin_code", "issuer", "assetliab_id", "assetliab_value", "percent_nav"]
CHANGE_COLUMNS = ["security", "issuer", "weight_from", "weight_to", "change_pp", "change"]


def quarter_label(period: str | None) -> str:
    """"Q2 2026" for "202606", the one spelling of a quarter in every output; the text itself when it is not
    a period."""
    return quarter_name(period) if period else ""


def security_label(frame: pd.DataFrame) -> pd.Series:
    """A readable, stable name per holding: issue code, else ISIN, else issuer."""
    label = frame["issue_code"].astype("string")
    for fallback in ("isin_code", "issuer"):
        label = label.fillna(frame[fallback].astype("string"))
    return label.fillna("(unnamed)")


def nav_total_mask(frame: pd.DataFrame) -> pd.Series:
    """The one rule for what is not a holding: the line of asset type 903 (flagged `is_nav_total` by the
    records layer) is the fund's net asset value, so it is never listed, counted or summed as a holding."""
    return frame["is_nav_total"].fillna(False).astype(bool)


def split_nav_total(records: Iterable[Mapping]) -> tuple[list[Mapping], list[Mapping]]:
    """One quarter's holding records as (holdings, NAV-total lines), by the rule of `nav_total_mask`."""
    rows = list(records)
    flags = nav_total_mask(pd.DataFrame({"is_nav_total": [r.get("is_nav_total") for r in rows]}, dtype="object"))
    return ([r for r, nav in zip(rows, flags) if not nav], [r for r, nav in zip(rows, flags) if nav])


def portfolio_lines(frame: pd.DataFrame | None) -> pd.DataFrame:
    """The holdings of one quarter without NAV-total lines (assetliab_id 903), labelled."""
    if frame is None or frame.empty:
        return records_frame("holding", []).assign(security=pd.Series(dtype="string"))
    lines = frame[~nav_total_mask(frame)].copy()
    lines["security"] = security_label(lines)
    return lines


def empty_changes() -> pd.DataFrame:
    return pd.DataFrame({
        "security": pd.Series(dtype="string"), "issuer": pd.Series(dtype="string"),
        "weight_from": pd.Series(dtype="float64"), "weight_to": pd.Series(dtype="float64"),
        "change_pp": pd.Series(dtype="float64"),
        "change": pd.Categorical([], categories=CHANGE_ORDER, ordered=True),
    })


class HoldingsByQuarter(param.Parameterized):
    """Views of one fund's quarterly portfolios (E6) held by a FundFactsheet.

    The quarters offered are the valid E6 periods (up to 12, newest first), whether or not the
    fund published holdings for each; a quarter without data shows as empty, never as an error.
    """

    factsheet = param.ClassSelector(class_=FundFactsheet, doc="The factsheet whose holdings are shown.")
    period = param.Selector(default=None, objects=[], allow_None=True, check_on_set=True, doc="Quarter shown (YYYYMM); the latest with data by default.")
    compare_from = param.Selector(default=None, objects=[], allow_None=True, check_on_set=True, doc="Earlier quarter of the comparison (YYYYMM).")
    compare_to = param.Selector(default=None, objects=[], allow_None=True, check_on_set=True, doc="Later quarter of the comparison (YYYYMM).")
    top_n = param.Integer(default=10, bounds=(1, 50), doc="How many holdings the top-holdings chart shows.")
    note = param.String(default="", doc="Why the newest quarter shown is not the one the rules make due (the due "
                                        "quarter has no holdings for this fund yet, or failed): FundFactsheet.holdings_note; "
                                        "empty when it is.")

    def __init__(self, **params):
        if params.get("factsheet") is None:
            params["factsheet"] = FundFactsheet()
        super().__init__(**params)
        # What `lines` and `changes` worked out, by quarter(s), with the factsheet frames they came from: the tab's
        # summary, charts, tables and counts ask for the same quarter's lines a dozen times per render. An entry
        # serves only while the factsheet still holds those very frames (a new load is new frames).
        self._derived: dict[tuple, tuple[tuple, pd.DataFrame]] = {}
        self._sync_periods()

    def _source(self, period: str) -> pd.DataFrame | None:
        return (self.factsheet.holdings or {}).get(period)

    def _remembered(self, key: tuple, sources: tuple, build) -> pd.DataFrame:
        """`build()`, or what it gave before from the same source frames; the caller gets its own copy."""
        kept = self._derived.get(key)
        if kept is None or len(kept[0]) != len(sources) or any(a is not b for a, b in zip(kept[0], sources)):
            if len(self._derived) > 64:
                self._derived.clear()
            kept = self._derived[key] = (sources, build())
        return kept[1].copy()

    @param.depends("factsheet.holdings", "factsheet.periods", watch=True)
    def _sync_periods(self) -> None:
        periods = list(self.factsheet.periods) if self.factsheet else []
        with_data = self.periods_with_data
        # Keep a choice the user made when the new factsheet still offers it with data; a quarter this model chose
        # itself is chosen again (a late fund's quarter before was kept for the next fund, as if picked).
        auto = getattr(self, "_auto", {})
        keep = lambda name: (value if (value := getattr(self, name)) in with_data and value != auto.get(name)  # noqa: E731
                             else None)
        period = keep("period") or (with_data[0] if with_data else None)
        compare_to = keep("compare_to") or (with_data[0] if with_data else None)
        compare_from = keep("compare_from") or (with_data[1] if len(with_data) > 1 else None)
        if compare_from == compare_to:
            compare_to, compare_from = (with_data[0], with_data[1]) if len(with_data) > 1 else (compare_to, None)
        # Labelled choices ("Q2 2026"), so any selector widget shows quarters readably.
        choices = {quarter_label(p) + ("" if p in with_data else " (no data)"): p for p in periods}
        # The new choices first, each announced at once, then the values. Announcing the choices in
        # one batch with the values let a widget bound to a selector (Select.from_param) receive its
        # new options after its new value: it then picked the first option and wrote it back, so a
        # page opened on a link compared a quarter with itself ("Choose two different quarters").
        for name in ("period", "compare_from", "compare_to"):
            self.param[name].objects = choices
        self.param.update(period=period, compare_from=compare_from, compare_to=compare_to,
                          note=self.factsheet.holdings_note if self.factsheet else "")
        self._auto = {"period": with_data[0] if with_data else None, "compare_to": with_data[0] if with_data else None,
                      "compare_from": with_data[1] if len(with_data) > 1 else None}

    @property
    def periods(self) -> list[str]:
        """Every valid quarter, newest first."""
        return list(self.param.period.objects)

    @property
    def periods_with_data(self) -> list[str]:
        """Quarters with published holdings, newest first."""
        return self.factsheet.periods_with_data if self.factsheet else []

    def has_data(self, period: str | None = None) -> bool:
        period = period or self.period
        return bool(period) and period in (self.factsheet.holdings or {})

    def lines(self, period: str | None = None) -> pd.DataFrame:
        """Holding lines of one quarter (NAV-total lines excluded); empty for a quarter without data."""
        period = period or self.period
        if period is None:
            return portfolio_lines(None)
        if period not in self.periods:
            offered = f"{self.periods[-1]} to {self.periods[0]}" if self.periods else "none (no fund loaded)"
            raise BadInputError(f"period {period} is not a valid quarter; valid quarters: {offered}")
        source = self._source(period)
        return self._remembered(("lines", period), (source,), lambda: portfolio_lines(source))

    def table(self, period: str | None = None) -> pd.DataFrame:
        """Full table for one quarter, largest first."""
        lines = self.lines(period)
        columns = TABLE_COLUMNS + [c for c in ("assetliab_desc",) if c in lines.columns]  # the type's text, when sent
        return lines[columns].sort_values("percent_nav", ascending=False, na_position="last").reset_index(drop=True)

    def total_percent(self, period: str | None = None) -> float | None:
        """Sum of percent of NAV as reported, NAV-total lines excluded; may exceed 100. None without data."""
        lines = self.lines(period)
        if lines.empty:
            return None
        return float(lines["percent_nav"].sum(skipna=True))

    def total_value(self, period: str | None = None) -> float | None:
        """Sum of market values in baht, NAV-total lines excluded. None without data."""
        lines = self.lines(period)
        if lines.empty or lines["assetliab_value"].isna().all():
            return None
        return float(lines["assetliab_value"].sum(skipna=True))

    def as_of(self, period: str | None = None) -> str | None:
        """The as-of date the service gave for one quarter's holdings (ISO), if any."""
        lines = self.lines(period)
        dates = lines["as_of_date"].dropna() if "as_of_date" in lines else []
        return dates.max().date().isoformat() if len(dates) else None

    def top(self, period: str | None = None, n: int | None = None) -> pd.DataFrame:
        return self.table(period).head(n or self.top_n)

    def weights(self, max_securities: int = 30) -> pd.DataFrame:
        """Weight (percent of NAV) of the largest holdings in every valid quarter.

        Rows are securities (largest average weight first), columns every valid period oldest
        first; NaN where the security was not held or the quarter has no data.
        """
        periods = sorted(self.periods)
        frames = []
        for period in periods:
            lines = self.lines(period)
            if not lines.empty:
                frames.append(lines.groupby("security", as_index=False)["percent_nav"].sum().assign(period=period))
        if not frames:
            return pd.DataFrame(index=pd.Index([], name="security", dtype="string"), columns=periods, dtype="float64")
        long = pd.concat(frames, ignore_index=True)
        matrix = long.pivot_table(index="security", columns="period", values="percent_nav", aggfunc="sum")
        matrix = matrix.reindex(columns=periods)
        matrix.columns.name = None
        order = matrix.fillna(0).mean(axis=1).sort_values(ascending=False, kind="stable").index[:max_securities]
        return matrix.loc[order].astype("float64")

    def changes(self, compare_from: str | None = None, compare_to: str | None = None) -> pd.DataFrame:
        """What changed between two quarters: new, increased, decreased, unchanged, exited.

        Sorted by kind of change, then by the size of the move. Either quarter without data gives
        an empty frame (nothing can be said), not everything "new" or "exited".
        """
        start, end = compare_from or self.compare_from, compare_to or self.compare_to
        if start is None or end is None:
            return empty_changes()
        if start == end:
            raise BadInputError("choose two different quarters to compare")
        if start > end:
            start, end = end, start
        return self._remembered(("changes", start, end), (self._source(start), self._source(end)),
                                lambda: self._changes(start, end))

    def _changes(self, start: str, end: str) -> pd.DataFrame:
        first, last = self.lines(start), self.lines(end)
        if first.empty or last.empty:
            return empty_changes()
        a = first.groupby("security").agg(issuer=("issuer", "first"), weight_from=("percent_nav", "sum"))
        b = last.groupby("security").agg(issuer_to=("issuer", "first"), weight_to=("percent_nav", "sum"))
        both = a.join(b, how="outer")
        both["issuer"] = both["issuer"].fillna(both.pop("issuer_to"))
        held_before, held_after = both.index.isin(a.index), both.index.isin(b.index)
        delta = both["weight_to"].fillna(0) - both["weight_from"].fillna(0)
        both["change_pp"] = delta
        change = pd.Series("unchanged", index=both.index, dtype=object)
        change[delta >= UNCHANGED_TOLERANCE] = "increased"
        change[delta <= -UNCHANGED_TOLERANCE] = "decreased"
        change[~held_before] = "new"
        change[~held_after] = "exited"
        both["change"] = pd.Categorical(change, categories=CHANGE_ORDER, ordered=True)
        both = both.reset_index()
        both["_rank"] = both["change"].cat.codes
        both["_size"] = both["change_pp"].abs()
        out = both.sort_values(["_rank", "_size", "security"], ascending=[True, False, True], kind="stable")
        out = out[CHANGE_COLUMNS].reset_index(drop=True)
        out["security"] = out["security"].astype("string")
        out["issuer"] = out["issuer"].astype("string")
        return out

    def change_counts(self, compare_from: str | None = None, compare_to: str | None = None) -> dict[str, int]:
        counts = self.changes(compare_from, compare_to)["change"].value_counts()
        return {kind: int(counts.get(kind, 0)) for kind in CHANGE_ORDER}

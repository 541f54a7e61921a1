"""Holdings looked through: a fund's units of Thai funds in the store replaced by those funds' own latest holdings,
scaled by weight, level after level, with a guard against cycles and a statement of what could not be expanded.

The rule (docs/lookthrough.md):
- A holding line is units of a Thai fund in the store when its ISIN is one of a stored fund's unit classes' ISINs,
  else when its issue code is (any case) a stored fund's abbreviation, one of its classes' abbreviations or its
  proj_id. A line of asset type 104 (fund units) that matches no stored fund is named as not expanded.
- Fund A holding w % of its NAV in fund B, B holding v % of its NAV in security S: A holds w x v / 100 % of its NAV
  in S through B, and w's baht x v / 100 in baht. B's other lines (cash, derivatives) are scaled alike; NAV totals
  (903) never count.
- B's holdings are its latest quarter stored at or before A's quarter (A's own quarter when stored).
- B's units of Thai funds are expanded in turn (C through B through A), up to MAX_DEPTH levels. A fund reached again
  on its own path (A holds B, B holds A) is not expanded again: the line stays as it is and is named, as are
  lines of funds without holdings stored and lines without a weight.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from dashboard.market.store import MarketStore

MAX_DEPTH = 8  # levels below the fund asked about; real funds of funds go two deep
THAI_FUND_UNITS = ("104",)  # asset types that are units of Thai funds (records.labels.ASSET_TYPE)
PLACEHOLDERS = ("", "-", "--", "n/a", "none", "null")  # as market.holdings

# The reasons a line of fund units stays as it is (NotExpanded.reason), in words.
NOT_IN_STORE = "not a fund in the store"
NO_HOLDINGS = "no holdings stored for it"
CYCLE = "it holds, directly or through others, the fund that holds it (a cycle)"
NO_WEIGHT = "the line has no share of NAV"
TOO_DEEP = f"more than {MAX_DEPTH} levels down"


def clean_sql(column: str) -> str:
    """A text column's value trimmed, NULL when it is a placeholder ("", "-", "n/a", ...)."""
    marks = ", ".join(f"'{p}'" for p in PLACEHOLDERS)
    return f"CASE WHEN lower(trim({column})) IN ({marks}) THEN NULL ELSE trim({column}) END"


def key_sql(prefix: str = "") -> str:
    """A holding line's security: its ISIN, else its issue code, upper case (as `security_key`)."""
    return f"upper(coalesce({clean_sql(prefix + 'isin_code')}, {clean_sql(prefix + 'issue_code')}))"


def security_key(issue_code: Any, isin_code: Any) -> str | None:
    for value in (isin_code, issue_code):
        if isinstance(value, str) and value.strip().casefold() not in PLACEHOLDERS:
            return value.strip().upper()
    return None


@dataclass(frozen=True)
class Link:
    """One holding line of units of a Thai fund: `holder` holds `percent_nav` % of its NAV (`value` baht) in `held`
    (None when the line names no stored fund)."""

    holder: str
    period: str
    held: str | None
    key: str
    code: str
    percent_nav: float | None
    value: float | None


@dataclass
class Unit:
    """A fund reached from `root`: its lines in `period` count at `share` (a fraction of the root's NAV, 1 for the
    root itself), `baht` the root's baht in it; `path` the funds from the root down to it; `skip` the security keys
    of its own lines that are expanded further (so they are not counted twice)."""

    number: int
    root: str
    fund: str
    period: str
    share: float
    baht: float | None
    path: tuple[str, ...]
    skip: set[str] = field(default_factory=set)

    @property
    def depth(self) -> int:
        return len(self.path) - 1


@dataclass(frozen=True)
class NotExpanded:
    """A line of fund units left as it is: in `root`'s look-through, `holder` (the root or a fund below it) holds
    `code`, `percent_nav` % of the root's NAV, and it could not be expanded for `reason`."""

    root: str
    holder: str
    code: str
    percent_nav: float | None
    reason: str


def expand(roots: Mapping[str, str], links: Mapping[tuple[str, str], Sequence[Link]],
           latest: Mapping[str, str]) -> tuple[list[Unit], list[NotExpanded]]:
    """Every fund each root reaches through its units of Thai funds: pure (no store), for the rule and its tests.

    `roots`: proj_id -> its quarter. `links`: (fund, quarter) -> its lines of fund units. `latest`: proj_id -> the
    quarter whose holdings stand for the fund below a root (its latest stored at or before the roots' quarter).
    Returns the units (each root first, with share 1) and the lines not expanded.
    """
    units: list[Unit] = []
    left: list[NotExpanded] = []
    for root, quarter in roots.items():
        top = Unit(len(units), root, root, quarter, 1.0, None, (root,))
        units.append(top)
        todo = [top]
        while todo:
            unit = todo.pop()
            for link in links.get((unit.fund, unit.period), ()):
                weight = link.percent_nav
                share = unit.share * weight / 100.0 if weight is not None else None
                reason = None
                if link.held is None:
                    reason = NOT_IN_STORE
                elif weight is None or not math.isfinite(weight):
                    reason = NO_WEIGHT
                elif link.held in unit.path:
                    reason = CYCLE
                elif link.held not in latest:
                    reason = NO_HOLDINGS
                elif unit.depth >= MAX_DEPTH:
                    reason = TOO_DEEP
                if reason is not None:
                    left.append(NotExpanded(root, unit.fund, link.code, share * 100.0 if share is not None else None,
                                            reason))
                    continue
                if unit.depth == 0:
                    baht = link.value
                else:
                    baht = unit.baht * weight / 100.0 if unit.baht is not None else None
                unit.skip.add(link.key)
                child = Unit(len(units), root, link.held, latest[link.held], share, baht, (*unit.path, link.held))
                units.append(child)
                todo.append(child)
    return units, left


@dataclass
class LookThrough:
    """The funds reached through units of Thai funds in one quarter: `units` (with more than the root only for
    funds that hold stored Thai funds), `not_expanded`, and `names` (proj_id -> abbreviation) to say them."""

    period: str
    units: list[Unit]
    not_expanded: list[NotExpanded]
    names: dict[str, str]
    roots: tuple[str, ...] | None = None  # the funds asked about; None: every fund with holdings in the quarter

    @property
    def expanded_roots(self) -> list[str]:
        """The funds whose holdings change when looked through (they hold units of stored Thai funds)."""
        return list(dict.fromkeys(u.root for u in self.units if u.depth > 0))

    def name(self, proj_id: str) -> str:
        return self.names.get(proj_id) or proj_id

    def through_text(self, unit: Unit) -> str:
        """The funds between a root and a unit, as "FOF1 > EQ" (empty for the root itself)."""
        return " > ".join(self.name(p) for p in unit.path[1:])

    def summary(self, roots: Iterable[str] | None = None) -> str:
        """In words: how many funds were looked through, and every line left as it is, with why."""
        wanted = set(roots) if roots is not None else None
        units = [u for u in self.units if u.depth > 0 and (wanted is None or u.root in wanted)]
        left = [n for n in self.not_expanded if wanted is None or n.root in wanted]
        through = len({u.root for u in units})
        if not units and not left:
            return "No fund here holds units of Thai funds: looked through, the holdings are the same."
        parts = []
        if units:
            deepest = max(u.depth for u in units)
            parts.append(f"{through} fund{'s' if through != 1 else ''} looked through into "
                         f"{len({u.fund for u in units})} Thai fund{'s' if len({u.fund for u in units}) != 1 else ''}"
                         f" {'it holds' if through == 1 else 'they hold'} ({deepest} level{'s' if deepest != 1 else ''}"
                         " deep at most).")
        if left:
            shown = [f"{self.name(n.holder)}'s {n.code}"
                     + (f" ({n.percent_nav:.2f}% of {self.name(n.root)})" if n.percent_nav is not None and n.root != n.holder
                        else f" ({n.percent_nav:.2f}% of NAV)" if n.percent_nav is not None else "")
                     + f": {n.reason}" for n in left[:8]]
            more = f"; and {len(left) - 8} more" if len(left) > 8 else ""
            parts.append(f"Not expanded, kept as fund units ({len(left)}): " + "; ".join(shown) + more + ".")
        return " ".join(parts)


# ---- reading the store ---------------------------------------------------------------------------

_CODES_SQL = (
    "WITH codes AS ("
    " SELECT upper(trim(proj_id)) AS code, proj_id, 1 AS rank FROM funds WHERE proj_id IS NOT NULL"
    " UNION ALL SELECT upper(trim(proj_abbr_name)), proj_id, 2 FROM funds WHERE trim(coalesce(proj_abbr_name, '')) <> ''"
    " UNION ALL SELECT upper(trim(class_abbr_name)), proj_id, 3 FROM classes"
    "  WHERE trim(coalesce(class_abbr_name, '')) NOT IN ('', 'main', '-')"
    " UNION ALL SELECT upper(trim(json_extract_string(record, '$.fund_class_isin_code'))), proj_id, 0 FROM classes"
    "  WHERE trim(coalesce(json_extract_string(record, '$.fund_class_isin_code'), '')) NOT IN ('', '-')),"
    " one AS (SELECT code, arg_min(proj_id, rank) AS proj_id FROM codes GROUP BY code)")

_LINKS_SQL = (
    _CODES_SQL +
    " SELECT h.proj_id AS holder, h.period, coalesce(ci.proj_id, cc.proj_id) AS held, h.issue_code, h.isin_code,"
    " h.percent_nav, h.assetliab_value FROM holdings h"
    " LEFT JOIN one ci ON ci.code = upper(trim(h.isin_code))"
    " LEFT JOIN one cc ON cc.code = upper(trim(h.issue_code))"
    " WHERE h.period <= ? AND NOT coalesce(h.is_nav_total, FALSE)"
    " AND (ci.proj_id IS NOT NULL OR cc.proj_id IS NOT NULL OR h.assetliab_id IN ({units}))")


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# Look-throughs made, per store and what it held then (its signature): a store's links change only when it does.
_MADE: "weakref.WeakKeyDictionary[MarketStore, dict]" = weakref.WeakKeyDictionary()
_MADE_LOCK = threading.Lock()
KEEP = 16  # look-throughs kept per store (quarters x sets of funds asked)


def look_through(store: MarketStore, period: str, roots: Sequence[str] | None = None) -> LookThrough:
    """The look-through of `roots` (every fund with holdings in the quarter when None) in quarter `period` (YYYYMM,
    checked by the caller). Kept until the store changes (`MarketStore.signature`)."""
    key = (store.signature(), str(period), tuple(roots) if roots is not None else None)
    with _MADE_LOCK:
        made = _MADE.setdefault(store, {})
        if key in made:
            return made[key]
    view = _look_through(store, str(period), roots)
    with _MADE_LOCK:
        made = _MADE.setdefault(store, {})
        for old in [k for k in made if k[0] != key[0]] + list(made)[:max(0, len(made) - KEEP + 1)]:
            made.pop(old, None)
        made[key] = view
    return view


def _look_through(store: MarketStore, period: str, roots: Sequence[str] | None) -> LookThrough:
    units_marks = ", ".join(f"'{c}'" for c in THAI_FUND_UNITS)
    rows = store.query(_LINKS_SQL.format(units=units_marks), [period])
    links: dict[tuple[str, str], list[Link]] = {}
    for row in rows:
        key = security_key(row["issue_code"], row["isin_code"])
        if key is None:
            continue
        code = (row["issue_code"] or "").strip() if security_key(row["issue_code"], None) else key
        links.setdefault((row["holder"], row["period"]), []).append(
            Link(row["holder"], row["period"], row["held"], key, code, _number(row["percent_nav"]),
                 _number(row["assetliab_value"])))
    if roots is None:
        root_map = {p: period for p in sorted({holder for holder, quarter in links if quarter == period})}
    else:
        root_map = {p: period for p in roots}
    held = sorted({link.held for lines in links.values() for link in lines if link.held is not None})
    latest: dict[str, str] = {}
    if held:
        marks = ", ".join("?" * len(held))
        latest = {r["proj_id"]: r["p"] for r in store.query(
            f"SELECT proj_id, max(period) AS p FROM holdings WHERE period <= ? AND proj_id IN ({marks}) GROUP BY proj_id",
            [period, *held])}
    units, left = expand(root_map, links, latest)
    reached = sorted({p for u in units for p in u.path} | {n.holder for n in left})
    names: dict[str, str] = {}
    if reached and (len(units) > len(root_map) or left):
        marks = ", ".join("?" * len(reached))
        names = {r["proj_id"]: r["proj_abbr_name"] for r in store.query(
            f"SELECT proj_id, proj_abbr_name FROM funds WHERE proj_id IN ({marks})", reached) if r["proj_abbr_name"]}
    return LookThrough(period, units, left, names, tuple(roots) if roots is not None else None)


def lines_sql(view: LookThrough, *, only: Sequence[str] | None = None) -> tuple[str, list, dict[str, pd.DataFrame]]:
    """SQL, its parameters and its tables (`MarketStore.query(..., frames=)`) for the holding lines of the quarter
    looked through: a WITH clause defining `lt_lines`, columns proj_id (the fund asked about), period, issue_code,
    isin_code, issuer, percent_nav and assetliab_value (shares of that fund's NAV and its baht), assetliab_id,
    `through` (the funds between, "" for its own lines) and is_nav_total (always false: NAV totals left out).
    `only`: these funds (every fund with holdings in the quarter when None)."""
    roots = set(view.expanded_roots)
    expanded = [u for u in view.units if u.root in roots and (only is None or u.root in set(only))]
    units = pd.DataFrame({"unit": pd.Series([u.number for u in expanded], dtype="int64"),
                          "root": pd.Series([u.root for u in expanded], dtype=object),
                          "fund": pd.Series([u.fund for u in expanded], dtype=object),
                          "period": pd.Series([u.period for u in expanded], dtype=object),
                          "share": pd.Series([u.share for u in expanded], dtype="float64"),
                          "baht": pd.Series([u.baht for u in expanded], dtype="float64"),
                          "depth": pd.Series([u.depth for u in expanded], dtype="int64"),
                          "through": pd.Series([view.through_text(u) for u in expanded], dtype=object)})
    pairs = [(u.number, key) for u in expanded for key in sorted(u.skip)]
    skips = pd.DataFrame({"unit": pd.Series([p[0] for p in pairs], dtype="int64"),
                          "key": pd.Series([p[1] for p in pairs], dtype=object)})
    scope, scope_params = "", []
    if only is not None:
        scope = f" AND h.proj_id IN ({', '.join('?' * len(only))})" if only else " AND FALSE"
        scope_params = list(only)
    own = ""
    if expanded:
        own = f" AND h.proj_id NOT IN ({', '.join('?' * len(roots))})"
        scope_params = [*sorted(roots), *scope_params]
    sql = ("WITH lt_lines AS ("
           " SELECT h.proj_id, h.period, h.issue_code, h.isin_code, h.issuer, h.percent_nav, h.assetliab_value,"
           " h.assetliab_id, '' AS through, FALSE AS is_nav_total FROM holdings h"
           f" WHERE h.period = ? AND NOT coalesce(h.is_nav_total, FALSE){own}{scope}")
    params = [view.period, *scope_params]
    if expanded:
        sql += (" UNION ALL"
                " SELECT u.root, ?, h.issue_code, h.isin_code, h.issuer, h.percent_nav * u.share,"
                " CASE WHEN u.depth = 0 THEN h.assetliab_value ELSE u.baht * h.percent_nav / 100 END,"
                " h.assetliab_id, u.through, FALSE FROM lt_units u"
                " JOIN holdings h ON h.proj_id = u.fund AND h.period = u.period"
                f" LEFT JOIN lt_skips s ON s.unit = u.unit AND s.key = {key_sql('h.')}"
                " WHERE NOT coalesce(h.is_nav_total, FALSE) AND s.unit IS NULL")
        params.append(view.period)
    return sql + ")", params, {"lt_units": units, "lt_skips": skips}

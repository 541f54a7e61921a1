"""Who holds what in the market store: every fund holding a security, how much funds overlap, the
securities held by the most funds, and the quarters of holdings stored.

A security is its ISIN, else its issue code; lines with neither (cash, derivatives) and NAV totals
(assetliab_id 903) are holdings no two funds can share and are never counted. Every function takes
a store (the writer) or a reader of the published snapshot (`open_reader`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dashboard.errors import BadInputError, quoted
from dashboard.market.lookthrough import LookThrough, look_through, lines_sql
from dashboard.market.store import MarketStore
from dashboard.market.tables import KEPT_INPUTS
from dashboard.records.counts import count_text

HOLDER_FIELDS = ("proj_id", "proj_abbr_name", "period", "percent_nav", "assetliab_value", "issue_code", "isin_code",
                 "issuer", "through")
MOST_HELD_FIELDS = ("security", "issue_code", "isin_code", "issuer", "period", "funds", "total_value",
                    "percent_nav_avg")
_PLACEHOLDERS = {"", "-", "--", "n/a", "none", "null"}


# A text column's value, None when it is a placeholder ("", "-", "n/a", ...).
def _clean_sql(column: str) -> str:
    marks = ", ".join(f"'{p}'" for p in sorted(_PLACEHOLDERS))
    return f"CASE WHEN lower(trim({column})) IN ({marks}) THEN NULL ELSE trim({column}) END"


def periods(store: MarketStore) -> list[str]:
    """The quarters of holdings stored (YYYYMM), newest first."""
    return [r["period"] for r in store.query("SELECT DISTINCT period FROM holdings WHERE period IS NOT NULL "
                                             "ORDER BY period DESC")]


def latest_period(store: MarketStore) -> str | None:
    rows = store.query("SELECT max(period) AS p FROM holdings")
    return rows[0]["p"] if rows else None


def checked_period(store: MarketStore, period: str | None) -> str | None:
    """The quarter asked (YYYYMM, checked against those stored), else the latest stored; None when none is."""
    return _period(store, period)


def _period(store: MarketStore, period: str | None) -> str | None:
    if period is None:
        return latest_period(store)
    text = str(period).strip()
    if not re.fullmatch(r"[0-9]{6}", text):
        raise BadInputError(f"period {quoted(text)} is not of the form YYYYMM")
    stored = periods(store)
    if stored and text not in stored:
        shown = ", ".join(stored[:4]) + (", ..." if len(stored) > 4 else "")
        raise BadInputError(f"the store holds no holdings for the quarter {text} (it holds {shown}); "
                            "`sec-dashboard market sync --only holdings --quarters N` fetches the newest N quarters")
    return text


def holders(store: MarketStore, query: str, period: str | None = None, *,
            looked_through: bool | LookThrough = False) -> list[dict]:
    """Every fund holding a security in one quarter (the latest stored): the security its issue code or ISIN names
    (exact, any case), else every security whose issuer's name contains the text ("chanthaburi foods"); rows carry
    the issue code and issuer, so securities found by name stay apart.

    `looked_through` (True, or a `look_through` of the quarter): funds of Thai funds hold what those funds hold,
    scaled by weight (`market.lookthrough`); `through` names the funds between ("" for a fund's own line; several
    paths joined by "; ")."""
    text = (query or "").strip()
    if not text or text.casefold() in _PLACEHOLDERS:
        raise BadInputError("give an issue code or ISIN (such as PTT or TH0646010015), or part of the issuer's name")
    quarter = _period(store, period)
    if quarter is None:
        return []
    prefix, params, frames, source = "", [], None, "(SELECT *, '' AS through FROM holdings)"
    if looked_through is not False:
        view = looked_through if isinstance(looked_through, LookThrough) else look_through(store, quarter)
        prefix, params, frames = lines_sql(view)
        source = "lt_lines"
    by_code = "(upper(trim(h.issue_code)) = upper(?) OR upper(trim(h.isin_code)) = upper(?))"
    rows = store.query(prefix + " " + _HOLDERS_SQL.format(source=source, match=by_code, security=""),
                       [*params, quarter, text, text], frames=frames)
    if rows:
        return rows
    by_name = "contains(lower(coalesce(h.issuer, '')), lower(?))"
    per_security = ", coalesce(nullif(trim(h.isin_code), ''), upper(trim(h.issue_code)), lower(trim(h.issuer)))"
    return store.query(prefix + " " + _HOLDERS_SQL.format(source=source, match=by_name, security=per_security),
                       [*params, quarter, text], frames=frames)


_HOLDERS_SQL = (
    "SELECT h.proj_id, f.proj_abbr_name, h.period, sum(h.percent_nav) AS percent_nav, "
    "sum(h.assetliab_value) AS assetliab_value, any_value(h.issue_code) AS issue_code, "
    "any_value(h.isin_code) AS isin_code, any_value(h.issuer) AS issuer, "
    "coalesce(nullif(string_agg(DISTINCT CASE WHEN h.through = '' THEN 'directly' ELSE h.through END, '; ' "
    "ORDER BY CASE WHEN h.through = '' THEN 'directly' ELSE h.through END), 'directly'), '') "
    "AS through "
    "FROM {source} h LEFT JOIN funds f ON f.proj_id = h.proj_id "
    "WHERE h.period = ? AND NOT coalesce(h.is_nav_total, FALSE) AND {match} "
    "GROUP BY h.proj_id, f.proj_abbr_name, h.period{security} "
    "ORDER BY percent_nav DESC NULLS LAST, h.proj_id")


def holders_counts(rows: Iterable[Mapping]) -> dict[str, int]:
    """What `holders` rows count: `funds` (distinct proj_ids), `securities` (distinct ISINs, else issue codes) and
    `holdings` (the rows: a fund's holding of one security). A search by issuer's name finds several securities,
    so a fund may be several rows; never count the rows as funds."""
    rows = list(rows)
    return {"funds": len({r.get("proj_id") for r in rows}),
            "securities": len({k for r in rows if (k := _security_key(r.get("issue_code"), r.get("isin_code")))}),
            "holdings": len(rows)}


def holders_summary(rows: Iterable[Mapping], security: str) -> str:
    """Who holds a security, in words, counted as funds: "32 funds hold Demo Treasury in Q3 2026 (179 holdings of
    150 securities)"; the holdings and securities only when they are not one a fund. Plain text (escape for HTML)."""
    rows = [r for r in rows]
    if not rows:
        return f"No fund holds {security} in this quarter."
    counts = holders_counts(rows)
    funds = counts["funds"]
    period = next((str(r["period"]) for r in rows if r.get("period")), "")
    quarter = f" in Q{(int(period[4:]) - 1) // 3 + 1} {period[:4]}" if re.fullmatch(r"[0-9]{4}(0[1-9]|1[0-2])", period) else ""
    text = f"{count_text(funds, 'fund')} {'holds' if funds == 1 else 'hold'} {security}{quarter}"
    if counts["holdings"] != funds:
        text += f" ({count_text(counts['holdings'], 'holding')} of {count_text(counts['securities'], 'security')})"
    return text + "."


def _security_key(issue_code: Any, isin_code: Any) -> str | None:
    for value in (isin_code, issue_code):
        if isinstance(value, str) and value.strip().casefold() not in _PLACEHOLDERS:
            return value.strip().upper()
    return None


def overlap(store: MarketStore, funds: Sequence[str], period: str | None = None, *,
            looked_through: bool = False) -> dict:
    """Securities held in common and each pair's overlap: the sum over common holdings of the smaller weight.

    A security is its ISIN, else its issue code; lines without either (cash, derivatives) and NAV
    totals are not holdings that can be shared. A fund's weight is the sum of its lines of the security.
    A fund with holdings but no profile row is answered from its holdings; `missing` says so, by proj_id.
    `looked_through`: each fund's units of Thai funds in the store are replaced by those funds' holdings, scaled
    (`market.lookthrough`); `looked_through_note` then says what was looked through and what could not be.
    """
    proj_ids: list[str] = []
    missing: dict[str, str] = {}
    for query in funds:
        proj_id, lacking = _stored_fund(store, str(query))
        if proj_id not in proj_ids:
            proj_ids.append(proj_id)
        if lacking:
            missing[proj_id] = lacking
    if len(proj_ids) < 2:
        raise BadInputError("overlap needs at least two different funds")
    quarter = _period(store, period)
    rows: list[dict] = []
    note: dict = {}
    if quarter is not None and looked_through:
        view = look_through(store, quarter, proj_ids)
        sql, params, frames = lines_sql(view, only=proj_ids)
        rows = store.query(f"{sql} SELECT proj_id, issue_code, isin_code, issuer, percent_nav FROM lt_lines "
                           "ORDER BY proj_id", params, frames=frames)
        note = {"looked_through_note": view.summary(proj_ids)}
    elif quarter is not None:
        marks = ", ".join("?" * len(proj_ids))
        rows = store.query(
            f"SELECT proj_id, issue_code, isin_code, issuer, percent_nav FROM holdings WHERE period = ? "
            f"AND proj_id IN ({marks}) AND NOT coalesce(is_nav_total, FALSE) ORDER BY proj_id", [quarter, *proj_ids])
    return {"funds": proj_ids, "period": quarter, **overlap_of(proj_ids, rows), "missing": missing, **note}


def overlap_of(proj_ids: Sequence[str], rows: Iterable[Mapping]) -> dict:
    """Securities held in common by these funds and each pair's overlap, from holding lines (proj_id, issue_code,
    isin_code, issuer, percent_nav; NAV totals left out by the caller): `{"common": [...], "overlap_pct": {...}}`.
    The same rule for the market store and a report's holdings: a security is its ISIN, else its issue code."""
    weights: dict[str, dict[str, float]] = {}
    names: dict[str, dict] = {}
    for row in rows:
        key = _security_key(row.get("issue_code"), row.get("isin_code"))
        weight = row.get("percent_nav")
        if key is None or weight is None or row.get("proj_id") not in proj_ids:
            continue
        try:
            weight = float(weight)
        except (TypeError, ValueError):
            continue
        if not math.isfinite(weight):
            continue
        per_fund = weights.setdefault(key, {})
        per_fund[row["proj_id"]] = per_fund.get(row["proj_id"], 0.0) + weight
        names.setdefault(key, {"issue_code": _clean(row.get("issue_code")), "isin_code": _clean(row.get("isin_code")),
                               "issuer": _clean(row.get("issuer"))})
    common = []
    for key, per_fund in weights.items():
        if len(per_fund) >= 2:
            ordered = {p: round(per_fund[p], 6) for p in proj_ids if p in per_fund}
            common.append({**names[key], "weights": ordered})
    common.sort(key=lambda c: (-sum(c["weights"].values()), c["isin_code"] or c["issue_code"] or ""))
    pairs: dict[str, float] = {}
    for i, a in enumerate(proj_ids):
        for b in proj_ids[i + 1:]:
            total = sum(min(w[a], w[b]) for w in weights.values() if a in w and b in w)
            pairs[f"{a}|{b}"] = round(total, 6)
    return {"common": common, "overlap_pct": pairs}


NO_PROFILE = ("the store holds its holdings but no profile row (no name, company or status): the overlap is from its "
              "holdings; `market sync --only funds` fetches the profiles")


def _stored_fund(store: MarketStore, query: str) -> tuple[str, str | None]:
    """The proj_id a query names, from the fund profiles or, failing them, from the holdings stored (by proj_id:
    an abbreviation needs a profile), and what the store is missing for it (None when nothing)."""
    proj_id = store.resolve(query)
    if proj_id is not None:
        return proj_id, None
    rows = store.query("SELECT proj_id FROM holdings WHERE upper(proj_id) = upper(?) LIMIT 1", [query.strip()])
    if rows:
        return rows[0]["proj_id"], NO_PROFILE
    raise BadInputError(f"no fund {quoted(query)} in the market store, neither a profile nor holdings (proj_id or exact "
                        "abbreviation); run `market sync` if the store is empty")


def _clean(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip().casefold() not in _PLACEHOLDERS else None


def most_held(store: MarketStore, period: str | None = None, *, limit: int | None = 20,
              looked_through: bool | LookThrough = False) -> list[dict]:
    """The securities held by the most funds in a quarter (the latest stored by default).

    A security is its ISIN, else its issue code (as in `overlap`); lines with neither and NAV totals
    are never counted. Rows {"security" (what `holders` takes), "issue_code", "isin_code", "issuer",
    "period", "funds" (funds holding it), "total_value" (baht, summed), "percent_nav_avg" (the mean
    over those funds of each one's share of NAV)}, most funds first, then the largest value.
    `looked_through` (True, or a `look_through` of the quarter): a fund of Thai funds holds what they hold, scaled
    by weight; a fund holding a security directly and through another fund counts once.
    """
    quarter = _period(store, period)
    if quarter is None:
        return []
    if limit is not None and int(limit) < 0:
        raise BadInputError("the limit must be 0 or more")
    whole = looked_through is True or looked_through is False or (looked_through.roots is None
                                                                   and looked_through.period == quarter)
    if whole and store.kept("most_held_kept", MOST_HELD_INPUTS):
        rows = store.query("SELECT security, issue_code, isin_code, issuer, period, funds, total_value, percent_nav_avg "
                           "FROM most_held_kept WHERE period = ? AND looked_through = ? "
                           "ORDER BY funds DESC, total_value DESC NULLS LAST, security"
                           + (f" LIMIT {int(limit)}" if limit is not None else ""),
                           [quarter, looked_through is not False])
        if rows or limit == 0 or not store.query("SELECT 1 FROM holdings WHERE period = ? LIMIT 1", [quarter]):
            return rows
    return most_held_afresh(store, quarter, limit=limit, looked_through=looked_through)


# What the most held are computed from: a reader serves the kept ones (`most_held_kept`, computed when a publish
# changes one of these) only when its snapshot published them with or after each of these.
MOST_HELD_INPUTS = KEPT_INPUTS["most_held_kept"]


def most_held_afresh(store: MarketStore, quarter: str, *, limit: int | None = None,
                     looked_through: bool | LookThrough = False) -> list[dict]:
    """`most_held` of a checked quarter computed from the holdings (what a publish keeps for readers)."""
    isin, issue = _clean_sql("isin_code"), _clean_sql("issue_code")
    params: list = []
    frames = None
    source, prefix = "holdings", "WITH "
    if looked_through is not False:
        view = looked_through if isinstance(looked_through, LookThrough) else look_through(store, quarter)
        prefix, params, frames = lines_sql(view)
        prefix, source = prefix + ", ", "lt_lines"
    sql = (f"{prefix}lines AS (SELECT proj_id, period, upper(coalesce({isin}, {issue})) AS security, {issue} AS issue_code, "
           f"{isin} AS isin_code, {_clean_sql('issuer')} AS issuer, assetliab_value, percent_nav FROM {source} "
           "WHERE period = ? AND NOT coalesce(is_nav_total, FALSE)) "
           "SELECT security, min(issue_code) AS issue_code, min(isin_code) AS isin_code, min(issuer) AS issuer, "
           "any_value(period) AS period, count(DISTINCT proj_id) AS funds, sum(assetliab_value) AS total_value, "
           "sum(percent_nav) / count(DISTINCT proj_id) AS percent_nav_avg FROM lines WHERE security IS NOT NULL "
           "GROUP BY security ORDER BY funds DESC, total_value DESC NULLS LAST, security"
           + (f" LIMIT {int(limit)}" if limit is not None else ""))
    return store.query(sql, [*params, quarter], frames=frames)

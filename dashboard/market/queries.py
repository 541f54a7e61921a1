"""The questions the market store answers: a screener, who holds a security, how much funds overlap, the
market's risk spectrum and fees by policy type, the most-held securities, and the snapshot's state.

Figures per fund follow the models' rules (the first unit class listed; fees as charged, never
prospectus ceilings), computed when fees or performance are swapped in (`fund_figures`). Holdings
rows that are the NAV total (assetliab_id 903) are never counted. Every function takes a store
(the writer) or a reader of the published snapshot (`open_reader`): they read the same tables.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dashboard.errors import BadInputError, quoted
from dashboard.market.store import MarketStore
from dashboard.market.datasets import DATASET_NAMES
from dashboard.records.labels import POLICY_TYPE
from dashboard.records.successor import fund_status_code

SCREEN_FIELDS = ("proj_id", "proj_abbr_name", "proj_name_en", "proj_name_th", "company_name_en", "unique_id",
                 "fund_status", "risk_spectrum", "policy_desc", "proj_retail_type", "tax_incentives",
                 "total_fee_actual", "total_fee_ceiling", "return_1y")
MAX_SCREEN_ROWS = 1_000_000  # a LIMIT past every fund of the market; DuckDB's own limit is 64-bit
TAX_NAMES = {"ssf": "SSF", "thaiesg": "ThaiESG", "thai esg": "ThaiESG", "rmf": "RMF"}
HOLDER_FIELDS = ("proj_id", "proj_abbr_name", "period", "percent_nav", "assetliab_value", "issue_code", "isin_code",
                 "issuer")
_PLACEHOLDERS = {"", "-", "--", "n/a", "none", "null"}
_RISK = re.compile(r"^(?:RS)?\s*([1-8])(\+|1)?$", re.I)

_SCREEN_SQL = """
SELECT f.proj_id, f.proj_abbr_name, f.proj_name_en, f.proj_name_th,
       coalesce(nullif(trim(c.comp_name_en), ''), nullif(trim(json_extract_string(f.record, '$.comp_name_en')), ''))
           AS company_name_en,
       f.unique_id, f.fund_status, r.risk_spectrum, f.policy_desc, f.proj_retail_type, f.tax_incentives,
       g.total_fee_actual, g.total_fee_ceiling, g.return_1y
FROM funds f
LEFT JOIN companies c ON c.unique_id = f.unique_id
LEFT JOIN risk r ON r.proj_id = f.proj_id
LEFT JOIN fund_figures g ON g.proj_id = f.proj_id
"""


# A text column's value, None when it is a placeholder ("", "-", "n/a", ...).
def _clean_sql(column: str) -> str:
    marks = ", ".join(f"'{p}'" for p in sorted(_PLACEHOLDERS))
    return f"CASE WHEN lower(trim({column})) IN ({marks}) THEN NULL ELSE trim({column}) END"


_POLICY_SQL = "nullif(trim(f.policy_desc), '')"
SPECTRUM_FIELDS = ("risk_spectrum", "risk_rank", "policy_type", "funds")
FEE_FIELDS = ("policy_type", "funds", "min", "p25", "median", "p75", "max", "mean")
MOST_HELD_FIELDS = ("security", "issue_code", "isin_code", "issuer", "period", "funds", "total_value",
                    "percent_nav_avg")


def risk_code(text: str) -> str:
    """RS1..RS8, RS81 from "RS5", "5", "rs8+"."""
    match = _RISK.match(str(text).strip())
    if not match:
        raise BadInputError(f"{quoted(text)} is not a risk level: use RS1 to RS8 or RS81")
    return f"RS{match.group(1)}" + ("1" if match.group(2) and match.group(1) == "8" else "")


def _status_clause(status: str | None) -> tuple[str, list]:
    if not status or not str(status).strip():
        return "", []
    return "upper(f.fund_status) = upper(?)", [str(fund_status_code(str(status).strip()))]


def policy_words(text: str) -> list[str]:
    """What a policy filter looks for, spaces removed and in lower case: the text itself, and the Thai
    policy type of every English name that contains it ("equity" finds ตราสารทุน, "income" ตราสารหนี้)."""
    wanted = "".join(text.split()).lower()
    thai = [key for key, english in POLICY_TYPE.items() if wanted and wanted in "".join(english.split()).lower()]
    return list(dict.fromkeys([wanted, *thai]))


def company_names(store: MarketStore) -> dict[str, str]:
    """Every management company of the snapshot: its English name (else Thai, else its id), by unique_id, by name."""
    rows = store.query("SELECT unique_id, coalesce(nullif(trim(comp_name_en), ''), nullif(trim(comp_name_th), ''), "
                       "unique_id) AS name FROM companies WHERE unique_id IS NOT NULL ORDER BY name, unique_id")
    return {r["unique_id"]: r["name"] for r in rows}


def screen(store: MarketStore, *, company: str | None = None, status: str | None = None,
           risk: Iterable[str] = (), policy: str | None = None, tax: str | None = None,
           retail_type: str | None = None, max_fee: float | None = None, min_return_1y: float | None = None,
           sort: str | None = None, limit: int | None = None) -> list[dict]:
    """Funds that pass every filter given, one row per fund (SCREEN_FIELDS)."""
    where, params = [], []
    if company and company.strip():
        where.append("upper(f.unique_id) = upper(?)")
        params.append(company_id(store, company))
    clause, values = _status_clause(status)
    if clause:
        where.append(clause)
        params.extend(values)
    risks = [risk_code(r) for r in risk or () if str(r).strip()]
    if risks:
        where.append(f"r.risk_spectrum IN ({', '.join('?' * len(risks))})")
        params.extend(risks)
    if policy:
        words = policy_words(policy)
        squeezed = "replace(lower(coalesce(f.policy_desc, '')), ' ', '')"
        where.append("(" + " OR ".join(f"contains({squeezed}, ?)" for _ in words) + ")")
        params.extend(words)
    if tax:
        name = TAX_NAMES.get(tax.strip().casefold())
        if name is None:
            raise BadInputError(f"{quoted(tax)} is not a tax incentive: use SSF or ThaiESG")
        where.append("list_contains(string_split(coalesce(f.tax_incentives, ''), ','), ?)")
        params.append(name)
    if retail_type:
        where.append("upper(f.proj_retail_type) = upper(?)")
        params.append(retail_type.strip())
    if max_fee is not None:
        where.append("g.total_fee_actual <= ?")
        params.append(float(max_fee))
    if min_return_1y is not None:
        where.append("g.return_1y >= ?")
        params.append(float(min_return_1y))
    order = _order(sort)
    sql = _SCREEN_SQL + (" WHERE " + " AND ".join(where) if where else "") + f" ORDER BY {order}"
    if max_fee is not None and not math.isfinite(float(max_fee)):
        raise BadInputError("--max-fee must be a finite number")
    if min_return_1y is not None and not math.isfinite(float(min_return_1y)):
        raise BadInputError("--min-return-1y must be a finite number")
    if limit is not None:
        if not 0 <= int(limit) <= MAX_SCREEN_ROWS:
            raise BadInputError(f"--limit must be from 0 to {MAX_SCREEN_ROWS:,}")
        sql += f" LIMIT {int(limit)}"
    rows = store.query(sql, params)
    for row in rows:
        row["tax_incentives"] = [t for t in (row["tax_incentives"] or "").split(",") if t]
    return rows


_COMPANY_ID = re.compile(r"^C\d{6,}$", re.I)
_COMPANY_NAMES_SQL = """
SELECT DISTINCT f.unique_id,
       coalesce(nullif(trim(c.comp_name_en), ''), nullif(trim(json_extract_string(f.record, '$.comp_name_en')), ''),
                nullif(trim(c.comp_name_th), '')) AS name
FROM funds f LEFT JOIN companies c ON c.unique_id = f.unique_id
WHERE f.unique_id IS NOT NULL AND (
      contains(lower(coalesce(c.comp_name_en, '')), lower(?)) OR contains(lower(coalesce(c.comp_name_th, '')), lower(?))
   OR contains(lower(coalesce(json_extract_string(f.record, '$.comp_name_en'), '')), lower(?)))
ORDER BY 2, 1
"""


def company_id(store: MarketStore, text: str) -> str:
    """The management company a filter names: an id as typed (C0000000021), else the one company of the
    funds stored whose English or Thai name contains the text. Several or none is a BadInputError that
    lists the candidates or says how to find the id."""
    typed = " ".join(str(text).split())
    if _COMPANY_ID.match(typed):
        return typed.upper()
    if not typed:
        raise BadInputError("the company filter is empty: give a company's name or id")
    found = store.query(_COMPANY_NAMES_SQL, [typed, typed, typed])
    exact = {r["unique_id"] for r in found if isinstance(r["name"], str) and r["name"].casefold() == typed.casefold()}
    if len(exact) == 1:  # a whole name (as a picker gives it) is that company, even when another's name contains it
        return exact.pop()
    ids = list(dict.fromkeys(r["unique_id"] for r in found))
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise BadInputError(f"no management company in the market store has {quoted(typed)} in its name; give part of "
                            "its English or Thai name, or its id (`sec-dashboard fund search NAME` shows a fund's company)")
    names = {r["unique_id"]: r["name"] for r in found}
    listed = "; ".join(f"{names[i] or '(no name)'} ({i})" for i in ids[:8]) + ("; ..." if len(ids) > 8 else "")
    raise BadInputError(f"{len(ids)} management companies have {quoted(typed)} in their names: {listed}; "
                        "give more of the name or the id")


def company_choices(store: MarketStore) -> list[dict]:
    """The management companies of the funds stored, for a filter that picks by name: unique_id, name (English,
    else Thai, else the id) and how many funds, by name."""
    return store.query(
        "SELECT f.unique_id, coalesce(any_value(nullif(trim(c.comp_name_en), '')), "
        "any_value(nullif(trim(json_extract_string(f.record, '$.comp_name_en')), '')), "
        "any_value(nullif(trim(c.comp_name_th), '')), f.unique_id) AS name, count(*) AS funds "
        "FROM funds f LEFT JOIN companies c ON c.unique_id = f.unique_id WHERE f.unique_id IS NOT NULL "
        "GROUP BY f.unique_id ORDER BY name, f.unique_id")


def _order(sort: str | None) -> str:
    if not sort:
        return "f.proj_id"
    text = sort.strip()
    descending = text.startswith("-")
    name = text.lstrip("-+").strip()
    if name not in SCREEN_FIELDS:
        raise BadInputError(f"cannot sort by {quoted(name)}; fields: {', '.join(SCREEN_FIELDS)} (prefix - for descending)")
    return f"{name} {'DESC' if descending else 'ASC'} NULLS LAST, proj_id"


def latest_period(store: MarketStore) -> str | None:
    rows = store.query("SELECT max(period) AS p FROM holdings")
    return rows[0]["p"] if rows else None


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


def holders(store: MarketStore, query: str, period: str | None = None) -> list[dict]:
    """Every fund holding a security in one quarter (the latest stored): the security its issue code or ISIN names
    (exact, any case), else every security whose issuer's name contains the text ("chanthaburi foods"); rows carry
    the issue code and issuer, so securities found by name stay apart."""
    text = (query or "").strip()
    if not text or text.casefold() in _PLACEHOLDERS:
        raise BadInputError("give an issue code or ISIN (such as PTT or TH0646010015), or part of the issuer's name")
    quarter = _period(store, period)
    if quarter is None:
        return []
    by_code = "(upper(trim(h.issue_code)) = upper(?) OR upper(trim(h.isin_code)) = upper(?))"
    rows = store.query(_HOLDERS_SQL.format(match=by_code, security=""), [quarter, text, text])
    if rows:
        return rows
    by_name = "contains(lower(coalesce(h.issuer, '')), lower(?))"
    per_security = ", coalesce(nullif(trim(h.isin_code), ''), upper(trim(h.issue_code)), lower(trim(h.issuer)))"
    return store.query(_HOLDERS_SQL.format(match=by_name, security=per_security), [quarter, text])


_HOLDERS_SQL = (
    "SELECT h.proj_id, f.proj_abbr_name, h.period, sum(h.percent_nav) AS percent_nav, "
    "sum(h.assetliab_value) AS assetliab_value, any_value(h.issue_code) AS issue_code, "
    "any_value(h.isin_code) AS isin_code, any_value(h.issuer) AS issuer "
    "FROM holdings h LEFT JOIN funds f ON f.proj_id = h.proj_id "
    "WHERE h.period = ? AND NOT coalesce(h.is_nav_total, FALSE) AND {match} "
    "GROUP BY h.proj_id, f.proj_abbr_name, h.period{security} "
    "ORDER BY percent_nav DESC NULLS LAST, h.proj_id")


def _security_key(issue_code: Any, isin_code: Any) -> str | None:
    for value in (isin_code, issue_code):
        if isinstance(value, str) and value.strip().casefold() not in _PLACEHOLDERS:
            return value.strip().upper()
    return None


def overlap(store: MarketStore, funds: Sequence[str], period: str | None = None) -> dict:
    """Securities held in common and each pair's overlap: the sum over common holdings of the smaller weight.

    A security is its ISIN, else its issue code; lines without either (cash, derivatives) and NAV
    totals are not holdings that can be shared. A fund's weight is the sum of its lines of the security.
    A fund with holdings but no profile row is answered from its holdings; `missing` says so, by proj_id.
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
    if quarter is not None:
        marks = ", ".join("?" * len(proj_ids))
        rows = store.query(
            f"SELECT proj_id, issue_code, isin_code, issuer, percent_nav FROM holdings WHERE period = ? "
            f"AND proj_id IN ({marks}) AND NOT coalesce(is_nav_total, FALSE) ORDER BY proj_id", [quarter, *proj_ids])
    return {"funds": proj_ids, "period": quarter, **overlap_of(proj_ids, rows), "missing": missing}


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


# ---- the market at a glance (the Market tab) ------------------------------------------------------


def periods(store: MarketStore) -> list[str]:
    """The quarters of holdings stored (YYYYMM), newest first."""
    return [r["period"] for r in store.query("SELECT DISTINCT period FROM holdings WHERE period IS NOT NULL "
                                             "ORDER BY period DESC")]


def policy_types(store: MarketStore) -> list[str]:
    """The policy types of the funds stored (equity, fixed income, mixed, ... as the service words them), sorted."""
    rows = store.query(f"SELECT DISTINCT {_POLICY_SQL} AS p FROM funds f WHERE {_POLICY_SQL} IS NOT NULL ORDER BY 1")
    return [r["p"] for r in rows]


def risk_spectrum(store: MarketStore, *, status: str | None = None) -> list[dict]:
    """Funds per risk level and policy type: rows {"risk_spectrum", "risk_rank", "policy_type", "funds"},
    by risk rank then policy type (funds without a level, or without a policy type, last)."""
    clause, params = _status_clause(status)
    sql = (f"SELECT r.risk_spectrum, r.risk_rank, {_POLICY_SQL} AS policy_type, count(*) AS funds FROM funds f "
           "LEFT JOIN risk r ON r.proj_id = f.proj_id" + (f" WHERE {clause}" if clause else "") +
           " GROUP BY ALL ORDER BY risk_rank NULLS LAST, risk_spectrum NULLS LAST, policy_type NULLS LAST")
    return store.query(sql, params)


def fees_by_policy(store: MarketStore, *, status: str | None = None) -> list[dict]:
    """The total annual fee as charged, per policy type: rows {"policy_type", "funds" (with a charged fee),
    "min", "p25", "median", "p75", "max", "mean"} (quartiles interpolated). Ceilings are never used."""
    clause, params = _status_clause(status)
    sql = (f"SELECT {_POLICY_SQL} AS policy_type, count(*) AS funds, min(g.total_fee_actual) AS min, "
           "quantile_cont(g.total_fee_actual, 0.25) AS p25, quantile_cont(g.total_fee_actual, 0.5) AS median, "
           "quantile_cont(g.total_fee_actual, 0.75) AS p75, max(g.total_fee_actual) AS max, "
           "avg(g.total_fee_actual) AS mean FROM funds f JOIN fund_figures g ON g.proj_id = f.proj_id "
           "WHERE g.total_fee_actual IS NOT NULL" + (f" AND {clause}" if clause else "") +
           " GROUP BY ALL ORDER BY policy_type NULLS LAST")
    return store.query(sql, params)


def fee_distribution(store: MarketStore, policy_type: str | None, *, status: str | None = None) -> list[dict]:
    """The charged fees of one policy type's funds (None: funds without one), cheapest first:
    rows {"proj_id", "proj_abbr_name", "total_fee_actual"}; funds without a charged fee left out."""
    clause, params = _status_clause(status)
    same = f"{_POLICY_SQL} = ?" if policy_type is not None else f"{_POLICY_SQL} IS NULL"
    values = [str(policy_type).strip()] if policy_type is not None else []
    sql = ("SELECT f.proj_id, f.proj_abbr_name, g.total_fee_actual FROM funds f JOIN fund_figures g "
           f"ON g.proj_id = f.proj_id WHERE g.total_fee_actual IS NOT NULL AND {same}"
           + (f" AND {clause}" if clause else "") + " ORDER BY g.total_fee_actual, f.proj_id")
    return store.query(sql, [*values, *params])


def fee_percentile(store: MarketStore, fund: str, *, status: str | None = None) -> dict | None:
    """Where a fund's total annual fee as charged sits among its peers (the funds of its policy type).

    {"proj_id", "proj_abbr_name", "policy_type", "total_fee_actual", "peers" (peers with a charged
    fee, the fund included), "cheaper" (peers charging less), "same" (peers charging the same, the
    fund included), "percentile" (0-100, mid-rank: 100 * (cheaper + same / 2) / peers; low is cheap),
    "peer_median"}. `status` limits the peers (the fund itself always counts). None when the fund is
    not in the store; percentile None when it has no charged fee.
    """
    proj_id = store.resolve(str(fund))
    if proj_id is None:
        return None
    rows = store.query(f"SELECT f.proj_id, f.proj_abbr_name, {_POLICY_SQL} AS policy_type, g.total_fee_actual "
                       "FROM funds f LEFT JOIN fund_figures g ON g.proj_id = f.proj_id WHERE f.proj_id = ? LIMIT 1",
                       [proj_id])
    row = rows[0]
    fee = row["total_fee_actual"]
    peers = [r for r in fee_distribution(store, row["policy_type"], status=status) if r["proj_id"] != proj_id]
    answer = {**row, "peers": 0, "cheaper": 0, "same": 0, "percentile": None, "peer_median": None}
    if fee is None:
        answer["peers"] = len(peers)
        return answer
    fees = sorted([r["total_fee_actual"] for r in peers] + [fee])
    cheaper = sum(1 for f in fees if f < fee - 1e-12)
    same = sum(1 for f in fees if abs(f - fee) <= 1e-12)
    middle = len(fees) // 2
    median = fees[middle] if len(fees) % 2 else (fees[middle - 1] + fees[middle]) / 2
    answer.update(peers=len(fees), cheaper=cheaper, same=same,
                  percentile=round(100.0 * (cheaper + same / 2) / len(fees), 4), peer_median=median)
    return answer


def most_held(store: MarketStore, period: str | None = None, *, limit: int | None = 20) -> list[dict]:
    """The securities held by the most funds in a quarter (the latest stored by default).

    A security is its ISIN, else its issue code (as in `overlap`); lines with neither and NAV totals
    are never counted. Rows {"security" (what `holders` takes), "issue_code", "isin_code", "issuer",
    "period", "funds" (funds holding it), "total_value" (baht, summed), "percent_nav_avg" (the mean
    over those funds of each one's share of NAV)}, most funds first, then the largest value.
    """
    quarter = _period(store, period)
    if quarter is None:
        return []
    if limit is not None and int(limit) < 0:
        raise BadInputError("the limit must be 0 or more")
    isin, issue = _clean_sql("isin_code"), _clean_sql("issue_code")
    sql = (f"WITH lines AS (SELECT proj_id, period, upper(coalesce({isin}, {issue})) AS security, {issue} AS issue_code, "
           f"{isin} AS isin_code, {_clean_sql('issuer')} AS issuer, assetliab_value, percent_nav FROM holdings "
           "WHERE period = ? AND NOT coalesce(is_nav_total, FALSE)) "
           "SELECT security, min(issue_code) AS issue_code, min(isin_code) AS isin_code, min(issuer) AS issuer, "
           "any_value(period) AS period, count(DISTINCT proj_id) AS funds, sum(assetliab_value) AS total_value, "
           "sum(percent_nav) / count(DISTINCT proj_id) AS percent_nav_avg FROM lines WHERE security IS NOT NULL "
           "GROUP BY security ORDER BY funds DESC, total_value DESC NULLS LAST, security"
           + (f" LIMIT {int(limit)}" if limit is not None else ""))
    return store.query(sql, [quarter])


def snapshot_state(store: MarketStore, *, now: float | None = None) -> dict:
    """What the dashboard says about the snapshot: how old it is, whether it is whole, whether a sync runs.

    {"has_snapshot", "fetched_at" (the newest dataset swap, ISO), "oldest_fetched_at", "age_s",
    "complete" (every dataset complete), "sync": None, or while a sync runs (in any process)
    {"running", "done", "total" (dataset keys: one per holdings quarter), "dataset" (the one under
    way), "under_way", "calls", "rows", "eta_s", "started_at", "updated_at"}}. Cheap enough to poll.
    """
    now = time.time() if now is None else now
    meta = store.meta()
    stamps = [m["fetched_at"] for m in meta.values() if m["complete"] and m["fetched_at"] is not None]
    newest = max(stamps, default=None)
    complete = bool(meta)
    for name in DATASET_NAMES:
        if name == "holdings":
            parts = [m for key, m in meta.items() if key.startswith("holdings:")]
            complete = complete and bool(parts) and all(m["complete"] for m in parts)
        else:
            complete = complete and bool(meta.get(name) and meta[name]["complete"])
    progress = store.progress(now)
    sync = None
    if progress is not None:
        sync = {"running": True, **{k: progress.get(k) for k in ("done", "total", "dataset", "calls", "rows", "eta_s")},
                "under_way": list(progress.get("under_way") or []),
                "started_at": _iso(progress.get("started_at")), "updated_at": _iso(progress.get("updated_at"))}
    return {"has_snapshot": store.has_snapshot(), "fetched_at": _iso(newest),
            "oldest_fetched_at": _iso(min(stamps, default=None)),
            "age_s": (now - newest) if newest is not None else None, "complete": complete, "sync": sync}


def _iso(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return dt.datetime.fromtimestamp(stamp, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def status(store: MarketStore) -> dict:
    """{"funds", "classes", "datasets": {NAME: {"rows", "fetched_at", "complete"}}, "calls"}."""
    meta = store.meta()
    datasets: dict[str, dict] = {}
    for name in DATASET_NAMES:
        if name == "holdings":
            parts = [m for key, m in meta.items() if key.startswith("holdings:")]
            datasets[name] = {
                "rows": store.count("holdings"),
                "fetched_at": _iso(min((m["fetched_at"] for m in parts if m["fetched_at"] is not None), default=None)),
                "complete": bool(parts) and all(m["complete"] for m in parts),
            }
            continue
        m = meta.get(name)
        datasets[name] = {
            "rows": store.count(name),
            "fetched_at": _iso(m["fetched_at"]) if m else None,
            "complete": bool(m and m["complete"]),
        }
    calls = store.info("last_sync_calls")
    return {"funds": store.count("funds"), "classes": store.count("classes"), "datasets": datasets,
            "calls": int(calls) if calls is not None else 0}


def fund_record(proj_id: str, store: MarketStore | None = None, client: Any = None) -> dict | None:
    """The fund record of `proj_id` without a search: from the store when it holds the fund (with its
    company's names), else the record the client last saw in any search or company answer (sends nothing)."""
    if store is not None:
        record = store.fund(proj_id)
        if record is not None:
            return record
    known = getattr(client, "known_fund", None)
    return known(proj_id) if known is not None else None

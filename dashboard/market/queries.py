"""The questions the market store answers about funds: a screener, the management companies, the market's
risk spectrum and fees by policy type, and one fund's record. Who holds what is in `holdings`, the
store's state in `status`.

Figures per fund follow the models' rules (the first unit class listed; fees as charged, never
prospectus ceilings), computed when fees or performance are swapped in (`fund_figures`). Holdings
rows that are the NAV total (assetliab_id 903) are never counted. Every function takes a store
(the writer) or a reader of the published snapshot (`open_reader`): they read the same tables.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from dashboard.errors import BadInputError, quoted
from dashboard.market.nav_filters import BY_NAME as NAV_FILTER_BY_NAME, NAV_FILTERS as NAV_FILTER_LIST, RETURN_BOUNDS
from dashboard.market.store import MarketStore
from dashboard.records.labels import POLICY_TYPE
from dashboard.records.successor import fund_status_code

SCREEN_FIELDS = ("proj_id", "proj_abbr_name", "proj_name_en", "proj_name_th", "company_name_en", "unique_id",
                 "fund_status", "risk_spectrum", "policy_desc", "proj_retail_type", "tax_incentives",
                 "total_fee_actual", "total_fee_ceiling", "return_1y", "cost_100k_10y")
# From each fund's NAV history (`nav_figures`, its first unit class by name, as the fee figures): the
# figures under their nav_figures keys (the NAV's 1-year return as nav_return_1y, apart from the
# factsheet's published return_1y), the class's last NAV date, and its percentiles among its peers.
NAV_FIELDS = ("nav_class", "last_nav_date", "return_1m", "return_3m", "return_6m", "return_ytd", "nav_return_1y",
              "nav_total_return_1y", "return_3y_ann", "return_5y_ann", "volatility_1y", "max_drawdown_1y", "sharpe_1y",
              "peers", "peer_pct_return_1y", "peer_pct_volatility_1y", "peer_pct_sharpe_1y")
# The peer rule: the funds of the same policy type (as the service words it) and the same risk level,
# every fund in the store (whatever the other filters), among those with the figure. Mid-rank
# percentile, 0-100: 100 * (peers below + peers equal / 2) / peers, the fund counted among its peers;
# high is a high return, a high volatility. No percentile without a policy type or a risk level.
# peer_pct_return_1y ranks the 1-year total return (distributions reinvested): what an investor earned.
PEER_RULE = ("percentile among peers: the funds of the same policy type and risk level (every fund stored, "
             "whatever the filters) that have the figure (the return: the 1-year total return, distributions "
             "reinvested); 100 x (peers below + peers equal / 2) / peers")
MAX_SCREEN_ROWS = 1_000_000  # a LIMIT past every fund of the market; DuckDB's own limit is 64-bit
TAX_NAMES = {"ssf": "SSF", "thaiesg": "ThaiESG", "thai esg": "ThaiESG", "rmf": "RMF"}
_RISK = re.compile(r"^(?:RS)?\s*([1-8])(\+|1)?$", re.I)

# What the first class's charged fees take from 100,000 THB held 10 years at a stated 5 % a year before fees
# (models.fee_drag's rule, the figure market.feeders.cost_column gives): its total expense (fund_figures, the
# models' rule) each year, its front-end fee on buying and back-end fee on selling (the records' fee kind; a
# fee not stated counts as 0). One return for every fund, so the column ranks the fees alone.
COST_AMOUNT, COST_YEARS, COST_RETURN_PCT = 100_000.0, 10, 5.0
_COST_SQL = f"""
{COST_AMOUNT!r} * pow(1 + {COST_RETURN_PCT!r} / 100, {COST_YEARS})
  - {COST_AMOUNT!r} * (1 - coalesce(k.front, 0) / 100)
    * pow((1 + {COST_RETURN_PCT!r} / 100) * (1 - g.total_fee_actual / 100), {COST_YEARS}) * (1 - coalesce(k.back, 0) / 100)
"""
_ONE_OFF_FEES_SQL = """
SELECT e.proj_id,
       min_by(e.actual_value_num, e.seq) FILTER (WHERE e.kind = 'front_end' AND e.actual_value_num IS NOT NULL) AS front,
       min_by(e.actual_value_num, e.seq) FILTER (WHERE e.kind = 'back_end' AND e.actual_value_num IS NOT NULL) AS back
FROM (SELECT proj_id, seq, coalesce(class_abbr_name, '') AS class, actual_value_num,
             json_extract_string(record, '$.fee_kind') AS kind FROM fees) e
JOIN (SELECT proj_id, min(coalesce(class_abbr_name, '')) AS class FROM fees GROUP BY proj_id) c
  ON c.proj_id = e.proj_id AND c.class = e.class
WHERE e.kind IN ('front_end', 'back_end')
GROUP BY e.proj_id
"""
_SCREEN_SQL = f"""
SELECT f.proj_id, f.proj_abbr_name, f.proj_name_en, f.proj_name_th,
       coalesce(nullif(trim(c.comp_name_en), ''), nullif(trim(json_extract_string(f.record, '$.comp_name_en')), ''))
           AS company_name_en,
       f.unique_id, f.fund_status, r.risk_spectrum, f.policy_desc, f.proj_retail_type, f.tax_incentives,
       g.total_fee_actual, g.total_fee_ceiling, g.return_1y, {_COST_SQL} AS cost_100k_10y,
       n.class AS nav_class, n.last_nav_date, n.return_1m, n.return_3m, n.return_6m, n.return_ytd,
       n.return_1y AS nav_return_1y, n.total_return_1y AS nav_total_return_1y, n.return_3y_ann, n.return_5y_ann, n.volatility_1y, n.max_drawdown_1y,
       n.sharpe_1y, n.peers, n.peer_pct_return_1y, n.peer_pct_volatility_1y, n.peer_pct_sharpe_1y
FROM funds f
LEFT JOIN companies c ON c.unique_id = f.unique_id
LEFT JOIN risk r ON r.proj_id = f.proj_id
LEFT JOIN fund_figures g ON g.proj_id = f.proj_id
LEFT JOIN nav_figures n ON n.proj_id = f.proj_id AND n.fund_figure
LEFT JOIN ({_ONE_OFF_FEES_SQL}) k ON k.proj_id = f.proj_id
"""
# --min-return-3y and the like (`nav_filters.NAV_FILTERS`, the one list): its column, and which way it limits.
NAV_FILTERS = {f.name: ("n." + f.column, f.op) for f in NAV_FILTER_LIST}
# Bounds past which a figure filter is a typing slip, not a question (percent; Sharpe a ratio). A drawdown
# is checked by its size: 20 and -20 both mean a fall of at most 20 %.
NAV_BOUNDS = {f.name: f.bounds for f in NAV_FILTER_LIST}
DEFAULT_NAV_BOUNDS = RETURN_BOUNDS


def nav_filter_value(name: str, value: Any, label: str | None = None) -> float | None:
    """One NAV figure filter checked as the screener takes it (None: no filter; a drawdown as a fall, -12.5),
    or a BadInputError naming it by `label` (the command line's option by default: --max-drawdown)."""
    if name not in NAV_FILTERS:
        raise BadInputError(f"no screener filter {name!r}; NAV filters: {', '.join(NAV_FILTERS)}")
    if value is None:
        return None
    option = label or "--" + name.replace("_", "-")
    number = _finite_number(value, option)
    low, high = NAV_BOUNDS[name]
    if not low <= (abs(number) if name == "max_drawdown" else number) <= high:
        what = "a fall from a peak, 0 to 100 percent" if name == "max_drawdown" else f"from {low:g} to {high:g}"
        raise BadInputError(f"{option} {number:g} is out of range ({what})")
    return -abs(number) if name == "max_drawdown" else number  # drawdowns are stored as falls (-12.5)


def _nav_clauses(filters: dict[str, float | None]) -> tuple[list[str], list[float]]:
    """The screener's NAV figure filters as SQL (checked: finite, within sense); unknown names refused."""
    where, params = [], []
    for name, value in filters.items():
        number = nav_filter_value(name, value)
        if number is None:
            continue
        column, op = NAV_FILTERS[name]
        where.append(f"{column} {op} ?")
        params.append(number)
    return where, params


def missing_nav_figures(store: MarketStore, filters: dict[str, Any]) -> list[str]:
    """For each NAV filter given (by name, as `screen` takes them) on a figure no fund in the store has: a sentence
    saying so and how many days of NAV the figure needs (`market sync --nav-days`). Empty when every one has funds."""
    given = [NAV_FILTER_BY_NAME[name] for name, value in filters.items()
             if value is not None and name in NAV_FILTER_BY_NAME]
    if not given:
        return []
    counts = store.query("SELECT " + ", ".join(f"count({f.column}) AS {f.name}" for f in given)
                         + " FROM nav_figures WHERE fund_figure")[0]
    held = store.query("SELECT min(nav_date) AS first, max(nav_date) AS last FROM nav")[0]
    span = (f"the store holds NAVs from {held['first']} to {held['last']}" if held["first"] is not None
            else "the store holds no NAV")
    return [f"no fund in the store has {f.figure} ({f.label.lower()}): it needs about {f.days:,} days of NAV and "
            f"{span}; `sec-dashboard market sync --nav-days {f.days}` keeps enough"
            for f in given if not counts[f.name]]


def _finite_number(value: Any, option: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BadInputError(f"{option} must be a number, not {quoted(str(value))}") from None
    if not math.isfinite(number):
        raise BadInputError(f"{option} must be a finite number")
    return number


_POLICY_SQL = "nullif(trim(f.policy_desc), '')"
SPECTRUM_FIELDS = ("risk_spectrum", "risk_rank", "policy_type", "funds")
FEE_FIELDS = ("policy_type", "funds", "min", "p25", "median", "p75", "max", "mean")


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
           sort: str | None = None, limit: int | None = None, **nav_filters: float | None) -> list[dict]:
    """Funds that pass every filter given, one row per fund (SCREEN_FIELDS, then NAV_FIELDS).

    `nav_filters` are NAV_FILTERS by name (min_return_3y=5.0, max_volatility=15, max_drawdown=-20:
    falls no deeper than 20 %, ...): a fund without the figure does not pass."""
    nav_where, nav_params = _nav_clauses(nav_filters)
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
    where.extend(nav_where)
    params.extend(nav_params)
    order = _order(sort)
    sql = _SCREEN_SQL + (" WHERE " + " AND ".join(where) if where else "") + f" ORDER BY {order}"
    if max_fee is not None and not math.isfinite(float(max_fee)):
        raise BadInputError("--max-fee must be a finite number")
    if max_fee is not None and float(max_fee) < 0:
        raise BadInputError("--max-fee must be 0 or more: no fund charges less than nothing")
    if min_return_1y is not None and not math.isfinite(float(min_return_1y)):
        raise BadInputError("--min-return-1y must be a finite number")
    if limit is not None:
        if not 1 <= int(limit) <= MAX_SCREEN_ROWS:
            raise BadInputError(f"--limit must be from 1 to {MAX_SCREEN_ROWS:,} (the number of funds to list)")
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
    if name not in SCREEN_FIELDS + NAV_FIELDS:
        raise BadInputError(f"cannot sort by {quoted(name)}; fields: {', '.join(SCREEN_FIELDS + NAV_FIELDS)} "
                            "(prefix - for descending)")
    return f"{name} {'DESC' if descending else 'ASC'} NULLS LAST, proj_id"


# ---- the market at a glance (the Market tab) ------------------------------------------------------


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


def fund_record(proj_id: str, store: MarketStore | None = None, client: Any = None) -> dict | None:
    """The fund record of `proj_id` without a search: from the store when it holds the fund (with its
    company's names), else the record the client last saw in any search or company answer (sends nothing)."""
    if store is not None:
        record = store.fund(proj_id)
        if record is not None:
            return record
    known = getattr(client, "known_fund", None)
    return known(proj_id) if known is not None else None

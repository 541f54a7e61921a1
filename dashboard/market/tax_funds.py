"""The funds of the market store that qualify for a tax wrapper (RMF, SSF, Thai ESG, Thai ESGX), ranked by
the figure the investor picks: the fee charged, the 1-year NAV return, or the 1-year volatility.

How the store knows a fund's wrapper: SSF and Thai ESG come from its classes' tax incentive
(`fund_class_tax_incentive_type`, kept as `funds.tax_incentives`). The service has no RMF value (successor-api.md
4.1), so an RMF is known by its name: "เพื่อการเลี้ยงชีพ"
in the Thai name, "Retirement Mutual Fund" or "RMF" in the English name or abbreviation. A Thai ESGX is a Thai ESG
fund whose name says ESGX. Only registered funds (status RG) are offered.
"""

from __future__ import annotations

from dashboard.errors import BadInputError, quoted
from dashboard.market.store import MarketStore

# The figure -> (SQL column, ascending?): a low fee, a high return, a low volatility rank first.
RANK_FIGURES = {
    "fee": ("g.total_fee_actual", True),
    "return": ("n.total_return_1y", False),
    "volatility": ("n.volatility_1y", True),
}
RANK_TITLES = {"fee": "total fee charged (lowest first)", "return": "1-year NAV total return (highest first)",
               "volatility": "1-year volatility (lowest first)"}
WRAPPERS = ("RMF", "SSF", "ThaiESG", "ThaiESGX")
_INCENTIVE = "list_contains(string_split(coalesce(f.tax_incentives, ''), ','), ?)"
_RMF = ("(contains(coalesce(f.proj_name_th, ''), 'เพื่อการเลี้ยงชีพ') "
        "OR contains(lower(coalesce(f.proj_name_en, '')), 'retirement mutual fund') "
        "OR regexp_matches(upper(coalesce(f.proj_abbr_name, '')), '(^|[^A-Z])RMF([^A-Z]|$)'))")
_ESGX = ("(contains(upper(coalesce(f.proj_abbr_name, '')), 'ESGX') "
         "OR contains(upper(coalesce(f.proj_name_en, '')), 'ESGX') "
         "OR contains(upper(coalesce(f.proj_name_en, '')), 'ESG EXTRA'))")
WHERE = {
    "RMF": (_RMF, []),
    "SSF": (_INCENTIVE, ["SSF"]),
    "ThaiESG": (f"{_INCENTIVE} AND NOT {_ESGX}", ["ThaiESG"]),
    "ThaiESGX": (f"{_INCENTIVE} AND {_ESGX}", ["ThaiESG"]),
}
_SQL = """
SELECT f.proj_id, f.proj_abbr_name, f.proj_name_en, f.proj_name_th, f.unique_id,
       coalesce(nullif(trim(c.comp_name_en), ''), nullif(trim(c.comp_name_th), ''), f.unique_id) AS company,
       r.risk_spectrum, g.total_fee_actual, n.total_return_1y AS nav_total_return_1y, n.volatility_1y
FROM funds f
LEFT JOIN companies c ON c.unique_id = f.unique_id
LEFT JOIN risk r ON r.proj_id = f.proj_id
LEFT JOIN fund_figures g ON g.proj_id = f.proj_id
LEFT JOIN nav_figures n ON n.proj_id = f.proj_id AND n.fund_figure
WHERE upper(coalesce(f.fund_status, '')) = 'RG' AND {where}
ORDER BY {column} {direction} NULLS LAST, f.proj_id
LIMIT ?
"""


def qualifying_funds(store: MarketStore, wrapper: str, rank_by: str = "fee", limit: int = 10) -> list[dict]:
    """The registered funds that qualify for `wrapper`, best first by `rank_by` (a fund without the figure
    last), at most `limit`. An unknown wrapper or figure is a BadInputError (one line)."""
    if wrapper not in WHERE:
        raise BadInputError(f"{quoted(wrapper)} is not a tax-advantaged wrapper: use {', '.join(WRAPPERS)}")
    if rank_by not in RANK_FIGURES:
        raise BadInputError(f"cannot rank by {quoted(rank_by)}: use {', '.join(RANK_FIGURES)}")
    if not 1 <= int(limit) <= 1000:
        raise BadInputError("the number of funds listed must be from 1 to 1,000")
    where, params = WHERE[wrapper]
    column, ascending = RANK_FIGURES[rank_by]
    sql = _SQL.format(where=where, column=column, direction="ASC" if ascending else "DESC")
    rows = store.query(sql, [*params, int(limit)])
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
        row["wrapper"] = wrapper
    return rows

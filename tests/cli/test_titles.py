"""The command line's column titles are the dashboard's (present.text.COLUMN_TITLES) but where the command says
more than the dashboard's title does, listed here with why (issue 39, item 5: "fund", "issue", "value (baht)"
beside the Market tab's "Fund", "Issue code", "Value (baht)" for the same columns)."""

from __future__ import annotations

from dashboard.cli import market, output
from dashboard.cli.market_nav import NAV_HEADERS
from dashboard.present.text import COLUMN_TITLES

# Where the command's title says more: which figure is read (the factsheet's return, the NAV's), the assumption a
# cost rests on, the scale of a risk level, and a fee charged, short enough for a terminal's line.
SAYS_MORE = {"total_fee_actual", "cost_100k_10y", "return_1y", "risk_spectrum", *NAV_HEADERS}


def test_the_command_lines_titles_are_the_dashboards_but_where_they_say_more():
    differ = {field: (title, COLUMN_TITLES[field]) for headers in (market.HEADERS, output.HEADERS)
              for field, title in headers.items() if field in COLUMN_TITLES and field not in SAYS_MORE
              and title != COLUMN_TITLES[field]}
    assert differ == {}


def test_market_holders_prints_the_dashboards_titles(tmp_path):
    from dashboard.cli.output import record_table

    rows = [{"proj_id": "M0001_2560", "proj_abbr_name": "DMK-FI", "issuer": "Demo Treasury", "issue_code": "DLB383A",
             "period": "202609", "percent_nav": 14.17698, "assetliab_value": 3092391908.42}]
    header = record_table(rows, market.HOLDER_COLUMNS, headers=market.HEADERS)[0].split()
    assert " ".join(header) == "Fund id Fund Issuer Issue code Quarter % of NAV Value (baht)"

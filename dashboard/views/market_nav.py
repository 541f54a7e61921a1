"""The Market tab's figures from the snapshot's NAV history: the results' NAV columns, the NAV filters'
boxes, and the note under the results (where the figures come from, the peer rule, or how to get them)."""

from __future__ import annotations

from dashboard.present.text import COLUMN_TITLES, esc, fmt_date
from dashboard.views.market_notes import sync_command

# The figures from the snapshot's NAV history (the fund's first unit class), after the factsheet's.
NAV_COLUMNS = ["nav_return_1y", "return_3y_ann", "volatility_1y", "max_drawdown_1y", "sharpe_1y", "peer_pct_return_1y",
               "last_nav_date"]
NAV_PERCENT = ["nav_return_1y", "return_3y_ann", "volatility_1y", "max_drawdown_1y"]
# Their titles, in the table and its download alike: the product's one table of column titles says them.
NAV_TITLES = {column: COLUMN_TITLES[column] for column in NAV_COLUMNS}
# The one title the tab gives beside COLUMN_TITLES, in the table and its download: the factsheet's 1-year
# return, told apart from the NAV's (COLUMN_TITLES says "1-year return (%)" where no NAV return stands beside it).
FACTSHEET_RETURN_TITLES = {"return_1y": "1-year return (factsheet, %)"}

# The NAV filters' boxes: the view's parameter (the text as typed) -> the model's filter, and the box's label.
NAV_BOXES = {"min_return_3y_text": "min_return_3y", "max_volatility_text": "max_volatility",
             "max_drawdown_text": "max_drawdown", "min_sharpe_text": "min_sharpe"}
NAV_BOX_LABELS = {"min_return_3y": "3-year return at least (% a year)", "max_volatility": "Volatility at most (% a year)",
                  "max_drawdown": "Max drawdown at most (%)", "min_sharpe": "Sharpe ratio at least"}
NAV_BOX_WIDTHS = {"min_return_3y": 270, "max_volatility": 230, "max_drawdown": 250, "min_sharpe": 190}  # label whole


def peer_rule_words() -> str:
    """queries.PEER_RULE in plain words."""
    return ("Percentile among peers: where the fund's 1-year return (NAV) sits among the funds of the same policy "
            "type and risk level that have one, every fund of the snapshot counted whatever the filters "
            "(100 is the highest return, 50 the middle; funds equal to it count half).")


def nav_note_html(has_store: bool, nav_funds: int, nav_until: str, demo: bool) -> str:
    """Under the results: where the NAV figures come from and the peer rule, or that the snapshot has no NAV;
    the sync command it names is the one of the dashboard's mode (`demo`: the demo data)."""
    if not has_store:
        return ""
    if not nav_funds:
        command = sync_command(demo, "--nav-days", "400")
        return ('<div class="sd-muted" role="note">This snapshot holds no NAV history, so the NAV figures show a '
                f"dash. Sync the market with daily NAV to see them: <code>{esc(command)}</code> (400 days give the "
                "1-year figures; about 1,100 the 3-year return).</div>")
    until = f" to {esc(fmt_date(nav_until))}" if nav_until else ""
    return (f'<div class="sd-muted" role="note">NAV figures: from the snapshot\'s daily NAV{until} '
            f"({nav_funds:,} funds have them; the first unit class by name; "
            f"<code>{esc(sync_command(demo, '--nav-days', 'N'))}</code> sets "
            "how many days are kept, a 3-year return needs about 1,100). The 3-year return is a "
            f"year's, compounded; volatility, drawdown and Sharpe are over the last year. {esc(peer_rule_words())}</div>")

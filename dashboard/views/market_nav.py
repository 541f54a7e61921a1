"""The Market tab's figures from the snapshot's NAV history: the results' NAV columns, the NAV filters'
boxes, and the note under the results (where the figures come from, the peer rule, or how to get them)."""

from __future__ import annotations

from dashboard.market.nav_filters import ONE_YEAR_DAYS, TAB_FILTERS
from dashboard.present.text import COLUMN_TITLES, esc, fmt_date
from dashboard.views.market_notes import sync_command

# The figures from the snapshot's NAV history (the fund's first unit class), after the factsheet's.
NAV_COLUMNS = ["nav_return_1y", "nav_total_return_1y", "return_3y_ann", "volatility_1y", "max_drawdown_1y", "sharpe_1y",
               "peer_pct_return_1y", "last_nav_date"]
NAV_PERCENT = ["nav_return_1y", "nav_total_return_1y", "return_3y_ann", "volatility_1y", "max_drawdown_1y"]
# Their titles, in the table and its download alike: the product's one table of column titles says them.
NAV_TITLES = {column: COLUMN_TITLES[column] for column in NAV_COLUMNS}
# The one title the tab gives beside COLUMN_TITLES, in the table and its download: the factsheet's 1-year
# return, told apart from the NAV's (COLUMN_TITLES says "1-year return (%)" where no NAV return stands beside it).
FACTSHEET_RETURN_TITLES = {"return_1y": "1-year return (factsheet, %)"}

# The NAV filters' boxes, from the one list of NAV filters (nav_filters.TAB_FILTERS, which the command line and
# the model read too): the view's parameter (the text as typed) -> the model's filter, and the box's label.
NAV_BOXES = {f"{spec.name}_text": spec.name for spec in TAB_FILTERS}
NAV_BOX_LABELS = {spec.name: spec.box_label for spec in TAB_FILTERS}
NAV_BOX_WIDTHS = {spec.name: max(190, 7 * len(spec.box_label) + 20) for spec in TAB_FILTERS}  # the label whole


def peer_rule_words() -> str:
    """queries.PEER_RULE in plain words."""
    return ("Percentile among peers: where the fund's 1-year total return (NAV, distributions reinvested) sits "
            "among the funds of the same policy "
            "type and risk level that have one, every fund of the snapshot counted whatever the filters "
            "(100 is the highest return, 50 the middle; funds equal to it count half).")


def nav_note_html(has_store: bool, nav_funds: int, nav_until: str, demo: bool) -> str:
    """Under the results: where the NAV figures come from and the peer rule, or that the snapshot has no NAV;
    the sync command it names is the one of the dashboard's mode (`demo`: the demo data)."""
    if not has_store:
        return ""
    if not nav_funds:
        command = sync_command(demo, "--nav-days", str(ONE_YEAR_DAYS))
        return ('<div class="sd-muted" role="note">This snapshot holds no NAV history, so the NAV figures show a '
                f"dash. Sync the market with daily NAV to see them: <code>{esc(command)}</code> ({ONE_YEAR_DAYS} days "
                "give every 1-year figure, daily, weekly or monthly NAV; about 1,200 the 3-year return).</div>")
    until = f" to {esc(fmt_date(nav_until))}" if nav_until else ""
    return (f'<div class="sd-muted" role="note">NAV figures: from the snapshot\'s daily NAV{until} '
            f"({nav_funds:,} funds have them; the first unit class by name; "
            f"<code>{esc(sync_command(demo, '--nav-days', 'N'))}</code> sets "
            "how many days are kept, a 3-year return needs about 1,200). The 3-year return is the NAV's price "
            "return, a year's, compounded; volatility and Sharpe are over the last year on the total return, "
            f"the drawdown on the NAV per unit. {esc(peer_rule_words())}</div>")

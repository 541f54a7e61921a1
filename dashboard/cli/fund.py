"""`sec-dashboard fund ...`: fund search, a company's funds, unit classes, a whole factsheet, holdings, NAV."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from dashboard.cli.factsheet import print_factsheet
from dashboard.cli.nav import add_nav_command, run_fund_nav
from dashboard.cli.output import EXIT_OK, emit
from dashboard.cli.service import COMPANY_FINDER, answer, identifier, shared_client
from dashboard.cli.terminal import baht, err, out, terminal_text
from dashboard.errors import quoted
from dashboard.models.source import run


def add_fund_commands(sub, add: Callable[..., argparse.ArgumentParser], as_json) -> None:
    """`fund` and its actions on the command line's subcommands (`add` is the command line's own helper)."""
    fund = sub.add_parser("fund", help="fund factsheets: search, a company's funds, unit classes, a whole factsheet, holdings, NAV history").add_subparsers(dest="fund_command", required=True, metavar="ACTION")
    add(fund, "search", cmd_fund_search, "funds by part of a name or abbreviation", as_json).add_argument("name")
    add(fund, "amc", cmd_fund_amc, "all funds of an asset management company", as_json).add_argument("unique_id")
    add(fund, "classes", cmd_fund_classes, "unit classes by part of an abbreviation", as_json).add_argument("name")
    add(fund, "show", cmd_fund_show, "one fund's whole factsheet", as_json).add_argument("query", help="proj_id or exact abbreviation")
    holdings = add(fund, "holdings", cmd_fund_holdings, "portfolio holdings of one quarter", as_json)
    holdings.add_argument("query", help="proj_id or exact abbreviation")
    holdings.add_argument("--period", help="quarter YYYYMM (default: the latest published)")
    add_nav_command(fund, add, cmd_fund_nav, as_json)
    from dashboard.cli.siblings import add_sibling_commands

    add_sibling_commands(fund, add, as_json)


def cmd_fund_search(args) -> int:
    rows = answer(args, "E1", name=args.name)
    return emit(args, rows or [], "fund", empty_note=f"no fund matches {quoted(args.name)}")


def cmd_fund_amc(args) -> int:
    args.unique_id = identifier(args.unique_id, "company", COMPANY_FINDER)
    rows = answer(args, "E2", unique_id=args.unique_id)
    return emit(args, rows or [], "fund", empty_note=f"no funds are listed for company {args.unique_id} "
                                               "(find a company's id with `licensee search NAME`)")


def cmd_fund_classes(args) -> int:
    rows = answer(args, "E3", name=args.name)
    return emit(args, rows or [], "unit_class", empty_note=f"no unit class matches {quoted(args.name)}")


def resolve_fund(args, query: str) -> tuple[str, dict | None]:
    from dashboard.models.search import FundSearch

    search = FundSearch(client=shared_client(args))
    proj_id = run(search.resolve(query))
    return proj_id, search.fund_record(proj_id)


def cmd_fund_show(args) -> int:
    from dashboard.models.factsheet import FundFactsheet

    proj_id, fund = resolve_fund(args, args.query)
    sheet = FundFactsheet(client=shared_client(args))
    run(sheet.load(proj_id, fund=fund))
    for part, reason in sheet.errors.items():
        err(f"warning: {part} could not be loaded: {reason}")
    if sheet.stale:
        err("warning: some data was served from an expired cache entry (stale)")
    data = sheet.as_dict()
    if args.json and sheet.holdings_note:
        err(f"note: {sheet.holdings_note}")
    has_data = any(v not in (None, [], {}) for k, v in data.items() if k not in ("proj_id", "fund"))
    if not args.json:
        print_factsheet(data, sheet.unpublished, terminal_text(sheet.holdings_note))
        if not has_data:
            err(f"no data: the service has no factsheet data for {proj_id}")
        return EXIT_OK
    return emit(args, data, empty_note="" if has_data else f"the service has no factsheet data for {proj_id}")


def cmd_fund_nav(args) -> int:
    return run_fund_nav(args, shared_client(args), lambda query: resolve_fund(args, query))


def cmd_fund_holdings(args) -> int:
    from dashboard.api.periods import check_period, check_period_any_layout, latest_period

    client = shared_client(args)
    today = client.today
    if args.period:  # a period no layout offers is refused before anything is sent
        check_period_any_layout(args.period, today, client.async_client.layout_name)
    layout = client.layout()
    period = check_period(args.period, today, layout) if args.period else latest_period(today, layout)
    proj_id, _ = resolve_fund(args, args.query)
    from dashboard.models.holdings import split_nav_total

    rows = answer(args, "E6", proj_id=proj_id, period=period) or []
    if not rows and not args.period:
        # The quarter the rules make due has nothing for this fund yet (companies file late): the one before.
        from dashboard.api.periods import late_quarter_note, valid_periods

        due, earlier = period, valid_periods(today, layout)[1:2]
        if earlier:
            previous = answer(args, "E6", proj_id=proj_id, period=earlier[0]) or []
            if previous:
                rows, period = previous, earlier[0]
                err(f"note: {late_quarter_note(due, period)}")
    if args.json:  # every line as sent; the NAV-total line carries "is_nav_total": true
        return emit(args, rows, "holding", empty_note=f"no holdings for {proj_id} in {period}")
    lines, totals = split_nav_total(rows)
    if args.csv:  # the holdings alone, as the readable table shows them
        return emit(args, lines, "holding", empty_note=f"no holdings for {proj_id} in {period}")
    if rows:
        from dashboard.present.text import quarter_text

        err(f"{proj_id} holdings for {quarter_text(period)}")
    emit(args, lines, "holding", empty_note=f"no holdings for {proj_id} in {period}")
    for total in totals:
        out(f"net asset value {baht(total.get('assetliab_value'))} baht (the NAV-total line, asset type 903: "
            "not a holding, not counted above)")
    return EXIT_OK

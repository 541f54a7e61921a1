"""`sec-dashboard fund siblings QUERY` and `fund costs QUERY`: a feeder's sibling feeders and what a class's
fees cost, from the market store's published snapshot (`market sync` fills it)."""

from __future__ import annotations

import argparse
import sys

from dashboard.cli.market import _emit_rows, _readable_store, _store_errors
from dashboard.cli.output import EXIT_OK
from dashboard.cli.terminal import json_text, out, terminal_text
from dashboard.present.siblings import COST_COLUMNS, SIBLING_COLUMNS, costs_summary, matched_text, siblings_summary


def _baht(text: str) -> float:
    """An amount as people write it, "100,000" too (as `plan tax` and `plan dca` take it)."""
    try:
        return float(text.replace(",", "").strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"the amount must be a number of baht, not {text!r}") from None


def add_sibling_commands(fund, add, as_json) -> None:
    siblings = add(fund, "siblings", cmd_fund_siblings, "every fund feeding the same master fund, side by side", as_json)
    siblings.add_argument("query", help="proj_id or exact abbreviation")
    siblings.add_argument("--store", default=None, help=argparse.SUPPRESS)
    costs = add(fund, "costs", cmd_fund_costs, "what a class's fees take from an amount over the years, "
                "against the cheapest sibling, the cheapest class and the peer median", as_json)
    costs.add_argument("query", help="class abbreviation, proj_id or exact fund abbreviation")
    costs.add_argument("--amount", type=_baht, default=None, help="baht (default 100,000)")
    costs.add_argument("--years", type=int, default=None, help="holding period in whole years (default 10)")
    costs.add_argument("--return", dest="return_pct", type=float, default=None,
                       help="yearly return before fees, percent (default: the class's 5-year NAV return, else 5)")
    costs.add_argument("--store", default=None, help=argparse.SUPPRESS)


@_store_errors
def cmd_fund_siblings(args) -> int:
    from dashboard.market.feeders import siblings

    with _readable_store(args) as store:
        data = siblings(store, args.query)
        abbr = store.query("SELECT proj_abbr_name FROM funds WHERE proj_id = ?", [data["fund"]])[0]["proj_abbr_name"]
    if args.json:
        sys.stdout.write(json_text(data) + "\n")
        return EXIT_OK
    rows = [_rounded({**r, "class": r["class"] or "(only class)", "matched_by": matched_text(r["matched_by"])})
            for r in data["rows"]]
    if not getattr(args, "csv", False):
        for line in siblings_summary(data, abbr or data["fund"]):
            out(terminal_text(line))
    return _emit_rows(args, rows, list(SIBLING_COLUMNS), "no sibling feeders")


@_store_errors
def cmd_fund_costs(args) -> int:
    from dashboard.market.feeders import class_costs

    with _readable_store(args) as store:
        data = class_costs(store, args.query, amount=args.amount, years=args.years, return_pct=args.return_pct)
    if args.json:
        sys.stdout.write(json_text(data) + "\n")
        return EXIT_OK
    if not getattr(args, "csv", False):
        out(f"{data['proj_id']} {data['class'] or '(only class)'}")
        for line in costs_summary(data):
            out(line)
    rows = [_rounded({**r, "class": r["class"] if r["class"] is not None else "", }, money=("cost", "final_value",
                                                                                      "extra_cost"))
            for r in data["rows"]]
    return _emit_rows(args, rows, list(COST_COLUMNS), "no fees stored for this class")


def _rounded(row: dict, money: tuple[str, ...] = ()) -> dict:
    """Figures as a reader reads them (JSON keeps them whole): baht to the baht, percentages to 2 decimals."""
    return {k: (round(v) if k in money else round(v, 2)) if isinstance(v, float) else v for k, v in row.items()}

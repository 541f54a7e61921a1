"""`sec-dashboard plan tax ...`: the tax-saving planner on the command line (room left in RMF, SSF, Thai ESG and
Thai ESGX, the tax it saves, the earliest sale day, the qualifying funds from the market store).

Exit codes as every command: 0 done, 2 bad input (one line, nothing written to stdout).
"""

from __future__ import annotations

import argparse
import sys

from dashboard.cli.output import EXIT_OK
from dashboard.cli.terminal import err, json_text, out, table_lines

FUNDS_DEFAULT = 5


def _funds(args: argparse.Namespace, result) -> tuple[dict[str, list[dict]], str]:
    """The qualifying funds of each wrapper that can still be bought (empty, with a note, without a snapshot)."""
    if args.funds == 0:
        return {}, ""
    from dashboard.cli.market import _store
    from dashboard.market.tax_funds import qualifying_funds

    store = _store(args, read_only=True)
    try:
        if not store.has_snapshot():
            return {}, "no market snapshot yet: run `sec-dashboard market sync` to list the funds that qualify"
        return {w.key: qualifying_funds(store, w.key, args.rank_by, args.funds)
                for w in result.wrappers if w.can_buy and w.room > 0}, ""
    finally:
        store.close()


def checked_report_path(args: argparse.Namespace):
    """The `--report` file, checked before any work (its directory exists and takes a file); None without one."""
    if getattr(args, "report", None) is None:
        return None
    from dashboard.cli.report import output_path

    return output_path(args.report)


def write_html_report(html_text: str, output) -> None:
    """Write a report as the `report` command does: whole (renamed into place), then say where on stderr."""
    from dashboard.cli.report import _size, output_path
    from dashboard.errors import BadInputError
    from dashboard.reports.document import write_report

    output = output_path(str(output))  # the directory may have changed while the plan was made
    try:
        path = write_report(html_text, output)
    except OSError as exc:
        raise BadInputError(f"cannot write {output}: {exc.strerror or exc}") from None
    err(f"wrote {path} ({_size(path.stat().st_size)})")


def cmd_plan_tax(args: argparse.Namespace) -> int:
    from dashboard.models.tax_plan import plan

    report = checked_report_path(args)
    result = plan(args.year, args.income, provident_fund=args.provident_fund,
                  government_pension_fund=args.government_pension_fund, pension_insurance=args.pension_insurance,
                  national_savings_fund=args.national_savings_fund, rmf_bought=args.rmf_bought,
                  ssf_bought=args.ssf_bought, thai_esg_bought=args.thai_esg_bought,
                  thai_esgx_bought=args.thai_esgx_bought, taxable_income=args.taxable_income,
                  purchase_day=args.on, first_rmf_purchase=args.first_rmf, birth_date=args.born)
    funds, note = _funds(args, result)
    if report is not None:
        from dashboard.cli.market import _settings
        from dashboard.reports.plan import plan_document

        write_html_report(plan_document(_settings(args), tax=result, funds=funds if args.funds else None,
                                        rank_by=args.rank_by, funds_note=note[:1].upper() + note[1:]).render(), report)
    if args.json:
        data = result.as_dict()
        data["funds"] = {"rank_by": args.rank_by, "by_wrapper": funds, "note": note or None}
        sys.stdout.write(json_text(data) + "\n")
        return EXIT_OK
    for line in plan_lines(result, funds, args.rank_by):
        out(line)
    if note:
        err(f"note: {note}")
    return EXIT_OK


def plan_lines(result, funds: dict[str, list[dict]], rank_by: str) -> list[str]:
    """The plan as readable lines (the note first: an estimate, and the date of the rules)."""
    from dashboard.market.tax_funds import RANK_TITLES

    r = result.rules
    how = "estimated for a salaried person" if result.taxable_estimated else "as given"
    lines = [f"Tax-saving plan, tax year {r.year}. {r.note}", "",
             f"Assessable income {result.income:,.0f} baht; taxable income {result.taxable:,.0f} ({how}); "
             f"income tax {result.tax_now:,.0f}; marginal rate {result.marginal_rate:g} %.",
             f"Shared retirement ceiling {r.retirement_ceiling:,.0f}: {result.shared_claimed:,.0f} claimed, "
             f"{result.shared_room:,.0f} left.", ""]
    day = result.wrappers[0].purchase_day if result.wrappers else None
    rows = [[w.name, f"{w.room:,.0f}", w.binding, f"{w.tax_saved:,.0f}", w.holding,
             w.earliest_sale.isoformat() if w.earliest_sale else w.sale_rule] for w in result.wrappers]
    lines += table_lines(rows, ["Wrapper", "Room left (baht)", "Limit that binds", "Tax saved (baht)", "Holding rule",
                                f"Earliest sale (bought {day})"], right=[1, 3], limit=90)
    lines += ["", f"Everything at once: {result.all_room:,.0f} baht of room saves {result.all_tax_saved:,.0f} baht "
                  "(RMF and SSF share the retirement ceiling)."]
    for w in result.wrappers:
        if w.earliest_sale and w.sale_rule and w.key == "RMF":
            lines.append(f"RMF sale: {w.sale_rule}.")
    if r.left_out:
        lines += ["", "Not in this year's plan:"] + [f"  - {text}" for text in r.left_out]
    for key, rows_ in funds.items():
        name = next(w.name for w in result.wrappers if w.key == key)
        lines += ["", f"{name}: funds that qualify, by {RANK_TITLES[rank_by]}"]
        if not rows_:
            lines.append("  (none in the market store)")
            continue
        lines += ["  " + line for line in table_lines(
            [[row["rank"], row["proj_abbr_name"], row["company"], _pct(row["total_fee_actual"]),
              _pct(row["nav_total_return_1y"]), _pct(row["volatility_1y"])] for row in rows_],
            ["#", "Fund", "Company", "Total fee (%)", "1-year return (%)", "1-year volatility (%)"],
            right=[0, 3, 4, 5])]
    sources = {s.key: s for w in result.wrappers for s in w.sources} | {r.bracket_source.key: r.bracket_source}
    lines += ["", "Sources:"] + [f"  - {s.publisher}: {s.title} <{s.url}> (read {s.read_on}; {s.kind} source)"
                                 for s in sources.values()]
    return lines


def _pct(value) -> str:
    import math

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.2f}"


def _amount(text: str) -> float:
    try:
        return float(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an amount in baht (write 1200000 or 1,200,000)") from None


def _funds_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 to 100 funds a wrapper")
    return value


def add_plan_commands(subparsers, add):
    """Add `plan` and its `tax` action to the main parser's subcommands (`add` is main's helper); returns
    the `plan` actions, for the other plans (`plan dca`)."""
    plan = subparsers.add_parser("plan", help="tax-saving and regular-investing plans")
    actions = plan.add_subparsers(dest="plan_command", required=True, metavar="PLAN")
    tax = add(actions, "tax", cmd_plan_tax, "room left in RMF, SSF, Thai ESG; the tax it saves; qualifying funds")
    tax.add_argument("--year", required=True, help="the tax year (one the rules table holds)")
    tax.add_argument("--income", required=True, type=_amount, help="assessable income of the year, baht")
    for option, dest, what in (("--provident-fund", "provident_fund", "provident fund contributions"),
                               ("--gpf", "government_pension_fund", "government pension fund contributions"),
                               ("--pension-insurance", "pension_insurance", "pension life insurance premiums"),
                               ("--nsf", "national_savings_fund", "national savings fund contributions"),
                               ("--rmf-bought", "rmf_bought", "RMF already bought"),
                               ("--ssf-bought", "ssf_bought", "SSF already bought (tax years to 2024)"),
                               ("--thai-esg-bought", "thai_esg_bought", "Thai ESG already bought"),
                               ("--thai-esgx-bought", "thai_esgx_bought", "Thai ESGX already bought (2025)")):
        tax.add_argument(option, dest=dest, type=_amount, default=0.0, help=f"{what} this year, baht")
    tax.add_argument("--taxable-income", type=_amount, default=None,
                     help="taxable income after expenses and allowances (default: estimated for a salaried person)")
    tax.add_argument("--on", default=None, metavar="YYYY-MM-DD", help="the day of the purchase (default today, within the year)")
    tax.add_argument("--first-rmf", default=None, metavar="YYYY-MM-DD", help="the day of the first RMF purchase")
    tax.add_argument("--born", default=None, metavar="YYYY-MM-DD", help="birth date (for RMF's age-55 rule)")
    tax.add_argument("--rank-by", choices=("fee", "return", "volatility"), default="fee",
                     help="rank the qualifying funds by fee, 1-year NAV return or volatility (default fee)")
    tax.add_argument("--funds", type=_funds_count, default=FUNDS_DEFAULT,
                     help=f"funds listed a wrapper, 0 for none (default {FUNDS_DEFAULT})")
    tax.add_argument("--json", action="store_true", help="print JSON instead of a table")
    tax.add_argument("--report", metavar="FILE", help="also write the plan as a self-contained HTML report")
    tax.add_argument("--store", default=None, help=argparse.SUPPRESS)
    return actions

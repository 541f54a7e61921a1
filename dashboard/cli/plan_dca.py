"""`sec-dashboard plan dca QUERY --monthly N --from D`: a monthly plan simulated on a unit class's real NAVs.

Readable: what was simulated, the figures of the monthly plan beside the lump sum (and another class's,
`--compare`), and that it is an estimate. `--json`: the plan, the figures, the purchases, the distributions
and the value on every NAV day. `--csv`: the value over time. The conventions: docs/dca.md; the model:
`models.dca`.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pandas as pd

from dashboard.api.doctor import without_endpoint_code
from dashboard.api.nav import as_day, clean_class
from dashboard.cli.output import EXIT_OK
from dashboard.cli.terminal import err, json_text, out, table_lines, write_csv
from dashboard.errors import BadInputError, SecApiError, quoted
from dashboard.models.dca import ESTIMATE_NOTE, FEE_BOUNDS, POLICIES, DcaPlan, DcaResult, front_end_fee, simulate
from dashboard.models.nav import EMPTY, MAX_YEARS, FundNav
from dashboard.models.source import run
from dashboard.present.nav import NAV_COLUMN_TITLES
from dashboard.present.text import column_title

DESCRIPTION = ("A regular-investing plan simulated on a unit class's daily NAVs: N baht on a day of each month "
               "(bought at the first NAV on or after it), the front-end fee on top of the NAV, distributions paid "
               "or reinvested, the value over time and the money-weighted return (XIRR), beside putting the same "
               f"total in at the start. {ESTIMATE_NOTE} Details: docs/dca.md.")


def add_dca_command(plan, add: Callable[..., argparse.ArgumentParser], handler: Callable, as_json) -> None:
    """`plan dca` on the `plan` subcommands (`add` is the command line's own helper)."""
    dca = add(plan, "dca", handler, "a monthly investing plan simulated on a class's real NAVs", as_json)
    dca.description = DESCRIPTION
    dca.add_argument("query", help="proj_id or exact abbreviation")
    dca.add_argument("--class", dest="class_name", metavar="C", help="the unit class (default: the fund's first)")
    dca.add_argument("--monthly", required=True, metavar="N", help="baht put in each month, e.g. 5000")
    dca.add_argument("--from", dest="date_from", required=True, metavar="D",
                     help="the first day a purchase may be made, YYYY-MM-DD")
    dca.add_argument("--to", dest="date_to", metavar="D", help="the last day, YYYY-MM-DD (default: the last NAV)")
    dca.add_argument("--day", default="1", metavar="N", help="the day of the month of each purchase, 1 to 31 "
                                                               "(default 1; 31 is a short month's last day)")
    dca.add_argument("--fee", metavar="PCT", help="the front-end fee, percent (default: the class's published fee)")
    dca.add_argument("--distributions", choices=POLICIES,
                     help="paid to you in cash or reinvested (default: as the class does: paid)")
    dca.add_argument("--compare", metavar="QUERY", help="another fund (proj_id or abbreviation) simulated side by side")
    dca.add_argument("--compare-class", dest="compare_class", metavar="C", help="the other fund's class "
                                                                                 "(default: its first)")
    dca.add_argument("--report", metavar="FILE", help="also write the plan as a self-contained HTML report")


# ---- input -------------------------------------------------------------------------------------------------


MAX_MONTHLY = 1_000_000_000  # a billion baht a month: past any saver's plan, a typing slip


def _number(text: str, what: str) -> float:
    try:
        value = float(str(text).strip().replace(",", ""))
    except ValueError:
        raise BadInputError(f"the {what} {quoted(str(text))} is not a number") from None
    if not math.isfinite(value):
        raise BadInputError(f"the {what} {quoted(str(text))} is not a number")
    return value


def _whole(text: str, what: str) -> int:
    value = _number(text, what)
    if value != int(value):
        raise BadInputError(f"the {what} {quoted(str(text))} is not a whole number")
    return int(value)


def read_plan(args: argparse.Namespace, today: date) -> DcaPlan:
    """The plan as typed, refused (exit 2) before anything is sent when it cannot be one."""
    monthly = _number(args.monthly, "monthly amount")
    if monthly <= 0:
        raise BadInputError(f"the monthly amount {args.monthly} is not more than 0 baht")
    if monthly > MAX_MONTHLY:
        raise BadInputError(f"the monthly amount {monthly:,.0f} baht is more than {MAX_MONTHLY:,} baht: check the figure")
    day = _whole(args.day, "day of the month")
    if not 1 <= day <= 31:
        raise BadInputError(f"the day of the month {args.day} is not 1 to 31")
    fee = None if args.fee is None else _number(args.fee, "front-end fee")
    if fee is not None and not FEE_BOUNDS[0] <= fee <= FEE_BOUNDS[1]:
        raise BadInputError(f"the front-end fee {args.fee} % is not {FEE_BOUNDS[0]:g} to {FEE_BOUNDS[1]:g} %")
    first = as_day(args.date_from, "from")
    last = as_day(args.date_to, "to") if args.date_to is not None else None
    for what, value in (("from", first), ("to", last)):
        if value is not None and value > today:
            raise BadInputError(f"the {what} date {value} is in the future (today is {today}); NAVs exist up to yesterday")
    if last is not None and last < first:
        raise BadInputError(f"the to date {last} is before the from date {first}")
    earliest = date(today.year - MAX_YEARS, 1, 1)  # the NAV history a load reaches (and each year costs calls)
    if first < earliest:
        raise BadInputError(f"the from date {first} is before {earliest}: the plan looks back {MAX_YEARS} years at most")
    return DcaPlan(monthly=monthly, start=first, end=last, day=day, front_end_pct=fee if fee is not None else -1.0,
                   distributions=args.distributions)


# ---- the run -------------------------------------------------------------------------------------------------


def run_plan_dca(args: argparse.Namespace, client, resolve: Callable[[str], tuple[str, dict | None]]) -> int:
    from dashboard.cli.plan import checked_report_path, write_html_report
    from dashboard.present import dca as present  # (here, not above: it imports HoloViews and Panel, which every
    # command paid for when `dashboard.cli.main` imported this module: 2-3 s of CPU a command)

    report = checked_report_path(args)
    plan = read_plan(args, client.today)
    results, sources = [], []
    for query, class_name in ((args.query, args.class_name), (args.compare, args.compare_class)):
        if query is None:
            continue
        result, source = _simulate_class(client, resolve, query, class_name, plan)
        results.append(result)
        sources.append(source)
    for result in results:
        for note in result.notes:
            err(f"note: {note}")
    if report is not None:
        from dashboard.reports.plan import plan_document

        write_html_report(plan_document(client.settings, dca=results, fee_sources=sources).render(), report)
    if args.csv:
        frame = present.values_frame(results)
        frame["nav_date"] = frame["nav_date"].dt.date
        titles = {**{c: column_title(c) for c in frame.columns}, **NAV_COLUMN_TITLES}
        write_csv(frame.rename(columns=titles))
        err(f"note: {ESTIMATE_NOTE}")
        return EXIT_OK
    if args.json:
        sys.stdout.write(json_text({"note": ESTIMATE_NOTE, "classes": [_as_json(r, s) for r, s in zip(results, sources)]})
                         + "\n")
        return EXIT_OK
    _print(results, sources)
    return EXIT_OK


def _simulate_class(client, resolve, query: str, class_name: str | None, plan: DcaPlan) -> tuple[DcaResult, str]:
    """One class's simulation: its NAVs from a month before the plan (the class's first NAV is then in view when it
    launched later), its published front-end fee unless one was given."""
    proj_id, fund = resolve(query)
    model = FundNav(client, class_name=clean_class(class_name or ""))
    start = plan.start - timedelta(days=31)
    run(model.load(proj_id, start=date(start.year, start.month, 1)))
    if model.state == EMPTY:
        raise BadInputError(f"{proj_id} has no NAV from {plan.start}: {model.error}")
    if model.failure is not None:
        raise model.failure
    if model.error and class_name:
        same = [name for name in model.classes() if name.casefold() == clean_class(class_name).casefold()]
        if len(same) == 1:
            model.class_name = same[0]
    if model.error:
        raise BadInputError(model.error)
    name = model.selected_class() or ""
    history = model.history.classes[name]
    label = name or (fund or {}).get("proj_abbr_name") or proj_id
    fee, source = plan.front_end_pct, "as given"
    if fee < 0:
        published = _published_fee(client, proj_id, name)
        fee, source = (published, "the class's published fee") if published is not None else (0.0, "none published")
    mine = DcaPlan(**{**plan.__dict__, "front_end_pct": fee})
    return simulate(history.nav, history.dividends, mine, label=label), source


def _published_fee(client, proj_id: str, class_name: str) -> float | None:
    """The class's front-end fee from the factsheet's fees (E12); None, with a warning, when they cannot be read."""
    from dashboard.models.endpoint import EndpointAnswer

    try:
        records = run(EndpointAnswer(client=client).fetch("E12", proj_id=proj_id))
    except SecApiError as exc:
        err(f"warning: the fund's fees could not be loaded ({without_endpoint_code(str(exc))}); no front-end fee used")
        return None
    return front_end_fee(records or [], class_name)


# ---- output ------------------------------------------------------------------------------------------------


def _iso(value: Any) -> str | None:
    return None if value is None or pd.isna(value) else pd.Timestamp(value).date().isoformat()


def _records(frame: pd.DataFrame, dates: tuple[str, ...]) -> list[dict]:
    def cell(key, value):
        if key in dates:
            return _iso(value)
        if isinstance(value, str):
            return value
        return None if value is None or pd.isna(value) else float(value)
    return [{k: cell(k, v) for k, v in row.items()} for row in frame.to_dict("records")]


def _outcome_json(outcome) -> dict:
    from dashboard.present import dca as present

    return {"figures": present.figure_values(outcome), "end_date": outcome.end_date.isoformat(), "end_nav": outcome.end_nav,
            "purchases": _records(outcome.purchases, ("planned", "nav_date")),
            "distributions": _records(outcome.distributions, ("ex_date", "pay_date")),
            "flows": [{"date": d.isoformat(), "amount": a} for d, a in outcome.flows()]}


def _as_json(result: DcaResult, fee_source: str) -> dict:
    from dashboard.present import dca as present

    plan = result.plan
    return {"class": result.label, "plan": {"monthly": plan.monthly, "day": plan.day, "from": plan.start.isoformat(),
                                            "to": plan.end.isoformat() if plan.end else None,
                                            "front_end_pct": plan.front_end_pct, "front_end_source": fee_source,
                                            "distributions": result.policy},
            "monthly": _outcome_json(result.regular), "lump_sum": _outcome_json(result.lump_sum),
            "values": _records(present.values_frame([result]).drop(columns="class_abbr_name"), ("nav_date",)),
            "notes": list(result.notes)}


def _print(results: list[DcaResult], sources: list[str]) -> None:
    from dashboard.present import dca as present

    for result, source in zip(results, sources):
        out(present.plan_text(result, source))
    out("")
    frame = present.figures_frame(results)
    titles = present.column_titles(results)
    rows = frame.to_numpy().tolist()
    for line in table_lines(rows, [titles[c] for c in frame.columns], right=range(1, len(frame.columns)), limit=60):
        out(line)
    out("")
    out(ESTIMATE_NOTE)


def cmd_plan_dca(args: argparse.Namespace) -> int:
    from dashboard.cli.fund import resolve_fund
    from dashboard.cli.service import shared_client

    return run_plan_dca(args, shared_client(args), lambda query: resolve_fund(args, query))

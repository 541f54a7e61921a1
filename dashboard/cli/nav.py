"""`sec-dashboard fund nav QUERY`: a fund's NAV history per unit class and the figures computed from it.

Readable: per class the last NAV, the figures beside the factsheet's published ones, the gaps, the
distributions, the calendar years and the notes of the fetch. `--json`: per class its series, gaps,
distributions and every figure under its key (`ClassFigures.to_dict`). `--csv`: the series, labelled.
The conventions are in docs/nav-figures.md; the model is `models.nav.FundNav`.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from datetime import date
from typing import Any

import pandas as pd

from dashboard.api.doctor import without_endpoint_code
from dashboard.api.nav import as_day, clean_class
from dashboard.cli.output import EXIT_OK
from dashboard.cli.terminal import err, json_text, out, plain, table_lines, write_csv
from dashboard.config import RISK_FREE_ENV, parse_risk_free_pct, risk_free_pct_from_env
from dashboard.errors import BadInputError, SecApiError
from dashboard.models.nav import DEFAULT_YEARS, EMPTY, MAX_YEARS, FundNav, load_start
from dashboard.models.nav_figures import GAP_DAYS, ClassFigures, gaps
from dashboard.models.source import run
from dashboard.present.nav import (NAV_COLUMN_TITLES, day_text, figure_rows, fmt_value, gap_text, nav_table_frame,
                                   published_as_of, published_for_class, recovery_text)
from dashboard.present.text import fmt_percent

RISK_FREE_HELP = (f"the risk-free rate of the Sharpe ratios, percent a year, e.g. 2.5 (default: {RISK_FREE_ENV}, "
                  "else 0)")
DESCRIPTION = ("A fund's daily NAV per unit class, with the returns and risks computed from it beside the factsheet's "
               "published figures. Windows run back from each class's last NAV; returns beyond a year are annualised; "
               f"the Sharpe ratio uses --risk-free PCT or {RISK_FREE_ENV} (percent a year, default 0). "
               "Details: docs/nav-figures.md.")


def add_nav_command(fund, add: Callable[..., argparse.ArgumentParser], handler: Callable, as_json) -> None:
    """`fund nav` on the `fund` subcommands (`add` is the command line's own helper)."""
    nav = add(fund, "nav", handler, "a fund's NAV history per unit class, with its returns and risks", as_json)
    nav.description = DESCRIPTION
    nav.add_argument("query", help="proj_id or exact abbreviation")
    nav.add_argument("--class", dest="class_name", metavar="C", help="one unit class (default: every class)")
    nav.add_argument("--from", dest="date_from", metavar="D", help="first NAV date shown, YYYY-MM-DD (inclusive; "
                                                                    "default: five years back); it never moves a figure")
    nav.add_argument("--to", dest="date_to", metavar="D", help="last NAV date shown, YYYY-MM-DD (inclusive; default: "
                                                                "the latest); the figures are measured up to it")
    nav.add_argument("--since-launch", action="store_true",
                     help="load each class's whole history, so the figures since the first NAV are since launch "
                          "(default: five years and two months back from --to; the label then says the date "
                          "they start from)")
    nav.add_argument("--risk-free", dest="risk_free", metavar="PCT", help=RISK_FREE_HELP)


def _risk_free(args: argparse.Namespace) -> float:
    if args.risk_free is not None:
        return parse_risk_free_pct(args.risk_free, "--risk-free")
    return risk_free_pct_from_env()


def _window(args: argparse.Namespace, today: date) -> tuple[date | None, date | None]:
    """--from and --to as dates, refused (exit 2) when either is in the future or from is after to."""
    given = {what: as_day(value, what) for what, value in (("from", args.date_from), ("to", args.date_to))
             if value is not None}
    for what, day in given.items():
        if day > today:
            raise BadInputError(f"the {what} date {day} is in the future (today is {today}); NAVs exist up to yesterday")
    first, last = given.get("from"), given.get("to")
    if first is not None and last is not None and first > last:
        raise BadInputError(f"the from date {first} is after the to date {last}")
    return first, last


def _chosen_class(model: FundNav, asked: str) -> None:
    """The class asked for, read as the service spells it; a class typed in another case is found too."""
    if model.error and asked:
        same = [name for name in model.classes() if name.casefold() == asked.casefold()]
        if len(same) == 1:
            model.class_name = same[0]


def run_fund_nav(args: argparse.Namespace, client, resolve: Callable[[str], tuple[str, dict | None]]) -> int:
    """The command: checks the input before anything is sent, loads through FundNav, prints."""
    rate = _risk_free(args)
    first, last = _window(args, client.today)
    proj_id, fund = resolve(args.query)
    since_launch = bool(getattr(args, "since_launch", False))
    # The figures read five years and two months back from the day they are measured to (--to), or the whole
    # history: never what --from shows. The load reaches the December before the first year of the figures and
    # of the series shown, so a calendar year is whole unless the class was launched in it; it never depends
    # on --from past that.
    figures_from = None if since_launch else load_start(last or client.today, DEFAULT_YEARS)
    shown_from = first or figures_from
    start = None if since_launch else date(min(figures_from, shown_from).year - 1, 12, 1)
    if start is not None and start < date(client.today.year - MAX_YEARS, 1, 1):
        raise BadInputError(f"the from date {first} is more than {MAX_YEARS} years back; use --since-launch for "
                            "the whole history")
    model = FundNav(client, class_name=clean_class(args.class_name or ""), risk_free_pct=rate,
                    figures_from=figures_from)
    run(model.load(proj_id, start=start, since_launch=since_launch))
    _chosen_class(model, clean_class(args.class_name or ""))
    if model.state == EMPTY:
        return _nothing(args, proj_id, model)
    if model.failure is not None:
        raise model.failure
    if model.error:  # a class the fund does not have
        raise BadInputError(model.error)
    names = [model.selected_class()] if args.class_name else model.classes()
    published = _published(client, proj_id)
    classes = {name: _class_data(model, name, shown_from, last, published) for name in names}
    for note in model.notes:  # what the fetch noticed, on stderr whatever the output's form
        err(f"note: {note}")
    if args.csv:
        return _write_csv(model, classes)
    if args.json:
        sys.stdout.write(json_text(_as_json(model, fund, classes, first, last, figures_from)) + "\n")
        return EXIT_OK
    _print(model, fund, classes)
    return EXIT_OK


def _nothing(args: argparse.Namespace, proj_id: str, model: FundNav) -> int:
    err(f"no data: {model.error}")
    if args.csv:
        write_csv(pd.DataFrame(columns=["Unit class", *NAV_COLUMN_TITLES.values()]))
    elif args.json:
        sys.stdout.write(json_text({"proj_id": proj_id, "classes": {}, "notes": [model.error]}) + "\n")
    return EXIT_OK


def _published(client, proj_id: str) -> list[dict] | None:
    """The factsheet's performance records (E10); None, with a warning, when they cannot be read."""
    from dashboard.models.endpoint import EndpointAnswer

    try:
        records = run(EndpointAnswer(client=client).fetch("E10", proj_id=proj_id))
    except SecApiError as exc:
        err(f"warning: the factsheet's published figures could not be loaded ({without_endpoint_code(str(exc))}); "
            "shown without them")
        return None
    return [r for r in records or [] if isinstance(r, dict)]


def _class_data(model: FundNav, name: str, first: date | None, last: date | None, published) -> dict[str, Any]:
    """One class's part of the output: its series and distributions within --from/--to, its figures up to --to."""
    model.class_name = name
    history = model.history.classes[name]
    nav, dividends = history.nav, history.dividends
    lo, hi = pd.Timestamp(first or date.min), pd.Timestamp(last or date.max)
    shown = nav[(nav["nav_date"] >= lo) & (nav["nav_date"] <= hi)].reset_index(drop=True)
    figures = model.figures(as_of=last)
    mine = published_for_class(published, name) if published is not None else None
    as_of = published_as_of(mine)
    rows = figure_rows(figures, mine, at_published=model.figures(as_of=as_of) if as_of else None) if figures else []
    return {
        "history": history, "series": shown, "figures": figures, "rows": rows, "published_as_of": as_of,
        "gaps": gaps(shown, history.frequency) if len(shown) else [],
        "distributions": dividends[(dividends["ex_date"] >= lo) & (dividends["ex_date"] <= hi)].reset_index(drop=True),
        "years": [y for y in model.calendar_years() if not shown.empty
                  and shown["nav_date"].iloc[0].year <= y.year <= shown["nav_date"].iloc[-1].year],
        "reason": "" if figures is not None else (model.message() or f"no NAV on or before {last}"),
    }


# ---- output ------------------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _iso(value: Any) -> str | None:
    return None if value is None or pd.isna(value) else pd.Timestamp(value).date().isoformat()


def _records(frame: pd.DataFrame, dates: tuple[str, ...]) -> list[dict]:
    return [{k: (_iso(v) if k in dates else _number(v)) for k, v in row.items()} for row in frame.to_dict("records")]


def _as_json(model: FundNav, fund: dict | None, classes: dict, first: date | None, last: date | None,
             figures_from: date | None) -> dict:
    out_classes = {}
    for name, data in classes.items():
        figures: ClassFigures | None = data["figures"]
        out_classes[name] = {
            "class_name": name, "frequency": data["history"].frequency,
            **({k: v for k, v in figures.to_dict().items() if k != "gaps"} if figures else
               {"figures": {}, "reason": data["reason"]}),
            "series": _records(data["series"], ("nav_date",)),
            "gaps": [gap.to_dict() for gap in data["gaps"]],
            "distributions": _records(data["distributions"], ("ex_date", "pay_date")),
            # The difference beside the two values it is taken from: the figure computed to the factsheet's
            # date and the published one.
            "published": {row.key: {"value": row.raw_published, "as_of": _iso(data["published_as_of"]),
                                    "computed_to_as_of": row.raw_compared,
                                    "difference": None if row.raw_compared is None or row.raw_published is None
                                    else row.raw_compared - row.raw_published}
                          for row in data["rows"] if row.published},
            "calendar_years": [year.to_dict() for year in data["years"]],
        }
    return {"proj_id": model.proj_id, "fund": (fund or {}).get("proj_abbr_name"),
            "from": first.isoformat() if first else None, "to": last.isoformat() if last else None,
            "figures_from": figures_from.isoformat() if figures_from else None, "since_launch": model.since_launch,
            "risk_free_pct": float(model.risk_free_pct), "loaded": {"start": model.history.start.isoformat(),
                                                                     "end": model.history.end.isoformat()},
            "notes": list(model.notes), "classes": out_classes}


def _write_csv(model: FundNav, classes: dict) -> int:
    frames = []
    for name, data in classes.items():
        frame = nav_table_frame(model.history, name)
        shown = frame[frame[NAV_COLUMN_TITLES["nav_date"]].isin(data["series"]["nav_date"])]
        frames.append(shown.assign(**{"Unit class": name})[["Unit class", *frame.columns]])
    write_csv(pd.concat(frames, ignore_index=True))
    return EXIT_OK


def _class_title(name: str) -> str:
    return f"class {name}" if name else "the fund (no unit classes)"


def _print(model: FundNav, fund: dict | None, classes: dict) -> None:
    title = (fund or {}).get("proj_abbr_name")
    out(f"{title} ({model.proj_id})" if title else model.proj_id)
    for name, data in classes.items():
        out("")
        _print_class(name, data, float(model.risk_free_pct))


def _print_class(name: str, data: dict, risk_free: float) -> None:
    series, history = data["series"], data["history"]
    out(_class_title(name).upper())
    if series.empty:
        out(f"  no NAV between the dates asked for ({history.frequency} NAVs from "
            f"{day_text(history.nav['nav_date'].iloc[0].date())} to {day_text(history.nav['nav_date'].iloc[-1].date())})")
        return
    end = series.iloc[-1]
    out(f"  last NAV {plain(end['nav'])} baht per unit on {day_text(end['nav_date'].date())} "
        f"({len(series)} {history.frequency} NAVs from {day_text(series['nav_date'].iloc[0].date())})")
    _print_figures(data, risk_free)
    _print_gaps(data["gaps"], history.frequency)
    _print_distributions(data["distributions"])
    _print_years(data["years"])


def _print_figures(data: dict, risk_free: float) -> None:
    rows = data["rows"]
    if not rows:
        out(f"  no figures: {data['reason'] or 'too little history'}")
        return
    out("")
    for line in table_lines([[r.label, r.window, r.value, _drawdown_words(data["figures"], r.key)] for r in rows],
                            ["Figure", "Window", "Value", "Recovering period"], right=(2,), limit=80):
        out(f"  {line.rstrip()}")
    if data["figures"] is not None and data["figures"].distributes:
        out("  the class distributes: its total return (distributions reinvested at the first NAV on or after each "
            "ex date) comes first; the price return is the NAV's change alone")
    out(f"  Sharpe ratios with a risk-free rate of {fmt_percent(risk_free, 2)} a year")
    _print_published(data)
    reasons: dict[str, list[str]] = {}
    for row in rows:
        if row.raw is None and row.reason:
            reasons.setdefault(row.reason, []).append(row.label)
    for reason, labels in reasons.items():
        out(f"  no value for {'; '.join(labels)}: {reason}")


def _drawdown_words(figures: ClassFigures | None, key: str) -> str:
    """A maximum drawdown's recovering period: "12 days (to 5 Mar 2024)" or "not recovered"; "" for other figures."""
    if figures is None or not key.startswith("max_drawdown_"):
        return ""
    return recovery_text(figures[key])


def _print_published(data: dict) -> None:
    """The factsheet's published figures, each beside the figure computed to the factsheet's date and the
    difference between those two (never beside a figure to another date)."""
    compared = [r for r in data["rows"] if r.published]
    if not compared or not data["published_as_of"]:
        return
    as_of = day_text(data["published_as_of"])
    out("")
    out(f"  beside the factsheet's published figures of {as_of} (difference: computed minus published, "
        "in percentage points):")
    rows = [[r.label, fmt_value(r.raw_compared, "%"), r.published, r.difference] for r in compared]
    for line in table_lines(rows, ["Figure", f"Computed to {as_of}", "Published", "Difference"], right=(1, 2, 3),
                            limit=80):
        out(f"    {line.rstrip()}")


def _print_gaps(found: list, frequency: str) -> None:
    if not found:
        out(f"  gaps: none (no break longer than {GAP_DAYS[frequency]} days between two NAVs)")
        return
    out(f"  gaps (breaks longer than {GAP_DAYS[frequency]} days between two NAVs; no return is computed across them):")
    for gap in found:
        out(f"    {gap_text(gap)}")


def _print_distributions(dividends: pd.DataFrame) -> None:
    if dividends.empty:
        out("  distributions: none in these dates")
        return
    out("  distributions:")
    rows = [[day_text(r["ex_date"].date()), day_text(r["pay_date"].date()) if not pd.isna(r["pay_date"]) else "",
             plain(r["per_unit"])] for r in dividends.to_dict("records")]
    for line in table_lines(rows, ["Ex date (book close)", "Paid", "Baht per unit"], right=(2,)):
        out(f"    {line}")


def _print_years(years: list) -> None:
    if not years:
        return
    out("  calendar years:")
    rows = [[y.label, fmt_percent(y.price_return, 2), fmt_percent(y.total_return, 2)] for y in years]
    for line in table_lines(rows, ["Year", "Price return", "Total return"], right=(1, 2)):
        out(f"    {line}")

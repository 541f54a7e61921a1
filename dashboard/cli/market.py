"""`sec-dashboard market ...`: fill the whole-market store and ask it (sync, status, export, screen, holders, overlap).

`add_market_commands(subparsers, common=..., as_json=...)` adds the commands to the main parser;
`main(argv)` runs them on their own (tests), with the exit codes of the rest of the command line:
0 done, 2 bad input, 3 a rejected key, 4 the service (or the store) failed.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
from collections.abc import Sequence
from functools import wraps

from dashboard.cli.market_nav import (NAV_HEADERS, PEER_HELP, add_nav_screen_options, add_nav_sync_option, nav_filters,
                                      nav_summary, screen_columns)
from dashboard.cli.terminal import err, json_text, out, readable_frame, record_table, terminal_text, write_csv
from dashboard.config import ApiSettings
from dashboard.errors import BadInputError, SecApiError, quoted

EXIT_OK = 0
CSV_HELP = "print the table as CSV (UTF-8 with a byte-order mark: Excel opens the Thai intact; labels, not codes)"
LOOKED_THROUGH_HELP = ("look through funds of Thai funds: units of a fund in the store count as that fund's latest "
                       "holdings, scaled by weight (what could not be expanded is said)")
LOG_EVERY_PAGES = 100  # off a terminal, a line per this many pages of one dataset (about two minutes)
MAX_ROWS = 1_000_000  # --limit: more than the market holds rows of any screen

SCREEN_COLUMNS = ["proj_id", "proj_abbr_name", "proj_name_en", "company_name_en", "fund_status", "risk_spectrum",
                  "total_fee_actual", "cost_100k_10y", "return_1y"]
HOLDER_COLUMNS = ["proj_id", "proj_abbr_name", "issuer", "issue_code", "period", "percent_nav", "assetliab_value"]
# The command's own titles only where they say more than the dashboard's (present.text.COLUMN_TITLES, used for
# every other column): which figure is read, what a cost assumes, a risk level's scale (tests/cli/test_titles.py).
HEADERS = {"total_fee_actual": "fee % (charged)", "cost_100k_10y": "fees take of 100k THB, 10y at 5 %",
           "return_1y": "1y return % (factsheet)", "risk_spectrum": "risk level (1 to 8+)", **NAV_HEADERS}


# Figures the product computes (from returns or NAVs): two decimals in percent; a Sharpe ratio two
# decimals; a percentile whole (0-100). A fee is as the company charges it: two to five decimals.
COMPUTED_PERCENTS = ("return_1y", "return_3y_ann", "volatility_1y", "max_drawdown_1y")
PERCENTILES = ("peer_pct_return_1y", "peer_pct_volatility_1y")


def _readable_formatters() -> dict:
    """Codes as words in readable rows (JSON keeps the codes and the figures whole): a status, a risk level,
    a quarter; figures with the decimals the README gives them, never the store's raw 0.273298 or 83.3333."""
    from dashboard.cli.terminal import percent
    from dashboard.present.text import RISK_LEVELS, fmt_number, fmt_percent, number, quarter_text, status_text

    def figure(column: str, show):
        return lambda r: "" if number(r.get(column)) is None else show(r.get(column))

    return {"fund_status": lambda r: status_text(r.get("fund_status")),
            "risk_spectrum": lambda r: RISK_LEVELS.get(str(r.get("risk_spectrum") or "").upper(), r.get("risk_spectrum") or ""),
            "period": lambda r: quarter_text(r.get("period")),
            "total_fee_actual": figure("total_fee_actual", percent),
            **{c: figure(c, lambda v: fmt_percent(v, 2, sign="", missing="")) for c in COMPUTED_PERCENTS},
            "sharpe_1y": figure("sharpe_1y", lambda v: fmt_number(v, 2)),
            # an amount of baht with thousands separators and two decimals (docs/reference.md, Output), never the
            # store's raw 13899.46995; a holding's weight stays as filed (two to five decimals, as `fund holdings`)
            "cost_100k_10y": figure("cost_100k_10y", lambda v: fmt_number(v, 2)),
            **{c: figure(c, lambda v: fmt_number(v, 0)) for c in PERCENTILES}}


# ---- what the commands share --------------------------------------------------------------------


def _settings(args: argparse.Namespace) -> ApiSettings:
    return ApiSettings.from_env(
        base_url=getattr(args, "base_url", None),
        demo=True if getattr(args, "demo", False) else None,
        cache_dir=getattr(args, "cache_dir", None),
        use_cache=not getattr(args, "no_cache", False),
        layout=getattr(args, "layout", None),
    )


def _store(args: argparse.Namespace, *, read_only: bool = False):
    from dashboard.market.store import MarketStore

    return MarketStore(getattr(args, "store", None), settings=_settings(args), read_only=read_only)


def _readable_store(args: argparse.Namespace):
    """The published snapshot for a question (never blocked by a sync running), else a clear refusal."""
    store = _store(args, read_only=True)
    if not store.has_snapshot():
        store.close()
        raise BadInputError(f"no market snapshot in {store.snapshot_dir} yet: run `sec-dashboard market sync` first")
    return store


def _emit_rows(args: argparse.Namespace, rows: list[dict], columns: list[str], empty: str, *, summary: str = "") -> int:
    if getattr(args, "csv", False):
        if not rows:
            err(f"no data: {empty}")
        write_csv(readable_frame(rows, columns, formatters=_readable_formatters(), headers=HEADERS))
        return EXIT_OK
    if args.json:
        sys.stdout.write(json_text(rows) + "\n")
        return EXIT_OK
    if not rows:
        err(f"no data: {empty}")
        return EXIT_OK
    for line in record_table(rows, columns, headers=HEADERS, formatters=_readable_formatters()):
        out(line)
    from dashboard.present.text import count_text

    out(summary or f"({count_text(len(rows), 'row')})")
    return EXIT_OK


def _store_errors(command):
    """A store that fails under a command (disk full, a damaged page) is one error line, never a traceback."""
    @wraps(command)
    def run(args: argparse.Namespace) -> int:
        import duckdb

        from dashboard.market.storefile import store_full, store_path

        try:
            return command(args)
        except (duckdb.Error, OSError) as exc:
            full = store_full(exc, store_path(_settings(args), getattr(args, "store", None)).parent)
            if full is not None:
                raise full from None
            if not isinstance(exc, duckdb.Error):
                raise
            raise SecApiError(f"the market store failed ({type(exc).__name__}: {str(exc)[:200]}); "
                              "`market sync` rebuilds a damaged store") from None
    return run


# ---- progress -------------------------------------------------------------------------------------


class Progress:
    """Sync progress on stderr, drawn by rich: one line redrawn in place on a terminal; off a terminal
    (a log, a pipe) a plain line for each dataset stored and every LOG_EVERY_PAGES pages of a long one."""

    def __init__(self, stream=None):
        from rich.console import Console
        from rich.progress import Progress as Bar
        from rich.progress import SpinnerColumn, TextColumn

        self.console = Console(file=stream or sys.stderr, highlight=False, markup=False, emoji=False,
                               soft_wrap=True)
        self.bar = Bar(SpinnerColumn(), TextColumn("{task.description}", markup=False), console=self.console,
                       transient=True)
        self._task = None

    def __call__(self, p) -> None:
        from dashboard.present.text import count_text

        left = f", about {_duration(p.eta_s)} left" if p.eta_s is not None else ""
        how_far = (f", {p.detail}" if p.detail else f", page {p.pages:,}" if p.pages else "") if not p.done else ""
        # Only a done dataset has a count: the records stored, the number `market status` shows.
        count = f"{p.rows:,} stored" if p.done else "fetching"
        of = f"; {p.datasets_done} of {count_text(p.datasets_total, 'dataset')} stored" if p.datasets_total else ""
        text = terminal_text(f"{p.dataset}: {count}{how_far}; {count_text(p.calls, 'call')}, {_duration(p.elapsed_s)}{left}{of}",
                             single_line=True)
        if not self.console.is_terminal:
            if p.done or (p.pages and p.pages % LOG_EVERY_PAGES == 0) or (p.detail and p.calls % LOG_EVERY_PAGES == 0):
                self.console.print(text)
            return
        if self._task is None:
            self.bar.start()
            self._task = self.bar.add_task(text, total=None)
        if p.done:
            self.bar.console.print(text)  # kept above the redrawn line
        self.bar.update(self._task, description=text)

    def finish(self) -> None:
        if self._task is not None:
            self.bar.stop()
            self._task = None


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def stored_rows(store) -> dict[str, int]:
    """Records stored per dataset: one meaning of each count for `market sync` and `market status`."""
    from dashboard.market.status import status

    return {name: entry["rows"] for name, entry in status(store)["datasets"].items()}


# ---- the commands -----------------------------------------------------------------------------------


@_store_errors
def cmd_market_sync(args: argparse.Namespace) -> int:
    from dashboard.demo.connect import open_client
    from dashboard.market.datasets import parse_only
    from dashboard.market.sync import sync_blocking

    only = parse_only(args.only)  # refused before anything is opened or sent
    settings = _settings(args)
    progress = Progress()
    with _store(args) as store, open_client(settings) as client:
        try:
            result = sync_blocking(store, client, only=only, max_calls=args.max_calls,
                                   **({"quarters": args.quarters} if args.quarters else {}), nav_days=args.nav_days,
                                   progress=None if args.json else progress)
        finally:
            progress.finish()
        stored = stored_rows(store)
        nav_line = nav_summary(result, store.query("SELECT count(*) AS n FROM nav")[0]["n"])
    if args.json:
        sys.stdout.write(json_text({**result.as_dict(), "rows": stored}) + "\n")
        return EXIT_OK
    from dashboard.present.text import count_text

    # The datasets as `market status` lists them (the quarters of holdings one), as the progress counts them.
    states = result.by_dataset()
    fetched = sum(1 for v in states.values() if v == "fetched")
    fresh = sum(1 for v in states.values() if v == "fresh")
    out(f"market sync: {count_text(result.calls, 'call')} in {_duration(result.seconds)}; "
        f"{count_text(len(states), 'dataset')}: {fetched} fetched, {fresh} still fresh"
        + (f"; {result.throttled} retries" if result.throttled else ""))
    out("stored: " + ", ".join(f"{name} {rows:,}" for name, rows in stored.items()))
    from dashboard.market.sync import NOT_PUBLISHED_YET
    from dashboard.present.text import quarter_text

    for key in (k for k, v in result.datasets.items() if v == NOT_PUBLISHED_YET):
        out(f"{key}: {quarter_text(key.split(':')[1])} is not published yet (no fund has holdings for it); the quarter "
            "before is kept in its place, and the next run asks for it again")
    if nav_line:
        out(nav_line)
    if not result.complete:
        out(f"stopped at --max-calls {args.max_calls}: everything fetched so far is kept; run it again to go on")
    return EXIT_OK


@_store_errors
def cmd_market_status(args: argparse.Namespace) -> int:
    from dashboard.market.status import status

    with _readable_store(args) as store:
        data = status(store)
    if args.json:
        sys.stdout.write(json_text(data) + "\n")
        return EXIT_OK
    from dashboard.present.text import count_text

    out(f"last sync sent {count_text(data['calls'], 'call')}; rows: the records stored per dataset")
    rows = [{"dataset": name, **entry, "rows": f"{entry['rows']:,}", "complete": "yes" if entry["complete"] else "no"}
            for name, entry in data["datasets"].items()]
    for line in record_table(rows, ["dataset", "rows", "fetched_at", "complete"]):
        out(line)
    return EXIT_OK


@_store_errors
def cmd_market_export(args: argparse.Namespace) -> int:
    if not args.directory.strip():
        raise BadInputError("the directory to export into is empty: name one (`.` for the current directory)")
    with _readable_store(args) as store:
        written = store.export(args.directory)
    if args.json:
        sys.stdout.write(json_text([str(p) for p in written]) + "\n")
        return EXIT_OK
    for path in written:
        out(str(path))
    return EXIT_OK


@_store_errors
def cmd_market_screen(args: argparse.Namespace) -> int:
    from dashboard.market.queries import missing_nav_figures, screen

    with _readable_store(args) as store:
        rows = screen(store, company=args.company, status=args.status, risk=args.risk or (), policy=args.policy,
                      tax=args.tax, retail_type=args.retail_type, max_fee=args.max_fee,
                      min_return_1y=args.min_return_1y, sort=args.sort, limit=args.limit, **nav_filters(args))
        missing = missing_nav_figures(store, nav_filters(args))
    for sentence in missing:  # a filter on a figure no fund has: said, whatever the output's form
        err(f"note: {sentence}")
    return _emit_rows(args, rows, screen_columns(SCREEN_COLUMNS, rows), "no fund in the store passes these filters")


@_store_errors
def cmd_market_holders(args: argparse.Namespace) -> int:
    from dashboard.market.holdings import checked_period, holders
    from dashboard.market.lookthrough import look_through

    view = None
    with _readable_store(args) as store:
        if args.looked_through:
            quarter = checked_period(store, args.period)
            view = look_through(store, quarter) if quarter is not None else None
        rows = holders(store, args.query, args.period, looked_through=view if view is not None else False)
    from dashboard.market.holdings import holders_summary

    columns = HOLDER_COLUMNS + (["through"] if view is not None else [])
    summary = holders_summary(rows, terminal_text(args.query)) if rows else ""
    if view is not None and not args.json and not getattr(args, "csv", False):
        err(f"looked through: {terminal_text(view.summary())}")
    return _emit_rows(args, rows, columns, f"no fund in the store holds {quoted(args.query)} in that quarter",
                      summary=summary)


@_store_errors
def cmd_market_overlap(args: argparse.Namespace) -> int:
    from dashboard.market.holdings import overlap

    with _readable_store(args) as store:
        data = overlap(store, args.funds, args.period, looked_through=args.looked_through)
        marks = ", ".join("?" * len(data["funds"]))
        abbrs = {r["proj_id"]: r["proj_abbr_name"] for r in store.query(
            f"SELECT proj_id, proj_abbr_name FROM funds WHERE proj_id IN ({marks})", list(data["funds"]))
            if r["proj_abbr_name"]}
    if args.json:
        sys.stdout.write(json_text(data) + "\n")
        return EXIT_OK
    from dashboard.present.text import quarter_text

    name = {p: abbrs.get(p, p) for p in data["funds"]}
    out(f"quarter {quarter_text(data['period']) if data['period'] else '(no holdings stored)'}")
    for proj_id, lacking in data["missing"].items():
        out(f"note: {name[proj_id]}: {lacking}")
    if "looked_through_note" in data:
        out(f"looked through: {terminal_text(data['looked_through_note'])}")
    for pair, pct in data["overlap_pct"].items():
        a, b = pair.split("|")
        out(f"{name[a]} and {name[b]}: {pct:.2f}% overlap")
    rows = [{"issue_code": c["issue_code"], "isin_code": c["isin_code"], "issuer": c["issuer"],
             **{p: c["weights"].get(p) for p in data["funds"]}} for c in data["common"]]
    if rows:
        headers = {**HEADERS, **{p: f"{name[p]} % of NAV" for p in data["funds"]}}
        for line in record_table(rows, ["issue_code", "isin_code", "issuer", *data["funds"]], headers=headers):
            out(line)
    else:
        out("no security held in common")
    return EXIT_OK


@_store_errors
def cmd_market_basket(args: argparse.Namespace) -> int:
    """A basket with amounts (a CSV of fund, class and amount) weighed from the store: its allocation, total expense
    and yearly baht cost, holdings looked through and added up across the funds, overlap and NAV as one portfolio."""
    from pathlib import Path

    from dashboard.market.basket_holdings import basket_holdings, basket_overlap, check_classes, store_figures
    from dashboard.models.basket_amounts import (ESTIMATE_NOTE, BasketAmounts, portfolio_nav, weighted_allocation,
                                                 weighted_expense)
    from dashboard.present.text import fmt_number, quarter_text

    path = Path(args.csv_file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInputError(f"the amounts CSV {quoted(str(path))} could not be read ({exc.strerror or exc})") from None
    with _readable_store(args) as store:
        basket = BasketAmounts()
        unknown = basket.load_csv(data, lambda fund: store.resolve(fund))
        check_classes(store, basket.classes)
        amounts = dict(basket.amounts)
        figures = store_figures(store, list(amounts), basket.classes)
        rows, view, no_holdings = basket_holdings(store, amounts, args.period, limit=args.top)
        pairs = basket_overlap(store, list(amounts), args.period) if len(amounts) > 1 else None
        names = {r["proj_id"]: r["proj_abbr_name"] for r in store.query(
            f"SELECT proj_id, proj_abbr_name FROM funds WHERE proj_id IN ({', '.join('?' * len(amounts))})",
            list(amounts))}
    allocation, no_allocation = weighted_allocation(figures["allocation"], amounts)
    expense = weighted_expense(figures["fees"], amounts)
    start, value, no_nav = portfolio_nav(figures["navs"], amounts)
    label = lambda p: names.get(p) or p  # noqa: E731
    if unknown:
        err(f"note: not funds in the store, left out: {', '.join(terminal_text(u) for u in unknown)}")
    answer = {
        "estimate": ESTIMATE_NOTE, "total": sum(amounts.values()),
        "funds": [{"proj_id": p, "fund": label(p), "class": basket.classes.get(p, ""), "amount": a}
                  for p, a in amounts.items()],
        "unknown": unknown,
        "allocation": allocation.to_dict("records"), "allocation_left_out": no_allocation,
        "expense": {"percent": expense.percent, "yearly_baht": expense.yearly_baht, "covered": expense.covered,
                    "left_out": expense.left_out},
        "holdings": rows, "holdings_left_out": no_holdings,
        "looked_through_note": view.summary() if view is not None else "",
        "overlap_pct": (pairs or {}).get("overlap_pct", {}),
        "nav": {"start": start.isoformat() if start else None,
                "last": value.index[-1].date().isoformat() if len(value) else None,
                "value": float(value.iloc[-1]) if len(value) else None,
                "return_pct": float(100 * (value.iloc[-1] / value.iloc[0] - 1)) if len(value) else None,
                "left_out": no_nav},
    }
    if args.json:
        sys.stdout.write(json_text(answer) + "\n")
        return EXIT_OK
    shown = {"amount": lambda r: fmt_number(r.get("amount"), 2), "baht": lambda r: fmt_number(r.get("baht"), 0),
             "percent": lambda r: fmt_number(r.get("percent"), 2)}
    out(f"Basket of {len(amounts)} funds, {fmt_number(answer['total'], 2)} baht. {ESTIMATE_NOTE}")
    for line in record_table(answer["funds"], ["fund", "class", "amount"], headers={"amount": "amount (baht)"},
                             formatters=shown):
        out(line)
    out("")
    if len(allocation):
        out("Asset allocation, weighted by amount" + (f" (left out, none published: "
            f"{', '.join(label(p) for p in no_allocation)})" if no_allocation else "") + ":")
        for line in record_table(allocation.to_dict("records"), ["asset_name", "percent", "baht"],
                                 headers={"asset_name": "asset", "percent": "% of the basket", "baht": "baht"},
                                 formatters=shown):
            out(line)
    else:
        out("Asset allocation: none published for these funds in the store (`market sync --only allocation`).")
    if expense.percent is not None:
        out(f"Total annual expense, weighted: {expense.percent:.2f}% a year, about {fmt_number(expense.yearly_baht, 0)} "
            "baht a year" + (f" (left out, no fee charged known: {', '.join(label(p) for p in expense.left_out)})"
                             if expense.left_out else "") + ".")
    else:
        out("Total annual expense: no charged fee stored for these funds (`market sync --only fees`).")
    if rows:
        period = quarter_text(view.period) if view is not None else ""
        out(f"Holdings looked through across the funds, {period} (the same security through several funds added up):")
        for line in record_table(rows, ["issue_code", "issuer", "baht", "percent", "funds", "through"],
                                 headers={**HEADERS, "baht": "baht", "percent": "% of the basket",
                                          "funds": "funds", "through": "through"}, formatters=shown):
            out(line)
        out(f"looked through: {terminal_text(answer['looked_through_note'])}")
    if no_holdings:
        out(f"no holdings stored in the quarter for: {', '.join(label(p) for p in no_holdings)}")
    for pair, pct in answer["overlap_pct"].items():
        a, b = pair.split("|")
        out(f"{label(a)} and {label(b)}: {pct:.2f}% overlap (looked through)")
    if start is not None:
        nav = answer["nav"]
        out(f"As one portfolio bought on {start.isoformat()}: {fmt_number(nav['value'], 0)} baht on {nav['last']} "
            f"({nav['return_pct']:+.2f}%)" + (f"; left out, no NAV stored: {', '.join(label(p) for p in no_nav)}"
                                              if no_nav else "") + ".")
    else:
        out("NAV as one portfolio: no NAV stored for these funds (`market sync --only nav`).")
    return EXIT_OK


# ---- the parser -----------------------------------------------------------------------------------------


def _common_parents() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The options every command takes (as the main parser's), for a parser built without it."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--base-url", default=argparse.SUPPRESS)
    common.add_argument("--demo", action="store_true", default=argparse.SUPPRESS)
    common.add_argument("--cache-dir", default=argparse.SUPPRESS)
    common.add_argument("--no-cache", action="store_true", default=argparse.SUPPRESS)
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS)
    common.add_argument("--layout", choices=("auto", "legacy", "successor"), default=argparse.SUPPRESS)
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print JSON instead of a table")
    as_json.add_argument("--csv", action="store_true", help=CSV_HELP)
    return common, as_json


def add_market_commands(subparsers, *, common: argparse.ArgumentParser | None = None,
                        as_json: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Add `market` and its actions to the main parser's subcommands; returns the `market` parser."""
    if common is None or as_json is None:
        made_common, made_json = _common_parents()
        common, as_json = common or made_common, as_json or made_json
    market = subparsers.add_parser("market", help="the whole market in a local store: sync, screen, holders, overlap")
    actions = market.add_subparsers(dest="market_command", required=True, metavar="ACTION")

    def add(name: str, func, help_: str) -> argparse.ArgumentParser:
        p = actions.add_parser(name, help=help_, parents=[common, as_json])
        p.add_argument("--store", default=None, help=argparse.SUPPRESS)  # a store file elsewhere (tests, shared snapshots)
        p.set_defaults(func=func)
        return p

    sync = add("sync", cmd_market_sync, "fill or refresh the market store from the service")
    sync.add_argument("--only", metavar="DATASET,...", help="only these datasets (companies, funds, classes, fees, "
                      "risk, performance, allocation, minimums, dealing, links, holdings, nav)")
    sync.add_argument("--max-calls", type=_non_negative, metavar="N", help="stop after N calls (the next run goes on)")
    # The default lives in market.datasets (DEFAULT_QUARTERS), which this module imports only when it runs.
    sync.add_argument("--quarters", type=_positive, metavar="N", default=None,
                      help="holdings of the newest N quarters (default 2; the service keeps 12)")
    add_nav_sync_option(sync, _non_negative)
    add("status", cmd_market_status, "what the store holds and how old it is")
    export = add("export", cmd_market_export, "write one Parquet file per table")
    export.add_argument("directory", metavar="DIR")
    screen = add("screen", cmd_market_screen, "funds that pass the filters")
    screen.add_argument("--company", metavar="UNIQUE_ID", help="the management company's id, e.g. C0000000021")
    screen.add_argument("--status", help="registered (RG), approved and in filing (SE), expired (EX), cancelled (CA), "
                        "liquidated (LI); the word or the code")
    screen.add_argument("--risk", action="append", metavar="RS..", help="risk level 1 to 8, or 8+ for complex or high-risk funds (RS1..RS8, RS81); repeatable")
    screen.add_argument("--policy", metavar="TEXT", help="part of the policy type, in English or Thai: equity, fixed income, mixed, "
                        "alternative, other (or ตราสารทุน, ...)")
    screen.add_argument("--tax", choices=("SSF", "ThaiESG"), type=_tax_name, help="tax-incentive funds only")
    screen.add_argument("--retail-type", metavar="CODE", help="who may buy: R general investors, A non-retail, B high-net-worth, H non-retail and high-net-worth, "
                        "N institutional, X institutional and ultra-high-net-worth, V provident funds, G government policy, "
                        "F corporate-bond liquidity support")
    screen.add_argument("--max-fee", type=_fee, metavar="X", help="total annual fee as charged, at most X percent")
    screen.add_argument("--min-return-1y", type=_finite, metavar="X",
                        help="the 1-year return the factsheet publishes (a price return) at least X percent; "
                             "--min-total-return-1y reads the NAV's total return")
    add_nav_screen_options(screen, _finite)
    screen.add_argument("--sort", metavar="FIELD", help="sort by a row field, e.g. return_1y, sharpe_1y, volatility_1y, "
                        "peer_pct_return_1y; -FIELD (--sort -sharpe_1y) for descending. " + PEER_HELP)
    screen.add_argument("--limit", type=_row_limit, metavar="N", help=f"at most N rows (up to {MAX_ROWS:,})")
    holders = add("holders", cmd_market_holders, "every fund holding a security (issue code, ISIN or part of the issuer's name)")
    holders.add_argument("query", metavar="QUERY")
    holders.add_argument("--period", metavar="YYYYMM", help="quarter (default: the latest stored)")
    holders.add_argument("--looked-through", action="store_true", help=LOOKED_THROUGH_HELP)
    overlap = add("overlap", cmd_market_overlap, "holdings funds share, and each pair's overlap")
    overlap.add_argument("funds", nargs="+", metavar="FUND", help="proj_id or exact abbreviation (two or more)")
    overlap.add_argument("--period", metavar="YYYYMM", help="quarter (default: the latest stored)")
    overlap.add_argument("--looked-through", action="store_true", help=LOOKED_THROUGH_HELP)
    basket = add("basket", cmd_market_basket, "a basket with amounts (CSV of fund, class, amount): allocation, expense "
                 "and its yearly baht, holdings looked through, overlap, NAV as one portfolio (an estimate)")
    basket.add_argument("csv_file", metavar="AMOUNTS.csv", help="a CSV with a header row: fund (proj_id or "
                        "abbreviation), class (may be left out), amount (baht)")
    basket.add_argument("--period", metavar="YYYYMM", help="holdings quarter (default: the latest stored)")
    basket.add_argument("--top", type=_positive, default=20, metavar="N", help="the N largest holdings (default 20)")
    return market


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _non_negative(text: str) -> int:
    if len(text.strip()) > 18:  # past any count this program takes (and DuckDB's 64-bit LIMIT)
        raise argparse.ArgumentTypeError(f"{quoted(text)} is too large")
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _finite(text: str) -> float:
    """A number a filter can compare with: not NaN (every fund would pass), not infinite."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a finite number")
    return value


def _fee(text: str) -> float:
    """A fee ceiling: a finite number, 0 or more (as --max-volatility is refused below zero)."""
    value = _finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more: no fund charges less than nothing")
    return value


def _row_limit(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be 1 or more: the number of funds to list")
    if value > MAX_ROWS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_ROWS:,}")
    return value


def _tax_name(text: str) -> str:
    return {"ssf": "SSF", "thaiesg": "ThaiESG", "thai-esg": "ThaiESG"}.get(text.strip().casefold(), text)


def join_option_values(argv: Sequence[str]) -> list[str]:
    """`--sort -return_1y` as `--sort=-return_1y`: argparse takes a value beginning with "-" for an option
    unless it is joined with "=", and the README writes the descending sort as `--sort -FIELD`."""
    args = list(argv)
    joined: list[str] = []
    i = 0
    while i < len(args):
        if args[i] == "--sort" and i + 1 < len(args) and args[i + 1].startswith("-") and not args[i + 1].startswith("--"):
            joined.append(f"--sort={args[i + 1]}")
            i += 2
            continue
        if args[i] == "--":
            joined.extend(args[i:])
            break
        joined.append(args[i])
        i += 1
    return joined


def build_parser() -> argparse.ArgumentParser:
    """A parser of the market commands alone (`sec-dashboard` stands in front of them)."""
    parser = argparse.ArgumentParser(prog="sec-dashboard")
    add_market_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one market command as the main command line does, with its exit codes."""
    args = build_parser().parse_args(join_option_values(sys.argv[1:] if argv is None else argv))
    if not hasattr(args, "json"):
        args.json = False
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        return args.func(args)
    except SecApiError as exc:
        from dashboard.api.doctor import without_endpoint_code

        err(f"sec-dashboard: error: {without_endpoint_code(str(exc))}")
        return exc.exit_code
    except ValueError as exc:
        err(f"sec-dashboard: error: {exc}")
        return BadInputError.exit_code
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        err(f"sec-dashboard: error: {getattr(exc, 'strerror', None) or exc}")
        return BadInputError.exit_code


__all__ = ["add_market_commands", "build_parser", "main", "cmd_market_sync", "cmd_market_status", "cmd_market_export",
           "cmd_market_screen", "cmd_market_holders", "cmd_market_overlap", "cmd_market_basket", "Progress"]

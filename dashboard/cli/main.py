"""The `sec-dashboard` command line: the parser and the run of one command.

The fund and licence lookups are in `fund` and `licensee`, cache care in `cache`, the market in
`market`; this module adds them to one parser, holds the small commands (doctor, demo server, serve,
reports) and runs the command asked for: its deadline, its logging, and its errors as one line each.
"""

from __future__ import annotations

import argparse
import logging
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence

from dashboard import __version__
from dashboard.cli.cache import add_cache_commands
from dashboard.cli.checks import check_csv
from dashboard.cli.fund import add_fund_commands
from dashboard.cli.licensee import add_licensee_commands
from dashboard.cli.market import CSV_HELP, add_market_commands, join_option_values
from dashboard.cli.output import EXIT_OK
from dashboard.cli.plan import add_plan_commands
from dashboard.cli.plan_dca import add_dca_command, cmd_plan_dca
from dashboard.cli.service import PERSON_FINDER, identifier, settings_from, shared_client
from dashboard.cli.terminal import MESSAGE_WIDTH, TerminalFormatter, err, terminal_text
from dashboard.api.deadline import run_deadline
from dashboard.config import DEFAULT_DEADLINE_S, parse_deadline
from dashboard.errors import BadInputError, SecApiError, quoted

EXIT_BAD_INPUT = BadInputError.exit_code


# ---- commands -----------------------------------------------------------------------------------


def cmd_doctor(args) -> int:
    from dashboard.cli.checks import doctor

    return doctor(args, settings_from(args))


def cmd_demo_server(args) -> int:
    from dashboard.demo.loopback import serve

    serve(args.port, host=args.host, latency_ms=args.latency_ms, fault_rate=args.fault_rate, seed=args.seed,
          layout=args.serve_layout)
    return EXIT_OK


def cmd_serve(args) -> int:
    from dashboard.server.serve import serve

    # Every process learns how many share this host, so that a limiter that cannot be shared (no
    # disk cache, Redis away) keeps this process to its share of the rate limit.
    os.environ["SEC_DASHBOARD_NUM_PROCS"] = str(args.num_procs)
    serve(port=args.port, address=args.address, show=args.show, settings=settings_from(args), num_procs=args.num_procs)
    return EXIT_OK


def _port(text: str) -> int:
    """A TCP port to listen on, checked before anything starts."""
    try:
        value = int(text.strip()) if len(text.strip()) <= 6 else -1
    except ValueError:
        value = -1
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a port: use a whole number from 1 to 65535")
    return value


def _num_procs(text: str) -> int:
    from dashboard.config import parse_num_procs

    try:
        return parse_num_procs(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_report(args) -> int:
    from dashboard.cli.report import run_report

    if args.report_command == "licensee":
        args.unique_id = identifier(args.unique_id, "person or company", PERSON_FINDER)
    return run_report(args, shared_client(args))


# ---- parser -------------------------------------------------------------------------------------


class TerminalSafeParser(argparse.ArgumentParser):
    """argparse's usage errors quote what was typed; they reach the terminal through the same filter."""

    def _print_message(self, message: str, file=None) -> None:
        if message:
            lines = (terminal_text(line, limit=MESSAGE_WIDTH) for line in message.split("\n"))
            (file or sys.stderr).write("\n".join(lines))


def _shared_options() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser, argparse.ArgumentParser]:
    """The options many commands take: `base` (service and cache), `common` (base and the layout), `as_json`."""
    base = argparse.ArgumentParser(add_help=False)
    base.add_argument("--base-url", default=argparse.SUPPRESS, help="service base URL (default: SEC_API_BASE_URL or production)")
    base.add_argument("--demo", action="store_true", default=argparse.SUPPRESS, help="use the embedded demo data; touch no network")
    base.add_argument("--cache-dir", default=argparse.SUPPRESS, help="cache directory (default: SEC_DASHBOARD_CACHE_DIR or the per-user cache)")
    base.add_argument("--no-cache", action="store_true", default=argparse.SUPPRESS, help="neither read nor write the response cache")
    base.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="log requests and retries to stderr")
    common = argparse.ArgumentParser(add_help=False, parents=[base])
    common.add_argument("--layout", choices=("auto", "legacy", "successor"), default=argparse.SUPPRESS,
                        help="the service's path layout (default: SEC_API_LAYOUT or auto, which asks the service once)")
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print JSON instead of a table")
    as_json.add_argument("--csv", action="store_true", help=CSV_HELP)
    return base, common, as_json


def build_parser() -> argparse.ArgumentParser:
    base, common, as_json = _shared_options()
    parser = TerminalSafeParser(
        prog="sec-dashboard", parents=[common],
        description="SEC Thailand fund factsheets and licence register. Keys come from SEC_API_KEY "
                    "(or SEC_FUND_API_KEY / SEC_LICENSE_API_KEY); with no key and no base URL, demo data is used.",
    )
    parser.add_argument("--version", action="version", version=f"sec-dashboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=TerminalSafeParser)

    def add(parent, name: str, func: Callable, help_: str, *parents, shared=common) -> argparse.ArgumentParser:
        p = parent.add_parser(name, help=help_, parents=[shared, *parents])
        p.set_defaults(func=func)
        return p

    add_fund_commands(sub, add, as_json)
    add_licensee_commands(sub, add, as_json)
    add(sub, "doctor", cmd_doctor, "check the base URL, the path layout and both keys", as_json)

    add_cache_commands(sub, add, as_json)

    demo = add(sub, "demo-server", cmd_demo_server, "run the service simulator over the demo data on loopback", shared=base)
    demo.add_argument("--port", type=_port, default=8765)
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--latency-ms", type=float, default=0.0)
    demo.add_argument("--fault-rate", type=float, default=0.0)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--layout", dest="serve_layout", choices=("successor", "legacy", "both"),
                      default="both", help="which path layouts to serve (default both)")

    serve = add(sub, "serve", cmd_serve, "serve the dashboard")
    serve.add_argument("--port", type=_port, default=5006, help="TCP port, 1 to 65535 (default 5006)")
    serve.add_argument("--address", default="127.0.0.1")
    serve.add_argument("--show", action="store_true", help="open it in a browser")
    serve.add_argument("--num-procs", type=_num_procs, default=1, metavar="N",
                       help="serve from N processes sharing one rate limit and cache (default 1)")

    report = sub.add_parser("report", help="self-contained HTML reports").add_subparsers(dest="report_command", required=True, metavar="KIND")
    rf = add(report, "fund", cmd_report, "a factsheet (one fund) or a comparison (several)")
    rf.add_argument("queries", nargs="+", metavar="QUERY", help="proj_id or exact abbreviation")
    rf.add_argument("-o", "--output", required=True, help="the HTML file to write")
    rl = add(report, "licensee", cmd_report, "a licence check of a person or company")
    rl.add_argument("unique_id")
    rl.add_argument("--case", action="append", default=[], dest="cases", metavar="CASE_ID", help="enforcement case to include (repeatable)")
    rl.add_argument("-o", "--output", required=True, help="the HTML file to write")
    add_market_commands(sub, common=common, as_json=as_json)
    add_dca_command(add_plan_commands(sub, add), add, cmd_plan_dca, as_json)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(join_option_values(sys.argv[1:] if argv is None else argv))
    for name, default in (("base_url", None), ("demo", False), ("cache_dir", None), ("no_cache", False), ("verbose", False),
                          ("layout", None)):
        if not hasattr(args, name):
            setattr(args, name, default)
    if not hasattr(args, "json"):
        args.json = False
    if not hasattr(args, "csv"):
        args.csv = False
    handler = _StderrHandler()
    handler.setFormatter(TerminalFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, handlers=[handler])
    if not args.verbose:
        logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        check_csv(args)
        with run_deadline(_run_deadline(args)):
            return args.func(args)
    except SecApiError as exc:  # BadInputError and CacheUnavailableError exit 2, a rejected key 3, the service 4
        return _fail(exc, exc.exit_code)
    except ValueError as exc:
        return _fail(exc, EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except (OSError, sqlite3.Error) as exc:
        # local state the commands could not use (a cache or output path): one line, never a traceback
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return _fail(f"{getattr(exc, 'strerror', None) or exc or type(exc).__name__}{where}", EXIT_BAD_INPUT)


class _StderrHandler(logging.StreamHandler):
    """Log lines to whatever sys.stderr is when they are written: while the sync's progress line is drawn,
    rich stands in for it and prints them above the line instead of through it."""

    def __init__(self):
        super().__init__()

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


# Commands that run for as long as they are wanted: each of their calls has its own bound instead.
UNBOUNDED = {("serve", None), ("demo-server", None), ("market", "sync")}


def _run_deadline(args: argparse.Namespace) -> float | None:
    """The whole command's deadline (SEC_API_DEADLINE_S, default 60 s), or None for a long-running one."""
    if (args.command, getattr(args, "market_command", None)) in UNBOUNDED:
        return None
    return parse_deadline(os.environ.get("SEC_API_DEADLINE_S", "").strip() or DEFAULT_DEADLINE_S)


def _fail(exc: BaseException | str, code: int) -> int:
    from dashboard.api.doctor import without_endpoint_code

    err(f"sec-dashboard: error: {without_endpoint_code(str(exc))}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())

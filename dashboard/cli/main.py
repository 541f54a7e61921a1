"""The `sec-dashboard` command line: fund and licence lookups, cache care, demo server, serve, reports."""

from __future__ import annotations

import argparse
import logging
import os
import re
import sqlite3
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dashboard import __version__
from dashboard.cli.checks import check_csv, size_text
from dashboard.cli.factsheet import print_factsheet
from dashboard.cli.market import CSV_HELP, add_market_commands, join_option_values
from dashboard.cli.nav import add_nav_command, run_fund_nav
from dashboard.cli.output import EXIT_OK, emit, print_readable
from dashboard.cli.terminal import MESSAGE_WIDTH, TerminalFormatter, baht, err, json_text, out, terminal_text
from dashboard.api.deadline import run_deadline
from dashboard.config import DEFAULT_DEADLINE_S, ApiSettings, parse_deadline
from dashboard.errors import BadInputError, CacheUnavailableError, SecApiError, quoted
from dashboard.models.source import run

EXIT_BAD_INPUT = BadInputError.exit_code

# What the service's identifiers look like: upper-case letters and digits (C0000000021), maybe - or _.
ID_PATTERN = re.compile(r"^[A-Z0-9][A-Z0-9_-]*$")


def _identifier(value: str, what: str, finder: str) -> str:
    """An identifier in the service's upper case ("c0000000021" is C0000000021, as fund ids are read); text
    that cannot be one (a name) is refused with a hint before anything is sent."""
    text = value.strip()
    if ID_PATTERN.match(text.upper()) and any(c.isdigit() for c in text):
        return text.upper()
    raise BadInputError(f"{quoted(text)} is not a {what} id: ids are upper-case letters and digits such as C0000000021; "
                        f"{finder}")


PERSON_FINDER = ("to find a person by name use `licensee person-search NAME` (current service), "
                 "a company `licensee search NAME`")
COMPANY_FINDER = "to find a company by name use `licensee search NAME`, a fund `fund search NAME`"


def _settings(args: argparse.Namespace) -> ApiSettings:
    return ApiSettings.from_env(
        base_url=args.base_url,
        demo=True if args.demo else None,
        cache_dir=args.cache_dir,
        use_cache=not args.no_cache,
        layout=args.layout,
    )


def _client(args: argparse.Namespace):
    """The client the models of this command share (built once per settings)."""
    from dashboard.models.source import default_client

    return default_client(_settings(args))


def _answer(args: argparse.Namespace, endpoint_id: str, **arguments: Any) -> Any:
    """What one endpoint answers, through the thin model of the raw commands."""
    from dashboard.models.endpoint import EndpointAnswer

    return run(EndpointAnswer(client=_client(args)).fetch(endpoint_id, **arguments))


# ---- commands -----------------------------------------------------------------------------------


def cmd_fund_search(args) -> int:
    rows = _answer(args, "E1", name=args.name)
    return emit(args, rows or [], "fund", empty_note=f"no fund matches {quoted(args.name)}")


def cmd_fund_amc(args) -> int:
    args.unique_id = _identifier(args.unique_id, "company", COMPANY_FINDER)
    rows = _answer(args, "E2", unique_id=args.unique_id)
    return emit(args, rows or [], "fund", empty_note=f"no funds are listed for company {args.unique_id} "
                                               "(find a company's id with `licensee search NAME`)")


def cmd_fund_classes(args) -> int:
    rows = _answer(args, "E3", name=args.name)
    return emit(args, rows or [], "unit_class", empty_note=f"no unit class matches {quoted(args.name)}")


def _resolve_fund(args, query: str) -> tuple[str, dict | None]:
    from dashboard.models.search import FundSearch

    search = FundSearch(client=_client(args))
    proj_id = run(search.resolve(query))
    return proj_id, search.fund_record(proj_id)


def cmd_fund_show(args) -> int:
    from dashboard.models.factsheet import FundFactsheet

    proj_id, fund = _resolve_fund(args, args.query)
    sheet = FundFactsheet(client=_client(args))
    run(sheet.load(proj_id, fund=fund))
    for part, reason in sheet.errors.items():
        err(f"warning: {part} could not be loaded: {reason}")
    if sheet.stale:
        err("warning: some data was served from an expired cache entry (stale)")
    data = sheet.as_dict()
    has_data = any(v not in (None, [], {}) for k, v in data.items() if k not in ("proj_id", "fund"))
    if not args.json:
        print_factsheet(data, sheet.unpublished)
        if not has_data:
            err(f"no data: the service has no factsheet data for {proj_id}")
        return EXIT_OK
    return emit(args, data, empty_note="" if has_data else f"the service has no factsheet data for {proj_id}")


def cmd_fund_nav(args) -> int:
    return run_fund_nav(args, _client(args), lambda query: _resolve_fund(args, query))


def cmd_fund_holdings(args) -> int:
    from dashboard.api.periods import check_period, check_period_any_layout, latest_period

    client = _client(args)
    today = client.today
    if args.period:  # a period no layout offers is refused before anything is sent
        check_period_any_layout(args.period, today)
    layout = client.layout()
    period = check_period(args.period, today, layout) if args.period else latest_period(today, layout)
    proj_id, _ = _resolve_fund(args, args.query)
    from dashboard.models.holdings import split_nav_total

    rows = _answer(args, "E6", proj_id=proj_id, period=period) or []
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


def cmd_licensee_search(args) -> int:
    rows = _answer(args, "E15", name=args.name)
    return emit(args, rows or [], "licensee", empty_note=f"no licensed company matches {quoted(args.name)}")


def cmd_licensee_former(args) -> int:
    rows = _answer(args, "E16")
    return emit(args, rows or [], "licensee", empty_note="no former licensees are listed")


def cmd_licensee_person(args) -> int:
    from dashboard.models.licensee import amc_names, duties_past_approval

    args.unique_id = _identifier(args.unique_id, "person", PERSON_FINDER)
    check = _licence_check(args)
    run(check.load_person(args.unique_id))
    approvals, duties = check.records["approvals"], check.records["duties"]
    flagged = duties_past_approval(check.approvals, check.duties, check.api.today)
    warnings = [str(r) for r in flagged["reason"]]
    data = {"unique_id": args.unique_id, "approvals": approvals, "duties": duties}
    note = check.message
    if args.json:
        return emit(args, {**data, "warnings": warnings} if warnings else data, empty_note=note)
    names = {**amc_names(check.api), **check.company_names()} if duties else {}
    out(f"person {args.unique_id}: approvals")
    print_readable(approvals, "approval")
    out("current duties")
    print_readable(duties, "duty", names=names)
    for (_, row), reason in zip(flagged.iterrows(), warnings):
        company = names.get(row["company_unique_id"], row["company_unique_id"])
        out(f"warning: {reason} (at {company})")
    if note:
        err(f"no data: {note}")
    return EXIT_OK


def cmd_licensee_enforcement(args) -> int:
    """One case (E19); read, with the kind of action its case list names and what its date, details and remark
    then are (as the Licensee tab and the licence report show it). --json gives the service's record as sent."""
    from dashboard.models.licensee import enforcement_meanings, kind_label

    args.unique_id = _identifier(args.unique_id, "person or company", PERSON_FINDER)
    check = _licence_check(args)
    record = run(check.load_enforcement(args.unique_id, args.case_id))
    meanings = enforcement_meanings(check.enforcement_kind)
    if record and meanings and not args.json:
        record = {"enforcement_type": f"{kind_label(check.enforcement_kind)}, as the case list names it",
                  "how_to_read_it": f"the date is the {meanings['date'][1]}; the details are the "
                                    f"{meanings['details'][1]}; the remark is the {meanings['remark'][1]}", **record}
    return emit(args, record, empty_note=f"no enforcement action {args.case_id} for {args.unique_id}")


def cmd_licensee_alert(args) -> int:
    record = _answer(args, "E20", case_id=args.case_id)
    return emit(args, record, empty_note=f"no investor alert {args.case_id}")


def _licence_check(args):
    from dashboard.models.licensee import LicenceCheck

    return LicenceCheck(client=_client(args))


def _emit_rows(args, rows: list, kind: str, note: str) -> int:
    return emit(args, rows, kind, empty_note="" if rows else note)


def cmd_licensee_person_search(args) -> int:
    check = _licence_check(args)
    run(check.search_people(args.name))
    return _emit_rows(args, check.records["people"], "person", f"no approved person matches {quoted(args.name)}")


def cmd_licensee_company(args) -> int:
    args.unique_id = _identifier(args.unique_id, "company", COMPANY_FINDER)
    check = _licence_check(args)
    run(check.load_company(args.unique_id))
    data = {"unique_id": args.unique_id, **{part: check.records[part] for part in ("licences", "personnel", "business")}}
    note = check.message
    if args.json:
        if note:
            err(f"no data: {note}")
        return emit(args, data)
    from dashboard.models.licensee import amc_names

    name = amc_names(check.api).get(args.unique_id) or run(check.load_register_names()).get(args.unique_id)
    who = f"{name} ({args.unique_id})" if name else f"company {args.unique_id}"
    for title, rows, kind in (("licences and registrations", data["licences"], "company_licence"),
                              ("personnel on duty", data["personnel"], "duty"),
                              ("business activities", data["business"], "business_activity")):
        out(f"{who}: {title}")
        print_readable(rows, kind)
    if note:
        err(f"no data: {note}")
    return EXIT_OK


def cmd_licensee_cases(args) -> int:
    args.unique_id = _identifier(args.unique_id, "person or company", PERSON_FINDER)
    check = _licence_check(args)
    run(check.load_cases(args.unique_id))
    return _emit_rows(args, check.records["cases"], "enforcement_case", f"no enforcement cases are recorded for {args.unique_id}")


def cmd_licensee_alerts(args) -> int:
    check = _licence_check(args)
    run(check.load_alert_cases())
    return _emit_rows(args, check.records["alert_cases"], "alert_case", "the service lists no investor-alert cases")


def cmd_doctor(args) -> int:
    from dashboard.cli.checks import doctor

    return doctor(args, _settings(args))


def _cache_unusable(directory: Path, reason: str) -> CacheUnavailableError:
    return CacheUnavailableError(f"the cache directory {directory} cannot be used: {reason} "
                                 "(give another with --cache-dir or SEC_DASHBOARD_CACHE_DIR)")


def _check_cache_directory(directory: Path) -> None:
    """Refuse a cache directory that cannot work before the cache opens it, so nothing in it is touched."""
    for parent in [directory, *directory.parents]:
        try:
            st = parent.stat()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _cache_unusable(directory, f"{parent}: {exc.strerror or exc}") from None
        if not stat.S_ISDIR(st.st_mode):
            raise _cache_unusable(directory, f"{parent} is not a directory")
        # the directory itself is read and written; a missing one is created in its nearest existing parent
        needed, what = ((os.R_OK | os.W_OK | os.X_OK, "read, written and entered") if parent == directory
                        else (os.W_OK | os.X_OK, "written and entered"))
        if not os.access(parent, needed):
            raise _cache_unusable(directory, f"{parent} cannot be {what}")
        return


def cmd_cache(args) -> int:
    from dashboard.api.cache import ResponseCache

    settings = _settings(args)
    if settings.cache_dir is None:
        raise BadInputError("no cache directory is set")
    directory = Path(settings.cache_dir).expanduser()
    _check_cache_directory(directory)
    # ResponseCache raises OSError or sqlite3 errors for a directory that passed the checks but still
    # fails (a pseudo or read-only file system); the API layer's own cache error type, once it has
    # one, reaches main() as a SecApiError instead.
    try:
        cache = ResponseCache(directory)
        try:
            if args.cache_command == "clear":
                removed = cache.clear()
                out(f"removed {removed} cached responses from {cache.directory}")
                return EXIT_OK
            info = cache.info()
        finally:
            cache.close()
    except (OSError, sqlite3.Error) as exc:
        raise _cache_unusable(directory, getattr(exc, "strerror", None) or str(exc) or type(exc).__name__) from None
    if args.json:
        sys.stdout.write(json_text(info) + "\n")
    else:
        titles = {"directory": "Directory", "entries": "Responses kept", "fresh": "Fresh", "stale": "Expired (kept)",
                  "size_bytes": "Size"}
        for key, value in info.items():
            shown = size_text(value) if key == "size_bytes" else value
            out(f"{titles.get(key, key):15} {shown}")
    return EXIT_OK


def cmd_demo_server(args) -> int:
    from dashboard.demo.simulator import serve

    serve(args.port, host=args.host, latency_ms=args.latency_ms, fault_rate=args.fault_rate, seed=args.seed,
          layout=args.serve_layout)
    return EXIT_OK


def cmd_serve(args) -> int:
    from dashboard.server.serve import serve

    # Every process learns how many share this host, so that a limiter that cannot be shared (no
    # disk cache, Redis away) keeps this process to its share of the rate limit.
    os.environ["SEC_DASHBOARD_NUM_PROCS"] = str(args.num_procs)
    serve(port=args.port, address=args.address, show=args.show, settings=_settings(args), num_procs=args.num_procs)
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
        args.unique_id = _identifier(args.unique_id, "person or company", PERSON_FINDER)
    return run_report(args, _client(args))


# ---- parser -------------------------------------------------------------------------------------


class TerminalSafeParser(argparse.ArgumentParser):
    """argparse's usage errors quote what was typed; they reach the terminal through the same filter."""

    def _print_message(self, message: str, file=None) -> None:
        if message:
            lines = (terminal_text(line, limit=MESSAGE_WIDTH) for line in message.split("\n"))
            (file or sys.stderr).write("\n".join(lines))


def build_parser() -> argparse.ArgumentParser:
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

    fund = sub.add_parser("fund", help="fund factsheets: search, a company's funds, unit classes, a whole factsheet, holdings, NAV history").add_subparsers(dest="fund_command", required=True, metavar="ACTION")
    add(fund, "search", cmd_fund_search, "funds by part of a name or abbreviation", as_json).add_argument("name")
    add(fund, "amc", cmd_fund_amc, "all funds of an asset management company", as_json).add_argument("unique_id")
    add(fund, "classes", cmd_fund_classes, "unit classes by part of an abbreviation", as_json).add_argument("name")
    add(fund, "show", cmd_fund_show, "one fund's whole factsheet", as_json).add_argument("query", help="proj_id or exact abbreviation")
    holdings = add(fund, "holdings", cmd_fund_holdings, "portfolio holdings of one quarter", as_json)
    holdings.add_argument("query", help="proj_id or exact abbreviation")
    holdings.add_argument("--period", help="quarter YYYYMM (default: the latest published)")
    add_nav_command(fund, add, cmd_fund_nav, as_json)

    lic = sub.add_parser("licensee", help="licence register: licensed companies, approved persons, enforcement, investor alerts").add_subparsers(dest="licensee_command", required=True, metavar="ACTION")
    add(lic, "search", cmd_licensee_search, "licensed companies by part of a name", as_json).add_argument("name")
    add(lic, "former", cmd_licensee_former, "entities that once held a licence", as_json)
    add(lic, "person", cmd_licensee_person, "a person's approvals and current duties, with a warning for a duty held past its approval", as_json).add_argument("unique_id")
    enf = add(lic, "enforcement", cmd_licensee_enforcement, "an enforcement action", as_json)
    enf.add_argument("--wide", action="store_true", help="long texts on one line each (they wrap by default)")
    enf.add_argument("unique_id")
    enf.add_argument("case_id")
    add(lic, "alert", cmd_licensee_alert, "an investor-alert case", as_json).add_argument("case_id")
    add(lic, "person-search", cmd_licensee_person_search, "approved persons by part of a name or a registration number "
        "(current service)", as_json).add_argument("name")
    add(lic, "company", cmd_licensee_company, "a company's licences, personnel and business activities (current service)",
        as_json).add_argument("unique_id")
    add(lic, "cases", cmd_licensee_cases, "the enforcement cases of a person or company (current service)",
        as_json).add_argument("unique_id")
    add(lic, "alerts", cmd_licensee_alerts, "every investor-alert case (current service)", as_json)

    add(sub, "doctor", cmd_doctor, "check the base URL, the path layout and both keys", as_json)

    cache = sub.add_parser("cache", help="the response cache").add_subparsers(dest="cache_command", required=True, metavar="ACTION")
    add(cache, "info", cmd_cache, "where the cache is and what it holds", as_json)
    add(cache, "clear", cmd_cache, "remove every cached response")

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

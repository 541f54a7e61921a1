"""The `sec-dashboard` command line: fund and licence lookups, cache care, demo server, serve, reports."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from dashboard.api.errors import BadInputError, SecApiError
from dashboard.config import ApiSettings

EXIT_OK, EXIT_BAD_INPUT, EXIT_AUTH, EXIT_SERVICE = 0, 2, 3, 4

# Columns shown in readable tables, per record kind (JSON output always has every field).
TABLE_COLUMNS = {
    "fund": ["proj_id", "proj_abbr_name", "proj_name_en", "fund_status", "unique_id", "regis_date"],
    "unit_class": ["proj_id", "proj_abbr_name", "class_abbr_name", "class_name"],
    "holding": ["issue_code", "isin_code", "issuer", "assetliab_value", "percent_nav"],
    "licensee": ["unique_id", "name_en", "name_th"],
    "approval": ["lic_code", "regis_sale_no", "effective_date", "expire_date", "approval_state", "privilege_type"],
    "duty": ["company_unique_id", "person_unique_id", "lic_action_code", "lic_action_name_en", "action_start_date",
             "action_end_date"],
    "person": ["unique_id", "name_en", "name_th", "regis_sale_no"],
    "company_licence": ["lic_code", "lic_name_en", "lic_no", "apply_type", "effective_date", "expire_date"],
    "business_activity": ["lic_code", "lic_name_en", "lic_action_name_en", "action_start_date", "action_status"],
    "enforcement_case": ["case_id", "enforcement_type", "enforcement_type_label_en", "last_upd_date"],
    "alert_case": ["case_id", "name_en", "name_th", "disclosure_date", "website"],
}


class CommandError(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def _settings(args: argparse.Namespace) -> ApiSettings:
    return ApiSettings.from_env(
        base_url=args.base_url,
        demo=True if args.demo else None,
        cache_dir=args.cache_dir,
        use_cache=not args.no_cache,
        layout=args.layout,
    )


def _client(args: argparse.Namespace):
    from dashboard.models.source import default_client

    return default_client(_settings(args))


# ---- output -------------------------------------------------------------------------------------


def _emit(args: argparse.Namespace, data: Any, kind: str | None = None, *, empty_note: str = "") -> int:
    if data in (None, [], {}) and empty_note:
        print(f"no data: {empty_note}", file=sys.stderr)
    if args.json:
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        _print_readable(data, kind)
    return EXIT_OK


def _print_readable(data: Any, kind: str | None) -> None:
    if data is None or data == []:
        return
    if isinstance(data, list):
        import pandas as pd

        frame = pd.DataFrame(data)
        cols = [c for c in TABLE_COLUMNS.get(kind or "", []) if c in frame.columns] or list(frame.columns)[:8]
        with pd.option_context("display.max_rows", 500, "display.max_colwidth", 60, "display.width", 200):
            print(frame[cols].to_string(index=False))
        print(f"({len(frame)} rows)")
        return
    if isinstance(data, dict):
        width = max((len(str(k)) for k in data), default=0)
        for key, value in data.items():
            if isinstance(value, (list, dict)):
                summary = f"{len(value)} items" if value else "none"
                print(f"{str(key).ljust(width)}  {summary}")
            else:
                print(f"{str(key).ljust(width)}  {'' if value is None else value}")


# ---- commands -----------------------------------------------------------------------------------


def cmd_fund_search(args) -> int:
    rows = _client(args).fetch("E1", name=args.name)
    return _emit(args, rows or [], "fund", empty_note=f"no fund matches {args.name!r}")


def cmd_fund_amc(args) -> int:
    rows = _client(args).fetch("E2", unique_id=args.unique_id)
    return _emit(args, rows or [], "fund", empty_note=f"no funds are listed for company {args.unique_id}")


def cmd_fund_classes(args) -> int:
    rows = _client(args).fetch("E3", name=args.name)
    return _emit(args, rows or [], "unit_class", empty_note=f"no unit class matches {args.name!r}")


def _resolve_fund(args, query: str) -> tuple[str, dict | None]:
    from dashboard.models.search import FundSearch

    search = FundSearch(client=_client(args))
    proj_id = search.resolve(query)
    return proj_id, search.fund_record(proj_id)


def cmd_fund_show(args) -> int:
    from dashboard.models.factsheet import FundFactsheet

    proj_id, fund = _resolve_fund(args, args.query)
    sheet = FundFactsheet(client=_client(args)).load(proj_id, fund=fund)
    for part, reason in sheet.errors.items():
        print(f"warning: {part} could not be loaded: {reason}", file=sys.stderr)
    if sheet.stale:
        print("warning: some data was served from an expired cache entry (stale)", file=sys.stderr)
    data = sheet.as_dict()
    has_data = any(v not in (None, [], {}) for k, v in data.items() if k not in ("proj_id", "fund"))
    if not args.json:
        _print_factsheet(data)
        return EXIT_OK
    return _emit(args, data, empty_note="" if has_data else f"the service has no factsheet data for {proj_id}")


def _print_factsheet(data: dict) -> None:
    fund = data.get("fund") or {}
    print(f"{data['proj_id']}  {fund.get('proj_abbr_name') or ''}  {fund.get('proj_name_en') or ''}".rstrip())
    suit = data.get("suitability") or {}
    if suit:
        print(f"risk level: {suit.get('risk_level_label') or suit.get('risk_spectrum') or '-'}")
    for part in ("classes", "investment", "performance", "fees", "allocation"):
        print(f"{part}: {len(data.get(part) or [])} rows")
    print(f"holdings: {', '.join(data['holdings']) or 'none'}")


def cmd_fund_holdings(args) -> int:
    from dashboard.api.periods import check_period, latest_period

    client = _client(args)
    period = check_period(args.period, client.today) if args.period else latest_period(client.today)
    proj_id, _ = _resolve_fund(args, args.query)
    rows = client.fetch("E6", proj_id=proj_id, period=period)
    if not args.json and rows:
        print(f"{proj_id} holdings for {period}", file=sys.stderr)
    return _emit(args, rows or [], "holding", empty_note=f"no holdings for {proj_id} in {period}")


def cmd_licensee_search(args) -> int:
    rows = _client(args).fetch("E15", name=args.name)
    return _emit(args, rows or [], "licensee", empty_note=f"no licensed company matches {args.name!r}")


def cmd_licensee_former(args) -> int:
    rows = _client(args).fetch("E16")
    return _emit(args, rows or [], "licensee", empty_note="no former licensees are listed")


def cmd_licensee_person(args) -> int:
    from dashboard.models.source import outcome

    results = _client(args).fetch_many(
        [("E17", {"unique_id": args.unique_id}), ("E18", {"unique_id": args.unique_id})], return_exceptions=False)
    approvals, duties = (outcome(r)[0] or [] for r in results)
    data = {"unique_id": args.unique_id, "approvals": approvals, "duties": duties}
    note = "" if approvals or duties else f"no approvals or duties are recorded for person {args.unique_id}"
    if args.json:
        return _emit(args, data, empty_note=note)
    print(f"person {args.unique_id}: approvals")
    _print_readable(approvals, "approval")
    print("current duties")
    _print_readable(duties, "duty")
    if note:
        print(f"no data: {note}", file=sys.stderr)
    return EXIT_OK


def cmd_licensee_enforcement(args) -> int:
    record = _client(args).fetch("E19", unique_id=args.unique_id, case_id=args.case_id)
    return _emit(args, record, empty_note=f"no enforcement action {args.case_id} for {args.unique_id}")


def cmd_licensee_alert(args) -> int:
    record = _client(args).fetch("E20", case_id=args.case_id)
    return _emit(args, record, empty_note=f"no investor alert {args.case_id}")


def _licence_check(args):
    from dashboard.models.licensee import LicenceCheck

    return LicenceCheck(client=_client(args))


def _emit_rows(args, rows: list, kind: str, note: str) -> int:
    return _emit(args, rows, kind, empty_note="" if rows else note)


def cmd_licensee_person_search(args) -> int:
    check = _licence_check(args)
    check.search_people(args.name)
    return _emit_rows(args, check.records["people"], "person", f"no approved person matches {args.name!r}")


def cmd_licensee_company(args) -> int:
    check = _licence_check(args).load_company(args.unique_id)
    data = {"unique_id": args.unique_id, **{part: check.records[part] for part in ("licences", "personnel", "business")}}
    note = check.message
    if args.json:
        if note:
            print(f"no data: {note}", file=sys.stderr)
        return _emit(args, data)
    for title, rows, kind in (("licences and registrations", data["licences"], "company_licence"),
                              ("personnel on duty", data["personnel"], "duty"),
                              ("business activities", data["business"], "business_activity")):
        print(f"company {args.unique_id}: {title}")
        _print_readable(rows, kind)
    if note:
        print(f"no data: {note}", file=sys.stderr)
    return EXIT_OK


def cmd_licensee_cases(args) -> int:
    check = _licence_check(args)
    check.load_cases(args.unique_id)
    return _emit_rows(args, check.records["cases"], "enforcement_case", f"no enforcement cases are recorded for {args.unique_id}")


def cmd_licensee_alerts(args) -> int:
    check = _licence_check(args)
    check.load_alert_cases()
    return _emit_rows(args, check.records["alert_cases"], "alert_case", "the service lists no investor-alert cases")


def cmd_doctor(args) -> int:
    import asyncio

    from dashboard.api.doctor import diagnose, exit_code

    report = asyncio.run(diagnose(_settings(args)))
    code = exit_code(report)
    if args.json:
        json.dump({k: report.get(k) for k in ("base_url", "layout", "fund_key", "licence_key", "latency_ms")},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        latency = f"{report['latency_ms']:.0f} ms" if report.get("latency_ms") is not None else "-"
        print(f"service      {report['base_url']}")
        print(f"layout       {report.get('layout_label') or 'could not be reached'}")
        print(f"fund key     {report.get('fund_key') or '-'}")
        print(f"licence key  {report.get('licence_key') or '-'}")
        print(f"round trip   {latency}")
    for note in report.get("notes", []):
        print(f"note: {' '.join(str(note).split())}", file=sys.stderr)
    if code == EXIT_AUTH:
        print("set SEC_API_KEY (or SEC_FUND_API_KEY / SEC_LICENSE_API_KEY) to a key from the SEC open-data portal",
              file=sys.stderr)
    return code


def cmd_cache(args) -> int:
    from dashboard.api.cache import ResponseCache

    settings = _settings(args)
    cache = ResponseCache(settings.cache_dir)
    if args.cache_command == "clear":
        removed = cache.clear()
        print(f"removed {removed} cached responses from {cache.directory}")
    else:
        info = cache.info()
        if args.json:
            print(json.dumps(info, indent=2))
        else:
            for key, value in info.items():
                print(f"{key:11} {value}")
    cache.close()
    return EXIT_OK


def cmd_demo_server(args) -> int:
    from dashboard.demo.simulator import serve

    serve(args.port, host=args.host, latency_ms=args.latency_ms, fault_rate=args.fault_rate, seed=args.seed,
          layout=args.serve_layout)
    return EXIT_OK


def cmd_serve(args) -> int:
    from dashboard.app import serve

    serve(port=args.port, address=args.address, show=args.show, settings=_settings(args))
    return EXIT_OK


def cmd_report(args) -> int:
    from dashboard.reports.cli import run_report

    return run_report(args, _client(args))


# ---- parser -------------------------------------------------------------------------------------


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

    parser = argparse.ArgumentParser(
        prog="sec-dashboard", parents=[common],
        description="SEC Thailand fund factsheets and licence register. Keys come from SEC_API_KEY "
                    "(or SEC_FUND_API_KEY / SEC_LICENSE_API_KEY); with no key and no base URL, demo data is used.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(parent, name: str, func: Callable, help_: str, *parents, shared=common) -> argparse.ArgumentParser:
        p = parent.add_parser(name, help=help_, parents=[shared, *parents])
        p.set_defaults(func=func)
        return p

    fund = sub.add_parser("fund", help="fund factsheets (E1 to E14)").add_subparsers(dest="fund_command", required=True, metavar="ACTION")
    add(fund, "search", cmd_fund_search, "funds by part of a name or abbreviation (E1)", as_json).add_argument("name")
    add(fund, "amc", cmd_fund_amc, "all funds of an asset management company (E2)", as_json).add_argument("unique_id")
    add(fund, "classes", cmd_fund_classes, "unit classes by part of an abbreviation (E3)", as_json).add_argument("name")
    add(fund, "show", cmd_fund_show, "one fund's whole factsheet", as_json).add_argument("query", help="proj_id or exact abbreviation")
    holdings = add(fund, "holdings", cmd_fund_holdings, "portfolio holdings of one quarter (E6)", as_json)
    holdings.add_argument("query", help="proj_id or exact abbreviation")
    holdings.add_argument("--period", help="quarter YYYYMM (default: the latest published)")

    lic = sub.add_parser("licensee", help="licence register (E15 to E20)").add_subparsers(dest="licensee_command", required=True, metavar="ACTION")
    add(lic, "search", cmd_licensee_search, "licensed companies by part of a name (E15)", as_json).add_argument("name")
    add(lic, "former", cmd_licensee_former, "entities that once held a licence (E16)", as_json)
    add(lic, "person", cmd_licensee_person, "a person's approvals and current duties (E17, E18)", as_json).add_argument("unique_id")
    enf = add(lic, "enforcement", cmd_licensee_enforcement, "an enforcement action (E19)", as_json)
    enf.add_argument("unique_id")
    enf.add_argument("case_id")
    add(lic, "alert", cmd_licensee_alert, "an investor-alert case (E20)", as_json).add_argument("case_id")
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
    demo.add_argument("--port", type=int, default=8765)
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--latency-ms", type=float, default=0.0)
    demo.add_argument("--fault-rate", type=float, default=0.0)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--layout", dest="serve_layout", choices=("successor", "legacy", "both"),
                      default="both", help="which path layouts to serve (default both)")

    serve = add(sub, "serve", cmd_serve, "serve the dashboard")
    serve.add_argument("--port", type=int, default=5006)
    serve.add_argument("--address", default="127.0.0.1")
    serve.add_argument("--show", action="store_true", help="open it in a browser")

    report = sub.add_parser("report", help="self-contained HTML reports").add_subparsers(dest="report_command", required=True, metavar="KIND")
    rf = add(report, "fund", cmd_report, "a factsheet (one fund) or a comparison (several)")
    rf.add_argument("queries", nargs="+", metavar="QUERY", help="proj_id or exact abbreviation")
    rf.add_argument("-o", "--output", required=True, help="the HTML file to write")
    rl = add(report, "licensee", cmd_report, "a licence check of a person or company")
    rl.add_argument("unique_id")
    rl.add_argument("--case", action="append", default=[], dest="cases", metavar="CASE_ID", help="enforcement case to include (repeatable)")
    rl.add_argument("-o", "--output", required=True, help="the HTML file to write")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, default in (("base_url", None), ("demo", False), ("cache_dir", None), ("no_cache", False), ("verbose", False),
                          ("layout", None)):
        if not hasattr(args, name):
            setattr(args, name, default)
    if not hasattr(args, "json"):
        args.json = False
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        return args.func(args)
    except BadInputError as exc:
        return _fail(exc, EXIT_BAD_INPUT)
    except SecApiError as exc:
        return _fail(exc, exc.exit_code)
    except ValueError as exc:
        return _fail(exc, EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _fail(exc: BaseException, code: int) -> int:
    message = " ".join(str(exc).split())
    print(f"sec-dashboard: error: {message}", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())

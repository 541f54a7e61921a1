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
from dashboard.errors import BadInputError, SecApiError
from dashboard.cli.terminal import (MONEY_FIELDS, PERCENT_FIELDS, TerminalFormatter, baht, cell, display_width, err,
                                    json_text, out, percent, plain, record_table, table_lines, terminal_text)
from dashboard.config import ApiSettings
from dashboard.records.successor import NOT_PUBLISHED_NOTE, not_published

EXIT_OK, EXIT_BAD_INPUT, EXIT_AUTH, EXIT_SERVICE = 0, 2, 3, 4

# Columns shown in readable tables, per record kind (JSON output always has every field).
TABLE_COLUMNS = {
    "fund": ["proj_id", "proj_abbr_name", "proj_name_en", "fund_status", "unique_id", "regis_date"],
    "unit_class": ["proj_id", "proj_abbr_name", "class_abbr_name", "class_name"],
    "holding": ["issuer", "issue_code", "isin_code", "assetliab_desc", "assetliab_value", "percent_nav"],
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

# Column headings where the field name would mean little to a reader.
HEADERS = {"issue_code": "issue", "isin_code": "ISIN", "assetliab_desc": "asset type",
           "assetliab_value": "value (baht)", "percent_nav": "% of NAV"}
# Per-column display of a record kind, where a column shows more than its own value.
FORMATTERS: dict[str, dict[str, Callable[[dict], str]]] = {}
# Longest single value shown in a `key  value` line (JSON output keeps the whole text).
FIELD_WIDTH = 200

# What the service's identifiers look like: upper-case letters and digits (C0000000021), maybe - or _.
ID_PATTERN = re.compile(r"^[A-Z0-9][A-Z0-9_-]*$")


class CommandError(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def _identifier(value: str, what: str, finder: str) -> str:
    """An identifier in the service's upper case ("c0000000021" is C0000000021, as fund ids are read); text
    that cannot be one (a name) is refused with a hint before anything is sent."""
    text = value.strip()
    if ID_PATTERN.match(text.upper()) and any(c.isdigit() for c in text):
        return text.upper()
    raise CommandError(f"{text!r} is not a {what} id: ids are upper-case letters and digits such as C0000000021; "
                       f"{finder}", EXIT_BAD_INPUT)


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
    from dashboard.models.source import default_client

    return default_client(_settings(args))


# ---- output -------------------------------------------------------------------------------------


def _emit(args: argparse.Namespace, data: Any, kind: str | None = None, *, empty_note: str = "") -> int:
    if data in (None, [], {}) and empty_note:
        err(f"no data: {empty_note}")
    if args.json:
        sys.stdout.write(json_text(data) + "\n")
    else:
        _print_readable(data, kind)
    return EXIT_OK


def _columns(records: list, kind: str | None) -> list[str]:
    known = list(dict.fromkeys(k for r in records if isinstance(r, dict) for k in r if k != "not_published"))
    return [c for c in TABLE_COLUMNS.get(kind or "", []) if c in known] or known[:8]


def _print_readable(data: Any, kind: str | None) -> None:
    if data is None or data == []:
        return
    if isinstance(data, list):
        records = [r if isinstance(r, dict) else {"value": r} for r in data]
        for line in record_table(records, _columns(records, kind), formatters=FORMATTERS.get(kind or ""),
                                 headers=HEADERS):
            out(line)
        out(f"({len(records)} rows)")
        return
    if isinstance(data, dict):
        _print_fields(data)


def _print_fields(record: dict, keys: Sequence[str] | None = None, *, indent: str = "") -> None:
    """key  value lines; nested lists and objects are counted, long texts cut (JSON has them whole)."""
    keys = [k for k in (keys or record) if k != "not_published"]
    width = max((display_width(str(k)) for k in keys), default=0)
    for key in keys:
        value = record.get(key)
        if isinstance(value, (list, dict)) and value and not all(isinstance(v, str) for v in value):
            text = f"{len(value)} items"
        elif not_published(record, key):
            text = NOT_PUBLISHED_NOTE
        else:
            text = cell(key, value)
        out(f"{indent}{terminal_text(key, single_line=True).ljust(width)}  {terminal_text(text, single_line=True, limit=FIELD_WIDTH)}")


# ---- commands -----------------------------------------------------------------------------------


def cmd_fund_search(args) -> int:
    rows = _client(args).fetch("E1", name=args.name)
    return _emit(args, rows or [], "fund", empty_note=f"no fund matches {args.name!r}")


def cmd_fund_amc(args) -> int:
    args.unique_id = _identifier(args.unique_id, "company", COMPANY_FINDER)
    rows = _client(args).fetch("E2", unique_id=args.unique_id)
    return _emit(args, rows or [], "fund", empty_note=f"no funds are listed for company {args.unique_id} "
                                               "(find a company's id with `licensee search NAME`)")


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
        err(f"warning: {part} could not be loaded: {reason}")
    if sheet.stale:
        err("warning: some data was served from an expired cache entry (stale)")
    data = sheet.as_dict()
    has_data = any(v not in (None, [], {}) for k, v in data.items() if k not in ("proj_id", "fund"))
    if not args.json:
        _print_factsheet(data, sheet.unpublished)
        if not has_data:
            err(f"no data: the service has no factsheet data for {proj_id}")
        return EXIT_OK
    return _emit(args, data, empty_note="" if has_data else f"the service has no factsheet data for {proj_id}")


def _section(title: str) -> None:
    out("")
    out(title.upper())


def _line(label: str, value: object, *, record: object = None, field: str = "") -> None:
    text = NOT_PUBLISHED_NOTE if field and not_published(record, field) else value
    text = terminal_text(cell(field, text) if not isinstance(text, str) else text, single_line=True, limit=FIELD_WIDTH)
    out(f"  {label:<22}{text or '-'}")


def _table(records: list, columns: Sequence[str], headers: Sequence[str], **formatters) -> None:
    right = [i for i, c in enumerate(columns) if c in PERCENT_FIELDS or c in MONEY_FIELDS]
    shown = {**{c: (lambda r, c=c: cell(c, r.get(c))) for c in columns}, **formatters}
    for line in table_lines([[shown[c](r) for c in columns] for r in records], headers, right=right):
        out(f"  {line}")


def _labelled(record: dict | None, field: str) -> str:
    """A coded value as its English meaning with the code beside it."""
    record = record or {}
    code, label = record.get(field), record.get(f"{field}_label_en")
    if label and code not in (None, "") and str(code) != str(label):
        return f"{plain(label)} ({plain(code)})"
    return plain(label or code)


def _class_name(record: dict) -> str:
    return plain(record.get("class_abbr_name")) or "whole fund"


def _print_factsheet(data: dict, unpublished: dict[str, list[str]] | None = None) -> None:
    """The factsheet as readable sections; what the answering service does not publish is said so."""
    unpublished = unpublished or {}
    fund = data.get("fund") or {}
    _section("fund")
    _line("fund", " ".join(plain(fund.get(k)) for k in ("proj_abbr_name", "proj_name_en") if fund.get(k))
          or data["proj_id"])
    _line("Thai name", fund.get("proj_name_th"))
    _line("project id", data["proj_id"])
    company = fund.get("comp_name_en") or fund.get("comp_name_th")
    _line("company", f"{plain(company)} ({plain(fund.get('unique_id'))})" if company else fund.get("unique_id"))
    _line("status", _labelled(fund, "fund_status"))
    _line("registered", " ".join(plain(fund.get(k)) for k in ("regis_date", "regis_id") if fund.get(k)))
    if fund.get("cancel_date"):
        _line("cancelled", fund.get("cancel_date"))
    _line("invests abroad", _labelled(fund, "invest_country_flage"))
    project = data.get("project_type") or {}
    _line("offered to", _labelled(project, "proj_retail_type"))
    _line("term", _labelled(project, "proj_term_flag"))
    if fund.get("tax_incentives"):
        _line("tax incentive", fund.get("tax_incentives"))
    _line("US investors", fund.get("permit_us_investment"), record=fund, field="permit_us_investment")
    classes = data.get("classes") or []
    if classes:
        _line("unit classes", ", ".join(plain(c.get("class_abbr_name")) for c in classes))

    suit = data.get("suitability") or {}
    _section("risk")
    _line("risk level", f"{plain(suit.get('risk_level_label'))} ({plain(suit.get('risk_spectrum'))})"
          if suit.get("risk_level_label") else suit.get("risk_spectrum"))
    _line("risk", suit.get("risk_spectrum_desc"))
    for field, label in (("fund_suitable_desc", "suits"), ("fund_not_suitable_desc", "does not suit"),
                         ("important_notice", "important notice")):
        _line(label, suit.get(field), record=suit, field=field)

    _section("fees by class")
    fees = data.get("fees") or []
    if fees:
        _table(fees, ["class_abbr_name", "fee_type_desc", "rate_num", "actual_value_num"],
               ["class", "fee", "rate (%)", "charged (%)"], class_abbr_name=_class_name,
               fee_type_desc=lambda r: plain(r.get("fee_type_en") or r.get("fee_type_desc") or r.get("fee_type_th")))
    else:
        out("  -")

    _section("allocation")
    allocation = data.get("allocation") or []
    if allocation:
        _table(allocation, ["asset_name", "asset_ratio"], ["asset", "share (%)"])
    else:
        out("  -")

    holdings = data.get("holdings") or {}
    latest = next(iter(holdings), None)
    _section(f"holdings {latest}, top 10" if latest else "holdings")
    if latest:
        rows = [r for r in holdings[latest] if not r.get("is_nav_total")]
        rows.sort(key=lambda r: -(r.get("percent_nav") or 0))
        total = next((r for r in holdings[latest] if r.get("is_nav_total")), None)
        _table(rows[:10], ["issuer", "issue_code", "assetliab_desc", "assetliab_value", "percent_nav"],
               ["issuer", "issue", "asset type", "value (baht)", "% of NAV"])
        if total:
            out(f"  net asset value {baht(total.get('assetliab_value'))} baht; quarters with data: {', '.join(holdings)}")
    else:
        out("  -")

    _section("performance (%)")
    _print_performance(data.get("performance") or [])

    redemption = data.get("redemption") or {}
    _section("redemption")
    _line("dealing", redemption.get("redemp_period_label_en") or redemption.get("redemp_period_text")
          or redemption.get("redemp_period_oth") or redemption.get("redemp_period"))
    _line("settlement", redemption.get("settlement_period"))
    _line("buying cut-off", redemption.get("buying_cut_off_time"), record=redemption, field="buying_cut_off_time")
    _line("selling cut-off", redemption.get("selling_cut_off_time"), record=redemption, field="selling_cut_off_time")

    _section("minimums (baht)")
    investment = data.get("investment") or []
    if investment:
        _table(investment, ["class_abbr_name", "minimum_sub_ipo", "minimum_sub", "minimum_redempt", "lowbal_val"],
               ["class", "first purchase", "next purchase", "redemption", "lowest balance"], class_abbr_name=_class_name)
    else:
        out("  -")

    estimate = data.get("return_estimate")
    if estimate or "return_estimate" in unpublished:
        _section("estimated return")
        if estimate:
            _print_fields(estimate, indent="  ")
        else:
            out(f"  {NOT_PUBLISHED_NOTE}")

    urls = data.get("urls") or {}
    _section("reports")
    for field, label in (("url_factsheet", "factsheet"), ("amc_url_factsheet", "company's factsheet"),
                         ("url_halfyear_report", "half-year report"), ("url_annual_report", "annual report")):
        if field in urls:
            _line(label, urls.get(field), record=urls, field=field)


def _print_performance(rows: list[dict]) -> None:
    """Performance as one line per class and measure, one column per period."""
    if not rows:
        out("  -")
        return
    periods = sorted({(r.get("reference_period_order") or 99, plain(r.get("reference_period_label_en")
                                                                       or r.get("reference_period"))) for r in rows})
    names = [name for _, name in dict.fromkeys(periods)]
    lines: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        measure = plain(r.get("performance_kind_label_en") or r.get("performance_type_desc"))
        period = plain(r.get("reference_period_label_en") or r.get("reference_period"))
        lines.setdefault((_class_name(r), measure), {})[period] = percent(r.get("performance_val"))
    grid = [[cls, measure, *(values.get(n, "") for n in names)] for (cls, measure), values in lines.items()]
    for line in table_lines(grid, ["class", "measure", *names], right=range(2, 2 + len(names)), limit=30):
        out(f"  {line}")


def cmd_fund_holdings(args) -> int:
    from dashboard.api.periods import check_period, latest_period

    client = _client(args)
    period = check_period(args.period, client.today) if args.period else latest_period(client.today)
    proj_id, _ = _resolve_fund(args, args.query)
    rows = client.fetch("E6", proj_id=proj_id, period=period)
    if not args.json and rows:
        err(f"{proj_id} holdings for {period}")
    return _emit(args, rows or [], "holding", empty_note=f"no holdings for {proj_id} in {period}")


def cmd_licensee_search(args) -> int:
    rows = _client(args).fetch("E15", name=args.name)
    return _emit(args, rows or [], "licensee", empty_note=f"no licensed company matches {args.name!r}")


def cmd_licensee_former(args) -> int:
    rows = _client(args).fetch("E16")
    return _emit(args, rows or [], "licensee", empty_note="no former licensees are listed")


def cmd_licensee_person(args) -> int:
    from dashboard.models.source import outcome

    args.unique_id = _identifier(args.unique_id, "person", PERSON_FINDER)
    results = _client(args).fetch_many(
        [("E17", {"unique_id": args.unique_id}), ("E18", {"unique_id": args.unique_id})], return_exceptions=False)
    approvals, duties = (outcome(r)[0] or [] for r in results)
    data = {"unique_id": args.unique_id, "approvals": approvals, "duties": duties}
    note = "" if approvals or duties else f"no approvals or duties are recorded for person {args.unique_id}"
    if args.json:
        return _emit(args, data, empty_note=note)
    out(f"person {args.unique_id}: approvals")
    _print_readable(approvals, "approval")
    out("current duties")
    _print_readable(duties, "duty")
    if note:
        err(f"no data: {note}")
    return EXIT_OK


def cmd_licensee_enforcement(args) -> int:
    args.unique_id = _identifier(args.unique_id, "person or company", PERSON_FINDER)
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
    args.unique_id = _identifier(args.unique_id, "company", COMPANY_FINDER)
    check = _licence_check(args).load_company(args.unique_id)
    data = {"unique_id": args.unique_id, **{part: check.records[part] for part in ("licences", "personnel", "business")}}
    note = check.message
    if args.json:
        if note:
            err(f"no data: {note}")
        return _emit(args, data)
    for title, rows, kind in (("licences and registrations", data["licences"], "company_licence"),
                              ("personnel on duty", data["personnel"], "duty"),
                              ("business activities", data["business"], "business_activity")):
        out(f"company {args.unique_id}: {title}")
        _print_readable(rows, kind)
    if note:
        err(f"no data: {note}")
    return EXIT_OK


def cmd_licensee_cases(args) -> int:
    args.unique_id = _identifier(args.unique_id, "person or company", PERSON_FINDER)
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
        sys.stdout.write(json_text({k: report.get(k) for k in ("base_url", "layout", "fund_key", "licence_key", "latency_ms")})
                         + "\n")
    else:
        latency = f"{report['latency_ms']:.0f} ms" if report.get("latency_ms") is not None else "-"
        out(f"service      {report['base_url']}")
        out(f"layout       {report.get('layout_label') or 'could not be reached'}")
        out(f"fund key     {report.get('fund_key') or '-'}")
        out(f"licence key  {report.get('licence_key') or '-'}")
        out(f"round trip   {latency}")
    for note in report.get("notes", []):
        err(f"note: {note}")
    if code == EXIT_AUTH:
        err("set SEC_API_KEY (or SEC_FUND_API_KEY / SEC_LICENSE_API_KEY) to a key from the SEC open-data portal")
    return code


def _cache_unusable(directory: Path, reason: str) -> CommandError:
    return CommandError(f"the cache directory {directory} cannot be used: {reason} "
                        "(give another with --cache-dir or SEC_DASHBOARD_CACHE_DIR)", EXIT_BAD_INPUT)


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
        raise CommandError("no cache directory is set", EXIT_BAD_INPUT)
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
        for key, value in info.items():
            out(f"{key:11} {value}")
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
    from dashboard.cli.report import run_report

    if args.report_command == "licensee":
        args.unique_id = _identifier(args.unique_id, "person or company", PERSON_FINDER)
    return run_report(args, _client(args))


# ---- parser -------------------------------------------------------------------------------------


class TerminalSafeParser(argparse.ArgumentParser):
    """argparse's usage errors quote what was typed; they reach the terminal through the same filter."""

    def _print_message(self, message: str, file=None) -> None:
        if message:
            (file or sys.stderr).write(terminal_text(message))


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
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(TerminalFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, handlers=[handler])
    if not args.verbose:
        logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        return args.func(args)
    except CommandError as exc:
        return _fail(exc, exc.code)
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
    except (OSError, sqlite3.Error) as exc:
        # local state the commands could not use (a cache or output path): one line, never a traceback
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return _fail(f"{getattr(exc, 'strerror', None) or exc or type(exc).__name__}{where}", EXIT_BAD_INPUT)


def _fail(exc: BaseException | str, code: int) -> int:
    err(f"sec-dashboard: error: {exc}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())

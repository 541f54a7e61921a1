"""`sec-dashboard report ...`: resolve the funds or the licensee, build the report, write the file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dashboard.api.client import SecClient
from dashboard.api.errors import BadInputError
from dashboard.reports import fund_report_html, licensee_report_html, write_report


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{n / 1000:.0f} kB"


def _resolve_funds(client: SecClient, queries: list[str]) -> tuple[list[str], dict[str, dict]]:
    from dashboard.models.search import FundSearch

    proj_ids: list[str] = []
    funds: dict[str, dict] = {}
    for query in queries:
        search = FundSearch(client=client)
        proj_id = search.resolve(query)
        if proj_id not in proj_ids:
            proj_ids.append(proj_id)
        record = search.fund_record(proj_id)
        if record:
            funds[proj_id] = record
    return proj_ids, funds


def run_report(args: argparse.Namespace, client: SecClient) -> int:
    """Build the report the arguments ask for and write it; every query is resolved before anything is written."""
    output = Path(args.output).expanduser()
    if output.is_dir():
        raise BadInputError(f"{output} is a directory: give a file name such as report.html")
    if args.report_command == "fund":
        proj_ids, funds = _resolve_funds(client, list(args.queries))
        html_text = fund_report_html(client, proj_ids, funds=funds)
    elif args.report_command == "licensee":
        html_text = licensee_report_html(client, args.unique_id, list(getattr(args, "cases", None) or []))
    else:
        raise BadInputError(f"unknown report kind {args.report_command!r}")
    try:
        path = write_report(html_text, output)
    except OSError as exc:
        raise BadInputError(f"cannot write {output}: {exc.strerror or exc}") from None
    print(f"wrote {path} ({_size(path.stat().st_size)})", file=sys.stderr)
    return 0

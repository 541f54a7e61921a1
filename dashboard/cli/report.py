"""`sec-dashboard report ...`: resolve the funds or the licensee, build the report, write the file."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from dashboard.api.sync import SecClient
from dashboard.cli.terminal import err
from dashboard.errors import BadInputError
from dashboard.models.source import run
from dashboard.reports import fund_report_html, licensee_report_html, write_report


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{n / 1000:.0f} kB"


def _resolve_funds(client: SecClient, queries: list[str]) -> tuple[list[str], dict[str, dict]]:
    from dashboard.models.search import FundSearch

    proj_ids: list[str] = []
    funds: dict[str, dict] = {}
    for query in queries:
        search = FundSearch(client=client)
        proj_id = run(search.resolve(query))
        if proj_id not in proj_ids:
            proj_ids.append(proj_id)
        record = search.fund_record(proj_id)
        if record:
            funds[proj_id] = record
    return proj_ids, funds


def output_path(name: str) -> Path:
    """The file a report goes to, checked before any work: its directory must exist and take a new file,
    and the name must be a regular file or new. Nothing is created here (a missing directory is the
    user's mistake to hear about, not to have made at the root of the disk)."""
    output = Path(name).expanduser()
    if output.is_symlink():  # write the file the link names, as a shell redirection would
        output = output.resolve()
    directory = output.absolute().parent
    try:
        st = directory.stat()
    except FileNotFoundError:
        raise BadInputError(f"cannot write {output}: the directory {directory} does not exist (create it first)") from None
    except NotADirectoryError:
        raise BadInputError(f"cannot write {output}: {directory} is not a directory") from None
    except OSError as exc:
        raise BadInputError(f"cannot write {output}: the directory {directory} cannot be entered ({exc.strerror})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise BadInputError(f"cannot write {output}: {directory} is not a directory")
    if not os.access(directory, os.X_OK):
        raise BadInputError(f"cannot write {output}: the directory {directory} cannot be entered (permission denied)")
    if not os.access(directory, os.W_OK):
        raise BadInputError(f"cannot write {output}: the directory {directory} is not writable (permission denied)")
    try:
        existing = output.lstat()
    except FileNotFoundError:
        return output
    except OSError as exc:
        raise BadInputError(f"cannot write {output}: {exc.strerror}") from None
    if stat.S_ISDIR(existing.st_mode):
        raise BadInputError(f"{output} is a directory: give a file name such as report.html")
    if not stat.S_ISREG(existing.st_mode):
        raise BadInputError(f"cannot write {output}: it exists and is not a regular file")
    return output


def run_report(args: argparse.Namespace, client: SecClient) -> int:
    """Build the report the arguments ask for and write it; the output path and every query are checked
    before anything is written, and the file is replaced whole (a temporary file renamed into place)."""
    output = output_path(args.output)
    if args.report_command == "fund":
        proj_ids, funds = _resolve_funds(client, list(args.queries))
        html_text = fund_report_html(client, proj_ids, funds=funds)
    elif args.report_command == "licensee":
        html_text = licensee_report_html(client, args.unique_id, list(getattr(args, "cases", None) or []))
    else:
        raise BadInputError(f"unknown report kind {args.report_command!r}")
    output = output_path(str(output))  # the directory may have changed while the report was built
    try:
        path = write_report(html_text, output)
    except OSError as exc:
        raise BadInputError(f"cannot write {output}: {exc.strerror or exc}") from None
    err(f"wrote {path} ({_size(path.stat().st_size)})")
    return 0

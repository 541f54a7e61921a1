"""Readable and JSON output of the commands: record tables per kind, `key  value` lines."""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from dashboard.cli.terminal import (cell, display_width, err, json_text, out, plain, readable_frame, record_table, terminal_text,
                                   write_csv)
from dashboard.present.text import PERSON_ID_TITLE, apply_type_text, asset_type_text, column_title, count_text
from dashboard.records.successor import NOT_PUBLISHED_NOTE, not_published

EXIT_OK = 0

# Columns shown in readable tables, per record kind (JSON output always has every field).
TABLE_COLUMNS = {
    "fund": ["proj_id", "proj_abbr_name", "proj_name_en", "fund_status", "company", "regis_date"],
    "unit_class": ["proj_id", "proj_abbr_name", "class_abbr_name", "class_name"],
    "holding": ["issuer", "issue_code", "isin_code", "assetliab_desc", "assetliab_value", "percent_nav"],
    "licensee": ["unique_id", "name_en", "name_th"],
    "approval": ["approval", "regis_sale_no", "effective_date", "expire_date", "approval_state", "privilege_type"],
    "duty": ["company", "person_unique_id", "duty", "action_start_date", "action_end_date"],
    "person": ["unique_id", "name_en", "name_th", "regis_sale_no"],
    "company_licence": ["licence", "lic_no", "apply_type", "effective_date", "expire_date"],
    "business_activity": ["licence", "activity", "action_start_date", "action_status"],
    "enforcement_case": ["case_id", "enforcement_type", "last_upd_date"],
    "alert_case": ["case_id", "name_en", "name_th", "disclosure_date", "website"],
}

# Column headings where the field name would mean little to a reader (the rest: present.text.column_title).
# Titles of the columns the command line makes itself; every other column under the dashboard's (COLUMN_TITLES).
HEADERS = {"approval": "Approval", "duty": "Duty", "licence": "Licence", "activity": "Business activity",
           "person_unique_id": PERSON_ID_TITLE, "apply_type": "Licensed or registered"}


def name_with_code(record: dict, code_key: str, name_key: str) -> str:
    """"Investment analyst (IA)": the English (else Thai) name the answer gives, the code beside it; the code alone."""
    code = record.get(code_key)
    name = next((record.get(f"{name_key}_{lang}") for lang in ("en", "th")
                 if isinstance(record.get(f"{name_key}_{lang}"), str) and record.get(f"{name_key}_{lang}").strip()), None)
    if not name:
        return plain(code)
    return f"{name} ({code})" if code not in (None, "") else str(name)


def _company(record: dict, names: dict[str, str] | None = None, id_key: str = "unique_id") -> str:
    uid = record.get(id_key)
    name = record.get("comp_name_en") or record.get("comp_name_th") or (names or {}).get(uid)
    return f"{name} ({uid})" if name and uid else plain(name or uid)


def formatters(names: dict[str, str] | None = None) -> dict[str, Any]:
    """Columns made of several fields: a company by name, an approval or duty by name with its code."""
    return {
        "company": lambda r: _company(r, names, "company_unique_id" if "company_unique_id" in r else "unique_id"),
        "approval": lambda r: name_with_code(r, "lic_code", "lic_name"),
        "duty": lambda r: name_with_code(r, "lic_action_code", "lic_action_name"),
        "licence": lambda r: name_with_code(r, "lic_code", "lic_name"),
        "activity": lambda r: name_with_code(r, "lic_action_code", "lic_action_name"),
        "assetliab_desc": lambda r: asset_type_text(r.get("assetliab_id"), r.get("assetliab_desc")),
        "apply_type": lambda r: apply_type_text(r.get("apply_type")),
    }



VIRTUAL_COLUMNS = frozenset(formatters()) - {"assetliab_desc", "apply_type"}
# Where `title  value` lines wrap when the terminal's width is unknown (a pipe, a file).
WRAP_COLUMNS = 100
# Longest single value `fund show` puts on one line (JSON output keeps the whole text).
FIELD_WIDTH = 200


def emit(args: argparse.Namespace, data: Any, kind: str | None = None, *, empty_note: str = "") -> int:
    """Print a command's data as JSON (`--json`) or readably; "no data: ..." on stderr when there is none."""
    if data in (None, [], {}) and empty_note:
        err(f"no data: {empty_note}")
    if getattr(args, "csv", False):
        write_table_csv(data, kind)
    elif args.json:
        sys.stdout.write(json_text(data) + "\n")
    elif isinstance(data, dict):
        print_fields(data, wide=getattr(args, "wide", False))
    else:
        print_readable(data, kind)
    return EXIT_OK


def write_table_csv(data: Any, kind: str | None, *, names: dict[str, str] | None = None) -> None:
    """Records as CSV on stdout with the readable table's columns, titles and labels (not codes); one record as
    two columns, title and value. Text is whole (a CSV cell is never cut)."""
    if isinstance(data, dict):
        keys = [k for k in data if k != "not_published" and not isinstance(data[k], (list, dict))]
        write_csv(pd_frame({"Field": [column_title(k) for k in keys], "Value": [cell(k, data.get(k)) for k in keys]}))
        return
    records = [r if isinstance(r, dict) else {"value": r} for r in (data or [])]
    write_csv(readable_frame(records, columns(records, kind), formatters=formatters(names), headers=HEADERS))


def pd_frame(columns: dict) -> Any:
    import pandas as pd

    return pd.DataFrame(columns, dtype=object)


def columns(records: list, kind: str | None) -> list[str]:
    """The columns a readable table of this record kind shows (the first eight fields of an unknown kind)."""
    known = list(dict.fromkeys(k for r in records if isinstance(r, dict) for k in r if k != "not_published"))
    return [c for c in TABLE_COLUMNS.get(kind or "", []) if c in known or c in VIRTUAL_COLUMNS] or known[:8]


def print_readable(data: Any, kind: str | None, *, names: dict[str, str] | None = None) -> None:
    """Records as a table with a row count; one record as `key  value` lines. `names`: company names by id."""
    if data is None or data == []:
        return
    if isinstance(data, list):
        records = [r if isinstance(r, dict) else {"value": r} for r in data]
        for line in record_table(records, columns(records, kind), headers=HEADERS, formatters=formatters(names)):
            out(line)
        out(f"({count_text(len(records), 'row')})")
        return
    if isinstance(data, dict):
        print_fields(data)


def print_fields(record: dict, keys: Sequence[str] | None = None, *, indent: str = "", wide: bool = False) -> None:
    """`title  value` lines; nested lists and objects are counted; a long text wraps at word boundaries under its
    title (whole, never cut), or stays on one line with `wide`."""
    keys = [k for k in (keys or record) if k != "not_published"]
    titles = {k: terminal_text(column_title(str(k)), single_line=True) for k in keys}
    width = max((display_width(t) for t in titles.values()), default=0)
    room = max(shutil.get_terminal_size((WRAP_COLUMNS, 24)).columns - len(indent) - width - 2, 30)
    for key in keys:
        value = record.get(key)
        if isinstance(value, (list, dict)) and value and not all(isinstance(v, str) for v in value):
            text = f"{len(value)} items"
        elif not_published(record, key):
            text = NOT_PUBLISHED_NOTE
        else:
            text = cell(key, value)
        text = terminal_text(text, single_line=True)
        lines = [text] if wide else (textwrap.wrap(text, room, break_long_words=False, break_on_hyphens=False) or [""])
        out(f"{indent}{titles[key].ljust(width)}  {lines[0]}".rstrip())
        for line in lines[1:]:
            out(f"{indent}{' ' * width}  {line}")

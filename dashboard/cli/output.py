"""Readable and JSON output of the commands: record tables per kind, `key  value` lines."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from dashboard.cli.terminal import cell, display_width, err, json_text, out, record_table, terminal_text
from dashboard.records.successor import NOT_PUBLISHED_NOTE, not_published

EXIT_OK = 0

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
# Longest single value shown in a `key  value` line (JSON output keeps the whole text).
FIELD_WIDTH = 200


def emit(args: argparse.Namespace, data: Any, kind: str | None = None, *, empty_note: str = "") -> int:
    """Print a command's data as JSON (`--json`) or readably; "no data: ..." on stderr when there is none."""
    if data in (None, [], {}) and empty_note:
        err(f"no data: {empty_note}")
    if args.json:
        sys.stdout.write(json_text(data) + "\n")
    else:
        print_readable(data, kind)
    return EXIT_OK


def columns(records: list, kind: str | None) -> list[str]:
    """The columns a readable table of this record kind shows (the first eight fields of an unknown kind)."""
    known = list(dict.fromkeys(k for r in records if isinstance(r, dict) for k in r if k != "not_published"))
    return [c for c in TABLE_COLUMNS.get(kind or "", []) if c in known] or known[:8]


def print_readable(data: Any, kind: str | None) -> None:
    """Records as a table with a row count; one record as `key  value` lines."""
    if data is None or data == []:
        return
    if isinstance(data, list):
        records = [r if isinstance(r, dict) else {"value": r} for r in data]
        for line in record_table(records, columns(records, kind), headers=HEADERS):
            out(line)
        out(f"({len(records)} rows)")
        return
    if isinstance(data, dict):
        print_fields(data)


def print_fields(record: dict, keys: Sequence[str] | None = None, *, indent: str = "") -> None:
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

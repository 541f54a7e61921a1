"""The market store's tables: the columns of each dataset's table, the store's own bookkeeping tables
(meta, stage, info), and a normalised record as a row of its table.

Every table holds the records the records layer makes (`dashboard.records`), one row per record: the
columns a question needs plus `record`, the whole normalised record as JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

import duckdb
import pandas as pd

from dashboard.errors import BadInputError
from dashboard.records.values import to_number

# 2: the NAV tables (nav, distributions, nav_figures, nav_days) added; a store of schema 1 is migrated
# (the tables created, nothing else changed), any other version rebuilt.
# 3: the feeders table (every feeder's master) added; a store of 1 or 2 is migrated (it is filled from
# the funds and holdings stored).
SCHEMA_VERSION = 3
MIGRATES_FROM = {1: "the NAV tables (nav, distributions, nav_figures) and the feeders table were added",
                 2: "the feeders table (every feeder's master) was added"}

# table -> its columns (name, DuckDB type), before `record` (the whole normalised record as JSON).
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "companies": (("unique_id", "VARCHAR"), ("comp_name_en", "VARCHAR"), ("comp_name_th", "VARCHAR")),
    "funds": (("proj_id", "VARCHAR"), ("proj_abbr_name", "VARCHAR"), ("proj_name_en", "VARCHAR"),
              ("proj_name_th", "VARCHAR"), ("fund_status", "VARCHAR"), ("unique_id", "VARCHAR"),
              ("policy_desc", "VARCHAR"), ("proj_retail_type", "VARCHAR"), ("management_style", "VARCHAR"),
              ("tax_incentives", "VARCHAR"), ("class_count", "INTEGER")),
    "classes": (("proj_id", "VARCHAR"), ("class_abbr_name", "VARCHAR"), ("class_name", "VARCHAR"),
                ("tax_incentive", "VARCHAR")),
    "fees": (("proj_id", "VARCHAR"), ("seq", "INTEGER"), ("class_abbr_name", "VARCHAR"), ("fee_type_desc", "VARCHAR"),
             ("fee_type_en", "VARCHAR"), ("rate", "VARCHAR"), ("actual_value", "VARCHAR"), ("rate_num", "DOUBLE"),
             ("actual_value_num", "DOUBLE")),
    "risk": (("proj_id", "VARCHAR"), ("risk_spectrum", "VARCHAR"), ("risk_rank", "INTEGER")),
    "performance": (("proj_id", "VARCHAR"), ("seq", "INTEGER"), ("class_abbr_name", "VARCHAR"),
                    ("performance_kind", "VARCHAR"), ("reference_period", "VARCHAR"),
                    ("reference_period_order", "INTEGER"), ("performance_val", "DOUBLE"), ("as_of_date", "VARCHAR")),
    "allocation": (("proj_id", "VARCHAR"), ("asset_seq", "INTEGER"), ("asset_name", "VARCHAR"), ("asset_ratio", "DOUBLE")),
    "minimums": (("proj_id", "VARCHAR"), ("class_abbr_name", "VARCHAR"), ("minimum_sub_ipo", "DOUBLE"),
                 ("minimum_sub", "DOUBLE"), ("minimum_redempt", "DOUBLE")),
    "dealing": (("proj_id", "VARCHAR"), ("redemp_period", "VARCHAR"), ("settlement_period", "VARCHAR")),
    "links": (("proj_id", "VARCHAR"), ("url_factsheet", "VARCHAR"), ("as_of_date", "VARCHAR")),
    "holdings": (("proj_id", "VARCHAR"), ("period", "VARCHAR"), ("assetliab_id", "VARCHAR"), ("issue_code", "VARCHAR"),
                 ("isin_code", "VARCHAR"), ("issuer", "VARCHAR"), ("assetliab_value", "DOUBLE"),
                 ("percent_nav", "DOUBLE"), ("is_nav_total", "BOOLEAN")),
    # Derived per fund from fees and performance when either is swapped in (one figure per fund).
    "fund_figures": (("proj_id", "VARCHAR"), ("total_fee_actual", "DOUBLE"), ("total_fee_ceiling", "DOUBLE"),
                     ("return_1y", "DOUBLE")),
    # Derived from funds and holdings when either is swapped in: every feeder's master (market/feeders.py).
    "feeders": (("proj_id", "VARCHAR"), ("master_id", "VARCHAR"), ("master_name", "VARCHAR"),
                ("master_isins", "VARCHAR"), ("matched_by", "VARCHAR"), ("undecided", "VARCHAR"),
                ("declared_name", "VARCHAR"), ("name_key", "VARCHAR"), ("holding_isin", "VARCHAR"),
                ("holding_pct", "DOUBLE"), ("holding_period", "VARCHAR"), ("candidates", "VARCHAR")),
}
DERIVED_TABLES = ("fund_figures", "feeders")

META_DDL = """CREATE TABLE IF NOT EXISTS meta (
    dataset VARCHAR PRIMARY KEY, rows BIGINT, fetched_at DOUBLE, complete BOOLEAN, cursor VARCHAR,
    pages INTEGER, calls INTEGER, started_at DOUBLE, layout VARCHAR)"""
STAGE_DDL = "CREATE TABLE IF NOT EXISTS stage (dataset VARCHAR, unit VARCHAR, seq INTEGER, payload VARCHAR)"
INFO_DDL = "CREATE TABLE IF NOT EXISTS info (name VARCHAR PRIMARY KEY, value VARCHAR)"
# The columns of the tables a snapshot publishes besides TABLES (stage is the writer's own).
SNAPSHOT_EXTRA = {
    "meta": "dataset VARCHAR, rows BIGINT, fetched_at DOUBLE, complete BOOLEAN, cursor VARCHAR, pages INTEGER, "
            "calls INTEGER, started_at DOUBLE, layout VARCHAR",
    "info": "name VARCHAR, value VARCHAR",
}
# The NAV tables: typed columns only (no `record`: ~6 M rows over five years). `nav_days` is the sync's
# own bookkeeping (which days were fetched, and on which day), not published.
NAV_TABLES = {
    "nav": "proj_id VARCHAR, class VARCHAR, nav_date DATE, nav DOUBLE, offer DOUBLE, bid DOUBLE, net_asset DOUBLE",
    "distributions": "proj_id VARCHAR, class VARCHAR, ex_date DATE, pay_date DATE, per_unit DOUBLE",
    "nav_figures": ("proj_id VARCHAR, class VARCHAR, first_nav_date DATE, last_nav_date DATE, frequency VARCHAR, "
                    "return_1m DOUBLE, return_3m DOUBLE, return_6m DOUBLE, return_ytd DOUBLE, return_1y DOUBLE, "
                    "return_3y_ann DOUBLE, return_5y_ann DOUBLE, total_return_1y DOUBLE, volatility_1y DOUBLE, "
                    "max_drawdown_1y DOUBLE, sharpe_1y DOUBLE, fund_figure BOOLEAN, peers INTEGER, "
                    "peer_pct_return_1y DOUBLE, peer_pct_volatility_1y DOUBLE, peer_pct_sharpe_1y DOUBLE"),
}
NAV_DAYS_DDL = "CREATE TABLE IF NOT EXISTS nav_days (day DATE PRIMARY KEY, fetched_on DATE, rows INTEGER)"
SNAPSHOT_EXTRA.update(NAV_TABLES)
# Answers that depend on a snapshot alone, computed once when a publish changes what they are computed from and
# published with it (market/kept.py): readers serve them instead of computing them per question. A store file
# without them (written before they existed) gets them empty on opening, and readers compute afresh meanwhile.
KEPT_TABLES = {
    "sibling_returns": ("master_id VARCHAR, proj_id VARCHAR, class VARCHAR, master_nav_date DATE, nav_date DATE, "
                        "total_return_1y DOUBLE, total_return_3y_ann DOUBLE, diff_1y_vs_cheapest DOUBLE, "
                        "diff_3y_vs_cheapest DOUBLE"),
    "most_held_kept": ("period VARCHAR, looked_through BOOLEAN, security VARCHAR, issue_code VARCHAR, "
                       "isin_code VARCHAR, issuer VARCHAR, funds BIGINT, total_value DOUBLE, percent_nav_avg DOUBLE"),
}
# What each is computed from: a reader serves one only when its snapshot published it with or after each of these.
KEPT_INPUTS = {"sibling_returns": ("feeders", "funds", "classes", "fees", "nav", "distributions"),
               "most_held_kept": ("holdings", "funds", "classes")}
SNAPSHOT_EXTRA.update(KEPT_TABLES)
SNAPSHOT_TABLES = (*TABLES, *SNAPSHOT_EXTRA)
# Set in the transaction of a swap, cleared once it is published: a writer that finds it set (a
# publish failed or was killed) publishes everything again when it opens.
PENDING = "snapshot_pending"


def create_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables a store file lacks (and mark it with SCHEMA_VERSION when new)."""
    con.execute(META_DDL)
    con.execute(STAGE_DDL)
    con.execute(INFO_DDL)
    for table, columns in TABLES.items():
        cols = ", ".join(f"{name} {kind}" for name, kind in columns)
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({cols}, record VARCHAR)")
    for table, cols in {**NAV_TABLES, **KEPT_TABLES}.items():
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({cols})")
    con.execute(NAV_DAYS_DDL)
    if con.execute("SELECT count(*) FROM info WHERE name = 'schema_version'").fetchone()[0] == 0:
        con.execute("INSERT INTO info VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])


def snapshot_schemas() -> dict[str, str]:
    """The columns of every table a snapshot publishes, as a reader declares them."""
    schemas = {t: ", ".join(f"{n} {k}" for n, k in cols) + ", record VARCHAR" for t, cols in TABLES.items()}
    return {**schemas, **SNAPSHOT_EXTRA}


def stored_columns() -> dict[str, list[str]]:
    """Each dataset table's column names, `record` last (what a store file of this version holds)."""
    columns = {t: [n for n, _ in cols] + ["record"] for t, cols in TABLES.items()}
    typed = {**NAV_TABLES, **KEPT_TABLES}
    return {**columns, **{t: [c.strip().split(" ")[0] for c in cols.split(",")] for t, cols in typed.items()}}


def migrate(con: duckdb.DuckDBPyConnection) -> str | None:
    """Bring a store of an older schema this version knows (MIGRATES_FROM) up to SCHEMA_VERSION in place:
    what was done (one line), or None when there was nothing to do. Other versions are left to the
    schema check (and rebuilt)."""
    found = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                       "WHERE table_schema = 'main'").fetchall()}
    if "info" not in found:
        return None
    row = con.execute("SELECT value FROM info WHERE name = 'schema_version'").fetchone()
    written = int(row[0]) if row and str(row[0]).isdigit() else None
    if written not in MIGRATES_FROM:
        return None
    con.execute("BEGIN")
    try:
        create_tables(con)
        con.execute("UPDATE info SET value = ? WHERE name = 'schema_version'", [str(SCHEMA_VERSION)])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return f"migrated from store schema {written} to {SCHEMA_VERSION}: {MIGRATES_FROM[written]}; nothing stored changed"


def to_json(value: Any) -> str:
    """A record or a page as the JSON text the store keeps (sets and tuples as lists, the rest as text)."""
    return json.dumps(value, ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)


def _scalar(value: Any, kind: str) -> Any:
    """A record's value as the column's type; None where it does not read as one."""
    if value is None:
        return None
    if kind in ("DOUBLE", "INTEGER"):
        number = to_number(value)  # the records' own reading of a number (JSON number or numeric text)
        if number is None or not math.isfinite(number):
            return None
        if kind == "DOUBLE":
            return float(number)
        return int(number) if float(number).is_integer() else None
    if kind == "BOOLEAN":
        return bool(value)
    if isinstance(value, (list, tuple, set)):
        return ",".join(str(v) for v in value)
    return str(value)


def record_frame(table: str, records: list[dict]) -> pd.DataFrame:
    """The rows of `table` for these records: its columns read as their types, and the whole record as JSON."""
    check_table(table)
    columns = TABLES[table]
    data: dict[str, list] = {name: [] for name, _ in columns}
    data["record"] = []
    for record in records:
        for name, kind in columns:
            data[name].append(_scalar(record.get(name), kind))
        data["record"].append(to_json(record))
    dtypes = {"VARCHAR": "object", "DOUBLE": "float64", "INTEGER": "Int64", "BOOLEAN": "boolean"}
    frame = pd.DataFrame({name: pd.Series(data[name], dtype=dtypes[kind] if kind != "DOUBLE" else "float64")
                          for name, kind in columns})
    frame["record"] = pd.Series(data["record"], dtype="object")
    return frame


def check_table(table: str) -> None:
    if table not in TABLES:
        raise BadInputError(f"no market table {table!r}; tables: {', '.join(TABLES)}")

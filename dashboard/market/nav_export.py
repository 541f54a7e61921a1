"""`market export`'s NAV table: one Parquet directory partitioned by year (Hive style,
`nav/year=2024/data_0.parquet`), so a year's NAVs are read without the rest.

The partitions are written into a temporary directory beside the target and swapped in by rename; an
existing `nav` directory is replaced only when every file in it is one the product wrote (its
Parquet metadata mark), else nothing is written. The partitioned table is not in the export's
snapshot manifest (a reader pointed at an export reads the other tables; the NAVs are for Parquet tools).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb

from dashboard.market.snapshot import MARK_KEY, SnapshotError, is_ours, sql_path

NAV_DIR = "nav"


def check_nav_dir(out: Path) -> None:
    """Refuse (SnapshotError) when `out/nav` holds anything the product did not write."""
    target = out / NAV_DIR
    if not target.exists():
        return
    if not target.is_dir():
        raise SnapshotError(f"{target} is not a directory sec-dashboard wrote; it was left alone (choose another directory)")
    for path in target.rglob("*"):
        if path.is_file() and not is_ours(path):
            raise SnapshotError(f"{path} was not written by sec-dashboard; it was left alone (choose another directory)")


def export_nav_by_year(cur: duckdb.DuckDBPyConnection, out: Path) -> list[Path]:
    """The NAV table as `out/nav/year=YYYY/*.parquet`, sorted by fund, class and day; the files written."""
    check_nav_dir(out)
    target = out / NAV_DIR
    temp = out / f".{NAV_DIR}.tmp-{os.getpid()}"
    old = out / f".{NAV_DIR}.old-{os.getpid()}"
    shutil.rmtree(temp, ignore_errors=True)
    try:
        cur.execute(f"COPY (SELECT *, year(nav_date) AS year FROM nav ORDER BY proj_id, class, nav_date) "
                    f"TO '{sql_path(temp)}' (FORMAT parquet, PARTITION_BY (year), KV_METADATA {{{MARK_KEY}: '1'}})")
        temp.mkdir(exist_ok=True)  # an empty table writes no partition: an empty directory says so
        if target.exists():
            os.replace(target, old)
        os.replace(temp, target)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return sorted(p for p in target.rglob("*.parquet"))

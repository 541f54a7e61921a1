"""The whole market in one DuckDB file: a table per dataset, swapped in whole, exported to Parquet.

Every table holds the records the records layer makes (`dashboard.records`), one row per record:
the columns a question needs (proj_id, class, codes, numbers) plus `record`, the whole normalised
record as JSON, so nothing the service sent is lost and the field names are the product's own.

A dataset is written to the staging table while it is fetched (page by page, with its cursor in
`meta`, so an interrupted sync goes on from the last page stored) and swapped in, in one
transaction, when it completes; the tables it changed are then published as Parquet files
(`dashboard.market.snapshot`). Readers (`open_reader`, or `MarketStore(read_only=True)`) read the
published snapshot through an in-memory DuckDB connection and never open the writer's file, so a
sync in another process never blocks them and they see the previous snapshot or the new one, whole.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from dashboard.config import ApiSettings
from dashboard.errors import BadInputError, SecApiError
from dashboard.market.storefile import (DEMO_STORE_FILE, STORE_FILE, StoreBusyError, check_writable, held_elsewhere,
                                        make_private_dir, move_aside, schema_problem, snapshot_dir, store_path)
from dashboard.market.snapshot import (PROGRESS, Publisher, SnapshotViews, default_dir, export_dir, published_with,
                                       export_tables, live_progress, progress_record, read_json, write_export_manifest,
                                       write_json)
from dashboard.market.figures import refresh_fund_figures
from dashboard.market.feeders import refresh_feeders
from dashboard.market.nav_export import check_nav_dir, export_nav_by_year
from dashboard.market.nav_figures_table import refresh_nav_peers
from dashboard.market.tables import (KEPT_INPUTS, KEPT_TABLES, PENDING, SCHEMA_VERSION, SNAPSHOT_TABLES, check_table,
                                     create_tables, migrate, record_frame, snapshot_schemas, stored_columns, to_json)

log = logging.getLogger("dashboard.market")
PUBLISH_SQL = {"nav": "SELECT * FROM nav ORDER BY proj_id, class, nav_date"}


def open_reader(settings: ApiSettings | None = None, path: str | Path | None = None) -> "MarketStore":
    """A reader of the published snapshot (`snapshot_dir`); empty until a sync publishes, never blocked by one."""
    return MarketStore(path, settings=settings, read_only=True)


class MarketStore:
    """The market store. Thread-safe: writes are serialised; `reader()` gives a cursor for another thread.

    The writer (the default) owns the DuckDB file and publishes each swapped dataset to the snapshot
    directory. `read_only=True` makes a reader of that snapshot (`open_reader`): an in-memory
    connection over the published Parquet files, with the same read methods; any number of readers in
    any process, while a sync writes or not. A reader's tables are empty until a snapshot is
    published and follow each new publish from their next query on.
    """

    def __init__(self, path: str | Path | None = None, *, settings: ApiSettings | None = None, read_only: bool = False):
        self.read_only = read_only
        self._lock = threading.RLock()
        self.moved_aside: Path | None = None
        self._views: SnapshotViews | None = None
        self._publisher: Publisher | None = None
        self._swaps = 0  # the writer's swaps so far (`signature`)
        self._kept_later = 0  # inside `kept_later`: publishes leave the kept answers to its end
        if read_only:
            self.snapshot_dir = snapshot_dir(settings, path)
            self.path = self.snapshot_dir
            self.con = duckdb.connect(":memory:")
            self._views = SnapshotViews(self.con, self.snapshot_dir, snapshot_schemas())
            self._views.refresh()
            return
        self.path = store_path(settings, path)
        # a store file named by path publishes next to itself; the cache directory's, where snapshot_dir says
        self.snapshot_dir = default_dir(self.path) if path is not None else snapshot_dir(settings)
        self.con = self._open()
        self._publisher = Publisher(self.snapshot_dir)
        try:
            if self._publisher.manifest is None or self.info(PENDING) is not None:
                self.publish()
            else:
                self.publish_kept()  # published before answers were kept (an older version, a sync cut short): now
        except BaseException:
            self.con.close()
            raise

    # ---- opening -------------------------------------------------------------------------------

    def _open(self) -> duckdb.DuckDBPyConnection:
        make_private_dir(self.path.parent)
        self._check_writable()
        try:
            con = duckdb.connect(str(self.path))
        except duckdb.IOException as exc:
            # Not openable as a file: held by a writer elsewhere (asked of the OS), else not a DuckDB file.
            if held_elsewhere(self.path):
                raise StoreBusyError(f"the market store {self.path} is in use by another process (a sync?); "
                                     "try again when it has finished") from None
            return self._rebuild(f"it could not be read ({type(exc).__name__}: {str(exc)[:120]})")
        except duckdb.Error as exc:  # corruption: a checksum, an internal or a fatal error
            return self._rebuild(f"it could not be read ({type(exc).__name__}: {str(exc)[:120]})")
        try:
            migrated = migrate(con)
            if migrated is not None:
                refresh_feeders(con)  # the derived table a migration adds, from what is stored
                log.warning("the market store %s was %s", self.path, migrated)
            stale = self._schema_problem(con)
            if stale is None:
                create_tables(con)
                con.execute("SELECT count(*) FROM meta").fetchone()
                return con
        except duckdb.Error as exc:
            stale = f"it could not be read ({type(exc).__name__}: {str(exc)[:120]})"
        con.close()
        return self._rebuild(stale)

    def _check_writable(self) -> None:
        check_writable(self.path)

    def _schema_problem(self, con: duckdb.DuckDBPyConnection) -> str | None:
        return schema_problem(con, stored_columns(), SCHEMA_VERSION)

    def _rebuild(self, why: str) -> duckdb.DuckDBPyConnection:
        """Move a damaged or foreign store file (and its write-ahead log) aside with one warning line and
        start a new one. Only the store's own file name is ever moved; nothing is deleted."""
        if self.path.name not in (STORE_FILE, DEMO_STORE_FILE) and not self.path.name.endswith(".duckdb"):
            raise SecApiError(f"{self.path} is not a market store ({why}); it was left alone")
        self.moved_aside = move_aside(self.path)
        log.warning("the market store %s was rebuilt: %s; it was moved to %s and a new, empty store was started: "
                    "run `market sync` to fill it", self.path, why, self.moved_aside.name)
        con = duckdb.connect(str(self.path))
        create_tables(con)
        return con

    def close(self) -> None:
        with self._lock:
            self.con.close()

    def __enter__(self) -> "MarketStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def reader(self) -> duckdb.DuckDBPyConnection:
        """A cursor of its own (for another thread): it sees committed snapshots only."""
        self._refresh()
        if self._views is not None:
            with self._lock:
                self._views.ensure(self._views.schemas)  # its queries do not pass through `query`
        return self.con.cursor()

    # ---- reading -------------------------------------------------------------------------------

    def _refresh(self, force: bool = False) -> None:
        """A reader's views follow the newest published snapshot (one stat when nothing changed)."""
        if self._views is not None:
            with self._lock:
                self._views.refresh(force)

    def has_snapshot(self) -> bool:
        """Whether there is anything to read: a dataset swapped in (and, for a reader, published)."""
        return bool(self.query("SELECT 1 FROM meta WHERE complete LIMIT 1"))

    def signature(self) -> Any:
        """What changes whenever what the store answers may have changed (a reader: the published snapshot's manifest;
        the writer: each swap), for caches of derived answers. Cheap: at most one stat."""
        if self._views is not None:
            self._refresh()
            return ("snapshot", self._views.signature)
        return ("writer", self._swaps)

    def kept(self, table: str, inputs: Iterable[str]) -> bool:
        """Whether a table of answers kept per snapshot (`tables.KEPT_TABLES`) may be served as it is: for a reader,
        when the snapshot published it with or after every table it is computed from (`inputs`). The writer
        computes afresh: its tables change before a publish computes the kept answers again."""
        if self._views is None:
            return False
        self._refresh()
        with self._lock:
            return self._views.published_with(table, inputs)

    def _run(self, sql: str, params: Sequence[Any] | None, fetch, frames: Mapping[str, pd.DataFrame] | None = None):
        self._refresh()
        if self._views is not None:
            with self._lock:
                self._views.ensure(self._views.named(sql))  # a reader's views: those this query names
        for attempt in (1, 2):
            cur = self.con.cursor()
            try:
                for name, frame in (frames or {}).items():  # this query's own small tables (on its own cursor)
                    cur.register(name, frame)
                return fetch(cur.execute(sql, params or []))
            except duckdb.IOException:
                # a file of an older generation went (its reader was slow): read the newest one, once
                if self._views is None or attempt == 2:
                    raise
                self._refresh(force=True)
            finally:
                cur.close()
        raise AssertionError("unreachable")

    def query(self, sql: str, params: Sequence[Any] | None = None, *,
              frames: Mapping[str, pd.DataFrame] | None = None) -> list[dict]:
        """Rows as dicts. `frames`: data frames the query reads as tables by these names (registered on its cursor)."""
        def rows(result):
            names = [d[0] for d in result.description]
            return [dict(zip(names, row)) for row in result.fetchall()]
        return self._run(sql, params, rows, frames)

    def frame(self, sql: str, params: Sequence[Any] | None = None, *,
              frames: Mapping[str, pd.DataFrame] | None = None) -> pd.DataFrame:
        return self._run(sql, params, lambda result: result.df(), frames)

    def count(self, table: str) -> int:
        check_table(table)
        return self.query(f"SELECT count(*) AS n FROM {table}")[0]["n"]

    def records(self, table: str, where: str = "", params: Sequence[Any] | None = None) -> list[dict]:
        """The stored records of a table (the normalised records, with their keys), in stored order."""
        check_table(table)
        rows = self.query(f"SELECT record FROM {table} {where}", params)
        return [json.loads(r["record"]) for r in rows]

    def fund(self, proj_id: str) -> dict | None:
        """The fund record of `proj_id` with its company's names (`company_name_en`, `company_name_th`), or None."""
        rows = self.query(
            "SELECT f.record, c.comp_name_en, c.comp_name_th FROM funds f "
            "LEFT JOIN companies c ON c.unique_id = f.unique_id WHERE f.proj_id = ? LIMIT 1", [proj_id])
        if not rows:
            return None
        record = json.loads(rows[0]["record"])
        record["company_name_en"] = _strip(rows[0]["comp_name_en"]) or _strip(record.get("comp_name_en"))
        record["company_name_th"] = _strip(rows[0]["comp_name_th"]) or _strip(record.get("comp_name_th"))
        return record

    def resolve(self, query: str) -> str | None:
        """The proj_id a proj_id or an exact abbreviation (any case) names in the store, or None."""
        text = query.strip()
        rows = self.query("SELECT proj_id FROM funds WHERE proj_id = ? OR upper(proj_id) = upper(?) "
                          "OR upper(proj_abbr_name) = upper(?) ORDER BY proj_id = ? DESC, proj_id LIMIT 1",
                          [text, text, text, text])
        return rows[0]["proj_id"] if rows else None

    def progress(self, now: float | None = None) -> dict | None:
        """The progress of a sync running now (its file beside the snapshot), or None."""
        return live_progress(read_json(self.snapshot_dir / PROGRESS), now)

    def write_progress(self, **fields: Any) -> None:
        """Replace the progress file (a sync's own; `running=False` when it ends). Never fails the sync."""
        if self.read_only:
            return
        try:
            self.snapshot_dir.mkdir(parents=True, exist_ok=True)
            write_json(self.snapshot_dir / PROGRESS, progress_record(**fields))
        except OSError as exc:
            log.debug("could not write the sync progress: %s", exc)

    def meta(self, dataset: str | None = None) -> dict[str, dict]:
        rows = self.query("SELECT * FROM meta" + (" WHERE dataset = ?" if dataset else "") + " ORDER BY dataset",
                          [dataset] if dataset else None)
        return {r["dataset"]: r for r in rows}

    def info(self, name: str) -> str | None:
        rows = self.query("SELECT value FROM info WHERE name = ?", [name])
        return rows[0]["value"] if rows else None

    # ---- staging (resumable fetching) ---------------------------------------------------------

    def begin(self, dataset: str, layout: str) -> dict:
        """Start (or go on with) fetching `dataset`: its meta row. A run of another layout starts over."""
        self._write_check()
        with self._lock:
            current = self.meta(dataset).get(dataset)
            if current is not None and current["started_at"] is not None and current["layout"] == layout:
                return current
            self.con.execute("BEGIN")
            try:
                self.con.execute("DELETE FROM stage WHERE dataset = ?", [dataset])
                self.con.execute(
                    "INSERT INTO meta (dataset, rows, fetched_at, complete, cursor, pages, calls, started_at, layout) "
                    "VALUES (?, 0, NULL, FALSE, NULL, 0, 0, ?, ?) ON CONFLICT (dataset) DO UPDATE SET "
                    "cursor = NULL, pages = 0, calls = 0, started_at = excluded.started_at, layout = excluded.layout",
                    [dataset, time.time(), layout])
                self.con.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
            return self.meta(dataset)[dataset]

    def stage_page(self, dataset: str, unit: str, payload: Any, *, cursor: str | None, calls: int) -> None:
        """Keep one fetched page (or one fund's answer) and where to go on from, in one transaction."""
        text = to_json(payload)
        with self._lock:
            self.con.execute("BEGIN")
            try:
                # its sequence number (the pages kept before it) counted in the insert itself: one statement
                # fewer per page, a NAV sync's hundreds of pages each pay for every statement
                self.con.execute("INSERT INTO stage SELECT ?, ?, count(*), ? FROM stage WHERE dataset = ?",
                                 [dataset, unit, text, dataset])
                self.con.execute("UPDATE meta SET cursor = ?, pages = pages + 1, calls = calls + ? WHERE dataset = ?",
                                 [cursor, calls, dataset])
                self.con.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    def staged(self, dataset: str) -> list[tuple[str, Any]]:
        """(unit, payload) of every page kept for `dataset`, in the order fetched."""
        rows = self.query("SELECT unit, payload FROM stage WHERE dataset = ? ORDER BY seq", [dataset])
        return [(r["unit"], json.loads(r["payload"])) for r in rows]

    def staged_units(self, dataset: str) -> set[str]:
        return {r["unit"] for r in self.query("SELECT DISTINCT unit FROM stage WHERE dataset = ?", [dataset])}

    def restart(self, dataset: str) -> None:
        """Forget the pages kept for `dataset` (its cursor expired): the next fetch starts from the first page."""
        self._write_check()
        with self.transaction() as con:
            con.execute("DELETE FROM stage WHERE dataset = ?", [dataset])
            con.execute("UPDATE meta SET cursor = NULL, pages = 0 WHERE dataset = ?", [dataset])

    def forget(self, dataset: str) -> None:
        """Forget `dataset` as if it had never been asked for (its pages and its meta row): a quarter of holdings
        the service has nothing for yet is asked again on the next run, never kept as done with 0 rows."""
        self._write_check()
        with self.transaction() as con:
            con.execute("DELETE FROM stage WHERE dataset = ?", [dataset])
            con.execute("DELETE FROM meta WHERE dataset = ?", [dataset])

    def _rollback(self) -> None:
        """Undo the transaction an error broke into. A COMMIT that failed (a write refused: the disk full)
        has ended it already, and DuckDB's "cannot rollback - no transaction is active" would then stand
        in place of the error that ended it, the one to report."""
        try:
            self.con.execute("ROLLBACK")
        except duckdb.TransactionException as exc:
            log.debug("no transaction to roll back after a failed write (%s)", exc)

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The writer's connection inside one transaction (committed on leaving, rolled back on an error)."""
        self._write_check()
        with self._lock:
            self.con.execute("BEGIN")
            try:
                yield self.con
                self.con.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    # ---- swapping a dataset in ----------------------------------------------------------------

    def swap(self, dataset: str, tables: dict[str, list[dict]], *, where: dict[str, Any] | None = None,
             fetched_at: float | None = None, extra_meta: Iterable[str] = ()) -> None:
        """Replace the rows of `tables` with these records and mark `dataset` complete, in one transaction.

        `where` limits the replacement to rows with these column values (one quarter of holdings);
        `extra_meta` names other datasets this swap also completes (profiles fill funds and classes).
        """
        self._write_check()
        frames = {table: record_frame(table, records) for table, records in tables.items()}
        now = fetched_at or time.time()
        with self._lock:
            self.con.execute("BEGIN")
            try:
                for table, frame in frames.items():
                    if where:
                        clause = " AND ".join(f"{col} = ?" for col in where)
                        self.con.execute(f"DELETE FROM {table} WHERE {clause}", list(where.values()))
                    else:
                        self.con.execute(f"DELETE FROM {table}")
                    if len(frame):
                        self.con.register("_incoming", frame)
                        self.con.execute(f"INSERT INTO {table} SELECT * FROM _incoming")
                        self.con.unregister("_incoming")
                first = len(next(iter(frames.values()))) if frames else 0
                for name in (dataset, *extra_meta):
                    rows = len(frames[name]) if name in frames else first
                    self.con.execute(
                        "INSERT INTO meta (dataset, rows, fetched_at, complete, cursor, pages, calls, started_at, layout) "
                        "VALUES (?, ?, ?, TRUE, NULL, 0, 0, NULL, NULL) ON CONFLICT (dataset) DO UPDATE SET "
                        "rows = excluded.rows, fetched_at = excluded.fetched_at, complete = TRUE, cursor = NULL, "
                        "started_at = NULL", [name, rows, now])
                self.con.execute("DELETE FROM stage WHERE dataset = ?", [dataset])
                changed = [*frames, "meta"]
                if {"fees", "performance"} & set(frames):
                    refresh_fund_figures(self.con)
                    changed.append("fund_figures")
                if {"funds", "holdings"} & set(frames):  # every feeder's master
                    refresh_feeders(self.con)
                    changed.append("feeders")
                if {"funds", "risk"} & set(frames):  # the NAV figures' peers: same policy type and risk level
                    refresh_nav_peers(self.con)
                    changed.append("nav_figures")
                self.con.execute("INSERT OR REPLACE INTO info VALUES (?, '1')", [PENDING])
                self.con.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
            self.publish(changed, period=(where or {}).get("period"))

    def publish(self, tables: Iterable[str] | None = None, *, period: str | None = None) -> None:
        """Publish tables (all when None) to the snapshot directory as one new generation.

        Holdings are one file per quarter: `period` publishes that quarter alone, else every quarter
        stored (and quarters no longer stored leave the snapshot).
        """
        self._swaps += 1  # whatever is published may have changed (`signature`)
        self._write_check()
        with self._lock:
            names = list(SNAPSHOT_TABLES) if tables is None else [t for t in dict.fromkeys(tables)]
            if not self._kept_later:
                # the answers kept per snapshot, computed again from what this publish changes (market/kept.py)
                from dashboard.market.kept import refresh_kept
                names += [t for t in refresh_kept(self, names, period=period) if t not in names]
            parts: dict[str, str] = {}
            drop: list[str] = []
            for table in names:
                if table != "holdings":
                    # in stored order, as the writer reads it; NAVs by class and day, so a reader's chart
                    # of one class reads the few row groups that hold it
                    parts[table] = PUBLISH_SQL.get(table, f"SELECT * FROM {table}")
                    continue
                stored = [r[0] for r in self.con.execute("SELECT DISTINCT period FROM holdings WHERE period IS NOT NULL "
                                                         "ORDER BY 1").fetchall()]
                quarters = [period] if period is not None else stored
                for quarter in quarters:
                    if not str(quarter).isdigit():
                        continue
                    parts[f"holdings:{quarter}"] = f"SELECT * FROM holdings WHERE period = '{quarter}'"
                if period is None:
                    known = (self._publisher.manifest or {}).get("files", {})
                    drop.extend(k for k in known if k.startswith("holdings:") and k.split(":", 1)[1] not in stored)
            self._publisher.publish(self.con, parts, drop=drop)
            if self.info(PENDING) is not None:
                self.con.execute("DELETE FROM info WHERE name = ?", [PENDING])

    @contextmanager
    def kept_later(self) -> Iterator[None]:
        """Publishes inside leave the answers kept per snapshot stale (readers compute afresh meanwhile); they are
        computed once on leaving: a sync publishes each dataset as it completes, and computing them after each
        would repeat the work a dozen times."""
        self._write_check()
        self._kept_later += 1
        try:
            yield
        except Exception:  # a sync stopped (its budget, an error): what it published is kept for, if that works
            self._kept_later -= 1
            if not self._kept_later:
                try:
                    self.publish_kept()
                except Exception as exc:  # the error that stopped the work is the one to report
                    log.warning("the answers kept per snapshot were not computed (%s); readers compute them", exc)
            raise
        except BaseException:  # interrupted: left stale (readers compute afresh; the next publish keeps them)
            self._kept_later -= 1
            raise
        self._kept_later -= 1
        if not self._kept_later:
            self.publish_kept()

    def publish_kept(self) -> None:
        """Compute and publish the answers kept per snapshot that the published snapshot holds stale or not at all."""
        stale = [t for t in KEPT_TABLES if not published_with(self._publisher.manifest, t, KEPT_INPUTS[t])]
        if stale:
            self.publish(stale)

    def _write_check(self) -> None:
        if self.read_only:
            raise BadInputError("this market store is a reader of the published snapshot; a sync writes it")

    def set_info(self, name: str, value: object, *, publish: bool = True) -> None:
        self._write_check()
        with self._lock:
            self.con.execute("INSERT OR REPLACE INTO info VALUES (?, ?)", [name, str(value)])
            if publish:
                self.publish(["info"])

    # ---- export ----------------------------------------------------------------------------------

    def export(self, directory: str | Path) -> list[Path]:
        """One Parquet file per table (and `meta`, `info`) in `directory`, with a snapshot manifest, so
        the directory is itself a snapshot readers can be pointed at; the NAV table as `nav/year=YYYY/`
        partitions (`nav_export`, not in the manifest); the Parquet paths written.

        A file of the same name that the product did not write is never replaced (SnapshotError, and
        nothing is written then).
        """
        tables = [t for t in SNAPSHOT_TABLES if t != "nav"]  # the NAVs: a directory partitioned by year
        # answers kept per snapshot only when this snapshot's are current (its readers compute afresh without them)
        tables = [t for t in tables if t not in KEPT_TABLES or self.kept(t, KEPT_INPUTS[t])]
        out = export_dir(directory, self.snapshot_dir, tables)
        check_nav_dir(out)
        with self._lock:
            self._refresh()
            if self._views is not None:
                self._views.ensure(self._views.schemas)  # every table (the NAVs too), read through a cursor
            cur = self.con.cursor()
            try:
                written = export_tables(cur, out, tables)
                nav_files = export_nav_by_year(cur, out)
            finally:
                cur.close()
        write_export_manifest(out, written)
        return written + nav_files


def _strip(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None

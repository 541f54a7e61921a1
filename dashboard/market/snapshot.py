"""The published snapshot of the market store: Parquet files and a manifest that readers in any process read.

The writer (a sync) keeps its DuckDB file to itself; after each dataset swap it writes the tables
that changed as new Parquet files and then replaces the manifest (`snapshot.json`) in one
`os.replace`. A reader reads the manifest once per query and the files it names, through an
in-memory DuckDB connection, so it sees one published generation whole (every table of it), never a
half-written file, and never waits for the writer. Holdings are one file per quarter, so a quarter's
swap writes only that quarter.

Files of a generation two publishes old are removed, but only the product's own: names of the form
`TABLE.GENERATION.parquet` (`holdings-YYYYMM.GENERATION.parquet`) carrying the product's Parquet
metadata mark, and its own temporary files. The same directory layout is what `market export`
writes, so a team can put one snapshot on shared storage and point every dashboard at it
(`SEC_DASHBOARD_MARKET_DIR`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb

from dashboard.errors import BadInputError

log = logging.getLogger("dashboard.market")

MARKET_DIR_ENV = "SEC_DASHBOARD_MARKET_DIR"
MANIFEST = "snapshot.json"
PROGRESS = "sync-progress.json"
FORMAT = "sec-dashboard-market-snapshot"
MARK_KEY = "sec_dashboard_market"
KEEP_GENERATIONS = 2  # files of the last two generations stay for readers that read an older manifest
STALE_PROGRESS_S = 900.0  # a progress file not touched for this long belongs to a sync that is gone

_PART = re.compile(r"^(?P<key>[a-z_]+(?:-[0-9]{6})?)\.(?P<gen>[0-9]+)\.parquet$")
_TEMP = re.compile(r"^\.(?P<name>[^/]+)\.tmp-(?P<pid>[0-9]+)$")


class SnapshotError(BadInputError):
    """The snapshot directory holds a file the product did not write where it would write one (exit 2)."""


def default_dir(store_file: Path) -> Path:
    """The snapshot directory next to a store file: `market.duckdb` -> `market-snapshot/`."""
    return store_file.with_name(store_file.stem + "-snapshot")


def env_dir(environ: dict | None = None) -> Path | None:
    value = (os.environ if environ is None else environ).get(MARKET_DIR_ENV, "").strip()
    return Path(value).expanduser() if value else None


def key_table(key: str) -> str:
    """The table a manifest key fills: "holdings:202606" -> "holdings"."""
    return key.split(":", 1)[0]


def part_name(key: str, generation: int) -> str:
    return f"{key.replace(':', '-')}.{generation}.parquet"


def sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def copy_to(con: duckdb.DuckDBPyConnection, select: str, target: Path) -> None:
    """Write a query's rows to `target` as Parquet marked as the product's: a temporary file, then one rename."""
    check_ours(target)
    temp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        con.execute(f"COPY ({select}) TO '{sql_path(temp)}' (FORMAT parquet, KV_METADATA {{{MARK_KEY}: '1'}})")
        os.replace(temp, target)
    finally:
        if temp.exists():
            temp.unlink()


def is_ours(path: Path) -> bool:
    """True for a Parquet file the product wrote (it carries the product's metadata mark)."""
    try:
        rows = duckdb.execute("SELECT key FROM parquet_kv_metadata(?)", [str(path)]).fetchall()
    except duckdb.Error:
        return False
    return any((k.decode() if isinstance(k, bytes) else k) == MARK_KEY for (k,) in rows)


def check_ours(path: Path) -> None:
    if path.exists() and not is_ours(path):
        raise SnapshotError(f"{path} was not written by sec-dashboard; it was left alone (choose another directory)")


def read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict) -> None:
    """Replace a small JSON file in one rename (a reader sees the old one or the new one)."""
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temp.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()


def read_manifest(directory: Path) -> dict | None:
    data = read_json(directory / MANIFEST)
    if data is None or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
        return None
    return data


def check_manifest_ours(directory: Path) -> None:
    path = directory / MANIFEST
    if path.exists() and read_manifest(directory) is None:
        raise SnapshotError(f"{path} was not written by sec-dashboard; it was left alone (choose another directory)")


def export_dir(directory: str | Path, own_dir: Path, tables: Iterable[str]) -> Path:
    """The directory `market export` writes into, made and checked before anything is written: not empty,
    not the store's own snapshot directory, writable, and holding no file of the same name the product did
    not write (SnapshotError)."""
    if not str(directory).strip():
        raise BadInputError("the directory to export into is empty: name one (`.` for the current directory)")
    out = Path(directory).expanduser()
    if out.resolve() == own_dir.resolve():
        raise BadInputError(f"{out} is where this store publishes its snapshot; export to another directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInputError(f"cannot export into {out}: {exc.strerror or type(exc).__name__}; nothing was written") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise BadInputError(f"cannot export into {out}: it is not writable; nothing was written")
    check_manifest_ours(out)
    for table in tables:
        check_ours(out / f"{table}.parquet")
    return out


def export_tables(cur: duckdb.DuckDBPyConnection, out: Path, tables: Iterable[str]) -> list[Path]:
    """Each table as `out/TABLE.parquet`, all from one snapshot of the store (one transaction); the paths."""
    written = []
    cur.execute("BEGIN")  # one snapshot for every file
    for table in tables:
        target = out / f"{table}.parquet"
        copy_to(cur, f"SELECT * FROM {table}", target)
        written.append(target)
    cur.execute("COMMIT")
    return written


def write_export_manifest(out: Path, written: list[Path]) -> None:
    """The manifest that makes an exported directory a snapshot readers can be pointed at."""
    write_json(out / MANIFEST, {"format": FORMAT, "version": 1, "generation": 0, "published_at": time.time(),
                                "files": {p.stem: p.name for p in written}})


class Publisher:
    """Publishes the writer's tables into a snapshot directory, one generation per publish."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.manifest = read_manifest(directory)

    @property
    def generation(self) -> int:
        return int(self.manifest["generation"]) if self.manifest else 0

    def publish(self, con: duckdb.DuckDBPyConnection, parts: dict[str, str], *, drop: Iterable[str] = (),
                replace_all: bool = False) -> None:
        """Write each part (manifest key -> SELECT) as a new file, then the manifest naming them.

        `drop` removes keys (quarters no longer stored); `replace_all` starts the file list afresh.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        check_manifest_ours(self.directory)
        current = read_manifest(self.directory)  # another writer may have published since
        generation = max(self.generation, int(current["generation"]) if current else 0) + 1
        files = {} if replace_all else dict((current or self.manifest or {}).get("files", {}))
        for key, select in parts.items():
            name = part_name(key, generation)
            copy_to(con, select, self.directory / name)
            files[key] = name
        for key in drop:
            files.pop(key, None)
        manifest = {"format": FORMAT, "version": 1, "generation": generation, "published_at": time.time(),
                    "files": dict(sorted(files.items()))}
        write_json(self.directory / MANIFEST, manifest)
        self.manifest = manifest
        self.collect()

    def collect(self) -> None:
        """Remove the product's own files that no reader can still be reading: parts of generations older
        than KEEP_GENERATIONS and not named by the manifest, and temporary files of processes that ended."""
        named = set((self.manifest or {}).get("files", {}).values())
        oldest = self.generation - KEEP_GENERATIONS
        try:
            entries = list(os.scandir(self.directory))
        except OSError:
            return
        for entry in entries:
            part = _PART.match(entry.name)
            if part and entry.name not in named and int(part["gen"]) < oldest and entry.is_file():
                path = Path(entry.path)
                if is_ours(path):
                    _unlink(path)
                continue
            temp = _TEMP.match(entry.name)
            if temp and not _alive(int(temp["pid"])) and entry.is_file():
                _unlink(Path(entry.path))


class SnapshotViews:
    """The tables of a snapshot directory as views of an in-memory DuckDB connection, kept current.

    `refresh()` (cheap: one stat of the manifest) points each view at the files of the newest
    published generation; a table with no file yet is an empty table of the right columns.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, directory: Path, schemas: dict[str, str]):
        self.con = con
        self.directory = directory
        self.schemas = schemas  # table -> "col TYPE, ..." for its empty stand-in
        self._signature: Any = object()
        # A view is made when a query first names its table (`ensure`): a command reading a few tables does not pay
        # for binding every table's files (a DuckDB view reads its Parquet files' footers when it is made).
        self._wanted: dict[str, tuple[str, ...]] = {t: () for t in schemas}  # the newest generation's files
        self._files: dict[str, tuple[str, ...]] = {}  # the views made -> the files they read
        self._empty: set[str] = set()  # the empty stand-ins made
        self._names = re.compile(r"\b(" + "|".join(sorted(map(re.escape, schemas), key=len, reverse=True)) + r")\b",
                                 re.IGNORECASE)
        self.manifest: dict | None = None

    @property
    def signature(self) -> Any:
        """The published generation the views point at (as of the last `refresh`)."""
        return self._signature

    def published_with(self, table: str, inputs: Iterable[str]) -> bool:
        """`published_with` of the generation the views point at."""
        return published_with(self.manifest, table, inputs)

    def named(self, sql: str) -> set[str]:
        """The snapshot's tables a query's text names (a name in a string or an alias too: a view made needlessly)."""
        return {m.lower() for m in self._names.findall(sql)}

    def ensure(self, tables: Iterable[str]) -> None:
        """Make the views of these tables that are not made yet, over the files of the generation refreshed to."""
        self._point({t: self._wanted[t] for t in tables if t in self.schemas and t not in self._files})

    def _stat(self) -> Any:
        try:
            st = (self.directory / MANIFEST).stat()
        except OSError:
            # no manifest: plain TABLE.parquet files (an export of an older version), or nothing yet
            return tuple(_file_signature(self.directory / f"{t}.parquet") for t in self.schemas)
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def refresh(self, force: bool = False) -> None:
        signature = self._stat()
        if not force and signature == self._signature:
            return
        manifest = read_manifest(self.directory)
        wanted: dict[str, list[str]] = {t: [] for t in self.schemas}
        if manifest is not None:
            for key, name in sorted(manifest["files"].items()):
                table = key_table(key)
                if table in wanted and isinstance(name, str) and "/" not in name and "\\" not in name:
                    wanted[table].append(str(self.directory / name))
        else:
            for table in self.schemas:
                path = self.directory / f"{table}.parquet"
                if path.is_file():
                    wanted[table].append(str(path))
        self._point({t: tuple(wanted[t]) for t, files in self._files.items() if force or tuple(wanted[t]) != files})
        self._wanted = {t: tuple(f) for t, f in wanted.items()}
        self.manifest = manifest
        self._signature = signature

    def _point(self, views: dict[str, tuple[str, ...]]) -> None:
        """(Re)make these views over these files (an empty table of the right columns for none), in one transaction:
        a query in another thread sees every view of one generation, never a mix."""
        if not views:
            return
        empty = set()
        self.con.execute("BEGIN")
        try:
            for table, files in views.items():
                if files:
                    listed = ", ".join(f"'{sql_path(Path(f))}'" for f in files)
                    self.con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM "
                                     f"read_parquet([{listed}])")
                else:
                    if table not in self._empty:
                        self.con.execute(f"CREATE TABLE IF NOT EXISTS _empty_{table} ({self.schemas[table]})")
                        empty.add(table)
                    self.con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM _empty_{table}")
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self._empty |= empty
        self._files.update(views)


def progress_record(**fields: Any) -> dict:
    """A sync's progress as the file holds it, with who writes it (to tell a sync that is gone)."""
    return {"pid": os.getpid(), "host": socket.gethostname(), "updated_at": time.time(), **fields}


def live_progress(data: dict | None, now: float | None = None) -> dict | None:
    """The progress of a sync that is running now, or None (finished, killed, or silent for too long)."""
    if not data or not data.get("running"):
        return None
    now = time.time() if now is None else now
    updated = data.get("updated_at")
    if not isinstance(updated, (int, float)) or now - updated > STALE_PROGRESS_S:
        return None
    pid = data.get("pid")
    if data.get("host") == socket.gethostname() and isinstance(pid, int) and not _alive(pid):
        return None
    return data


def published_with(manifest: dict | None, table: str, inputs: Iterable[str]) -> bool:
    """Whether a manifest's generation published `table` no earlier than every file of `inputs` (tables; "holdings"
    stands for each quarter's file): a table derived from them was then computed from these very files. An export
    (plain TABLE.parquet names, every file written at once) counts as one generation."""
    files = (manifest or {}).get("files", {})
    if table not in files:
        return False
    kept = _generation(files[table])
    wanted = set(inputs)
    for key, name in files.items():
        if key_table(key) in wanted:
            made = _generation(name)
            if (kept is None) != (made is None) or (kept is not None and made is not None and made > kept):
                return False
    return True


def _generation(name: Any) -> int | None:
    """The generation a published part's file name carries (`TABLE.GENERATION.parquet`); None for an export's."""
    part = _PART.match(name) if isinstance(name, str) else None
    return int(part["gen"]) if part else None


def _file_signature(path: Path) -> Any:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError as exc:  # a reader on a system that keeps open files, or it went already
        log.debug("could not remove %s: %s", path, exc)


__all__ = ["FORMAT", "KEEP_GENERATIONS", "MANIFEST", "MARKET_DIR_ENV", "PROGRESS", "Publisher", "SnapshotError",
           "SnapshotViews", "check_manifest_ours", "check_ours", "copy_to", "default_dir", "env_dir", "is_ours",
           "key_table", "live_progress", "progress_record", "published_with", "read_json", "read_manifest", "write_json"]

"""The market store's file: where it lives (and where its snapshot is published), whose it is, whether
it can be written, whether it is this version's, and moving a damaged one aside. Told apart by what the operating system and the file say, never by an error's words."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import duckdb

from dashboard.config import ApiSettings
from dashboard.errors import BadInputError, SecApiError
from dashboard.market.snapshot import MANIFEST, default_dir, env_dir

STORE_FILE = "market.duckdb"
DEMO_STORE_FILE = "market-demo.duckdb"  # the demo market never mixes with a real one


def store_path(settings: ApiSettings | None = None, path: str | Path | None = None) -> Path:
    """The store file: `path` (a file, or a directory holding STORE_FILE), else the cache directory's
    (DEMO_STORE_FILE for demo settings)."""
    if path is not None:
        p = Path(path).expanduser()
        return p / STORE_FILE if p.is_dir() else p
    settings = settings or ApiSettings.from_env()
    if settings.cache_dir is None:
        raise BadInputError("no cache directory to keep the market store in: set SEC_DASHBOARD_CACHE_DIR or --cache-dir")
    return Path(settings.cache_dir) / (DEMO_STORE_FILE if settings.demo else STORE_FILE)


def snapshot_dir(settings: ApiSettings | None = None, path: str | Path | None = None) -> Path:
    """Where a store's snapshot is published and read.

    `path` given: a snapshot directory itself (one holding a snapshot manifest, or no store file),
    else the `NAME-snapshot/` directory next to the store file it names. No `path`: the directory in
    SEC_DASHBOARD_MARKET_DIR (shared storage; never for the demo market), else the one next to the
    cache directory's store file.
    """
    if path is not None:
        p = Path(path).expanduser()
        if p.is_dir() and ((p / MANIFEST).exists()
                           or not any((p / name).exists() for name in (STORE_FILE, DEMO_STORE_FILE))):
            return p
        return default_dir(store_path(settings, p))
    settings = settings or ApiSettings.from_env()
    shared = None if settings.demo else env_dir()
    return shared if shared is not None else default_dir(store_path(settings))


class StoreBusyError(SecApiError):
    """Another process holds the store file open for writing (a sync running)."""

    exit_code = 4


class StoreFullError(SecApiError):
    """The disk that holds the store (or its snapshot) has no room left: what was stored before stays."""

    exit_code = 4


# Writes refused for want of room: the disk is full, the user's quota spent, or the file-size limit reached.
_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def store_full(exc: BaseException, directory: Path) -> StoreFullError | None:
    """The error to report when `exc` is a write refused for want of room in `directory`, else None.

    An OSError carries its errno. DuckDB's errors carry none: the one exception to this module's rule,
    they are told by the operating system's own text for the errno (os.strerror, as DuckDB prints it),
    not by words of DuckDB's."""
    if isinstance(exc, OSError):
        full = exc.errno in _NO_ROOM
    elif isinstance(exc, duckdb.Error):
        text = str(exc)
        full = any(os.strerror(code) in text for code in _NO_ROOM)
    else:
        full = False
    if not full:
        return None
    return StoreFullError(
        f"the market store could not be written: no space left on the disk that holds {directory}. "
        "Free some space there (or give --cache-dir a directory on a disk with room), then run `market sync` "
        "again: what was stored before is kept, and the sync goes on from where it stopped")


class StoreReadOnlyError(BadInputError):
    """The store file (or its directory) cannot be written: nothing is touched (exit 2)."""


def held_elsewhere(path: Path) -> bool:
    """Whether another process holds the store file open for writing (DuckDB keeps a POSIX write lock on
    it): asked of the operating system, not read from an error message. Call only while this process has
    no connection to the file (closing a descriptor drops this process's own locks on it)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: DuckDB's own error stands
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def make_private_dir(directory: Path) -> None:
    """Create `directory` and any missing parents mode 0700 (the cache directory's mode); an existing one
    keeps its mode."""
    missing = []
    for ancestor in (directory, *directory.parents):
        try:
            os.lstat(ancestor)
        except FileNotFoundError:
            missing.append(ancestor)
            continue
        except OSError:
            pass  # there, but not ours to look into: creating below it says why it cannot be used
        break
    for new in reversed(missing):
        try:
            new.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(new, 0o700)  # the umask may have taken bits away; this one is ours




def check_writable(path: Path) -> None:
    """A store that cannot be written is said so, and left as it is (never taken for a damaged one)."""
    for target in (path, path.parent):
        if os.path.exists(target) and not os.access(target, os.W_OK):
            raise StoreReadOnlyError(f"the market store {path} cannot be written ({target} is read-only); "
                                     "nothing was changed: give a writable --cache-dir")


def schema_problem(con: duckdb.DuckDBPyConnection, tables: dict[str, list[str]], version: int) -> str | None:
    """Why a store file is not this version's (one line), or None: a new file, or this version's `tables`
    (name -> columns in order) under schema `version`."""
    found = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                       "WHERE table_schema = 'main'").fetchall()}
    if not found:
        return None
    written = None
    if "info" in found:
        row = con.execute("SELECT value FROM info WHERE name = 'schema_version'").fetchone()
        written = row[0] if row else None
    if written != str(version):
        return (f"it was written by another version of this program (store schema {written or 'unknown'}, "
                f"this version's is {version})")
    columns: dict[str, list[str]] = {}
    for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                     "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
        columns.setdefault(table, []).append(column)
    for table, expected in tables.items():
        if table in columns and columns[table] != expected:
            return f"its {table} table is not this version's (store schema {written})"
    return None


def move_aside(path: Path) -> Path:
    """Rename the store file (and its write-ahead log) to NAME.corrupt-STAMP; where it went."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    path.replace(aside)
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        wal.replace(aside.with_name(aside.name + ".wal"))
    return aside

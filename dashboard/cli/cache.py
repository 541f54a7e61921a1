"""`sec-dashboard cache info|clear`: where the response cache is and what it holds, or emptying it."""

from __future__ import annotations

import argparse
import os
import sqlite3
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from dashboard.cli.checks import size_text
from dashboard.cli.output import EXIT_OK
from dashboard.cli.service import settings_from
from dashboard.cli.terminal import json_text, out
from dashboard.errors import BadInputError, CacheUnavailableError


def add_cache_commands(sub, add: Callable[..., argparse.ArgumentParser], as_json) -> None:
    """`cache` and its actions on the command line's subcommands (`add` is the command line's own helper)."""
    cache = sub.add_parser("cache", help="the response cache").add_subparsers(dest="cache_command", required=True, metavar="ACTION")
    add(cache, "info", cmd_cache, "where the cache is and what it holds", as_json)
    add(cache, "clear", cmd_cache, "remove every cached response")


def _cache_unusable(directory: Path, reason: str) -> CacheUnavailableError:
    return CacheUnavailableError(f"the cache directory {directory} cannot be used: {reason} "
                                 "(give another with --cache-dir or SEC_DASHBOARD_CACHE_DIR)")


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

    settings = settings_from(args)
    if settings.cache_dir is None:
        raise BadInputError("no cache directory is set")
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
        titles = {"directory": "Directory", "entries": "Responses kept", "fresh": "Fresh", "stale": "Expired (kept)",
                  "size_bytes": "Size"}
        for key, value in info.items():
            shown = size_text(value) if key == "size_bytes" else value
            out(f"{titles.get(key, key):15} {shown}")
    return EXIT_OK

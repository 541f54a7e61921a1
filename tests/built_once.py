"""Expensive, immutable test inputs (a whole demo-market sync's store) built once for the whole run.

A session fixture is built once per process: with the suite on two xdist workers, each worker synced the
same demo market again (a whole sync is 10-25 s of CPU). `built_once` builds a directory once for every
worker of the run, under the run's own temporary root (a new one each run, so nothing carries over from an
older run or another checkout); the first worker to ask builds it while the others wait on a file lock.

The built directory is read-only to its users: a test that writes copies it first (`copy_built`).
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

DONE = ".built"  # written last: a directory without it was left by a build that failed


def run_root(tmp_path_factory) -> Path:
    """The run's temporary root, shared by its xdist workers (each worker's basetemp is a folder in it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name: str, build: Callable[[Path], Any]) -> tuple[Path, Any]:
    """(directory, what `build` returned): `build(directory)` run once in the whole run for `name`."""
    root = run_root(tmp_path_factory)
    target = root / f"built-{name}"
    with open(root / f"built-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / DONE).exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            value = build(target)
            (target / DONE).write_bytes(pickle.dumps(value))
        return target, pickle.loads((target / DONE).read_bytes())


def copy_built(source: Path, destination: Path) -> Path:
    """A copy of a built directory a test may change (its files, without the build's mark)."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(DONE))
    return destination

"""The process `sec-dashboard serve` runs in: decided before anything heavy is imported, because
changing the allocator means starting the interpreter again."""

from __future__ import annotations

import glob
import os
import re
import sys
from collections.abc import Callable

from dashboard.config import on_glibc

# The allocator a served process runs on. With Python's own allocator (pymalloc) the memory a crowd
# of sessions took stayed with the process after they ended: an arena is given back only when wholly
# empty, and the few objects left in each kept them all (idle 227 MB; after 25 sessions at once,
# ended, 282 MB, for good).
#
# First choice, when the system has it: jemalloc (Debian's libjemalloc2), every object allocated by
# it. Its arenas give freed pages back a second after they empty (and at once on the purge
# `dashboard.heap.trim_heap` asks for), and it fragments far less under a crowd's churn than glibc:
# 200 sessions opened and closed left the process 44 MB above its warm idle on jemalloc, 76 MB on
# glibc's malloc (benchmarks/bench_sessions.py). Otherwise C's malloc, in at most two arenas,
# trimmed after sessions end. SEC_DASHBOARD_ALLOCATOR=malloc skips jemalloc; =python keeps pymalloc.
MALLOC_ARENA_MAX = "2"  # glibc's malloc, when jemalloc is not there
JEMALLOC_CONF = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0"
JEMALLOC_PATTERNS = (
    "/usr/lib/*-linux-gnu/libjemalloc.so.2",
    "/usr/lib64/libjemalloc.so.2",
    "/usr/lib/libjemalloc.so.2",
    "/usr/local/lib/libjemalloc.so.2",
)
ALLOCATORS = ("jemalloc", "malloc", "python")


def find_jemalloc() -> str | None:
    """The path of the system's jemalloc shared library, if it is installed."""
    for pattern in JEMALLOC_PATTERNS:
        for path in sorted(glob.glob(pattern)):
            if os.path.isfile(path):
                return path
    return None


def serving_environment(environ: dict[str, str],
                        jemalloc: Callable[[], str | None] = find_jemalloc) -> dict[str, str] | None:
    """The environment `sec-dashboard serve` should run in, when it is not the one it runs in: the
    allocator above on glibc, unless the user chose one (PYTHONMALLOC) or opted out.

    `jemalloc` finds the library to preload (None: not installed)."""
    choice = environ.get("SEC_DASHBOARD_ALLOCATOR", "").strip().lower()
    if choice == "python" or "PYTHONMALLOC" in environ:
        return None
    if not on_glibc():
        return None
    if choice and choice not in ALLOCATORS:
        print(f"sec-dashboard: SEC_DASHBOARD_ALLOCATOR={choice[:40]!r} is not one of {', '.join(ALLOCATORS)};"
              " using the default", file=sys.stderr)
    env = {**environ, "PYTHONMALLOC": "malloc"}
    library = None if choice == "malloc" else jemalloc()
    if library is None:
        if choice == "jemalloc":
            print("sec-dashboard: SEC_DASHBOARD_ALLOCATOR=jemalloc, but no libjemalloc.so.2 was found"
                  " (apt-get install libjemalloc2); using C's malloc", file=sys.stderr)
        env.setdefault("MALLOC_ARENA_MAX", MALLOC_ARENA_MAX)
        return env
    preload = environ.get("LD_PRELOAD", "").strip()
    if library not in re.split(r"[:\s]+", preload):  # ld.so takes spaces or colons between them
        env["LD_PRELOAD"] = f"{library} {preload}".strip()
    env.setdefault("MALLOC_CONF", JEMALLOC_CONF)
    return env

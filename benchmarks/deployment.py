"""The environment a served process runs in as docs/deploy.md deploys it: jemalloc preloaded (where
installed) with the decay settings given there, else glibc's malloc in two arenas. The benchmarks
run the dashboard and the minimal page in it."""

from __future__ import annotations

import glob
import os

JEMALLOC = "/usr/lib/*-linux-gnu/libjemalloc.so.2"
MALLOC_CONF = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0"


def deployment_environment(allocator: str = "jemalloc") -> dict[str, str]:
    """What to add to a served process's environment: `allocator` "jemalloc" (when installed),
    "malloc" (glibc's, two arenas) or "python" (nothing changed)."""
    found = sorted(glob.glob(JEMALLOC))
    if allocator == "jemalloc" and found:
        return {"LD_PRELOAD": found[0], "MALLOC_CONF": MALLOC_CONF, "PYTHONMALLOC": "malloc"}
    if allocator in ("jemalloc", "malloc"):
        return {"MALLOC_ARENA_MAX": "2", "PYTHONMALLOC": "malloc"}
    return {}


def without_allocator_settings(environ: dict[str, str] | None = None) -> dict[str, str]:
    """`environ` (default: this process's) without the settings above, for a process that picks its own."""
    environ = dict(os.environ if environ is None else environ)
    for name in ("LD_PRELOAD", "MALLOC_CONF", "PYTHONMALLOC", "MALLOC_ARENA_MAX"):
        environ.pop(name, None)
    return environ

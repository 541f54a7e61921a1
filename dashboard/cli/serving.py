"""The process `sec-dashboard serve` runs in: decided before anything heavy is imported, because
changing the allocator means starting the interpreter again."""

from __future__ import annotations

from dashboard.config import on_glibc

# The allocator a served process runs on: C's malloc for every object, in at most two arenas. With
# Python's own allocator (pymalloc) the memory a crowd of sessions took stayed with the process after
# they ended: an arena is given back only when wholly empty, and the few objects left in each kept
# them all (idle 227 MB; after 25 sessions at once, ended, 282 MB, for good). On malloc, what ended
# sessions freed goes back to the system on `malloc_trim`, which `dashboard.app.trim_heap` calls
# (243 MB after the same crowd). Set SEC_DASHBOARD_ALLOCATOR=python to keep pymalloc.
SERVE_ALLOCATOR_ENV = {"PYTHONMALLOC": "malloc", "MALLOC_ARENA_MAX": "2"}


def serving_environment(environ: dict[str, str]) -> dict[str, str] | None:
    """The environment `sec-dashboard serve` should run in, when it is not the one it runs in: the
    allocator above on glibc, unless the user chose one (PYTHONMALLOC) or opted out."""
    if environ.get("SEC_DASHBOARD_ALLOCATOR", "").strip().lower() == "python" or "PYTHONMALLOC" in environ:
        return None
    if not on_glibc():
        return None
    return {**environ, **{k: environ.get(k, v) for k, v in SERVE_ALLOCATOR_ENV.items()}}

"""Giving a served process's memory back: after sessions end, and settling it before serving.

A served process runs on jemalloc where installed (`dashboard.cli.serving` preloads it), else on
C's malloc. A few seconds after sessions end, `trim_heap_soon` collects garbage, drops the dead
references pandas keeps on cached frames and purges the heap. Stdlib only (pandas lazily), so a
process that is not the dashboard can use it too (`benchmarks/minimal_page.py`, the reference).
"""

from __future__ import annotations

import ctypes
import functools
import gc
import os

from dashboard.config import on_glibc

# After a session ends, how long to wait (for others to end too) before giving memory back.
TRIM_DELAY_S = 5.0
_trim_pending = False


# jemalloc's name for "every arena" in `arena.<i>.purge` (MALLCTL_ARENAS_ALL).
_JEMALLOC_ALL_ARENAS = b"arena.4096.purge"
_background_threads_pid: int | None = None


@functools.cache
def jemalloc_mallctl():
    """jemalloc's `mallctl`, when this process runs on jemalloc (`sec-dashboard serve` preloads it
    where installed, see `dashboard.cli.serving`); None otherwise."""
    try:
        mallctl = ctypes.CDLL(None).mallctl
    except (AttributeError, OSError):
        return None
    mallctl.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    mallctl.restype = ctypes.c_int
    return mallctl


def _jemalloc_flag(mallctl, name: bytes) -> bool:
    value, size = ctypes.c_bool(), ctypes.c_size_t(ctypes.sizeof(ctypes.c_bool))
    return mallctl(name, ctypes.byref(value), ctypes.byref(size), None, 0) == 0 and value.value


def restore_background_purging() -> None:
    """On jemalloc, have its background threads purge freed pages in this process too: jemalloc
    stops them in a forked child (each `--num-procs` process is one). Started again where the
    configuration asked for them; once per process."""
    global _background_threads_pid
    mallctl = jemalloc_mallctl()
    if mallctl is None or _background_threads_pid == os.getpid():
        return
    _background_threads_pid = os.getpid()
    if _jemalloc_flag(mallctl, b"opt.background_thread") and not _jemalloc_flag(mallctl, b"background_thread"):
        on = ctypes.c_bool(True)
        mallctl(b"background_thread", None, None, ctypes.byref(on), ctypes.sizeof(on))


def prune_dead_frame_references() -> int:
    """Drop the dead references pandas keeps on the data of frames that outlive sessions; how many.

    With copy-on-write, every copy of a frame (sessions copy the shared, cached frames they show)
    adds a weak reference to the original's data, and pandas drops the dead ones only once their
    number doubles. 200 sessions left about 28,000 of them on the process's cached frames, each
    made while the sessions were open, scattered through pages the allocator could otherwise give
    back (bench_sessions: 37 MB above the warm idle after 200 sessions; 22 MB with them pruned).
    pandas prunes a frame's list when asked whether the data is shared (`has_reference`)."""
    import pandas as pd

    def prune(refs) -> int:
        before = len(refs.referenced_blocks)
        refs.has_reference()
        return before - len(refs.referenced_blocks)

    pruned = 0
    for obj in gc.get_objects():
        if isinstance(obj, (pd.DataFrame, pd.Series)):
            for block in getattr(getattr(obj, "_mgr", None), "blocks", ()):
                refs = getattr(block, "refs", None)
                if refs is not None:
                    pruned += prune(refs)
        elif isinstance(obj, pd.Index):
            refs = getattr(obj, "_references", None)
            if refs is not None:
                pruned += prune(refs)
    return pruned


def trim_heap() -> bool:
    """Collect garbage, drop dead frame references, and give the C heap's free pages back to the
    system (jemalloc: purge every arena; glibc: malloc_trim); whether it could."""
    gc.collect()
    if prune_dead_frame_references():
        gc.collect()
    mallctl = jemalloc_mallctl()
    if mallctl is not None:
        restore_background_purging()
        return mallctl(_JEMALLOC_ALL_ARENAS, None, None, None, 0) == 0
    if not on_glibc():
        return False
    return bool(ctypes.CDLL(None).malloc_trim(0))


def trim_heap_soon(session_context) -> None:
    """After a session ends: trim the heap once, a few seconds later (one trim for a crowd leaving)."""
    global _trim_pending
    if _trim_pending:
        return
    from tornado.ioloop import IOLoop

    def trim():
        global _trim_pending
        _trim_pending = False
        trim_heap()

    _trim_pending = True
    IOLoop.current().call_later(TRIM_DELAY_S, trim)


def settle_heap() -> int:
    """Move every object alive now (the imported libraries: hundreds of thousands) out of the
    garbage collector's reach, and return how many.

    A full collection walks every tracked object; with the libraries in its heap each one took
    0.2-0.4 s on this machine, and one fell inside a session's first build about one page in
    three, delaying its first paint by that much. Frozen (gc.freeze), they are never walked again,
    and a full collection walks only what sessions made. Done before the server forks its processes
    (`num_procs`), it also keeps their shared pages shared.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()

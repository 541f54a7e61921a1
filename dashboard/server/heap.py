"""A served process's heap: frozen once the libraries are imported, trimmed after sessions end (the
allocator is the deployment's choice: docs/deploy.md). Stdlib only: `benchmarks/minimal_page.py` uses it too."""

from __future__ import annotations

import ctypes
import gc
import weakref

from dashboard.config import on_glibc

#: After a session ends, how long to wait (for others to end too) before giving memory back.
TRIM_DELAY_S = 5.0
#: The event loops with a trim coming (one a loop: a stopped server's keeps no other loop from trimming).
_trims_pending: weakref.WeakSet = weakref.WeakSet()


def trim_heap() -> bool:
    """Collect garbage and give the C heap's free pages back to the system: glibc's `malloc_trim`
    (jemalloc, when preloaded, purges by itself: `dirty_decay_ms` in MALLOC_CONF); whether it did."""
    gc.collect()
    return on_glibc() and bool(ctypes.CDLL(None).malloc_trim(0))


def trim_heap_soon(session_context) -> None:
    """After a session ends: trim the heap once, a few seconds later (one trim for a crowd leaving)."""
    from tornado.ioloop import IOLoop

    loop = IOLoop.current()
    if loop in _trims_pending:
        return

    def trim():
        _trims_pending.discard(loop)
        trim_heap()

    _trims_pending.add(loop)
    loop.call_later(TRIM_DELAY_S, trim)


def settle_heap() -> int:
    """Move every object alive now (the imported libraries: hundreds of thousands) out of the garbage
    collector's reach (`gc.freeze`), and return how many.

    A full collection walks every tracked object; with the libraries in the heap one takes a few
    tenths of a second, and one falling inside a session's first build delays its first paint by
    that much. Frozen, they are never walked again. Done before `--num-procs` forks, it also keeps
    the processes' shared pages shared.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()

"""A served process's heap: the libraries frozen out of the collector's reach, one trim for a crowd
leaving, and no session leaving anything on the frames the process keeps for everyone."""

from __future__ import annotations

import asyncio
import gc

import pytest

from dashboard.server import heap
from tests.helpers import served_dashboard, wait_until
from tests.views.test_sessions import ServedSession


def test_a_crowd_leaving_is_trimmed_once(monkeypatch):
    calls = []
    monkeypatch.setattr(heap, "TRIM_DELAY_S", 0.05)
    monkeypatch.setattr(heap, "trim_heap", lambda: calls.append(1) or True)

    async def crowd():
        for _ in range(20):
            heap.trim_heap_soon(None)
        await asyncio.sleep(0.3)
        heap.trim_heap_soon(None)
        await asyncio.sleep(0.3)

    asyncio.run(crowd())
    assert calls == [1, 1]


def test_a_server_stopped_before_its_trim_keeps_no_other_from_trimming(monkeypatch):
    """A trim still coming on a loop that was stopped (a server stopped a moment after its sessions ended)
    never runs: the next server's sessions leaving are trimmed all the same."""
    calls = []
    monkeypatch.setattr(heap, "TRIM_DELAY_S", 0.05)
    monkeypatch.setattr(heap, "trim_heap", lambda: calls.append(1) or True)

    async def leave_then_stop():
        heap.trim_heap_soon(None)  # its loop ends before the trim is due

    asyncio.run(leave_then_stop())

    async def crowd():
        heap.trim_heap_soon(None)
        await asyncio.sleep(0.3)

    asyncio.run(crowd())
    assert calls == [1]


def test_settling_the_heap_puts_the_libraries_beyond_the_collector():
    """`serve()` freezes what is alive after the imports: a full collection then walks only what
    sessions make (it walked the libraries too, inside a session's first build)."""
    try:
        frozen = heap.settle_heap()
        # a frozen object that dies leaves the count (another test's server thread may free some)
        assert frozen >= gc.get_freeze_count() > 50_000
        assert len(gc.get_objects()) < frozen  # what the collector still walks
    finally:
        gc.unfreeze()


def dead_references_by_object() -> dict[int, int]:
    """The dead weak references pandas keeps on each frame, series or index alive now, by id (each view
    made of a pandas object under copy-on-write leaves one on it until pruned)."""
    import pandas as pd

    gc.collect()
    counts: dict[int, int] = {}
    for obj in gc.get_objects():
        refs = []
        if isinstance(obj, (pd.DataFrame, pd.Series)):
            refs = [block.refs for block in obj._mgr.blocks]
        elif isinstance(obj, pd.Index) and obj._references is not None:
            refs = [obj._references]
        for ref in refs:
            counts[id(obj)] = max(counts.get(id(obj), 0), sum(r() is None for r in ref.referenced_blocks))
    return counts


def dead_references(before: dict[int, int] | None = None) -> int:
    """The most dead references any one pandas object gained since `before` (all of them without it):
    what other tests left in this process is not the served sessions' doing."""
    before = before or {}
    return max((n - before.get(key, 0) for key, n in dead_references_by_object().items()), default=0)


SESSIONS = 8


@pytest.mark.slow
def test_sessions_leave_nothing_on_the_frames_the_process_keeps():
    """Sessions used to get copies of frames the process keeps for everyone (an answer's frame, the
    empty frame of each kind): each copy left references on the kept one (four or so a session,
    up to 500 before pandas prunes them), scattered through the heap."""
    async def use_sessions(port: int) -> None:
        for number in range(SESSIONS):
            session = await ServedSession.open(port)
            await session.first_load()
            await session.switch(1 + number % 5)
            await session.close()

    before = dead_references_by_object()  # this test process may have run other tests first
    with served_dashboard(check_unused_sessions_milliseconds=100,
                          unused_session_lifetime_milliseconds=100) as port:
        asyncio.run(use_sessions(port))
        # once the server has ended the sessions, what they made is gone; what stays is the process's
        wait_until(lambda: dead_references(before) < SESSIONS, 60, "the sessions' references gone", interval=1.0)

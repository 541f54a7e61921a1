"""MarketScreen.loading falls back once its reads end, also when the loop that asked is never run again.

In the dashboard's tests (and in a Panel callback run outside a server) a read can be begun by a task that Panel
left pending on a loop it ran only until its own callback ended: that coroutine never resumes. Counted down there,
the read kept `loading` (the page's busy bar) up for good; a question asked by another model (`ask`), counted with
the reads, kept it up after every later read.
"""

from __future__ import annotations

import asyncio
import threading
import time

from dashboard.market.screen import MarketScreen


def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_a_read_whose_loop_is_never_run_again_still_ends_loading(tmp_path):
    model = MarketScreen(snapshot_dir=str(tmp_path / "market.duckdb"))
    release = threading.Event()

    def slow(store):
        release.wait(10)
        return {}

    loop = asyncio.new_event_loop()
    try:
        async def begin():  # a callback that starts a read and returns, as Panel runs it: the read left pending
            asyncio.ensure_future(model._read(slow))
            await asyncio.sleep(0.05)  # the read has started

        loop.run_until_complete(begin())
        assert model.loading is True
        release.set()  # the read's thread ends; its coroutine, on a loop no one runs, never resumes
        assert wait_for(lambda: model.loading is False), "loading stayed True after the read ended"
    finally:
        loop.close()


def test_a_question_asked_by_another_model_is_not_the_markets_loading(tmp_path):
    model = MarketScreen(snapshot_dir=str(tmp_path / "market.duckdb"))
    release = threading.Event()

    async def both():
        question = asyncio.ensure_future(model.ask(lambda store: release.wait(10)))
        await asyncio.sleep(0.05)
        assert model.loading is False  # the asker keeps its own flag
        await model.poll()  # a read of the market's own, ended while the question is still asked
        assert model.loading is False
        release.set()
        await question

    asyncio.run(both())
    assert model.loading is False


def test_reads_in_a_running_loop_end_loading_before_they_return(tmp_path):
    model = MarketScreen(snapshot_dir=str(tmp_path / "market.duckdb"))

    async def read():
        await model.poll()
        return model.loading

    assert asyncio.run(read()) is False
    assert model._reads == 0 and model._running == 0

"""`run`, the models' one blocking edge: results come back whole, exceptions as raised, and the result's
repr is never formatted (a model's repr prints every frame it holds)."""

from __future__ import annotations

import asyncio
import signal

import pytest

from dashboard.errors import BadInputError
from dashboard.models.source import run


class CountsRepr:
    """asyncio.run formats the finished task, result included (through reprlib, which swallows errors)."""

    def __init__(self):
        self.formatted = 0

    def __repr__(self) -> str:
        self.formatted += 1
        return "CountsRepr()"


async def _value(value):
    await asyncio.sleep(0)
    return value


async def _fail():
    raise BadInputError("no such fund")


def test_run_returns_the_result_without_formatting_it():
    value = CountsRepr()
    assert run(_value(value)) is value
    assert value.formatted == 0
    # The trap run() avoids: plain asyncio.run formats the result when it puts its Ctrl+C handler in place
    # (only while SIGINT has Python's default handler: an earlier test in the same process may have set another).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        asyncio.run(_value(value))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert value.formatted > 0


def test_run_raises_what_the_operation_raised():
    with pytest.raises(BadInputError, match="no such fund"):
        run(_fail())


def test_run_inside_a_running_loop_waits_in_a_worker_thread():
    async def cell():  # a notebook cell that calls run() instead of awaiting
        return run(_value(41)) + 1

    assert asyncio.run(cell()) == 42

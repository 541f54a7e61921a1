"""The synchronous facade: `SecClient` runs the async client on one background event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Iterable
from datetime import date
from typing import Any

from dashboard.api.cache import ResponseCache
from dashboard.api.client import AsyncSecClient
from dashboard.api.layouts import LAYOUT_LABELS
from dashboard.api.result import ApiResult, ClientStats
from dashboard.config import ApiSettings


class _LoopThread:
    """One background event loop for every synchronous client in the process.

    Running the async core there (instead of `asyncio.run`) makes the facade work where a loop is
    already running: Jupyter cells and Panel callbacks.
    """

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def loop(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None or cls._loop.is_closed():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="sec-api-loop", daemon=True)
                thread.start()
                cls._loop = loop
            return cls._loop


class SecClient:
    """Synchronous facade over `AsyncSecClient`; safe to call from notebooks and Panel callbacks."""

    def __init__(self, settings: ApiSettings | None = None, **options: Any):
        self._loop = _LoopThread.loop()
        self._async = self._run(self._make(settings, options))

    @staticmethod
    async def _make(settings, options) -> AsyncSecClient:
        return AsyncSecClient(settings, **options)

    def _run(self, coro: Awaitable[Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def __repr__(self) -> str:
        return f"SecClient({self.settings!r})"

    @property
    def settings(self) -> ApiSettings:
        return self._async.settings

    @property
    def stats(self) -> ClientStats:
        return self._async.stats

    @property
    def cache(self) -> ResponseCache | None:
        return self._async.cache

    @property
    def today(self) -> date:
        return self._async.today

    @property
    def async_client(self) -> AsyncSecClient:
        return self._async

    def layout(self) -> str:
        """The path layout in use (asks the service once when it is "auto")."""
        return self._run(self._async.layout())

    @property
    def layout_label(self) -> str:
        """Which paths answer, for footers and report headers; asks the service once if not known yet."""
        return LAYOUT_LABELS[self.layout()]

    def request(self, key: str, *, name: str | None = None, **path_params: str) -> ApiResult:
        return self._run(self._async.request(key, name=name, **path_params))

    def known_fund(self, proj_id: str) -> dict | None:
        """The fund record last seen for `proj_id` in a fund search or company list, or None. Sends nothing."""
        return self._async.known_fund(proj_id)

    def fetch(self, key: str, *, name: str | None = None, **path_params: str) -> Any:
        return self._run(self._async.fetch(key, name=name, **path_params))

    def fetch_many(self, calls: Iterable[tuple[str, dict[str, Any]]], *, return_exceptions: bool = True) -> list[Any]:
        return self._run(self._async.fetch_many(list(calls), return_exceptions=return_exceptions))

    def run(self, coro: Awaitable[Any]) -> Any:
        """Run a coroutine that uses `async_client` on the client's loop and wait for it."""
        return self._run(coro)

    def submit(self, coro: Awaitable[Any]) -> "concurrent.futures.Future[Any]":
        """Start a coroutine on the client's loop; returns a future to wait on."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def arun(self, coro: Awaitable[Any]) -> Any:
        """Await a coroutine on the client's loop from another running loop without blocking it."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def close(self) -> None:
        self._run(self._async.aclose())

    def __enter__(self) -> "SecClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

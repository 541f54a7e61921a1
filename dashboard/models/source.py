"""The shared data source: one client per settings, used by every model in the process."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import param

from dashboard.api.client import ApiResult, SecClient, normalise
from dashboard.errors import SecApiError
from dashboard.config import ApiSettings

T = TypeVar("T")

_clients: dict[str, SecClient] = {}
_lock = threading.Lock()


def default_client(settings: ApiSettings | None = None) -> SecClient:
    """A process-wide client for these settings (from the environment when not given).

    Sharing one client shares its connection pool and cache between models and sessions.
    """
    settings = settings or ApiSettings.from_env()
    ident = repr(settings)  # the repr names no key, only whether one is set
    if not settings.demo:
        keys = tuple(k.reveal() if k else "" for k in (settings.api_key, settings.fund_api_key, settings.license_api_key))
        ident += str(hash(keys))
    with _lock:
        client = _clients.get(ident)
        if client is None:
            client = _clients[ident] = SecClient(settings)
        return client


def run(awaitable: Awaitable[T]) -> T:
    """The one blocking edge of the models: wait for a model operation from synchronous code.

    Scripts, the command line and reports call `run(sheet.load(pid))`; Panel callbacks and notebook
    cells `await sheet.load(pid)` instead. Parameters change in the calling thread, except inside an
    already running event loop (a notebook cell that did not await), where a worker thread waits.
    """
    if not isinstance(awaitable, Awaitable):  # a finished value (the old synchronous methods) passes through
        return awaitable
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(awaitable))
    with ThreadPoolExecutor(1, thread_name_prefix="sec-model-run") as pool:
        return pool.submit(asyncio.run, _awaited(awaitable)).result()


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable


def outcome(result: ApiResult | BaseException) -> tuple[Any, str | None, bool]:
    """(normalised data, error message or None, stale) for one result of `fetch_many`."""
    if isinstance(result, SecApiError):
        return None, str(result), False
    if isinstance(result, BaseException):
        raise result
    return normalise(result), None, result.stale


def unpublished_fields(result: ApiResult | BaseException, data: Any) -> list[str]:
    """Fields the answering service does not publish: a whole retired part, or fields named by its records."""
    from dashboard.records.successor import NOT_PUBLISHED_FIELD

    if isinstance(result, BaseException):
        return []
    fields: dict[str, None] = dict.fromkeys(result.not_published)
    for record in data if isinstance(data, list) else [data]:
        if isinstance(record, dict):
            fields.update(dict.fromkeys(record.get(NOT_PUBLISHED_FIELD) or ()))
    return list(fields)


class ServiceModel(param.Parameterized):
    """Base of the models that fetch: a client, a loading flag and the two ways to load.

    Fetching runs on the client's loop; parameters change in the caller's context (`_apply` for
    scripts and notebooks, `_aapply` for Panel callbacks), never on the client's thread.
    """

    client = param.ClassSelector(class_=SecClient, default=None, allow_None=True, doc="Client used to fetch; the shared default when None.")
    loading = param.Boolean(default=False, doc="True while data loads.")
    stale = param.Boolean(default=False, doc="True when data was served from an expired cache entry because the service failed.")

    __abstract = True

    @property
    def api(self) -> SecClient:
        if self.client is None:
            self.client = default_client()
        return self.client

    def _apply(self, coro) -> dict:
        self.loading = True
        try:
            update = self.api.run(coro)
            self.param.update(**update)
            return update
        finally:
            self.loading = False

    async def _aapply(self, coro) -> dict:
        self.loading = True
        try:
            update = await self.api.arun(coro)
            self.param.update(**update)
            return update
        finally:
            self.loading = False

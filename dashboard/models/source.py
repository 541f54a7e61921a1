"""The shared data source: one client per settings, used by every model in the process."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, TypeVar

import param

from dashboard.api.result import ApiResult
from dashboard.api.deadline import run_deadline
from dashboard.api.sync import SecClient
from dashboard.records.answers import normalise
from dashboard.errors import SecApiError
from dashboard.config import ApiSettings
from dashboard.api.connect import open_client

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
            client = _clients[ident] = open_client(settings)
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
        return asyncio.run(_boxed(awaitable)).value
    with ThreadPoolExecutor(1, thread_name_prefix="sec-model-run") as pool:
        return pool.submit(asyncio.run, _boxed(awaitable)).result().value


class _Box:
    """The result of a run, with a constant repr: asyncio.run formats the finished task on the way out,
    and the repr of a model prints every DataFrame it holds (about 200 ms for a factsheet)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __repr__(self) -> str:
        return "<result>"


async def _boxed(awaitable: Awaitable[T]) -> _Box:
    return _Box(await awaitable)


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


LOADED, NOT_PUBLISHED, FAILED = "loaded", "not published", "failed"


class PartStatus(NamedTuple):
    """What became of one part of a load: LOADED, NOT_PUBLISHED (the service has no data: not a
    failure) or FAILED, with the reason of a failure."""

    state: str
    reason: str = ""

    @property
    def failed(self) -> bool:
        return self.state == FAILED

    @property
    def loaded(self) -> bool:
        return self.state == LOADED


def part_status(data: Any, error: str | None) -> PartStatus:
    """The status of one part from its data and its error (outcome's first two values)."""
    if error:
        return PartStatus(FAILED, error)
    has_data = data is not None and not (getattr(data, "empty", False) or (isinstance(data, (list, dict)) and not data))
    return PartStatus(LOADED if has_data else NOT_PUBLISHED)


async def record_by_abbreviation(client, proj_id: str, classes) -> dict | None:
    """A fund's record (E1) found through the abbreviation its unit classes carry (E4 rows or frame).

    The legacy service's fund search matches abbreviations, not ids. None when the classes name no
    abbreviation, the search fails or finds no fund with this proj_id. `client` is the async client.
    """
    if classes is None:
        return None
    rows = classes.to_dict("records") if hasattr(classes, "to_dict") else classes
    abbr = next((str(c["proj_abbr_name"]) for c in rows if isinstance(c, dict) and isinstance(c.get("proj_abbr_name"), str)
                 and c["proj_abbr_name"]), None)
    if not abbr:
        return None
    try:
        found = await client.fetch("E1", name=abbr)
    except SecApiError:
        return None
    return next((f for f in found or [] if isinstance(f, dict) and f.get("proj_id") == proj_id), None)


class ServiceModel(param.Parameterized):
    """Base of the models that fetch: a client and a loading flag.

    Every operation is one `async def`: Panel callbacks and notebook cells await it, synchronous
    code calls `run(model.op(...))`. Fetching runs on the client's loop; parameters change in the
    caller's context, never on the client's thread.
    """

    client = param.ClassSelector(class_=SecClient, default=None, allow_None=True, doc="Client used to fetch; the shared default when None.")
    loading = param.Boolean(default=False, doc="True while data loads.")
    stale = param.Boolean(default=False, doc="True when data was served from an expired cache entry because the service failed.")

    __abstract = True

    _running = 0  # operations under way on this model; `loading` is True while any is

    @property
    def api(self) -> SecClient:
        if self.client is None:
            self.client = default_client()
        return self.client

    @contextmanager
    def _loading(self) -> Iterator[None]:
        """`loading` is True inside, and stays True until the last of overlapping operations ends."""
        self._running += 1
        self.loading = True
        try:
            yield
        finally:
            self._running -= 1
            self.loading = self._running > 0

    async def _fetched(self, coro: Awaitable[T]) -> T:
        """Run `coro` on the client's loop with `loading` set meanwhile; its result, parameters untouched."""
        # One operation, one run (SEC_API_DEADLINE_S), always a run of its own: a served page's callback can
        # carry the context of an earlier operation, whose verdict on the service must not outlive it.
        with self._loading(), run_deadline(self.api.settings.deadline_s):
            return await self.api.arun(coro)

    async def _apply(self, coro: Awaitable[dict]) -> dict:
        """Run `coro` (a coroutine returning a parameter update) and apply its update here: the one apply path."""
        update = await self._fetched(coro)
        self.param.update(**update)
        return update

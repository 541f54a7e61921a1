"""Listing on the current service: every call of a logical endpoint, each followed page by page.

`SuccessorListing` is the part of `client.AsyncSecClient` that turns one legacy-shaped endpoint into the
successor calls that answer it, follows each call's `next_cursor` to the end (starting again once on an
expired cursor), sends identical calls in flight at once only once, and maps the joined items back to
the legacy shape.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from dashboard.api.endpoints import Endpoint
from dashboard.api.layouts import SuccessorCall, successor_calls
from dashboard.api.paging import PageWalk, dedupe
from dashboard.api.result import ClientStats
from dashboard.api.wire import check_shape, unwrap_envelope
from dashboard.config import LAYOUT_SUCCESSOR
from dashboard.errors import BadInputError
from dashboard.records.successor import to_legacy

log = logging.getLogger("dashboard.api")


class SuccessorListing:
    """Lists on the current service (see the module's text); mixed into `AsyncSecClient`, whose `_send`
    (from `sending.Sending`) sends each page."""

    max_pages: int
    stats: ClientStats
    _inflight: dict[tuple, asyncio.Future]

    async def _successor(self, ep: Endpoint, params: dict[str, str]) -> Any:
        """Ask every successor call of a logical endpoint, join their items, map them to the legacy shape."""
        items: list = []
        for call in successor_calls(ep, params):
            items.extend(await self._shared_pages(ep, call, params))
        data = to_legacy(ep.id, items, params)
        check_shape(ep, data, f"{ep.id} {ep.name}")
        return data

    async def _shared_pages(self, ep: Endpoint, call: SuccessorCall, params: dict[str, str]) -> list:
        """All items of one successor call; identical calls in flight at once are sent once (E4 and E7)."""
        path, query, body = call.build(params)
        ident = (call.method, path, tuple(sorted(query.items())), json.dumps(body, sort_keys=True))
        running = self._inflight.get(ident)
        if running is not None:
            return list(await asyncio.shield(running))
        future = asyncio.get_running_loop().create_future()
        self._inflight[ident] = future
        try:
            items = await self._all_pages(ep, call, path, query, body)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved here, so an unshared failure is not reported as unhandled
            raise
        else:
            future.set_result(items)
            return list(items)
        finally:
            self._inflight.pop(ident, None)

    async def _all_pages(self, ep: Endpoint, call: SuccessorCall, path: str, query: dict, body: dict | None) -> list:
        """Follow `next_cursor` until it is empty or null, with the same filters; never stop on a short page.
        Rows the service sent twice (the same key on two pages) are dropped and counted."""
        items: list = []
        walk = PageWalk(f"{ep.id} {ep.name}", self.max_pages, path=path)
        restarted = False
        while not walk.done:
            page_query = dict(query)
            if walk.cursor:
                page_query["next_cursor"] = walk.cursor
            try:
                payload = await self._send(ep, call.method, path, body, query=page_query, layout=LAYOUT_SUCCESSOR)
            except BadInputError:
                if walk.cursor is None or restarted:
                    raise
                # A cursor the service no longer accepts (they expire): start the call again once.
                log.info("%s %s: the page cursor was refused; starting again from the first page", ep.id, ep.name)
                items, restarted = [], True
                walk.restart()
                continue
            self.stats.pages += 1
            page_items, cursor = unwrap_envelope(payload, f"{ep.id} {ep.name}", paginated=call.paginated)
            items.extend(page_items)
            walk.page(page_items, cursor)
        items, dropped = dedupe(path, items)
        if dropped:
            self.stats.duplicates += dropped
            log.warning("%s %s: the service sent %d rows twice (same key on more than one page); each was kept once",
                        ep.id, ep.name, dropped)
        return items

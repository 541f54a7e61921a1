"""A service whose pages misbehave, made from the demo simulator: cursors that loop or never end, and
pages that repeat the previous page's last rows. An ASGI wrapper that rewrites the simulator's answers."""

from __future__ import annotations

import json
import urllib.parse

import httpx

from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from tests.conftest import TODAY


class MisbehavingPages:
    """Wraps an ASGI app. `loop`: every paged answer's cursors go first -> A -> B -> A ...;
    `endless`: every page is the first page again under a new cursor (with `fresh`, its rows made new:
    each row's text fields marked with the page's cursor; also for `loop`); `overlap`: each page starts with the previous
    page's last `overlap` rows again. `requests` counts what reached it."""

    def __init__(self, app, *, loop: bool = False, endless: bool = False, fresh: bool = False, overlap: int = 0):
        self.app = app
        self.loop, self.endless, self.fresh, self.overlap = loop, endless, fresh, overlap
        self.requests = 0
        self.repeated = 0  # rows sent again by `overlap`
        self._last_rows: dict[tuple, list] = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        self.requests += 1
        query = dict(urllib.parse.parse_qsl(scope.get("query_string", b"").decode()))
        cursor = query.pop("next_cursor", None)
        if (self.loop or self.endless) and cursor is not None:
            scope = {**scope, "query_string": urllib.parse.urlencode(query).encode()}  # the first page again
        started: dict = {}
        body = bytearray()

        async def keep(message):
            if message["type"] == "http.response.start":
                started.update(message)
            else:
                body.extend(message.get("body", b""))

        await self.app(scope, receive, keep)
        body = self._rewrite(scope["path"], query, cursor, bytes(body), started.get("status"))
        headers = [(k, v) for k, v in started.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**started, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _rewrite(self, path: str, query: dict, cursor: str | None, body: bytes, status) -> bytes:
        if status != 200 or not body:
            return body
        payload = json.loads(body)
        if not isinstance(payload, dict) or "items" not in payload:
            return body
        if self.loop:
            payload["next_cursor"] = {None: "A", "A": "B", "B": "A"}.get(cursor, "A")
        elif self.endless:
            payload["next_cursor"] = f"page-{int((cursor or 'page-0').split('-')[1]) + 1}"
        if (self.loop or self.endless) and self.fresh and cursor:
            payload["items"] = [{k: f"{v} #{cursor}" if isinstance(v, str) else v for k, v in row.items()}
                                for row in payload["items"]]
        if self.overlap:
            where = (path, tuple(sorted(query.items())))
            previous = self._last_rows.get(where, []) if cursor else []
            self._last_rows[where] = payload["items"][-self.overlap:]
            self.repeated += len(previous)
            payload["items"] = previous + payload["items"]
        return json.dumps(payload).encode()


def misbehaving_client(app, layout: str = "successor", **options):
    settings = ApiSettings.from_env(base_url="http://simulator.test", use_cache=False, layout=layout, environ={})
    options = {"rate_limit_calls": 1_000_000, "backoff_base": 0.01, "backoff_max": 0.02, **options}
    return open_client(settings, transport=httpx.ASGITransport(app=app), cache=None, require_keys=False,
                       today=lambda: TODAY, **options)

"""Reading answers off the wire: bounded bodies and nesting, key echoes removed, the successor's envelope."""

from __future__ import annotations

import json
import logging
import re
import time
import urllib.parse
import zlib
from collections.abc import Callable, Iterable, Iterator
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from dashboard.api.endpoints import Endpoint
from dashboard.config import SubscriptionKey
from dashboard.errors import MalformedResponseError, SecApiError

# Bounds on one answer. The largest real answers (the former-licensee list, a big fund house's
# funds) are a few MB of JSON nested 5 deep; these sit far above that and stop a decompression
# bomb, an endless body or a body nested thousands deep before it costs memory or a crash.
MAX_BODY_BYTES = 64 * 1024 * 1024  # after decompression
MAX_ERROR_BODY_BYTES = 64 * 1024  # of a non-200 answer: only its message is read
MAX_JSON_DEPTH = 64
ACCEPT_ENCODING = "gzip, deflate"  # what the client decodes itself, with the bound above
MAX_MESSAGE_CHARS = 300  # of a service error message shown to a person

log = logging.getLogger("dashboard.api")


class Retryable(Exception):
    """An attempt that failed in a way worth trying again; carries the error to raise at the end."""

    def __init__(self, error: SecApiError, retry_after: float | None = None, *, silent: bool = False):
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after
        self.silent = silent  # no answer came within the read timeout


async def read_body(ep: Endpoint, where: str, response: httpx.Response, max_body_bytes: int) -> bytearray:
    """The body, decompressed here with a bound: a bomb or an endless body stops at the limit.

    A 200 answer past `max_body_bytes`, or whose compression is corrupt, is a malformed answer
    (tried again, never cached); of any other answer only the first bytes are kept, for its message.
    """
    strict = response.status_code == 200
    limit = max_body_bytes if strict else MAX_ERROR_BODY_BYTES
    encoding = response.headers.get("content-encoding", "")
    body = bytearray()
    try:
        decoder = BodyDecoder(encoding)
        async for chunk in raw_chunks(response):
            if chunk is None:
                decoder = BodyDecoder("")
                chunk = response.content
            for piece in decoder.feed(chunk, limit - len(body)):
                body += piece
            if len(body) > limit:
                if not strict:
                    del body[limit:]
                    return body
                raise Retryable(MalformedResponseError(
                    f"{where}: the answer grew past {limit / 2**20:g} MB and was stopped; no real answer is "
                    "that large, try again later", status_code=200, endpoint=ep.id))
        decoder.finish()
    except (zlib.error, ValueError) as exc:
        if not strict:
            return body
        log.debug("%s: undoing the body's %r encoding failed: %s", where, encoding, exc)
        raise Retryable(MalformedResponseError(
            f"{where}: the answer's compressed body is corrupt or in an unknown encoding; try again later",
            status_code=200, endpoint=ep.id)) from None
    return body


def parse_body(ep: Endpoint, where: str, response: httpx.Response, raw: bytearray,
               key_pattern: "re.Pattern[str] | None", check: bool = True) -> Any:
    """The JSON of a 200 answer, bounded in nesting and with every echo of a key removed."""
    start = FIRST_NON_SPACE.match(raw).end()
    if start == len(raw):
        return None  # the real service sometimes says "no data" as 200 with an empty body
    content_type = response.headers.get("content-type", "")
    if "html" in content_type or raw[start:start + 1] == b"<":
        raise Retryable(MalformedResponseError(
            f"{where}: the service answered an HTML page instead of JSON; it may be down for maintenance, try again later",
            status_code=200, endpoint=ep.id))
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise Retryable(MalformedResponseError(
            f"{where}: the answer is not valid JSON ({len(raw)} bytes); try again later",
            status_code=200, endpoint=ep.id)) from None
    except RecursionError:
        data = TOO_DEEP
    if data is TOO_DEEP or not within_depth_redacted(data, MAX_JSON_DEPTH, key_pattern):
        raise Retryable(MalformedResponseError(
            f"{where}: the answer is nested deeper than {MAX_JSON_DEPTH} levels, which no real answer is; "
            "try again later", status_code=200, endpoint=ep.id))
    if isinstance(data, str) and key_pattern is not None:
        data = key_pattern.sub("***", data)
    if check:
        check_shape(ep, data, where)
    return data


def server_message(content: bytes | bytearray, redact: Callable[[str], str]) -> str:
    """The message of a non-200 answer, short, on one line and without any echo of a key."""
    text = bytes(content[:MAX_ERROR_BODY_BYTES]).decode("utf-8", errors="replace").strip()
    try:
        payload = json.loads(text)
        if isinstance(payload, dict):
            text = str(payload.get("message") or payload.get("Message") or payload.get("error") or text)
    except (ValueError, RecursionError):
        if "<html" in text[:500].lower():
            text = "an HTML error page"
    text = " ".join(redact(text).split())
    return text[:MAX_MESSAGE_CHARS] + ("…" if len(text) > MAX_MESSAGE_CHARS else "")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


async def raw_chunks(response: httpx.Response):
    """The body as it came off the wire; None for a response built in memory (a mock transport),
    whose content httpx has already read and decoded."""
    try:
        async for chunk in response.aiter_raw():
            yield chunk
    except httpx.StreamConsumed:
        yield None


FIRST_NON_SPACE = re.compile(rb"[ \t\r\n]*")
TOO_DEEP = object()


class BodyDecoder:
    """Undoes gzip or deflate with a cap on what comes out of each piece, so a bomb stops at the bound."""

    def __init__(self, encoding: str):
        codings = [c.strip().lower() for c in encoding.split(",") if c.strip() and c.strip().lower() != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            raise ValueError(f"unsupported content encoding {encoding[:40]!r}")
        self.coding = codings[0] if codings else ""
        self._z = None
        if self.coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif self.coding == "deflate":
            self._z = zlib.decompressobj()
        self._first = True  # "deflate" is zlib-wrapped by the standard and raw by some servers
        self._fed = False

    PIECE = 1024 * 1024  # decoded at a time, so memory stays near the bound, not twice it

    def feed(self, data: bytes, room: int) -> Iterator[bytes]:
        """What `data` decodes to, in pieces, but at most `room` + 1 bytes (one more than fits tells the caller)."""
        if self._z is None:
            yield data[:room + 1]
            return
        if not data:
            return
        self._fed = True
        first, self._first = self._first, False
        produced = 0
        while data and produced <= room and not self._z.eof:
            try:
                piece = self._z.decompress(data, min(self.PIECE, room + 1 - produced))
            except zlib.error:
                if not (first and produced == 0 and self.coding == "deflate"):
                    raise
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                first = False
                continue
            produced += len(piece)
            data = self._z.unconsumed_tail
            yield piece

    def finish(self) -> None:
        if self._z is not None and self._fed and not self._z.eof:
            raise zlib.error("the compressed body ends early")


def within_depth_redacted(data: Any, max_depth: int, key_pattern: "re.Pattern[str] | None") -> bool:
    """False when `data` nests deeper than `max_depth`; else True, with every key echo in its text
    (values and object keys) replaced in place. One pass, no recursion."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if isinstance(node, dict):
            for name, value in node.items():
                if isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
                elif key_pattern is not None and isinstance(value, str) and key_pattern.search(value):
                    node[name] = key_pattern.sub("***", value)
            if key_pattern is not None and any(key_pattern.search(name) for name in node if isinstance(name, str)):
                items = list(node.items())
                node.clear()
                node.update((key_pattern.sub("***", k) if isinstance(k, str) else k, v) for k, v in items)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
                elif key_pattern is not None and isinstance(value, str) and key_pattern.search(value):
                    node[index] = key_pattern.sub("***", value)
    return True


def key_pattern_for(keys: Iterable[SubscriptionKey]) -> "re.Pattern[str] | None":
    """One pattern for every form a key can be echoed in: as sent, in any case, or percent-encoded."""
    forms = {form for key in keys for form in (key.reveal(), urllib.parse.quote(key.reveal(), safe=""))}
    if not forms:
        return None
    return re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)), re.IGNORECASE)


def is_empty_envelope(content: bytes | bytearray) -> bool:
    try:
        payload = json.loads(content)
    except (ValueError, RecursionError):
        return False
    return isinstance(payload, dict) and isinstance(payload.get("items"), list) and not payload["items"]


def unwrap_envelope(payload: Any, where: str, *, paginated: bool = True) -> tuple[list, str | None]:
    """(items, next cursor) of one successor answer.

    Accepted: the cursor envelope {message, page_size, next_cursor, items}, {"items": ...}, a bare
    array, a bare object (one record, licence answers), and no body at all (no data). A cursor is
    followed only when present and non-empty.
    """
    if payload is None:
        return [], None
    if isinstance(payload, list):
        return payload, None
    if isinstance(payload, dict):
        if "items" in payload:
            items = payload["items"]
            if items is None:
                items = []
            elif isinstance(items, dict):
                items = [items]
            elif not isinstance(items, list):
                raise MalformedResponseError(
                    f"{where}: the answer's items are {type(items).__name__}, not a list; the service's format may have changed")
            cursor = payload.get("next_cursor")
            if cursor is not None and not isinstance(cursor, str):
                raise MalformedResponseError(f"{where}: the page cursor is {type(cursor).__name__}, not text")
            return items, (cursor.strip() or None) if cursor else None
        if paginated:
            raise MalformedResponseError(
                f"{where}: expected the paged answer (items and next_cursor), got an object without items; "
                "the service's format may have changed")
        return [payload], None
    raise MalformedResponseError(
        f"{where}: expected a list of records, got {type(payload).__name__}; the service's format may have changed")


def check_shape(ep: Endpoint, data: Any, where: str) -> None:
    """Refuse payloads that are not the specification's shape, so they are never cached."""
    if data is None:
        return
    if ep.returns_list:
        ok = isinstance(data, list) and all(isinstance(item, dict) for item in data)
        expected = "a list of records"
    else:
        ok = isinstance(data, dict) or (isinstance(data, list) and len(data) <= 1 and all(isinstance(i, dict) for i in data))
        expected = "one record"
    if not ok:
        raise MalformedResponseError(
            f"{where}: expected {expected}, got {type(data).__name__}; the service's format may have changed",
            status_code=200, endpoint=ep.id)

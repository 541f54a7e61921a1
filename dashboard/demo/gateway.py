"""The gateway's side of the demo simulator: its bodies for a missing key, an unknown path, a wrong
method; the failures seen in the wild (throttling, 5xx pages, broken or wrongly shaped bodies); and
the raw ASGI sending of an answer. Both path layouts answer through these."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

KEY_HEADER = "Ocp-Apim-Subscription-Key"
FAULT_KINDS = ("429", "421", "500", "502", "503", "504", "timeout", "malformed_json", "html", "wrong_shape")
# What random faults (fault_rate) draw from by default: the transient failures a client retries.
# Slow answers and broken bodies are for tests, which inject them on purpose.
DEFAULT_FAULTS = ("429", "421", "500", "502", "503", "504")
DEFAULT_TIMEOUT_S = 30.0

MISSING_KEY_BODY = {
    "statusCode": 401,
    "message": "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.",
}
INVALID_KEY_BODY = {
    "statusCode": 401,
    "message": "Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.",
}
NOT_FOUND_BODY = {"statusCode": 404, "message": "Resource not found"}
METHOD_NOT_ALLOWED_BODY = {"statusCode": 405, "message": "Method not allowed"}

JSON_TYPE = "application/json; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"

_HTML_PAGES = {
    "502": ("502 Bad Gateway", "The gateway received an invalid response from the backend."),
    "503": ("503 Service Unavailable", "The service is temporarily unavailable. Please try again later."),
    "504": ("504 Gateway Timeout", "The gateway did not receive a response from the backend in time."),
    "html": ("Service Unavailable", "The site is under maintenance. We apologise for the inconvenience."),
}


def html_page(kind: str) -> bytes:
    title, text = _HTML_PAGES[kind]
    return (
        f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{text}</p><hr><p>demo simulator</p></body></html>\n"
    ).encode("utf-8")


def normalise_keys(valid_keys: Any) -> Any:
    """None (any non-empty key), a set of keys, or {group: None | set of keys}."""
    if valid_keys is None:
        return None
    if isinstance(valid_keys, str):
        return {valid_keys}
    if isinstance(valid_keys, Mapping):
        out = {}
        for group, keys in valid_keys.items():
            out[group] = None if keys is None else normalise_keys(keys)
        return out
    if isinstance(valid_keys, Iterable):
        return {str(k) for k in valid_keys}
    raise TypeError("valid_keys must be None, a string, a set of strings or a dict {group: set}")


async def send_body(send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    if status != 204:
        headers = headers + [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body if status != 204 else b""})


async def send_json(send, status: int, payload: Any, headers: list | None = None) -> None:
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    await send_body(send, status, body, (headers or []) + [(b"content-type", JSON_TYPE.encode())])


async def send_fault(send, kind: str, retry_after: float | None, endpoint: Any,
                     successor_path: bool = False) -> None:
    """Answer with the fault `kind` as the gateway sends it (`retry_after` as its header)."""
    headers = []
    if retry_after is not None:
        value = str(int(retry_after)) if float(retry_after).is_integer() else str(retry_after)
        headers.append((b"retry-after", value.encode()))
    if kind == "429":
        wait = f"in {value} seconds" if retry_after is not None else "later"
        await send_json(send, 429, {"statusCode": 429, "message": f"Rate limit is exceeded. Try again {wait}."}, headers)
    elif kind == "421":
        await send_json(send, 421, {"statusCode": 421, "message": "Too many requests. The call quota of this subscription is exceeded."}, headers)
    elif kind == "500":
        await send_json(send, 500, {"statusCode": 500, "message": "Internal server error"}, headers)
    elif kind in ("502", "503", "504"):
        await send_body(send, int(kind), html_page(kind), headers + [(b"content-type", HTML_TYPE.encode())])
    elif kind == "html":
        await send_body(send, 200, html_page("html"), headers + [(b"content-type", HTML_TYPE.encode())])
    elif kind == "malformed_json":
        if successor_path:  # a cut-off envelope
            start = b'{"message": "success", "page_size": 100, "next_cursor": "", "items": ['
        else:
            start = b"[" if endpoint is None or endpoint.returns_list else b""
        text = start + '{"last_upd_date": "2025-07-02T06:47:30.35", "proj_name_th": "กองทุนเปิด เดโม'.encode("utf-8")
        await send_body(send, 200, text, headers + [(b"content-type", JSON_TYPE.encode())])
    else:  # wrong_shape: an object where a list is expected, a bare string where an object is
        payload: Any
        if successor_path:
            # fund envelope expected: an object without items; licence answers: a bare string
            payload = {"statusCode": 200, "message": "OK", "data": None} if endpoint is None or endpoint.is_fund else "OK"
        elif endpoint is not None and endpoint.returns_list:
            payload = {"statusCode": 200, "message": "OK", "data": None}
        else:
            payload = "OK"
        await send_json(send, 200, payload, headers)

"""A garbled or expired session token is refused in one line (400 / 403), never with a traceback.

The token checks on their own, then the dashboard served in this process (demo data, as
`sec-dashboard serve` runs it): pages and websockets carrying bad tokens, and good ones beside them.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

import pytest
from bokeh.util.token import generate_jwt_token, generate_session_id
from tornado.httpclient import HTTPClientError
from tornado.websocket import websocket_connect

from dashboard.server import session_tokens
from dashboard.server.session_tokens import MAX_PAYLOAD_BYTES, ZLIB_KEY, token_problem, websocket_token
from tests.helpers import served_dashboard, visit


def raw_token(payload) -> str:
    """A token whose payload is `payload` as JSON (unsigned, as the server's own are by default)."""
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=") + ".sig"


def fresh_token(expiration: int = 300) -> str:
    return generate_jwt_token(generate_session_id(), expiration=expiration)


GARBLED = ["garbage", "!!!", "ก", raw_token([1, 2]), raw_token({"x": 1}), raw_token({"session_id": 1}),
           raw_token({"session_id": ""}), base64.urlsafe_b64encode(b"\x81\x82").decode(),
           base64.urlsafe_b64encode(b"[" * 5_000).decode()]


def test_the_servers_own_tokens_pass():
    token = fresh_token()
    assert token_problem(token) is None
    assert token_problem(token, websocket=True) is None


@pytest.mark.parametrize("token", GARBLED)
def test_a_garbled_token_is_malformed(token):
    assert token_problem(token) == (400, "Malformed session token")
    assert token_problem(token, websocket=True) == (400, "Malformed session token")


def packed(payload: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")


BAD_PARTS = ["!!!", base64.urlsafe_b64encode(b"not zlib").decode(), packed(b"[1]"), packed(b"\xff")]


def test_a_token_must_inflate_to_a_bounded_payload():
    expiry = int(time.time()) + 60
    headers = {"headers": {"User-Agent": "x" * 2000}, "cookies": {"a": "b" * 3000}}
    real = generate_jwt_token(generate_session_id(), extra_payload=headers)  # what a page's token carries
    assert token_problem(real, websocket=True) is None
    bomb = raw_token({"session_id": "abc", "session_expiry": expiry,
                      ZLIB_KEY: packed(b'{"a": "' + b"x" * (4 * MAX_PAYLOAD_BYTES) + b'"}')})
    assert len(bomb) < 20_000
    assert token_problem(bomb, websocket=True) == (400, "Session token too large")
    assert token_problem(bomb) == (400, "Session token too large")  # Bokeh inflates a page's token too
    for part in BAD_PARTS:
        token = raw_token({"session_id": "abc", "session_expiry": expiry, ZLIB_KEY: part})
        assert token_problem(token, websocket=True) == (400, "Malformed session token"), part
        assert token_problem(token) == (400, "Malformed session token"), part


def test_the_websockets_token_must_carry_an_expiry_not_yet_passed():
    assert token_problem(raw_token({"session_id": "abc"})) is None  # a page's token: Bokeh needs only the id
    assert token_problem(raw_token({"session_id": "abc"}), websocket=True) == (400, "Malformed session token")
    assert token_problem(raw_token({"session_id": "abc", "session_expiry": "soon"}), websocket=True)[0] == 400
    token = fresh_token(expiration=60)
    assert token_problem(token, websocket=True, now=time.time() + 30) is None
    assert token_problem(token, websocket=True, now=time.time() + 120) == (403, "Session token expired")
    assert token_problem(None, websocket=True) == (400, "No session token")


def test_a_signed_servers_token_must_carry_its_signature():
    key = b"k" * 32
    signed = generate_jwt_token(generate_session_id(secret_key=key, signed=True), secret_key=key, signed=True)
    assert token_problem(signed, secret_key=key, signed=True) is None
    assert token_problem(fresh_token(), secret_key=key, signed=True) == (403, "Invalid session token")


def test_the_websockets_token_is_read_as_tornado_splits_the_header():
    assert websocket_token("bokeh, abc.def") == "abc.def"
    assert websocket_token("bokeh,abc") == "abc"
    assert websocket_token(None) is None
    assert websocket_token("bokeh") is None
    assert websocket_token("other, abc") is None
    assert websocket_token("bokeh, a, b") is None


@pytest.fixture(scope="module")
def port():
    with served_dashboard() as port:
        yield port


def status_of(port: int, query: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{query}", timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def tracebacks(caplog) -> list[str]:
    return [r.getMessage()[:200] for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.parametrize("token", [*GARBLED, *(raw_token({"session_id": "abc", ZLIB_KEY: p}) for p in BAD_PARTS),
                                   raw_token({"session_id": "abc", ZLIB_KEY: packed(b" " * (2 * MAX_PAYLOAD_BYTES))})])
def test_a_page_asked_for_with_a_garbled_token_is_refused_with_400(port, token, caplog):
    caplog.set_level(logging.INFO)
    assert status_of(port, f"?bokeh-token={urllib.parse.quote(token)}") == 400
    assert tracebacks(caplog) == []


def test_a_page_asked_for_with_a_good_token_is_served(port, caplog):
    caplog.set_level(logging.INFO)
    assert status_of(port, f"?bokeh-token={fresh_token()}") == 200
    assert tracebacks(caplog) == []


def handshake(port: int, subprotocols: list[str] | None) -> int | str:
    """Open the dashboard's websocket offering these subprotocols: the refusal's status, or "open"
    once the server has answered the first message."""
    async def attempt():
        try:
            socket = await websocket_connect(f"ws://127.0.0.1:{port}/ws", subprotocols=subprotocols)
        except HTTPClientError as error:
            return error.code
        try:
            first = await asyncio.wait_for(socket.read_message(), 30)
            return "open" if first is not None else "closed"
        finally:
            socket.close()

    return asyncio.run(attempt())


@pytest.mark.parametrize("offered", [None, ["bokeh"], ["other", fresh_token()], ["bokeh", "garbage"],
                                     ["bokeh", raw_token({"session_id": "abc"})],
                                     ["bokeh", raw_token({"session_id": "abc", "session_expiry": 2**40,
                                                          ZLIB_KEY: packed(b" " * (2 * MAX_PAYLOAD_BYTES))})]])
def test_a_websocket_without_a_readable_token_is_refused_with_400(port, offered, caplog):
    caplog.set_level(logging.INFO)
    assert handshake(port, offered) == 400
    assert tracebacks(caplog) == []


def test_a_websocket_with_an_expired_token_is_refused_with_403(port, caplog):
    caplog.set_level(logging.INFO)
    token = raw_token({"session_id": generate_session_id(), "session_expiry": int(time.time()) - 5})
    assert handshake(port, ["bokeh", token]) == 403
    assert tracebacks(caplog) == []


def test_a_pages_own_token_opens_its_websocket(port, caplog):
    caplog.set_level(logging.INFO)
    assert handshake(port, ["bokeh", visit(port)]) == "open"
    assert tracebacks(caplog) == []


def test_the_patched_methods_are_where_the_patch_expects_them():
    """Fails when Bokeh moves what the patch wraps: the patch is then to be checked against it."""
    from bokeh.server.views.session_handler import SessionHandler
    from bokeh.server.views.ws import WSHandler

    session_tokens.install()
    assert SessionHandler.get_session.__wrapped__ is session_tokens._originals[(SessionHandler, "get_session")]
    assert WSHandler.prepare.__wrapped__ is session_tokens._originals[(WSHandler, "prepare")]


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="Bokeh inflates a token's compressed part without a limit and answers a "
                                       "garbled token with a 500 and a traceback (docs/upstream.md)")
def test_without_the_patch_bokeh_refuses_a_garbled_token_plainly(port, caplog):
    caplog.set_level(logging.INFO)
    session_tokens.uninstall()
    try:
        assert status_of(port, "?bokeh-token=garbage") == 400
        assert tracebacks(caplog) == []
    finally:
        session_tokens.install()

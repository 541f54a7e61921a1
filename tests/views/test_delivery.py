"""A change made after the browser pulled the page, before it reported the page drawn, reaches it.

Panel 1.9 drops the layout changes of that window (it counts the session as connected only from
the "drawn" report); `dashboard.views.delivery.install()` has them sent. The test serves a small
Panel page in this process and opens it over the websocket as BokehJS does, without reporting it
drawn: the page then changes its layout, a property and a text, and every change must arrive.
"""

from __future__ import annotations

import asyncio
import socket
import threading

import panel as pn
from bokeh.client.websocket import WebSocketClientConnectionWrapper
from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from bokeh.util.token import generate_jwt_token, generate_session_id
from tornado.websocket import websocket_connect

from dashboard.views import delivery
from tests.browser.dashboard_server import wait_until_live


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _changes_seen_after_pull(port: int, pulled: threading.Event, seconds: float) -> list[tuple]:
    """Open the page's session, pull its document, never report it drawn; the changes sent after."""
    protocol = Protocol()
    receiver = Receiver(protocol)
    token = generate_jwt_token(generate_session_id())
    raw = await websocket_connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["bokeh", token])
    sock = WebSocketClientConnectionWrapper(raw)

    async def next_message():
        while True:
            fragment = await raw.read_message()
            if fragment is None:
                return None
            message = await receiver.consume(fragment)
            if message is not None:
                return message

    try:
        assert (await next_message()).msgtype == "ACK"
        await protocol.create("PULL-DOC-REQ").send(sock)
        while (await next_message()).msgtype != "PULL-DOC-REPLY":
            pass
        pulled.set()  # the page changes itself now
        seen: list[tuple] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            try:
                message = await asyncio.wait_for(next_message(), deadline - loop.time())
            except asyncio.TimeoutError:
                break
            if message is not None and message.msgtype == "PATCH-DOC":
                seen += [(e.get("kind"), e.get("attr"), e.get("new")) for e in message.content.get("events", [])]
        return seen
    finally:
        raw.close()


def test_a_layout_change_between_pull_and_first_draw_reaches_the_browser():
    delivery.install()
    pulled = threading.Event()

    def page():
        text = pn.pane.HTML("before", name="text")
        layout = pn.Column(text, name="layout")

        async def change_after_pull():
            while not pulled.is_set():
                await asyncio.sleep(0.02)
            text.visible = False
            layout.objects = [text, pn.pane.HTML("added", name="added")]
            text.object = "after"

        pn.state.execute(change_after_pull)
        return layout

    port = _free_port()
    pn.serve({"/": page}, port=port, address="127.0.0.1", threaded=True, show=False, liveness=True,
             websocket_origin=[f"127.0.0.1:{port}"])
    try:
        wait_until_live(f"http://127.0.0.1:{port}/", 60)
        seen = asyncio.run(_changes_seen_after_pull(port, pulled, seconds=5))
    finally:
        pn.state.kill_all_servers()
    attrs = {attr: new for _kind, attr, new in seen}
    assert attrs.get("visible") is False and attrs.get("text") == "after"
    # the layout change: Panel dropped it (the page kept one child)
    children = attrs.get("children")
    assert children is not None and len(children) == 2, seen

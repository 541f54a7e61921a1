"""A crowd of visitors logs nothing it should not (issue 40).

Twenty pages of the served demo, links to each tab in turn, are opened at once against one server
process; each does what BokehJS does (pulls its document, reports it drawn, sends the browser's
details), some are closed before their tab has arrived, the rest once it has, all together, with a
few hostile links beside them. Three rounds of it: before the fix, one round logged dozens of ERROR
lines with tracebacks (293 in ten rounds), though a browser's crowd showed them in one run of two. Afterwards
the server's log holds no traceback and no ERROR line (a client gone is at most a debug line), and a
new page still gets its tab at once.

The visitors are websocket clients speaking Bokeh's protocol (`tests.views.test_sessions.ServedSession`),
not browsers: twenty Chromium pages ten times over would take minutes on two cores; what the server
sees is the same messages, and the closes come quicker than a browser's.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import urllib.parse

import httpx
import pytest

from tests.browser.dashboard_server import DashboardProcess
from tests.helpers import TOKEN
from tests.views.test_sessions import ServedSession

pytestmark = pytest.mark.slow  # a served process and 200 sessions

ROUNDS = 3
PAGES = 20
LINK_TABS = ("explorer", "allocation", "holdings", "fees", "risk", "performance", "nav", "licensee", "market")
HOSTILE_LINKS = ("/?tab=%3Cscript%3E&fund=%00", "/?fund=" + "A" * 5000, "/?bokeh-token=garbage",
                 "/components/..%2f..%2fetc/x/y/z", "/?basket=" + ",".join(["X"] * 300))
# What the browser sends once the page is drawn (Panel's BrowserInfo and the page's document_ready).
BROWSER_DETAILS = [{"kind": "ModelChanged", "attr": "dark_mode", "new": False},
                   {"kind": "ModelChanged", "attr": "device_pixel_ratio", "new": 1.0}]


async def page_token(client: httpx.AsyncClient, path: str) -> str:
    answer = await client.get(path)
    assert answer.status_code == 200, (path, answer.status_code)
    found = TOKEN.search(answer.text)
    assert found, f"{path}: the page carries no session token"
    return found.group(1)


def reset(session: ServedSession) -> None:
    """Close the session's connection at once, as a killed tab does (a TCP reset, no closing handshake)."""
    stream = session._socket._socket.stream  # the tornado connection's socket (the test's own client)
    sock = stream.socket
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    session._socket._socket.close()


async def visit(port: int, client: httpx.AsyncClient, number: int) -> ServedSession | None:
    tab = LINK_TABS[number % len(LINK_TABS)]
    query = urllib.parse.urlencode({"tab": tab})
    token = await page_token(client, f"/?{query}")
    session = await ServedSession.open(port, token=token, dashboard=False, timeout=180)
    info = session.named.get("browser_info")
    assert info, "the page has no browser-info model"
    await session._send([{**detail, "model": {"id": info}} for detail in BROWSER_DETAILS])
    return session


async def one_round(port: int, client: httpx.AsyncClient, round_number: int) -> None:
    hostile = [client.get(link) for link in HOSTILE_LINKS[: 1 + round_number % len(HOSTILE_LINKS)]]
    opened = await asyncio.gather(*(visit(port, client, n) for n in range(PAGES)), *hostile,
                                  return_exceptions=True)
    sessions = [s for s in opened[:PAGES] if isinstance(s, ServedSession)]
    failures = [s for s in opened[:PAGES] if isinstance(s, BaseException)]
    assert not failures, f"{len(failures)} of {PAGES} pages could not be opened: {failures[:3]}"
    # half of them leave before their tab arrives, the others once it has: all together
    await asyncio.sleep(0.05 if round_number % 2 else 0.6)
    for number, session in enumerate(sessions):
        if number % 2:
            reset(session)
        else:
            await session.close()
    await asyncio.sleep(0.2)


async def crowd(port: int) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=180) as client:
        for round_number in range(ROUNDS):
            await one_round(port, client, round_number)
        # and a new page draws at once: its tab arrives
        token = await page_token(client, "/")
        session = await ServedSession.open(port, token=token)
        try:
            await session.first_load(timeout=120)
        finally:
            await session.close()


def test_a_crowd_opening_and_closing_together_logs_no_error(tmp_path):
    log = tmp_path / "server.log"
    with DashboardProcess(demo=True, log_path=log) as server:
        asyncio.run(crowd(server.port))
        text = server.log_tail(100000)
    bad = [line for line in text.splitlines() if "Traceback" in line or "ERROR" in line or "Uncaught" in line
           or "never retrieved" in line]
    assert bad == [], "\n".join(bad[:20]) + "\n---\n" + text[-3000:]

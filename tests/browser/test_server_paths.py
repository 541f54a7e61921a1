"""The served dashboard: hostile static and component paths get a 4xx (never a 500 or a traceback); the footer follows the content.

Raw requests through a socket: HTTP clients (httpx, urllib) normalise `..` away before sending.
"""

from __future__ import annotations

import re
import socket
import urllib.request

import pytest

from tests.browser.test_dashboard import assert_clean_log

TRAVERSALS = [
    "/components/../../../etc/passwd",
    "/components/..%2f..%2f..%2fetc/passwd",
    "/components/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/components/panel/../../../etc/passwd",
    "/components/os/path/__file__/x",
    "/components/antigravity/x/_css/y",
    "/components/panel/Column/_css/../../../../etc/passwd",
    "/components/x",
    "/components/",
    "/static/../../../etc/passwd",
    "/static/extensions/panel/..%2f..%2f..%2f..%2fetc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
]


def raw_get(port: int, path: str) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


@pytest.fixture(scope="module")
def server(demo_dashboard):
    """The run's demo dashboard (conftest): this module only reads it."""
    return demo_dashboard


@pytest.mark.parametrize("path", TRAVERSALS)
def test_a_traversal_path_is_a_4xx_without_a_file(server, path):
    status, body = raw_get(server.port, path)
    assert 400 <= status < 500, f"{path}: {status}"
    assert b"root:" not in body and b"Traceback" not in body


def test_the_server_logged_no_traceback_and_the_page_still_serves(server):
    for path in TRAVERSALS:
        raw_get(server.port, path)
    with urllib.request.urlopen(server.url, timeout=30) as answer:
        assert answer.status == 200 and b"<html" in answer.read().lower()
    log = server.log_path.read_text()
    assert "Component not found" in log  # the log was written, and says what was refused
    assert_clean_log(server.log_path)


def test_the_footer_sits_below_a_long_tab(server, browser):
    """The footer line follows the tab's content (it was drawn over the middle of a long tab)."""
    from tests.browser.dashboard_server import wait_idle

    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
        page = context.new_page()
        page.goto(server.url + "?tab=holdings")
        page.get_by_text(re.compile(r"holdings, total [\d.,]+ % of NAV")).wait_for(timeout=30_000)
        wait_idle(page)
        content = page.locator(".sd-tab-content").bounding_box()
        footer = page.get_by_role("contentinfo").bounding_box()
        assert content["height"] > 900, "the tab's box must hold the whole (long) Holdings tab, not the window's height"
        assert footer["y"] >= content["y"] + content["height"] - 1, (width, footer, content)
        context.close()

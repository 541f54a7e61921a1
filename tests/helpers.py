"""The test helpers every serving test shares: a free loopback port, waiting for a condition or a
server, a page visit, and the dashboard served in this process."""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator

TOKEN = re.compile(r'"token":"([^"]+)"')


def free_port() -> int:
    """A TCP port nobody listens on now, on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(predicate: Callable[[], object], timeout: float = 30.0, what: str = "the condition",
               interval: float = 0.05) -> None:
    """Poll `predicate` until it is true; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        time.sleep(interval)


def wait_until_live(url: str, timeout: float, process: subprocess.Popen | None = None, what: str = "the server") -> None:
    """Wait until the Panel server at `url` answers its health check (/liveness), or fail with
    RuntimeError: when `process` (the server's) ends, or after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(url + "liveness", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer on {url} within {timeout:g} s")
        time.sleep(0.1)


def visit(port: int, path: str = "/", cookie: str = "", agent: str = "test-visitor") -> str:
    """GET the page as a browser does; the token of the session it was given."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"User-Agent": agent})
    if cookie:
        request.add_header("Cookie", cookie)
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 200
        page = answer.read().decode()
    found = TOKEN.search(page)
    assert found, "the page carries no session token"
    return found.group(1)


@contextlib.contextmanager
def served_dashboard(**serve_options) -> Iterator[int]:
    """The dashboard served in this process on a free loopback port (demo data, `serve()`'s
    threaded mode, the heap not frozen); yields the port. `serve_options` go to `serve()`."""
    import panel as pn

    from dashboard.config import ApiSettings
    from dashboard.server.serve import serve

    port = free_port()
    serve_options.setdefault("settings", ApiSettings.from_env(demo=True))
    serve(port=port, address="127.0.0.1", threaded=True, settle=False, **serve_options)
    try:  # the server's thread keeps the test process alive until it is stopped, whatever fails
        wait_until_live(f"http://127.0.0.1:{port}/", 60)
        yield port
    finally:
        pn.state.kill_all_servers()


class LoopbackListener:
    """A TCP listener on a free 127.0.0.1 port (`port`) that hands each connection it accepts to
    `on_connection`, from a thread of its own; as a context manager, it accepts from entry until exit
    (`stopping` is set then, for the connections' own threads), and exit closes it."""

    def __init__(self, on_connection: Callable[[socket.socket], None], backlog: int = 128):
        self._on_connection = on_connection
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(backlog)
        self._sock.settimeout(0.2)
        self.port: int = self._sock.getsockname()[1]
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._on_connection(conn)

    def __enter__(self) -> "LoopbackListener":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self._thread.join(5)
        self._sock.close()

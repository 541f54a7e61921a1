"""Services that are down, on 127.0.0.1: one that accepts and never answers, a port that refuses,
one that answers 500 to everything. Each counts what reached it."""

from __future__ import annotations

import http.server
import socket
import threading


def refusing_url() -> str:
    """A loopback URL nothing listens on (a port taken from the system and given back)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class SilentService:
    """Accepts every connection and never answers; `connections` counts them."""

    def __init__(self):
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(128)
        self._sock.settimeout(0.2)
        self.base_url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self.connections = 0
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._held.append(conn)

    def __enter__(self) -> "SilentService":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)
        for conn in self._held:
            conn.close()
        self._sock.close()


class _FailingHandler(http.server.BaseHTTPRequestHandler):
    def _fail(self) -> None:
        self.server.requests += 1  # type: ignore[attr-defined]
        body = b'{"message": "internal error"}'
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _fail

    def log_message(self, *args) -> None:  # quiet
        pass


class FailingService:
    """Answers 500 to every request for ever; `requests` counts them."""

    def __init__(self):
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FailingHandler)
        self._server.requests = 0  # type: ignore[attr-defined]
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)

    @property
    def requests(self) -> int:
        return self._server.requests  # type: ignore[attr-defined]

    def __enter__(self) -> "FailingService":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

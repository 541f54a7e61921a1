"""Services that are down, on 127.0.0.1: one that accepts and never answers, a port that refuses,
one that answers 500 to everything. Each counts what reached it."""

from __future__ import annotations

import http.server
import socket
import threading

from tests.helpers import LoopbackListener, free_port


def refusing_url() -> str:
    """A loopback URL nothing listens on (a port taken from the system and given back)."""
    return f"http://127.0.0.1:{free_port()}"


class SilentService:
    """Accepts every connection and never answers; `connections` counts them."""

    def __init__(self):
        self._listener = LoopbackListener(self._hold)
        self.base_url = f"http://127.0.0.1:{self._listener.port}"
        self.connections = 0
        self._held: list[socket.socket] = []

    def _hold(self, conn: socket.socket) -> None:
        self.connections += 1
        self._held.append(conn)

    def __enter__(self) -> "SilentService":
        self._listener.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._listener.__exit__(*exc)
        for conn in self._held:
            conn.close()


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

"""The demo simulator on a socket: `SimulatorServer` runs it with uvicorn in a thread (tests, notebooks,
benchmarks); `serve` is the `sec-dashboard demo-server` command, with keys from the environment."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any

from dashboard.config import FUND_GROUP, LICENSE_GROUP
from dashboard.demo.simulator import SimulatorApp, create_app


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class SimulatorServer:
    """Runs the simulator with uvicorn in a daemon thread: `with SimulatorServer() as server: ...`.

    `port=0` picks a free port; `base_url` has the real one. Options other than host and port go
    to `create_app` when no app is given.
    """

    def __init__(self, app: SimulatorApp | None = None, *, host: str = "127.0.0.1", port: int = 0,
                 startup_timeout: float = 10.0, **app_options):
        self.app = app if app is not None else create_app(**app_options)
        self.host = host
        self.port = port
        self.startup_timeout = startup_timeout
        self._server = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return _url(self.host, self.port)

    def start(self) -> "SimulatorServer":
        import uvicorn

        if self._thread is not None:
            return self
        config = uvicorn.Config(
            self.app, host=self.host, port=self.port, log_level="warning", lifespan="off",
            access_log=False, timeout_graceful_shutdown=1,
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="sec-demo-simulator", daemon=True)
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the demo simulator could not start on {_url(self.host, self.port)}")
            time.sleep(0.01)
        self.port = server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        self.app.wake_sleepers()  # slow answers would otherwise hold the shutdown
        server.should_exit = True
        thread.join(timeout=5)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> "SimulatorServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self._thread is not None else "stopped"
        return f"SimulatorServer({self.base_url}, {state})"


def keys_from_env(environ: Mapping[str, str] | None = None) -> dict | None:
    """Per-group keys from SEC_API_KEY / SEC_FUND_API_KEY / SEC_LICENSE_API_KEY; None when none is set.

    A group's own key and the shared key are both accepted, as the dashboard falls back from one to
    the other; a group with neither accepts any non-empty key.
    """
    env = os.environ if environ is None else environ
    shared, fund, lic = (env.get(name, "").strip() for name in ("SEC_API_KEY", "SEC_FUND_API_KEY", "SEC_LICENSE_API_KEY"))
    if not (shared or fund or lic):
        return None
    return {
        FUND_GROUP: {k for k in (fund, shared) if k} or None,
        LICENSE_GROUP: {k for k in (lic, shared) if k} or None,
    }


def serve(port: int = 8765, host: str = "127.0.0.1", latency_ms: float = 0, fault_rate: float = 0, seed: int = 0,
          valid_keys: Any = None, layout: str = "both") -> None:
    """Serve the simulator until interrupted (the `sec-dashboard demo-server` command)."""
    import uvicorn

    if valid_keys is None:
        valid_keys = keys_from_env()
    app = create_app(valid_keys=valid_keys, latency_ms=latency_ms, fault_rate=fault_rate, seed=seed, layout=layout)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))  # bound here so the printed URL has the real port, also for port 0
    bound = sock.getsockname()[1]
    keys = "keys from SEC_*API_KEY" if valid_keys is not None else "any non-empty subscription key"
    print(f"{app.dataset.label}: SEC Open API simulator on {_url(host, bound)} ({keys}; {layout} layout; Ctrl+C stops)",
          flush=True)
    config = uvicorn.Config(app, host=host, port=bound, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])

"""`serve()`: the dashboard on Panel's server (the `sec-dashboard serve` command).

Each session gets `dashboard.app.create_dashboard`'s page; this module adds what a served process
needs around it: the session-token check, the resource routes, the heap frozen after the imports and
trimmed after sessions end, and (with `num_procs` > 1) forked processes that end with their parent.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import socket
import sys

import panel as pn

from dashboard.api.limit_shares import PROC_INDEX_ENV
from dashboard.app import APP_TITLE, create_dashboard
from dashboard.config import ApiSettings
from dashboard.models.source import default_client
from dashboard.server import closed_clients, session_tokens
from dashboard.server.heap import settle_heap, trim_heap_soon
from dashboard.server.notifications import release_notification_area
from dashboard.server.resources import routes


def session_page(settings: ApiSettings, client) -> pn.viewable.Viewable:
    """One served session's page, with the session's hooks (notification area and heap)."""
    app = create_dashboard(settings, client)
    pn.state.on_session_destroyed(functools.partial(release_notification_area, pn.state.curdoc))
    pn.state.on_session_destroyed(trim_heap_soon)
    return app.page


def _origins(address: str, port: int) -> list[str]:
    hosts = {address, "localhost", "127.0.0.1"}
    if address in ("0.0.0.0", "::", ""):
        hosts |= {socket.gethostname(), socket.getfqdn()}
    extra = [o.strip() for o in os.environ.get("SEC_DASHBOARD_WEBSOCKET_ORIGINS", "").split(",") if o.strip()]
    return sorted(f"[{h}]:{port}" if ":" in h else f"{h}:{port}" for h in hosts if h) + extra


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends
_forked_server = False  # whether this process is one `--num-procs` forked


def _on_forked_server(parent: int) -> None:
    """In each process `--num-procs` forks: end with the parent (stopping it left the others serving, orphaned)."""
    global _forked_server
    if _forked_server:
        return
    _forked_server = True
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent ended before the line above: nobody would stop this one
            os._exit(0)


def note_process_index() -> None:
    """A forked process's place among them (Tornado's task id) in SEC_DASHBOARD_PROC_INDEX, for the rate
    limit's turns when nothing is shared (`dashboard.api.limit_shares.TurnLimiter`)."""
    from tornado.process import task_id

    index = task_id()
    if index is not None:
        os.environ[PROC_INDEX_ENV] = str(index)


def serve(port: int = 5006, address: str = "127.0.0.1", show: bool = False, settings: ApiSettings | None = None,
          num_procs: int = 1, settle: bool = True, **kwargs) -> None:
    """Serve the dashboard until interrupted. `num_procs` > 1 forks that many processes sharing the port
    (0: one per CPU). `settle` freezes the heap first (off for a server inside another program, a test's
    thread). Other keywords go to `pn.serve`."""
    if num_procs < 0:
        raise ValueError(f"num_procs must be 0 (one per CPU) or more, not {num_procs}")
    settings = settings or ApiSettings.from_env()

    def factory():
        # One client for every session of a process, made by its first (its thread would not survive a fork).
        note_process_index()
        return session_page(settings, default_client(settings))

    print(f"SEC dashboard on http://{address}:{port}/ ({settings.source_label}; Ctrl+C stops)", flush=True)
    kwargs.setdefault("liveness", True)  # GET /liveness answers 200 without opening a session
    kwargs["extra_patterns"] = routes() + list(kwargs.get("extra_patterns", []))
    session_tokens.install()
    closed_clients.quiet_closed_connections()
    if settle:
        settle_heap()
    if num_procs != 1:
        os.register_at_fork(after_in_child=functools.partial(_on_forked_server, os.getpid()))
    pn.serve({"/": factory}, port=port, address=address, show=show, websocket_origin=_origins(address, port),
             title=APP_TITLE, num_procs=num_procs, **kwargs)

"""A served process that nobody is using starts itself afresh when its allocator holds much more
memory than it did at the start: what gets the memory of a crowd back.

Sessions end cleanly: the objects they made are freed (jemalloc's own figures: the live heap after
200 sessions is within a few MB of the warm idle). The allocator keeps part of the pages, though: the
few objects that outlive a crowd (cache entries, spares built while it was there) sit in slabs made
during it, and no allocator can move them. A crowd of 50 left the process about 20 MB above its
warm idle for good, that slack having grown from about 7 MB to about 39 (benchmarks/bench_sessions.py). So, the way long-running Python servers do it (a worker
renewed at a memory limit), a process with no visitor's session open, nobody arriving for
`quiet_s` seconds, and more than `slack_mb` MB more of that slack than when it started serving:

- serving alone (`serve`, one process): starts its own program again, in place (same process
  id, same listening socket, held open across: a visit in the two seconds the start takes waits
  in the socket's queue, it is not refused);
- forked by `serve --num-procs N`: ends with `RENEW_EXIT`, and the parent forks a fresh one in its
  place (the others serve meanwhile); the parent's `fork_processes` below tells that from a crash.

Measured on jemalloc only (`stats.resident - stats.allocated`): on another allocator the process is
never renewed. `SEC_DASHBOARD_RENEW=off` turns it off; `SEC_DASHBOARD_RENEW_SLACK_MB` and
`SEC_DASHBOARD_RENEW_QUIET_S` set the two limits.
"""

from __future__ import annotations

import ctypes
import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dashboard.heap import TRIM_DELAY_S, jemalloc_mallctl, trim_heap
from dashboard.spare_sessions import SPARE_PREFIX

log = logging.getLogger("dashboard.renewal")

#: The exit status of a forked process that ends to be renewed (EX_TEMPFAIL).
RENEW_EXIT = 75
#: How often an idle process checks whether it is due.
CHECK_S = 5.0
DEFAULT_SLACK_MB = 16.0
#: Measured no sooner than this after the last session ended: the heap is trimmed `TRIM_DELAY_S` after.
QUIET_MIN_S = 2 * TRIM_DELAY_S
DEFAULT_QUIET_S = 120.0
#: The listening sockets a renewed process takes over (file descriptors, comma-separated).
LISTEN_FDS_ENV = "SEC_DASHBOARD_LISTEN_FDS"
#: How many times this process has been renewed (shown in its log lines).
RENEWALS_ENV = "SEC_DASHBOARD_RENEWALS"
_OFF = {"off", "0", "no", "false", "never"}


@dataclass(frozen=True)
class RenewalPolicy:
    """When an idle served process starts afresh: `slack_mb` MB more unused allocator memory than
    when it started serving, nobody's session open for `quiet_s` seconds. `slack_mb` None: never."""

    slack_mb: float | None = DEFAULT_SLACK_MB
    quiet_s: float = DEFAULT_QUIET_S

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "RenewalPolicy":
        """From SEC_DASHBOARD_RENEW (off), SEC_DASHBOARD_RENEW_SLACK_MB and SEC_DASHBOARD_RENEW_QUIET_S;
        ValueError naming the variable for a value it cannot take."""
        environ = os.environ if environ is None else environ
        if environ.get("SEC_DASHBOARD_RENEW", "").strip().lower() in _OFF:
            return cls(slack_mb=None)
        return cls(slack_mb=_number(environ, "SEC_DASHBOARD_RENEW_SLACK_MB", DEFAULT_SLACK_MB, 0.001, 1_000_000),
                   quiet_s=_number(environ, "SEC_DASHBOARD_RENEW_QUIET_S", DEFAULT_QUIET_S, QUIET_MIN_S, 86_400 * 7))

    @property
    def on(self) -> bool:
        return self.slack_mb is not None


def _number(environ: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # also false for nan
        raise ValueError(f"{name}={text[:20]!r} is not a number from {low:g} to {high:g}")
    return value


def heap_slack() -> tuple[int, int] | None:
    """(resident, allocated) bytes of jemalloc's heap, fresh; None when not on jemalloc."""
    mallctl = jemalloc_mallctl()
    if mallctl is None:
        return None
    epoch = ctypes.c_uint64(1)
    if mallctl(b"epoch", None, None, ctypes.byref(epoch), ctypes.sizeof(epoch)) != 0:
        return None
    values = []
    for name in (b"stats.resident", b"stats.allocated"):
        value, size = ctypes.c_size_t(), ctypes.c_size_t(ctypes.sizeof(ctypes.c_size_t))
        if mallctl(name, ctypes.byref(value), ctypes.byref(size), None, 0) != 0:
            return None
        values.append(value.value)
    return values[0], values[1]


class Watch:
    """Decides when this process is due to be renewed. `saw(session_context)` is called for every
    session made and ended; `due()` every few seconds, answers with the reason when it is due.

    `slack()` gives (resident, allocated) bytes or None; `clock()` seconds; `trim()` purges the heap."""

    def __init__(self, policy: RenewalPolicy, slack: Callable[[], tuple[int, int] | None] = heap_slack,
                 clock: Callable[[], float] = time.monotonic, trim: Callable[[], object] = trim_heap):
        self.policy, self._slack, self._clock, self._trim = policy, slack, clock, trim
        self._servers: list = []  # the Bokeh server contexts whose sessions are counted
        self.busy_at = clock()
        #: Unused allocator memory (bytes) when this process started serving: what it is measured against.
        self.start_slack: int | None = None

    def measure_start(self) -> None:
        """Trim the heap and note the allocator's unused memory: this process's start, against
        which it is measured later (also after a trim: sessions end, then the heap is trimmed)."""
        self._trim()
        measured = self._slack()
        if measured is not None:
            self.start_slack = _unused(measured)

    def saw(self, session_context) -> None:
        server = getattr(session_context, "server_context", None)
        if server is not None and not any(known is server for known in self._servers):
            self._servers.append(server)
        self.busy_at = self._clock()

    def visitors(self) -> int:
        """Sessions open for visitors (spares built ahead of them not counted)."""
        return sum(not str(session.id).startswith(SPARE_PREFIX)
                   for server in self._servers for session in server.sessions)

    def due(self) -> str | None:
        now = self._clock()
        if self.visitors():
            self.busy_at = now
            return None
        idle = now - self.busy_at
        if self.start_slack is None:  # a forked process: measured once its first sessions (spares) are built
            if idle >= QUIET_MIN_S:
                self.measure_start()
            return None
        measured = self._slack() if idle >= self.policy.quiet_s else None
        if measured is None:
            return None
        resident, slack = measured[0], _unused(measured)
        grown = slack - self.start_slack
        if grown <= self.policy.slack_mb * 2**20:
            return None
        return (f"nobody connected for {idle:.0f} s, and {_mb(slack)} of the heap's {_mb(resident)} resident "
                f"holds no object: {_mb(grown)} more than when it started (limit {self.policy.slack_mb:g} MB)")


def _unused(measured: tuple[int, int]) -> int:
    """Resident bytes of the heap that hold no object, from (resident, allocated)."""
    return max(0, measured[0] - measured[1])


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


# ---- the listening sockets, kept across a renewal ----------------------------------------------

_listening: list[socket.socket] = []
_forked = False
_watch: Watch | None = None


def install_socket_handover() -> None:
    """Have the Bokeh server bind through `_bind_sockets`: it takes over the sockets a renewed
    process inherits (`LISTEN_FDS_ENV`) and remembers the ones it binds, to hand them on."""
    import bokeh.server.server as bokeh_server

    if getattr(bokeh_server.bind_sockets, "hands_over", False):
        return
    bind = bokeh_server.bind_sockets

    def _bind_sockets(address, port):
        inherited = inherited_sockets(port)
        if inherited:
            _listening[:] = inherited
            return inherited, inherited[0].getsockname()[1]
        sockets, bound = bind(address, port)
        _listening[:] = sockets
        return sockets, bound

    _bind_sockets.hands_over = True
    bokeh_server.bind_sockets = _bind_sockets


def inherited_sockets(port: int, environ: dict | None = None) -> list[socket.socket]:
    """The listening sockets the program this process ran before handed on (and the variable
    naming them removed, so nothing started from here takes them); [] when none, or when one is
    not a socket listening on `port` (then the server binds its own, as on a first start)."""
    environ = os.environ if environ is None else environ
    text = environ.pop(LISTEN_FDS_ENV, "")
    if not text:
        return []
    sockets: list[socket.socket] = []
    try:
        for fd in (int(part) for part in text.split(",")):
            sock = socket.socket(fileno=fd)
            sockets.append(sock)
            listening = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
            if not listening or (port and sock.getsockname()[1] != port):
                raise ValueError(f"descriptor {fd} is not listening on port {port}")
            os.set_inheritable(fd, False)
    except (ValueError, OSError) as exc:
        log.warning("The sockets handed on by the previous start could not be used (%s); binding anew", exc)
        for sock in sockets:
            sock.detach()  # not closed: whatever it is, this process did not make it
        return []
    return sockets


def start(policy: RenewalPolicy) -> Watch | None:
    """Watch this process for renewal (a served process; call before the server starts). Returns
    the watch (None when the policy is off), having trimmed the heap and measured its slack;
    `observe` is to be called for each session made or ended."""
    global _watch
    if not policy.on:
        _watch = None
        return None
    install_socket_handover()
    _watch = Watch(policy)
    _watch.measure_start()
    return _watch


def mark_forked() -> None:
    """In a process `--num-procs` forked: renewal ends it for the parent to fork anew, and its
    start is measured in it (once nothing has happened in it for `QUIET_MIN_S`), not in the parent."""
    global _forked
    _forked = True
    if _watch is not None:
        _watch.start_slack = None


_checking = False


def observe(session_context) -> None:
    """A session was made or ended: note it, and make sure this process's checks are running."""
    global _checking
    if _watch is None:
        return
    _watch.saw(session_context)
    if not _checking:
        from tornado.ioloop import PeriodicCallback

        _checking = True
        PeriodicCallback(_check, CHECK_S * 1000).start()


def _check() -> None:
    if _watch is None:
        return
    reason = _watch.due()
    if reason is not None:
        renew(reason)


def renewals() -> int:
    """How many times this process has been renewed."""
    text = os.environ.get(RENEWALS_ENV, "").strip()
    return int(text) if text.isdigit() else 0


def renew(reason: str) -> None:
    """Start this process afresh (see the module's text). Does not return."""
    count = renewals() + 1
    print(f"sec-dashboard: starting afresh (renewal {count}): {reason}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    if _forked:
        os._exit(RENEW_EXIT)
    fds = [sock.fileno() for sock in _listening if sock.fileno() >= 0]
    for fd in fds:
        os.set_inheritable(fd, True)
    env = {**os.environ, RENEWALS_ENV: str(count)}
    if fds:
        env[LISTEN_FDS_ENV] = ",".join(map(str, fds))
    os.execve(sys.executable, [sys.executable, "-m", "dashboard", *sys.argv[1:]], env)


# ---- the parent of `--num-procs` processes -----------------------------------------------------

def fork_processes(num_processes: int | None, max_restarts: int | None = None) -> int:
    """Tornado's `fork_processes` (Bokeh's `--num-procs` calls it), except that a process ending
    with `RENEW_EXIT` is replaced without counting as a restart: renewals are not crashes, and a
    long-running server renews many more times than the 100 restarts Tornado allows."""
    import tornado.process

    if num_processes is None or num_processes <= 0:
        num_processes = tornado.process.cpu_count()
    max_restarts = 100 if max_restarts is None else max_restarts
    children: dict[int, int] = {}

    def start_child(i: int) -> int | None:
        pid = os.fork()
        if pid == 0:
            tornado.process._reseed_random()
            tornado.process._task_id = i
            return i
        children[pid] = i
        return None

    for i in range(num_processes):
        task = start_child(i)
        if task is not None:
            return task
    restarts = 0
    while children:
        pid, status = os.wait()
        if pid not in children:
            continue
        task = children.pop(pid)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == RENEW_EXIT:
            log.info("Process %d (pid %d) renewed", task, pid)
        elif os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
            log.warning("Process %d (pid %d) ended with status %d; starting it again", task, pid, status)
            restarts += 1
            if restarts > max_restarts:
                raise RuntimeError("Too many child restarts, giving up")
        else:
            continue  # ended normally: not replaced
        task = start_child(task)
        if task is not None:
            return task
    sys.exit(0)

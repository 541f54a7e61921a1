"""Something on a Redis port that speaks the protocol but answers wrongly: the same reply to every command."""

from __future__ import annotations

import socket
import threading

from tests.helpers import LoopbackListener


class FakeRedis:
    """Answers each command (pipelined or not) with `reply`, e.g. b"+OK\\r\\n", b"_\\r\\n" (RESP3 null),
    b":0\\r\\n", b":-5\\r\\n"; `commands` lists the names of the commands it was sent. With `greet`,
    the connection's greeting (HELLO) is answered as Redis does, so the wrong replies reach the commands."""

    def __init__(self, reply: bytes, *, greet: bool = True):
        self.reply = reply
        self.greet = greet
        self.commands: list[bytes] = []
        self._listener = LoopbackListener(self._start_serving, backlog=16)
        self._stop = self._listener.stopping
        self.url = f"redis://127.0.0.1:{self._listener.port}/0"
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> "FakeRedis":
        self._listener.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._listener.__exit__(*exc)  # stops accepting; the connections' threads see it too
        for thread in self._threads:
            thread.join(5)

    def _start_serving(self, conn: socket.socket) -> None:
        thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
        thread.start()
        self._threads.append(thread)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(0.2)
        buffer = b""
        with conn:
            while not self._stop.is_set():
                try:
                    data = conn.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                buffer += data
                while True:
                    command, buffer = _one_command(buffer)
                    if command is None:
                        break
                    name = command[0].upper() if command else b""
                    self.commands.append(name)
                    conn.sendall(HELLO_REPLY if self.greet and name == b"HELLO" else self.reply)


HELLO_REPLY = b"%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n7.2.0\r\n$5\r\nproto\r\n:3\r\n"


def _one_command(buffer: bytes) -> tuple[list[bytes] | None, bytes]:
    """The first whole RESP array of bulk strings in `buffer`, and the rest (None when incomplete)."""
    if not buffer.startswith(b"*"):
        line, sep, rest = buffer.partition(b"\r\n")  # an inline command
        return (line.split(), rest) if sep else (None, buffer)
    head, sep, rest = buffer.partition(b"\r\n")
    if not sep:
        return None, buffer
    parts = []
    for _ in range(int(head[1:])):
        size_line, sep, rest = rest.partition(b"\r\n")
        if not sep or len(rest) < int(size_line[1:]) + 2:
            return None, buffer
        size = int(size_line[1:])
        parts.append(rest[:size])
        rest = rest[size + 2:]
    return parts, rest

"""A small HTTP server of the tests' own, answering from a script: statuses, delays, broken connections.

Each request takes the next step of the script (the last one repeats); every request is recorded
with the time it arrived. Each answer closes its connection, so every attempt is a connection of
its own.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Union


@dataclass
class Respond:
    status: int = 200
    body: object = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "application/json"


@dataclass
class Reset:
    """Sends the status line, headers and part of the body, then resets the connection."""


@dataclass
class Stream:
    """An endless-looking text/event-stream: these raw chunks, then the connection closes."""

    chunks: list[bytes]
    reset: bool = False


Step = Union[Respond, Reset, Stream, Callable[["Request"], Union[Respond, Reset, Stream]]]


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> object:
        return json.loads(self.body)


class ScriptedServer:
    def __init__(self, steps: list[Step]) -> None:
        self.steps = list(steps)
        self.requests: list[Request] = []
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._closed = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        return [b.at - a.at for a, b in zip(self.requests, self.requests[1:])]

    def close(self) -> None:
        self._closed = True
        self._socket.close()

    def _serve(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        try:
            request = self._read(conn)
            if request is None:
                return
            index = min(len(self.requests), len(self.steps) - 1)
            self.requests.append(request)
            step = self.steps[index]
            if callable(step):
                step = step(request)
            self._answer(conn, step)
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def _read(self, conn: socket.socket) -> Request | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        at = time.monotonic()
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        return Request(method=method, path=target, headers=headers, body=body, at=at)

    def _answer(self, conn: socket.socket, step: Respond | Reset | Stream) -> None:
        if isinstance(step, Reset):
            conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"data": [')
            time.sleep(0.05)
            # SO_LINGER 0: close() sends a RST instead of a FIN.
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        if isinstance(step, Stream):
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                b"Connection: close\r\n\r\n"
            )
            for chunk in step.chunks:
                conn.sendall(chunk)
                time.sleep(0.02)
            if step.reset:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        if step.delay:
            time.sleep(step.delay)
        body = b"" if step.body is None else json.dumps(step.body).encode()
        reason = {200: "OK", 201: "Created", 204: "No Content"}.get(step.status, "Status")
        head = f"HTTP/1.1 {step.status} {reason}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
        if body:
            head += f"Content-Type: {step.content_type}\r\n"
        for name, value in step.headers.items():
            head += f"{name}: {value}\r\n"
        conn.sendall(head.encode() + b"\r\n" + body)


def problem(status: int, code: str, detail: str = "scripted") -> dict[str, object]:
    return {
        "type": f"https://tessera.dev/problems/{code.replace('_', '-')}",
        "title": code,
        "status": status,
        "detail": detail,
        "code": code,
        "request_id": "req_scripted",
        "errors": [],
    }


@contextmanager
def scripted(*steps: Step) -> Iterator[ScriptedServer]:
    server = ScriptedServer(list(steps))
    try:
        yield server
    finally:
        server.close()

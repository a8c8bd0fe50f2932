"""The admin listener (``--admin-port``): ``/healthz``, ``/readyz`` and ``/metrics`` for the
kubelet and Prometheus, out of reach of any flood of the API ports.

It is a small HTTP/1.1 server on its own thread with its own event loop, sharing nothing
with the API servers but the lifecycle (``State``) and the metrics registry: no API
connection, queued call or event-loop stall reaches it. Each connection carries one request
(``connection: close``, as probes and scrapers expect), whose head must arrive whole within
ADMIN_READ_TIMEOUT and fit in ADMIN_HEAD_BYTES; past ADMIN_MAX_CONNECTIONS open connections
the oldest is closed, so a flood of the admin port itself cannot keep the next probe out.

gRPC health stays on the gRPC port (for load balancers); the chart's probes are HTTP on this
port because one listener then answers liveness, readiness and the scrape, and HTTP probes
need no HTTP/2 connection of their own (docs/service.md#the-admin-port).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections import OrderedDict

from ..codec import jsonio
from ..ops import metrics

log = logging.getLogger("samba.admin")

#: Connections the admin listener keeps open at once (probes and a scraper need a few).
ADMIN_MAX_CONNECTIONS = 32
#: Seconds a request head may take to arrive whole.
ADMIN_READ_TIMEOUT = 2.0
#: Bytes of a request line and headers.
ADMIN_HEAD_BYTES = 8192

_REASONS = {200: b"OK", 404: b"Not Found", 405: b"Method Not Allowed", 431: b"Too Large"}


def _answer(status: int, body: bytes, content_type: bytes = b"application/json") -> bytes:
    head = (
        b"HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
        % (status, _REASONS.get(status, b"Service Unavailable"), content_type, len(body))
    )
    return head + body


class AdminServer:
    """``/healthz`` (the process answers), ``/readyz`` (``State.serving``), ``/metrics``."""

    def __init__(self, state, sock: socket.socket) -> None:
        self.state = state
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        self.loop = asyncio.new_event_loop()
        self.open: OrderedDict = OrderedDict()  # writer -> None, oldest first
        self._thread = threading.Thread(target=self._run, name="admin", daemon=True)
        self._server: asyncio.AbstractServer | None = None

    def start(self) -> int:
        ready = threading.Event()
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(ready), self.loop).result(10)
        return self.port

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def _serve(self, ready: threading.Event) -> None:
        self._server = await asyncio.start_server(
            self._connection, sock=self.sock, limit=ADMIN_HEAD_BYTES
        )
        ready.set()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.open[writer] = None
        while len(self.open) > ADMIN_MAX_CONNECTIONS:
            oldest, _ = self.open.popitem(last=False)
            oldest.transport.abort()
        try:
            head = await asyncio.wait_for(_read_head(reader), ADMIN_READ_TIMEOUT)
            writer.write(self._route(head) if head is not None else _too_large())
            await asyncio.wait_for(writer.drain(), ADMIN_READ_TIMEOUT)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.open.pop(writer, None)
            writer.close()

    def _route(self, head: bytes) -> bytes:
        method, _, rest = head.partition(b" ")
        path = rest.split(b" ", 1)[0].split(b"?", 1)[0]
        if method not in (b"GET", b"HEAD"):
            return _answer(405, jsonio.dumps_bytes({"status": "METHOD_NOT_ALLOWED"}))
        if path in (b"/healthz", b"/readyz"):
            body, status = self.state.probe(readiness=path == b"/readyz")
            return _answer(status, jsonio.dumps_bytes(body))
        if path == b"/metrics":
            body, ctype = metrics.exposition()
            return _answer(200, body, ctype.encode("latin-1"))
        return _answer(404, jsonio.dumps_bytes({"status": "NOT_FOUND"}))


def _too_large() -> bytes:
    return _answer(431, jsonio.dumps_bytes({"status": "HEADERS_TOO_LARGE"}))


async def _read_head(reader: asyncio.StreamReader) -> bytes | None:
    """The request head up to its blank line, or None past ADMIN_HEAD_BYTES."""
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        return None

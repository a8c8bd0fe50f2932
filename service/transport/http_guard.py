"""uvicorn's HTTP/1.1 protocol with a connection cap, a read timeout and JSON refusals.

uvicorn alone keeps a connection that sends half a request forever (its keep-alive timer
stops at the first byte) and accepts connections until the process runs out of file
descriptors, after which ``/healthz`` fails too. Here:

- **Read timeout** (``--read-timeout-seconds``): a request must arrive whole, headers and
  body, within that time of its first byte (of the connection, for a new one); else the
  connection is closed.
- **Connection cap** (``--max-connections``): past the cap, the oldest connection that has
  no request being answered (half-sent or idle between requests) is closed to make room,
  so a flood of half-open connections cannot keep a health probe out; when every
  connection is busy answering, the newcomer gets a JSON 503 and is closed.
- **Malformed framing** is answered with the service's JSON error body (400) rather than
  uvicorn's plain text.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from samba_adjudicator.engine.messages import problem
from samba_adjudicator.service.base.errors import (
    ApiError,
    invalid_argument,
    new_request_id,
    rest_body,
)
from samba_adjudicator.service.codec import jsonio
from samba_adjudicator.service.pipeline.runtime import VERSION_HEADER

log = logging.getLogger("samba.rest")

_REASONS = {400: b"Bad Request", 503: b"Service Unavailable"}


def raw_error(err: ApiError) -> bytes:
    """A whole HTTP/1.1 answer carrying ``err`` as the JSON error body, closing the
    connection (for refusals made before any request reached the app)."""
    rid = new_request_id()
    body = jsonio.dumps_bytes(rest_body(err, rid))
    head = (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\nx-request-id: %s\r\nx-samba-version: %s\r\n\r\n"
        % (
            err.http_status,
            _REASONS[err.http_status],
            len(body),
            rid.encode("ascii"),
            VERSION_HEADER.encode("latin-1"),
        )
    )
    return head + body


def _malformed(message: str) -> ApiError:
    return invalid_argument(
        [problem("", "MALFORMED_HTTP", "the HTTP request is malformed: {error}", error=message)]
    )


_TOO_MANY = ApiError(
    "UNAVAILABLE",
    "TOO_MANY_CONNECTIONS",
    "the server has as many connections as it takes; retry shortly",
)


class ConnectionGuard:
    """The open connections of one REST server, oldest first."""

    def __init__(self, max_connections: int, read_timeout: float) -> None:
        self.max_connections = max_connections
        self.read_timeout = read_timeout
        self.open: OrderedDict = OrderedDict()
        self.evicted = 0
        self.refused = 0

    def admit(self, conn: GuardedProtocol) -> bool:
        self.open[conn] = None
        while len(self.open) > self.max_connections:
            victim = next((c for c in self.open if c is not conn and not c.busy), None)
            if victim is None:
                self.refused += 1
                conn.refuse(raw_error(_TOO_MANY))
                return False
            self.evicted += 1
            self.forget(victim)  # its connection_lost comes later
            victim.evict()
        return True

    def forget(self, conn: GuardedProtocol) -> None:
        self.open.pop(conn, None)


def protocol_class(guard: ConnectionGuard) -> type:
    """The uvicorn ``http`` protocol class of a server guarded by ``guard``."""

    class Protocol(GuardedProtocol):
        pass

    Protocol.guard = guard
    return Protocol


class GuardedProtocol(HttpToolsProtocol):
    guard: ConnectionGuard

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.busy = False  # a complete request's headers arrived; answer not finished
        self.started = False  # bytes of a request have arrived
        self._read_timer: asyncio.TimerHandle | None = None
        if self.guard.admit(self):
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.guard.forget(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self.busy and not self.started:
            self.started = True
            self._arm()
        super().data_received(data)

    # parser callbacks
    def on_headers_complete(self) -> None:
        self.busy = True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self.busy = False
        self.started = False
        super().on_response_complete()

    # timers and refusals
    def _arm(self) -> None:
        self._disarm()
        self._read_timer = self.loop.call_later(self.guard.read_timeout, self._read_timeout)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timeout(self) -> None:
        self._read_timer = None
        self.transport.close()

    def evict(self) -> None:
        self._disarm()
        self.transport.close()

    def refuse(self, answer: bytes) -> None:
        self.transport.write(answer)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        self.transport.write(raw_error(_malformed(msg)))
        self.transport.close()

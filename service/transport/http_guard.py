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
- **Head size** (MAX_HEAD_BYTES): a request line and headers larger than that are answered
  431 HEADERS_TOO_LARGE (JSON) and the connection closed, however they arrive: in pieces
  (the bytes received while a head is unfinished are counted: the parser otherwise keeps
  an unfinished header line in memory however long it grows) or whole in one read (the
  parser's own callbacks count what it has parsed of the head, and the request is refused
  before it reaches the app, without a warning in the log).
- **Stalled bodies**: past the cap, once no idle connection is left, the oldest connection
  whose request body has not arrived whole is closed next (only connections whose request
  is being answered are never closed for room).
- **Write timeout** (``--read-timeout-seconds`` too): a connection whose answer waits longer
  than that for the client to read it (the transport's buffer above its high-water mark) is
  closed. uvicorn already reads no further request while one pipelined request waits, so a
  client that pipelines without reading holds one answer, then is dropped.
- **Malformed framing** is answered with the service's JSON error body (400) rather than
  uvicorn's plain text.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from samba_adjudicator.engine.messages import problem

from ..base.errors import ApiError, api_error, invalid_argument, new_request_id
from ..codec import jsonio
from ..codec.error_bodies import rest_body
from ..pipeline.runtime import VERSION_HEADER

log = logging.getLogger("samba.rest")

_REASONS = {
    400: b"Bad Request",
    431: b"Request Header Fields Too Large",
    503: b"Service Unavailable",
}
#: Bytes of one request's line and headers.
MAX_HEAD_BYTES = 16 * 1024
#: What a request line adds to its URL ("GET ", " HTTP/1.1", CRLF), and a header line to its
#: name and value (": ", CRLF), counting a parsed head.
_LINE_BYTES = 16
_HEADER_BYTES = 4


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


def head_too_large() -> ApiError:
    err = api_error(
        "RESOURCE_EXHAUSTED",
        "HEADERS_TOO_LARGE",
        "the request line and headers exceed {limit} bytes",
        limit=MAX_HEAD_BYTES,
    )
    err.http = 431
    return err


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
        self.heads_refused = 0
        self.write_timeouts = 0
        # set on the loop once the requests that had arrived at SIGTERM are parsed
        # (Worker.shutdown, loop_watch.after_pending_io); a request whose head is parsed
        # later is refused SHUTTING_DOWN
        self.refusing = False

    def admit(self, conn: GuardedProtocol) -> bool:
        self.open[conn] = None
        while len(self.open) > self.max_connections:
            victim = self._victim(conn)
            if victim is None:
                self.refused += 1
                conn.refuse(raw_error(_TOO_MANY))
                return False
            self.evicted += 1
            self.forget(victim)  # its connection_lost comes later
            victim.evict()
        return True

    def _victim(self, newcomer: GuardedProtocol) -> GuardedProtocol | None:
        """The oldest idle or half-sent connection, else the oldest whose request body has
        not arrived whole; never one whose request is being answered."""
        stalled = None
        for c in self.open:
            if c is newcomer or c.answering:
                continue
            if not c.busy:
                return c
            stalled = stalled or c
        return stalled

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
        self.answering = False  # ... and its body too
        self.started = False  # bytes of a request have arrived
        self.in_head = False  # a request head has begun and not ended
        self.head_bytes = 0  # bytes received since it began (whole reads: a bound)
        self.parsed_head = 0  # bytes of it the parser has handed over (callbacks)
        self.head_refused = False
        self._read_timer: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self.running_cycle = None
        if self.guard.admit(self):
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._stop_write_timer()
        self.guard.forget(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.head_refused:
            return
        if not self.busy and not self.started:
            self.started = True
            self._arm()
        super().data_received(data)
        if (
            self.in_head and not self.head_refused
        ):  # a head arriving in pieces  # the parser holds what it read of an unfinished head
            self.head_bytes += len(data)
            if self.head_bytes > MAX_HEAD_BYTES:
                self.refuse_head()

    # parser callbacks
    def on_message_begin(self) -> None:
        self.in_head = True
        self.parsed_head = _LINE_BYTES
        super().on_message_begin()

    # a whole head in one read: the parser's callbacks count it, and once it is over the
    # cap the request is refused and nothing more of it reaches uvicorn (no app call)
    def on_url(self, url: bytes) -> None:
        if self._head_fits(len(url)):
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if self._head_fits(len(name) + len(value) + _HEADER_BYTES):
            super().on_header(name, value)

    def _head_fits(self, size: int) -> bool:
        self.parsed_head += size
        if self.parsed_head > MAX_HEAD_BYTES and not self.head_refused:
            self.refuse_head()
        return not self.head_refused

    def on_body(self, body: bytes) -> None:
        if not self.head_refused:
            super().on_body(body)

    def on_headers_complete(self) -> None:
        if self.head_refused:
            return
        self.busy = True
        self.in_head = False
        self.head_bytes = 0
        # when its head is parsed, a request has arrived before SIGTERM or after it
        self.scope["state"]["after_sigterm"] = self.guard.refusing
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        if self.head_refused:
            return
        self._disarm()
        self.answering = True
        super().on_message_complete()

    def on_response_complete(self) -> None:
        self.busy = False
        self.answering = False
        self.started = False
        super().on_response_complete()

    # the write timeout: an answer the client does not read
    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_timer is None:
            self._write_timer = self.loop.call_later(self.guard.read_timeout, self._write_timeout)

    def resume_writing(self) -> None:
        self._stop_write_timer()
        super().resume_writing()

    def _stop_write_timer(self) -> None:
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def _start_asgi_task(self, cycle, app) -> None:
        self.running_cycle = cycle
        super()._start_asgi_task(cycle, app)

    def _write_timeout(self) -> None:
        self._write_timer = None
        self.guard.write_timeouts += 1
        # every cycle of the connection is told first: uvicorn marks only the newest one,
        # and an older one resuming its write on the closed transport would raise
        for cycle in (self.running_cycle, self.cycle, *(c for c, _ in self.pipeline)):
            if cycle is not None:
                cycle.disconnected = True
        self.pipeline.clear()
        self.transport.abort()  # what it buffered is dropped: the client reads nothing

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

    def refuse_head(self) -> None:
        self.head_refused = True
        self._disarm()
        self.guard.heads_refused += 1
        self.refuse(raw_error(head_too_large()))

    def refuse(self, answer: bytes) -> None:
        self.transport.write(answer)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        if self.head_refused:
            return
        self.transport.write(raw_error(_malformed(msg)))
        self.transport.close()

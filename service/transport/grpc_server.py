"""The gRPC transport: ``samba.v1.Adjudicator``, ``grpc.health.v1.Health``, reflection.

Every Adjudicator method is a generic unary handler taking the *raw* request bytes, so that
everything that can go wrong is answered by us with a rich status (AIP-193, docs/api.md#errors):

- the bytes are parsed by ``service.pipeline.decoding`` inside the call (a parse failure is
  INVALID_ARGUMENT, not grpc's INTERNAL);
- ``ApiError`` -> ``google.rpc.Status`` with ErrorInfo (domain ``samba.v1``, reason,
  ``metadata.requestId``) and, for invalid arguments, BadRequest, sent through
  ``grpc_status.rpc_status.to_status`` (trailer ``grpc-status-details-bin``);
- any other exception -> INTERNAL with ErrorInfo (``service.pipeline.boundary``); never UNKNOWN;
- deadlines: ``context.time_remaining()`` becomes the call's deadline (DEADLINE_EXCEEDED);
- a call cancelled by its client stops its work (a ``Stop`` set when the call is done);
- a request over ``--max-message-bytes`` is refused by gRPC itself
  (``grpc.max_receive_message_length``) with RESOURCE_EXHAUSTED, before any parsing;
- ``x-request-id`` metadata is echoed in the trailing metadata (with the status: sending
  initial metadata early costs a whole extra batch per call), generated when absent, beside
  ``x-samba-version`` (the release and the rules revision, as REST's header says them);
- ``traceparent``/``tracestate`` metadata (W3C trace context) is carried into the call's
  log line and span (``service.ops.tracing``);
- the request id, ``accept-language`` and the trace context are read once per call by a
  ``grpc.aio.ServerInterceptor`` (``CallHead``), as REST's are by its ASGI middleware
  (``rest.SambaMiddleware``).

The server is ``grpc.aio`` in its own event-loop thread: cheap calls are answered inline on
the loop, heavy calls (``service.pipeline.heavy``) and large requests on a small thread pool
(a thread-pool ``grpc.server`` was measured slower: docs/performance.md); a heavy call
waits for its heavy-call slot on the loop first (``service.transport.slot_wait``: no pool
thread held). ``SAMBA_BENCH_ECHO=1`` adds
``/samba.v1.Bench/Echo`` (bytes in, the same bytes out) for bench/service_bench.py; it is not
part of the public schema.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import functools
import threading
import time
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from ..base import pb
from ..base.errors import ApiError
from ..codec import error_bodies
from ..i18n.localize import localize_error
from ..i18n.negotiation import DEFAULT as DEFAULT_LANGUAGE
from ..i18n.negotiation import choose as choose_language
from ..ops import tracing
from ..pipeline.budget import line_full
from ..pipeline.call import Call, received, stoppable
from ..pipeline.heavy import OFFLOAD
from ..pipeline.runtime import VERSION_HEADER, Runtime, request_id_from, shutting_down
from ..pipeline.slots import Ticket
from .grpc_connections import EVICT_HEADROOM, IdleEvictor
from .loop_watch import after_pending_io, wait_kernel_read
from .slot_wait import offload, resolve

SERVICE_NAME = pb.SERVICE.full_name  # samba.v1.Adjudicator
BENCH_SERVICE = "samba.v1.Bench"
HEALTH_SERVICES = ("", SERVICE_NAME)
#: The trailer of a retry hint, read by grpc's own retry policies (gRFC A6).
RETRY_PUSHBACK = "grpc-retry-pushback-ms"
_ADJUDICATOR = f"/{SERVICE_NAME}/"


def _address(host: str, port: int) -> str:
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def _request_id_and_language(metadata) -> tuple[str, str, tracing.Carried | None]:
    """``x-request-id`` (generated when absent), the answer's language, from
    ``accept-language`` (docs/i18n.md), and the trace context: one pass over the metadata."""
    request_id: str | None = None
    seen_id = False
    traces: list[tuple[str, str]] = []
    ranges: list[str] = []  # several values are one list, as repeated HTTP lines are
    for key, value in metadata or ():
        if key == "x-request-id" and not seen_id:
            seen_id = True
            request_id = value if isinstance(value, str) else None
        elif key == "accept-language" and isinstance(value, str):
            ranges.append(value)
        elif (key == "traceparent" or key == "tracestate") and isinstance(value, str):
            traces.append((key, value))
    lang = choose_language(", ".join(ranges)) if ranges else DEFAULT_LANGUAGE
    carried = tracing.carried(traces) if traces else None
    return request_id_from(request_id), lang, carried


#: The call's (request id, language, trace context), set by ``CallHead`` before its
#: handler runs, in the call's own task.
_HEAD: contextvars.ContextVar[tuple[str, str, tracing.Carried | None]] = contextvars.ContextVar(
    "samba_call_head"
)


class CallHead(grpc.aio.ServerInterceptor):
    """Reads each Adjudicator call's request id, language and trace context once, from the
    metadata grpc hands the interceptors, before its handler (health, reflection and the
    bench's echo read none)."""

    async def intercept_service(self, continuation, handler_call_details):
        if handler_call_details.method.startswith(_ADJUDICATOR):
            _HEAD.set(_request_id_and_language(handler_call_details.invocation_metadata))
        return await continuation(handler_call_details)


def _deadline(context) -> float | None:
    remaining = context.time_remaining()
    if remaining is None:
        return None
    return time.monotonic() + remaining


class _Status(
    collections.namedtuple("_Status", ("code", "details", "trailing_metadata")), grpc.Status
):
    pass


def _status(err: ApiError, request_id: str, lang: str = DEFAULT_LANGUAGE) -> grpc.Status:
    """The rich status, its texts in ``lang``, with ``x-request-id`` and ``content-language``
    beside ``grpc-status-details-bin`` (aborting replaces the trailing metadata set earlier),
    and ``grpc-retry-pushback-ms`` when it carries a retry hint (a client's retry policy
    waits that long before its next attempt)."""
    status = rpc_status.to_status(error_bodies.grpc_status(localize_error(err, lang), request_id))
    extra: tuple[tuple[str, str], ...] = ()
    if err.retry_after > 0:
        extra = ((RETRY_PUSHBACK, str(round(err.retry_after * 1000))),)
    return _Status(
        status.code,
        status.details,
        tuple(status.trailing_metadata) + _trailers(request_id, lang) + extra,
    )


def _trailers(request_id: str, lang: str) -> tuple[tuple[str, str], ...]:
    """The trailing metadata of every answer, given or refused."""
    return (
        ("x-request-id", request_id),
        ("content-language", lang),
        ("x-samba-version", VERSION_HEADER),
    )


def _call(
    runtime: Runtime, call: Call, ticket: Ticket | None = None
) -> tuple[bytes | None, grpc.Status | None]:
    """(serialized answer, None) or (None, rich status), their texts in the call's
    language; a heavy call runs in its ``ticket``'s heavy-call slot (``Runtime.invoke``)."""
    try:
        response = runtime.invoke(call, ticket)
    except ApiError as e:
        return None, _status(e, call.request_id, call.lang)
    # deterministic: map entries (violation details) sorted, the same bytes on every replica
    return response.SerializeToString(deterministic=True), None


def _generic_handlers(make, make_read_late, echo) -> list:
    """The Adjudicator's handlers: unary, except the methods that are always heavy
    (``OFFLOAD``), whose handler is called before their request is read
    (``_read_late``)."""
    handlers = {
        name: (
            grpc.stream_unary_rpc_method_handler(make_read_late(name))
            if name in OFFLOAD
            else grpc.unary_unary_rpc_method_handler(make(name))
        )
        for name in pb.SERVICE.methods_by_name
    }
    out = [grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)]
    if echo is not None:
        out.append(
            grpc.method_handlers_generic_handler(
                BENCH_SERVICE, {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
            )
        )
    return out


def _options(settings) -> list[tuple[str, int]]:
    return [
        ("grpc.max_receive_message_length", int(settings.max_message_bytes)),
        ("grpc.max_send_message_length", -1),
        ("grpc.so_reuseport", 1 if settings.workers > 1 else 0),
        # connections: a cap, a handshake (HTTP/2 preface and SETTINGS) within the read
        # timeout, idle ones closed (GOAWAY: clients reconnect), dead peers found by pings
        # grpc's own cap only acts between two looks of IdleEvictor (grpc_connections)
        ("grpc.max_allowed_incoming_connections", int(settings.max_connections) + EVICT_HEADROOM),
        ("grpc.server_handshake_timeout_ms", int(settings.read_timeout_seconds * 1000)),
        ("grpc.max_connection_idle_ms", int(settings.idle_timeout_seconds * 1000)),
        # aged out (GOAWAY, calls in flight get the grace): clients behind an L4 balancer
        # reconnect, so replicas added by a scale-out get their share (docs/deployment.md)
        ("grpc.max_connection_age_ms", int(settings.max_connection_age_seconds * 1000)),
        ("grpc.max_connection_age_grace_ms", int(settings.max_connection_age_grace_seconds * 1000)),
        ("grpc.max_concurrent_streams", MAX_CONCURRENT_STREAMS),
        # a call's request is taken 64 KiB at a time (the stream's window) until its handler
        # reads it: with the window grown by BDP probing, grpc read 300 calls of 0.9 MB
        # whole while the loop refused them one by one (a worker's peak 291 MB; 138 MB
        # without, bench/waits_bench.py)
        ("grpc.http2.bdp_probe", 0),
        ("grpc.keepalive_time_ms", 60_000),
        ("grpc.keepalive_timeout_ms", 20_000),
    ]


#: Seconds ``set_serving`` waits for the gRPC loop to apply a health change.
SET_SERVING_WAIT = 1.0
#: Calls one gRPC connection may have in flight at once.
MAX_CONCURRENT_STREAMS = 100


#: Loop iterations before gRPC refuses new calls at SIGTERM: a call the core has read
#: reaches its handler over several (the call, then its message), each a loop iteration.
GRPC_ROUNDS = 10


class InFlight:
    """Calls being answered (read and written on the server's loop only): the drain waits
    for it to reach zero. ``refusing``: set on the loop once the calls that had arrived at
    SIGTERM have reached their handlers (``drain``); a call reaching its handler later is
    refused SHUTTING_DOWN. ``unsent``: calls whose handler has started and whose status
    has not yet gone out (answered or refused): the drain's end waits for it too."""

    def __init__(self) -> None:
        self.count = 0
        self.refusing = False
        self.unsent = 0

    def _sent(self, _context) -> None:
        self.unsent -= 1

    def track(self, context) -> None:
        self.unsent += 1
        context.add_done_callback(self._sent)


def _handler(runtime: Runtime, method: str, pool, in_flight: InFlight):
    async def handle(data: bytes, context) -> bytes:
        request_id, lang, trace = _HEAD.get()
        context.set_trailing_metadata(_trailers(request_id, lang))
        in_flight.track(context)
        if in_flight.refusing:  # arrived after SIGTERM: the one refusal of the drain
            err = shutting_down()
            runtime.reject(Call(method, data, "grpc", request_id, trace=trace), err)
            await context.abort_with_status(_status(err, request_id, lang))
        call = received(method, data, "grpc", request_id, _deadline(context), lang, trace)
        in_flight.count += 1
        try:
            if runtime.offloaded(call):
                out, status = await _offloaded(runtime, stoppable(call), context, pool)
            else:
                out, status = _call(runtime, call)
        finally:
            in_flight.count -= 1
        if status is not None:
            await context.abort_with_status(status)  # raises
        assert out is not None
        return out

    return handle


def _read_late(runtime: Runtime, method: str, pool, in_flight: InFlight, largest: int):
    """The handler of a method whose every call is heavy: grpc calls it as the call begins,
    before its request is read (a client-streaming handler; a unary call is one message on
    the wire), so that a call the line has no room for (``Slots.turns_away``: its size is
    not known yet, up to ``largest``, the largest request taken) is refused without being
    read: grpc reads a unary call's request whole before its handler, and 300 calls of
    0.9 MB, refused once read, took a worker to 380 MB.

    ApplyAction and Deal keep the unary handler: they are heavy only when their request
    sets ``includeLegalActions`` (or ApplyAction's ``computer``), which is known once the
    request is read (``heavy.weigh``); refused before reading, a cheap call (most of them)
    would be refused for the line of heavy ones. They are refused once read, at once, and
    their bytes are let go with the call."""
    handle = _handler(runtime, method, pool, in_flight)

    async def handle_read_late(requests, context) -> bytes:
        if runtime.heavy.turns_away(largest):
            request_id, lang, trace = _HEAD.get()
            err = line_full(None)
            runtime.reject(Call(method, b"", "grpc", request_id, trace=trace), err)
            await context.abort_with_status(_status(err, request_id, lang))
        data = await context.read()
        return await handle(b"" if data is grpc.aio.EOF else data, context)

    return handle_read_late


async def _offloaded(
    runtime: Runtime, call: Call, context, pool
) -> tuple[bytes | None, grpc.Status | None]:
    """``_call`` on the thread pool (``slot_wait.offload``). A cancelled call (or one whose
    caller's deadline passed) ends here, its handler cancelled: the call's stop ends its
    work on the thread (engine.deadline)."""
    loop = asyncio.get_running_loop()
    stop, gone = call.stop, loop.create_future()
    assert stop is not None

    def done(_) -> None:
        stop.set()
        loop.call_soon_threadsafe(resolve, gone)

    context.add_done_callback(done)

    def run(fn, *args):
        return loop.run_in_executor(pool, fn, *args)

    return await offload(runtime.heavy, call, gone, functools.partial(_call, runtime), run)


async def _echo(data: bytes, context) -> bytes:
    return data


class GrpcServer:
    """``grpc.aio`` in a dedicated event-loop thread; handlers run inline on the loop."""

    def __init__(self, runtime: Runtime, settings, own_port: int = 0) -> None:
        self.runtime = runtime
        self.settings = settings
        #: this worker's own port beside the shared one (--worker-grpc-port; 0: none)
        self.own_port = own_port
        self.loop = asyncio.new_event_loop()
        self._pool = futures.ThreadPoolExecutor(
            max_workers=settings.grpc_threads or 4, thread_name_prefix="grpc-offload"
        )
        self._thread = threading.Thread(target=self._run, name="grpc-aio", daemon=True)
        self._started = threading.Event()
        self._error: BaseException | None = None
        self.port: int | None = None
        self.in_flight = InFlight()
        self.evictor: IdleEvictor | None = None
        # made on the loop thread by _start (grpc.aio objects belong to their loop)
        self.server: Any = None
        self.health: Any = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def _start(self) -> int:
        self.server = grpc.aio.server(options=_options(self.settings), interceptors=[CallHead()])
        echo = _echo if self.settings.bench_echo else None
        largest = int(self.settings.max_message_bytes)
        self.server.add_generic_rpc_handlers(
            _generic_handlers(
                lambda m: _handler(self.runtime, m, self._pool, self.in_flight),
                lambda m: _read_late(self.runtime, m, self._pool, self.in_flight, largest),
                echo,
            )
        )
        self.health = health.aio.HealthServicer()
        for name in HEALTH_SERVICES:
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (
                SERVICE_NAME,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self.server,
        )
        port = self._bind(self.settings.grpc_port)
        if self.own_port:
            self._bind(self.own_port)
        await self.server.start()
        return port

    def _bind(self, port: int) -> int:
        bound = self.server.add_insecure_port(_address(self.settings.host, port))
        if not bound:
            raise OSError(f"cannot bind gRPC to {self.settings.host}:{port}")
        return bound

    def start(self) -> int:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result()
        ports = (self.port, self.own_port) if self.own_port else (self.port,)
        self.evictor = IdleEvictor(ports, int(self.settings.max_connections))
        self.evictor.start()
        return self.port

    def set_serving(self, serving: bool) -> None:
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if serving
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )

        async def _set():
            for name in HEALTH_SERVICES:
                await self.health.set(name, status)

        # the loop may be the one held (service/transport/loop_watch.py): the change is
        # queued on it in order, and the caller does not wait past a second for it
        done = asyncio.run_coroutine_threadsafe(_set(), self.loop)
        with contextlib.suppress(futures.TimeoutError):
            done.result(SET_SERVING_WAIT)

    def drain(self, until: float) -> None:
        """Calls that had arrived are answered, later ones refused: once the core has read
        what the kernel held (``wait_kernel_read``, not past ``until``: the grace's end, a
        ``time.monotonic()``) and the loop has gone GRPC_ROUNDS times round. Health
        NOT_SERVING for good; the drain does not wait past SET_SERVING_WAIT for it (a held
        loop applies it when it answers again)."""
        wait_kernel_read({p for p in (self.port, self.own_port) if p}, until)
        refuse = functools.partial(setattr, self.in_flight, "refusing", True)
        after_pending_io(self.loop, refuse, GRPC_ROUNDS)
        done = asyncio.run_coroutine_threadsafe(self.health.enter_graceful_shutdown(), self.loop)
        with contextlib.suppress(futures.TimeoutError):
            done.result(SET_SERVING_WAIT)

    def settle(self, until: float) -> bool:
        """The drain's end: wait (not past ``until``, a ``time.monotonic()``) until every
        call that reached a handler has had its status sent; whether all had. The server is
        not stopped: the process's exit closes its connections.

        grpcio's own ``server.stop(grace)`` was the end until issue 56: a call that
        arrived while it ran, before its client had read the GOAWAY, was answered CANCELLED
        by the core: in 4 of 12 drains with grace 2 s and calls sent 1.5-3 s after SIGTERM
        (tests/test_drain_end.py's calls), 5 of 8 in the issue; retry policies retry
        UNAVAILABLE, not CANCELLED. Left running, the server refuses every call that
        reaches a handler UNAVAILABLE SHUTTING_DOWN, and a
        call still on its way at the exit finds its connection closed, which its client
        reports UNAVAILABLE too. ``server.stop(grace)`` at the signal instead (the drain on
        grpcio's own mechanism, issue 61) sends the GOAWAY at once: a call sent after the
        signal on a connected channel got a bare UNAVAILABLE without the SHUTTING_DOWN
        reason, which tests/test_drain.py refuses (the late call of
        ``test_calls_received_before_sigterm_get_their_normal_answer_on_both_transports``)."""
        while self.in_flight.unsent > 0 and time.monotonic() < until:
            time.sleep(0.01)
        return self.in_flight.unsent <= 0


def make_server(runtime: Runtime, settings, own_port: int = 0) -> GrpcServer:
    return GrpcServer(runtime, settings, own_port)

"""The gRPC transport: ``samba.v1.Adjudicator``, ``grpc.health.v1.Health``, reflection.

Every Adjudicator method is a generic unary handler taking the *raw* request bytes, so that
everything that can go wrong is answered by us with a rich status (AIP-193, CONTRACT.md §6):

- the bytes are parsed here (a parse failure is INVALID_ARGUMENT, not grpc's INTERNAL);
- ``ApiError`` -> ``google.rpc.Status`` with ErrorInfo (domain ``samba.v1``, reason,
  ``metadata.requestId``) and, for invalid arguments, BadRequest, sent through
  ``grpc_status.rpc_status.to_status`` (trailer ``grpc-status-details-bin``);
- any other exception -> INTERNAL with ErrorInfo; never UNKNOWN;
- deadlines: ``context.time_remaining()`` becomes the call's deadline (DEADLINE_EXCEEDED);
- a request over ``--max-message-bytes`` is refused by gRPC itself
  (``grpc.max_receive_message_length``) with RESOURCE_EXHAUSTED, before any parsing;
- ``x-request-id`` metadata is echoed in the trailing metadata (with the status: sending
  initial metadata early costs a whole extra batch per call), generated when absent.

Two flavours with the same behaviour: ``aio`` (the default: ``grpc.aio`` in its own
event-loop thread, cheap calls answered inline on the loop, ReplayDeal and ListLegalActions
on a small thread pool) and ``sync`` (``grpc.server`` on a ``ThreadPoolExecutor``;
``SAMBA_GRPC_IMPL=sync``). docs/service.md has the measurement behind the choice. ``SAMBA_BENCH_ECHO=1`` adds ``/samba.v1.Bench/Echo`` (bytes in, the
same bytes out) for bench/service_bench.py; it is not part of the public schema.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
import time
from concurrent import futures

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from . import errors, pb, wire
from .api import METHODS
from .errors import ApiError, FieldViolation
from .runtime import Runtime, request_id_from
from .sources import SnapshotSource

log = logging.getLogger("samba.grpc")

SERVICE_NAME = pb.SERVICE.full_name  # samba.v1.Adjudicator
BENCH_SERVICE = "samba.v1.Bench"
HEALTH_SERVICES = ("", SERVICE_NAME)


def _address(host: str, port: int) -> str:
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def _request_id(context) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == "x-request-id":
            return request_id_from(value if isinstance(value, str) else None)
    return request_id_from(None)


def _deadline(context) -> float | None:
    remaining = context.time_remaining()
    if remaining is None:
        return None
    return time.monotonic() + remaining


def _parser(method: str, runtime: Runtime):
    """bytes -> (request, [], SnapshotSource or None). A request whose snapshot bytes the
    service has loaded before is parsed without them (see ``service.sources``)."""
    request_type = METHODS[method][0]
    snapshot_field = request_type.DESCRIPTOR.fields_by_name.get("snapshot")
    number = snapshot_field.number if snapshot_field is not None else None
    loaded_snapshot = runtime.adjudicator.loaded_snapshot

    def parse(data: bytes):
        try:
            if number is None:
                return request_type.FromString(data), [], None
            split = wire.split_field(data, number)
            if split is None:
                return request_type.FromString(data), [], None
            key = ("pb", split[0])
            loaded = loaded_snapshot(key)
            if loaded is None:
                return request_type.FromString(data), [], SnapshotSource(key)
            return request_type.FromString(split[1]), [], SnapshotSource(key, loaded)
        except (DecodeError, RuntimeError, ValueError) as e:
            raise errors.invalid_argument(
                [FieldViolation("", "MALFORMED_MESSAGE",
                                f"the request is not a valid {request_type.DESCRIPTOR.full_name}"
                                f" message: {e}")]) from None
    return parse


class _Status(collections.namedtuple("_Status", ("code", "details", "trailing_metadata")),
              grpc.Status):
    pass


def _status(err: ApiError, request_id: str) -> grpc.Status:
    """The rich status, with ``x-request-id`` beside ``grpc-status-details-bin`` (aborting
    replaces the trailing metadata set earlier)."""
    status = rpc_status.to_status(errors.grpc_status(err, request_id))
    return _Status(status.code, status.details,
                   tuple(status.trailing_metadata) + (("x-request-id", request_id),))


def _call(runtime: Runtime, method: str, parse, data: bytes, request_id: str,
          deadline: float | None) -> tuple[bytes | None, grpc.Status | None]:
    """(serialized answer, None) or (None, rich status)."""
    try:
        response = runtime.invoke(method, None, transport="grpc", request_id=request_id,
                                  deadline=deadline, decode=lambda: parse(data))
        # deterministic: map entries (violation details) sorted, the same bytes on every
        # replica
        return response.SerializeToString(deterministic=True), None
    except ApiError as e:
        return None, _status(e, request_id)
    except Exception:  # noqa: BLE001 - invoke raises only ApiError; belt and braces
        log.exception("unexpected error answering %s", method)
        return None, _status(errors.internal_error(), request_id)


# -- sync flavour -------------------------------------------------------------------------

def _sync_handler(runtime: Runtime, method: str):
    parse = _parser(method, runtime)

    def handle(data: bytes, context: grpc.ServicerContext) -> bytes:
        request_id = _request_id(context)
        context.set_trailing_metadata((("x-request-id", request_id),))
        out, status = _call(runtime, method, parse, data, request_id, _deadline(context))
        if status is not None:
            context.abort_with_status(status)
        return out

    return handle


def _echo_sync(data: bytes, context) -> bytes:
    return data


def _generic_handlers(make, echo) -> list:
    handlers = {name: grpc.unary_unary_rpc_method_handler(make(name))
                for name in pb.SERVICE.methods_by_name}
    out = [grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)]
    if echo is not None:
        out.append(grpc.method_handlers_generic_handler(
            BENCH_SERVICE, {"Echo": grpc.unary_unary_rpc_method_handler(echo)}))
    return out


def _options(settings) -> list[tuple[str, int]]:
    return [
        ("grpc.max_receive_message_length", int(settings.max_message_bytes)),
        ("grpc.max_send_message_length", -1),
        ("grpc.so_reuseport", 1 if settings.workers > 1 else 0),
        # connections: a cap, a handshake (HTTP/2 preface and SETTINGS) within the read
        # timeout, idle ones closed (GOAWAY: clients reconnect), dead peers found by pings
        ("grpc.max_allowed_incoming_connections", int(settings.max_connections)),
        ("grpc.server_handshake_timeout_ms", int(settings.read_timeout_seconds * 1000)),
        ("grpc.max_connection_idle_ms", int(settings.idle_timeout_seconds * 1000)),
        ("grpc.max_concurrent_streams", MAX_CONCURRENT_STREAMS),
        ("grpc.keepalive_time_ms", 60_000),
        ("grpc.keepalive_timeout_ms", 20_000),
    ]


#: Calls one gRPC connection may have in flight at once.
MAX_CONCURRENT_STREAMS = 100


class SyncGrpcServer:
    """The default flavour: ``grpc.server`` with a thread pool."""

    def __init__(self, runtime: Runtime, settings) -> None:
        self.runtime = runtime
        self.settings = settings
        threads = settings.grpc_threads or 16
        self._pool = futures.ThreadPoolExecutor(max_workers=threads,
                                                thread_name_prefix="grpc")
        self.server = grpc.server(self._pool, options=_options(settings))
        echo = _echo_sync if settings.bench_echo else None
        self.server.add_generic_rpc_handlers(
            _generic_handlers(lambda m: _sync_handler(runtime, m), echo))
        self.health = health.HealthServicer(experimental_non_blocking=True)
        for name in HEALTH_SERVICES:
            self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME), self.server)
        self.port: int | None = None

    def start(self) -> int:
        self.port = self.server.add_insecure_port(
            _address(self.settings.host, self.settings.grpc_port))
        if not self.port:
            raise OSError(f"cannot bind gRPC to {self.settings.host}:{self.settings.grpc_port}")
        self.server.start()
        return self.port

    def set_serving(self, serving: bool) -> None:
        status = (health_pb2.HealthCheckResponse.SERVING if serving
                  else health_pb2.HealthCheckResponse.NOT_SERVING)
        for name in HEALTH_SERVICES:
            self.health.set(name, status)

    def drain(self) -> None:
        self.health.enter_graceful_shutdown()

    def stop(self, grace: float) -> threading.Event:
        """Refuse new calls now; in-flight calls get ``grace`` seconds."""
        return self.server.stop(grace)


# -- aio flavour --------------------------------------------------------------------------

def _aio_handler(runtime: Runtime, method: str, pool):
    parse = _parser(method, runtime)

    async def handle(data: bytes, context) -> bytes:
        request_id = _request_id(context)
        context.set_trailing_metadata((("x-request-id", request_id),))
        deadline = _deadline(context)
        if runtime.offloaded(method, len(data)):
            out, status = await asyncio.get_running_loop().run_in_executor(
                pool, _call, runtime, method, parse, data, request_id, deadline)
        else:
            out, status = _call(runtime, method, parse, data, request_id, deadline)
        if status is not None:
            await context.abort_with_status(status)
        return out

    return handle


async def _echo_aio(data: bytes, context) -> bytes:
    return data


class AioGrpcServer:
    """``grpc.aio`` in a dedicated event-loop thread; handlers run inline on the loop."""

    def __init__(self, runtime: Runtime, settings) -> None:
        self.runtime = runtime
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self._pool = futures.ThreadPoolExecutor(max_workers=settings.grpc_threads or 4,
                                                thread_name_prefix="grpc-offload")
        self._thread = threading.Thread(target=self._run, name="grpc-aio", daemon=True)
        self._started = threading.Event()
        self._error: BaseException | None = None
        self.port: int | None = None
        self.server = None
        self.health = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def _start(self) -> int:
        self.server = grpc.aio.server(options=_options(self.settings))
        echo = _echo_aio if self.settings.bench_echo else None
        self.server.add_generic_rpc_handlers(
            _generic_handlers(lambda m: _aio_handler(self.runtime, m, self._pool), echo))
        self.health = health.aio.HealthServicer()
        for name in HEALTH_SERVICES:
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME), self.server)
        port = self.server.add_insecure_port(
            _address(self.settings.host, self.settings.grpc_port))
        if not port:
            raise OSError(f"cannot bind gRPC to {self.settings.host}:{self.settings.grpc_port}")
        await self.server.start()
        return port

    def start(self) -> int:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result()
        return self.port

    def set_serving(self, serving: bool) -> None:
        status = (health_pb2.HealthCheckResponse.SERVING if serving
                  else health_pb2.HealthCheckResponse.NOT_SERVING)

        async def _set():
            for name in HEALTH_SERVICES:
                await self.health.set(name, status)
        asyncio.run_coroutine_threadsafe(_set(), self.loop).result()

    def drain(self) -> None:
        asyncio.run_coroutine_threadsafe(self.health.enter_graceful_shutdown(),
                                         self.loop).result()

    def stop(self, grace: float) -> threading.Event:
        done = threading.Event()

        async def _stop():
            try:
                await self.server.stop(grace)
            finally:
                done.set()
        asyncio.run_coroutine_threadsafe(_stop(), self.loop)
        return done


def make_server(runtime: Runtime, settings):
    if settings.grpc_impl == "sync":
        return SyncGrpcServer(runtime, settings)
    return AioGrpcServer(runtime, settings)

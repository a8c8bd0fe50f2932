"""``samba-adjudicator serve``: gRPC and REST in one process, or N processes sharing ports.

One worker (the default) runs both servers in this process: gRPC (``grpc.aio``) on an event
loop in one thread, uvicorn (REST) on another event loop in a second thread, the main
thread waiting for SIGTERM/SIGINT. Once both are bound it prints one JSON line on stdout::

    {"event": "listening", "host": "127.0.0.1", "grpcPort": 50051, "httpPort": 8080, ...}

(with port 0 the kernel picks free ports; the line tells which).

``--workers N`` (N > 1): the parent reserves both ports with ``SO_REUSEPORT`` sockets (so
port 0 works too), then starts N worker processes (``multiprocessing`` *spawn*: no gRPC
state crosses a fork) that each bind the same ports with ``SO_REUSEPORT``; the kernel
spreads connections over them. Prometheus runs in multi-process mode: the parent creates
(or empties) ``PROMETHEUS_MULTIPROC_DIR`` — a temporary directory when the variable is
unset, removed at exit — so ``/metrics`` on any worker sums every worker. A worker that
dies is replaced on its ports, which the parent holds meanwhile (a replacement that fails to
start is tried again: ``service.transport.supervisor``); the parent prints the listening
line when every worker is ready.

Shutdown (SIGTERM or SIGINT; the parent forwards it to the workers): readiness flips first
(``/readyz`` answers 503, gRPC health NOT_SERVING for "" and samba.v1.Adjudicator), new
calls are refused, in-flight calls get ``--shutdown-grace-seconds`` to finish, then the
process exits 0.

The drain's end is own code where the libraries' mechanisms failed the drain tests
(issue 56, tests/test_drain.py, tests/test_drain_end.py): grpcio's ``server.stop(grace)``
answered calls arriving while it ran CANCELLED, and at the signal it refused later calls
without the SHUTTING_DOWN reason (``GrpcServer.settle``); uvicorn's shutdown (with
``timeout_graceful_shutdown``, kept for what it does) closes its listeners with
connections still queued, which resets them (``Worker._last_connections``).
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, NoReturn

from samba_adjudicator.engine.deadline import stop_all

from ..ops.config import worker_ports
from ..ops.logs import setup_logging
from .listeners import (
    LISTEN_BACKLOG,
    bind_admin,
    bind_http,
    check_grpc_port,
    fit_connections,
    own_ports,
    stop_new_connections,
    take_new_connections,
)
from .loop_watch import LoopWatch, after_pending_io

log = logging.getLogger("samba.server")


# -- one worker ---------------------------------------------------------------------------

#: Seconds past the grace within which a SIGTERM ends the process, whenever it arrives
#: (docs/service.md#shutdown): two health changes a held gRPC loop may not apply (1 s each,
#: grpc_server.SET_SERVING_WAIT), the answers of calls stopped at the end of the grace
#: (ANSWER_MARGIN), the servers' stop (ANSWER_MARGIN + 1 s), the last spans' export (tracing
#: on: what is left, at most tracing.FLUSH_SECONDS), and what is left of a start-up the
#: signal interrupted. tests/test_drain.py, tests/test_tracing.py and ``make bench-abuse``
#: hold it.
EXIT_MARGIN_SECONDS = 5.0
#: Seconds of EXIT_MARGIN_SECONDS kept for the exit itself (the last log line, the
#: process's end): the last spans' export (tracing on) ends this long before the margin's
#: end, whatever the collector does.
EXIT_RESERVE = 0.5
#: Seconds the drain's end gives the connections queued on REST's listeners to be accepted,
#: and their requests to be answered (``Worker._last_connections``); within the servers'
#: stop (ANSWER_MARGIN + 1 s).
SETTLE_SECONDS = 0.25
#: Seconds after the grace that calls stopped at its end get to write their UNAVAILABLE
#: answers before the servers stop. A stopped call ends at its next deadline checkpoint; on
#: a loaded machine that took more than 0.25 s.
ANSWER_MARGIN = 0.75


class Worker:
    """Both servers of one process; ``index``: the worker's number (its own ports,
    ``--worker-grpc-port`` and ``--worker-http-port`` plus it); ``own_http``: the listening
    socket of its own REST port, held by the supervisor (``listeners.listen_own_http``);
    ``peers``: the supervisor's flags of the workers it cannot start (``LoopWatch``)."""

    def __init__(
        self,
        settings,
        index: int = 0,
        own_http: socket.socket | None = None,
        peers=None,
    ) -> None:
        settings = fit_connections(settings)
        import uvicorn

        from ..pipeline.runtime import Runtime, State
        from .grpc_server import make_server
        from .http_guard import ConnectionGuard, protocol_class
        from .rest import create_app

        self.settings = settings
        self.own_ports = worker_ports(settings, index)
        self.own_http = own_http
        self.peers = peers
        self.state = State()
        self.runtime = Runtime(settings, state=self.state)
        self.grpc = make_server(self.runtime, settings, self.own_ports[0])
        self.app = create_app(self.runtime, settings)
        self.connections = ConnectionGuard(settings.max_connections, settings.read_timeout_seconds)
        self.uv_config = uvicorn.Config(
            self.app,
            log_config=None,
            access_log=False,
            lifespan="off",
            # the drain happens before uvicorn is told to stop (shutdown()): by then only
            # idle connections are left to close
            timeout_graceful_shutdown=1,
            server_header=False,
            backlog=LISTEN_BACKLOG,
            timeout_keep_alive=settings.idle_timeout_seconds,
            http=protocol_class(self.connections),
        )
        self.uvicorn = uvicorn.Server(self.uv_config)
        self.http_socks: list[socket.socket] = []
        self._uv_thread: threading.Thread | None = None
        self._uv_error: BaseException | None = None
        self.grpc_port: int | None = None
        self.http_port: int | None = None
        self.admin: Any = None  # the AdminServer (imported with the servers), once started
        self.watch: Any = None  # the LoopWatch, once started

    def _run_uvicorn(self, socks: list[socket.socket]) -> None:
        try:
            self.uvicorn.run(sockets=socks)
        except BaseException as e:  # noqa: BLE001 - reported by start()
            self._uv_error = e
            log.exception("REST server failed")

    def start(self) -> tuple[int, int, int]:
        own_grpc, own_http = self.own_ports
        check_grpc_port(self.settings)
        check_grpc_port(self.settings, own_grpc, "--worker-grpc-port")
        grpc_port = self.grpc_port = self.grpc.start()
        socks = self.http_socks = [bind_http(self.settings)]
        if self.own_http is not None:
            take_new_connections(self.own_http)
            socks.append(self.own_http)
        elif own_http:
            socks.append(bind_http(self.settings, own_http, "--worker-http-port"))
        http_port = self.http_port = socks[0].getsockname()[1]
        from .admin import AdminServer

        self.admin = AdminServer(self.state, bind_admin(self.settings))
        admin_port = self.admin.start()
        self._uv_thread = threading.Thread(
            target=self._run_uvicorn, args=(socks,), name="rest", daemon=True
        )
        self._uv_thread.start()
        deadline = time.monotonic() + 30
        while not self.uvicorn.started:
            if self._uv_error is not None or not self._uv_thread.is_alive():
                raise RuntimeError("the REST server did not start")
            if time.monotonic() > deadline:
                raise RuntimeError("the REST server did not start within 30 s")
            time.sleep(0.01)
        self.state.on_change(self.grpc.set_serving)
        tune_gc()
        tune_switching()
        self.state.set_ready()
        # readiness follows the API loops too (service/transport/loop_watch.py)
        self.watch = LoopWatch(
            self.state,
            {"grpc": self.grpc.loop, "rest": self.uvicorn.servers[0].get_loop()},
            peers=self.peers,
        )
        self.watch.start()
        return grpc_port, http_port, admin_port

    def _rest_busy(self) -> bool:
        return bool(self.uvicorn.server_state.tasks)

    def _busy(self) -> bool:
        return self._rest_busy() or self.grpc.in_flight.count > 0

    def _last_connections(self) -> None:
        """REST's listeners take no new connection; those queued on them are accepted and
        their requests, when they come within SETTLE_SECONDS, answered SHUTTING_DOWN, so
        that uvicorn's shutdown, which closes the listeners and the idle connections,
        resets none that carried a request (``listeners.stop_new_connections``; uvicorn's
        ``timeout_graceful_shutdown`` waits only for requests already being answered)."""
        for sock in self.http_socks:
            stop_new_connections(sock)
        accepted = threading.Event()
        after_pending_io(self.uvicorn.servers[0].get_loop(), accepted.set)
        accepted.wait(SETTLE_SECONDS)
        settled = time.monotonic() + SETTLE_SECONDS
        while self._rest_busy() and time.monotonic() < settled:
            time.sleep(0.01)

    def shutdown(self) -> bool:
        """Drain: not ready at once, refuse new calls, answer the others within the grace.

        Both servers keep their listening sockets during the drain (so ``/readyz`` answers
        503 and ``/healthz`` 200 meanwhile). A call that arrives after the signal is
        answered UNAVAILABLE SHUTTING_DOWN (REST: 503 JSON, ``connection: close``); every
        call received before it gets its normal answer if it finishes within the grace.
        Calls still computing at the end of the grace are stopped (engine.deadline) and
        answered UNAVAILABLE SHUTTING_DOWN within ANSWER_MARGIN; only then do the servers
        end, so no accepted call is cut off without an answer: REST takes no new
        connection and answers those queued (``_last_connections``) before uvicorn stops;
        gRPC is left running, refusing, until every status is sent (``GrpcServer.settle``),
        and the exit closes its connections."""
        grace = self.settings.shutdown_grace_seconds
        log.info("draining", extra={"fields": {"graceSeconds": grace}})
        started = time.monotonic()
        cutoff = started + grace
        self.state.drain()
        if self.watch is not None:
            self.watch.stop()
        # new calls are refused once what had arrived is parsed: the calls received before
        # the signal are answered, however busy the loops were (loop_watch.after_pending_io)
        after_pending_io(
            self.uvicorn.servers[0].get_loop(),
            functools.partial(setattr, self.connections, "refusing", True),
        )
        self.grpc.drain(cutoff)
        while time.monotonic() < cutoff and self._busy():
            time.sleep(0.02)
        stopped = self._busy()
        stop_all(time.monotonic())  # what still computes stops and is answered
        self.runtime.heavy.close()  # and what still waits for a heavy-call slot
        answered_by = time.monotonic() + ANSWER_MARGIN
        while self._busy() and time.monotonic() < answered_by:
            time.sleep(0.02)
        limit = time.monotonic() + ANSWER_MARGIN + 1.0
        self._last_connections()
        ok = self.grpc.settle(limit)
        self.uvicorn.should_exit = True
        if self._uv_thread is not None:
            self._uv_thread.join(max(limit - time.monotonic(), 0))
            ok = ok and not self._uv_thread.is_alive()
        if self.admin is not None:
            self.admin.stop()
        # the spans still queued (tracing on), within what is left of the exit's budget
        spans = self.runtime.close(started + grace + EXIT_MARGIN_SECONDS - EXIT_RESERVE)
        log.info(
            "stopped",
            extra={
                "fields": {
                    "clean": ok,
                    "callsStopped": stopped,
                    "seconds": round(time.monotonic() - started, 3),
                    **spans,
                }
            },
        )
        return ok


def _exit_now(status: int) -> NoReturn:
    """Exit without waiting for worker threads: one still running a call the drain gave up
    on (stopped calls end at their next checkpoint, a few milliseconds) must not hold the
    process past its grace."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


#: Seconds between two looks of the main thread at the signals received.
SIGNAL_POLL_SECONDS = 0.05


class SignalWaiter:
    """SIGTERM/SIGINT handlers, installed before the servers start: a signal that arrives
    while they start, or right after the ready line, is kept and starts the drain once they
    are up (the default handler would kill the process without one).

    The handler takes no lock: it appends to a list, which the main thread polls. It used
    to set a ``threading.Event`` the main thread was waiting on; Python runs a handler in
    the main thread between two bytecodes, and when that moment fell inside
    ``Event.wait`` while it held the event's own (non-reentrant) lock, ``Event.set``
    waited for that lock forever: the process hung after SIGTERM (more likely on a busy
    machine, where a thread holding a lock waits longer for the interpreter lock)."""

    def __init__(self) -> None:
        self.received: list[int] = []
        signal.signal(signal.SIGTERM, self._handler)
        signal.signal(signal.SIGINT, self._handler)

    def _handler(self, signum, frame) -> None:
        self.received.append(signum)  # no lock: see the class docstring

    def wait(self) -> int:
        while not self.received:
            time.sleep(SIGNAL_POLL_SECONDS)
        return self.received[0]


#: Container allocations between two youngest-generation collections (CPython: 700).
GC_THRESHOLD = 10_000


def tune_gc() -> None:
    """Once the servers are up: everything allocated so far (grpc, FastAPI, protobuf
    descriptors, the rulesets: long-lived) goes to the permanent generation, which the
    collector never scans again, and young collections run every GC_THRESHOLD
    allocations instead of every 700. A call that builds many objects (ListLegalActions on a
    42-card hand builds 1,239 actions) otherwise triggers collections that walk the whole
    server heap: with the server's modules loaded that call took 3.1 ms, 1.7 ms with this
    (docs/service.md)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


#: Seconds a thread computing holds the interpreter lock while another waits for it
#: (CPython: 0.005).
SWITCH_INTERVAL_SECONDS = 0.0005


def tune_switching() -> None:
    """A thread that waits for the interpreter lock gets it within SWITCH_INTERVAL_SECONDS
    of asking, not CPython's 5 ms. Each turn of an API event loop polls its sockets with
    the lock released and must take it back; while two heavy calls compute, that took up
    to the whole interval each turn (an echo's round trip through an asyncio loop: 0.18 ms
    alone, 7.0 ms beside two computing threads, 1.3 ms at 0.5 ms). grpc.aio accepts calls
    one at a time, several loop turns each, so a flood of 156 calls refused at once
    (bench/waits_bench.py, ``line``) held a cheap call that arrived behind them 3.7-8.4 s;
    0.53 s at 0.5 ms. Threads that compute alone are not switched (docs/service.md)."""
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)


def run_single(settings, announce: Callable[[dict], None]) -> int:
    """Both servers in this process; ``announce`` is given the listening line."""
    signals = SignalWaiter()
    worker = Worker(settings)
    grpc_port, http_port, admin_port = worker.start()
    announce(
        {
            "event": "listening",
            "host": settings.host,
            "grpcPort": grpc_port,
            "httpPort": http_port,
            "adminPort": admin_port,
            "workers": 1,
            **own_ports(settings),
            "pid": os.getpid(),
        }
    )
    sig = signals.wait()
    log.info("signal received", extra={"fields": {"signal": signal.Signals(sig).name}})
    worker.shutdown()
    _exit_now(0)


def worker_entry(settings, index: int, queue, own_http=None, peers=None) -> None:
    """A worker process (multiprocessing spawn target); ``own_http`` and ``peers``: see
    ``Worker``."""
    setup_logging(settings.log_level)
    signals = SignalWaiter()
    try:
        worker = Worker(settings, index, own_http, peers)
        ports = worker.start()
    except BaseException as e:  # noqa: BLE001
        log.exception("worker %d failed to start", index)
        queue.put(("failed", index, os.getpid(), str(e)))
        sys.exit(1)
    queue.put(("ready", index, os.getpid(), ports))
    signals.wait()
    _exit_now(0 if worker.shutdown() else 1)

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
dies is replaced; the parent prints the listening line when every worker is ready.

Shutdown (SIGTERM or SIGINT; the parent forwards it to the workers): readiness flips first
(``/readyz`` answers 503, gRPC health NOT_SERVING for "" and samba.v1.Adjudicator), new
calls are refused, in-flight calls get ``--shutdown-grace-seconds`` to finish, then the
process exits 0.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import json
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import replace
from typing import NoReturn

from samba_adjudicator.engine.build import CURRENT as BUILD
from samba_adjudicator.engine.deadline import stop_all
from samba_adjudicator.service.ops import config as _config
from samba_adjudicator.service.ops.logs import setup_logging
from samba_adjudicator.service.transport.listeners import (
    PortUnavailable,
    bind_http,
    check_grpc_port,
    fit_connections,
    open_socket,
)

log = logging.getLogger("samba.server")


def _announce(line: dict) -> None:
    """The ready line on stdout, and its log record, which says which build runs."""
    line = {**line, "build": BUILD.name}
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    fields = {k: v for k, v in line.items() if k != "event"}
    log.info("listening", extra={"fields": {**fields, "buildReason": BUILD.reason}})


# -- one worker ---------------------------------------------------------------------------

#: Seconds before the end of the grace at which calls still computing are stopped, so that
#: their UNAVAILABLE answers are written before gRPC cancels what is left. A stopped call
#: ends at its next deadline checkpoint; on a loaded machine that took more than 0.25 s
#: and the call was cancelled instead of answered.
ANSWER_MARGIN = 0.5


class Worker:
    """Both servers of one process."""

    def __init__(self, settings) -> None:
        settings = fit_connections(settings)
        import uvicorn

        from samba_adjudicator.service.pipeline.runtime import Runtime, State
        from samba_adjudicator.service.transport.grpc_server import make_server
        from samba_adjudicator.service.transport.http_guard import ConnectionGuard, protocol_class
        from samba_adjudicator.service.transport.rest import create_app

        self.settings = settings
        self.state = State()
        self.runtime = Runtime(settings, state=self.state)
        self.grpc = make_server(self.runtime, settings)
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
            backlog=2048,
            timeout_keep_alive=settings.idle_timeout_seconds,
            http=protocol_class(self.connections),
        )
        self.uvicorn = uvicorn.Server(self.uv_config)
        self._uv_thread: threading.Thread | None = None
        self._uv_error: BaseException | None = None
        self.grpc_port: int | None = None
        self.http_port: int | None = None

    def _run_uvicorn(self, sock: socket.socket) -> None:
        try:
            self.uvicorn.run(sockets=[sock])
        except BaseException as e:  # noqa: BLE001 - reported by start()
            self._uv_error = e
            log.exception("REST server failed")

    def start(self) -> tuple[int, int]:
        check_grpc_port(self.settings)
        grpc_port = self.grpc_port = self.grpc.start()
        sock = bind_http(self.settings)
        http_port = self.http_port = sock.getsockname()[1]
        self._uv_thread = threading.Thread(
            target=self._run_uvicorn, args=(sock,), name="rest", daemon=True
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
        self.state.set_ready()
        return grpc_port, http_port

    def _rest_busy(self) -> bool:
        return bool(self.uvicorn.server_state.tasks)

    def shutdown(self) -> bool:
        """Drain: not ready, refuse new calls, let in-flight calls finish within the grace.

        Both servers keep their listening sockets during the drain (so ``/readyz`` answers
        503 and ``/healthz`` 200 meanwhile): gRPC refuses new calls with UNAVAILABLE, REST
        answers them 503 SHUTTING_DOWN (JSON, ``connection: close``). Calls still computing
        at the end of the grace are stopped (engine.deadline) and answered UNAVAILABLE
        SHUTTING_DOWN, so no accepted call is cut off without an answer."""
        grace = self.settings.shutdown_grace_seconds
        log.info("draining", extra={"fields": {"graceSeconds": grace}})
        started = time.monotonic()
        cutoff = started + max(grace - ANSWER_MARGIN, 0.0)
        self.state.drain()
        self.grpc.drain()
        grpc_done = self.grpc.stop(grace)
        while time.monotonic() < cutoff and (self._rest_busy() or not grpc_done.is_set()):
            time.sleep(0.02)
        stopped = self._rest_busy() or not grpc_done.is_set()
        stop_all(time.monotonic())  # what still computes stops and is answered
        answered_by = time.monotonic() + ANSWER_MARGIN + 1.0
        while self._rest_busy() and time.monotonic() < answered_by:
            time.sleep(0.02)
        self.uvicorn.should_exit = True
        limit = time.monotonic() + ANSWER_MARGIN + 2.0
        ok = grpc_done.wait(max(limit - time.monotonic(), 0))
        if self._uv_thread is not None:
            self._uv_thread.join(max(limit - time.monotonic(), 0))
            ok = ok and not self._uv_thread.is_alive()
        log.info(
            "stopped",
            extra={
                "fields": {
                    "clean": ok,
                    "callsStopped": stopped,
                    "seconds": round(time.monotonic() - started, 3),
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


def _wait_for_signal() -> int:
    stop = threading.Event()
    received: list[int] = []

    def handler(signum, frame):
        received.append(signum)
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    while not stop.wait(0.5):
        pass
    return received[0]


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


def run_single(settings) -> int:
    worker = Worker(settings)
    grpc_port, http_port = worker.start()
    _announce(
        {
            "event": "listening",
            "host": settings.host,
            "grpcPort": grpc_port,
            "httpPort": http_port,
            "workers": 1,
            "pid": os.getpid(),
        }
    )
    sig = _wait_for_signal()
    log.info("signal received", extra={"fields": {"signal": signal.Signals(sig).name}})
    worker.shutdown()
    _exit_now(0)


def _worker_entry(settings, index: int, queue) -> None:
    """A worker process (multiprocessing spawn target)."""
    setup_logging(settings.log_level)
    try:
        worker = Worker(settings)
        ports = worker.start()
    except BaseException as e:  # noqa: BLE001
        log.exception("worker %d failed to start", index)
        queue.put(("failed", index, os.getpid(), str(e)))
        sys.exit(1)
    queue.put(("ready", index, os.getpid(), ports))
    _wait_for_signal()
    _exit_now(0 if worker.shutdown() else 1)


# -- supervisor (workers > 1) -------------------------------------------------------------


def _prepare_metrics_dir(default_temp: bool) -> str | None:
    """Create/empty PROMETHEUS_MULTIPROC_DIR; make a temporary one when asked. Returns the
    directory to delete at exit (one we created), else None."""
    # prometheus_client also reads the lower-case name (its older spelling)
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or os.environ.get("prometheus_multiproc_dir")  # noqa: SIM112
    created = None
    if not path:
        if not default_temp:
            return None
        path = tempfile.mkdtemp(prefix="samba-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
        created = path
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(path, name))
    return created


class _Supervisor:
    """The worker processes of ``--workers N``: started, watched, replaced, stopped.
    ``status`` is the exit status of ``serve`` (1 once anything failed)."""

    def __init__(self, settings, ctx) -> None:
        self.settings = settings
        self.ctx = ctx
        self.queue = ctx.Queue()
        self.procs: dict = {}
        self.stopping = threading.Event()
        self.received: list[int] = []
        self.status = 0

    def on_signal(self, signum, frame) -> None:
        self.received.append(signum)
        self.stopping.set()

    def spawn(self, index: int) -> None:
        p = self.ctx.Process(
            target=_worker_entry,
            args=(self.settings, index, self.queue),
            name=f"samba-worker-{index}",
            daemon=False,
        )
        p.start()
        self.procs[index] = p

    def _fail(self, message: str, fields: dict | None = None) -> None:
        log.error(message, extra={"fields": fields} if fields else None)
        self.stopping.set()
        self.status = 1

    def wait_ready(self) -> None:
        """Until every worker reported ready (60 s at most) or one failed."""
        ready: set[int] = set()
        deadline = time.monotonic() + 60
        while len(ready) < self.settings.workers and not self.stopping.is_set():
            try:
                kind, index, _pid, info = self.queue.get(timeout=0.2)
            except Exception:  # queue.Empty
                if time.monotonic() > deadline or any(
                    not p.is_alive() for p in self.procs.values()
                ):
                    self._fail("workers did not start")
                continue
            if kind == "ready":
                ready.add(index)
            else:
                self._fail("worker failed to start", {"worker": index, "error": info})

    def watch(self) -> None:
        """Replace workers that die until a signal (or too many deaths in a minute)."""
        from samba_adjudicator.service.ops import metrics

        restarts: list[float] = []
        while not self.stopping.wait(0.5):
            for index, p in list(self.procs.items()):
                if p.is_alive():
                    continue
                metrics.mark_process_dead(p.pid)
                log.error(
                    "worker exited; replacing it",
                    extra={"fields": {"worker": index, "exitCode": p.exitcode}},
                )
                now = time.monotonic()
                restarts = [t for t in restarts if now - t < 60] + [now]
                if len(restarts) > 5 * self.settings.workers:
                    self._fail("workers keep dying; giving up")
                    break
                self.spawn(index)

    def stop(self) -> None:
        """Forward the shutdown to every worker; kill those past the grace period."""
        if self.received:
            log.info(
                "signal received",
                extra={"fields": {"signal": signal.Signals(self.received[0]).name}},
            )
        for p in self.procs.values():
            if p.is_alive():
                os.kill(p.pid, signal.SIGTERM)
        limit = time.monotonic() + self.settings.shutdown_grace_seconds + 10
        for p in self.procs.values():
            self._join(p, limit)

    def _join(self, p, limit: float) -> None:
        from samba_adjudicator.service.ops import metrics

        p.join(max(limit - time.monotonic(), 0.1))
        if p.is_alive():
            log.error("worker did not stop in time; killing it", extra={"fields": {"pid": p.pid}})
            p.kill()
            p.join(5)
            self.status = 1
        elif p.exitcode not in (0, None) and self.status == 0 and self.received:
            self.status = 1
        metrics.mark_process_dead(p.pid)


def run_supervisor(settings) -> int:
    import multiprocessing

    try:
        g = open_socket(
            settings.host, settings.grpc_port, reuseport=True, what="gRPC", flag="--grpc-port"
        )
        h = open_socket(settings.host, settings.http_port, reuseport=True)
    except PortUnavailable as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"samba-adjudicator serve: cannot bind {settings.host}: {e}", file=sys.stderr)
        return 1
    reserved = [g, h]  # bound, never listening: they only hold the port numbers
    settings = replace(settings, grpc_port=g.getsockname()[1], http_port=h.getsockname()[1])
    supervisor = _Supervisor(settings, multiprocessing.get_context("spawn"))
    signal.signal(signal.SIGTERM, supervisor.on_signal)
    signal.signal(signal.SIGINT, supervisor.on_signal)
    for i in range(settings.workers):
        supervisor.spawn(i)
    supervisor.wait_ready()
    if supervisor.status == 0 and not supervisor.stopping.is_set():
        _announce(
            {
                "event": "listening",
                "host": settings.host,
                "grpcPort": settings.grpc_port,
                "httpPort": settings.http_port,
                "workers": settings.workers,
                "pid": os.getpid(),
            }
        )
    supervisor.watch()
    supervisor.stop()
    for s in reserved:
        s.close()
    return supervisor.status


def serve_main(argv: list[str] | None = None) -> int:
    """Entry point of ``samba-adjudicator serve`` (flags: see ``serve --help``)."""
    try:
        settings = _config.load(argv)
    except _config.ConfigError as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level)
    try:
        from samba_adjudicator.service.base import page_tokens
        from samba_adjudicator.service.base.signing import Signer

        key = page_tokens.server_key(settings.page_token_key, Signer.parse(settings.snapshot_keys))
    except ValueError as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 2
    # every worker gets the same page-token key (a random one is made here, once)
    settings = replace(settings, page_token_key=base64.b64encode(key).decode("ascii"))
    created = _prepare_metrics_dir(default_temp=settings.workers > 1)
    try:
        if settings.workers == 1:
            return run_single(settings)
        return run_supervisor(settings)
    except PortUnavailable as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)  # one line, no log record
        return 1
    except OSError as e:
        log.error("cannot serve: %s", e)
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 1
    finally:
        if created:
            shutil.rmtree(created, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(serve_main(sys.argv[1:]))

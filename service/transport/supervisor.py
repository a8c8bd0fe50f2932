"""``serve --workers N`` (N > 1): the parent process that reserves the ports, starts the
worker processes (``service.transport.server.worker_entry``), replaces those that die and
forwards the shutdown to them (``service.transport.server`` describes the whole; started
by ``service.transport.serve``).

Own code, not uvicorn's process manager (``uvicorn.supervisors.Multiprocess``, which also
replaces dead workers): it runs uvicorn's server in each worker with the same sockets for
all, where a worker here runs gRPC beside REST and has ports of its own
(``--worker-grpc-port``, ``--worker-http-port``) that must outlive it; not tried."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace

from .listeners import PortUnavailable, own_ports, reserve, reserve_own_ports
from .server import SIGNAL_POLL_SECONDS, worker_entry

log = logging.getLogger("samba.server")


def prepare_metrics_dir(default_temp: bool) -> str | None:
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


#: Seconds before the first new try at starting a worker whose replacement failed to start;
#: each failure in a row doubles it, up to RETRY_MAX_SECONDS.
RETRY_FIRST_SECONDS = 0.5
RETRY_MAX_SECONDS = 8.0


class _Supervisor:
    """The worker processes of ``--workers N``: started, watched, replaced, stopped.
    ``status`` is the exit status of ``serve`` (1 once anything failed).

    A replacement that fails to start (its port cannot be bound, anything) never stops the
    server: it is counted (``samba_worker_start_failures_total``), logged, flagged in
    ``missing`` (every worker's readiness reads it: ``loop_watch.LoopWatch``) and tried
    again after RETRY_FIRST_SECONDS, doubling up to RETRY_MAX_SECONDS. It used to count as a
    death, and eleven in a minute stopped the server with its other workers (issue 56)."""

    def __init__(self, settings, ctx, own_http: dict | None = None) -> None:
        self.settings = settings
        self.ctx = ctx
        self.queue = ctx.Queue()
        self.procs: dict = {}
        self.failed = False
        self.received: list[int] = []
        self.status = 0
        #: worker -> its own REST port's listening socket (listeners.listen_own_http)
        self.own_http = own_http or {}
        #: one flag per worker, shared with every worker: its replacement cannot start
        self.missing = ctx.RawArray("b", settings.workers)
        self.starting: set[int] = set()  # replacements not yet ready
        self.failures: dict[int, int] = {}  # worker -> failed starts in a row
        self.retry_at: dict[int, float] = {}  # worker -> when to try it again

    def on_signal(self, signum, frame) -> None:
        # no lock here (server.SignalWaiter says why): the main thread polls ``received``
        self.received.append(signum)

    def stopping(self) -> bool:
        return self.failed or bool(self.received)

    def spawn(self, index: int) -> None:
        p = self.ctx.Process(
            target=worker_entry,
            args=(self.settings, index, self.queue, self.own_http.get(index), self.missing),
            name=f"samba-worker-{index}",
            daemon=False,
        )
        p.start()
        self.procs[index] = p

    def _fail(self, message: str, fields: dict | None = None) -> None:
        log.error(message, extra={"fields": fields} if fields else None)
        self.failed = True
        self.status = 1

    def wait_ready(self) -> None:
        """Until every worker reported ready (60 s at most) or one failed."""
        ready: set[int] = set()
        deadline = time.monotonic() + 60
        while len(ready) < self.settings.workers and not self.stopping():
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
        """Replace workers that die, and try again those that fail to start, until a
        signal."""
        looked = 0.0
        while not self.stopping():
            self._read_reports(SIGNAL_POLL_SECONDS)
            now = time.monotonic()
            for index, at in list(self.retry_at.items()):
                if now >= at:
                    del self.retry_at[index]
                    self._replace(index)
            if now - looked < 0.5:
                continue
            looked = now
            for index, p in list(self.procs.items()):
                if not p.is_alive() and index not in self.retry_at:
                    self._dead(index, p)

    def _read_reports(self, wait: float) -> None:
        """The replacements' reports: ready, or failed to start (``worker_entry``)."""
        try:
            kind, index, pid, info = self.queue.get(timeout=wait)
        except Exception:  # queue.Empty
            return
        if kind == "ready":
            self.starting.discard(index)
            self.failures.pop(index, None)
            self.missing[index] = 0
            log.info("worker ready", extra={"fields": {"worker": index, "pid": pid}})
        elif pid == self.procs[index].pid:  # not a late report of an earlier try
            self._start_failed(index, info)

    def _dead(self, index: int, p) -> None:
        from ..ops import metrics

        metrics.mark_process_dead(p.pid)
        if index in self.starting:  # died before it was ready: as a failed start
            self._start_failed(index, f"exit code {p.exitcode}")
            return
        log.error(
            "worker exited; replacing it",
            extra={"fields": {"worker": index, "exitCode": p.exitcode}},
        )
        self._replace(index)

    def _replace(self, index: int) -> None:
        self.starting.add(index)
        self.spawn(index)

    def _start_failed(self, index: int, error: str) -> None:
        from ..ops import metrics

        if index not in self.starting:  # its death after the report: already counted
            return
        self.starting.discard(index)
        self.missing[index] = 1
        failures = self.failures[index] = self.failures.get(index, 0) + 1
        wait = min(RETRY_FIRST_SECONDS * 2 ** (failures - 1), RETRY_MAX_SECONDS)
        self.retry_at[index] = time.monotonic() + wait
        metrics.get().worker_start_failures.inc()
        log.error(
            "worker failed to start; trying again",
            extra={
                "fields": {"worker": index, "error": error, "failures": failures, "retryIn": wait}
            },
        )

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
        from ..ops import metrics

        p.join(max(limit - time.monotonic(), 0.1))
        if p.is_alive():
            log.error("worker did not stop in time; killing it", extra={"fields": {"pid": p.pid}})
            p.kill()
            p.join(5)
            self.status = 1
        elif p.exitcode not in (0, None, -signal.SIGTERM) and self.status == 0 and self.received:
            # a worker still starting ends by the SIGTERM forwarded to it (its handlers not
            # yet installed): the stop asked for, not a failure
            self.status = 1
        metrics.mark_process_dead(p.pid)


def run_supervisor(settings, announce: Callable[[dict], None]) -> int:
    """The workers of ``--workers N``; ``announce`` is given the listening line once every
    worker is ready."""

    try:
        g = reserve(settings.host, settings.grpc_port, "gRPC", "--grpc-port")
        h = reserve(settings.host, settings.http_port)
        a = reserve(settings.host, settings.admin_port, "admin", "--admin-port")
        own = reserve_own_ports(settings)
    except PortUnavailable as e:
        print(f"samba-adjudicator serve: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"samba-adjudicator serve: cannot bind {settings.host}: {e}", file=sys.stderr)
        return 1
    # bound, never listening: they only hold the port numbers (the own REST ports listen)
    reserved = [g, h, a, *own.values()]
    settings = replace(
        settings,
        grpc_port=g.getsockname()[1],
        http_port=h.getsockname()[1],
        admin_port=a.getsockname()[1],
    )
    own_http = {i: s for (i, kind), s in own.items() if kind == 1}
    supervisor = _Supervisor(settings, multiprocessing.get_context("spawn"), own_http)
    signal.signal(signal.SIGTERM, supervisor.on_signal)
    signal.signal(signal.SIGINT, supervisor.on_signal)
    for i in range(settings.workers):
        supervisor.spawn(i)
    supervisor.wait_ready()
    if supervisor.status == 0 and not supervisor.stopping():
        announce(
            {
                "event": "listening",
                "host": settings.host,
                "grpcPort": settings.grpc_port,
                "httpPort": settings.http_port,
                "adminPort": settings.admin_port,
                "workers": settings.workers,
                **own_ports(settings),
                "pid": os.getpid(),
            }
        )
    supervisor.watch()
    supervisor.stop()
    for s in reserved:
        s.close()
    return supervisor.status

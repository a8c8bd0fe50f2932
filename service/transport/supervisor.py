"""``serve --workers N`` (N > 1): the parent process that reserves the ports, starts the
worker processes (``service.transport.server.worker_entry``), replaces those that die and
forwards the shutdown to them (``service.transport.server`` describes the whole; started
by ``service.transport.serve``)."""

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


class _Supervisor:
    """The worker processes of ``--workers N``: started, watched, replaced, stopped.
    ``status`` is the exit status of ``serve`` (1 once anything failed)."""

    def __init__(self, settings, ctx) -> None:
        self.settings = settings
        self.ctx = ctx
        self.queue = ctx.Queue()
        self.procs: dict = {}
        self.failed = False
        self.received: list[int] = []
        self.status = 0

    def on_signal(self, signum, frame) -> None:
        # no lock here (server.SignalWaiter says why): the main thread polls ``received``
        self.received.append(signum)

    def stopping(self) -> bool:
        return self.failed or bool(self.received)

    def spawn(self, index: int) -> None:
        p = self.ctx.Process(
            target=worker_entry,
            args=(self.settings, index, self.queue),
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
        """Replace workers that die until a signal (or too many deaths in a minute)."""
        from ..ops import metrics

        restarts: list[float] = []
        looked = 0.0
        while not self.stopping():
            time.sleep(SIGNAL_POLL_SECONDS)
            if time.monotonic() - looked < 0.5:
                continue
            looked = time.monotonic()
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
    reserved = [g, h, a, *own]  # bound, never listening: they only hold the port numbers
    settings = settings.model_copy(
        update={
            "grpc_port": g.getsockname()[1],
            "http_port": h.getsockname()[1],
            "admin_port": a.getsockname()[1],
        }
    )
    supervisor = _Supervisor(settings, multiprocessing.get_context("spawn"))
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

"""``State``: the process's lifecycle (starting -> serving -> draining, whether its API
event loops answer, and whether the other workers of ``--workers N`` run), read by ``/readyz``
and the gRPC health service."""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("samba.server")


class State:
    """Lifecycle of the process: NOT_SERVING while starting and draining, while an API
    event loop is ``stalled``, and while a worker is ``missing`` (its replacement cannot
    start: service.transport.loop_watch)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.ready = False
        self.draining = False
        self.stalled: tuple[str, ...] = ()  # API loops that left a self-probe unanswered
        self.missing: tuple[int, ...] = ()  # workers the supervisor cannot start
        self._listeners: list = []

    def on_change(self, fn) -> None:
        self._listeners.append(fn)

    def _notify(self) -> None:
        for fn in list(self._listeners):
            try:
                fn(self.serving)
            except Exception:  # noqa: BLE001 - a listener must not break the lifecycle
                log.exception("state listener failed")

    @property
    def serving(self) -> bool:
        return self.ready and not self.draining and not self.stalled and not self.missing

    def probe(self, readiness: bool) -> tuple[dict, int]:
        """The JSON body and HTTP status of ``/readyz`` (``readiness``: 503 NOT_SERVING
        unless ``serving``) or ``/healthz`` (the process answers: SERVING), on the API
        port and the admin port alike."""
        serving = self.serving or not readiness
        body: dict = {"status": "SERVING" if serving else "NOT_SERVING"}
        if readiness and self.missing:
            body["workersMissing"] = list(self.missing)
        return body, 200 if serving else 503

    def set_stalled(self, loops: tuple[str, ...]) -> None:
        """The API loops that do not answer now (empty: all do); listeners hear a change."""
        with self._lock:
            changed = bool(loops) != bool(self.stalled)
            self.stalled = loops
        if changed:
            self._notify()

    def set_missing(self, workers: tuple[int, ...]) -> None:
        """The workers of ``--workers N`` that the supervisor cannot start now (empty: it
        runs them all); listeners hear a change."""
        with self._lock:
            changed = bool(workers) != bool(self.missing)
            self.missing = workers
        if changed:
            self._notify()

    def set_ready(self) -> None:
        with self._lock:
            self.ready = True
        self._notify()

    def drain(self) -> None:
        with self._lock:
            self.draining = True
        self._notify()

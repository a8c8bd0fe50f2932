"""Readiness follows the API event loops (docs/service.md#readiness).

The admin port answers on a loop of its own, so it stays green while the REST or gRPC
loop is held (a call computing on it, a blocking bug): a pod that cannot answer stayed in
rotation. ``LoopWatch`` is a thread that sends each API loop a self-probe (a callback that
stamps the time) every ``PROBE_SECONDS``; a loop whose last stamp is older than
``STALL_SECONDS`` is *stalled*, and while one is, ``State.serving`` is false: ``/readyz``
answers 503 on the admin port (the REST port's too, when its loop can answer) and gRPC
health says NOT_SERVING. Once every loop answers again, readiness returns. Each change is
logged (``event loop stalled`` with the loops, ``event loops answer again``).

With ``--workers N`` it also reads the supervisor's word on the other workers (``peers``: one
flag per worker, set while the supervisor cannot start that worker's replacement,
``service.transport.supervisor``): while one is set, readiness is red on every worker, whose
``/readyz`` names the missing ones (a worker's own ports go unserved meanwhile).
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("samba.server")

#: Seconds an API event loop may leave its self-probe unanswered before readiness turns
#: red. A loop answering cheap calls stamps within milliseconds; heavy calls run on worker
#: threads (service.pipeline.heavy), so only a held loop goes past this.
STALL_SECONDS = 2.0
#: Seconds between two self-probes of a loop.
PROBE_SECONDS = 0.25
#: Loop iterations ``after_pending_io`` lets pass: each polls the loop's sockets.
POLL_ROUNDS = 3
#: Seconds ``wait_kernel_read`` waits at most for a server to read what had arrived.
KERNEL_READ_WAIT = 1.0


def after_pending_io(loop, fn, rounds: int = POLL_ROUNDS) -> None:
    """Run ``fn`` on ``loop`` (from any thread) after the loop has gone ``rounds`` times
    round, each polling its sockets: what had arrived on them when this was called has been
    read and parsed by then, however busy the loop is (the drain uses it to tell the calls
    that arrived before SIGTERM from those after it). A callback scheduled from a callback
    runs on the next iteration, after its poll (asyncio and uvloop alike)."""

    def step(left: int) -> None:
        if left <= 0:
            fn()
        else:
            loop.call_soon(step, left - 1)

    loop.call_soon_threadsafe(step, rounds)


def unread_bytes(ports: set[int]) -> int:
    """Bytes the kernel holds that no server has read yet, on this host's established TCP
    connections to ``ports`` (Linux's /proc/net/tcp and tcp6; 0 where they are absent)."""
    total = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()  # sl local remote st tx_queue:rx_queue ...
                    if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) in ports:
                        total += int(fields[4].split(":")[1], 16)
        except OSError:
            continue
    return total


def wait_kernel_read(ports: set[int], until: float, wait: float = KERNEL_READ_WAIT) -> None:
    """Wait (at most ``wait`` seconds, and not past ``until``, a ``time.monotonic()``) until
    the server has read every byte that had arrived on ``ports``. gRPC's core reads its
    sockets on threads of its own, not on the loop, so polling the loop
    (``after_pending_io``) alone does not tell that a call whose bytes were in the socket
    at SIGTERM has been read, and grpcio says nothing of what it has read: its own drain,
    ``server.stop(grace)``, failed tests/test_drain.py (``GrpcServer.settle`` says how).
    Without this wait gRPC refused 1 to 3 of 4 such calls in 3 of 8 runs
    (``test_listings_sent_before_sigterm_on_a_busy_server_are_all_answered``). Linux's
    /proc, read at SIGTERM only; elsewhere nothing is waited for."""
    until = min(until, time.monotonic() + wait)
    while unread_bytes(ports) and time.monotonic() < until:
        time.sleep(0.005)


class LoopWatch:
    """Self-probes of ``loops`` (name -> asyncio loop), read into ``state``."""

    def __init__(
        self,
        state,
        loops: dict,
        stall: float = STALL_SECONDS,
        every: float = PROBE_SECONDS,
        peers=None,
    ) -> None:
        self.state = state
        self.loops = dict(loops)
        self.peers = peers
        self.stall = stall
        self.every = every
        now = time.monotonic()
        self.answered = {name: now for name in self.loops}
        self._pending: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="loop-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _stamp(self, name: str) -> None:  # runs on the loop probed
        self.answered[name] = time.monotonic()
        self._pending.discard(name)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.look(time.monotonic())

    def look(self, now: float) -> None:
        """One round: the stalled loops into the state, then a probe to each loop that has
        answered the last one."""
        stalled = tuple(sorted(n for n, t in self.answered.items() if now - t > self.stall))
        if stalled != self.state.stalled:
            self._report(stalled, now)
            self.state.set_stalled(stalled)
        if self.peers is not None:
            self.state.set_missing(tuple(i for i, flag in enumerate(self.peers) if flag))
        for name, loop in self.loops.items():
            if name in self._pending:
                continue
            self._pending.add(name)
            try:
                loop.call_soon_threadsafe(self._stamp, name)
            except RuntimeError:  # the loop is closed: the process is stopping
                self._pending.discard(name)

    def _report(self, stalled: tuple[str, ...], now: float) -> None:
        if stalled:
            ages = {n: round(now - self.answered[n], 3) for n in stalled}
            log.warning("event loop stalled", extra={"fields": {"loops": ages}})
        else:
            log.info("event loops answer again")

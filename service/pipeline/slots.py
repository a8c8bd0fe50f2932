"""The heavy-call slots: at most ``HEAVY_CALLS`` heavy calls compute at once per process
(``service.pipeline.heavy``), the others wait their turn, first come first served.

A call asks for a slot with a ``Ticket`` and a ``wake`` callback (``Slots.ask``). A ticket
is taken at once when a slot is free; otherwise it waits in line and ``wake`` is called,
from whichever thread frees the slot, when it is handed one. Waiting is the caller's
business, so it costs no thread: a transport awaits on its event loop
(``service.transport.slot_wait``), a caller in process blocks its own thread (``wait``).
A waiter that gives up (its deadline passed, its caller left) leaves the line
(``leave``); the drain's end empties it (``close``). The call's work ``claim``s the
ticket as it begins, and ``leave``s it when done, which hands the slot to the next in
line. A transport whose call ends before its work began (the task cancelled while its
work waited for a thread) ``abandon``s the ticket: the slot is handed on, unless the work
claimed it, which then leaves it itself. docs/service.md#heavy-calls.

The line is bounded by bytes: a call that must wait counts its request's bytes (at least
``WAITING_FLOOR``) against the decoding budget (``service.pipeline.budget``) from the
moment it joins the line until its ticket is done, and one that finds no room is refused
at once (``Ticket.refused``) rather than kept: 160 gRPC and 60 REST listings of 0.9 MB
waiting behind two computer moves took a worker to 348-387 MB, 300 to 442 MB.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable

from samba_adjudicator.engine.deadline import Stop

from .budget import ByteBudget

#: A ticket's states: in line, handed a slot, its work running, and done (or given up).
WAITING = 0
GRANTED = 1
RUNNING = 2
GONE = 3
#: Seconds between two looks of a thread waiting in process at its stop and deadline.
POLL_SECONDS = 0.05
#: Bytes a waiting call counts at least, whatever its request's size: its transport's
#: state, its task and its future (measured in bench/waits_bench.py); it bounds how many
#: small calls wait, at the budget over this.
WAITING_FLOOR = 16 * 1024


class Ticket:
    """One call's place: ``state`` (read without the lock; changed under it), the callback
    that wakes its waiter, the bytes it counts against the budget (``counted``: it waited
    in line; 0: it did not, and its work admits its request as any other) and whether it
    was refused a place in line for want of room in the budget (``refused``)."""

    __slots__ = ("counted", "refused", "state", "wake")

    def __init__(self, wake: Callable[[], None]) -> None:
        self.state = WAITING
        self.wake = wake
        self.counted = 0
        self.refused = False

    @property
    def granted(self) -> bool:
        """Whether this ticket holds a slot (handed one, its work not yet done)."""
        return self.state == GRANTED or self.state == RUNNING


class Slots:
    """``count`` slots and the line of tickets waiting for one (thread-safe); a waiting
    ticket's bytes count against ``budget`` (None: the line is unbounded)."""

    def __init__(self, count: int, budget: ByteBudget | None = None) -> None:
        self.count = count
        self.free = count
        self.closed = False
        self.budget = budget
        self._lock = threading.Lock()
        self._line: collections.deque[Ticket] = collections.deque()

    @property
    def waiting(self) -> int:
        """Tickets in line now."""
        return len(self._line)

    def ask(self, wake: Callable[[], None], size: int = 0) -> Ticket:
        """A ticket for a call of ``size`` request bytes: granted when a slot is free
        (``wake`` is then never called), else in line, its bytes counted against the
        budget; GONE once the slots are closed (the drain's end), or ``refused`` when the
        budget has no room for it (nothing waits: its call is answered at once)."""
        ticket = Ticket(wake)
        with self._lock:
            if self.closed:
                ticket.state = GONE
            elif self.free > 0:
                self.free -= 1
                ticket.state = GRANTED
            elif self._counts(ticket, size):
                self._line.append(ticket)
            else:
                ticket.state = GONE
                ticket.refused = True
        return ticket

    def turns_away(self, largest: int) -> bool:
        """Whether a heavy call of up to ``largest`` bytes, its size not yet known, would be
        refused a place in line now (both slots taken, no room in the budget for that
        many): a transport refuses it before reading it (a look without the lock: the
        place is asked for once the call is read)."""
        budget = self.budget
        if budget is None or self.free > 0 or self.closed:
            return False
        return budget.used + min(max(largest, WAITING_FLOOR), budget.budget) > budget.budget

    def _counts(self, ticket: Ticket, size: int) -> bool:
        """Whether the budget takes a waiting call of ``size`` bytes (then ``counted``)."""
        if self.budget is None:
            return True
        counted = min(max(size, WAITING_FLOOR), self.budget.budget)
        if not self.budget.take(counted):
            return False
        ticket.counted = counted
        return True

    def _gone(self, ticket: Ticket) -> None:
        """``ticket`` is done: its bytes leave the budget (once)."""
        counted, ticket.counted = ticket.counted, 0
        if counted and self.budget is not None:
            self.budget.release(counted)

    def claim(self, ticket: Ticket) -> bool:
        """The call's work begins: True when the ticket holds a slot (it is then the work's
        to ``leave``), False when it never got one or was abandoned."""
        with self._lock:
            if ticket.state != GRANTED:
                return False
            ticket.state = RUNNING
            return True

    def leave(self, ticket: Ticket) -> None:
        """Done with ``ticket``, whatever its state: out of the line, or its slot handed
        to the next in line (idempotent)."""
        self._leave(ticket, keep_running=False)

    def abandon(self, ticket: Ticket) -> None:
        """``leave``, unless the call's work has claimed the ticket (it leaves it when it
        ends)."""
        self._leave(ticket, keep_running=True)

    def _leave(self, ticket: Ticket, keep_running: bool) -> None:
        woken: Ticket | None = None
        with self._lock:
            state = ticket.state
            if state == GONE or (keep_running and state == RUNNING):
                return
            ticket.state = GONE
            if state == WAITING:
                self._line.remove(ticket)
            elif self._line:
                woken = self._line.popleft()
                woken.state = GRANTED
            else:
                self.free += 1
        self._gone(ticket)
        if woken is not None:
            woken.wake()

    def close(self) -> None:
        """The drain's end: every ticket in line is woken without a slot (its call is
        answered SHUTTING_DOWN), and later ones are refused."""
        with self._lock:
            self.closed = True
            woken = list(self._line)
            self._line.clear()
            for ticket in woken:
                ticket.state = GONE
        for ticket in woken:
            self._gone(ticket)
            ticket.wake()

    def wait(self, stop: Stop | None, deadline: float | None, size: int = 0) -> Ticket:
        """A ticket for a caller in process (``size`` request bytes), blocking this thread
        until it is granted, the ``deadline`` (``time.monotonic()``) passes or ``stop`` is
        set (then it has left the line)."""
        woken = threading.Event()
        ticket = self.ask(woken.set, size)
        while ticket.state == WAITING:
            left = POLL_SECONDS if deadline is None else deadline - time.monotonic()
            if (stop is not None and stop.stopped) or left <= 0:
                self.leave(ticket)
                break
            woken.wait(min(left, POLL_SECONDS))
        return ticket

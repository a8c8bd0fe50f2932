"""Waiting for a heavy-call slot on a transport's event loop (``service.pipeline.slots``).

A heavy call that finds both slots taken waits as an asyncio future on its server's loop,
not on a thread of a pool: a thread blocked in the wait is one the pool cannot give to
``/metrics`` or a large cheap call (48 queued computer moves kept them waiting 2.2-2.6 s).
The wait ends when the call is handed a slot, at the call's deadline, when its caller
leaves (``stop``, and the ``gone`` future that sets it), or at the drain's end
(``Slots.close``); a call that did not get a slot is then answered at once with the
reason (``service.pipeline.stops.interrupted``). docs/service.md#heavy-calls. ``offload`` is
how both transports answer a call on a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from samba_adjudicator.engine.deadline import Stop

from ..pipeline.call import Call, size
from ..pipeline.slots import WAITING, Slots, Ticket

T = TypeVar("T")


def resolve(future: asyncio.Future) -> None:
    """Set ``future`` done, once (on its loop)."""
    if not future.done():
        future.set_result(None)


class SlotWait:
    """One call's wait: its ``ticket`` is asked for at once (granted when a slot is free;
    refused when the line holds as many bytes as the budget takes: ``size``, the call's)."""

    def __init__(self, slots: Slots, size: int = 0) -> None:
        self.slots = slots
        self.loop = asyncio.get_running_loop()
        self.handed: asyncio.Future = self.loop.create_future()
        self.ticket = slots.ask(self._wake, size)

    def _wake(self) -> None:  # any thread: the one that freed the slot
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self.loop.call_soon_threadsafe(resolve, self.handed)

    async def until(
        self, deadline: float | None, stop: Stop, gone: asyncio.Future | None = None
    ) -> Ticket:
        """The ticket, granted or not: the wait ends with a slot, at ``deadline``
        (``time.monotonic()``), once ``stop`` is set (``gone`` done wakes the wait to look)
        or at the drain's end. A ticket not granted has left the line, as has one whose
        task is cancelled meanwhile."""
        try:
            while self.ticket.state == WAITING:
                left = None if deadline is None else deadline - time.monotonic()
                if stop.stopped or (left is not None and left <= 0):
                    break
                waits = [self.handed]
                if gone is not None and not gone.done():
                    waits.append(gone)
                await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # cancelled: the call is over, its place goes
            self.slots.abandon(self.ticket)
            raise
        if not self.ticket.granted:
            self.slots.leave(self.ticket)
        return self.ticket


async def offload(
    slots: Slots,
    call: Call,
    gone: asyncio.Future,
    answer: Callable[[Call, Ticket | None], T],
    run: Callable[[Callable[[Call, Ticket | None], T], Call, Ticket | None], Awaitable[T]],
) -> T:
    """``answer`` the call on a worker thread (``run(answer, call, ticket)``), as both
    transports do: a heavy call waits for its slot first on this loop (no thread held
    meanwhile), and one that gets none (its deadline, its caller gone, ``gone``, the
    drain's end) is answered here at once, why; a wait cancelled because its caller left
    is answered too (counted and logged, CANCELLED), and so is one refused a place in line
    (its bytes over the budget: RESOURCE_EXHAUSTED MEMORY_BUDGET). Work that never began
    (cancelled before its thread took it) hands its slot on."""
    stop = call.stop
    assert stop is not None, "an offloaded call can be stopped (call.stoppable)"
    ticket = None
    if call.heavy:
        waiting = SlotWait(slots, size(call))
        try:
            ticket = await waiting.until(call.deadline, stop, gone)
        except asyncio.CancelledError:
            stop.set()
            answer(call, waiting.ticket)
            raise
        if not ticket.granted:
            return answer(call, ticket)  # at once: nothing is read
    try:
        return await run(answer, call, ticket)
    finally:
        if ticket is not None:  # the work never began (cancelled): the slot goes on
            slots.abandon(ticket)

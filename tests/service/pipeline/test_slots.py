"""The heavy-call slots (service.pipeline.slots) and the wait for one on an event loop
(service.transport.slot_wait): first come first served, a slot handed on as its call ends,
a wait that ends at the call's deadline, when its caller leaves or at the drain's end,
holding no thread; a call that got no slot answered at once with the reason (issue 47,
items 4 and 9). The servers' side: tests/test_heavy_calls.py."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from samba_adjudicator.engine.deadline import Stop
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.pipeline.budget import ByteBudget
from samba_adjudicator.service.pipeline.call import Call
from samba_adjudicator.service.pipeline.runtime import HEAVY_CALLS, Runtime
from samba_adjudicator.service.pipeline.slots import GONE, RUNNING, WAITING, WAITING_FLOOR, Slots
from samba_adjudicator.service.transport.slot_wait import SlotWait


def test_slots_are_handed_on_first_come_first_served():
    slots = Slots(2)
    woken: list[str] = []
    first, second = slots.ask(lambda: woken.append("1")), slots.ask(lambda: woken.append("2"))
    line = [slots.ask(lambda name=name: woken.append(name)) for name in "abc"]
    assert (first.granted, second.granted) == (True, True)
    assert not any(t.granted for t in line) and slots.waiting == 3
    slots.leave(line[1])  # b gives up: out of the line, nothing handed
    assert (line[1].state, slots.waiting, woken) == (GONE, 2, [])
    assert slots.claim(first)
    slots.leave(first)  # its work ends: the slot goes to a
    assert woken == ["a"] and line[0].granted and slots.waiting == 1
    slots.abandon(line[0])  # a's call ended before its work began: the slot goes to c
    assert woken == ["a", "c"] and line[2].granted
    slots.leave(first)  # twice: nothing more
    assert slots.claim(line[2]) and line[2].state == RUNNING
    slots.abandon(line[2])  # claimed: the work leaves it itself
    assert line[2].state == RUNNING and slots.free == 0
    slots.leave(line[2])
    slots.leave(second)
    assert (slots.free, slots.waiting) == (2, 0)
    assert not slots.claim(line[1])  # one that gave up never runs


def test_the_drains_end_wakes_every_waiter_without_a_slot():
    slots = Slots(1)
    held = slots.ask(lambda: None)
    woken: list[int] = []
    line = [slots.ask(lambda i=i: woken.append(i)) for i in range(3)]
    slots.close()
    assert woken == [0, 1, 2] and all(t.state == GONE for t in line)
    assert slots.ask(lambda: None).state == GONE  # later ones too
    slots.leave(held)
    assert slots.free == 1


def test_a_waiting_call_counts_its_bytes_and_past_the_budget_one_is_refused():
    """Issue 56, item 1: the line was unbounded, each waiting call holding its whole
    request; now a waiting call's bytes count against the budget from the moment it joins
    the line until its work ends, and one that does not fit is refused without waiting."""
    budget = ByteBudget(1_000_000)
    slots = Slots(1, budget)
    held = slots.ask(lambda: None, 900_000)  # a free slot: its work admits its bytes
    assert held.granted and held.counted == 0 and budget.used == 0
    first = slots.ask(lambda: None, 600_000)
    assert (first.state, first.counted, budget.used) == (WAITING, 600_000, 600_000)
    refused = slots.ask(lambda: None, 600_000)
    assert refused.state == GONE and refused.refused and slots.waiting == 1
    assert budget.used == 600_000 and not slots.claim(refused)
    small = slots.ask(lambda: None, 10)  # a small call counts the floor
    assert small.counted == WAITING_FLOOR and budget.used == 600_000 + WAITING_FLOOR
    slots.leave(held)  # first is handed the slot and keeps its count while it works
    assert first.granted and budget.used == 600_000 + WAITING_FLOOR
    assert slots.claim(first)
    slots.leave(first)
    assert small.granted and budget.used == WAITING_FLOOR
    slots.leave(small)
    slots.leave(small)  # twice: released once
    assert budget.used == 0
    # a call that gives up, and the drain's end, release the bytes of the line
    held = slots.ask(lambda: None)
    gives_up, drained = slots.ask(lambda: None, 300_000), slots.ask(lambda: None, 400_000)
    assert budget.used == 700_000
    slots.leave(gives_up)
    assert budget.used == 400_000
    slots.close()
    assert drained.state == GONE and budget.used == 0


def test_a_heavy_call_past_the_budget_is_refused_at_once_with_a_retry_hint():
    """Issue 56, item 1: with both slots held and the line's bytes filling the budget, a
    heavy call waited in line (to its deadline: DEADLINE_EXCEEDED); it is refused
    RESOURCE_EXHAUSTED MEMORY_BUDGET (REST 429) with a retry hint, nothing waiting."""
    rt = Runtime(None)
    held = [rt.heavy.ask(lambda: None) for _ in range(HEAVY_CALLS)]
    line = rt.heavy.ask(lambda: None, rt.decoding.budget)
    assert all(t.granted for t in held) and line.state == WAITING
    data = b"\x0a\x00"  # ListLegalActionsRequest with an empty snapshot
    call = Call("ListLegalActions", data, "grpc", "r", heavy=True, deadline=time.monotonic() + 3)
    with pytest.raises(ApiError) as e:
        rt.invoke(call._replace(stop=Stop()))
    err = e.value
    assert (err.code, err.reason, err.http_status) == ("RESOURCE_EXHAUSTED", "MEMORY_BUDGET", 429)
    assert err.retry_after > 0 and rt.heavy.waiting == 1
    rt.heavy.close()
    assert rt.decoding.used == 0


def _wait(slots: Slots, deadline: float | None, stop: Stop, gone=None):
    async def run():
        return await SlotWait(slots).until(deadline, stop, gone)

    return run


def test_a_wait_on_the_loop_ends_with_a_slot_at_the_deadline_or_when_the_caller_leaves():
    slots = Slots(1)
    held = slots.ask(lambda: None)

    async def scenario() -> None:
        # the deadline: not granted, out of the line
        ticket = await _wait(slots, time.monotonic() + 0.2, Stop())()
        assert not ticket.granted and slots.waiting == 0
        # the caller leaves: its stop is set and its ``gone`` future done
        stop, gone = Stop(), asyncio.get_running_loop().create_future()
        waiting = asyncio.ensure_future(_wait(slots, None, stop, gone)())
        await asyncio.sleep(0.05)
        stop.set()
        gone.set_result(None)
        assert not (await waiting).granted and slots.waiting == 0
        # handed a slot by a thread that ends its work
        waiting = asyncio.ensure_future(_wait(slots, None, Stop())())
        await asyncio.sleep(0.05)
        assert slots.waiting == 1
        await asyncio.to_thread(slots.leave, held)
        ticket = await waiting
        assert ticket.granted
        # cancelled while it waits: its place goes
        other = asyncio.ensure_future(_wait(slots, None, Stop())())
        await asyncio.sleep(0.05)
        other.cancel()
        with pytest.raises(asyncio.CancelledError):
            await other
        assert slots.waiting == 0
        slots.leave(ticket)
        assert slots.free == 1

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("why", "expected"),
    [
        ("deadline", ("DEADLINE_EXCEEDED", "DEADLINE_EXCEEDED")),
        ("caller", ("CANCELLED", "CLIENT_GONE")),
        ("drain", ("UNAVAILABLE", "SHUTTING_DOWN")),
    ],
)
def test_a_call_that_got_no_slot_is_answered_why_without_being_read(why, expected):
    runtime = Runtime(None)
    held = [runtime.heavy.ask(lambda: None) for _ in range(HEAVY_CALLS)]
    stop = Stop()
    deadline = time.monotonic() + 0.1 if why == "deadline" else None

    async def waited():
        if why == "caller":
            stop.set()
        if why == "drain":
            runtime.state.drain()
            asyncio.get_running_loop().call_later(0.05, runtime.heavy.close)
        return await SlotWait(runtime.heavy).until(deadline, stop)

    ticket = asyncio.run(waited())
    assert not ticket.granted
    with pytest.raises(ApiError) as e:
        runtime.invoke(
            Call(
                "ListLegalActions",
                b"\xff not a request",  # never read: it would be INVALID_ARGUMENT
                "rest",
                "r",
                deadline=deadline,
                heavy=True,
                stop=stop,
            ),
            ticket,
        )
    assert (e.value.code, e.value.reason) == expected
    for t in held:
        runtime.heavy.leave(t)
    assert runtime.heavy.free == HEAVY_CALLS


def test_a_wait_holds_no_thread():
    """Fifty calls wait on one event loop: no thread is started for them."""
    slots = Slots(1)
    held = slots.ask(lambda: None)

    async def scenario() -> int:
        waits = [asyncio.ensure_future(_wait(slots, None, Stop())()) for _ in range(50)]
        await asyncio.sleep(0.1)
        during = threading.active_count()
        assert slots.waiting == 50
        slots.leave(held)
        for w in waits:
            slots.leave(await w)
        return during

    before = threading.active_count()
    assert asyncio.run(scenario()) == before
    assert (slots.free, slots.waiting) == (1, 0)

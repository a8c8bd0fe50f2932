"""Deadlines stop the work, not only the answer (issue 11, findings 4 and 5): the engine's
long loops look at the caller's deadline (engine.deadline)."""

from __future__ import annotations

import gc
import json
import os
import time

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2
from huge_positions import huge_hand
from service_fixtures import channel, http, server, stub  # noqa: F401

from samba_adjudicator import engine
from samba_adjudicator.engine import deadline
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import convert

pytestmark = pytest.mark.servers
_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime


def _cpu_after(pid: int, settle: float = 0.3, window: float = 1.2) -> float:
    """CPU the server spends in ``window`` seconds, ``settle`` seconds from now."""
    time.sleep(settle)
    before = _cpu_seconds(pid)
    time.sleep(window)
    return _cpu_seconds(pid) - before


def _huge_snapshot():
    msg = pb.Snapshot()
    json_format.ParseDict(huge_hand(), msg)
    return convert.snapshot_from_proto(msg, "snapshot", [])


def test_checkpoint_raises_only_past_the_deadline():
    deadline.checkpoint()
    with deadline.within(time.monotonic() + 60):
        deadline.checkpoint()
    with deadline.within(time.monotonic() - 1):
        with pytest.raises(deadline.Interrupted):
            deadline.checkpoint()
    deadline.checkpoint()  # the deadline ended with its block


def test_a_passed_deadline_stops_legal_actions_and_replay():
    snap = _huge_snapshot()
    with deadline.within(time.monotonic() - 1):
        with pytest.raises(deadline.Interrupted):
            engine.legal_actions(snap, None)
        with pytest.raises(deadline.Interrupted):
            engine.replay(snap, [engine.Discard(0, snap.seats[0].hand[0])])


def test_stop_all_stops_every_computation():
    deadline.stop_all(time.monotonic() - 1)
    try:
        with pytest.raises(deadline.Interrupted):
            deadline.checkpoint()
    finally:
        deadline.stop_all(None)
    deadline.checkpoint()


#: Distinct huge positions (no cache of the server's answers any of them): the list of one
#: takes 0.5-0.9 s of CPU, so a server that went on past the deadlines would stay busy for
#: seconds, well into the window where ``_cpu_after`` looks.
_UNSTOPPED = 5


def _distinct_huge_hands() -> list[dict]:
    return [huge_hand(149 - i) for i in range(_UNSTOPPED)]


def test_a_grpc_deadline_stops_the_work(server, stub):
    for hand in _distinct_huge_hands():
        request = json_format.ParseDict({"snapshot": hand}, pb.ListLegalActionsRequest())
        with pytest.raises(grpc.RpcError) as e:
            stub.ListLegalActions(request, timeout=0.05)
        assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert _cpu_after(server.proc.pid) < 0.5


_DETAILS_KEY = "grpc-status-details-bin"


def _deadline_form(error: grpc.RpcError) -> str:
    """Which of docs/api.md#deadline-exceeded's two forms a DEADLINE_EXCEEDED takes."""
    trailers = dict(error.trailing_metadata() or ())
    if not trailers and error.details() == "Deadline Exceeded":
        return "the client's"  # its own timer: nothing of the service's
    status = status_pb2.Status.FromString(trailers[_DETAILS_KEY])
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.reason == "DEADLINE_EXCEEDED" and trailers["x-request-id"] == "mine"
    return "the service's"


def test_a_grpc_deadline_is_one_of_the_two_forms_the_docs_name(server, stub):
    """docs/api.md#deadline-exceeded: the client's own timer (no ErrorInfo, no trailers) or
    the service's answer (its ErrorInfo, the request id in the trailers); whichever comes
    first on this machine, it is one of the two."""
    forms = []
    for hand in _distinct_huge_hands():
        request = json_format.ParseDict({"snapshot": hand}, pb.ListLegalActionsRequest())
        with pytest.raises(grpc.RpcError) as e:
            stub.ListLegalActions(request, timeout=0.05, metadata=(("x-request-id", "mine"),))
        assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        forms.append(_deadline_form(e.value))
    assert set(forms) <= {"the client's", "the service's"}


def test_rest_x_server_timeout_answers_and_stops_in_time(server, http):
    for hand in _distinct_huge_hands():
        started = time.monotonic()
        r = http.post(
            "/v1/actions:list",
            content=json.dumps({"snapshot": hand}),
            headers={"x-server-timeout": "0.05"},
        )
        answered = time.monotonic() - started
        assert r.status_code == 504, r.text[:300]
        assert r.json()["error"]["details"][0]["reason"] == "DEADLINE_EXCEEDED"
        assert answered < 1.5  # generous for a loaded machine
    assert _cpu_after(server.proc.pid) < 0.5


def _deadline_looks(monkeypatch, work) -> tuple[list[float], float, float]:
    """Run ``work`` within a far deadline, recording the process CPU time at each look at
    the clock (``checkpoint``): (the CPU times of the looks, CPU at the start, at the end).
    CPU time, not wall time: a busy machine's preemptions do not count as stretches."""
    looks: list[float] = []
    real = time.monotonic

    def watched() -> float:
        looks.append(time.process_time())
        return real()

    far = real() + 600
    # the collector off while it runs: in a full test run this process holds the heap of
    # every test before, and one full collection inside a stretch is the collector's time,
    # not the computation's (the server freezes its start-up heap: service.transport.server)
    gc.collect()
    gc.disable()
    try:
        monkeypatch.setattr(time, "monotonic", watched)
        start = time.process_time()
        with deadline.within(far):
            work()
        end = time.process_time()
        monkeypatch.setattr(time, "monotonic", real)
    finally:
        gc.enable()
    return looks, start, end


def test_legal_actions_look_at_the_deadline_throughout(monkeypatch):
    """No stretch of the huge hand's computation runs long between two checkpoints (the
    sorting of opening shapes once ran 30 % of the whole without one, the listing and the
    final sort 27 %): no stretch over a fifth of the whole, whichever build runs (the
    longest now, 5-15 %, is the final sort of the list, which cannot stop midway)."""
    snap = _huge_snapshot()
    looks, start, end = _deadline_looks(monkeypatch, lambda: engine.legal_actions(snap, None))
    assert len(looks) > 50, "the computation does not look at the deadline"
    times = [start, *looks, end]
    longest = max(b - a for a, b in zip(times[:-1], times[1:], strict=True))
    assert longest < (end - start) / 5, (longest, end - start)


def test_legal_actions_stop_at_the_deadline():
    """A deadline that passes before the list is done stops it, soon after (the budgets are
    fractions of the whole list's time here: the compiled build takes a fraction of a
    second, the pure one about a second)."""
    snap = _huge_snapshot()
    started = time.monotonic()
    engine.legal_actions(snap, None)
    whole = time.monotonic() - started
    for budget in (0.0, whole / 8, whole / 3):
        started = time.monotonic()
        with pytest.raises(deadline.Interrupted):
            with deadline.within(started + budget):
                engine.legal_actions(snap, None)
        # generous for a loaded machine
        assert time.monotonic() - started - budget < 0.4

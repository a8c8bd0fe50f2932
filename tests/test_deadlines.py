"""Deadlines stop the work, not only the answer (issue 11, findings 4 and 5): the engine's
long loops look at the caller's deadline (engine.deadline)."""

from __future__ import annotations

import json
import os
import time

import grpc
import pytest
from google.protobuf import json_format

from huge_positions import huge_hand
from samba_adjudicator import engine
from samba_adjudicator.engine import deadline
from samba_adjudicator.service import convert, pb
from service_fixtures import channel, http, server, stub  # noqa: F401

pytestmark = [pytest.mark.engine, pytest.mark.servers]
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


def test_a_grpc_deadline_stops_the_work(server, stub):
    request = json_format.ParseDict({"snapshot": huge_hand()}, pb.ListLegalActionsRequest())
    with pytest.raises(grpc.RpcError) as e:
        stub.ListLegalActions(request, timeout=0.05)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # the list takes seconds of CPU; past the deadline the server must have dropped it
    assert _cpu_after(server.proc.pid) < 0.5


def test_rest_x_server_timeout_answers_and_stops_in_time(server, http):
    body = json.dumps({"snapshot": huge_hand()})
    started = time.monotonic()
    r = http.post("/v1/actions:list", content=body, headers={"x-server-timeout": "0.05"})
    answered = time.monotonic() - started
    assert r.status_code == 504, r.text[:300]
    assert r.json()["error"]["details"][0]["reason"] == "DEADLINE_EXCEEDED"
    # the list alone takes 2.3 s of CPU on a quiet machine: generous for a loaded one
    assert answered < 1.5
    assert _cpu_after(server.proc.pid) < 0.5


def test_legal_actions_stop_soon_after_the_deadline():
    """No stretch of the huge hand's computation runs long between two checkpoints (the
    sorting of opening shapes ran 0.7 s without one): stopped well before it would end."""
    snap = _huge_snapshot()
    for budget in (0.0, 0.2, 0.5):
        started = time.monotonic()
        with pytest.raises(deadline.Interrupted):
            with deadline.within(started + budget):
                engine.legal_actions(snap, None)
        # the whole list takes 2-3 s; generous for a loaded machine
        assert time.monotonic() - started - budget < 0.4

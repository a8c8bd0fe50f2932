"""Errors are bounded: a request with a hundred thousand problems gets a short answer that
counts what it leaves out, on both transports (issue 11, findings 1 and 3)."""

from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from service_fixtures import (  # noqa: F401
    ServerProcess,
    channel,
    dealt,
    http,
    memory_mb,
    server,
    stub,
)

from samba_adjudicator.engine.model import Problem
from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import errors, pb
from samba_adjudicator.service.codec import error_bodies

pytestmark = pytest.mark.servers

SUITS = {"H": "\u2665", "D": "\u2666", "C": "\u2663", "S": "\u2660"}


def _with_symbols(snapshot: dict) -> dict:
    """The snapshot as a person might write it: 7\u2665 instead of 7H."""

    def symbols(code: str) -> str:
        return code[:-1] + SUITS[code[-1]] if code[-1] in SUITS else code

    out = json.loads(json.dumps(snapshot))
    for seat in out["seats"]:
        seat["hand"] = [symbols(c) for c in seat["hand"]]
    out["stock"] = [symbols(c) for c in out["stock"]]
    return out


def test_the_problem_list_keeps_a_hundred_and_counts_the_rest():
    found = errors.ProblemList()
    for i in range(1000):
        found.append(Problem(f"cards[{i}]", "UNKNOWN_CARD_CODE", "x" * 1000))
    err = errors.invalid_argument(found)
    listed = err.field_violations
    assert 1 <= len(listed) <= errors.MAX_LISTED_PROBLEMS
    assert (
        sum(len(p.field) + len(p.description) + len(p.reason) for p in listed)
        <= errors.MAX_LISTED_BYTES + errors.MAX_TEXT * 2 + 64
    )
    assert err.omitted == 1000 - len(listed)
    assert f"{err.omitted} not listed" in err.message
    assert errors.ProblemList(found).omitted == found.omitted == 900


def test_a_huge_replay_is_answered_briefly_with_the_count(server, http, dealt):
    snapshot = json.loads(json.dumps(dealt))
    snapshot["seats"][0]["hand"] = ["ZZ"] * 120_000
    r = http.post("/v1/deals:replay", content=json.dumps({"snapshot": snapshot, "actions": []}))
    assert r.status_code == 400, r.text[:300]
    assert len(r.content) < 16_384
    info, bad = r.json()["error"]["details"]
    listed = bad["fieldViolations"]
    assert listed[0] == {
        "field": "snapshot.seats[0].hand[0]",
        "description": listed[0]["description"],
        "reason": "UNKNOWN_CARD_CODE",
    }
    assert int(info["metadata"]["omittedProblems"]) + len(listed) >= 120_000
    assert "not listed" in r.json()["error"]["message"]
    assert memory_mb(server.proc.pid) < 200


def test_a_default_grpc_client_gets_invalid_argument_for_many_problems(stub, dealt):
    request = json_format.ParseDict(
        {"snapshot": _with_symbols(dealt), "provisional": True}, pb.ScoreDealRequest()
    )
    with pytest.raises(grpc.RpcError) as e:
        stub.ScoreDeal(request, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value
    status = rpc_status.from_call(e.value)
    bad = error_details_pb2.BadRequest()
    assert status.details[1].Unpack(bad)
    assert 1 <= len(bad.field_violations) <= errors.MAX_LISTED_PROBLEMS
    assert bad.field_violations[0].reason == "UNKNOWN_CARD_CODE"


def test_both_transports_list_the_same_problems(http, stub, dealt):
    body = {"snapshot": _with_symbols(dealt), "provisional": True}
    rest = http.post("/v1/deals:score", content=json.dumps(body)).json()["error"]
    with pytest.raises(grpc.RpcError) as e:
        stub.ScoreDeal(json_format.ParseDict(body, pb.ScoreDealRequest()), timeout=30)
    status = rpc_status.from_call(e.value)
    bad = error_details_pb2.BadRequest()
    status.details[1].Unpack(bad)
    assert rest["message"] == status.message
    assert rest["details"][1]["fieldViolations"] == [
        {"field": v.field, "description": v.description, "reason": v.reason}
        for v in bad.field_violations
    ]


@pytest.mark.parametrize("length", [5_000, 20_000])
def test_an_unknown_profile_of_thousands_of_characters_is_not_found(stub, http, length):
    """Issue 20, case 5: the whole name in the message and the details made a status a
    default gRPC client refuses (RESOURCE_EXHAUSTED)."""
    profile = "x" * length
    with pytest.raises(grpc.RpcError) as e:
        stub.GetRuleset(pb.GetRulesetRequest(profile=profile), timeout=10)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND, e.value
    status = rpc_status.from_call(e.value)
    assert len(status.SerializeToString()) < 2048
    assert f"({length} characters)" in status.message
    r = http.get(f"/v1/rulesets/{'y' * 5_000}")
    assert r.status_code == 404, r.text[:200]
    assert len(r.content) < 2048
    assert r.json()["error"]["details"][0]["reason"] == "UNKNOWN_PROFILE"


def test_echoed_values_and_messages_are_cut_short():
    assert errors.echo("classic") == "'classic'"
    cut = errors.echo("m" * 10_000)
    assert cut.startswith("'" + "m" * errors.MAX_ECHO + "'") and "10000 characters" in cut
    err = errors.ApiError("NOT_FOUND", "X", "y" * 100_000)
    assert len(err.message) == errors.MAX_MESSAGE
    assert len(error_bodies.grpc_status(err, "r").SerializeToString()) < 2 * errors.MAX_MESSAGE


def test_a_million_view_seats_cost_a_worker_no_memory(dealt):
    """Issue 47, item 2: one 1 MB gRPC ApplyAction listing a million ``view_seats`` took a
    worker's peak memory up by 539 MB (a problem for each entry); now it is one problem,
    found before any entry is looked at. A fresh server, so that its peak is this call's."""
    request = json_format.ParseDict(
        {"snapshot": dealt, "action": {"seat": dealt["turn"]["seat"], "drawStock": {}}},
        pb.ApplyActionRequest(include_views=True),
    )
    request.view_seats.extend([0] * 1_000_000)
    assert request.ByteSize() <= 1024 * 1024  # within the default limit
    served = ServerProcess()
    try:
        with grpc.insecure_channel(served.grpc_target) as ch:
            stub = adjudicator_pb2_grpc.AdjudicatorStub(ch)
            stub.ApplyAction(
                pb.ApplyActionRequest(snapshot=request.snapshot, action=request.action), timeout=60
            )
            before = memory_mb(served.proc.pid)
            with pytest.raises(grpc.RpcError) as e:
                stub.ApplyAction(request, timeout=60)
            grown = memory_mb(served.proc.pid) - before
    finally:
        served.close()
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value
    bad = error_details_pb2.BadRequest()
    assert rpc_status.from_call(e.value).details[1].Unpack(bad)
    assert [(v.field, v.reason) for v in bad.field_violations] == [("viewSeats", "OUT_OF_RANGE")]
    assert grown < 100, f"the call took the worker's peak memory up by {grown:.0f} MB"

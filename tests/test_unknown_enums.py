"""An enum value the schema does not define is INVALID_ARGUMENT with its field path on
both transports (issue 47, item 5): gRPC took ``reveal: 7`` (every hand opened) and
``computer.level: 99`` (played as BASIC), and a snapshot's ``turn.phase: 42`` or an
addition's ``end: 9`` answered INTERNAL, while REST refused them all. Every enum field of
every request, found from the descriptors, is tried with a number its enum lacks: gRPC
lists the problem REST lists, at the same path, and the answer is never anything else."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor as _d
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from service_fixtures import (  # noqa: F401
    channel,
    dealt,
    http,
    rest_call,
    sample_requests,
    server,
    stub,
)

from samba_adjudicator.engine.problems import InvalidInput
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.descriptors import F, is_map
from samba_adjudicator.service.pipeline.api import METHODS, Adjudicator

pytestmark = pytest.mark.servers


def enum_paths(desc: _d.Descriptor, path: tuple = (), seen: frozenset = frozenset()):
    """Every enum field below ``desc`` as the proto field names that lead to it."""
    for f in desc.fields:
        if f.type == F.TYPE_ENUM:
            yield (*path, f.name)
        elif f.type == F.TYPE_MESSAGE and not is_map(f) and f.message_type not in seen:
            yield from enum_paths(f.message_type, (*path, f.name), seen | {desc})


CASES = [
    (method, ".".join(path))
    for method, (request_type, _) in METHODS.items()
    for path in enum_paths(request_type.DESCRIPTOR)
]


def with_value(msg, path: list[str], number: int) -> str:
    """Set the enum at ``path`` (a repeated message: its first item, added when there is
    none) to ``number``; its JSON path."""
    json_path = []
    for name in path[:-1]:
        f = msg.DESCRIPTOR.fields_by_name[name]
        if f.is_repeated:
            items = getattr(msg, name)
            msg = items[0] if items else items.add()
            json_path.append(f"{f.json_name}[0]")
        else:
            msg = getattr(msg, name)
            json_path.append(f.json_name)
    f = msg.DESCRIPTOR.fields_by_name[path[-1]]
    if f.is_repeated:
        getattr(msg, f.name).append(number)
        json_path.append(f"{f.json_name}[{len(getattr(msg, f.name)) - 1}]")
    else:
        setattr(msg, f.name, number)
        json_path.append(f.json_name)
    return ".".join(json_path)


def undefined(method: str, path: str) -> int:
    f = None
    desc = METHODS[method][0].DESCRIPTOR
    for name in path.split("."):
        f = desc.fields_by_name[name]
        desc = f.message_type
    return max(v.number for v in f.enum_type.values) + 1


def grpc_problems(stub, method: str, msg) -> list[tuple[str, str, str]]:  # noqa: F811
    with pytest.raises(grpc.RpcError) as e:
        getattr(stub, method)(msg, timeout=60)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value
    bad = error_details_pb2.BadRequest()
    assert rpc_status.from_call(e.value).details[1].Unpack(bad)
    return [(v.field, v.reason, v.description) for v in bad.field_violations]


def rest_problems(http, method: str, msg) -> list[tuple[str, str, str]]:  # noqa: F811
    body = json_format.MessageToDict(msg)
    r = rest_call(http, method, body)
    assert r.status_code == 400, r.text[:300]
    bad = r.json()["error"]["details"][1]["fieldViolations"]
    return [(v["field"], v["reason"], v["description"]) for v in bad]


def maps_of_enums(desc: _d.Descriptor, seen: frozenset = frozenset()):
    for f in desc.fields:
        if is_map(f) and f.message_type.fields_by_name["value"].type == F.TYPE_ENUM:
            yield f.full_name
        elif f.type == F.TYPE_MESSAGE and f.message_type not in seen:
            yield from maps_of_enums(f.message_type, seen | {desc})


def test_no_request_has_a_map_of_enums():
    """service/codec/enums.py walks no map: a request's map of enum values would need it."""
    assert [m for t, _ in METHODS.values() for m in maps_of_enums(t.DESCRIPTOR)] == []


def test_every_enum_of_every_request_is_tried():
    paths = {p for _, p in CASES}
    for wanted in ("reveal", "level", "computer.level", "snapshot.turn.phase"):
        assert wanted in paths, wanted
    assert any(p.endswith("additions.end") for p in paths)
    assert any(p.startswith("ruleset.overrides.") for p in paths)


@pytest.mark.parametrize(("method", "path"), CASES)
def test_an_undefined_enum_value_is_refused_at_its_path(http, stub, sample_requests, method, path):
    msg = json_format.ParseDict(sample_requests[method], METHODS[method][0]())
    number = undefined(method, path)
    at = with_value(msg, path.split("."), number)
    over_grpc = grpc_problems(stub, method, msg)
    assert any(
        field == at and reason == "OUT_OF_RANGE" and description.startswith(f"{number} is not")
        for field, reason, description in over_grpc
    ), (at, over_grpc)
    assert rest_problems(http, method, msg) == over_grpc


def test_the_issues_cases_on_grpc(stub, dealt):  # noqa: F811
    snapshot = json_format.ParseDict(dealt, pb.Snapshot())
    seat = snapshot.turn.seat
    view = pb.GetPlayerViewRequest(snapshot=snapshot, seat=0, reveal=7)
    assert grpc_problems(stub, "GetPlayerView", view)[0][:2] == ("reveal", "OUT_OF_RANGE")
    for level in (99, -5):
        move = pb.ApplyActionRequest(
            snapshot=snapshot, computer=pb.ComputerMove(seat=seat, level=level)
        )
        assert grpc_problems(stub, "ApplyAction", move)[0][:2] == ("computer.level", "OUT_OF_RANGE")
        ask = pb.SuggestActionRequest(snapshot=snapshot, seat=seat, level=level)
        assert grpc_problems(stub, "SuggestAction", ask)[0][:2] == ("level", "OUT_OF_RANGE")


def test_a_message_built_in_process_is_refused_and_left_as_it_was(dealt):  # noqa: F811
    request = pb.GetPlayerViewRequest(
        snapshot=json_format.ParseDict(dealt, pb.Snapshot()), reveal=7
    )
    request.snapshot.turn.phase = 42
    before = request.SerializeToString()
    with pytest.raises(InvalidInput) as e:
        Adjudicator().call("GetPlayerView", request)
    assert [p.field for p in e.value.problems] == ["reveal", "snapshot.turn.phase"]
    assert request.SerializeToString() == before

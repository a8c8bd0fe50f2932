"""The snapshot's one owner (service/pipeline/loading.py): a position the service produces
is written once and handed on as written; nothing parses it back or serializes it again
for a key, and the next call finds it under that key.

The protobuf and orjson functions are wrapped where they are (the class's and the module's
attribute, which the compiled build looks up too) and counted within the transports' own
answer (gRPC's ``_call``, REST's route), so a parse or a second writing on the way out shows.
"""

from __future__ import annotations

import base64
import json
from collections import Counter

import orjson
import pytest

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import wire
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.pipeline.call import received
from samba_adjudicator.service.pipeline.runtime import Runtime
from samba_adjudicator.service.transport import grpc_server, rest

KEYS = "k1:" + base64.b64encode(b"k" * 32).decode()


@pytest.fixture
def counted(monkeypatch) -> Counter:
    """Counts a Snapshot parsed from bytes or serialized, and a snapshot's JSON object
    written by orjson (as itself, or inside an answer's body)."""
    seen: Counter = Counter()

    def counting(name, real):
        def wrapper(*args, **kwargs):
            seen[name] += 1
            return real(*args, **kwargs)

        return wrapper

    for name in ("FromString", "ParseFromString", "MergeFromString", "SerializeToString"):
        monkeypatch.setattr(pb.Snapshot, name, counting(name, getattr(pb.Snapshot, name)))
    dumps = orjson.dumps

    def json_writes(obj, *args, **kwargs):
        if isinstance(obj, dict) and ("seats" in obj or _answer_with_snapshot(obj)):
            seen["snapshot written as JSON"] += 1
        return dumps(obj, *args, **kwargs)

    monkeypatch.setattr(orjson, "dumps", json_writes)
    return seen


def _answer_with_snapshot(obj: dict) -> bool:
    return "legal" in obj and isinstance(obj.get("snapshot"), dict)


def _deal(runtime: Runtime) -> bytes:
    """A dealt position's bytes as the gRPC answer carries them."""
    out, status = grpc_server._call(
        runtime,
        received(
            "Deal", pb.DealRequest(players=4, seed="one-owner").SerializeToString(), "grpc", "r"
        ),
    )
    assert status is None
    return wire.split_field(out, pb.DealResponse.DESCRIPTOR.fields_by_name["snapshot"].number)[0]


@pytest.mark.parametrize("signed", [False, True])
def test_grpc_sends_the_snapshots_as_written_and_the_next_call_finds_them(counted, signed):
    adj = Adjudicator(signer=Signer.parse(KEYS) if signed else None)
    runtime = Runtime(None, adj)
    dealt = _deal(runtime)
    seat = pb.Snapshot.FromString(dealt).turn.seat
    apply = pb.ApplyActionRequest(
        snapshot=pb.Snapshot.FromString(dealt),
        action=pb.Action(seat=seat, draw_stock=pb.DrawStock()),
        include_views=True,
    ).SerializeToString()
    counted.clear()
    out, status = grpc_server._call(runtime, received("ApplyAction", apply, "grpc", "r"))
    assert status is None and counted["snapshot written as JSON"] == 0
    # the answer and its five views (four seats, a spectator): none parsed, none serialized
    assert +counted == Counter(), counted
    answer = pb.ApplyActionResponse.FromString(out)
    assert len(answer.views) == 4 and answer.HasField("spectator_view")
    assert (answer.snapshot.signature != "") == signed
    produced = wire.split_field(out, 3)[0]
    assert pb.Snapshot.FromString(produced) == answer.snapshot
    assert adj.snapshots.cache.get(("pb", produced)) is not None
    counted.clear()
    validate = pb.ValidateActionRequest(
        snapshot=answer.snapshot, action=pb.Action(seat=answer.snapshot.turn.seat, draw_stock={})
    ).SerializeToString()
    kept = set(adj.snapshots.cache.items)
    out, status = grpc_server._call(runtime, received("ValidateAction", validate, "grpc", "r"))
    assert status is None and +counted == Counter(), counted
    assert set(adj.snapshots.cache.items) == kept  # found, nothing new kept


@pytest.mark.parametrize("signed", [False, True])
def test_rest_writes_the_snapshot_as_json_once_for_its_key_and_body(counted, signed):
    adj = Adjudicator(signer=Signer.parse(KEYS) if signed else None)
    runtime = Runtime(None, adj)
    routes = rest._Calls(runtime, 1 << 20)
    deal = routes.answer(received("Deal", b'{"players": 4, "seed": "one-owner"}', "rest", "r"))
    snapshot = json.loads(deal.body)["snapshot"]
    body = json.dumps(
        {"snapshot": snapshot, "action": {"seat": snapshot["turn"]["seat"], "drawStock": {}}}
    )
    counted.clear()
    applied = routes.answer(received("ApplyAction", body.encode(), "rest", "r"))
    assert applied.status_code == 200
    # the request's key (its snapshot written compactly), then the answer's snapshot once:
    # its key and the body's bytes; the message is never serialized for a key
    assert counted["snapshot written as JSON"] == 2, counted
    assert counted["SerializeToString"] == 0 and counted["FromString"] == 0, counted
    produced = json.loads(applied.body)["snapshot"]
    assert adj.snapshots.received(produced).loaded is not None
    validate = json.dumps(
        {"snapshot": produced, "action": {"seat": produced["turn"]["seat"], "drawStock": {}}}
    )
    kept = set(adj.snapshots.cache.items)
    answer = routes.answer(received("ValidateAction", validate.encode(), "rest", "r"))
    assert answer.status_code == 200 and set(adj.snapshots.cache.items) == kept

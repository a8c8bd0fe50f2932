"""A snapshot sent again is not parsed again (service.pipeline.decoding and loading): the
answers on that fast path must be exactly the answers of the ordinary path, on both encodings."""

from __future__ import annotations

import base64
import json

import pytest
from builders import load_snapshot, make_snapshot
from hypothesis import given, settings
from hypothesis import strategies as st
from json_reference import parse_request
from prometheus_client import REGISTRY

from samba_adjudicator.engine import model as m
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import convert, jsonio, wire
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.ops.config import Settings
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.pipeline.call import Call, received
from samba_adjudicator.service.pipeline.decoding import read
from samba_adjudicator.service.pipeline.runtime import Runtime
from samba_adjudicator.service.transport import cli, grpc_server


def position() -> m.Snapshot:
    """Seat 0 in PLAY with melds to make and a meld to add to."""
    return make_snapshot(
        "pagat",
        4,
        hands={0: "QH QS QD 7H 8H 9H 10H 5C 5D 2S 4C 6C KS AD", 1: "4D 4S", 2: "JK", 3: "KC KD"},
        discard="9C",
        turn_seat=0,
        phase=m.Phase.PLAY,
        took_pile=False,
    )


def pb_requests(snap: pb.Snapshot) -> list[tuple[str, object]]:
    """One request of every snapshot-bearing method, some legal, some not, some invalid."""
    meld = pb.Action(seat=0)
    meld.meld.new_melds.add(cards=["QH", "QS", "QD"])
    bad_card = pb.Action(seat=0)
    bad_card.meld.new_melds.add(cards=["QH", "ZZ", "QD"])
    out_of_turn = pb.Action(seat=2)
    out_of_turn.discard.card = "JK"
    return [
        ("ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=meld)),
        ("ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=out_of_turn)),
        ("ValidateAction", pb.ValidateActionRequest(snapshot=snap, action=bad_card)),
        ("ValidateAction", pb.ValidateActionRequest(snapshot=snap)),  # action missing
        ("ApplyAction", pb.ApplyActionRequest(snapshot=snap, action=meld)),
        ("ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, page_size=5)),
        ("ListLegalActions", pb.ListLegalActionsRequest(snapshot=snap, seat=9)),
        ("ScoreDeal", pb.ScoreDealRequest(snapshot=snap, provisional=True)),
        ("GetPlayerView", pb.GetPlayerViewRequest(snapshot=snap, seat=1)),
        ("ReplayDeal", pb.ReplayDealRequest(snapshot=snap, actions=[meld, out_of_turn])),
        ("CheckMeld", pb.CheckMeldRequest(snapshot=snap, seat=0, cards=["7H", "8H", "9H"])),
        ("CheckMeld", pb.CheckMeldRequest(snapshot=snap, seat=0, meld_id="m99", cards=["7H"])),
    ]


def grpc_answer(runtime: Runtime, method: str, data: bytes):
    """What the gRPC transport answers: (response bytes, None) or (None, rich status)."""
    out, status = grpc_server._call(runtime, received(method, data, "grpc", "rid-1"))
    if status is not None:
        status = (status.code, status.details, tuple(status.trailing_metadata))
    return out, status


def test_grpc_second_sending_answers_like_the_first():
    runtime = Runtime(None, Adjudicator())
    snap = convert.snapshot_to_proto(position())
    for method, request in pb_requests(snap):
        data = request.SerializeToString()
        first = grpc_answer(runtime, method, data)
        source = read(Call(method, data), runtime.adjudicator.snapshots).snapshot
        assert source is not None and source.loaded is not None, method  # a real hit
        assert grpc_answer(runtime, method, data) == first, method
        assert grpc_answer(Runtime(None, Adjudicator()), method, data) == first, method


def test_json_second_sending_answers_like_the_first():
    adj = Adjudicator()
    snap = convert.snapshot_to_proto(position())
    for method, request in pb_requests(snap):
        body = json.dumps(jsonio.to_dict(request)).encode()
        first = cli.run(method, body, adjudicator=adj, request_id="r")
        source = read(Call(method, body, json=True), adj.snapshots).snapshot
        assert source is not None and source.loaded is not None, method
        assert cli.run(method, body, adjudicator=adj, request_id="r") == first, method
        assert cli.run(method, body, adjudicator=Adjudicator(), request_id="r") == first


def test_a_snapshot_with_problems_is_never_remembered():
    adj = Adjudicator()
    broken = jsonio.to_dict(convert.snapshot_to_proto(position()))
    broken["seats"][0]["hand"][0] = "ZZ"
    body = json.dumps({"snapshot": broken, "action": {"seat": 0, "discard": {"card": "KS"}}})
    for _ in range(2):
        status, answer = cli.run("ValidateAction", body.encode(), adjudicator=adj)
        assert status == cli.EXIT_INVALID
        fields = [
            v["field"] for d in answer["error"]["details"] for v in d.get("fieldViolations", ())
        ]
        assert "snapshot.seats[0].hand[0]" in fields
    assert not adj.snapshots.cache.items


def test_page_tokens_work_across_encodings_and_the_fast_path():
    runtime = Runtime(None, Adjudicator())
    snap = convert.snapshot_to_proto(position())
    req = pb.ListLegalActionsRequest(snapshot=snap, page_size=4)
    out, status = grpc_answer(runtime, "ListLegalActions", req.SerializeToString())
    assert status is None
    token = pb.ListLegalActionsResponse.FromString(out).next_page_token
    # the token from a first (parsed) sending, used on the fast path and over JSON
    req.page_token = token
    out2, status = grpc_answer(runtime, "ListLegalActions", req.SerializeToString())
    assert status is None
    body = json.dumps(jsonio.to_dict(req)).encode()
    code, answer = cli.run("ListLegalActions", body, adjudicator=Adjudicator())
    assert code == cli.EXIT_OK
    assert jsonio.to_dict(pb.ListLegalActionsResponse.FromString(out2)) == answer


def test_signed_snapshots_on_the_fast_path():
    signer = Signer.parse(f"k1:{base64.b64encode(b'k' * 32).decode()}")
    runtime = Runtime(None, Adjudicator(signer=signer))
    snap = convert.snapshot_to_proto(position())
    signer.sign(snap)
    discard = pb.Action(seat=0)
    discard.discard.card = "KS"
    good = pb.ValidateActionRequest(snapshot=snap, action=discard).SerializeToString()
    assert grpc_answer(runtime, "ValidateAction", good)[1] is None
    assert grpc_answer(runtime, "ValidateAction", good)[1] is None  # the fast path
    tampered = pb.Snapshot()
    tampered.CopyFrom(snap)
    tampered.ply += 1  # still a consistent position, no longer the signed one
    bad = pb.ValidateActionRequest(snapshot=tampered, action=discard).SerializeToString()
    for _ in range(2):
        _, status = grpc_answer(runtime, "ValidateAction", bad)
        assert status is not None and "SNAPSHOT_SIGNATURE_INVALID" in repr(status[2])


def test_metrics_profile_label_is_the_same_on_the_fast_path():
    runtime = Runtime(None, Adjudicator())
    discard = pb.Action(seat=0)
    discard.discard.card = "KS"
    data = pb.ValidateActionRequest(
        snapshot=convert.snapshot_to_proto(position()), action=discard
    ).SerializeToString()
    labels = {
        "method": "ValidateAction",
        "transport": "grpc",
        "outcome": "legal",
        "profile": "pagat",
    }
    before = REGISTRY.get_sample_value("samba_requests_total", labels) or 0
    grpc_answer(runtime, "ValidateAction", data)
    grpc_answer(runtime, "ValidateAction", data)
    assert REGISTRY.get_sample_value("samba_requests_total", labels) == before + 2


# -- service.codec.wire ---------------------------------------------------------------------------


def sample_request() -> bytes:
    action = pb.Action(seat=0)
    action.discard.card = "KS"
    return pb.ValidateActionRequest(
        snapshot=convert.snapshot_to_proto(position()), action=action
    ).SerializeToString()


def test_split_field_finds_the_snapshot():
    data = sample_request()
    payload, rest = wire.split_field(data, 1)
    whole = pb.ValidateActionRequest.FromString(data)
    assert pb.Snapshot.FromString(payload) == whole.snapshot
    without = pb.ValidateActionRequest.FromString(rest)
    assert not without.HasField("snapshot") and without.action == whole.action


def test_split_field_declines_what_protobuf_would_merge_or_reject():
    data = sample_request()
    payload, _ = wire.split_field(data, 1)
    twice = data + b"\x0a" + bytes([len(b"\x60\x05")]) + b"\x60\x05"  # field 1 again: merged
    assert wire.split_field(twice, 1) is None
    assert wire.split_field(data[:-1], 1) is None  # truncated
    assert wire.split_field(b"\x18\x01" + data, 1)[0] == payload  # other fields: skipped
    assert wire.split_field(b"\x08\x01" + data, 1) is None  # field 1 as a varint
    assert wire.split_field(b"\x0b\x0c", 1) is None  # a group
    assert wire.split_field(b"\x12\x00", 1) is None  # no field 1 at all
    assert wire.split_field(b"\x0a\x00", 1) == (b"", b"")
    assert wire.split_field(b"\x0a\x80", 1) is None  # unfinished length varint


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.integers(min_value=0, max_value=1200))
def test_split_field_agrees_with_protobuf(noise, cut):
    """Whatever bytes: when split_field answers, parsing the rest plus the payload gives the
    message protobuf parses from the whole; it never raises."""
    data = sample_request()
    for candidate in (noise, data[:cut] + noise, noise + data, data + noise):
        split = wire.split_field(candidate, 1)
        if split is None:
            continue
        payload, rest = split
        try:
            whole = pb.ValidateActionRequest.FromString(candidate)
        except Exception:  # noqa: BLE001 - protobuf refuses it: the rest must be refused too
            with pytest.raises(Exception):  # noqa: B017 - whatever protobuf raised above
                pb.ValidateActionRequest.FromString(rest)
                pb.Snapshot.FromString(payload)
            continue
        rebuilt = pb.ValidateActionRequest.FromString(rest)
        rebuilt.snapshot.CopyFrom(pb.Snapshot.FromString(payload))
        assert rebuilt == whole


# -- jsonio.loads: orjson first, the json module as the reference ---------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"seed": 123456789012345678901234567890}',  # past 64 bits: kept exact
        '{"seed": -9223372036854775809}',
        '{"a": "\\ud800"}',  # lone surrogate: json accepts it
        '{"a": [1.5, -0, 1e2]}',
    ],
)
def test_loads_gives_what_json_gives(text):
    # a key given twice is where they part on purpose: json keeps the last copy, loads
    # refuses the text (issue 56; tests/service/codec/test_json_text.py)
    assert jsonio.loads(text.encode()) == json.loads(text)
    assert jsonio.loads(text) == json.loads(text)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": NaN}',
        b'{"a": Infinity}',
        b"\xef\xbb\xbf{}",
        b'{"a": "\xff"}',
        b"[" * 100000,
        b'{"a": 1',
    ],
)
def test_loads_refuses_what_json_refuses(raw):
    from samba_adjudicator.engine.model import InvalidInput

    with pytest.raises(InvalidInput) as e:
        jsonio.loads(raw)
    assert [p.reason for p in e.value.problems] == ["MALFORMED_JSON"]


def test_long_integer_out_of_range_is_reported_exactly():
    with pytest.raises(Exception) as e:
        parse_request(
            '{"players": 4, "seed": "s", "dealer": 123456789012345678901}', pb.DealRequest
        )
    assert any(p.field == "dealer" for p in e.value.problems)


def test_in_process_calls_with_whole_messages_use_the_same_cache():
    """A call without a source (a library user, the tests) keys the snapshot by its
    deterministic bytes: a second call answers the same from the loaded snapshot."""
    from samba_adjudicator.service.base.errors import ApiError

    snap = convert.snapshot_to_proto(position())

    def answer(adj, method, request):
        try:
            return Runtime(None, adj, count_calls=False).call(method, request)
        except ApiError as e:
            return (e.code, e.reason, e.message, tuple(map(repr, e.field_violations)))

    for method, request in pb_requests(snap):
        adj = Adjudicator()
        first = answer(adj, method, request)
        key = ("pb", request.snapshot.SerializeToString(deterministic=True))
        if adj.snapshots.cache.get(key) is not None:
            assert answer(adj, method, request) == first, method
        assert answer(Adjudicator(), method, request) == first, method
    adj = Adjudicator()
    answer(adj, "ScoreDeal", pb.ScoreDealRequest(snapshot=snap))
    assert adj.snapshots.cache.get(("pb", snap.SerializeToString(deterministic=True))) is not None


# -- positions the service produced (SnapshotLoader.remember) ---------------------------------


def same_snapshot(a: m.Snapshot, b: m.Snapshot) -> bool:
    """Equal in every field, the ones left out of == included."""
    return (
        a == b
        and a.signature == b.signature
        and a.ruleset_ref.profile == b.ruleset_ref.profile
        and a.ruleset_ref.version == b.ruleset_ref.version
        and dict(a.ruleset_ref.overrides) == dict(b.ruleset_ref.overrides)
    )


def answered_snapshot(method: str, out: bytes) -> bytes:
    """The snapshot's bytes exactly as the gRPC answer carries them."""
    number = pb.SERVICE.methods_by_name[method].output_type.fields_by_name["snapshot"].number
    return wire.split_field(out, number)[0]


@pytest.mark.parametrize(
    "spec,players,signed",
    [
        ("classic", 4, False),
        ("classic", 6, False),
        ("pagat", 2, True),
        ("pagat", 3, False),
        ("spanish", 4, False),
        ("bolivia", 4, False),
        ("official", 4, False),
        ("canasta", 4, False),
        ("classic+open", 4, False),
        ("classic+uruguayan", 2, True),
    ],
)
def test_produced_positions_are_remembered_exactly(spec, players, signed):
    """Deal, then apply listed actions: each answered snapshot is kept as loaded, equal in
    every field to loading its bytes, and the next calls on it answer like a fresh service."""
    import random

    signer = Signer.parse(f"k1:{base64.b64encode(b'k' * 32).decode()}") if signed else None
    runtime = Runtime(None, Adjudicator(signer=signer))
    adj = runtime.adjudicator
    rng = random.Random(f"{spec}/{players}")
    deal = pb.DealRequest(
        players=players, seed=f"remember-{spec}", ruleset=pb.RulesetRef(profile=spec)
    )
    out, status = grpc_answer(runtime, "Deal", deal.SerializeToString())
    assert status is None
    snapshot_bytes, method = answered_snapshot("Deal", out), "Deal"
    for _ply in range(40):
        kept = adj.snapshots.cache.get(("pb", snapshot_bytes))
        assert kept is not None, method
        loaded = load_snapshot(pb.Snapshot.FromString(snapshot_bytes))
        assert same_snapshot(kept, loaded), method
        snap_msg = pb.Snapshot.FromString(snapshot_bytes)
        listing = pb.ListLegalActionsRequest(snapshot=snap_msg, page_size=1000)
        calls = [
            ("ListLegalActions", listing),
            ("ScoreDeal", pb.ScoreDealRequest(snapshot=snap_msg, provisional=True)),
        ]
        fresh = Runtime(None, Adjudicator(signer=signer))
        for name, request in calls:
            data = request.SerializeToString()
            assert grpc_answer(runtime, name, data) == grpc_answer(fresh, name, data), name
        out, _ = grpc_answer(runtime, "ListLegalActions", listing.SerializeToString())
        actions = pb.ListLegalActionsResponse.FromString(out).actions
        if not actions:
            break
        action = actions[rng.randrange(len(actions))]
        apply = pb.ApplyActionRequest(snapshot=snap_msg, action=action).SerializeToString()
        out, status = grpc_answer(runtime, "ApplyAction", apply)
        assert status is None
        assert grpc_answer(fresh, "ApplyAction", apply) == (out, None)
        snapshot_bytes, method = answered_snapshot("ApplyAction", out), "ApplyAction"


def test_produced_positions_are_remembered_for_json_clients():
    """REST writes the answer's snapshot as JSON once, the key it is kept under and the
    body's bytes: the object sent back is not walked again, and answers as a fresh service
    would."""
    adj = Adjudicator()
    runtime = Runtime(Settings(), adj)
    deal = json.dumps({"players": 4, "seed": "json-remember"}).encode()
    answer = runtime.invoke(received("Deal", deal, "rest", "r"))
    rendered = json.loads(answer.json())
    body = json.dumps(
        {
            "snapshot": rendered["snapshot"],
            "action": {"seat": rendered["snapshot"]["turn"]["seat"], "drawStock": {}},
        }
    ).encode()
    source = read(Call("ApplyAction", body, json=True), adj.snapshots).snapshot
    assert source is not None and source.loaded is not None
    loaded = load_snapshot(answer.message.snapshot)
    assert same_snapshot(source.loaded, loaded)
    assert cli.run("ApplyAction", body, adjudicator=adj, request_id="r") == cli.run(
        "ApplyAction", body, adjudicator=Adjudicator(), request_id="r"
    )


def test_a_cache_of_size_zero_keeps_nothing_and_answers_the_same():
    runtime = Runtime(None, Adjudicator(cache_size=0))
    snap = convert.snapshot_to_proto(position())
    for method, request in pb_requests(snap):
        data = request.SerializeToString()
        first = grpc_answer(runtime, method, data)
        assert grpc_answer(runtime, method, data) == first
        assert grpc_answer(Runtime(None, Adjudicator()), method, data) == first
    assert not runtime.adjudicator.snapshots.cache.items

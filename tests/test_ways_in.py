"""Every way a snapshot comes in answers alike: the guard of docs/api.md#trust and of
docs/service.md "A position sent again is not parsed again".

A snapshot reaches the service as protobuf bytes (gRPC), as proto3 JSON written the way the
service writes it (REST, lowerCamelCase, every field), or as any other proto3 JSON (REST,
snake_case names). Each single-field edit of played positions of every profile and table
size (each count, flag, number, enum, card and meld field changed or removed; list items
removed, duplicated and reordered; unknown fields; object keys reordered) is sent through
every way in, with signing off and on, to every method that takes a snapshot, twice (the
second call may be answered from the loaded-snapshot cache). The answers must be identical:
status, reason, message, field paths, and answer bytes. A JSON key given twice, which only
JSON text can carry, is refused at its path on both of its ways in.

The calls go through the transports' own answer functions (``rest._Calls.answer``,
``grpc_server._call``) of one real Runtime per signing mode, without the sockets;
``test_an_edited_count_is_refused_by_the_real_servers`` sends the first edit found by a user
(a signed snapshot's ``stockCount``) to real servers on both transports.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import orjson
import pytest
from google.protobuf import json_format, message_factory
from google.rpc import error_details_pb2, status_pb2
from played_endings import asked_and_passed, played, went_out
from service_fixtures import ServerProcess, rest_call

from samba_adjudicator.engine import legal_actions
from samba_adjudicator.engine.model import Phase
from samba_adjudicator.engine.ruleset import PROFILES, resolve
from samba_adjudicator.schema.v1 import adjudicator_pb2_grpc
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import GRPC_CODE, HTTP_STATUS
from samba_adjudicator.service.codec import jsonio
from samba_adjudicator.service.codec.actions import action_to_proto
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.pipeline.api import METHODS, Adjudicator
from samba_adjudicator.service.pipeline.call import received
from samba_adjudicator.service.pipeline.runtime import Runtime
from samba_adjudicator.service.transport import grpc_server, rest

KEY = b"0123456789abcdef0123456789abcdef"
RID = "ways-in"
#: The methods whose request carries a snapshot (Deal carries one as ``previous``,
#: VerifyDeal as ``deal``).
SNAPSHOT_METHODS = sorted(
    name
    for name, (request_type, _) in METHODS.items()
    if {"snapshot", "previous", "deal"} & set(request_type.DESCRIPTOR.fields_by_name)
)
_CODE_OF_STATUS = {v: k for k, v in GRPC_CODE.items()}


# -- positions ---------------------------------------------------------------------------


def _positions() -> list:
    """One mid-deal position per profile and table size, and a few endings (a result, a
    premium, penalties)."""
    out = []
    for profile in PROFILES:
        for players in resolve(profile).players_allowed:
            deal = played(profile, players, "ways-in", 40)
            out.append(deal[len(deal) // 2])
    out += [went_out("classic"), went_out("spanish", with_partner=True), asked_and_passed()]
    return out


POSITIONS = _positions()


# -- requests ----------------------------------------------------------------------------


def _first_action(snap) -> dict:
    if snap.turn.phase is Phase.OVER:
        return {"seat": 0, "drawStock": {}}
    actions, _ = legal_actions(snap)
    return json_format.MessageToDict(action_to_proto(actions[0]))


def requests_of(method: str, snapshot: Any, action: dict) -> dict:
    """A request of ``method`` carrying ``snapshot`` (any JSON value)."""
    if method == "Deal":
        return {"players": 4, "seed": "ways-in", "previous": snapshot}
    if method == "VerifyDeal":
        return {"deal": snapshot, "seed": "ways-in"}
    extra: dict[str, Any] = {
        "ValidateAction": {"action": action},
        "ApplyAction": {"action": action, "includeViews": True},
        "ListLegalActions": {"pageSize": 3},
        "ReplayDeal": {"actions": [action]},
        "SuggestAction": {"level": "BASIC", "seed": "s"},
        "CheckMeld": {"cards": ["5H", "5S", "5D"], "seat": 0},
        "GetPlayerView": {"seat": 0},
        "ScoreDeal": {"provisional": True},
    }[method]
    return {"snapshot": snapshot, **extra}


# -- edits -------------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")
#: enum fields of a snapshot: another member's name to put in place of the one given
_ENUM_SWAPS = {
    "phase": "DISCARD",
    "goOut": "ASKED",
    "kind": "RUN",
    "status": "CANASTA_CLEAN",
    "reason": "STOCK_EXHAUSTED",
}
_CARD = re.compile(r"^(10|[2-9JQKA])[HSDC]$|^(RJ|BJ)$")


def snake(value: Any) -> Any:
    """The same JSON with snake_case names: another proto3 JSON form of the same message."""
    if isinstance(value, dict):
        return {_CAMEL.sub(r"_\1", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


def _changed(key: str, value: Any) -> list[Any]:
    """Values to put in place of ``value`` at ``key``."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, 2**31]
    if isinstance(value, str):
        if key in _ENUM_SWAPS:
            return [_ENUM_SWAPS[key] if value != _ENUM_SWAPS[key] else "NOT_A_NAME", "NOT_A_NAME"]
        if _CARD.match(value):
            return ["5H" if value != "5H" else "6H", "1Z"]
        return [value + "x", ""]
    return []


def _set(root: Any, path: tuple, value: Any) -> Any:
    """A copy of ``root`` with ``path`` set to ``value`` (``_DROP``: removed)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(root, dict):
        out = dict(root)
        if rest or value is not _DROP:
            out[head] = _set(root.get(head), rest, value)
        else:
            del out[head]
        return out
    out_list = list(root)
    if rest or value is not _DROP:
        out_list[head] = _set(root[head], rest, value)
    else:
        del out_list[head]
    return out_list


_DROP = object()


def edits(snapshot: dict) -> Iterator[tuple[str, Any]]:
    """(name, edited snapshot) for every single-field edit of ``snapshot``. Long card lists
    are edited at their first and last items (the rest are the same shape)."""
    yield "unchanged", snapshot
    yield "keys reversed", _reversed(snapshot)
    yield from _edits_at(snapshot, snapshot, ())


def _reversed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reversed(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


def _edits_at(root: dict, value: Any, path: tuple) -> Iterator[tuple[str, Any]]:
    name = ".".join(map(str, path)) or "snapshot"
    if isinstance(value, dict):
        yield f"{name}+unknown", _set(root, path + ("zzunknown",), 1)
        for key, item in value.items():
            yield f"{name}.{key} removed", _set(root, path + (key,), _DROP)
            yield from _edits_at(root, item, path + (key,))
    elif isinstance(value, list):
        if value:
            yield f"{name}[0] removed", _set(root, path + (0,), _DROP)
            yield f"{name}[0] duplicated", _set(root, path, [value[0], *value])
        if len(value) > 1:
            yield f"{name} first two swapped", _set(root, path, [value[1], value[0], *value[2:]])
        indexes = range(len(value)) if len(value) <= 4 else (0, len(value) - 1)
        for i in indexes:
            yield from _edits_at(root, value[i], path + (i,))
    else:
        for new in _changed(str(path[-1]), value):
            yield f"{name}={new!r}", _set(root, path, new)
        if isinstance(value, (int, bool)) and not isinstance(value, bool) and value:
            yield f"{name}=0", _set(root, path, 0)
        if isinstance(value, int) and not isinstance(value, bool):
            yield f"{name} as a string", _set(root, path, str(value))


# -- the ways in -------------------------------------------------------------------------


class Ways:
    """One Runtime (signing off or on) and its transports' answer functions."""

    def __init__(self, signed: bool) -> None:
        signer = Signer((("k1", KEY),)) if signed else None
        self.runtime = Runtime(None, Adjudicator(signer=signer), count_calls=True)
        self.rest = rest._Calls(self.runtime, 1 << 24)

    def render(self, snap) -> dict:
        """The snapshot as this service answers it (signed when signing is on)."""
        written, _ = self.runtime.adjudicator.snapshots.written(snap)
        return jsonio.to_dict(pb.Snapshot.FromString(written))

    def via_rest(self, method: str, body: bytes) -> tuple:
        response = self.rest.answer(received(method, body, "rest", RID))
        payload = json.loads(response.body)
        if response.status_code != 200:
            error = payload["error"]
            return _error(error["status"], error["message"], error["details"])
        return ("OK", _canonical(method, payload))

    def via_grpc(self, method: str, request: dict) -> tuple | None:
        try:
            message = json_format.ParseDict(request, METHODS[method][0]())
        except json_format.ParseError:
            return None  # not a protobuf message: no gRPC client can send it
        data = message.SerializeToString()
        answer, status = grpc_server._call(self.runtime, received(method, data, "grpc", RID))
        if status is None:
            return ("OK", _canonical_bytes(method, answer))
        rich = status_pb2.Status.FromString(dict(status.trailing_metadata)[_DETAILS])
        details = []
        for packed in rich.details:
            for kind in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest):
                if packed.Is(kind.DESCRIPTOR):
                    detail = kind()
                    packed.Unpack(detail)
                    details.append(
                        {"@type": "type.googleapis.com/" + kind.DESCRIPTOR.full_name}
                        | jsonio.to_dict(detail)
                    )
        return _error(_CODE_OF_STATUS[rich.code], rich.message, details)


_DETAILS = "grpc-status-details-bin"
_RESPONSES = {
    name: message_factory.GetMessageClass(pb.SERVICE.methods_by_name[name].output_type)
    for name in METHODS
}


def _canonical(method: str, payload: dict) -> bytes:
    """A REST answer as the response message's deterministic bytes."""
    return json_format.ParseDict(payload, _RESPONSES[method]()).SerializeToString(
        deterministic=True
    )


def _canonical_bytes(method: str, data: bytes) -> bytes:
    return _RESPONSES[method].FromString(data).SerializeToString(deterministic=True)


def _error(status: str, message: str, details: list) -> tuple:
    assert status in HTTP_STATUS and status not in ("UNKNOWN", "INTERNAL"), (status, message)
    return ("ERROR", status, message, json.dumps(details, sort_keys=True))


def answers(ways: Ways, method: str, request: dict) -> dict:
    """Each way's answer to ``request``, each sent twice (the second may come from the
    cache)."""
    out: dict[str, Any] = {}
    own = orjson.dumps(request)
    other = orjson.dumps(snake(request))
    for attempt in (1, 2):
        out[f"rest-own#{attempt}"] = ways.via_rest(method, own)
        out[f"rest-snake#{attempt}"] = ways.via_rest(method, other)
        grpc_answer = ways.via_grpc(method, request)
        if grpc_answer is not None:
            out[f"grpc#{attempt}"] = grpc_answer
    return out


def _snake_text(raw: bytes) -> bytes:
    return re.sub(rb'"([a-z]+[A-Za-z0-9]*)"\s*:', lambda m: _snake_key(m.group(0)), raw)


def _snake_key(key: bytes) -> bytes:
    return _CAMEL.sub(r"_\1", key.decode()).lower().encode()


def _twice(request: dict, key: str, value: Any) -> bytes:
    """The request's text with the snapshot's ``key`` given again, ``value`` last."""
    text = orjson.dumps(request)
    assert text.startswith(b'{"snapshot":{')
    extra = b'{"snapshot":{"' + key.encode() + b'":' + orjson.dumps(value) + b","
    return extra + text[len(b'{"snapshot":{') :]


def _refused_twice(ways: Ways, base: dict, action: dict, key: str) -> list[str]:
    """The snapshot's ``key`` given twice, another value first (a tampered copy a proxy
    reading the first would see), in camelCase and snake_case text: refused at the key's
    path, twice alike (the second call may meet the cache), as protobuf's reader refuses it.
    gRPC has no such text: a protobuf field given twice is the last one by the wire format."""
    first = base[key] + 1 if isinstance(base[key], int) else {} if key == "turn" else []
    raw = _twice(requests_of("ValidateAction", base, action), key, first)
    failures = []
    # the path is the field's JSON name however the key was written, as every path is
    for written, text in (("camelCase", raw), ("snake_case", _snake_text(raw))):
        for attempt in (1, 2):
            answer = ways.via_rest("ValidateAction", text)
            fields = (
                [
                    (v["field"], v["reason"])
                    for detail in json.loads(answer[-1])
                    for v in detail.get("fieldViolations", ())
                ]
                if answer[0] == "ERROR"
                else []
            )
            if answer[:2] != ("ERROR", "INVALID_ARGUMENT") or fields != [
                (f"snapshot.{key}", "OUT_OF_RANGE")
            ]:
                failures.append(f"{key} given twice ({written}, #{attempt}): {answer!r:.300}")
    return failures


def _differences(found: dict) -> list[str]:
    first_name, first = next(iter(found.items()))
    return [
        f"{name}: {answer!r:.300} != {first_name}: {first!r:.300}"
        for name, answer in found.items()
        if answer != first
    ]


WAYS = {signed: Ways(signed) for signed in (False, True)}


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_every_single_field_edit_is_answered_alike_on_every_way_in(signed, index):
    ways = WAYS[signed]
    snap = POSITIONS[index]
    base = ways.render(snap)
    action = _first_action(snap)
    failures = []
    count = 0
    for n, (name, edited) in enumerate(edits(base)):
        # ValidateAction always; every other method in turn, so each meets every kind of edit
        for method in {"ValidateAction", SNAPSHOT_METHODS[n % len(SNAPSHOT_METHODS)]}:
            if method == "Deal" and snap.turn.phase is not Phase.OVER:
                continue
            found = answers(ways, method, requests_of(method, edited, action))
            count += 1
            failures += [f"{method} {name}: {d}" for d in _differences(found)]
    for key in ("stockCount", "dealNumber", "ply", "turn", "seats"):
        if key in base:
            failures += _refused_twice(ways, base, action, key)
    assert count > 150
    assert not failures, f"{len(failures)} differences, first:\n" + "\n".join(failures[:10])


def test_the_edits_reach_every_method_and_every_kind_of_field():
    """The matrix above is what it says: every method that takes a snapshot, and edits of
    counts, flags, numbers, enums, cards and melds, removals, duplicates, reorderings."""
    base = WAYS[False].render(POSITIONS[0])
    names = [name for name, _ in edits(base)]
    assert len(names) >= len(SNAPSHOT_METHODS)
    for needle in (
        "stockCount=",
        "handCount=",
        "hasMelded=",
        "dealNumber=",
        "phase=",
        "hand.0=",
        "removed",
        "duplicated",
        "swapped",
        "+unknown",
        "keys reversed",
    ):
        assert any(needle in name for name in names), needle
    melded = WAYS[False].render(POSITIONS[-3])
    assert any(".melds.0.cards" in name for name, _ in edits(melded))
    known = [p for p in POSITIONS if any(seat.known for seat in p.seats)]
    assert known, "no position with known cards to edit"
    assert any(".known." in name for name, _ in edits(WAYS[False].render(known[0])))
    assert set(SNAPSHOT_METHODS) >= {
        "ValidateAction",
        "ApplyAction",
        "ListLegalActions",
        "ScoreDeal",
        "GetPlayerView",
        "ReplayDeal",
        "SuggestAction",
        "CheckMeld",
        "Deal",
        "VerifyDeal",
    }


# -- the edit a user found, against the real servers ---------------------------------------


@pytest.fixture(scope="module")
def signed_server():
    env = {"SAMBA_SNAPSHOT_KEYS": "k1:" + "A" * 43 + "="}
    s = ServerProcess(env=env)
    yield s
    s.close()


@pytest.mark.servers
def test_an_edited_count_is_refused_by_the_real_servers(signed_server):
    """docs/api.md#trust: a signed snapshot whose stock count was changed is refused on both
    transports as not signed (it was answered legal over REST, drawing one card, and signed
    again); the unedited snapshot is still answered."""
    with httpx.Client(base_url=signed_server.base_url, timeout=30) as http:
        dealt = http.post("/v1/deals:deal", json={"players": 4, "seed": "rel-seed-1"})
        snapshot = dealt.json()["snapshot"]
        edited = {**snapshot, "stockCount": 1}
        body = {"snapshot": edited, "action": {"seat": snapshot["turn"]["seat"], "drawStock": {}}}
        answer = rest_call(http, "ApplyAction", body)
        assert answer.status_code == 403, answer.text
        error = answer.json()["error"]
        assert (error["status"], error["details"][0]["reason"]) == (
            "PERMISSION_DENIED",
            "SNAPSHOT_SIGNATURE_INVALID",
        ), answer.text
        # the snapshot as sent is still answered: nothing was kept from the edit
        assert rest_call(http, "ApplyAction", {**body, "snapshot": snapshot}).status_code == 200
        assert rest_call(http, "ApplyAction", body).status_code == 403
    with grpc.insecure_channel(signed_server.grpc_target) as channel:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(channel)
        request = json_format.ParseDict(body, METHODS["ApplyAction"][0]())
        with pytest.raises(grpc.RpcError) as refused:
            stub.ApplyAction(request, timeout=30)
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.servers
def test_an_edited_known_list_is_refused_by_the_real_servers(signed_server):
    """docs/rules.md#public-knowledge: ``known`` is signed like every field. A signed deal
    whose seat is said to be known to hold one of its own cards (a consistent snapshot, but
    not the one the service signed) is refused as not signed on both transports."""
    with httpx.Client(base_url=signed_server.base_url, timeout=30) as http:
        dealt = http.post("/v1/deals:deal", json={"players": 4, "seed": "known-seed-1"})
        snapshot = dealt.json()["snapshot"]
        seats = [dict(s) for s in snapshot["seats"]]
        assert all(not s.get("known") for s in seats)
        seats[0]["known"] = seats[0]["hand"][:1]
        edited = {**snapshot, "seats": seats}
        body = {"snapshot": edited, "action": {"seat": snapshot["turn"]["seat"], "drawStock": {}}}
        answer = rest_call(http, "ApplyAction", body)
        assert answer.status_code == 403, answer.text
        assert answer.json()["error"]["details"][0]["reason"] == "SNAPSHOT_SIGNATURE_INVALID"
        assert rest_call(http, "ApplyAction", {**body, "snapshot": snapshot}).status_code == 200
    with grpc.insecure_channel(signed_server.grpc_target) as channel:
        stub = adjudicator_pb2_grpc.AdjudicatorStub(channel)
        request = json_format.ParseDict(body, METHODS["ApplyAction"][0]())
        with pytest.raises(grpc.RpcError) as refused:
            stub.ApplyAction(request, timeout=30)
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
        assert "SNAPSHOT_SIGNATURE_INVALID" in str(refused.value.trailing_metadata())


@pytest.mark.servers
def test_a_snapshot_key_given_twice_is_refused_by_the_real_server(signed_server):
    """Issue 56: a signed snapshot with tampered ``seats`` placed first was answered (the
    last copy read, whose signature holds) while a proxy or a log reading the first copy saw
    other hands. It is refused at ``snapshot.seats``, as protobuf's reader refuses it."""
    with httpx.Client(base_url=signed_server.base_url, timeout=30) as http:
        snapshot = http.post("/v1/deals:deal", json={"players": 4, "seed": "twice-1"}).json()[
            "snapshot"
        ]
        action = {"seat": snapshot["turn"]["seat"], "drawStock": {}}
        tampered = [{**seat, "hand": list(reversed(seat["hand"]))} for seat in snapshot["seats"]]
        sent = orjson.dumps({"snapshot": snapshot, "action": action})
        twice = b'{"snapshot":{"seats":' + orjson.dumps(tampered) + b"," + sent[13:]
        headers = {"content-type": "application/json"}
        answer = http.post("/v1/actions:validate", content=twice, headers=headers)
        assert answer.status_code == 400, answer.text
        violations = answer.json()["error"]["details"][1]["fieldViolations"]
        assert [(v["field"], v["reason"]) for v in violations] == [
            ("snapshot.seats", "OUT_OF_RANGE")
        ]
        assert http.post("/v1/actions:validate", content=sent, headers=headers).status_code == 200

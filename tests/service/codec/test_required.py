"""The required-field walk (service.codec.required), driven by the field tables: every
REQUIRED field below a Snapshot found at its path, in field order, one walk for every
request (docs/api.md#field-violation-reasons)."""

from __future__ import annotations

import itertools
import json

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.descriptors import F, is_required, real_oneofs
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.codec import convert, jsonio, required
from samba_adjudicator.service.codec.signing import Signer
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.pipeline.call import Call
from samba_adjudicator.service.pipeline.runtime import Runtime


def _required_below(desc, seen=()) -> tuple[set, int]:
    """(every (message type, REQUIRED field) reachable from ``desc``, real oneofs met)."""
    found = {(desc.full_name, f.name) for f in desc.fields if is_required(f)}
    oneofs = len(real_oneofs(desc))
    for f in desc.fields:
        if f.type == F.TYPE_MESSAGE and f.message_type not in seen:
            more, n = _required_below(f.message_type, (*seen, desc))
            found |= more
            oneofs += n
    return found, oneofs


def test_the_removals_below_cover_every_required_field_below_snapshot():
    found, oneofs = _required_below(pb.Snapshot.DESCRIPTOR)
    assert found == {where for where, _ in REMOVALS.values()}
    assert oneofs == 0


def _dealt() -> pb.Snapshot:
    runtime = Runtime(None, Adjudicator(), count_calls=False)
    return runtime.call("Deal", pb.DealRequest(players=4, seed="required-walk")).snapshot


def _with_melds(snap: pb.Snapshot) -> pb.Snapshot:
    out = pb.Snapshot()
    out.CopyFrom(snap)
    for k in range(2):
        for j in range(2):
            out.sides[k].melds.add(id=f"m{k}{j}", cards=["QH", "QS", "QD"])
    out.result.reason = pb.Result.Reason.Value("WENT_OUT")
    return out


#: name -> ((message type, REQUIRED field) it leaves unset, how); "another meld id" is a
#: second case of the same field.
REMOVALS = {
    "ruleset": (("samba.v1.Snapshot", "ruleset"), lambda s: s.ClearField("ruleset")),
    "seats": (("samba.v1.Snapshot", "seats"), lambda s: s.ClearField("seats")),
    "sides": (("samba.v1.Snapshot", "sides"), lambda s: s.ClearField("sides")),
    "turn": (("samba.v1.Snapshot", "turn"), lambda s: s.ClearField("turn")),
    "meld id": (
        ("samba.v1.Meld", "id"),
        lambda s: len(s.sides) and setattr(s.sides[1].melds[0], "id", ""),
    ),
    "another meld id": (
        ("samba.v1.Meld", "id"),
        lambda s: len(s.sides) and setattr(s.sides[0].melds[1], "id", ""),
    ),
    "turn seat": (("samba.v1.Turn", "seat"), lambda s: s.turn.ClearField("seat")),
    "turn phase": (("samba.v1.Turn", "phase"), lambda s: setattr(s.turn, "phase", 0)),
    "result reason": (("samba.v1.Result", "reason"), lambda s: setattr(s.result, "reason", 0)),
}
#: name -> the path its removal is reported at (below the snapshot), in the walk's order.
PATHS = {
    "ruleset": "ruleset",
    "seats": "seats",
    "sides": "sides",
    "another meld id": "sides[0].melds[1].id",
    "meld id": "sides[1].melds[0].id",
    "turn seat": "turn.seat",
    "turn phase": "turn.phase",
    "result reason": "result.reason",
    "turn": "turn",
}
#: The walk's order: a message's REQUIRED fields first, then the messages below.
ORDER = [
    "ruleset",
    "seats",
    "sides",
    "turn",
    "another meld id",
    "meld id",
    "turn seat",
    "turn phase",
    "result reason",
]


def test_the_walk_finds_each_removal_at_its_path_in_field_order():
    base = _with_melds(_dealt())
    cases = 0
    for size in (0, 1, 2, 3):
        for names in itertools.combinations(REMOVALS, size):
            snap = pb.Snapshot()
            snap.CopyFrom(base)
            for name in sorted(names, key=ORDER.index, reverse=True):  # a message after
                REMOVALS[name][1](snap)  # what is below it: setting below re-creates it
            hidden = set()  # a removed message hides the removals below it
            if "sides" in names:
                hidden |= {"meld id", "another meld id"}
            if "turn" in names:
                hidden |= {"turn seat", "turn phase"}
            expected = [n for n in ORDER if n in names and n not in hidden]
            for path in ("snapshot", ""):
                got = [p.field for p in required.missing_required(snap, path)]
                prefix = f"{path}." if path else ""
                assert got == [prefix + PATHS[n] for n in expected], names
                assert all(p.reason == "REQUIRED" for p in required.missing_required(snap))
            cases += 1
    assert cases == 1 + 9 + 36 + 84


def test_a_request_gets_the_snapshot_walk_and_the_rest_of_its_fields():
    snap = _with_melds(_dealt())
    snap.turn.ClearField("seat")
    snap.sides[0].melds[0].id = ""
    req = pb.ValidateActionRequest(snapshot=snap)
    got = [(p.field, p.reason) for p in required.missing_required(req)]
    assert got == [
        ("action", "REQUIRED"),
        ("snapshot.sides[0].melds[0].id", "REQUIRED"),
        ("snapshot.turn.seat", "REQUIRED"),
    ]
    assert convert.snapshot_from_proto(snap, "snapshot", []) is not None


def _refusal(adjudicator: Adjudicator, request: pb.ValidateActionRequest) -> list:
    runtime = Runtime(None, adjudicator, count_calls=False)
    try:
        runtime.answer(Call("ValidateAction", request.SerializeToString()))
    except ApiError as e:
        return [e.code, *((p.field, p.reason) for p in e.field_violations)]
    return []


def test_a_new_snapshots_missing_fields_come_before_what_its_read_finds():
    """docs/api.md#field-violation-reasons (REQUIRED, every problem listed together): the
    refusal lists what the request's walk and then the snapshot's read list, in that
    order."""
    base = _with_melds(_dealt())
    cases = 0
    for size in (1, 2, 3):
        for names in itertools.combinations(REMOVALS, size):
            snap = pb.Snapshot()
            snap.CopyFrom(base)
            for name in names:
                REMOVALS[name][1](snap)
            snap.stock.append("XX")  # and a problem the read reports
            # (no seats: the action's seat would be out of range too, a problem of its own)
            for with_action in (False, True) if "seats" not in names else (False,):
                req = pb.ValidateActionRequest(snapshot=snap)
                if with_action:
                    req.action.seat = 0
                    req.action.draw_stock.SetInParent()
                walked = required.with_required(req, [])
                read: list = []
                convert.snapshot_from_proto(snap, "snapshot", read)
                expected = ["INVALID_ARGUMENT", *((p.field, p.reason) for p in walked + read)]
                assert _refusal(Adjudicator(), req) == expected, names
                cases += 1
    assert cases == 2 * (9 + 36 + 84) - (1 + 8 + 28)


def test_signing_on_a_missing_field_is_refused_before_a_missing_signature():
    """docs/api.md#trust-model: the signature is checked once the request is otherwise
    well formed; a snapshot missing a field is refused for that, as before the fold."""
    snap = _with_melds(_dealt())
    snap.turn.ClearField("seat")
    req = pb.ValidateActionRequest(snapshot=snap)
    req.action.seat = 0
    req.action.draw_stock.SetInParent()
    signer = Signer((("k1", b"0123456789abcdef0123456789abcdef"),))
    assert _refusal(Adjudicator(signer=signer), req) == [
        "INVALID_ARGUMENT",
        ("snapshot.turn.seat", "REQUIRED"),
    ]
    snap.turn.seat = 0
    req.snapshot.CopyFrom(snap)
    assert _refusal(Adjudicator(signer=signer), req)[0] == "PERMISSION_DENIED"


def test_a_json_problem_at_a_field_still_explains_it_missing():
    """docs/api.md#field-violation-reasons: a field refused as written is not also reported
    REQUIRED (over REST the request's JSON problems filter the walk's findings)."""
    snap = _with_melds(_dealt())
    snap.turn.ClearField("seat")
    obj = jsonio.to_dict(pb.ValidateActionRequest(snapshot=snap))
    obj["snapshot"]["turn"]["phase"] = "NOT_A_PHASE"
    obj["action"] = {"seat": 0, "drawStock": {}}
    runtime = Runtime(None, Adjudicator(), count_calls=False)
    try:
        runtime.answer(Call("ValidateAction", json.dumps(obj).encode(), json=True))
    except ApiError as e:
        got = [(p.field, p.reason) for p in e.field_violations]
    msg, structural = jsonio.decode(json.dumps(obj), pb.ValidateActionRequest)
    walked = required.with_required(msg, structural)
    assert got == [(p.field, p.reason) for p in walked]
    assert ("snapshot.turn.seat", "REQUIRED") in got
    assert ("snapshot.turn.phase", "REQUIRED") not in got
    assert any(field == "snapshot.turn.phase" for field, _ in got)

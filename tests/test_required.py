"""The required-field walk of a Snapshot, written out for speed (service.codec.required),
against the walk the descriptors' plan drives: same problems, same order, same fields."""

from __future__ import annotations

import itertools

from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.descriptors import F, is_required, real_oneofs
from samba_adjudicator.service.codec import convert, required
from samba_adjudicator.service.pipeline.api import Adjudicator
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


def test_the_written_out_walk_knows_every_required_field_below_snapshot():
    found, oneofs = _required_below(pb.Snapshot.DESCRIPTOR)
    assert found == required.SNAPSHOT_REQUIRED
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


REMOVALS = {
    "ruleset": lambda s: s.ClearField("ruleset"),
    "seats": lambda s: s.ClearField("seats"),
    "sides": lambda s: s.ClearField("sides"),
    "turn": lambda s: s.ClearField("turn"),
    "meld id": lambda s: len(s.sides) and setattr(s.sides[1].melds[0], "id", ""),
    "another meld id": lambda s: len(s.sides) and setattr(s.sides[0].melds[1], "id", ""),
    "turn seat": lambda s: s.turn.ClearField("seat"),
    "turn phase": lambda s: setattr(s.turn, "phase", 0),
    "result reason": lambda s: setattr(s.result, "reason", 0),
}


def test_the_written_out_walk_finds_what_the_plan_finds_in_the_same_order():
    base = _with_melds(_dealt())
    cases = 0
    for size in (0, 1, 2, 3):
        for names in itertools.combinations(REMOVALS, size):
            snap = pb.Snapshot()
            snap.CopyFrom(base)
            for name in names:
                REMOVALS[name](snap)
            for path in ("snapshot", ""):
                fast: list = []
                planned: list = []
                required._snapshot_missing(snap, path, fast)
                required.collect_planned(snap, path, (), planned)
                assert fast == planned, names
                assert bool(fast) == bool(names), names  # each removal alone is found
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

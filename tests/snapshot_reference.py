"""The service's rendering of a snapshot built field by field with the protobuf runtime:
the reference service.codec.snapshot_bytes is held to
(tests/service/codec/test_snapshot_bytes.py). It is how ``convert.snapshot_to_proto`` built
the message before it parsed those bytes instead."""

from __future__ import annotations

from samba_adjudicator.engine import derived
from samba_adjudicator.engine import model as m
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec.convert import meld_to_proto
from samba_adjudicator.service.codec.rulesets import ruleset_ref_to_proto


def rendering(snap: m.Snapshot) -> pb.Snapshot:
    """Every field filled, output-only ones included; ``signature`` left empty (the API
    signs)."""
    rules = snap.ruleset
    msg = pb.Snapshot(
        ruleset=ruleset_ref_to_proto(snap.ruleset_ref),
        deal_number=snap.deal_number,
        dealer=snap.dealer,
        ply=snap.ply,
        stock=list(snap.stock),
        stock_count=len(snap.stock) if snap.stock else snap.stock_count,
        stock_hidden=snap.stock_hidden,
        discard_pile=list(snap.discard_pile),
        deal_commitment=snap.deal_commitment,
    )
    for s in snap.seats:
        msg.seats.add(
            seat=s.seat,
            side=s.side,
            hand=list(s.hand),
            hand_count=len(s.hand) if s.hand else s.hand_count,
            hand_hidden=s.hand_hidden,
            has_melded=s.has_melded,
            dealt=list(s.dealt),
            red_three_replacements_owed=s.red_three_replacements_owed,
            known=list(s.known),
        )
    for sd in snap.sides:
        side = msg.sides.add(
            side=sd.side,
            seats=list(sd.seats),
            match_score=sd.match_score,
            opened=sd.opened,
            initial_meld_requirement=derived.initial_meld_requirement(rules, sd),
            red_threes=list(sd.red_threes),
        )
        for meld in sd.melds:
            side.melds.append(meld_to_proto(rules, meld))
        for p in sd.penalties:
            side.penalties.add(code=p.code, points=p.points)
    top, count, blocked, frozen = derived.pile_state(snap)
    msg.pile.CopyFrom(
        pb.Pile(top=top or "", count=count, blocked=blocked, frozen_for_sides=list(frozen))
    )
    t = snap.turn
    msg.turn.CopyFrom(
        pb.Turn(
            seat=t.seat,
            phase=pb.Turn.Phase.Value(t.phase.name),
            took_pile=t.took_pile,
            melded_this_turn=t.melded_this_turn,
            added_to_partner_melds=t.added_to_partner_melds,
            go_out=pb.Turn.GoOut.Value(t.go_out.name),
            awaiting_seats=list(derived.awaiting_seats(snap)),
        )
    )
    if snap.result is not None:
        r = snap.result
        res = pb.Result(reason=pb.Result.Reason.Value(r.reason.name), concealed=r.concealed)
        if r.seat is not None:
            res.seat = r.seat
        if r.premium is not None:
            res.premium.CopyFrom(pb.Premium(kind=r.premium.kind, points=r.premium.points))
        msg.result.CopyFrom(res)
    return msg

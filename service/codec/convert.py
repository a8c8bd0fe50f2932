"""Protobuf messages <-> engine values (docs/api.md#cards, #resources).

Input rules:
- Cards go through ``engine.cards.parse_card`` (``T`` for 10, lower case); every bad code
  is a Problem at its exact path (``snapshot.seats[0].hand[3]``), reason UNKNOWN_CARD_CODE.
- Problems are collected, never repaired, and raised together as ``InvalidInput``.
  Builders append to a ``problems`` list; ``service.pipeline.loading`` raises.
- Paths are JSON names relative to the request; engine paths in snake_case are camelised.
- Output-only snapshot fields are not read here (``service.codec.derived_fields`` checks them).

Actions are in ``service.codec.actions``, the judgements answered in ``service.codec.answers``.

Repeated fields are read by ``tuple(container)``, not a slice: a slice is a fifth faster on
a real hand but makes a list beside the tuple, a megabyte each for the largest requests
(docs/performance.md).

Output: every output-only field is filled from ``engine.derived``; cards are canonical
(``service.codec.snapshot_bytes`` writes the snapshot's bytes, parsed into the message).
"""

from __future__ import annotations

from typing import Any

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine import vocabulary
from samba_adjudicator.engine.deal_seed import commitment_problems
from samba_adjudicator.engine.melds import infer_kind
from samba_adjudicator.engine.messages import problem

from ..base import pb
from ..base.errors import Problems
from . import snapshot_bytes
from .paths import CARD_CODES, cards
from .rulesets import ruleset_ref_from_proto

# -- snapshots: proto -> engine -----------------------------------------------------------


def _by_number(values: Any, engine_enum: Any) -> dict[int, Any]:
    """Protobuf enum number -> the engine member of the same name (the names both have)."""
    return {
        v.number: engine_enum[v.name]
        for v in values.DESCRIPTOR.values
        if v.name in engine_enum.__members__
    }


#: Protobuf enum number -> engine member, for the enums a snapshot reads.
MELD_KINDS: dict[int, m.MeldKind] = _by_number(pb.Meld.Kind, m.MeldKind)
PHASES: dict[int, m.Phase] = _by_number(pb.Turn.Phase, m.Phase)
GO_OUTS: dict[int, m.GoOut] = _by_number(pb.Turn.GoOut, m.GoOut)


def _meld_kind_of(number: int) -> m.MeldKind | None:
    """A given meld kind (not 0), or None for a number the schema does not define."""
    kind = MELD_KINDS.get(number)
    if kind is not None:
        return kind
    return m.MeldKind[pb.Meld.Kind.Name(number)] if number in pb.Meld.Kind.values() else None


def _turn_from_proto(t: pb.Turn) -> m.Turn:
    """Unset phase and go-out read as DRAW and NOT_ASKED (the required-field check reports
    a missing phase); a number the schema does not define raises as ``Name`` does."""
    phase = (
        (PHASES.get(t.phase) or m.Phase[pb.Turn.Phase.Name(t.phase)]) if t.phase else m.Phase.DRAW
    )
    go_out = (
        (GO_OUTS.get(t.go_out) or m.GoOut[pb.Turn.GoOut.Name(t.go_out)])
        if t.go_out
        else m.GoOut.NOT_ASKED
    )
    return m.Turn(
        seat=t.seat if t.HasField("seat") else 0,
        phase=phase,
        took_pile=t.took_pile,
        melded_this_turn=t.melded_this_turn,
        added_to_partner_melds=t.added_to_partner_melds,
        go_out=go_out,
    )


def _side_from_proto(sd: pb.Side, kp: str, k: int, problems: Problems) -> m.Side:
    melds = []
    for j, md in enumerate(sd.melds):
        before = len(problems)
        mcards = tuple(md.cards)
        if not CARD_CODES.issuperset(mcards):
            mcards = cards(mcards, f"{kp}.melds[{j}].cards", problems)
        if md.kind:
            kind = _meld_kind_of(md.kind)
            if kind is None:
                problems.append(
                    problem(
                        f"{kp}.melds[{j}].kind",
                        "OUT_OF_RANGE",
                        "{kind} is not a meld kind",
                        kind=md.kind,
                    )
                )
                continue
        elif len(problems) == before:
            kind = infer_kind(mcards)
        else:
            continue
        melds.append(m.Meld(id=md.id, cards=mcards, laid_by=md.laid_by, kind=kind))
    return m.Side(
        side=sd.side or k,
        seats=tuple(sd.seats),
        match_score=sd.match_score,
        melds=tuple(melds),
        red_threes=cards(sd.red_threes, f"{kp}.redThrees", problems),
        penalties=tuple(m.Penalty(p.code, p.points) for p in sd.penalties),
    )


def snapshot_from_proto(msg: pb.Snapshot, path: str, problems: Problems) -> m.Snapshot | None:
    """Build the engine Snapshot; unparseable values are appended to ``problems``.

    Never raises and never judges consistency (``service.pipeline.loading`` does that). Fields
    the required-field check reports (``turn.phase``, …) get a neutral stand-in here.
    Returns None when the ruleset cannot be resolved.
    """
    rules, ref = ruleset_ref_from_proto(msg.ruleset, f"{path}.ruleset", problems)
    seats = []
    for i, s in enumerate(msg.seats):
        raw = tuple(s.hand)
        hand = (
            raw if CARD_CODES.issuperset(raw) else cards(raw, f"{path}.seats[{i}].hand", problems)
        )
        dealt = tuple(s.dealt)
        if not CARD_CODES.issuperset(dealt):
            dealt = cards(dealt, f"{path}.seats[{i}].dealt", problems)
        seats.append(
            m.Seat(
                seat=s.seat or i,
                side=s.side,
                hand=hand,
                hand_count=s.hand_count or len(raw),
                has_melded=s.has_melded,
                dealt=dealt,
                red_three_replacements_owed=s.red_three_replacements_owed,
                known=cards(s.known, f"{path}.seats[{i}].known", problems),
            )
        )
    sides = [
        _side_from_proto(sd, f"{path}.sides[{k}]", k, problems) for k, sd in enumerate(msg.sides)
    ]
    stock = cards(msg.stock, f"{path}.stock", problems)
    discard = cards(msg.discard_pile, f"{path}.discardPile", problems)
    turn = _turn_from_proto(msg.turn)
    result = None
    if msg.HasField("result"):
        r = msg.result
        premium = m.Premium(r.premium.kind, r.premium.points) if r.HasField("premium") else None
        result = m.Result(
            reason=m.EndReason[pb.Result.Reason.Name(r.reason)]
            if r.reason
            else m.EndReason.STOCK_EXHAUSTED,
            seat=r.seat if r.HasField("seat") else None,
            concealed=r.concealed,
            premium=premium,
        )
    problems.extend(commitment_problems(msg.deal_commitment, f"{path}.dealCommitment"))
    if rules is None:
        return None
    return m.Snapshot(
        ruleset=rules,
        deal_number=msg.deal_number,
        dealer=msg.dealer,
        seats=tuple(seats),
        sides=tuple(sides),
        stock=stock,
        stock_count=msg.stock_count if (msg.stock_count or not msg.stock) else len(msg.stock),
        discard_pile=discard,
        turn=turn,
        ply=msg.ply,
        result=result,
        ruleset_ref=ref,
        signature=msg.signature,
        deal_commitment=msg.deal_commitment,
    )


# -- snapshots: engine -> proto -----------------------------------------------------------


def meld_to_proto(rules: er.Ruleset, meld: m.Meld) -> pb.Meld:
    return pb.Meld(
        id=meld.id,
        cards=list(meld.cards),
        laid_by=meld.laid_by,
        kind=pb.Meld.Kind.Value(meld.kind.name),
        status=pb.Meld.Status.Value(vocabulary.meld_status(meld).name),
        natural=vocabulary.is_natural(meld.cards),
    )


def snapshot_to_proto(snap: m.Snapshot) -> pb.Snapshot:
    """Every field filled, output-only ones included; ``signature`` left empty (the API
    signs). Parsed from the bytes ``snapshot_bytes`` writes: one call into the protobuf
    runtime instead of one per field and card."""
    return pb.Snapshot.FromString(snapshot_bytes.encode(snap))

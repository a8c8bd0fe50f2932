"""A snapshot's protobuf bytes written straight from engine values by the field table
(service.codec.snapshot_bytes, service.codec.fields) against the protobuf runtime's own
serializer: the bytes parse, and the runtime serializes the parsed message to the same bytes
(field order, packing, defaults left out, presence kept); read back they are the position
they were written from, and their output-only fields are what the engine derives. On played
deals of every profile and player count, players' views, ended deals with premiums and
penalties, rulesets with overrides and negative scores. The rule: docs/api.md#trust-model
(the signature is an HMAC over the deterministic protobuf encoding of the canonicalised
snapshot, signature cleared)."""

from __future__ import annotations

from dataclasses import replace

from played_endings import asked_and_passed, played, went_out

from samba_adjudicator import engine
from samba_adjudicator.engine import derived
from samba_adjudicator.engine.model import Penalty, RulesetRef
from samba_adjudicator.engine.ruleset import PROFILES, resolve
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import convert, snapshot_bytes, snapshot_code


def _positions() -> list:
    out = []
    for profile in PROFILES:
        for players in resolve(profile).players_allowed:
            out.extend(played(profile, players, "snapshot-bytes", 120))
    out += [
        went_out("classic"),
        went_out("pagat"),
        went_out("spanish"),
        went_out("spanish", with_partner=True),
        went_out("spanish", from_dealt=False),
        asked_and_passed(),
    ]
    return out


POSITIONS = _positions()


def _variants(snap) -> list:
    """The position, every seat's view, and odd values: negative scores and penalty points,
    a ruleset reference with overrides and a version pin."""
    out = [snap, *(engine.player_view(snap, seat) for seat in range(len(snap.seats)))]
    sides = list(snap.sides)
    sides[0] = replace(
        sides[0], match_score=-2_147_483_648, penalties=(Penalty("X_PENALTY", -100),)
    )
    out.append(replace(snap, sides=tuple(sides)))
    out.append(
        replace(
            snap,
            ruleset_ref=RulesetRef(
                profile=snap.ruleset_ref.profile, overrides={"draw_count": 2}, version="v9"
            ),
        )
    )
    return out


def _parsed(snap) -> tuple[bytes, pb.Snapshot]:
    data = snapshot_bytes.encode(snap)
    return data, pb.Snapshot.FromString(data)


def test_the_bytes_are_the_protobuf_runtimes_for_every_position():
    checked = 0
    for snap in POSITIONS:
        for variant in _variants(snap):
            data, msg = _parsed(variant)
            assert msg.SerializeToString(deterministic=True) == data
            assert msg.SerializeToString() == data
            checked += 1
    assert checked > 400
    assert any(s.result is not None and s.result.premium is not None for s in POSITIONS)
    assert any(s.result is not None and s.result.seat is not None for s in POSITIONS)
    assert any(any(sd.penalties for sd in s.sides) for s in POSITIONS)
    assert any(any(seat.known for seat in s.seats) for s in POSITIONS)


def test_read_back_the_bytes_are_the_position_they_were_written_from():
    """The reader (convert.snapshot_from_proto) gives back every fact of play the writer
    wrote, and the derived-field check finds every output-only field as the engine derives
    it; a turn's seat 0 and a result's seat are present (proto3 ``optional``)."""
    for snap in POSITIONS:
        for variant in _variants(snap):
            _, msg = _parsed(variant)
            problems: list = []
            read = convert.snapshot_from_proto(msg, "snapshot", problems)
            assert problems == [] and read is not None
            # (the variant with overrides keeps its ruleset: its reference is what is written)
            assert replace(read, ruleset=variant.ruleset) == variant
            assert read.ruleset_ref == variant.ruleset_ref
            assert snapshot_code.disagreements(msg, variant, "snapshot") == []
            assert msg.turn.HasField("seat")
            assert msg.HasField("result") == (variant.result is not None)
            if variant.result is not None:
                assert msg.result.HasField("seat") == (variant.result.seat is not None)


def test_the_output_only_fields_are_the_engine_s_derivations():
    for snap in POSITIONS[::5]:
        _, msg = _parsed(snap)
        top, count, blocked, frozen = derived.pile_state(snap)
        assert (msg.pile.top, msg.pile.count, msg.pile.blocked) == (top or "", count, blocked)
        assert list(msg.pile.frozen_for_sides) == list(frozen)
        assert list(msg.turn.awaiting_seats) == list(derived.awaiting_seats(snap))
        assert msg.stock_count == len(snap.stock) and msg.stock_hidden == snap.stock_hidden
        for seat, engine_seat in zip(msg.seats, snap.seats, strict=True):
            assert seat.hand_count == len(engine_seat.hand) and not seat.hand_hidden
        for side, engine_side in zip(msg.sides, snap.sides, strict=True):
            need = derived.initial_meld_requirement(snap.ruleset, engine_side)
            assert side.initial_meld_requirement == need
            assert [m.status for m in side.melds] == [
                pb.Meld.Status.Value(engine.vocabulary.meld_status(m).name)
                for m in engine_side.melds
            ]
        view = engine.player_view(snap, 0)
        _, seen = _parsed(view)
        assert [s.hand_hidden for s in seen.seats] == [s.hand_hidden for s in view.seats]
        assert [s.hand_count for s in seen.seats] == [s.hand_count for s in view.seats]


def test_the_rendering_is_the_message_of_those_bytes():
    for snap in POSITIONS[::7]:
        assert convert.snapshot_to_proto(snap) == _parsed(snap)[1]


def test_the_signed_bytes_are_the_signed_messages():
    """``rendering`` writes the signature between fields 13 and 15 of the bytes it signed:
    the bytes of the message with that signature set, as its own serialization writes them
    (the bytes a signed answer carries, and the key it is remembered under)."""
    signed = 0
    for snap in POSITIONS[::3]:
        unsigned = snapshot_bytes.encode(snap)
        answered, signature = snapshot_bytes.rendering(snap, lambda b: f"v1.k.{len(b)}")
        assert signature == f"v1.k.{len(unsigned)}"
        msg = pb.Snapshot.FromString(unsigned)
        msg.signature = signature
        assert answered == msg.SerializeToString(deterministic=True) == msg.SerializeToString()
        assert snapshot_bytes.rendering(snap, None) == (unsigned, "")
        signed += bool(snap.deal_commitment)
    assert signed > 0  # field 15 follows the signature in some

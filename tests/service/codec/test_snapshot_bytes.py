"""A snapshot's protobuf bytes written straight from engine values (service.codec.snapshot_bytes)
against the protobuf runtime's serialization of the same rendering, built field by field
(snapshot_reference.rendering): byte for byte, on played deals of every profile and player
count, players' views, ended deals with premiums and penalties, rulesets with overrides and
negative scores. The rule: docs/api.md#trust-model (the signature is an HMAC over the
deterministic protobuf encoding of the canonicalised snapshot, signature cleared)."""

from __future__ import annotations

from dataclasses import replace

from played_endings import asked_and_passed, played, went_out
from snapshot_reference import rendering

from samba_adjudicator import engine
from samba_adjudicator.engine.model import Penalty, RulesetRef
from samba_adjudicator.engine.ruleset import PROFILES, resolve
from samba_adjudicator.service.codec import convert, snapshot_bytes


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


def test_the_bytes_are_the_protobuf_runtimes_for_every_position():
    checked = 0
    for snap in POSITIONS:
        for variant in _variants(snap):
            expected = rendering(variant).SerializeToString(deterministic=True)
            assert snapshot_bytes.encode(variant) == expected
            checked += 1
    assert checked > 400
    assert any(s.result is not None and s.result.premium is not None for s in POSITIONS)
    assert any(any(sd.penalties for sd in s.sides) for s in POSITIONS)
    assert any(any(seat.known for seat in s.seats) for s in POSITIONS)


def test_the_rendering_is_the_message_of_those_bytes():
    for snap in POSITIONS[::7]:
        assert convert.snapshot_to_proto(snap) == rendering(snap)


def test_the_signed_bytes_are_the_signed_messages():
    """``rendering`` writes the signature between fields 13 and 15 of the bytes it signed:
    the bytes of the message with that signature set, as its own serialization writes them
    (the bytes a signed answer carries, and the key it is remembered under)."""
    signed = 0
    for snap in POSITIONS[::3]:
        unsigned, answered = snapshot_bytes.rendering(snap, lambda b: f"v1.k.{len(b)}")
        assert unsigned == snapshot_bytes.encode(snap)
        msg = rendering(snap)
        msg.signature = f"v1.k.{len(unsigned)}"
        assert answered == msg.SerializeToString(deterministic=True) == msg.SerializeToString()
        assert snapshot_bytes.rendering(snap, None) == (unsigned, unsigned)
        signed += bool(snap.deal_commitment)
    assert signed > 0  # field 15 follows the signature in some

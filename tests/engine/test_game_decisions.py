"""Decisions the engine took (docs/rules.md#decisions), each
with a case that fails if the decision is not what the docs say."""

from __future__ import annotations

from rules_support import KINGS7, QUEENS7, allowed, make_snapshot, refused

from samba_adjudicator.engine.model import (
    AskGoOut,
    Discard,
    MeldCards,
    Phase,
    SwapWild,
    TakePile,
    TakeTopCard,
)


def test_decision2_top_card_take_respects_the_hand_floor():
    """docs/rules.md decision 2 (docs/rules.md#take-top-card, #hand-floor): the top card is
    melded at once, so a player left with one card whose side cannot go out may not take
    it; with the side able to go out, the take is legal."""
    short = make_snapshot(
        "pagat",
        4,
        hands={0: "5C"},
        discard="KC 8H",
        melds={0: ["5H 6H 7H"]},
        turn_seat=0,
        phase=Phase.DRAW,
    )
    refused(short, TakeTopCard(0, "m1"), "HAND_FLOOR")
    ready = make_snapshot(
        "pagat",
        4,
        hands={0: "5C"},
        discard="KC 8H",
        melds={0: ["5H 6H 7H", KINGS7, QUEENS7]},
        turn_seat=0,
        phase=Phase.DRAW,
    )
    allowed(ready, TakeTopCard(0, "m1"))


def test_decision3_no_question_after_a_pile_take():
    """docs/rules.md decision 3 (docs/rules.md#may-i-go-out: before the first meld): a
    pair take lays a meld, so asking afterwards in that turn is ASK_AFTER_MELDING."""
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "9S 9D 5C 6D 7H 8S"},
        discard="4C 9H",
        melds={0: ["AH AS AD"]},
        turn_seat=0,
        phase=Phase.DRAW,
    )
    taken = allowed(snap, TakePile(0, hand_cards=("9S", "9D"))).snapshot
    refused(taken, AskGoOut(0), "ASK_AFTER_MELDING")


def test_decision4_a_wild_swap_counts_as_melding_for_concealed():
    """docs/rules.md decision 4 (docs/rules.md#wild-swap, #concealed): a swap puts a natural
    on the table, so a seat that swapped in an earlier turn cannot go out concealed."""
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "QD 5C 6D 7H 8S", 2: "9H"},
        melds={0: [("QH QS 2C", 2), (KINGS7, 2), ("JH JS JD JC JH JS JD", 2)]},
        turn_seat=0,
        phase=Phase.PLAY,
        has_melded=[2],
    )
    swapped = allowed(snap, SwapWild(0, "m1", "QD", "2C")).snapshot
    assert swapped.turn.melded_this_turn
    passed = allowed(swapped, Discard(0, "8S")).snapshot
    assert passed.seats[0].has_melded
    # Seat 0's next turn: it empties its hand, but not concealed.
    again = make_snapshot(
        "classic",
        4,
        hands={0: "5C 5D 5H 6D", 2: "9H"},
        melds={0: [("QH QS QD", 2), (KINGS7, 2), ("JH JS JD JC JH JS JD", 2)]},
        turn_seat=0,
        phase=Phase.PLAY,
        has_melded=[0, 2],
    )
    out = allowed(again, MeldCards(0, new_melds=(("5C", "5D", "5H"),)))
    end = allowed(out.snapshot, Discard(0, "6D"))
    assert not end.snapshot.result.concealed
    assert end.score.sides[0].concealed_bonus == 0

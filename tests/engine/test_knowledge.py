"""docs/rules.md#public-knowledge: each seat's ``known`` cards (taken with the pile, not
laid down since), as ``apply`` keeps them after every action, as every view keeps them, and
as the consistency check holds a client-given snapshot to them."""

from __future__ import annotations

from dataclasses import replace

from builders import cards, make_snapshot
from rules_support import allowed

from samba_adjudicator.engine import deal, resolve
from samba_adjudicator.engine.consistency import check_snapshot
from samba_adjudicator.engine.knowledge import known_after
from samba_adjudicator.engine.model import (
    Discard,
    DrawStock,
    MeldCards,
    Phase,
    Snapshot,
    TakePile,
    TakeTopCard,
)
from samba_adjudicator.engine.view import player_view


def with_known(snap: Snapshot, seat: int, known: str) -> Snapshot:
    seats = tuple(replace(s, known=cards(known)) if s.seat == seat else s for s in snap.seats)
    return replace(snap, seats=seats)


def take_position(hand: str, discard: str, profile: str = "classic", **kw) -> Snapshot:
    """Seat 0 to draw, its side opened with aces; seat 2 (its partner) holds 9C 9D."""
    return make_snapshot(
        profile,
        4,
        hands={0: hand, 1: "4C 4D", 2: "9C 9D", 3: "6S 6D"},
        discard=discard,
        melds={0: ["AH AS AD"]},
        phase=Phase.DRAW,
        **kw,
    )


def known_of(snap: Snapshot, seat: int = 0) -> tuple[str, ...]:
    return snap.seats[seat].known


def test_the_pile_taken_is_known_but_its_top_card_melded_at_once():
    snap = take_position("KS KD 5H 5D QC", "8S 5C 7D KC")
    after = allowed(snap, TakePile(0, hand_cards=("KS", "KD"))).snapshot
    assert known_of(after) == ("5C", "7D", "8S")  # the canonical order, not the pile's
    assert [s.known for s in after.seats[1:]] == [(), (), ()]


def test_a_pile_card_like_the_pair_laid_from_the_hand_is_known():
    """The pair's KS leaves the hand before the pile's KS reaches it."""
    snap = take_position("KS KD QC", "KS 7D KC")
    after = allowed(snap, TakePile(0, hand_cards=("KS", "KD"))).snapshot
    assert known_of(after) == ("7D", "KS")


def test_laying_and_discarding_known_cards_forgets_them():
    snap = take_position("KS KD 5H 5D QC", "8S 5C 7D KC")
    taken = allowed(snap, TakePile(0, hand_cards=("KS", "KD"))).snapshot
    melded = allowed(taken, MeldCards(0, new_melds=(("5C", "5H", "5D"),))).snapshot
    assert known_of(melded) == ("7D", "8S")
    discarded = allowed(melded, Discard(0, "8S")).snapshot
    assert known_of(discarded) == ("7D",)
    assert discarded.seats[0].hand_count == 2


def test_laying_a_copy_of_a_known_card_lowers_the_count():
    """Observers cannot tell which 7D was discarded: one fewer 7D is known, though the
    hand still holds the one taken."""
    snap = take_position("KS KD 7D QC", "7D 9H KC")
    taken = allowed(snap, TakePile(0, hand_cards=("KS", "KD"))).snapshot
    assert known_of(taken) == ("7D", "9H")
    discarded = allowed(taken, Discard(0, "7D")).snapshot
    assert discarded.seats[0].hand.count("7D") == 1
    assert known_of(discarded) == ("9H",)


def test_melds_inside_a_take_are_laid_before_the_pile_reaches_the_hand():
    """The take's own melds use hand cards only (docs/rules.md#opening-by-taking): an 8
    laid in the take is not the pile's 8, which stays known."""
    snap = take_position("KS KD 8H 8D 8S QC", "8C 9H KC")
    take = TakePile(0, hand_cards=("KS", "KD"), new_melds=(("8H", "8D", "8S"),))
    after = allowed(snap, take).snapshot
    assert known_of(after) == ("8C", "9H")


def test_red_threes_in_the_taken_pile_are_laid_out_not_known():
    snap = take_position("KS KD QC", "3D 7D KC")
    after = allowed(snap, TakePile(0, hand_cards=("KS", "KD"))).snapshot
    assert known_of(after) == ("7D",)
    assert "3D" in after.sides[0].red_threes


def test_other_seats_known_cards_stay_when_one_seat_acts():
    snap = with_known(take_position("KS KD QC", "9H 7D KC"), 2, "9C")
    after = allowed(snap, TakePile(0, hand_cards=("KS", "KD"))).snapshot
    assert known_of(after, 2) == ("9C",)
    drawn = allowed(with_known(snap, 0, "QC"), DrawStock(0)).snapshot
    assert known_of(drawn) == ("QC",) and known_of(drawn, 2) == ("9C",)


def test_taking_only_the_top_card_melds_it_and_takes_nothing_into_the_hand():
    snap = with_known(
        make_snapshot(
            "pagat",
            4,
            hands={0: "QC JC 9S", 1: "4C 4D", 2: "9C 9D", 3: "6S 6D"},
            discard="8S 7H",
            melds={0: ["4H 5H 6H"]},
            phase=Phase.DRAW,
        ),
        0,
        "QC",
    )
    after = allowed(snap, TakeTopCard(0, "m1")).snapshot
    assert known_of(after) == ("QC",)


def test_the_rule_keeps_known_within_the_hand():
    """Going out empties the hand, and the known cards with it; the min with the hand
    also bounds any stale input."""
    assert known_after(("7D", "9H"), ("7D", "9H", "QC"), (), ()) == ()
    assert known_after(("7D", "7D"), (), ("7D",), ("7D", "QC")) == ("7D",)
    # a take's pair of 9s laid from the hand, then a 9H from the pile: the 9H is known
    assert known_after((), ("9H", "9C"), ("9H", "5D"), ("9H", "5D", "QC")) == ("5D", "9H")
    assert known_after(("JK",), ("2C",), ("4S", "AS"), ("JK", "AS", "4S")) == (
        "AS",
        "4S",
        "JK",
    )


def test_a_new_deal_starts_with_nothing_known():
    snap = deal(resolve("classic"), 4, "known-seed")
    assert all(s.known == () for s in snap.seats)


def test_every_view_keeps_every_seats_known_cards():
    snap = take_position("KS KD 5H 5D QC", "8S 5C 7D KC")
    after = allowed(snap, TakePile(0, hand_cards=("KS", "KD"))).snapshot
    for viewer in (None, 0, 1, 2, 3):
        view = player_view(after, viewer)
        assert known_of(view) == ("5C", "7D", "8S")
        assert check_snapshot(view) == []
    assert player_view(after, 1).seats[0].hand == ()


# -- the consistency check ---------------------------------------------------------------


def found(snap: Snapshot) -> list[tuple[str, str]]:
    return [(p.field, p.reason) for p in check_snapshot(snap)]


def test_known_cards_must_be_in_the_listed_hand():
    snap = take_position("KS KD 7D QC", "7D 9H KC")
    assert found(with_known(snap, 0, "7D QC")) == []
    assert found(with_known(snap, 0, "7D 7D 9H")) == [
        ("seats[0].known[1]", "KNOWN_CARD_NOT_IN_HAND"),
        ("seats[0].known[2]", "KNOWN_CARD_NOT_IN_HAND"),
    ]
    problem = check_snapshot(with_known(snap, 0, "7D 7D"))[0]
    assert problem.description == "the hand holds 1 of 7D; this known card is one more"


def test_an_unknown_code_among_the_known_cards_is_named():
    snap = take_position("KS KD 7D QC", "7D 9H KC")
    bad = replace(snap, seats=(replace(snap.seats[0], known=("7D", "ZZ")),) + snap.seats[1:])
    assert found(bad) == [("seats[0].known[1]", "UNKNOWN_CARD_CODE")]


def test_a_hidden_hand_holds_at_least_its_known_cards():
    view = player_view(take_position("KS KD 7D QC", "7D 9H KC"), 1)
    assert found(with_known(view, 0, "7D QC KS KD")) == []
    assert found(with_known(view, 0, "7D QC KS KD 9H")) == [
        ("seats[0].known", "KNOWN_CARD_NOT_IN_HAND")
    ]


def test_a_hidden_hands_known_cards_count_toward_the_packs_copies():
    """Three decks hold three 7D: with two on the pile, another hidden hand cannot be
    known to hold two more."""
    view = player_view(take_position("KS KD QC", "7D 7D KC"), 1)
    assert found(with_known(view, 3, "7D 6S")) == []
    assert found(with_known(view, 3, "7D 7D")) == [("seats[3].known[1]", "TOO_MANY_COPIES")]

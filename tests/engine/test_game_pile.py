"""docs/rules.md#discard-pile and the pile rows of docs/rules.md#parameters: blocked tops, freeze
models, take methods, the top-card take, merging on a pair take, the initial meld by taking, melds
inside a take, the hand floor after a take, red 3s in a taken pile.
"""

from __future__ import annotations

import pytest
from rules_support import (
    KINGS7,
    PROFILES,
    QUEENS7,
    SAMBA_4_10,
    allowed,
    codes_of,
    event_types,
    make_snapshot,
    melds_of,
    refused,
)

from samba_adjudicator.engine.model import MeldCards, MeldKind, Phase, TakePile, TakeTopCard


def draw_phase(profile="classic", hand="", discard="", melds=None, players=4, **kw):
    """Seat 0 in DRAW; side 0 opened with a meld of aces unless ``melds`` says otherwise."""
    return make_snapshot(
        profile,
        players,
        hands={0: hand},
        discard=discard,
        melds=melds if melds is not None else {0: ["AH AS AD"]},
        phase=Phase.DRAW,
        **kw,
    )


# -- blocked top ------------------------------------------------------------------------------

# docs/rules.md#blocked-top: pagat any 3 (red-3 upcard included), the others wild or black 3
BLOCKED = {
    "2C": {p: True for p in PROFILES},
    "JK": {p: True for p in PROFILES},
    "3S": {p: True for p in PROFILES},
    "3H": {p: p == "pagat" for p in PROFILES},
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("top", list(BLOCKED))
def test_s4_blocked_top(top, profile):
    """docs/rules.md#blocked-top / docs/rules.md#parameters blocked_top: a wild or black 3 on top
    blocks the pile in every profile; pagat blocks any 3, including a red-3 upcard
    (PILE_BLOCKED)."""
    pair = ("3S", "3C") if top.startswith("3") else ("9S", "9D")
    snap = draw_phase(
        profile,
        hand=" ".join(pair) + " 5C 6D",
        discard="9H " + top,
        melds={0: ["9C 9C 9C"]} if profile != "canasta" else {0: ["KH KS KD"]},
    )
    for action in (TakePile(0, hand_cards=pair), TakePile(0, meld_id="m1")):
        vs = refused(snap, action)
        assert ("PILE_BLOCKED" in codes_of(vs)) is BLOCKED[top][profile], codes_of(vs)


def test_s4_black_three_blocks_only_until_covered():
    """docs/rules.md#blocked-top: a black 3 blocks only until it is covered."""
    snap = draw_phase(hand="9S 9D 5C 6D", discard="3S 9H")
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    assert sorted(out.snapshot.seats[0].hand) == ["3S", "5C", "6D"]


# -- natural pair --------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_s4_natural_pair_take_forms_new_group_rest_to_hand(profile):
    """docs/rules.md#take-with-pair: top card plus the pair form a new group, the rest of
    the pile goes to the hand (appended bottom to top); the turn moves to PLAY."""
    snap = draw_phase(profile, hand="9S 9D 5C 6D", discard="4C KD 9H", melds={0: ["AH AS AD"]})
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    new = out.snapshot
    assert sorted(new.sides[0].melds[-1].cards) == ["9D", "9H", "9S"]
    assert new.sides[0].melds[-1].kind is MeldKind.GROUP
    assert new.seats[0].hand == ("5C", "6D", "4C", "KD")
    assert new.discard_pile == ()
    assert new.turn.phase is Phase.PLAY and new.turn.took_pile
    assert "PILE_TAKEN" in event_types(out)


@pytest.mark.parametrize("profile", PROFILES)
def test_s4_take_needs_natural_pair(profile):
    """docs/rules.md#discard-pile: one natural alone (no wild) never takes the pile
    (TAKE_NEEDS_NATURAL_PAIR)."""
    snap = draw_phase(profile, hand="9S 5C 6D", discard="4C 9H")
    refused(snap, TakePile(0, hand_cards=("9S",)), "TAKE_NEEDS_NATURAL_PAIR")


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("classic", None),
        ("pagat", "WILD_RULE_BROKEN"),
        ("spanish", "WILD_RULE_BROKEN"),
        ("canasta", None),
        ("bolivia", "WILD_RULE_BROKEN"),
        ("official", None),
    ],
)
def test_s4_pair_take_with_extra_cards_within_group_rule(profile, expected):
    """docs/rules.md#take-with-pair "optionally more cards of that rank and wilds, within the group
    rule": 9H top + 9S 9D 2C JK (three naturals, two wilds) follows each profile's wild rule."""
    snap = draw_phase(profile, hand="9S 9D 2C JK 5C 6D", discard="4C 9H")
    action = TakePile(0, hand_cards=("9S", "9D", "2C", "JK"))
    if expected is None:
        out = allowed(snap, action)
        assert len(out.snapshot.sides[0].melds[-1].cards) == 5
    else:
        refused(snap, action, expected)


@pytest.mark.parametrize(
    "profile, joins",
    [
        ("classic", False),
        ("pagat", False),
        ("spanish", False),
        ("canasta", True),
        ("bolivia", False),
    ],
)
def test_s4_pair_take_merges(profile, joins):
    """docs/rules.md#parameters pair_take_merges / docs/rules.md#discard-pile: a pair take forms a
    new group, except where the rank's
    group is joined (canasta: groups_per_rank one). (official "may merge": see report.)"""
    snap = draw_phase(profile, hand="9S 9D 5C 6D", discard="4C 9H", melds={0: ["9C 9S 9D"]})
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    nines = melds_of(out.snapshot)
    if joins:
        assert len(nines) == 1 and len(nines[0]) == 6
        assert out.snapshot.sides[0].melds[0].id == "m1"
    else:
        assert len(nines) == 2 and sorted(nines[1]) == ["9D", "9H", "9S"]


# -- take methods -----------------------------------------------------------------------------

TAKE_METHODS = {
    # method -> profile -> expected code (None = legal); pile "5C KC", unfrozen everywhere
    "natural_plus_wild": {
        "classic": "TAKE_NEEDS_NATURAL_PAIR",
        "pagat": "TAKE_NEEDS_NATURAL_PAIR",
        "spanish": "TAKE_NEEDS_NATURAL_PAIR",
        "canasta": None,
        "bolivia": "TAKE_NEEDS_NATURAL_PAIR",
        "official": "TAKE_NEEDS_NATURAL_PAIR",
    },
    "extend_group": {
        "classic": None,
        "pagat": "TAKE_METHOD_NOT_ALLOWED",
        "spanish": "TAKE_METHOD_NOT_ALLOWED",
        "canasta": "TAKE_METHOD_NOT_ALLOWED",
        "bolivia": None,
        "official": None,
    },
    "extend_canasta": {
        "classic": None,
        "pagat": "TAKE_METHOD_NOT_ALLOWED",
        "spanish": "TAKE_METHOD_NOT_ALLOWED",
        "canasta": "TAKE_METHOD_NOT_ALLOWED",
        "bolivia": "TOP_CARD_DOES_NOT_FIT",
        "official": "TOP_CARD_DOES_NOT_FIT",
    },
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("method", list(TAKE_METHODS))
def test_s3_take_methods(method, profile):
    """docs/rules.md#parameters take_natural_plus_wild (canasta only, unfrozen) and
    take_by_extending_meld (classic any own meld; bolivia/official only a meld of fewer than seven
    cards)."""
    expected = TAKE_METHODS[method][profile]
    if method == "natural_plus_wild":
        snap = draw_phase(profile, hand="KS 2C 5C 6D", discard="5C KC", melds={0: ["AH AS AD"]})
        action = TakePile(0, hand_cards=("KS", "2C"))
    elif method == "extend_group":
        snap = draw_phase(profile, hand="5C 6D", discard="5C KC", melds={0: ["KH KS KD"]})
        action = TakePile(0, meld_id="m1")
    else:
        snap = draw_phase(profile, hand="5C 6D", discard="5C KC", melds={0: [KINGS7]})
        action = TakePile(0, meld_id="m1")
    if expected is None:
        out = allowed(snap, action)
        assert (
            "KC" in out.snapshot.sides[0].melds[-1].cards
            or "KC" in out.snapshot.sides[0].melds[0].cards
        )
        assert out.snapshot.discard_pile == ()
        assert (
            sorted(out.snapshot.seats[0].hand) == ["5C", "5C", "6D"]
            or method == "natural_plus_wild"
        )
    else:
        refused(snap, action, expected)


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("classic", None),
        ("bolivia", None),
        ("official", None),
        ("pagat", "TAKE_METHOD_NOT_ALLOWED"),
    ],
)
def test_s4_extending_take_onto_a_run(profile, expected):
    """docs/rules.md#take-by-extending: runs included (classic, bolivia, official); the top
    card alone is added, the rest goes to the hand."""
    snap = draw_phase(profile, hand="5C 6D", discard="KC 8H", melds={0: ["5H 6H 7H"]})
    action = TakePile(0, meld_id="m1")
    if expected is None:
        out = allowed(snap, action)
        assert out.snapshot.sides[0].melds[0].cards == ("5H", "6H", "7H", "8H")
        assert out.snapshot.seats[0].hand == ("5C", "6D", "KC")
    else:
        refused(snap, action, expected)


@pytest.mark.parametrize("profile", ["classic", "bolivia", "official"])
def test_s4_extending_take_never_a_closed_samba(profile):
    """docs/rules.md#discard-pile: never onto a closed samba (a seven-card run takes nothing)."""
    snap = draw_phase(profile, hand="5C 6D", discard="KC JH", melds={0: [SAMBA_4_10]})
    refused(snap, TakePile(0, meld_id="m1"), "TOP_CARD_DOES_NOT_FIT")


def test_s4_extending_take_card_must_fit():
    """docs/rules.md#discard-pile: the top card must fit the meld (TOP_CARD_DOES_NOT_FIT)."""
    snap = draw_phase(hand="5C 6D", discard="KC QC", melds={0: ["KH KS KD"]})
    refused(snap, TakePile(0, meld_id="m1"), "TOP_CARD_DOES_NOT_FIT")


def test_s4_extending_take_only_own_meld():
    """docs/rules.md#discard-pile/docs/rules.md#where-melds-go: the top card extends one of the
    *side's* melds (NOT_OWN_MELD)."""
    snap = draw_phase(hand="5C 6D", discard="5C KC", melds={0: ["AH AS AD"], 1: ["KH KS KD"]})
    refused(snap, TakePile(0, meld_id="m2"), "NOT_OWN_MELD")


# -- freeze models ----------------------------------------------------------------------------

FROZEN_PILES = {
    # pile (bottom..top) -> profile -> expected code of an extending / natural+wild take
    "2C 5C KC": {
        "classic": "PILE_FROZEN",
        "bolivia": "PILE_FROZEN",
        "official": "PILE_FROZEN",
        "canasta": "PILE_FROZEN",
    },  # a (buried) wild
    "3S 5C KC": {
        "classic": "PILE_FROZEN",
        "bolivia": None,
        "official": None,
        "canasta": None,
    },  # a covered black 3
    "3H 5C KC": {
        "classic": None,
        "bolivia": "PILE_FROZEN",
        "official": "PILE_FROZEN",
        "canasta": "PILE_FROZEN",
    },  # a red-3 upcard
    "5C KC": {"classic": None, "bolivia": None, "official": None, "canasta": None},
}


@pytest.mark.parametrize("profile", ["classic", "bolivia", "official", "canasta"])
@pytest.mark.parametrize("pile", list(FROZEN_PILES))
def test_s4_freeze_models(pile, profile):
    """docs/rules.md#parameters freeze / docs/rules.md#freeze: PILE_HOLDS_WILD_OR_BLACK3 (classic:
    any wild or black 3 in the pile, a buried wild too); CANASTA (wild or red-3 upcard). Frozen
    means only a natural pair takes it: the extending take (classic, bolivia, official) or the
    natural plus wild (canasta) is refused PILE_FROZEN, the natural pair stays legal."""
    expected = FROZEN_PILES[pile][profile]
    if profile == "canasta":
        snap = draw_phase(profile, hand="KS KD 2D 5C 6D", discard=pile, melds={0: ["AH AS AD"]})
        other = TakePile(0, hand_cards=("KS", "2D"))
    else:
        snap = draw_phase(profile, hand="KS KD 5C 6D", discard=pile, melds={0: ["KH KS KD"]})
        other = TakePile(0, meld_id="m1")
    if expected is None:
        allowed(snap, other)
    else:
        refused(snap, other, expected)
    out = allowed(snap, TakePile(0, hand_cards=("KS", "KD")))  # the natural pair
    if pile.startswith("3H"):
        assert "3H" in out.snapshot.sides[0].red_threes


FROZEN_FOR = {  # pile -> profile -> frozenForSides (side 0 opened, side 1 not)
    "2C 5C KC": {
        "classic": (0, 1),
        "pagat": (),
        "spanish": (),
        "canasta": (0, 1),
        "bolivia": (0, 1),
        "official": (0, 1),
    },
    "5C KC": {
        "classic": (),
        "pagat": (),
        "spanish": (),
        "canasta": (1,),
        "bolivia": (1,),
        "official": (1,),
    },
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("pile", list(FROZEN_FOR))
def test_s4_freeze_model_frozen_for_sides(pile, profile):
    """docs/rules.md#parameters freeze / docs/rules.md#discard-pile: NEVER (pagat, spanish) never
    freezes; classic freezes for everyone
    while a wild is in the pile; CANASTA also freezes for a side that has not opened."""
    from samba_adjudicator.engine.pile import frozen_for_sides

    snap = draw_phase(profile, hand="KS KD 5C 6D", discard=pile, melds={0: ["AH AS AD"]})
    assert frozen_for_sides(snap) == FROZEN_FOR[pile][profile]


def test_s4_canasta_frozen_for_unopened_side():
    """docs/rules.md#freeze: always frozen for a side that has not made its initial meld —
    natural plus wild refused (PILE_FROZEN) though the pile holds no wild."""
    snap = draw_phase("canasta", hand="KS 2D AH AS AD 5C 6D", discard="5C KC", melds={})
    refused(
        snap, TakePile(0, hand_cards=("KS", "2D"), new_melds=(("AH", "AS", "AD"),)), "PILE_FROZEN"
    )
    # the other side (opened) may use it
    snap1 = make_snapshot(
        "canasta",
        4,
        hands={1: "KS 2D 5C 6D"},
        discard="5C KC",
        melds={1: ["AH AS AD"]},
        turn_seat=1,
        phase=Phase.DRAW,
    )
    allowed(snap1, TakePile(1, hand_cards=("KS", "2D")))


def test_s4_natural_plus_wild_forms_group_canasta():
    """docs/rules.md#natural-plus-wild (canasta, unfrozen): one natural of the rank plus one
    wild."""
    snap = draw_phase("canasta", hand="KS 2D 5C 6D", discard="5C KC", melds={0: ["AH AS AD"]})
    out = allowed(snap, TakePile(0, hand_cards=("KS", "2D")))
    assert sorted(out.snapshot.sides[0].melds[-1].cards) == ["2D", "KC", "KS"]
    assert sorted(out.snapshot.seats[0].hand) == ["5C", "5C", "6D"]


# -- top card only (pagat) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("classic", "TAKE_METHOD_NOT_ALLOWED"),
        ("pagat", None),
        ("spanish", "TAKE_METHOD_NOT_ALLOWED"),
        ("bolivia", "TAKE_METHOD_NOT_ALLOWED"),
        ("official", "TAKE_METHOD_NOT_ALLOWED"),
    ],
)
def test_s4_take_top_card_to_run_pagat_only(profile, expected):
    """docs/rules.md#parameters take_top_card_to_run / docs/rules.md#discard-pile: in pagat the top
    card alone may be taken to extend a
    side's run of fewer than seven; it is added at once and the rest of the pile stays."""
    snap = draw_phase(profile, hand="5C 6D", discard="KC 8H", melds={0: ["5H 6H 7H"]})
    action = TakeTopCard(0, "m1")
    if expected is None:
        out = allowed(snap, action)
        assert out.snapshot.sides[0].melds[0].cards == ("5H", "6H", "7H", "8H")
        assert out.snapshot.discard_pile == ("KC",)
        assert out.snapshot.seats[0].hand == ("5C", "6D")
        assert out.snapshot.turn.phase is Phase.PLAY and out.snapshot.turn.took_pile
    else:
        refused(snap, action, expected)


@pytest.mark.parametrize(
    "melds, top",
    [
        (["5H 6H 7H 8H 9H 10H JH"], "4H"),  # samba: seven cards, closed
        (["5H 6H 7H"], "9H"),  # does not fit
        (["KH KS KD"], "KC"),  # not a run
    ],
)
def test_s4_take_top_card_must_extend_a_short_run(melds, top):
    """docs/rules.md#take-top-card (pagat): only onto a run of fewer than seven that it extends."""
    snap = draw_phase("pagat", hand="5C 6D", discard="KC " + top, melds={0: melds})
    refused(snap, TakeTopCard(0, "m1"), "TOP_CARD_DOES_NOT_FIT")


def test_s4_take_top_card_blocked_top():
    """docs/rules.md#discard-pile: a blocked top may not be taken by the top-card take either."""
    snap = draw_phase("pagat", hand="5C 6D", discard="KC 3H", melds={0: ["5H 6H 7H"]})
    refused(snap, TakeTopCard(0, "m1"), "PILE_BLOCKED")


# -- initial meld by taking --------------------------------------------------------------------


def test_s4_initial_meld_by_taking_counts_top_and_pair_only():
    """docs/rules.md#opening-by-taking: top card + pair count; the rest of the pile (here an ace,
    a joker, kings) does not (INITIAL_MELD_TOO_LOW required 50, actual 30)."""
    snap = draw_phase(hand="KS KD 5C 6D", discard="AH JK AS AD KH", melds={})
    vs = refused(snap, TakePile(0, hand_cards=("KS", "KD")), "INITIAL_MELD_TOO_LOW")
    v = next(v for v in vs if v.code == "INITIAL_MELD_TOO_LOW")
    assert (v.details["required"], v.details["actual"]) == ("50", "30")


def test_s4_initial_meld_by_taking_with_further_hand_melds():
    """docs/rules.md#discard-pile / docs/rules.md#initial-meld: further melds from the hand in the
    same take action count (30 + 60 = 90)."""
    snap = draw_phase(hand="KS KD AH AS AD 5C 6D", discard="4C KH", melds={})
    out = allowed(snap, TakePile(0, hand_cards=("KS", "KD"), new_melds=(("AH", "AS", "AD"),)))
    assert len(out.snapshot.sides[0].melds) == 2
    assert sorted(out.snapshot.seats[0].hand) == ["4C", "5C", "6D"]


def test_s4_initial_meld_by_taking_runs_count():
    """docs/rules.md#initial-meld several melds in one action count together, runs included (take
    30 + run 30)."""
    snap = draw_phase(hand="KS KD 9C 10C JC 5C 6D", discard="4D KH", melds={})
    allowed(snap, TakePile(0, hand_cards=("KS", "KD"), new_melds=(("9C", "10C", "JC"),)))


def test_s4_melds_inside_a_take_use_hand_cards_only():
    """docs/rules.md#discard-pile: melds laid inside a take use hand cards only; pile cards are not
    yet meldable (CARDS_NOT_IN_HAND), but a later meld action may use them."""
    snap = draw_phase(hand="KS KD 5C 6D", discard="AH AS AD KH")
    refused(
        snap,
        TakePile(0, hand_cards=("KS", "KD"), new_melds=(("AH", "AS", "AD"),)),
        "CARDS_NOT_IN_HAND",
    )
    out = allowed(snap, TakePile(0, hand_cards=("KS", "KD")))
    out2 = allowed(out.snapshot, MeldCards(0, new_melds=(("AH", "AS", "AD"),)))
    assert ("AH", "AS", "AD") in melds_of(out2.snapshot)


# -- hand floor after a take; going out by a take ---------------------------------------------


def test_s4_hand_floor_after_take():
    """docs/rules.md#hand-floor-after-take: pile cards count as hand cards; fewer than two cards
    left after the take is refused when the side cannot go out (HAND_FLOOR)."""
    snap = draw_phase(hand="9S 9D", discard="4C 9H")  # one card left
    refused(snap, TakePile(0, hand_cards=("9S", "9D")), "HAND_FLOOR")
    snap2 = draw_phase(hand="9S 9D", discard="4C 5D 9H")  # two cards left
    out = allowed(snap2, TakePile(0, hand_cards=("9S", "9D")))
    assert sorted(out.snapshot.seats[0].hand) == ["4C", "5D"]


def test_s4_hand_floor_after_take_side_may_go_out():
    """docs/rules.md#discard-pile: when the side may go out, one card left after a take is fine."""
    snap = draw_phase(hand="9S 9D", discard="4C 9H", melds={0: [KINGS7, QUEENS7]}, has_melded=[0])
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    assert out.snapshot.seats[0].hand == ("4C",)


def test_s4_take_that_empties_hand_goes_out():
    """docs/rules.md#discard-pile: if the side may go out, a take that empties the hand goes out
    (not concealed)."""
    snap = draw_phase(hand="9S 9D", discard="9H", melds={0: [KINGS7, QUEENS7]}, has_melded=[0])
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    assert out.snapshot.turn.phase is Phase.OVER
    assert out.snapshot.result.seat == 0 and not out.snapshot.result.concealed
    assert out.score is not None


def test_s4_take_that_empties_hand_refused_when_side_cannot_go_out():
    """docs/rules.md#discard-pile/docs/rules.md#going-out: emptying the hand by a take needs the
    going-out requirement."""
    snap = draw_phase(hand="9S 9D", discard="9H", melds={0: [KINGS7]})
    vs = refused(snap, TakePile(0, hand_cards=("9S", "9D")))
    assert set(codes_of(vs)) & {"GO_OUT_REQUIREMENT_NOT_MET", "HAND_FLOOR"}


# -- red 3s in a taken pile --------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["classic", "spanish", "canasta", "bolivia", "official"])
def test_s4_red_threes_in_taken_pile_laid_out_without_replacement(profile):
    """docs/rules.md#discard-pile / docs/rules.md#spanish: red 3s found in a taken pile are laid
    out without replacement."""
    snap = draw_phase(profile, hand="9S 9D 5C 6D", discard="3H 4C 9H")
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    new = out.snapshot
    assert new.sides[0].red_threes == ("3H",)
    assert "3H" not in new.seats[0].hand
    assert new.seats[0].hand == ("5C", "6D", "4C")
    assert new.stock_count == snap.stock_count
    assert "RED_THREE_LAID" in event_types(out)


def test_s4_empty_pile_cannot_be_taken():
    """docs/rules.md#discard-pile: an empty pile cannot be taken (PILE_EMPTY)."""
    snap = draw_phase(hand="9S 9D 5C", discard="")
    refused(snap, TakePile(0, hand_cards=("9S", "9D")), "PILE_EMPTY")

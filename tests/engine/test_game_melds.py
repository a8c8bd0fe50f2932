"""docs/rules.md#cards, #card-values, #runs, #groups, #black-three-groups, #wild-rules (and the
meld-shape rows of the parameter table), docs/rules.md#melding (melding: ids, atomicity, uruguayan,
canasta one group per rank, wild swap) and the `open` variation (docs/rules.md#profiles).

Each test names its docs/rules.md section; where profiles differ one parametrised test shows
the outcome of every profile side by side.
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

from samba_adjudicator.engine.game import check_meld, validate
from samba_adjudicator.engine.model import (
    Addition,
    Discard,
    GoOut,
    Meld,
    MeldCards,
    MeldKind,
    MeldStatus,
    Phase,
    RunEnd,
    SwapWild,
)
from samba_adjudicator.engine.ruleset import resolve


def content(profile: str, cs: str):
    return check_meld(resolve(profile), tuple(cs.split()))


def opened(profile="classic", hand="", melds=None, players=4, **kw):
    """Seat 0 in PLAY; side 0 opened (default: one meld of aces), hand as given."""
    return make_snapshot(
        profile,
        players,
        hands={0: hand},
        melds=melds if melds is not None else {0: ["AH AS AD"]},
        **kw,
    )


# -- docs/rules.md#card-values ---------------------------------------------------------------------


def test_s2_card_values_joker_50():
    """docs/rules.md#card-values: joker 50, A 20 (bolivia allows the jokers in a wild group)."""
    assert content("bolivia", "JK JK JK").points == 150


@pytest.mark.parametrize(
    "cs, pts",
    [
        ("AH AS AD", 60),  # A 20
        ("AH AS 2C", 60),  # 2 20
        ("KH KS JK", 70),  # K 10, joker 50
        ("QH QS QD", 30),
        ("JH JS JD", 30),
        ("10H 10S 10D", 30),
        ("9H 9S 9D", 30),
        ("8H 8S 8D", 30),  # K..8: 10
        ("7H 7S 7D", 15),
        ("6H 6S 6D", 15),
        ("5H 5S 5D", 15),
        ("4H 4S 4D", 15),  # 7..4: 5
        ("3S 3C 3S", 15),  # black 3: 5
        ("4H 5H 6H 7H 8H 9H 10H", 50),
    ],
)
def test_s2_card_values_meld_points(cs, pts):
    """docs/rules.md#card-values: joker 50; A 20; 2 20; K..8 10; 7..4 5; black 3 5 (CheckMeld
    points)."""
    assert content("classic", cs).points == pts


# -- docs/rules.md#runs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cs, ok",
    [
        ("4H 5H 6H", True),  # 4 is low
        ("QH KH AH", True),  # ace high
        ("10S JS QS KS AS", True),
        ("KH AH 4H", False),  # no wrap
        ("AH 4H 5H", False),  # ace is never low
        ("AS 2S 3S", False),  # seed 004's "A-2-3" order is impossible (Decision)
        ("AH 2H 3H", False),
        ("4S 3S 2S", False),
        ("3C 4C 5C", False),  # no 3s
        ("4H 5H 5H 6H", False),  # no duplicates
        ("4H 6H 7H", False),  # unbroken
        ("4H 5S 6H", False),  # one suit
        ("4H 5H 2C", False),  # no wilds without runs_allow_wilds
        ("4H 5H JK", False),
    ],
)
def test_s2_run_shape_classic(cs, ok):
    """docs/rules.md#runs: naturals of one suit, 4 low ace high, no wrap, no 2s/3s, no duplicates,
    no wilds; seed 004's A-2-3 runs are refused (Decision)."""
    got = content("classic", cs)
    assert got.valid is ok, got.violations
    if ok:
        assert got.kind is MeldKind.RUN


def test_s2_run_with_wild_refused_code():
    """docs/rules.md#runs: no wild cards unless runs_allow_wilds."""
    got = content("classic", "4H 5H 2C")
    assert "WILD_IN_RUN_NOT_ALLOWED" in codes_of(got.violations)


def test_s2_run_never_exceeds_seven():
    """docs/rules.md#runs: a run never exceeds seven cards (new meld of eight)."""
    got = content("classic", "4H 5H 6H 7H 8H 9H 10H JH")
    assert not got.valid and "RUN_TOO_LONG" in codes_of(got.violations)


def test_s2_seven_card_run_is_a_samba():
    """docs/rules.md#runs: a run of seven is a samba."""
    got = content("classic", SAMBA_4_10)
    assert got.valid and got.status is MeldStatus.SAMBA and got.natural


def test_s2_samba_is_closed_nothing_may_be_added():
    """docs/rules.md#runs: a samba is closed (MELD_CLOSED on adding, even a card that would fit)."""
    snap = opened(hand="4H 9C 9D", melds={0: ["5H 6H 7H 8H 9H 10H JH"]})
    refused(snap, MeldCards(0, additions=(Addition("m1", ("4H",)),)), "MELD_CLOSED")


@pytest.mark.parametrize(
    "add, result",
    [
        ("5H", ("5H", "6H", "7H", "8H")),
        ("9H", ("6H", "7H", "8H", "9H")),
        ("5H 9H", ("5H", "6H", "7H", "8H", "9H")),
        ("4H 5H", ("4H", "5H", "6H", "7H", "8H")),
    ],
)
def test_s2_run_extends_at_either_end(add, result):
    """docs/rules.md#runs: cards may be added at either end; the run is kept low to high."""
    snap = opened(hand=add + " KC KD", melds={0: ["6H 7H 8H"]})
    out = allowed(snap, MeldCards(0, additions=(Addition("m1", tuple(add.split())),)))
    assert out.snapshot.sides[0].melds[0].cards == result


@pytest.mark.parametrize("add", ["10H", "4H", "6H", "9S", "2C"])
def test_s2_run_extension_must_stay_a_run(add):
    """docs/rules.md#runs: an addition that breaks the order, duplicates, changes suit or is wild is
    refused."""
    snap = opened(hand=add + " KC KD", melds={0: ["6H 7H 8H"]})
    refused(snap, MeldCards(0, additions=(Addition("m1", (add,)),)))


def test_s2_run_addition_past_seven_refused():
    """docs/rules.md#runs: a run never exceeds seven cards (addition)."""
    snap = opened(hand="4H 5H KC KD", melds={0: ["6H 7H 8H 9H 10H JH"]})
    vs = refused(snap, MeldCards(0, additions=(Addition("m1", ("4H", "5H")),)))
    assert set(codes_of(vs)) & {"RUN_TOO_LONG", "MELD_CLOSED"}


def test_s2_several_runs_of_one_suit_never_merged():
    """docs/rules.md#runs: a side may hold several runs of one suit; two runs are never merged."""
    snap = opened(hand="9H 10H JH 7H 8H KC KD", melds={0: ["4H 5H 6H"]})
    out = allowed(snap, MeldCards(0, new_melds=(("9H", "10H", "JH"),)))
    assert melds_of(out.snapshot) == [("4H", "5H", "6H"), ("9H", "10H", "JH")]
    out = allowed(
        out.snapshot, MeldCards(0, additions=(Addition("m1", ("7H",)), Addition("m2", ("8H",))))
    )
    assert melds_of(out.snapshot) == [("4H", "5H", "6H", "7H"), ("8H", "9H", "10H", "JH")]


def test_s3_runs_not_allowed_in_canasta():
    """docs/rules.md#parameters runs: canasta has no runs (RUNS_NOT_ALLOWED)."""
    got = content("canasta", "4H 5H 6H")
    assert not got.valid and "RUNS_NOT_ALLOWED" in codes_of(got.violations)


# -- docs/rules.md#variations ------------------------------------------------------------------


@pytest.mark.parametrize(
    "profile, ok",
    [("classic", False), ("classic+open", True), ("pagat+open", True), ("official+open", True)],
)
def test_s1_open_run_may_hold_one_wild(profile, ok):
    """docs/rules.md#variations (runs_allow_wilds): a run may hold at most one wild standing for a
    lacking rank; without the variation it is refused."""
    got = content(profile, "4H 6H 2C")
    assert got.valid is ok


def test_s1_open_run_wild_takes_the_missing_rank():
    """docs/rules.md#variations / docs/api.md#snapshot: the wild sits in the position of the rank
    it stands for."""
    snap = opened("classic+open", hand="4H 6H 2C KC KD")
    out = allowed(snap, MeldCards(0, new_melds=(("4H", "6H", "2C"),)))
    assert out.snapshot.sides[0].melds[-1].cards == ("4H", "2C", "6H")


def test_s1_open_run_at_most_one_wild():
    """docs/rules.md#variations: at most one wild in a run (new meld and addition)."""
    got = content("classic+open", "4H 5H 2C JK")
    assert not got.valid and "WILD_IN_RUN_NOT_ALLOWED" in codes_of(got.violations)
    snap = opened("classic+open", hand="JK KC KD", melds={0: ["4H 5H 2C"]})
    refused(snap, MeldCards(0, additions=(Addition("m1", ("JK",)),)), "WILD_IN_RUN_NOT_ALLOWED")


def test_s1_open_samba_closed_scores_1000_and_counts_for_going_out():
    """docs/rules.md#variations: a seven-card run holding a wild is a samba (closed,
    open_samba_bonus 1000, counts toward going out like any samba)."""
    snap = opened(
        "classic+open", hand="2C 5C", has_melded=[0], melds={0: ["4H 5H 6H 7H 8H 9H", KINGS7]}
    )
    out = allowed(snap, MeldCards(0, additions=(Addition("m1", ("2C",)),)))
    assert "SAMBA_COMPLETED" in event_types(out)
    samba = out.snapshot.sides[0].melds[0]
    assert len(samba.cards) == 7 and "2C" in samba.cards
    # closed
    snap2 = opened("classic+open", hand="JH 5C 5D", melds={0: [samba.cards, KINGS7]})
    refused(snap2, MeldCards(0, additions=(Addition("m1", ("JH",)),)), "MELD_CLOSED")
    # counts toward going out: the discard empties the hand and ends the deal
    end = allowed(out.snapshot, Discard(0, "5C"))
    assert end.snapshot.turn.phase is Phase.OVER
    s0 = end.score.sides[0]
    assert s0.samba_bonus == 1000 and s0.sambas == 1


# -- docs/rules.md#groups --------------------------------------------------------------------------


def test_s2_group_needs_three_cards():
    """docs/rules.md#groups: three or more cards (MELD_TOO_SHORT)."""
    got = content("classic", "9H 9S")
    assert not got.valid and "MELD_TOO_SHORT" in codes_of(got.violations)


def test_s2_group_one_natural_rank():
    """docs/rules.md#groups: naturals of one rank only (MIXED_RANKS); 3s are never group
    naturals."""
    got = content("classic", "9H 9S 10D")
    assert not got.valid and "MIXED_RANKS" in codes_of(got.violations)
    assert not content("classic", "3H 3H 3D").valid
    assert not content("classic", "3S 3C 2D").valid


def test_s2_group_becomes_canasta_at_seven():
    """docs/rules.md#groups: a group of seven or more is a canasta; six is not."""
    assert content("classic", "KH KS KD KC KH KS").status is MeldStatus.INCOMPLETE
    got = content("classic", KINGS7)
    assert got.status is MeldStatus.CANASTA and got.natural


def test_s2_canasta_may_grow_past_seven():
    """docs/rules.md#groups: groups keep growing past seven (not closed like a samba)."""
    snap = opened(hand="KC KH KS 5C 5D", melds={0: [KINGS7]})
    out = allowed(snap, MeldCards(0, additions=(Addition("m1", ("KC", "KH")),)))
    assert len(out.snapshot.sides[0].melds[0].cards) == 9


def test_s2_natural_or_mixed_judged_from_final_content():
    """docs/rules.md#groups: natural vs mixed is judged from the final content — a natural canasta
    that later takes a wild scores as mixed (300, not 500)."""
    snap = opened(hand="2C 5C 5D", melds={0: [KINGS7]})
    out = allowed(snap, MeldCards(0, additions=(Addition("m1", ("2C",)),)))
    from samba_adjudicator.engine.scoring import score

    s0 = score(out.snapshot, provisional=True).sides[0]
    assert (s0.natural_canastas, s0.mixed_canastas, s0.canasta_bonus) == (0, 1, 300)


def test_s2_every_card_played_must_be_in_hand_as_multiset():
    """docs/rules.md#atomic-melds: every card must be in the hand, as a multiset."""
    snap = opened(hand="QH QH 5C 5D")
    refused(snap, MeldCards(0, new_melds=(("QH", "QH", "QH"),)), "CARDS_NOT_IN_HAND")


# -- docs/rules.md#wild-rules wild rules -----------------------------------------------------------

WILD_RULE_CASES = {
    # docs/rules.md#parameters "Examples" verbatim, one row per profile
    "QH QS QD 2C JK": {
        "classic": True,
        "official": True,
        "pagat": False,
        "spanish": False,
        "canasta": True,
        "bolivia": False,
    },
    "5H 5S 2C": {p: True for p in PROFILES},
    "5H 2C 2D": {p: False for p in PROFILES},
    "9H 9S 9D 9C 2C 2D JK": {p: p == "canasta" for p in PROFILES},
    "9H 9S 9D 2C 2D JK": {p: False for p in PROFILES},
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("cs", list(WILD_RULE_CASES))
def test_s3_group_wild_rule_examples(cs, profile):
    """docs/rules.md#wild-rules_wild_rule examples: Q-Q-Q-2-JK legal in classic and official,
    illegal in pagat and spanish; 5-5-2 everywhere; 5-2-2 nowhere; 9-9-9-9-2-2-JK only in canasta;
    9-9-9-2-2-JK illegal in canasta (Decision)."""
    expected = WILD_RULE_CASES[cs][profile]
    got = content(profile, cs)
    assert got.valid is expected, got.violations
    if not expected:
        assert set(codes_of(got.violations)) & {"WILD_RULE_BROKEN", "TOO_MANY_WILDS"}


def test_s3_canasta_three_wilds_more_naturals_code():
    """docs/rules.md#parameters Decision: canasta 9-9-9-2-2-JK breaks MORE_NATURALS (not the wild
    cap)."""
    got = content("canasta", "9H 9S 9D 2C 2D JK")
    assert codes_of(got.violations) == ["WILD_RULE_BROKEN"]


@pytest.mark.parametrize(
    "profile, ok",
    [
        ("classic", True),
        ("pagat", True),
        ("spanish", False),
        ("canasta", True),
        ("bolivia", True),
        ("official", True),
    ],
)
def test_s3_one_until_seven_second_wild_below_seven(profile, ok):
    """docs/rules.md#one-group-per-rank_UNTIL_SEVEN (spanish): a second wild only in a group of
    seven or more — 6-6-6-6-2-JK (six cards, two wilds) is refused only in spanish."""
    assert content(profile, "6H 6S 6D 6C 2C JK").valid is ok


def test_s3_one_until_seven_second_wild_at_seven():
    """docs/rules.md#one-group-per-rank_UNTIL_SEVEN: a seven-card group may hold two wilds; a
    six-card one only one, also when the second wild arrives by addition."""
    assert content("spanish", "6H 6S 6D 6C 6H 2C JK").valid
    assert content("spanish", "6H 6S 6D 6C 6H 2C").valid
    snap = opened("spanish", hand="JK 6C 5C 5D", melds={0: ["6H 6S 6D 6C 2C"]})
    refused(snap, MeldCards(0, additions=(Addition("m1", ("JK",)),)), "WILD_RULE_BROKEN")
    allowed(snap, MeldCards(0, additions=(Addition("m1", ("6C", "JK")),)))


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("classic", "TOO_MANY_WILDS"),
        ("pagat", "TOO_MANY_WILDS"),
        ("spanish", "TOO_MANY_WILDS"),
        ("canasta", None),
        ("bolivia", "TOO_MANY_WILDS"),
        ("official", "TOO_MANY_WILDS"),
    ],
)
def test_s3_group_max_wilds(profile, expected):
    """docs/rules.md#wild-rules_max_wilds caps every rule: eight naturals and three wilds are legal
    only in canasta (cap 3); four wilds nowhere."""
    got = content(profile, "KH KS KD KC KH KS KD KC 2C 2D JK")
    assert got.valid is (expected is None)
    if expected:
        assert expected in codes_of(got.violations)
    four = content(profile, "KH KS KD KC KH KS KD KC 2C 2D JK 2H")
    assert not four.valid and "TOO_MANY_WILDS" in codes_of(four.violations)


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("classic", None),
        ("pagat", None),
        ("spanish", None),
        ("canasta", None),
        ("bolivia", None),
        ("official", "WILD_ONTO_CANASTA_NOT_ALLOWED"),
    ],
)
def test_s3_wild_onto_canasta(profile, expected):
    """docs/rules.md#wild-rules_onto_canasta / docs/rules.md#bolivia: official refuses any wild
    added to a completed canasta;
    the others allow it within the wild rule."""
    snap = opened(profile, hand="2C 5C 5D", melds={0: [KINGS7]})
    judge_out = MeldCards(0, additions=(Addition("m1", ("2C",)),))
    if expected is None:
        out = allowed(snap, judge_out)
        assert out.snapshot.sides[0].melds[0].cards[-1] == "2C"
    else:
        refused(snap, judge_out, expected)


def test_s3_wild_onto_incomplete_group_official_allowed():
    """docs/rules.md#wild-rules_onto_canasta: official refuses wilds only on a *completed*
    canasta."""
    snap = opened("official", hand="2C 5C 5D", melds={0: ["KH KS KD"]})
    allowed(snap, MeldCards(0, additions=(Addition("m1", ("2C",)),)))


# -- docs/rules.md#parameters/docs/rules.md#one-group-per-rank groups per rank ---------------------


@pytest.mark.parametrize(
    "profile, groups",
    [("classic", 2), ("pagat", 2), ("spanish", 2), ("canasta", 1), ("bolivia", 2)],
)
def test_s5_6_groups_per_rank(profile, groups):
    """docs/rules.md#wild-ruless_per_rank / docs/rules.md#one-group-per-rank: in canasta melding
    cards of a rank the side holds joins
    that group; elsewhere a second group of the rank is a new meld."""
    snap = opened(profile, hand="KC KH KS 5C 5D", melds={0: ["KH KS KD"]})
    out = allowed(snap, MeldCards(0, new_melds=(("KC", "KH", "KS"),)))
    kings = [m for m in out.snapshot.sides[0].melds if m.cards[0].startswith("K")]
    assert len(kings) == groups
    if groups == 1:
        assert len(kings[0].cards) == 6 and kings[0].id == "m1"


def test_s5_6_canasta_single_card_joins_group():
    """docs/rules.md#one-group-per-rank canasta: even one card of a held rank, laid as a meld,
    joins that group."""
    snap = opened("canasta", hand="KC 5C 5D", melds={0: ["KH KS KD"]})
    out = allowed(snap, MeldCards(0, new_melds=(("KC",),)))
    assert melds_of(out.snapshot) == [("KH", "KS", "KD", "KC")]


# -- docs/rules.md#wild-swap wild swap -------------------------------------------------------------


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("classic", None),
        ("pagat", "WILD_SWAP_NOT_ALLOWED"),
        ("spanish", "WILD_SWAP_NOT_ALLOWED"),
        ("canasta", "WILD_SWAP_NOT_ALLOWED"),
        ("bolivia", "WILD_SWAP_NOT_ALLOWED"),
        ("official", "WILD_SWAP_NOT_ALLOWED"),
    ],
)
def test_s5_4_wild_swap_classic_only(profile, expected):
    """docs/rules.md#wild-rules_swap / docs/rules.md#wild-swap: only classic lets a player put the
    natural in an incomplete group and take the wild into the hand."""
    snap = opened(profile, hand="QD 5C 5D", melds={0: ["QH QS 2C"]})
    action = SwapWild(0, "m1", "QD", "2C")
    if expected is None:
        out = allowed(snap, action)
        assert sorted(out.snapshot.sides[0].melds[0].cards) == ["QD", "QH", "QS"]
        assert sorted(out.snapshot.seats[0].hand) == ["2C", "5C", "5D"]
        assert "WILD_SWAPPED" in event_types(out)
    else:
        refused(snap, action, expected)


def test_s5_4_wild_swap_only_in_incomplete_group():
    """docs/rules.md#wild-swap: the wild of a canasta (seven or more) may not be swapped."""
    snap = opened(hand="QD 5C 5D", melds={0: ["QH QS QD QC QH QS 2C"]})
    refused(snap, SwapWild(0, "m1", "QD", "2C"), "WILD_SWAP_NOT_ALLOWED")


@pytest.mark.parametrize("natural, wild", [("KD", "2C"), ("QD", "JK"), ("QD", "QH")])
def test_s5_4_wild_swap_mismatch(natural, wild):
    """docs/rules.md#wild-swap: the natural must be of the group's rank and the wild must be in the
    group."""
    snap = opened(hand="QD KD 5C 5D", melds={0: ["QH QS 2C"]})
    refused(snap, SwapWild(0, "m1", natural, wild), "WILD_SWAP_MISMATCH")


# -- docs/rules.md#black-three-groups --------------------------------------------------------------


def two_canastas(profile="classic", hand="", **kw):
    return opened(profile, hand=hand, melds={0: [KINGS7, QUEENS7]}, has_melded=[0], **kw)


def test_s2_black_three_group_when_going_out():
    """docs/rules.md#black-three-groups: legal when afterwards at most one card remains and the
    side may go out; the deal then ends by the discard."""
    snap = two_canastas(hand="3S 3C 3S 5C")
    out = allowed(snap, MeldCards(0, new_melds=(("3S", "3C", "3S"),)))
    assert out.snapshot.sides[0].melds[-1].kind is MeldKind.BLACK_THREES
    end = allowed(out.snapshot, Discard(0, "5C"))
    assert end.snapshot.result.seat == 0


def test_s2_black_three_group_melding_everything_goes_out():
    """docs/rules.md#black-three-groups / docs/rules.md#going-out: melding the last cards as black
    3s goes out."""
    snap = two_canastas(hand="3S 3C 3S")
    out = allowed(snap, MeldCards(0, new_melds=(("3S", "3C", "3S"),)))
    assert out.snapshot.turn.phase is Phase.OVER


@pytest.mark.parametrize("case", ["two_cards_left", "side_cannot_go_out", "partner_said_no"])
def test_s2_black_threes_only_when_going_out(case):
    """docs/rules.md#black-three-groups: refused (BLACK_THREES_ONLY_WHEN_GOING_OUT) when two or
    more cards remain, when the side does not meet the going-out requirement, or after "no"."""
    if case == "two_cards_left":
        snap = two_canastas(hand="3S 3C 3S 5C 6D")
    elif case == "side_cannot_go_out":
        snap = opened(hand="3S 3C 3S 5C", melds={0: [KINGS7]})
    else:
        snap = two_canastas(hand="3S 3C 3S 5C", go_out=GoOut.DENIED)
    vs = refused(snap, MeldCards(0, new_melds=(("3S", "3C", "3S"),)))
    if case != "partner_said_no":
        assert "BLACK_THREES_ONLY_WHEN_GOING_OUT" in codes_of(vs)
    else:
        assert set(codes_of(vs)) & {"BLACK_THREES_ONLY_WHEN_GOING_OUT", "GO_OUT_REFUSED_BY_PARTNER"}


def test_s2_black_three_group_content_only_check():
    """docs/rules.md#black-three-groups / docs/api.md#methods CheckMeld: content alone is valid,
    with a note that the group needs a going-out context (docs/rules.md "Further decisions")."""
    got = content("classic", "3S 3C 3S")
    assert got.valid and got.kind is MeldKind.BLACK_THREES and not got.violations
    assert "going out" in got.note


@pytest.mark.parametrize(
    "profile, size, ok",
    [
        # (a 3-deck pack holds six black 3s, canasta's 2-deck pack four)
        ("classic", 4, True),
        ("classic", 5, False),
        ("classic", 6, False),
        ("pagat", 6, True),
        ("spanish", 6, True),
        ("canasta", 4, True),
        ("bolivia", 6, True),
        ("official", 6, True),
    ],
)
def test_s3_black_three_group_max(profile, size, ok):
    """docs/rules.md#parameters black_three_group_max: 4 classic/canasta, 6 elsewhere
    (BLACK_THREE_GROUP_TOO_LARGE)."""
    blacks = ("3S 3C " * 4).split()[:size]
    melds = {0: [KINGS7, QUEENS7]}
    if profile == "canasta":
        melds = {0: [KINGS7]}
    if profile == "bolivia":
        melds = {0: [SAMBA_4_10, KINGS7]}  # bolivia goes out only with a samba
    snap = opened(profile, hand=" ".join(blacks), melds=melds, has_melded=[0])
    action = MeldCards(0, new_melds=(tuple(blacks),))
    if ok:
        out = allowed(snap, action)
        assert out.snapshot.turn.phase is Phase.OVER
    else:
        refused(snap, action, "BLACK_THREE_GROUP_TOO_LARGE")


def test_s2_black_three_group_holds_no_wild():
    """docs/rules.md#black-three-groups: no wilds."""
    snap = two_canastas(hand="3S 3C 2D")
    refused(snap, MeldCards(0, new_melds=(("3S", "3C", "2D"),)))


# -- docs/rules.md#where-melds-go where, ids; docs/rules.md#atomic-melds ---------------------------


def test_s5_1_partners_share_melds_other_side_refused():
    """docs/rules.md#seating / docs/rules.md#where-melds-go: a partner may add to the side's melds;
    another side's meld is refused (NOT_OWN_MELD)."""
    snap = make_snapshot(
        "classic",
        4,
        hands={2: "AC 5C 5D", 1: "AC 5C 5D"},
        melds={0: ["AH AS AD"], 1: ["KH KS KD"]},
        turn_seat=2,
    )
    out = allowed(snap, MeldCards(2, additions=(Addition("m1", ("AC",)),)))
    assert out.snapshot.turn.added_to_partner_melds
    snap1 = make_snapshot(
        "classic", 4, hands={1: "AC 5C 5D"}, melds={0: ["AH AS AD"], 1: ["KH KS KD"]}, turn_seat=1
    )
    refused(snap1, MeldCards(1, additions=(Addition("m1", ("AC",)),)), "NOT_OWN_MELD")


def test_s5_1_meld_ids_m_n_in_action_order():
    """docs/rules.md#where-melds-go / docs/api.md#snapshot: a new meld gets m<N>, N = 1 + the
    largest existing N, in action
    order (ids of other forms are ignored)."""
    mine = Meld("m7", ("AH", "AS", "AD"), 0, MeldKind.GROUP)
    odd = Meld("zz99", ("KH", "KS", "KD"), 0, MeldKind.GROUP)
    theirs = Meld("m3", ("QH", "QS", "QD"), 1, MeldKind.GROUP)
    snap = make_snapshot(
        "classic", 4, hands={0: "9H 9S 9D 4C 5C 6C 7D 8D"}, melds={0: [mine, odd], 1: [theirs]}
    )
    out = allowed(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"), ("4C", "5C", "6C"))))
    ids = [m.id for m in out.snapshot.sides[0].melds]
    assert ids == ["m7", "zz99", "m8", "m9"]
    assert out.snapshot.sides[0].melds[2].cards == ("9H", "9S", "9D")


def test_s2_meld_action_is_atomic():
    """docs/rules.md#atomic-melds: one bad meld refuses the whole action; nothing changes."""
    snap = opened(hand="9H 9S 9D 4C 5C 7C KH KS")
    vs = refused(
        snap, MeldCards(0, new_melds=(("9H", "9S", "9D"), ("4C", "5C", "7C"))), "NOT_A_RUN"
    )
    assert all(v.code != "MELD_CREATED" for v in vs)


def test_s2_meld_action_atomic_additions_too():
    """docs/rules.md#atomic-melds: a good new meld plus a bad addition is refused as a whole."""
    snap = opened(hand="9H 9S 9D KC 5C 6C")
    refused(
        snap,
        MeldCards(0, new_melds=(("9H", "9S", "9D"),), additions=(Addition("m1", ("KC",)),)),
        "MIXED_RANKS",
    )


# -- docs/rules.md#uruguayan uruguayan -------------------------------------------------------------


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("classic", None),
        ("classic+uruguayan", "SIDE_WILD_LIMIT"),
        ("pagat+uruguayan", "SIDE_WILD_LIMIT"),
        ("official+uruguayan", "SIDE_WILD_LIMIT"),
    ],
)
def test_s5_5_uruguayan_side_wild_limit(profile, expected):
    """docs/rules.md#profiles/docs/rules.md#uruguayan uruguayan: the wilds in all of a side's
    groups together never exceed two."""
    snap = opened(profile, hand="9H 9S 9D 2D 5C 5D", melds={0: ["KH KS KD 2C", "QH QS QD 2H"]})
    action = MeldCards(0, new_melds=(("9H", "9S", "9D", "2D"),))
    if expected is None:
        allowed(snap, action)
    else:
        refused(snap, action, expected)


def test_s5_5_uruguayan_addition_counts_too():
    """docs/rules.md#uruguayan uruguayan: adding a third wild to any group of the side is
    refused."""
    snap = opened(
        "classic+uruguayan", hand="2D 5C 5D", melds={0: ["KH KS KD KC 2C", "QH QS QD 2H"]}
    )
    refused(snap, MeldCards(0, additions=(Addition("m1", ("2D",)),)), "SIDE_WILD_LIMIT")


def test_s5_5_uruguayan_counts_groups_only():
    """docs/rules.md#profiles uruguayan limits the wilds in a side's *groups*; an open run's wild
    is not one."""
    snap = opened(
        "classic+uruguayan+open", hand="4H 5H 2D 5C 5D", melds={0: ["KH KS KD 2C", "QH QS QD 2H"]}
    )
    allowed(snap, MeldCards(0, new_melds=(("4H", "5H", "2D"),)))


# -- docs/rules.md#bolivia wild-only groups --------------------------------------------------------


@pytest.mark.parametrize("profile, ok", [(p, p == "bolivia") for p in PROFILES])
def test_s8_wild_only_groups_bolivia_only(profile, ok):
    """docs/rules.md#wild-rules_max_wilds "(+ wild-only groups)" / docs/rules.md#bolivia: groups of
    three to seven wilds exist
    only in bolivia (WILD_ONLY_GROUP_NOT_ALLOWED elsewhere)."""
    got = content(profile, "JK 2C 2D")
    assert got.valid is ok
    if not ok:
        assert "WILD_ONLY_GROUP_NOT_ALLOWED" in codes_of(got.violations)


def test_s8_bolivia_seven_wilds_closed():
    """docs/rules.md#bolivia: a seven-wild group is a bolivia, closed (nothing more may be
    added)."""
    got = content("bolivia", "JK JK 2C 2D 2H 2S JK")
    assert got.valid and got.status is MeldStatus.CLOSED
    snap = opened("bolivia", hand="JK 5C 5D", melds={0: ["JK JK 2C 2D 2H 2S JK"]})
    refused(snap, MeldCards(0, additions=(Addition("m1", ("JK",)),)), "MELD_CLOSED")
    assert not content("bolivia", "JK JK 2C 2D 2H 2S JK 2C").valid


def test_s1_open_run_wild_for_held_inner_rank_is_listed():
    """docs/rules.md#variations / docs/api.md#legal-actions: 8D-JK-10D is a legal new run under
    +open even when the hand also holds 9D; as a legal atomic action it must be listed."""
    snap = opened("classic+open", hand="8D 9D 10D JK 5C 6D")
    allowed(snap, MeldCards(0, new_melds=(("8D", "10D", "JK"),)))


def test_s1_open_wild_at_an_impossible_explicit_end_is_refused():
    """docs/rules.md#variations / docs/api.md#snapshot: a wild added with "end": "LOW" to a run
    starting at 4 cannot stand below it; it is refused, not silently put at the high end."""
    snap = opened("classic+open", hand="JK 5C 6D 9C", melds={0: ["4H 5H 6H"]})
    # `end` is not part of action equality (docs/api.md#resources), so the listed HIGH addition
    # is the same action; only the explicit LOW is judged here.
    low = validate(snap, MeldCards(0, additions=(Addition("m1", ("JK",), RunEnd.LOW),)))
    assert [v.code for v in low] == ["NOT_A_RUN"]
    allowed(snap, MeldCards(0, additions=(Addition("m1", ("JK",), RunEnd.HIGH),)))


def test_s1_open_run_addition_wild_for_held_rank_is_listed():
    """docs/rules.md#variations / docs/api.md#legal-actions: adding 7C plus a wild to 4C-5C-6C is
    legal (the wild stands for the 8; nothing lies below the 4) even when the hand also holds
    8C; it must be listed. Found by the playouts (tests/test_playouts.py)."""
    snap = opened("classic+open", hand="7C 8C 2C 4H 5S KD", melds={0: ["4C 5C 6C"]})
    allowed(snap, MeldCards(0, additions=(Addition("m1", ("7C", "2C")),)))

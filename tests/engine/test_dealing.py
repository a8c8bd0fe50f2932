"""Deal: the version-stable shuffle and the deal order (docs/rules.md#dealing,
docs/api.md#methods)."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace

import pytest
from builders import zone_cards
from hypothesis import given, settings
from hypothesis import strategies as st

from samba_adjudicator.engine.cards import BLACK_THREES, RED_THREES, WILD, pack_counts, pack_list
from samba_adjudicator.engine.dealing import deal, shuffle_key, shuffled, shuffled_pack
from samba_adjudicator.engine.model import InvalidInput, Phase
from samba_adjudicator.engine.ruleset import PROFILES, SixPlayerLayout, resolve

PROFILE_PLAYERS = [(p, n) for p in PROFILES for n in resolve(p).players_allowed]


def golden(profile: str):
    """The profile with a fixed version string, so the goldens pin the algorithm only
    (a real version changes with any parameter, and with it every deal)."""
    return replace(resolve(profile), version="golden")


# -- the shuffle itself (docs/dealing.md test vector) -------------------------------------


def test_shuffle_test_vector():
    key = shuffle_key("test", 4, 0, 1, "abc")
    assert key == hashlib.sha256(b"samba-deal/v1|test|4|0|1|abc").digest()
    assert key.hex() == "6256310cedda69a8b714e56d7079f7a0c4de295120ef12c6a4669502ebf49141"
    assert shuffled([str(i) for i in range(10)], key) == [
        "3",
        "2",
        "1",
        "9",
        "6",
        "0",
        "8",
        "7",
        "5",
        "4",
    ]


def test_shuffle_is_a_permutation_and_does_not_mutate():
    pack = pack_list(3, 6)
    before = list(pack)
    out = shuffled(pack, shuffle_key("v", 4, 0, 1, "s"))
    assert pack == before
    assert Counter(out) == Counter(pack) and out != pack


# -- goldens ------------------------------------------------------------------------------


def test_golden_classic_4():
    s = deal(golden("classic"), 4, "golden-1")
    assert s.seats[1].hand[:5] == ("AH", "5S", "6S", "2C", "8C")
    assert s.discard_pile == ("10H",)
    assert s.stock_count == len(s.stock) == 97
    assert s.stock[:3] == ("KD", "3D", "5C")
    assert [side.red_threes for side in s.sides] == [("3D", "3H", "3H"), ("3D",)]
    assert [len(seat.hand) for seat in s.seats] == [15, 15, 15, 15]


def test_golden_canasta_4():
    s = deal(golden("canasta"), 4, "golden-1")
    assert s.seats[1].hand[:5] == ("7C", "KH", "5D", "5H", "QC")
    assert s.discard_pile == ("KC",)
    assert s.stock_count == 62
    assert s.stock[:3] == ("QH", "6S", "JC")
    assert [side.red_threes for side in s.sides] == [(), ("3D",)]
    assert [len(seat.hand) for seat in s.seats] == [11, 11, 11, 11]


def test_golden_spanish_4():
    # Same version string, players, dealer, deal and seed as the classic golden: the same
    # shuffle; spanish owes the red 3s instead of replacing them.
    s = deal(golden("spanish"), 4, "golden-1")
    assert s.seats[1].hand[:5] == ("AH", "5S", "6S", "2C", "8C")
    assert s.discard_pile == ("10H",)
    assert s.stock_count == 101
    assert s.stock[:3] == ("5C", "JK", "6D")
    assert [side.red_threes for side in s.sides] == [("3D", "3H", "3H"), ("3D",)]
    assert [seat.red_three_replacements_owed for seat in s.seats] == [1, 0, 2, 1]
    assert [len(seat.hand) for seat in s.seats] == [14, 15, 13, 14]


def test_golden_classic_6_three_pairs_of_13():
    s = deal(golden("classic"), 6, "golden-1")
    assert s.seats[1].hand[:5] == ("4C", "QC", "AH", "5D", "6S")
    assert s.discard_pile == ("7C",)
    assert s.stock_count == 79
    assert [len(seat.hand) for seat in s.seats] == [13] * 6
    assert [side.seats for side in s.sides] == [(0, 3), (1, 4), (2, 5)]
    assert [seat.side for seat in s.seats] == [0, 1, 2, 0, 1, 2]


def test_hands_are_dealt_one_at_a_time_from_left_of_dealer():
    rules = golden("classic")
    for dealer in (0, 3):
        deck = shuffled_pack(rules, 4, dealer, 1, "order")
        s = deal(rules, 4, "order", dealer=dealer)
        first = (dealer + 1) % 4
        # the first card of the deck went to the seat left of the dealer, the second to
        # the next seat, … (unless it was a red 3, laid out and replaced)
        for k in range(4):
            seat = (first + k) % 4
            card = deck[k]
            if card not in RED_THREES:
                assert s.seats[seat].hand[0] == card
        assert s.turn.seat == first and s.turn.phase is Phase.DRAW and s.ply == 0
        assert s.discard_pile[0] == deck[4 * 15]


# -- determinism -------------------------------------------------------------------------


def test_same_inputs_same_deal():
    rules = resolve("classic")
    assert deal(rules, 4, "x", 2, 3) == deal(rules, 4, "x", 2, 3)


@pytest.mark.parametrize("change", [dict(seed="y"), dict(dealer=1), dict(deal_number=2)])
def test_different_inputs_different_deal(change):
    rules = resolve("classic")
    base = dict(seed="x", dealer=0, deal_number=1)
    a = deal(rules, 4, **base)
    b = deal(rules, 4, **{**base, **change})
    assert a.stock != b.stock or a.seats != b.seats


def test_ruleset_version_is_in_the_key():
    a = deal(replace(resolve("classic"), version="a"), 4, "x")
    b = deal(replace(resolve("classic"), version="b"), 4, "x")
    assert a.stock != b.stock


def test_deal_number_zero_means_one():
    rules = resolve("classic")
    assert deal(rules, 4, "x", deal_number=0) == deal(rules, 4, "x", deal_number=1)
    assert deal(rules, 4, "x", deal_number=0).deal_number == 1


# -- conservation and shape, every profile and player count ------------------------------


@pytest.mark.parametrize("profile,players", PROFILE_PLAYERS)
def test_conservation_and_shape(profile, players):
    rules = resolve(profile)
    for seed in ("a", "b", "c"):
        s = deal(rules, players, seed, dealer=players - 1)
        assert zone_cards(s) == +pack_counts(rules.decks, rules.jokers)
        assert (
            sum(zone_cards(s).values()) == rules.pack_size == (108 if profile == "canasta" else 162)
        )
        t = rules.sides_for(players)
        assert len(s.sides) == t
        for seat in s.seats:
            assert seat.side == seat.seat % t
            assert seat.hand_count == len(seat.hand)
            assert seat.dealt == seat.hand
            assert not any(c in RED_THREES for c in seat.hand)
            assert (
                seat.hand_count + seat.red_three_replacements_owed
                == rules.table_size(players).hand_size
            )
        for side in s.sides:
            assert side.seats == tuple(x for x in range(players) if x % t == side.side)
            assert sum(s.seats[x].red_three_replacements_owed for x in side.seats) in (
                0,
                len(side.red_threes),
            )
        assert s.stock_count == len(s.stock)
        assert s.turn.seat == 0 and s.result is None


@settings(max_examples=40, deadline=None)
@given(
    seed=st.text(min_size=1, max_size=40),
    dealer=st.integers(0, 3),
    deal_number=st.integers(1, 500),
    profile=st.sampled_from(sorted(PROFILES)),
)
def test_conservation_property(seed, dealer, deal_number, profile):
    rules = resolve(profile)
    s = deal(rules, 4, seed, dealer, deal_number)
    assert zone_cards(s) == +pack_counts(rules.decks, rules.jokers)


# -- upcard burying ----------------------------------------------------------------------


def _seed_with_upcard(rules, players, predicate):
    n = players * rules.table_size(players).hand_size
    for i in range(5000):
        seed = f"search-{i}"
        if predicate(shuffled_pack(rules, players, 0, 1, seed)[n]):
            return seed
    raise AssertionError("no seed found")


@pytest.mark.parametrize("profile", ["classic", "canasta", "bolivia", "official", "spanish"])
def test_wild_upcard_is_buried(profile):
    rules = resolve(profile)
    seed = _seed_with_upcard(rules, 4, lambda c: c in WILD)
    s = deal(rules, 4, seed)
    assert s.discard_pile[0] in WILD and len(s.discard_pile) >= 2
    top = s.discard_pile[-1]
    assert top not in WILD and top not in RED_THREES
    assert all(
        c in WILD or c in RED_THREES or (profile == "spanish" and c in BLACK_THREES)
        for c in s.discard_pile[:-1]
    )


def test_pagat_buries_nothing():
    rules = resolve("pagat")
    seed = _seed_with_upcard(rules, 4, lambda c: c in WILD)
    s = deal(rules, 4, seed)
    assert len(s.discard_pile) == 1 and s.discard_pile[0] in WILD


def test_red_three_upcard_buried_in_classic():
    rules = resolve("classic")
    seed = _seed_with_upcard(rules, 4, lambda c: c in RED_THREES)
    s = deal(rules, 4, seed)
    assert s.discard_pile[0] in RED_THREES and len(s.discard_pile) >= 2
    # a red 3 buried in the pile is not laid out by anyone
    assert (
        sum(len(side.red_threes) for side in s.sides)
        + sum(1 for c in s.discard_pile if c in RED_THREES)
        + sum(1 for c in s.stock if c in RED_THREES)
        == 6
    )


def test_black_three_upcard_spanish_buries_classic_does_not():
    sp = resolve("spanish")
    s = deal(sp, 4, _seed_with_upcard(sp, 4, lambda c: c in BLACK_THREES))
    assert s.discard_pile[0] in BLACK_THREES and len(s.discard_pile) >= 2
    cl = resolve("classic")
    s = deal(cl, 4, _seed_with_upcard(cl, 4, lambda c: c in BLACK_THREES))
    assert len(s.discard_pile) == 1 and s.discard_pile[0] in BLACK_THREES


# -- red 3s ------------------------------------------------------------------------------


def test_classic_red_threes_replaced_at_once():
    rules = resolve("classic")
    laid = 0
    for i in range(30):
        s = deal(rules, 4, f"r3-{i}")
        assert all(len(seat.hand) == 15 for seat in s.seats)
        assert not any(c in RED_THREES for seat in s.seats for c in seat.hand)
        assert all(c in RED_THREES for side in s.sides for c in side.red_threes)
        assert all(seat.red_three_replacements_owed == 0 for seat in s.seats)
        laid += sum(len(side.red_threes) for side in s.sides)
    assert laid > 0


def test_spanish_owes_replacements_per_seat():
    rules = resolve("spanish")
    for i in range(30):
        seed = f"r3-{i}"
        deck = shuffled_pack(rules, 4, 0, 1, seed)
        s = deal(rules, 4, seed)
        for seat in s.seats:
            dealt = [deck[r * 4 + (seat.seat - 1) % 4] for r in range(15)]
            red = [c for c in dealt if c in RED_THREES]
            assert seat.red_three_replacements_owed == len(red)
            assert seat.hand == tuple(c for c in dealt if c not in RED_THREES)
            assert seat.dealt == seat.hand


def test_replacement_red_threes_are_laid_too():
    """Search for a deal where a replacement card is itself a red 3."""
    rules = resolve("classic")
    for i in range(3000):
        seed = f"chain-{i}"
        deck = shuffled_pack(rules, 4, 0, 1, seed)
        dealt_red = sum(1 for c in deck[:60] if c in RED_THREES)
        s = deal(rules, 4, seed)
        laid = sum(len(side.red_threes) for side in s.sides)
        if laid > dealt_red:
            assert not any(c in RED_THREES for seat in s.seats for c in seat.hand)
            assert all(len(seat.hand) == 15 for seat in s.seats)
            return
    pytest.skip("no chained replacement found")


# -- seating -----------------------------------------------------------------------------


def test_spanish_two_trios():
    rules = resolve("spanish", {"six_player_layout": SixPlayerLayout.TWO_TRIOS})
    s = deal(rules, 6, "trios")
    assert [side.seats for side in s.sides] == [(0, 2, 4), (1, 3, 5)]
    assert [seat.side for seat in s.seats] == [0, 1, 0, 1, 0, 1]


def test_match_scores_go_to_sides():
    s = deal(resolve("classic"), 4, "x", match_scores=(1200, 7100))
    assert [side.match_score for side in s.sides] == [1200, 7100]
    s = deal(resolve("classic"), 4, "x")
    assert [side.match_score for side in s.sides] == [0, 0]


def test_deal_does_not_sign_and_echoes_ref():
    from samba_adjudicator.engine.model import RulesetRef

    ref = RulesetRef(profile="classic", version="")
    s = deal(resolve("classic"), 4, "x", ruleset_ref=ref)
    assert s.signature == "" and s.ruleset_ref is ref


# -- bad input ---------------------------------------------------------------------------


def _problems(**kw):
    args = dict(ruleset=resolve("classic"), players=4, seed="s")
    args.update(kw)
    with pytest.raises(InvalidInput) as e:
        deal(**args)
    return {(p.field, p.reason): p for p in e.value.problems}


def test_unsupported_player_count_names_allowed_counts():
    probs = _problems(players=3)
    p = probs[("players", "UNSUPPORTED_PLAYER_COUNT")]
    assert "2, 4, 6" in p.description
    assert (
        "4"
        in _problems(ruleset=resolve("bolivia"), players=2)[
            ("players", "UNSUPPORTED_PLAYER_COUNT")
        ].description
    )


def test_seed_required_and_bounded():
    assert ("seed", "REQUIRED") in _problems(seed="")
    assert ("seed", "OUT_OF_RANGE") in _problems(seed="é" * 65)  # 130 bytes
    deal(resolve("classic"), 4, "x" * 128)  # 128 bytes is fine


def test_dealer_deal_number_match_scores():
    assert ("dealer", "OUT_OF_RANGE") in _problems(dealer=4)
    assert ("dealer", "OUT_OF_RANGE") in _problems(dealer=-1)
    assert ("dealNumber", "OUT_OF_RANGE") in _problems(deal_number=-1)
    assert ("matchScores", "OUT_OF_RANGE") in _problems(match_scores=(1, 2, 3))


def test_every_problem_listed():
    probs = _problems(players=5, seed="", dealer=9, deal_number=-2)
    assert set(probs) >= {
        ("players", "UNSUPPORTED_PLAYER_COUNT"),
        ("seed", "REQUIRED"),
        ("dealer", "OUT_OF_RANGE"),
        ("dealNumber", "OUT_OF_RANGE"),
    }

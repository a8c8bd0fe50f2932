"""ScoreDeal (docs/rules.md#scoring, docs/rules.md#match-end, docs/api.md#side-score), incl. the
worked checks."""

from __future__ import annotations

import pytest
from builders import make_snapshot

from samba_adjudicator.engine.model import EndReason, InvalidInput, Phase, Premium, Result
from samba_adjudicator.engine.scoring import red_three_points, score
from samba_adjudicator.engine.view import player_view
from samba_adjudicator.engine.vocabulary import seven_card_melds

KINGS = "KH KS KD KC KH KS KD"
SAMBA_8_A = "8S 9S 10S JS QS KS AS"
WENT_OUT_0 = Result(EndReason.WENT_OUT, seat=0)
EXHAUSTED = Result(EndReason.STOCK_EXHAUSTED)


def ended(profile="classic", players=4, result=WENT_OUT_0, **kw):
    return make_snapshot(profile, players, phase=Phase.OVER, result=result, **kw)


def side0(snap):
    return score(snap).sides[0]


def check_total(s):
    terms = (
        s.meld_points
        + s.canasta_bonus
        + s.samba_bonus
        + s.bolivia_bonus
        + s.red_three_points
        + s.going_out_bonus
        + s.concealed_bonus
        + s.hand_penalty
        + s.penalty_points
    )
    assert s.deal_total == terms


# -- docs/rules.md#worked-examples ------------------------------------------------------------


def test_natural_canasta_of_seven_kings_is_570():
    s = side0(ended(melds={0: [KINGS]}, result=EXHAUSTED))
    assert (s.meld_points, s.natural_canastas, s.canasta_bonus) == (70, 1, 500)
    assert s.meld_points + s.canasta_bonus == 570
    assert s.deal_total == 570  # no red 3s, no hand, no bonus


def worked(profile, result=WENT_OUT_0, melds=(SAMBA_8_A, KINGS)):
    return ended(
        profile, melds={0: list(melds)}, red_threes={0: "3H"}, hands={2: "JK 7H"}, result=result
    )


def test_worked_pagat_2395():
    s = side0(worked("pagat"))
    assert (s.meld_points, s.sambas, s.samba_bonus, s.natural_canastas, s.canasta_bonus) == (
        150,
        1,
        1500,
        1,
        500,
    )
    assert (s.red_threes, s.red_three_points, s.going_out_bonus, s.hand_penalty) == (
        1,
        100,
        200,
        -55,
    )
    assert s.concealed_bonus == 0 and s.penalty_points == 0
    assert s.deal_total == 2395 == 1580 + 570 + 200 + 100 - 55
    check_total(s)


def test_worked_classic_2295():
    s = side0(worked("classic"))
    assert s.going_out_bonus == 100
    assert s.deal_total == 2295
    check_total(s)


def test_worked_red_three_one_seven_card_meld_not_out():
    pagat = side0(worked("pagat", result=Result(EndReason.WENT_OUT, seat=1), melds=(SAMBA_8_A,)))
    classic = side0(
        worked("classic", result=Result(EndReason.WENT_OUT, seat=1), melds=(SAMBA_8_A,))
    )
    assert pagat.red_three_points == -100
    assert classic.red_three_points == 100
    assert pagat.going_out_bonus == classic.going_out_bonus == 0


# -- red 3s ------------------------------------------------------------------------------

ALL_SIX = "3H 3H 3H 3D 3D 3D"
ALL_FOUR = "3H 3H 3D 3D"


def test_all_six_red_threes_1000():
    s = side0(ended("pagat", melds={0: [SAMBA_8_A, KINGS]}, red_threes={0: ALL_SIX}))
    assert s.red_threes == 6 and s.red_three_points == 1000


def test_canasta_all_four_800():
    s = side0(ended("canasta", melds={0: ["KH KS KD"]}, red_threes={0: ALL_FOUR}))
    assert s.red_threes == 4 and s.red_three_points == 800


def test_mirror_and_per_card_against():
    assert (
        side0(ended("pagat", melds={0: [KINGS]}, red_threes={0: ALL_SIX})).red_three_points == -1000
    )
    assert side0(ended("canasta", red_threes={0: ALL_FOUR})).red_three_points == -800
    # classic PER_CARD: −100 each whatever the count (not −1000 for all six)
    assert side0(ended("classic", red_threes={0: ALL_SIX})).red_three_points == -600
    # spanish is PER_CARD with TWO_CANASTAS
    assert (
        side0(ended("spanish", melds={0: [KINGS]}, red_threes={0: ALL_SIX})).red_three_points
        == -600
    )


def test_red_three_conditions():
    snap = ended("classic", melds={0: ["5H 5S 5D"]}, red_threes={0: "3H 3D"})
    assert side0(snap).red_three_points == 200  # INITIAL_MELD: opened
    snap = ended("canasta", melds={0: ["5H 5S 5D"]}, red_threes={0: "3H 3D"})
    assert side0(snap).red_three_points == 200  # ANY_MELD
    snap = ended("pagat", melds={0: ["5H 5S 5D", KINGS]}, red_threes={0: "3H 3D"})
    assert side0(snap).red_three_points == -200  # TWO_CANASTAS: only one


def test_bolivia_counts_as_seven_card_meld():
    snap = ended("bolivia", melds={0: ["JK JK JK JK 2H 2S 2D", KINGS]}, red_threes={0: "3H"})
    side = snap.sides[0]
    assert seven_card_melds(side.melds)[0] == 2
    assert red_three_points(snap.ruleset, side) == 100


def test_helpers_on_side():
    snap = make_snapshot("pagat", melds={0: [SAMBA_8_A, "5H 5S 5D", KINGS, "3S 3C 3S"]})
    assert seven_card_melds(snap.sides[0].melds)[0] == 2
    assert red_three_points(snap.ruleset, snap.sides[0]) == 0


# -- bonuses -----------------------------------------------------------------------------


def test_mixed_canasta():
    s = side0(ended(melds={0: ["QH QS QD QC QH 2S JK"]}, result=EXHAUSTED))
    assert (s.natural_canastas, s.mixed_canastas, s.canasta_bonus) == (0, 1, 300)
    assert s.meld_points == 50 + 20 + 50


def test_open_samba_1000():
    s = side0(ended("classic+open", melds={0: ["8S 9S 10S JS 2D KS AS"]}, result=EXHAUSTED))
    assert (s.sambas, s.samba_bonus) == (1, 1000)
    both = side0(
        ended(
            "classic+open",
            melds={0: ["8S 9S 10S JS 2D KS AS", SAMBA_8_A.replace("S", "H")]},
            result=EXHAUSTED,
        )
    )
    assert (both.sambas, both.samba_bonus) == (2, 2500)


def test_bolivia_2500():
    s = side0(ended("bolivia", melds={0: ["JK JK JK JK 2H 2S 2D"]}, result=EXHAUSTED))
    assert (s.bolivias, s.bolivia_bonus) == (1, 2500)
    assert s.meld_points == 4 * 50 + 3 * 20
    assert s.natural_canastas == s.mixed_canastas == 0


def test_incomplete_melds_score_cards_only():
    s = side0(ended(melds={0: ["5H 6H 7H", "9S 9D 2C"]}, result=EXHAUSTED))
    assert s.meld_points == 15 + 40 and s.canasta_bonus == s.samba_bonus == 0


def test_black_three_group_scores_card_values():
    s = side0(ended(melds={0: ["3S 3C 3S", KINGS]}))
    assert s.meld_points == 15 + 70


# -- going out, concealed, premiums --------------------------------------------------------


def test_going_out_only_for_the_side_of_the_seat():
    rep = score(ended("pagat", result=Result(EndReason.WENT_OUT, seat=3)))
    assert [s.going_out_bonus for s in rep.sides] == [0, 200]


def test_concealed_bonus():
    rep = score(ended("classic", result=Result(EndReason.WENT_OUT, seat=0, concealed=True)))
    assert (rep.sides[0].going_out_bonus, rep.sides[0].concealed_bonus) == (100, 200)
    rep = score(ended("canasta", result=Result(EndReason.WENT_OUT, seat=0, concealed=True)))
    assert rep.sides[0].concealed_bonus == 100
    rep = score(ended("pagat", result=Result(EndReason.WENT_OUT, seat=0, concealed=True)))
    assert rep.sides[0].concealed_bonus == 0


def test_spanish_premium_in_concealed_bonus():
    res = Result(EndReason.WENT_OUT, seat=1, concealed=True, premium=Premium("DEALT", 1000))
    rep = score(ended("spanish", result=res))
    assert rep.sides[1].concealed_bonus == 1000 and rep.sides[1].going_out_bonus == 200
    assert rep.sides[0].concealed_bonus == 0


def test_no_going_out_bonus_when_stock_exhausted():
    rep = score(ended("classic", result=EXHAUSTED))
    assert all(s.going_out_bonus == 0 and s.concealed_bonus == 0 for s in rep.sides)


# -- cards left in hand ---------------------------------------------------------------------


def test_black_three_in_hand_minus_5_vs_bolivia_minus_100():
    assert side0(ended("classic", hands={2: "3S 3C"})).hand_penalty == -10
    assert side0(ended("bolivia", hands={2: "3S 3C"})).hand_penalty == -200


def test_red_three_in_hand_minus_500():
    assert side0(ended("classic", hands={0: "3H", 2: "AS"})).hand_penalty == -520


def test_hand_penalty_counts_every_seat_of_the_side():
    rep = score(ended("classic", 6, hands={0: "JK", 3: "2H 4C", 1: "KS"}))
    assert [s.hand_penalty for s in rep.sides] == [-75, -10, 0]


def test_penalties_summed():
    snap = ended(
        "spanish",
        penalties={0: [("ASKED_AND_DID_NOT_GO_OUT", -100), ("WENT_OUT_AFTER_REFUSAL", -100)]},
    )
    s = side0(snap)
    assert s.penalty_points == -200
    check_total(s)


# -- match --------------------------------------------------------------------------------


def test_match_total_and_not_over():
    rep = score(ended(match_scores=(1000, 2000), melds={0: [KINGS]}, result=EXHAUSTED))
    assert [s.match_total for s in rep.sides] == [1570, 2000]
    assert (rep.match_over, rep.winner_side, rep.draw, rep.provisional) == (
        False,
        None,
        False,
        False,
    )


def test_match_over_winner():
    rep = score(ended(match_scores=(9800, 9900), melds={0: [KINGS]}, result=EXHAUSTED))
    assert rep.match_over and rep.winner_side == 0 and not rep.draw
    # the other side reaches the target
    rep = score(ended(match_scores=(9000, 10100), melds={0: [KINGS]}, result=EXHAUSTED))
    assert rep.match_over and rep.winner_side == 1


def test_match_over_tie_is_a_draw():
    rep = score(ended(match_scores=(9430, 10000), melds={0: [KINGS]}, result=EXHAUSTED))
    assert [s.match_total for s in rep.sides] == [10000, 10000]
    assert rep.match_over and rep.winner_side is None and rep.draw


def test_canasta_three_players_target_7500():
    rep = score(ended("canasta", 3, match_scores=(5000, 7000, 0), result=EXHAUSTED))
    assert not rep.match_over
    rep = score(ended("canasta", 3, match_scores=(5000, 7500, 0), result=EXHAUSTED))
    assert rep.match_over and rep.winner_side == 1


def test_pagat_max_deals_60_is_a_draw():
    assert not score(ended("pagat", deal_number=59, result=EXHAUSTED)).match_over
    rep = score(ended("pagat", deal_number=60, match_scores=(5000, 3000), result=EXHAUSTED))
    assert rep.match_over and rep.draw and rep.winner_side is None
    # a side reaching the target in the last deal still wins it
    rep = score(ended("pagat", deal_number=60, match_scores=(10000, 3000), result=EXHAUSTED))
    assert rep.match_over and rep.winner_side == 0 and not rep.draw


def test_target_override():
    rep = score(
        ended("pagat", overrides={"target_score": 2500}, match_scores=(2500, 0), result=EXHAUSTED)
    )
    assert rep.match_over and rep.winner_side == 0


# -- provisional and refusals ----------------------------------------------------------------


def test_provisional_unfinished_deal():
    snap = make_snapshot("classic", melds={0: [KINGS]}, hands={0: "5H", 1: "AS"}, phase=Phase.PLAY)
    rep = score(snap, provisional=True)
    assert rep.provisional
    assert rep.sides[0].deal_total == 570 - 5 and rep.sides[1].deal_total == -20
    assert all(s.going_out_bonus == 0 for s in rep.sides)


def test_provisional_on_finished_deal_scores_it_as_final():
    rep = score(worked("classic"), provisional=True)
    assert not rep.provisional and rep.sides[0].deal_total == 2295


def test_final_score_needs_over():
    with pytest.raises(InvalidInput) as e:
        score(make_snapshot(phase=Phase.PLAY))
    assert [(p.field, p.reason) for p in e.value.problems] == [
        ("snapshot.turn.phase", "PHASE_INCONSISTENT")
    ]


def test_hidden_hands_refused():
    view = player_view(ended(hands={0: "5H", 1: "AS", 3: "KD"}), 0)
    with pytest.raises(InvalidInput) as e:
        score(view)
    assert e.value.kind == "HIDDEN_INFORMATION_REQUIRED"
    # seat 2 holds no card, and the view hides it too (its dealt with it): every hidden seat
    assert [p.field for p in e.value.problems] == [
        "snapshot.seats[1].hand",
        "snapshot.seats[2].hand",
        "snapshot.seats[3].hand",
    ]


def test_score_does_not_mutate():
    snap = worked("pagat")
    before = repr(snap)
    score(snap)
    assert repr(snap) == before

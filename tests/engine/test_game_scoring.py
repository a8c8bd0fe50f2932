"""docs/rules.md#scoring and the scoring rows of docs/rules.md#parameters: red-3 value, condition
and penalty, cards left in hand, bonuses, target score and max deals (docs/rules.md#match-end). The
worked checks are run through ApplyAction: the deal ends by going out and Outcome.score is read.
"""

from __future__ import annotations

import pytest
from rules_support import (
    KINGS7,
    PROFILES,
    QUEENS7,
    SAMBA_4_10,
    SAMBA_8_A,
    allowed,
    make_snapshot,
)

from samba_adjudicator.engine.model import Discard, EndReason, Phase, Result
from samba_adjudicator.engine.scoring import score

EXHAUSTED = Result(EndReason.STOCK_EXHAUSTED)


def ended(profile, players=4, **kw):
    return make_snapshot(profile, players, phase=Phase.OVER, result=EXHAUSTED, **kw)


def side0(snap):
    s = score(snap).sides[0]
    assert s.deal_total == (
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
    return s


# -- docs/rules.md#worked-examples through ApplyAction ---------------------------------------------


@pytest.mark.parametrize("profile, total", [("pagat", 2395), ("classic", 2295)])
def test_s7_worked_check_through_apply(profile, total):
    """docs/rules.md#worked-examples: a side that goes out holding the samba 8–A and a natural
    canasta of kings, one red 3, partner left with JK and 7 → pagat 2395, classic 2295 (going out
    100) — read from ApplyAction's score when the last discard ends the deal."""
    snap = make_snapshot(
        profile,
        4,
        hands={0: "5C", 2: "JK 7H"},
        melds={0: [SAMBA_8_A, KINGS7]},
        red_threes={0: "3H"},
        has_melded=[0],
    )
    out = allowed(snap, Discard(0, "5C"))
    assert out.snapshot.result.reason is EndReason.WENT_OUT and out.score is not None
    s0 = out.score.sides[0]
    assert (
        s0.meld_points,
        s0.samba_bonus,
        s0.canasta_bonus,
        s0.red_three_points,
        s0.hand_penalty,
    ) == (150, 1500, 500, 100, -55)
    assert s0.deal_total == total


@pytest.mark.parametrize("profile, red", [("pagat", -100), ("classic", 100)])
def test_s7_worked_check_not_gone_out_one_seven_card_meld(profile, red):
    """docs/rules.md#scoring: same deal, but the side did not go out and has only one seven-card
    meld: its red 3 is −100 in pagat, +100 in classic."""
    snap = ended(
        profile, melds={0: [KINGS7, "8S 9S 10S"]}, red_threes={0: "3H"}, hands={2: "JK 7H"}
    )
    assert side0(snap).red_three_points == red


def test_s7_natural_canasta_of_kings_is_570():
    """docs/rules.md#worked-examples: a natural canasta of seven kings = 570 (500 + 70)."""
    s = side0(ended("classic", melds={0: [KINGS7]}))
    assert s.meld_points + s.canasta_bonus == 570


# -- docs/rules.md#parameters red 3s ---------------------------------------------------------------

ALL_RED = {"canasta": "3H 3H 3D 3D"}


@pytest.mark.parametrize(
    "profile, points",
    [
        ("classic", -600),
        ("pagat", -1000),
        ("spanish", -600),
        ("canasta", -800),
        ("bolivia", -1000),
        ("official", -1000),
    ],
)
def test_s3_red_three_penalty_per_card_vs_mirror(profile, points):
    """docs/rules.md#parameters red_three_penalty / docs/rules.md#scoring: a side failing
    red_three_positive_if with every red 3 of
    the pack: PER_CARD −100 each (classic, spanish: −600), MIRROR the positive figure
    negated (−1000; canasta all four −800)."""
    reds = ALL_RED.get(profile, "3H 3H 3H 3D 3D 3D")
    assert side0(ended(profile, red_threes={0: reds})).red_three_points == points


@pytest.mark.parametrize(
    "profile, points",
    [
        ("classic", 1000),
        ("pagat", 1000),
        ("spanish", 1000),
        ("canasta", 800),
        ("bolivia", 1000),
        ("official", 1000),
    ],
)
def test_s3_red_three_all_figure(profile, points):
    """docs/rules.md#parameters red_three_value / all: every red 3 of the pack counts the "all"
    figure (1000 for six, 800 for canasta's four) when the condition holds."""
    reds = ALL_RED.get(profile, "3H 3H 3H 3D 3D 3D")
    melds = [KINGS7, QUEENS7]
    assert side0(ended(profile, red_threes={0: reds}, melds={0: melds})).red_three_points == points


@pytest.mark.parametrize(
    "profile, points",
    [
        ("classic", 200),
        ("pagat", -200),
        ("spanish", -200),
        ("canasta", 200),
        ("bolivia", -200),
        ("official", -200),
    ],
)
def test_s3_red_three_positive_if(profile, points):
    """docs/rules.md#parameters red_three_positive_if: with one (incomplete) meld on the table, two
    red 3s count for the side in classic (INITIAL_MELD) and canasta (ANY_MELD), against it where
    TWO_CANASTAS is needed."""
    snap = ended(profile, red_threes={0: "3H 3D"}, melds={0: ["AH AS AD"]})
    assert side0(snap).red_three_points == points


@pytest.mark.parametrize(
    "profile, points",
    [
        ("classic", -200),
        ("pagat", -200),
        ("spanish", -200),
        ("canasta", -200),
        ("bolivia", -200),
        ("official", -200),
    ],
)
def test_s3_red_three_no_meld_fails_every_condition(profile, points):
    """docs/rules.md#scoring: a side with no meld fails every condition (INITIAL_MELD, ANY_MELD,
    TWO_CANASTAS)."""
    assert side0(ended(profile, red_threes={0: "3H 3D"})).red_three_points == points


@pytest.mark.parametrize("profile", PROFILES)
def test_s3_two_canastas_make_red_threes_positive(profile):
    """docs/rules.md#parameters/docs/rules.md#scoring: with two seven-card melds every condition
    holds: +100 each."""
    snap = ended(profile, red_threes={0: "3H 3D"}, melds={0: [KINGS7, QUEENS7]})
    assert side0(snap).red_three_points == 200


# -- docs/rules.md#parameters cards left in hand ---------------------------------------------------


@pytest.mark.parametrize(
    "profile, black, red",
    [
        ("classic", -5, -500),
        ("pagat", -5, -500),
        ("spanish", -5, -500),
        ("canasta", -5, -500),
        ("bolivia", -100, -500),
        ("official", -5, -500),
    ],
)
def test_s3_threes_left_in_hand(profile, black, red):
    """docs/rules.md#parameters black_three_in_hand (−5; bolivia −100) and red_three_in_hand
    (−500)."""
    s_black = side0(ended(profile, hands={0: "3S"}))
    assert s_black.hand_penalty + s_black.penalty_points == black
    s_red = side0(ended(profile, hands={0: "3H"}))
    assert s_red.hand_penalty + s_red.penalty_points == red


def test_s2_card_values_left_in_hand_count_minus():
    """docs/rules.md#card-values (left in hand: minus): JK 50, A 20, 2 20, K 10, 8 10, 7 5, 4 5,
    counted over all of the side's hands."""
    s = side0(ended("classic", hands={0: "JK AH 2C KH", 2: "8D 7H 4S"}))
    assert s.hand_penalty == -(50 + 20 + 20 + 10 + 10 + 5 + 5)


# -- docs/rules.md#parameters bonuses --------------------------------------------------------------


@pytest.mark.parametrize("profile", ["classic", "pagat", "spanish", "bolivia", "official"])
def test_s3_samba_and_canasta_bonuses(profile):
    """docs/rules.md#parameters samba_bonus 1500, canasta bonus natural 500 / mixed 300."""
    s = side0(ended(profile, melds={0: [SAMBA_4_10, KINGS7, "QH QS QD QC QH QS 2C"]}))
    assert (s.sambas, s.samba_bonus) == (1, 1500)
    assert (s.natural_canastas, s.mixed_canastas, s.canasta_bonus) == (1, 1, 800)


def test_s3_open_samba_bonus():
    """docs/rules.md#variations: a seven-card run holding a wild scores open_samba_bonus 1000."""
    s = side0(ended("classic+open", melds={0: ["4H 5H 6H 7H 8H 9H 2C"]}))
    assert (s.sambas, s.samba_bonus) == (1, 1000)


def test_s8_bolivia_bonus_2500():
    """docs/rules.md#parameters/docs/rules.md#bolivia: a bolivia (seven wilds) scores 2500."""
    s = side0(ended("bolivia", melds={0: ["JK JK 2C 2D 2H 2S JK"]}))
    assert (s.bolivias, s.bolivia_bonus) == (1, 2500)


def test_s7_penalties_are_subtracted():
    """docs/rules.md#scoring (+ profile penalties): recorded penalties count in the deal total."""
    snap = ended(
        "spanish",
        melds={0: [KINGS7]},
        penalties={0: [("OUT_OF_TURN_DRAW", -100), ("ASKED_AND_DID_NOT_GO_OUT", -100)]},
    )
    s = side0(snap)
    assert s.penalty_points == -200 and s.deal_total == 570 - 200


# -- docs/rules.md#match-end: target_score, max_deals ----------------------------------------------


@pytest.mark.parametrize(
    "profile, players, target",
    [
        ("classic", 4, 10000),
        ("pagat", 4, 10000),
        ("spanish", 4, 10000),
        ("canasta", 4, 5000),
        ("canasta", 2, 5000),
        ("canasta", 3, 7500),
        ("bolivia", 4, 15000),
        ("official", 4, 10000),
    ],
)
def test_s3_target_score(profile, players, target):
    """docs/rules.md#parameters target_score / docs/rules.md#match-end: the match ends after the
    deal in which a side reaches
    the target; the highest total wins."""
    scores = [target - 30] + [0] * (players - 1 if players != 4 else 1)
    rep = score(ended(profile, players, melds={0: ["KH KS KD"]}, match_scores=scores))
    assert rep.match_over and rep.winner_side == 0 and not rep.draw
    scores = [target - 31] + scores[1:]
    rep = score(ended(profile, players, melds={0: ["KH KS KD"]}, match_scores=scores))
    assert not rep.match_over


@pytest.mark.parametrize("profile, over", [(p, p == "pagat") for p in PROFILES])
def test_s3_max_deals_pagat_60_then_draw(profile, over):
    """docs/rules.md#parameters max_deals: pagat ends the match as a draw after deal 60; others
    have no limit."""
    rep = score(ended(profile, 4, deal_number=60))
    assert rep.match_over is over and rep.draw is over and rep.winner_side is None
    if profile == "pagat":
        assert not score(ended(profile, 4, deal_number=59)).match_over


def test_s2_match_exact_tie_for_top_is_draw():
    """docs/rules.md#match-end Decision: an exact tie for the top is a draw."""
    rep = score(
        ended("classic", 4, melds={0: ["KH KS KD"], 1: ["QH QS QD"]}, match_scores=[10000, 10000])
    )
    assert rep.match_over and rep.draw and rep.winner_side is None

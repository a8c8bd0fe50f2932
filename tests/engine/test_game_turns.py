"""docs/rules.md#turn, #may-i-go-out, #stock-end, the draw_count and
initial_meld bands, docs/rules.md#initial-meld initial meld, docs/rules.md#hand-floor hand floor,
docs/rules.md#concealed going out.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from rules_support import (
    KINGS7,
    PROFILES,
    QUEENS7,
    SAMBA_4_10,
    allowed,
    codes_of,
    event_types,
    listed,
    make_snapshot,
    refused,
    with_stock,
)

from samba_adjudicator.engine.action_order import action_key
from samba_adjudicator.engine.model import (
    Addition,
    AnswerGoOut,
    AskGoOut,
    Discard,
    DrawStock,
    EndReason,
    GoOut,
    MeldCards,
    Phase,
    TakePile,
)
from samba_adjudicator.engine.ruleset import PROFILES, RulesetError, SixPlayerLayout, resolve


def play(profile="classic", hand="", melds=None, players=4, **kw):
    return make_snapshot(
        profile,
        players,
        hands={0: hand},
        melds=melds if melds is not None else {0: ["AH AS AD"]},
        **kw,
    )


def go_out_melds(profile):
    """Two seven-card melds meeting every profile's go_out_requires (bolivia: a samba)."""
    if profile == "canasta":
        return [KINGS7, QUEENS7]
    return [SAMBA_4_10, KINGS7]


# -- docs/rules.md#turn ----------------------------------------------------------------------------


def test_s2_turn_draw_then_play_then_discard_passes_clockwise():
    """docs/rules.md#turn: DRAW phase (draw), PLAY phase (melds), a discard ends the turn and the
    next seat clockwise starts in DRAW; this turn's melding folds into hasMelded."""
    snap = play(hand="9H 9S 9D 5C 6D", phase=Phase.DRAW)
    refused(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),)), "WRONG_PHASE")
    refused(snap, Discard(0, "5C"), "WRONG_PHASE")
    s1 = allowed(snap, DrawStock(0)).snapshot
    assert s1.turn.phase is Phase.PLAY and len(s1.seats[0].hand) == 7
    refused(s1, DrawStock(0), "WRONG_PHASE")
    s2 = allowed(s1, MeldCards(0, new_melds=(("9H", "9S", "9D"),))).snapshot
    assert s2.turn.melded_this_turn and not s2.seats[0].has_melded
    s3 = allowed(s2, Discard(0, "5C")).snapshot
    assert s3.turn.seat == 1 and s3.turn.phase is Phase.DRAW
    assert s3.seats[0].has_melded
    assert s3.discard_pile[-1] == "5C"


def test_s2_not_your_turn():
    """docs/rules.md#turn: only the seat whose turn it is acts (NOT_YOUR_TURN)."""
    snap = make_snapshot("classic", 4, hands={1: "5C 6D"}, phase=Phase.DRAW)
    refused(snap, DrawStock(1), "NOT_YOUR_TURN")


@pytest.mark.parametrize(
    "profile, players, count",
    [
        ("classic", 4, 2),
        ("classic", 2, 2),
        ("pagat", 3, 2),
        ("spanish", 4, 2),
        ("canasta", 4, 1),
        ("canasta", 2, 2),
        ("canasta", 3, 2),
        ("bolivia", 4, 2),
        ("official", 4, 2),
    ],
)
def test_s3_draw_count(profile, players, count):
    """docs/rules.md#parameters draw_count: 2 everywhere except canasta with four players (1)."""
    snap = make_snapshot(profile, players, hands={0: "5C 6D"}, phase=Phase.DRAW)
    snap = with_stock(snap, "9C 9D 9S")
    out = allowed(snap, DrawStock(0))
    assert out.snapshot.seats[0].hand == ("5C", "6D") + ("9C", "9D", "9S")[:count]
    assert out.snapshot.stock_count == snap.stock_count - count


# -- docs/rules.md#stock-end -----------------------------------------------------------------------


def _short_stock(snap, stock):
    return replace(snap, stock=tuple(stock), stock_count=len(stock))


def test_s2_stock_end_fewer_cards_draws_what_is_left():
    """docs/rules.md#stock-end: with fewer than draw_count cards the player draws what is left."""
    snap = _short_stock(play(hand="5C 6D", phase=Phase.DRAW), ["9C"])
    out = allowed(snap, DrawStock(0))
    assert out.snapshot.seats[0].hand == ("5C", "6D", "9C")
    assert out.snapshot.stock_count == 0 and out.snapshot.turn.phase is Phase.PLAY


@pytest.mark.parametrize("profile", PROFILES)
def test_s2_empty_stock_draw_ends_deal_stock_exhausted(profile):
    """docs/rules.md#stock-end: drawStock on an empty stock is legal and ends the deal
    (STOCK_EXHAUSTED); nobody gets the going-out bonus; the rest is scored normally."""
    snap = _short_stock(
        make_snapshot(
            profile,
            4,
            hands={0: "5C 6D", 2: "JK"},
            melds={0: go_out_melds(profile)},
            phase=Phase.DRAW,
            discard="4C",
        ),
        [],
    )
    out = allowed(snap, DrawStock(0))
    new = out.snapshot
    assert new.turn.phase is Phase.OVER
    assert new.result.reason is EndReason.STOCK_EXHAUSTED
    assert "DEAL_ENDED" in event_types(out)
    assert out.score is not None
    s0 = out.score.sides[0]
    assert all(s.going_out_bonus == 0 and s.concealed_bonus == 0 for s in out.score.sides)
    assert s0.hand_penalty == -(5 + 5 + 50)


def test_s2_empty_stock_take_pile_still_legal():
    """docs/rules.md#stock-end: facing an empty stock the player may take the pile if legal."""
    snap = _short_stock(play(hand="9S 9D 5C 6D", phase=Phase.DRAW, discard="4C 9H"), [])
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    assert out.snapshot.turn.phase is Phase.PLAY


def test_s2_red_three_drawn_is_laid_out_and_replaced():
    """docs/rules.md#dealing, docs/rules.md#parameters red_threes "auto, replace now": a red 3
    drawn is laid out and replaced."""
    snap = with_stock(play(hand="5C 6D", phase=Phase.DRAW), "3H 9C 9D 9S")
    out = allowed(snap, DrawStock(0))
    assert out.snapshot.seats[0].hand == ("5C", "6D", "9C", "9D")
    assert out.snapshot.sides[0].red_threes == ("3H",)
    assert "RED_THREE_LAID" in event_types(out)


def test_s2_red_three_drawn_with_no_replacement_left():
    """docs/rules.md#stock-end: a red 3 drawn when no card is left is laid out without replacement
    and the turn goes on."""
    snap = _short_stock(play(hand="5C 6D", phase=Phase.DRAW), ["9C", "3D"])
    out = allowed(snap, DrawStock(0))
    assert out.snapshot.seats[0].hand == ("5C", "6D", "9C")
    assert out.snapshot.sides[0].red_threes == ("3D",)
    assert out.snapshot.turn.phase is Phase.PLAY and out.snapshot.result is None


# -- docs/rules.md#may-i-go-out --------------------------------------------------------


@pytest.mark.parametrize(
    "profile, players", [("classic", 2), ("pagat", 2), ("pagat", 3), ("canasta", 3), ("spanish", 5)]
)
def test_s2_ask_no_partner(profile, players):
    """docs/rules.md#may-i-go-out: the question exists in partnership games only (NO_PARTNER)."""
    snap = make_snapshot(profile, players, hands={0: "5C 6D 7H"})
    refused(snap, AskGoOut(0), "NO_PARTNER")


@pytest.mark.parametrize("profile", PROFILES)
def test_s2_ask_in_play_then_only_partner_answers(profile):
    """docs/rules.md#may-i-go-out: the player may ask in PLAY; while the question is open only a
    partner's answer is legal (the asker's own moves are NOT_YOUR_TURN; an opponent is
    NOT_A_PARTNER)."""
    snap = play(profile, hand="5C 6D 7H")
    out = allowed(snap, AskGoOut(0))
    asked = out.snapshot
    assert asked.turn.go_out is GoOut.ASKED and "PERMISSION_ASKED" in event_types(out)
    actions, keys = listed(asked)
    assert keys == {action_key(AnswerGoOut(2, True)), action_key(AnswerGoOut(2, False))}
    refused(asked, Discard(0, "5C"), "NOT_YOUR_TURN")
    refused(asked, AnswerGoOut(1, True), "NOT_A_PARTNER")
    refused(asked, AnswerGoOut(0, True), "NOT_A_PARTNER")
    yes = allowed(asked, AnswerGoOut(2, True)).snapshot
    assert yes.turn.go_out is GoOut.GRANTED and yes.turn.seat == 0


def test_s2_ask_only_in_play_phase():
    """docs/rules.md#may-i-go-out: the question is asked in PLAY (WRONG_PHASE in DRAW)."""
    refused(play(hand="5C 6D", phase=Phase.DRAW), AskGoOut(0), "WRONG_PHASE")


@pytest.mark.parametrize("go_out", [GoOut.GRANTED, GoOut.DENIED])
def test_s2_ask_once_per_turn(go_out):
    """docs/rules.md#may-i-go-out: once per turn (ALREADY_ASKED)."""
    refused(play(hand="5C 6D", go_out=go_out), AskGoOut(0), "ALREADY_ASKED")


def test_s2_ask_before_first_meld():
    """docs/rules.md#may-i-go-out: before the first meld of the turn (ASK_AFTER_MELDING)."""
    refused(play(hand="5C 6D", melded_this_turn=True), AskGoOut(0), "ASK_AFTER_MELDING")


def test_s2_answer_needs_open_question():
    """docs/rules.md#may-i-go-out: answering with no open question is NOTHING_TO_ANSWER."""
    snap = play(hand="5C 6D")
    refused(snap, AnswerGoOut(2, True), "NOTHING_TO_ANSWER")


def test_s2_two_partners_first_answer_binds():
    """docs/rules.md#may-i-go-out: with two partners (spanish two trios) the first answer binds."""
    snap = make_snapshot(
        "spanish",
        6,
        overrides={"six_player_layout": SixPlayerLayout.TWO_TRIOS},
        hands={0: "5C 6D 7H"},
        melds={0: ["AH AS AD"]},
        go_out=GoOut.ASKED,
    )
    assert snap.partners(0) == (2, 4)
    out = allowed(snap, AnswerGoOut(4, False))
    assert out.snapshot.turn.go_out is GoOut.DENIED
    refused(out.snapshot, AnswerGoOut(2, True), "NOTHING_TO_ANSWER")


def test_s2_after_no_player_may_not_go_out():
    """docs/rules.md#may-i-go-out/docs/rules.md#going-out: after "no" the player may not go out
    this turn (GO_OUT_REFUSED_BY_PARTNER),
    though the side meets the requirement; a lone last card's discard then ends the deal
    without going out (docs/rules.md "Further decisions", no dead ends)."""
    snap = play(hand="5C", melds={0: [KINGS7, QUEENS7]}, has_melded=[0], go_out=GoOut.DENIED)
    out = allowed(snap, Discard(0, "5C"))
    assert out.snapshot.result.reason is EndReason.STOCK_EXHAUSTED
    assert out.score.sides[0].going_out_bonus == 0
    snap2 = play(hand="9H 9S 9D", melds={0: [KINGS7, QUEENS7]}, has_melded=[0], go_out=GoOut.DENIED)
    refused(snap2, MeldCards(0, new_melds=(("9H", "9S", "9D"),)), "GO_OUT_REFUSED_BY_PARTNER")


def test_s2_after_no_hand_floor_applies():
    """docs/rules.md#may-i-go-out/docs/rules.md#hand-floor: after "no" the hand floor applies as if
    the side could not go out: a meld
    leaving one card is refused, one leaving two is fine."""
    snap = play(
        hand="9H 9S 9D 5C", melds={0: [KINGS7, QUEENS7]}, has_melded=[0], go_out=GoOut.DENIED
    )
    vs = refused(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),)))
    assert set(codes_of(vs)) & {"HAND_FLOOR", "GO_OUT_REFUSED_BY_PARTNER"}
    snap2 = play(
        hand="9H 9S 9D 5C 6D", melds={0: [KINGS7, QUEENS7]}, has_melded=[0], go_out=GoOut.DENIED
    )
    allowed(snap2, MeldCards(0, new_melds=(("9H", "9S", "9D"),)))


def test_s2_yes_permits_going_out():
    """docs/rules.md#may-i-go-out: after "yes" the player may go out."""
    snap = play(hand="5C", melds={0: [KINGS7, QUEENS7]}, has_melded=[0], go_out=GoOut.GRANTED)
    out = allowed(snap, Discard(0, "5C"))
    assert out.snapshot.result.reason is EndReason.WENT_OUT


def test_s2_yes_does_not_compel():
    """docs/rules.md#may-i-go-out Decision: "yes" permits but does not compel — ending the turn
    with cards left is legal (and costs nothing outside spanish)."""
    snap = play(hand="5C 6D", melds={0: [KINGS7, QUEENS7]}, has_melded=[0], go_out=GoOut.GRANTED)
    out = allowed(snap, Discard(0, "5C"))
    assert out.snapshot.turn.seat == 1 and out.snapshot.sides[0].penalties == ()


# -- docs/rules.md#parameters/docs/rules.md#initial-meld initial meld ------------------------------

OPENING = {  # points -> melds worth exactly that
    15: [("4H", "4S", "4D")],
    50: [("JH", "JS", "JD", "2C")],
    90: [("AH", "AS", "AD"), ("KH", "KS", "KD")],
    120: [("AH", "AS", "AD", "AC"), ("KH", "KS", "KD", "KC")],
    150: [("AH", "AS", "AD", "AC"), ("KH", "KS", "KD", "KC"), ("QH", "QS", "QD")],
    160: [("AH", "AS", "AD", "AC"), ("KH", "KS", "KD", "KC"), ("QH", "QS", "QD", "QC")],
}
LADDER = sorted(OPENING)

BANDS = [
    ("classic", -500, 50),
    ("classic", 0, 50),
    ("classic", 1499, 50),
    ("classic", 1500, 90),
    ("classic", 6999, 90),
    ("classic", 7000, 150),
    ("pagat", -1, 15),
    ("pagat", 0, 50),
    ("pagat", 1500, 90),
    ("pagat", 3000, 120),
    ("pagat", 7000, 150),
    ("spanish", -1, 15),
    ("spanish", 0, 50),
    ("spanish", 1500, 90),
    ("spanish", 3000, 120),
    ("spanish", 7000, 150),
    ("canasta", -1, 15),
    ("canasta", 0, 50),
    ("canasta", 1500, 90),
    ("canasta", 3000, 120),
    ("canasta", 7000, 120),
    ("bolivia", -1, 15),
    ("bolivia", 0, 50),
    ("bolivia", 1500, 90),
    ("bolivia", 3000, 120),
    ("bolivia", 7000, 150),
    ("official", -1, 15),
    ("official", 0, 50),
    ("official", 1500, 90),
    ("official", 3000, 120),
    ("official", 6999, 120),
    ("official", 7000, 160),
]


@pytest.mark.parametrize("profile, score, need", BANDS)
def test_s3_initial_meld_bands(profile, score, need):
    """docs/rules.md#parameters initial_meld / docs/rules.md#initial-meld: the side's first meld
    must reach its band's requirement
    (by match score before the deal); several melds in one action count together; below
    it is INITIAL_MELD_TOO_LOW with details required/actual."""

    def snap_for(melds):
        hand = " ".join(c for m in melds for c in m) + " 5C 6D"
        return make_snapshot(profile, 4, hands={0: hand}, match_scores=[score, 0])

    exact = OPENING[need]
    allowed(snap_for(exact), MeldCards(0, new_melds=tuple(exact)), listing=False)
    lower = [p for p in LADDER if p < need]
    if lower:
        below = OPENING[lower[-1]]
        vs = refused(
            snap_for(below),
            MeldCards(0, new_melds=tuple(below)),
            "INITIAL_MELD_TOO_LOW",
            listing=False,
        )
        v = next(v for v in vs if v.code == "INITIAL_MELD_TOO_LOW")
        assert v.details["required"] == str(need)
        assert v.details["actual"] == str(lower[-1])


def test_s5_2_several_melds_count_together_runs_included():
    """docs/rules.md#initial-meld: several melds in one action count together, runs included (30 +
    30 ≥ 50); each alone is too low."""
    snap = play(hand="9H 10H JH KH KS KD 5C 6D", melds={})
    refused(snap, MeldCards(0, new_melds=(("9H", "10H", "JH"),)), "INITIAL_MELD_TOO_LOW")
    out = allowed(snap, MeldCards(0, new_melds=(("9H", "10H", "JH"), ("KH", "KS", "KD"))))
    assert len(out.snapshot.sides[0].melds) == 2


def test_s5_2_red_threes_do_not_count_toward_initial_meld():
    """docs/rules.md#initial-meld: only card values count (no red 3s, no bonuses)."""
    snap = play(hand="9H 10H JH 5C 6D", melds={}, red_threes={0: "3H 3D 3H"})
    refused(snap, MeldCards(0, new_melds=(("9H", "10H", "JH"),)), "INITIAL_MELD_TOO_LOW")


def test_s5_2_after_partner_opens_no_requirement():
    """docs/rules.md#initial-meld: after either partner opens, the requirement no longer applies to
    the side."""
    snap = make_snapshot(
        "classic",
        4,
        hands={2: "4H 4S 4D 5C 6D"},
        melds={0: [("AH AS AD", 0)]},
        turn_seat=2,
        match_scores=[7000, 0],
    )
    allowed(snap, MeldCards(2, new_melds=(("4H", "4S", "4D"),)))


def test_s5_2_requirement_per_side():
    """docs/rules.md#initial-meld: the requirement is the side's own: the other side's opening does
    not help."""
    snap = make_snapshot(
        "classic", 4, hands={1: "4H 4S 4D 5C 6D"}, melds={0: ["AH AS AD"]}, turn_seat=1
    )
    refused(snap, MeldCards(1, new_melds=(("4H", "4S", "4D"),)), "INITIAL_MELD_TOO_LOW")


# -- docs/rules.md#hand-floor hand floor -----------------------------------------------------------


def test_s5_3_hand_floor_keep_two_cards():
    """docs/rules.md#hand-floor: a player whose side cannot go out must keep two cards after
    melding."""
    snap = play(hand="9H 9S 9D 5C", melds={0: [KINGS7]})
    refused(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),)), "HAND_FLOOR")
    snap2 = play(hand="9H 9S 9D 5C 6D", melds={0: [KINGS7]})
    allowed(snap2, MeldCards(0, new_melds=(("9H", "9S", "9D"),)))


def test_the_hand_floor_is_a_parameter_of_the_ruleset():
    """docs/rules.md#hand-floor: the floor is ``hand_floor`` (2 in every profile), read from
    the ruleset, not a constant of the engine: with 3, keeping two cards is too few."""
    assert {resolve(p).hand_floor for p in PROFILES} == {2}
    meld = MeldCards(0, new_melds=(("9H", "9S", "9D"),))
    higher = {"hand_floor": 3}
    snap = play(hand="9H 9S 9D 5C 6D", melds={0: [KINGS7]}, overrides=higher)
    refused(snap, meld, "HAND_FLOOR")
    allowed(play(hand="9H 9S 9D 5C 6D 7D", melds={0: [KINGS7]}, overrides=higher), meld)
    with pytest.raises(RulesetError) as e:
        resolve("classic", {"hand_floor": 0})
    assert [p.field for p in e.value.problems] == ["ruleset.overrides.hand_floor"]


def test_s5_3_hand_floor_lifted_when_side_may_go_out():
    """docs/rules.md#hand-floor: when the side may go out, one card may remain (then discarded to
    go out)."""
    snap = play(hand="9H 9S 9D 5C", melds={0: [KINGS7, QUEENS7]}, has_melded=[0])
    out = allowed(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),)))
    assert out.snapshot.seats[0].hand == ("5C",)


# -- docs/rules.md#going-out going out -------------------------------------------------------------


@pytest.mark.parametrize(
    "profile, players, melds, ok",
    [
        ("classic", 4, [KINGS7], False),
        ("classic", 4, [KINGS7, QUEENS7], True),
        ("classic", 2, [KINGS7], False),
        ("pagat", 4, [KINGS7], False),
        ("pagat", 4, [KINGS7, QUEENS7], True),
        ("spanish", 4, [KINGS7], False),
        ("spanish", 4, [KINGS7, QUEENS7], True),
        ("canasta", 4, [KINGS7], True),
        ("canasta", 2, [KINGS7], False),
        ("canasta", 2, [KINGS7, QUEENS7], True),
        ("canasta", 3, [KINGS7], True),
        ("bolivia", 4, [KINGS7, QUEENS7], False),
        ("bolivia", 4, [SAMBA_4_10, KINGS7], True),
        ("official", 4, [KINGS7], False),
        ("official", 4, [KINGS7, QUEENS7], True),
        ("official", 4, [SAMBA_4_10, KINGS7], True),
    ],
)
def test_s3_go_out_requires(profile, players, melds, ok):
    """docs/rules.md#parameters go_out_requires / docs/rules.md#going-out: classic, pagat, spanish,
    official 2 canastas/sambas; canasta
    1 (2 with two players); bolivia 2 with at least one samba (GO_OUT_REQUIREMENT_NOT_MET).
    Short of it, the last card's discard is no going out: it ends the deal as if the stock
    ran out (docs/rules.md "Further decisions", no dead ends)."""
    snap = make_snapshot(profile, players, hands={0: "5C"}, melds={0: melds}, has_melded=[0])
    melding = make_snapshot(
        profile, players, hands={0: "9H 9S 9D"}, melds={0: melds}, has_melded=[0]
    )
    meld_out = MeldCards(0, new_melds=(("9H", "9S", "9D"),))
    out = allowed(snap, Discard(0, "5C"))
    if ok:
        assert out.snapshot.result.reason is EndReason.WENT_OUT
        assert out.snapshot.result.seat == 0
        allowed(melding, meld_out)
    else:
        assert out.snapshot.result.reason is EndReason.STOCK_EXHAUSTED
        assert out.score.sides[0].going_out_bonus == 0
        refused(melding, meld_out, "GO_OUT_REQUIREMENT_NOT_MET")


def test_s6_go_out_by_melding_everything():
    """docs/rules.md#going-out: a player goes out by melding every card; the deal ends at once and
    is scored."""
    snap = play(hand="9H 9S 9D", melds={0: [KINGS7, QUEENS7]}, has_melded=[0])
    out = allowed(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),)))
    new = out.snapshot
    assert new.turn.phase is Phase.OVER and new.result.reason is EndReason.WENT_OUT
    assert new.result.seat == 0 and "WENT_OUT" in event_types(out)
    assert out.score is not None and out.score.sides[0].going_out_bonus == 100


def test_s6_go_out_refused_without_requirement_melding_everything():
    """docs/rules.md#going-out: melding every card needs the going-out requirement."""
    snap = play(hand="9H 9S 9D", melds={0: [KINGS7]})
    refused(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),)), "GO_OUT_REQUIREMENT_NOT_MET")


def test_s6_completing_canasta_made_in_same_turn():
    """docs/rules.md#going-out: the canasta that completes the requirement may be made in the same
    turn (even in the same action that empties the hand)."""
    snap = play(hand="9H 5C", melds={0: [KINGS7, "9C 9S 9D 9C 9S 9D"]}, has_melded=[0])
    out = allowed(snap, MeldCards(0, additions=(Addition("m2", ("9H",)),)))
    assert "CANASTA_COMPLETED" in event_types(out)
    end = allowed(out.snapshot, Discard(0, "5C"))
    assert end.snapshot.result.reason is EndReason.WENT_OUT
    snap2 = play(hand="9H", melds={0: [KINGS7, "9C 9S 9D 9C 9S 9D"]}, has_melded=[0])
    out2 = allowed(snap2, MeldCards(0, additions=(Addition("m2", ("9H",)),)))
    assert out2.snapshot.result.reason is EndReason.WENT_OUT


def test_s6_concealed_going_out_several_meld_actions():
    """docs/rules.md#concealed: hasMelded false, no take this turn, hand emptied this turn with any
    number of meld actions → result.concealed and classic's +200 concealed bonus."""
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "9H 9S 9D 5C 5D 5H 6D"},
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2],
    )
    s1 = allowed(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),))).snapshot
    s2 = allowed(s1, MeldCards(0, new_melds=(("5C", "5D", "5H"),))).snapshot
    out = allowed(s2, Discard(0, "6D"))
    assert out.snapshot.result.concealed
    s0 = out.score.sides[0]
    assert (s0.going_out_bonus, s0.concealed_bonus) == (100, 200)


def test_s6_not_concealed_after_taking_pile():
    """docs/rules.md#concealed: not after taking the pile this turn."""
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "9S 9D"},
        discard="9H",
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2],
        phase=Phase.DRAW,
    )
    out = allowed(snap, TakePile(0, hand_cards=("9S", "9D")))
    assert out.snapshot.result is not None and not out.snapshot.result.concealed
    assert out.score.sides[0].concealed_bonus == 0


def test_s6_not_concealed_after_melding_in_an_earlier_turn():
    """docs/rules.md#concealed: not when the player laid cards in an earlier turn (hasMelded)."""
    snap = make_snapshot(
        "classic", 4, hands={0: "5C"}, melds={0: [(KINGS7, 2), (QUEENS7, 0)]}, has_melded=[0, 2]
    )
    out = allowed(snap, Discard(0, "5C"))
    assert not out.snapshot.result.concealed
    assert out.score.sides[0].concealed_bonus == 0


def test_s6_concealed_flag_set_from_earlier_turn_end_to_end():
    """docs/rules.md#going-out/docs/api.md#snapshot hasMelded: melding in a turn, then going out in
    a later turn, is not concealed (the flag is folded in when the turn passes)."""
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "9H 9S 9D 5C 6D 7H"},
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2],
    )
    s = allowed(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),))).snapshot
    s = allowed(s, Discard(0, "7H")).snapshot
    assert s.seats[0].has_melded
    # seats 1, 2, 3 pass quickly: draw and discard
    for seat in (1, 2, 3):
        s = replace(
            s,
            seats=tuple(
                replace(x, hand=("4C", "4D", "4S"), hand_count=3) if x.seat == seat else x
                for x in s.seats
            ),
        )
        s = allowed(s, DrawStock(seat), listing=False).snapshot
        s = allowed(s, Discard(seat, "4C"), listing=False).snapshot
    s = allowed(s, DrawStock(0), listing=False).snapshot
    s = replace(
        s,
        seats=tuple(replace(x, hand=("5C",), hand_count=1) if x.seat == 0 else x for x in s.seats),
    )
    out = allowed(s, Discard(0, "5C"), listing=False)
    assert out.snapshot.result.reason is EndReason.WENT_OUT
    assert not out.snapshot.result.concealed


@pytest.mark.parametrize(
    "profile, bonus, concealed",
    [
        ("classic", 100, 200),
        ("pagat", 200, 0),
        ("spanish", 200, 0),
        ("canasta", 100, 100),
        ("bolivia", 200, 0),
        ("official", 200, 0),
    ],
)
def test_s3_go_out_bonus_and_concealed_bonus(profile, bonus, concealed):
    """docs/rules.md#parameters go_out_bonus and concealed_bonus (classic +200, canasta +100,
    others 0; spanish premiums need a seven-card meld from the hand, docs/rules.md#spanish) through
    ApplyAction's score."""
    snap = make_snapshot(
        profile,
        4,
        hands={0: "9H 9S 9D 5C"},
        melds={0: [(m, 2) for m in go_out_melds(profile)]},
        has_melded=[2],
    )
    s1 = allowed(snap, MeldCards(0, new_melds=(("9H", "9S", "9D"),))).snapshot
    out = allowed(s1, Discard(0, "5C"))
    assert out.snapshot.result.concealed
    s0 = out.score.sides[0]
    assert (s0.going_out_bonus, s0.concealed_bonus) == (bonus, concealed)
    # and not concealed: only the going-out bonus
    snap2 = replace(
        snap, seats=tuple(replace(x, has_melded=True) if x.seat == 0 else x for x in snap.seats)
    )
    s1 = allowed(snap2, MeldCards(0, new_melds=(("9H", "9S", "9D"),)), listing=False).snapshot
    out2 = allowed(s1, Discard(0, "5C"), listing=False)
    assert (out2.score.sides[0].going_out_bonus, out2.score.sides[0].concealed_bonus) == (bonus, 0)


def test_s6_not_concealed_after_taking_top_card_pagat():
    """docs/rules.md#concealed: not after taking the top card this turn (pagat)."""
    from samba_adjudicator.engine.model import TakeTopCard

    snap = make_snapshot(
        "pagat",
        4,
        hands={0: "9S 9D 9H"},
        discard="KC 8H",
        melds={0: [("5H 6H 7H", 2), (KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2],
        phase=Phase.DRAW,
    )
    s1 = allowed(snap, TakeTopCard(0, "m1")).snapshot
    out = allowed(s1, MeldCards(0, new_melds=(("9S", "9D", "9H"),)))
    assert out.snapshot.result.reason is EndReason.WENT_OUT
    assert not out.snapshot.result.concealed


def test_s2_red_three_replacement_chain():
    """docs/rules.md#dealing: a replacement that is itself a red 3 is laid out and replaced too."""
    snap = with_stock(play(hand="5C 6D", phase=Phase.DRAW), "3H 3D 9C 9D")
    out = allowed(snap, DrawStock(0))
    assert out.snapshot.seats[0].hand == ("5C", "6D", "9C", "9D")
    assert out.snapshot.sides[0].red_threes == ("3H", "3D")


@pytest.mark.parametrize(
    "end, cards_after",
    [
        (None, ("5H", "6H", "7H", "JK")),
        ("HIGH", ("5H", "6H", "7H", "JK")),
        ("LOW", ("JK", "5H", "6H", "7H")),
    ],
)
def test_s1_open_wild_added_at_chosen_end(end, cards_after):
    """docs/rules.md#variations / docs/api.md#snapshot: a wild added to a run open at both ends
    goes where "end" says (default HIGH)."""
    from samba_adjudicator.engine.model import RunEnd

    snap = play("classic+open", hand="JK 5C 6D", melds={0: ["5H 6H 7H"]})
    add = Addition("m1", ("JK",), RunEnd(end) if end else None)
    out = allowed(snap, MeldCards(0, additions=(add,)))
    assert out.snapshot.sides[0].melds[0].cards == cards_after


def test_s5_5_uruguayan_pile_take_counts():
    """docs/rules.md#uruguayan uruguayan: wilds shown in a pile take count toward the side's limit
    too."""
    snap = make_snapshot(
        "classic+uruguayan",
        4,
        hands={0: "9S 9D 2D 5C 6D"},
        discard="4C 9H",
        melds={0: ["KH KS KD 2C", "QH QS QD 2H"]},
        phase=Phase.DRAW,
    )
    refused(snap, TakePile(0, hand_cards=("9S", "9D", "2D")), "SIDE_WILD_LIMIT")
    allowed(snap, TakePile(0, hand_cards=("9S", "9D")))

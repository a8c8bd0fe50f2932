"""The further rules decisions (docs/rules.md "Further decisions"), one test or more per
item, named ``test_further_<item>_…``; each fails when its decision is undone. The ``allowed``
and ``refused`` helpers also check that ListLegalActions lists an action exactly when
ValidateAction accepts it; ``test_further_agreement`` adds CheckMeld to that comparison."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from builders import over
from played_endings import went_out
from rules_support import (
    KINGS7,
    QUEENS7,
    SAMBA_4_10,
    allowed,
    codes_of,
    listed,
    make_snapshot,
    melds_of,
    refused,
)

from samba_adjudicator.engine import apply, deal, legal_actions, validate
from samba_adjudicator.engine.game import check_meld
from samba_adjudicator.engine.melds import order_run
from samba_adjudicator.engine.model import (
    Addition,
    AnswerGoOut,
    AskGoOut,
    Discard,
    DrawStock,
    EndReason,
    GoOut,
    InvalidInput,
    MeldCards,
    MeldKind,
    Phase,
    Result,
    RunEnd,
    SwapWild,
    TakePile,
)
from samba_adjudicator.engine.pile import is_frozen
from samba_adjudicator.engine.ruleset import PROFILES, RulesetError, SixPlayerLayout, resolve
from samba_adjudicator.engine.scoring import match_outcome, red_threes_positive, score
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.base.errors import ApiError
from samba_adjudicator.service.codec import convert, rulesets
from samba_adjudicator.service.codec.actions import action_to_proto
from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.pipeline.call import Call
from samba_adjudicator.service.pipeline.runtime import Runtime

BOLIVIA7 = "JK JK JK 2C 2D 2H 2S"


def call(method: str, request):
    """In process, through the error boundary every transport uses."""
    return Runtime(None, Adjudicator(), count_calls=False).call(method, request, [])


def opened(spec, hand, melds, **kw):
    """Seat 0 of four in PLAY, its side holding ``melds`` (so opened)."""
    return make_snapshot(spec, kw.pop("players", 4), hands={0: hand}, melds={0: melds}, **kw)


def new_meld(cards: str, seat: int = 0) -> MeldCards:
    return MeldCards(seat, new_melds=(tuple(cards.split()),))


def addition(meld_id: str, cards: str, end: RunEnd | None = None) -> MeldCards:
    return MeldCards(0, additions=(Addition(meld_id, tuple(cards.split()), end),))


# -- 1. open runs -------------------------------------------------------------------------


def test_further_1_open_run_two_naturals_one_wild():
    """A run of three cards may be two naturals and one wild; never two wilds."""
    snap = opened("classic+open", "5H 6H 2C 2D 9C 9D", ["AH AS AD"])
    out = allowed(snap, new_meld("5H 6H 2C"))
    assert melds_of(out.snapshot)[-1] == ("5H", "6H", "2C")
    assert out.snapshot.sides[0].melds[-1].kind is MeldKind.RUN
    assert check_meld(resolve("classic+open"), ("5H", "6H", "2C")).valid
    refused(
        opened("classic+open", "5H 6H 2C 2D 9C 9D", ["AH AS AD"]),
        new_meld("5H 6H 2C 2D"),
        "WILD_IN_RUN_NOT_ALLOWED",
    )
    refused(opened("classic", "5H 6H 2C 9C 9D", ["AH AS AD"]), new_meld("5H 6H 2C"))


def test_further_1_open_run_named_end_refused_never_moved():
    """A wild added at an impossible end (above A, below 4) is refused, not moved to the
    other end; unnamed, it goes HIGH unless the run ends at the ace."""
    to_ace = opened("classic+open", "JK 9C 9D 5S", ["QH KH AH"])
    # Actions equal up to the end named (docs/api.md#resources equality): the list holds the
    # unnamed one, which validates; the impossible named end is refused.
    refused(to_ace, addition("m1", "JK", RunEnd.HIGH), "NOT_A_RUN", listing=False)
    low = allowed(to_ace, addition("m1", "JK", RunEnd.LOW)).snapshot
    assert melds_of(low)[0] == ("JK", "QH", "KH", "AH")
    assert melds_of(allowed(to_ace, addition("m1", "JK")).snapshot)[0][0] == "JK"
    from_four = opened("classic+open", "JK 9C 9D 5S", ["4H 5H 6H"])
    refused(from_four, addition("m1", "JK", RunEnd.LOW), "NOT_A_RUN", listing=False)
    high = allowed(from_four, addition("m1", "JK", RunEnd.HIGH)).snapshot
    assert melds_of(high)[0] == ("4H", "5H", "6H", "JK")
    # The run-ordering helper behind stored runs never moves a named end either.
    assert order_run(("4H", "5H", "JK"), RunEnd.LOW) is None
    assert order_run(("KH", "AH", "JK"), RunEnd.HIGH) is None
    assert order_run(("KH", "AH", "JK")) == ("JK", "KH", "AH")


def test_further_1_open_run_natural_only_at_an_open_end():
    """A natural joins a run only at an open end: it never displaces the wild, whether the
    wild stands at an end or in a gap."""
    at_end = opened("classic+open", "7H 8H 4H 9C 9D 5S", ["5H 6H JK"])
    assert melds_of(at_end)[0] == ("5H", "6H", "JK")  # the wild stands for the 7
    refused(at_end, addition("m1", "7H"), "NOT_A_RUN")
    assert melds_of(allowed(at_end, addition("m1", "8H")).snapshot)[0] == ("5H", "6H", "JK", "8H")
    assert melds_of(allowed(at_end, addition("m1", "4H")).snapshot)[0] == ("4H", "5H", "6H", "JK")
    in_gap = opened("classic+open", "6H 9C 9D 5S", ["5H JK 7H"])
    refused(in_gap, addition("m1", "6H"), "NOT_A_RUN")


def test_further_1_swap_wild_is_for_groups_only():
    """swapWild takes a wild out of an incomplete group, never out of a run."""
    snap = opened("classic+open", "7H QC 9C 9D 5S", ["5H 6H JK", "QH QS 2C"])
    refused(snap, SwapWild(0, "m1", "7H", "JK"), "WILD_SWAP_NOT_ALLOWED")
    allowed(snap, SwapWild(0, "m2", "QC", "2C"))


# -- 2. uruguayan -------------------------------------------------------------------------


def test_further_2_uruguayan_counts_group_wilds_not_an_open_runs_wild():
    """The limit of two counts wilds mixed into groups of a rank: an open run's wild is
    not counted."""
    snap = opened(
        "classic+uruguayan+open",
        "QC KC 2H 7S 8S 2D 9C 9D 5S",
        ["QH QS QD 2C", "KH KS KD 2S", "5H 6H JK"],
    )
    refused(snap, addition("m1", "QC 2H"), "SIDE_WILD_LIMIT")
    allowed(snap, addition("m1", "QC"))
    allowed(snap, new_meld("7S 8S 2D"))


def test_further_2_uruguayan_does_not_count_bolivias():
    """A wild-only group is its own meld, outside the limit: with two wilds already in the
    side's groups, wild-only groups may still be laid and grow to a bolivia."""
    snap = opened(
        "bolivia+uruguayan",
        "2D 2H JK 2S 9C 9D 5S",
        ["QH QS QD QC 2C", "KH KS KD KC 2S", "JK JK 2H 2D"],
    )
    allowed(snap, new_meld("2D 2H JK"))
    allowed(snap, addition("m3", "2S"))
    refused(snap, addition("m1", "2S"), "SIDE_WILD_LIMIT")


# -- 3. bolivia ---------------------------------------------------------------------------


def test_further_3_bolivia_counts_as_a_canasta_never_as_the_escalera():
    """A bolivia counts toward the two canastas going out needs and toward the red-3
    condition, but the escalera (a seven-card run) is still needed."""
    without_escalera = opened("bolivia", "9H 9S 9D", [BOLIVIA7, KINGS7], has_melded=[0])
    refused(without_escalera, new_meld("9H 9S 9D"), "GO_OUT_REQUIREMENT_NOT_MET")
    with_escalera = opened("bolivia", "9H 9S 9D", [BOLIVIA7, SAMBA_4_10], has_melded=[0])
    out = allowed(with_escalera, new_meld("9H 9S 9D"))
    assert out.snapshot.result.reason is EndReason.WENT_OUT
    side = opened("bolivia", "5C", [BOLIVIA7, KINGS7], red_threes={0: "3H"}).sides[0]
    assert red_threes_positive(resolve("bolivia"), side)
    assert not red_threes_positive(resolve("bolivia"), opened("bolivia", "5C", [BOLIVIA7]).sides[0])


def test_further_3_bolivia_stays_wild_only():
    """Naturals never join a wild-only group, by addition or by a top card in a take."""
    snap = opened("bolivia", "9C 9D 2S 5S 6S", ["JK JK 2H 2D", KINGS7])
    refused(snap, addition("m1", "9C"), "MIXED_RANKS")
    allowed(snap, addition("m1", "2S"))
    take = make_snapshot(
        "bolivia",
        4,
        hands={0: "5S 6S 7C"},
        melds={0: ["JK JK 2H 2D", KINGS7]},
        discard="4C 9S",
        phase=Phase.DRAW,
    )
    assert not is_frozen(take.ruleset, take, 0)
    refused(take, TakePile(0, meld_id="m1"), "TOP_CARD_DOES_NOT_FIT")
    allowed(
        make_snapshot(
            "bolivia",
            4,
            hands={0: "5S 6S 7C"},
            melds={0: ["9H 9S 9D", KINGS7]},
            discard="4C 9C",
            phase=Phase.DRAW,
        ),
        TakePile(0, meld_id="m1"),
    )


# -- 4. official merging ------------------------------------------------------------------


def official_take(group: str, hand: str, top: str = "9C"):
    return make_snapshot(
        "official",
        4,
        hands={0: hand},
        melds={0: [group, KINGS7]},
        discard=f"4D {top}",
        phase=Phase.DRAW,
    )


def test_further_4_official_pair_take_merges_automatically():
    """A pair take meeting the side's group of that rank joins it: no new meld, no
    separate merge action."""
    snap = official_take("9H 9S 9D", "9C 9H 2C 5C 6D 7S")
    out = allowed(snap, TakePile(0, hand_cards=("9C", "9H")))
    assert len(out.snapshot.sides[0].melds) == 2
    assert sorted(melds_of(out.snapshot)[0]) == sorted("9H 9S 9D 9C 9C 9H".split())
    allowed(snap, TakePile(0, hand_cards=("9C", "9H", "2C")))


def test_further_4_official_merge_refused_putting_a_wild_onto_a_canasta():
    """The merged meld may not put a wild onto a completed canasta; naturals may join."""
    snap = official_take("9H 9S 9D 9C 9H 9S 9D", "9C 9H 2C 5C 6D 7S", top="9C")
    refused(snap, TakePile(0, hand_cards=("9C", "9H", "2C")), "WILD_ONTO_CANASTA_NOT_ALLOWED")
    out = allowed(snap, TakePile(0, hand_cards=("9C", "9H")))
    assert len(melds_of(out.snapshot)[0]) == 10


# -- 5. qualifying cards are a minimum ----------------------------------------------------


def test_further_5_frozen_pile_pair_is_a_minimum():
    """On a frozen pile the natural pair qualifies; more naturals of the rank and wilds
    within the group rule may join the new group."""
    snap = make_snapshot(
        "classic",
        4,
        hands={0: "9C 9H 9D 2D 5C 6D 7S"},
        melds={0: ["AH AS AD"]},
        discard="2C 4D 9S",
        phase=Phase.DRAW,
    )
    assert is_frozen(snap.ruleset, snap, 0)
    out = allowed(snap, TakePile(0, hand_cards=("9C", "9H", "9D", "2D")))
    assert sorted(melds_of(out.snapshot)[-1]) == sorted("9S 9C 9H 9D 2D".split())
    refused(snap, TakePile(0, hand_cards=("9C", "2D")), "TAKE_NEEDS_NATURAL_PAIR")


def test_further_5_natural_plus_wild_is_a_minimum():
    """canasta, unfrozen: one natural and one wild qualify, and further naturals and
    wilds may join within the group rule; frozen, the pair is needed (and enough)."""
    unfrozen = make_snapshot(
        "canasta",
        4,
        hands={0: "9C 9H 2D JK 5C 6D 7S"},
        melds={0: ["AH AS AD"]},
        discard="4D 9S",
        phase=Phase.DRAW,
    )
    assert not is_frozen(unfrozen.ruleset, unfrozen, 0)
    allowed(unfrozen, TakePile(0, hand_cards=("9C", "2D")))
    allowed(unfrozen, TakePile(0, hand_cards=("9C", "9H", "2D")))
    allowed(unfrozen, TakePile(0, hand_cards=("9C", "9H", "2D", "JK")))
    refused(unfrozen, TakePile(0, hand_cards=("9C", "2D", "JK")), "WILD_RULE_BROKEN")
    frozen = make_snapshot(
        "canasta",
        4,
        hands={0: "9C 9H 2D JK 5C 6D 7S"},
        melds={0: ["AH AS AD"]},
        discard="2C 4D 9S",
        phase=Phase.DRAW,
    )
    assert is_frozen(frozen.ruleset, frozen, 0)
    refused(frozen, TakePile(0, hand_cards=("9C", "2D")), "PILE_FROZEN")
    allowed(frozen, TakePile(0, hand_cards=("9C", "9H", "2D")))


# -- 6. spanish six players ---------------------------------------------------------------


def test_further_6_spanish_six_players_three_pairs_unless_overridden():
    default = deal(resolve("spanish"), 6, "six")
    assert resolve("spanish").six_player_layout is SixPlayerLayout.THREE_PAIRS
    assert [s.seats for s in default.sides] == [(0, 3), (1, 4), (2, 5)]
    trios = deal(resolve("spanish", {"six_player_layout": SixPlayerLayout.TWO_TRIOS}), 6, "six")
    assert [s.seats for s in trios.sides] == [(0, 2, 4), (1, 3, 5)]


# -- 7. the end of a match ----------------------------------------------------------------


def test_further_7_match_end_target_first_even_in_the_last_deal():
    """pagat allows 60 deals: reaching the target in the 60th deal ends the match with a
    winner (a draw only on equal totals); no side at the target after 60 is a draw."""
    pagat = resolve("pagat")
    assert pagat.max_deals == 60
    assert match_outcome(pagat, 4, 60, [10500, 9000]) == (True, 0, False)
    assert match_outcome(pagat, 4, 60, [10500, 10500]) == (True, None, True)
    assert match_outcome(pagat, 4, 60, [9000, 8000]) == (True, None, True)
    assert match_outcome(pagat, 4, 59, [9000, 8000]) == (False, None, False)
    ended = over(
        make_snapshot(
            "pagat",
            4,
            hands={0: "5C", 1: "6C"},
            deal_number=60,
            match_scores=(10000, 9990),
            melds={0: ["AH AS AD"]},
        ),
        Result(EndReason.STOCK_EXHAUSTED),
    )
    report = score(ended)
    assert report.match_over and report.winner_side == 0 and not report.draw


# -- 8. target overrides ------------------------------------------------------------------


@pytest.mark.parametrize("profile", list(PROFILES))
def test_further_8_target_override_for_every_profile(profile):
    rules = resolve(profile, {"target_score": 2345})
    assert {t.target_score for t in rules.table_sizes} == {2345}
    for bad in (0, -5, 2344):
        with pytest.raises(RulesetError) as err:
            resolve(profile, {"target_score": bad})
        assert [p.field for p in err.value.problems] == ["ruleset.overrides.target_score"]


def test_further_8_bad_target_is_an_invalid_argument_at_its_field():
    request = pb.DealRequest(
        ruleset=pb.RulesetRef(profile="canasta", overrides=pb.RulesetOverrides(target_score=2344)),
        players=4,
        seed="target",
    )
    with pytest.raises(ApiError) as err:
        call("Deal", request)
    assert err.value.code == "INVALID_ARGUMENT"
    assert [(p.field, p.reason) for p in err.value.field_violations] == [
        ("ruleset.overrides.targetScore", "OUT_OF_RANGE")
    ]
    request.ruleset.overrides.target_score = 2345
    assert call("Deal", request).snapshot.ruleset.profile == "canasta"


def test_further_8_target_in_table_sizes_is_checked_too():
    from dataclasses import replace

    sizes = tuple(replace(t, target_score=7) for t in resolve("classic").table_sizes)
    with pytest.raises(RulesetError) as err:
        resolve("classic", {"table_sizes": sizes})
    assert [p.field for p in err.value.problems] == [
        f"ruleset.overrides.table_sizes[{i}].target_score" for i in range(len(sizes))
    ]


# -- 9. variations ------------------------------------------------------------------------


def test_further_9_variations_in_any_order_printed_in_documented_order():
    either = resolve("pagat+open+uruguayan")
    assert either.profile == "pagat+uruguayan+open"
    # the ruleset knows its parts: nobody reads the profile string again
    assert (either.base, either.variations) == ("pagat", ("uruguayan", "open"))
    assert (resolve("").base, resolve("").variations) == ("classic", ())
    assert either == resolve("pagat+uruguayan+open")
    assert either.version == resolve("pagat+uruguayan+open").version
    problems: list = []
    _, ref = rulesets.ruleset_ref_from_proto(
        pb.RulesetRef(profile="classic+open+uruguayan"), "ruleset", problems
    )
    assert not problems and ref.profile == "classic+uruguayan+open"
    answer = call("GetRuleset", pb.GetRulesetRequest(profile="bolivia+open+uruguayan"))
    assert answer.profile == "bolivia+uruguayan+open"


@pytest.mark.parametrize(
    "spec", ["canasta+open", "canasta+uruguayan", "canasta+uruguayan+open", "classic+open+open"]
)
def test_further_9_variations_samba_profiles_only(spec):
    with pytest.raises(RulesetError) as err:
        resolve(spec)
    assert {p.reason for p in err.value.problems} == {"UNKNOWN_VARIATION"}


# -- 10. CheckMeld on black 3s ------------------------------------------------------------


def test_further_10_check_meld_black_threes_alone():
    """Without a snapshot black 3s are valid content, kind BLACK_THREES, with a note that
    they are laid only when going out; with one, the going-out rules judge."""
    got = check_meld(resolve("pagat"), ("3S", "3C", "3S"))
    assert (got.valid, got.kind, got.violations) == (True, MeldKind.BLACK_THREES, ())
    assert "going out" in got.note
    assert check_meld(resolve("pagat"), ("QS", "QC", "QD")).note == ""
    answer = call("CheckMeld", pb.CheckMeldRequest(cards=["3S", "3C", "3S"]))
    assert answer.valid and answer.kind == pb.Meld.BLACK_THREES and "going out" in answer.note
    going_out = opened("classic", "3S 3C 3S 5C", [KINGS7, QUEENS7], has_melded=[0])
    assert check_meld(going_out.ruleset, ("3S", "3C", "3S"), going_out, 0).valid
    for not_out in (
        opened("classic", "3S 3C 3S 5C 6D", [KINGS7, QUEENS7]),
        opened("classic", "3S 3C 3S 5C", [KINGS7]),
        opened("classic", "3S 3C 3S 5C", [KINGS7, QUEENS7], go_out=GoOut.DENIED),
    ):
        got = check_meld(not_out.ruleset, ("3S", "3C", "3S"), not_out, 0)
        assert not got.valid
        assert "BLACK_THREES_ONLY_WHEN_GOING_OUT" in codes_of(got.violations)


# -- 11. no dead ends ---------------------------------------------------------------------


def stranded(players: int, melds, **kw):
    """Seat 0 holds one card and draws the stock's last card, a red 3: it is laid out
    without replacement, and seat 0 is left in PLAY with a single card."""
    snap = make_snapshot(
        "classic",
        players,
        hands={0: "5C"},
        melds={0: melds},
        stock=["3H"],
        phase=Phase.DRAW,
        fill_stock=False,
        **kw,
    )
    drawn = allowed(snap, DrawStock(0), listing=False).snapshot
    assert drawn.seats[0].hand == ("5C",) and drawn.turn.phase is Phase.PLAY
    return drawn


def test_further_11_no_dead_end_when_the_stock_runs_out_on_a_red_three():
    """Alone (two players), short of the going-out requirement: the lone card may still be
    discarded, which ends the deal as if the stock ran out (no going-out bonus)."""
    snap = stranded(2, ["AH AS AD"])
    actions, _ = listed(snap, 0)
    assert actions == [Discard(0, "5C")]
    out = allowed(snap, Discard(0, "5C"))
    assert out.snapshot.turn.phase is Phase.OVER
    assert out.snapshot.result.reason is EndReason.STOCK_EXHAUSTED
    assert out.score.sides[0].going_out_bonus == 0


def test_further_11_no_dead_end_after_a_no():
    """With the requirement met, the lone card goes out; after asking and hearing "no" the
    same discard is still legal and ends the deal without going out."""
    snap = stranded(4, [KINGS7, QUEENS7], has_melded=[0])
    assert allowed(snap, Discard(0, "5C")).snapshot.result.reason is EndReason.WENT_OUT
    asked = allowed(snap, AskGoOut(0)).snapshot
    denied = allowed(asked, AnswerGoOut(2, False)).snapshot
    actions, _ = listed(denied, 0)
    assert actions == [Discard(0, "5C")]
    out = allowed(denied, Discard(0, "5C"))
    assert out.snapshot.result.reason is EndReason.STOCK_EXHAUSTED
    assert out.score.sides[0].going_out_bonus == 0


def test_further_11_spanish_stranded_discard_after_asking_costs_the_question():
    """spanish: asking and not going out costs −100 also when the stranded discard ends the
    deal; it is no going out after a refusal, so that penalty does not apply."""
    snap = make_snapshot(
        "spanish",
        4,
        hands={0: "5C"},
        melds={0: [KINGS7, QUEENS7]},
        has_melded=[0],
        go_out=GoOut.DENIED,
    )
    out = allowed(snap, Discard(0, "5C"))
    assert [p.code for p in out.snapshot.sides[0].penalties] == ["ASKED_AND_DID_NOT_GO_OUT"]
    assert out.snapshot.result.reason is EndReason.STOCK_EXHAUSTED


@pytest.mark.parametrize("hand", ["9H 9S 9D", "9H 9S 9D 5C"], ids=["every-card", "all-but-one"])
def test_further_12_spanish_after_a_no_melding_down_to_one_card_costs_the_penalty(hand):
    """Melding every card and melding all but one are the same attempt to go out: the same
    codes, and the refusal's penalty recorded by ApplyAction."""
    snap = opened("spanish", hand, [KINGS7, QUEENS7], has_melded=[0], go_out=GoOut.DENIED)
    meld = MeldCards(0, new_melds=(("9H", "9S", "9D"),))
    vs = refused(snap, meld, "WENT_OUT_AFTER_REFUSAL")
    assert codes_of(vs) == ["GO_OUT_REFUSED_BY_PARTNER", "WENT_OUT_AFTER_REFUSAL"]
    assert next(v for v in vs if v.code == "WENT_OUT_AFTER_REFUSAL").penalty_points == -100
    out = apply(snap, meld)
    assert [(p.code, p.points) for p in out.snapshot.sides[0].penalties] == [
        ("WENT_OUT_AFTER_REFUSAL", -100)
    ]
    classic = opened("classic", hand, [KINGS7, QUEENS7], has_melded=[0], go_out=GoOut.DENIED)
    assert codes_of(refused(classic, meld)) == ["GO_OUT_REFUSED_BY_PARTNER"]


@pytest.mark.parametrize(
    "profile, premium, field",
    [
        ("classic", {"kind": "DEALT_HAND", "points": 1000}, "snapshot.result.premium"),
        ("pagat", {"kind": "DEALT_HAND", "points": 1000}, "snapshot.result.premium"),
        ("spanish", {"kind": "DEALT_HAND", "points": 123456}, "snapshot.result.premium.points"),
        ("spanish", {"kind": "NOPE", "points": 1000}, "snapshot.result.premium.kind"),
    ],
)
def test_further_13_a_premium_is_never_taken_on_trust(profile, premium, field):
    """ScoreDeal refuses a premium the table does not earn (it scored a classic DEALT_HAND
    1000 as 1,200 concealed bonus) and scores the one the engine wrote."""
    msg = convert.snapshot_to_proto(went_out(profile))
    earned = call("ScoreDeal", pb.ScoreDealRequest(snapshot=msg))
    assert earned.sides[0].concealed_bonus == {"classic": 200, "pagat": 0, "spanish": 1000}[profile]
    msg.result.premium.CopyFrom(pb.Premium(**premium))
    with pytest.raises(ApiError) as e:
        call("ScoreDeal", pb.ScoreDealRequest(snapshot=msg))
    assert e.value.code == "INVALID_ARGUMENT"
    assert field in [v.field for v in e.value.field_violations]


# -- 14. official: a pair take names the group it joins ----------------------------------

#: Side 0 holds two groups of nines: m1 a completed (mixed) canasta, m2 three naturals.
NINES = ["9H 9S 9D 9C 9H 9S 2D", "9C 9D 9S", KINGS7]


def two_nines(spec: str = "official", **kw):
    """Seat 0 to draw; 9H on the (unfrozen) pile; the hand holds a natural pair and a wild."""
    return make_snapshot(
        spec,
        4,
        hands={0: "9D 9C 2C 5C 6D 7S"},
        melds={0: NINES},
        discard="4D 9H",
        phase=Phase.DRAW,
        **kw,
    )


def nine_takes(snap) -> list[tuple[tuple[str, ...], str | None]]:
    """The listed pair takes of seat 0 (no further melds): (hand cards, meld id)."""
    actions, _ = legal_actions(snap, 0)
    return [
        (tuple(sorted(a.hand_cards)), a.meld_id)
        for a in actions
        if isinstance(a, TakePile) and a.hand_cards and not a.new_melds and not a.additions
    ]


def test_further_14_official_pair_take_joins_the_named_group():
    """With two groups of the top card's rank, a natural-pair take joins the one its
    meldId names: the newer group here, the canasta in the second take."""
    snap = two_nines()
    assert not is_frozen(snap.ruleset, snap, 0)
    out = allowed(snap, TakePile(0, hand_cards=("9D", "9C"), meld_id="m2"))
    m1, m2, kings = out.snapshot.sides[0].melds
    assert (m1.id, m2.id, kings.id) == ("m1", "m2", "m3")
    assert sorted(m1.cards) == sorted(NINES[0].split())
    assert sorted(m2.cards) == sorted("9C 9D 9S 9H 9D 9C".split())
    out = allowed(snap, TakePile(0, hand_cards=("9D", "9C"), meld_id="m1"))
    assert len(out.snapshot.sides[0].melds[0].cards) == 10
    assert sorted(out.snapshot.sides[0].melds[1].cards) == sorted(NINES[1].split())


def test_further_14_official_wild_refused_onto_the_named_canasta_not_the_other_group():
    """§ 4 judges the group named: a wild may not join the completed canasta m1, and the
    same cards naming m2 are a legal take (its seven cards make a canasta)."""
    snap = two_nines()
    take = ("9D", "9C", "2C")
    refused(snap, TakePile(0, hand_cards=take, meld_id="m1"), "WILD_ONTO_CANASTA_NOT_ALLOWED")
    out = allowed(snap, TakePile(0, hand_cards=take, meld_id="m2"))
    assert sorted(out.snapshot.sides[0].melds[1].cards) == sorted("9C 9D 9S 9H 9D 9C 2C".split())


def test_further_14_official_unnamed_take_joins_the_oldest_group():
    """A take that names no group joins the oldest (the lowest meld number), whatever the
    order the snapshot lists the side's melds in; with a wild it is refused when the oldest
    is a completed canasta. The list gives this take in its named form (m1)."""
    snap = two_nines()
    melds = snap.sides[0].melds
    swapped = replace(
        snap,
        sides=(replace(snap.sides[0], melds=(melds[1], melds[0], melds[2])),) + snap.sides[1:],
    )
    for s in (snap, swapped):
        out = allowed(s, TakePile(0, hand_cards=("9D", "9C")), listing=False)
        by_id = {m.id: m for m in out.snapshot.sides[0].melds}
        assert len(by_id["m1"].cards) == 10 and len(by_id["m2"].cards) == 3
        unnamed_wild = TakePile(0, hand_cards=("9D", "9C", "2C"))
        refused(s, unnamed_wild, "WILD_ONTO_CANASTA_NOT_ALLOWED")
        named = apply(s, TakePile(0, hand_cards=("9D", "9C"), meld_id="m1"))
        assert named.snapshot == out.snapshot


def test_further_14_official_listing_names_the_group_once_per_legal_group():
    """ListLegalActions lists each pair take with the group it joins named, one take per
    group it may legally join (the wild only for m2), and no unnamed pair take."""
    takes = nine_takes(two_nines())
    assert sorted(takes) == [
        (("2C", "9C", "9D"), "m2"),
        (("9C", "9D"), "m1"),
        (("9C", "9D"), "m2"),
    ]
    one_group = make_snapshot(
        "official",
        4,
        hands={0: "9D 9C 2C 5C 6D 7S"},
        melds={0: [NINES[1], KINGS7]},
        discard="4D 9H",
        phase=Phase.DRAW,
    )
    assert sorted(nine_takes(one_group)) == [(("2C", "9C", "9D"), None), (("9C", "9D"), None)]
    named = allowed(one_group, TakePile(0, hand_cards=("9D", "9C"), meld_id="m1"), listing=False)
    assert named.snapshot == apply(one_group, TakePile(0, hand_cards=("9D", "9C"))).snapshot


@pytest.mark.parametrize(
    "meld_id, code",
    [("m3", "TOP_CARD_DOES_NOT_FIT"), ("m4", "NOT_OWN_MELD")],
)
def test_further_14_official_named_meld_must_be_the_sides_group_of_the_rank(meld_id, code):
    """A meldId that is not the side's group of the top card's rank is refused as a take by
    extension naming it is: another of the side's melds does not fit, another side's meld is
    not its own, and an id the snapshot lacks is an invalid argument at the field."""
    snap = make_snapshot(
        "official",
        4,
        hands={0: "9D 9C 2C 5C 6D 7S"},
        melds={0: NINES, 1: ["KC KS KH"]},
        discard="4D 9H",
        phase=Phase.DRAW,
    )
    vs = refused(snap, TakePile(0, hand_cards=("9D", "9C"), meld_id=meld_id), code)
    assert [v.field for v in vs] == ["action.takePile.meldId"]
    for cards in (("9D", "9C"), ("9D", "5C")):  # the id is bad input before the cards judged
        with pytest.raises(InvalidInput) as e:
            validate(snap, TakePile(0, hand_cards=cards, meld_id="m9"))
        assert [(p.field, p.reason) for p in e.value.problems] == [
            ("action.takePile.meldId", "UNKNOWN_MELD_ID")
        ]


@pytest.mark.parametrize("spec", ["classic", "pagat", "spanish", "canasta", "bolivia"])
def test_further_14_meld_id_with_hand_cards_is_invalid_where_no_group_is_named(spec):
    """Where a pair take starts a new group, or a side holds one group per rank (canasta),
    meldId names nothing: with handCards it stays an invalid argument, on the service
    too."""
    snap = make_snapshot(
        spec,
        4,
        hands={0: "9D 9C 5C 6D 7S"},
        melds={0: ["9C 9S 9D", KINGS7]},
        discard="4D 9H",
        phase=Phase.DRAW,
    )
    take = TakePile(0, hand_cards=("9D", "9C"), meld_id="m1")
    with pytest.raises(InvalidInput) as e:
        validate(snap, take)
    assert [(p.field, p.reason) for p in e.value.problems] == [("action.takePile", "REQUIRED")]
    request = pb.ValidateActionRequest(
        snapshot=convert.snapshot_to_proto(snap), action=action_to_proto(take)
    )
    with pytest.raises(ApiError) as err:
        call("ValidateAction", request)
    assert err.value.code == "INVALID_ARGUMENT"
    assert [v.field for v in err.value.field_violations] == ["action.takePile"]
    assert not any(
        isinstance(a, TakePile) and a.hand_cards and a.meld_id for a in legal_actions(snap, 0)[0]
    )


# -- 15. hand_floor is no client override ---------------------------------------------------


def test_further_15_hand_floor_is_two_and_no_client_override():
    """``hand_floor`` is 2 in every profile; the API has no field for it, so a client naming
    it (in either spelling) gets an invalid argument at the field, and GetRuleset does not
    print it."""
    assert {resolve(p).hand_floor for p in PROFILES} == {2}
    assert "hand_floor" not in pb.RulesetOverrides.DESCRIPTOR.fields_by_name
    runtime = Runtime(None, Adjudicator(), count_calls=False)
    for name in ("handFloor", "hand_floor"):
        body = {
            "ruleset": {"profile": "official", "overrides": {name: 3}},
            "players": 4,
            "seed": "f",
        }
        with pytest.raises(ApiError) as err:
            runtime.answer(Call("Deal", json.dumps(body).encode(), json=True))
        assert err.value.code == "INVALID_ARGUMENT"
        assert [(p.field, p.reason) for p in err.value.field_violations] == [
            ("ruleset.overrides.handFloor", "UNKNOWN_FIELD")
        ]
    printed = call("GetRuleset", pb.GetRulesetRequest(profile="official"))
    assert "hand_floor" not in pb.Ruleset.DESCRIPTOR.fields_by_name
    assert all(d.field != "handFloor" for d in printed.parameter_descriptions)


# -- ListLegalActions, ValidateAction and CheckMeld agree ----------------------------------

FILLER = " 5S 6D 7C 8C"
AGREEMENT = [
    # (case, spec, melds of side 0, hand, new meld cards or (meld id, cards), valid)
    ("open run 2+1", "classic+open", ["AH AS AD"], "5H 6H 2C", "5H 6H 2C", True),
    ("open run 1+2", "classic+open", ["AH AS AD"], "5H 2C 2D", "5H 2C 2D", False),
    ("run wild without open", "classic", ["AH AS AD"], "5H 6H 2C", "5H 6H 2C", False),
    ("natural displacing a wild", "classic+open", ["5H 6H JK"], "7H", ("m1", "7H"), False),
    ("natural at an open end", "classic+open", ["5H 6H JK"], "8H", ("m1", "8H"), True),
    ("second wild in a run", "classic+open", ["5H 6H JK"], "2C", ("m1", "2C"), False),
    (
        "uruguayan third group wild",
        "classic+uruguayan+open",
        ["QH QS QD 2C", "KH KS KD 2S"],
        "9C 9D 2H",
        "9C 9D 2H",
        False,
    ),
    (
        "uruguayan open run wild",
        "classic+uruguayan+open",
        ["QH QS QD 2C", "KH KS KD 2S"],
        "7S 8S 2D",
        "7S 8S 2D",
        True,
    ),
    ("uruguayan bolivia", "bolivia+uruguayan", ["QH QS QD QC 2C 2S"], "2D 2H JK", "2D 2H JK", True),
    ("natural onto a wild group", "bolivia", ["JK JK 2H 2D"], "9C", ("m1", "9C"), False),
    ("wild onto a wild group", "bolivia", ["JK JK 2H 2D"], "2S", ("m1", "2S"), True),
    ("official wild onto canasta", "official", [KINGS7], "2S", ("m1", "2S"), False),
    ("official natural onto canasta", "official", [KINGS7], "KC", ("m1", "KC"), True),
]


@pytest.mark.parametrize(
    "case,spec,melds,hand,meld,valid", AGREEMENT, ids=[c[0] for c in AGREEMENT]
)
def test_further_agreement(case, spec, melds, hand, meld, valid):
    """A docs/rules.md#further-decisions meld is listed iff ValidateAction accepts it iff CheckMeld
    (with the snapshot and the seat) finds it valid."""
    snap = opened(spec, hand + FILLER, melds)
    if isinstance(meld, tuple):
        action, cards, meld_id = addition(meld[0], meld[1]), tuple(meld[1].split()), meld[0]
    else:
        action, cards, meld_id = new_meld(meld), tuple(meld.split()), None
    (allowed if valid else refused)(snap, action)
    assert check_meld(snap.ruleset, cards, snap, 0, meld_id).valid is valid


def test_further_agreement_black_threes():
    """Black 3s: listed, valid and CheckMeld-valid together, when going out and not."""
    out = opened("classic", "3S 3C 3S 5C", [KINGS7, QUEENS7], has_melded=[0])
    allowed(out, new_meld("3S 3C 3S"))
    assert check_meld(out.ruleset, ("3S", "3C", "3S"), out, 0).valid
    not_out = opened("classic", "3S 3C 3S 5C 6D", [KINGS7, QUEENS7], has_melded=[0])
    refused(not_out, new_meld("3S 3C 3S"))
    assert not check_meld(not_out.ruleset, ("3S", "3C", "3S"), not_out, 0).valid


def test_further_agreement_every_listed_action_validates_on_the_cases():
    for case in AGREEMENT:
        snap = opened(case[1], case[3] + FILLER, case[2])
        actions, _ = legal_actions(snap, 0)
        assert actions and all(validate(snap, a) == [] for a in actions)

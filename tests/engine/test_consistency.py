"""check_snapshot: every inconsistency of a client-given snapshot, with its field path
(docs/rules.md#bad-input, docs/api.md#snapshot)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from builders import make_snapshot
from played_endings import went_out

from samba_adjudicator.engine.consistency import check_snapshot
from samba_adjudicator.engine.dealing import deal
from samba_adjudicator.engine.model import (
    EndReason,
    GoOut,
    Meld,
    MeldKind,
    Penalty,
    Phase,
    Premium,
    Result,
)
from samba_adjudicator.engine.premium_kinds import ConcealedPremium
from samba_adjudicator.engine.ruleset import PROFILES, SixPlayerLayout, resolve
from samba_adjudicator.engine.view import player_view

PROFILE_PLAYERS = [(p, n) for p in PROFILES for n in resolve(p).players_allowed]


def found(snap) -> set[tuple[str, str]]:
    return {(p.field, p.reason) for p in check_snapshot(snap)}


def only(snap, *expected):
    assert found(snap) == set(expected), check_snapshot(snap)


def set_seat(snap, i, **kw):
    seats = list(snap.seats)
    seats[i] = replace(seats[i], **kw)
    return replace(snap, seats=tuple(seats))


def set_side(snap, k, **kw):
    sides = list(snap.sides)
    sides[k] = replace(sides[k], **kw)
    return replace(snap, sides=tuple(sides))


def base(**kw):
    return make_snapshot(
        "classic",
        4,
        hands={0: "5H 6H 7H 9C", 1: "KD KD", 2: "AS", 3: "QC QC"},
        melds={0: ["8S 9S 10S", "JD JC 2H"], 1: ["4C 4D 4H"]},
        red_threes={1: "3D"},
        discard="6C 7C",
        **kw,
    )


# -- consistent snapshots -------------------------------------------------------------


@pytest.mark.parametrize("profile,players", PROFILE_PLAYERS)
def test_fresh_deal_is_consistent(profile, players):
    for seed in ("c1", "c2"):
        snap = deal(resolve(profile), players, seed, dealer=1 % players)
        assert check_snapshot(snap) == []
        assert check_snapshot(player_view(snap, 0)) == []
        assert check_snapshot(player_view(snap, None)) == []


def test_two_trios_deal_is_consistent():
    rules = resolve("spanish", {"six_player_layout": SixPlayerLayout.TWO_TRIOS})
    assert check_snapshot(deal(rules, 6, "t")) == []


def test_builder_snapshot_is_consistent():
    assert check_snapshot(base()) == []
    over = make_snapshot(
        "classic",
        4,
        hands={1: "KD KD", 2: "AS", 3: "QC QC"},
        melds={0: ["8S 9S 10S", "JD JC 2H"], 1: ["4C 4D 4H"]},
        red_threes={1: "3D"},
        discard="6C 7C",
        phase=Phase.OVER,
        result=Result(EndReason.WENT_OUT, seat=0),
        has_melded=[0],
        melded_this_turn=True,
        go_out=GoOut.GRANTED,
    )
    assert check_snapshot(over) == []


def test_open_run_with_low_wild_is_fine():
    snap = make_snapshot(
        "classic+open", melds={0: [Meld("m1", ("JK", "5H", "6H"), 0, MeldKind.RUN)]}
    )
    assert check_snapshot(snap) == []


# -- seats and sides ------------------------------------------------------------------


def test_unsupported_player_count():
    snap = make_snapshot("classic", 3)
    assert ("seats", "UNSUPPORTED_PLAYER_COUNT") in found(snap)


def test_wrong_side_of_seat_and_side_seats():
    snap = set_seat(base(), 1, side=0)
    only(snap, ("seats[1].side", "DERIVED_FIELD_DISAGREES"))
    snap = set_side(base(), 1, seats=(3, 1))
    only(snap, ("sides[1].seats", "DERIVED_FIELD_DISAGREES"))
    snap = set_seat(base(), 2, seat=5)
    only(snap, ("seats[2].seat", "OUT_OF_RANGE"))


def test_wrong_number_of_sides():
    snap = base()
    snap = replace(snap, sides=snap.sides[:1])
    # side 1's cards are gone too, so the zones no longer add up
    assert found(snap) == {("sides", "OUT_OF_RANGE"), ("", "ZONES_DO_NOT_ADD_UP")}


# -- cards ----------------------------------------------------------------------------


def test_too_many_copies_first_occurrence_beyond_limit():
    snap = base()
    # KD: stock holds the third copy; give seat 3 another → the 4th is beyond the limit
    snap = set_seat(snap, 3, hand=("QC", "QC", "KD"), hand_count=3)
    probs = found(snap)
    too_many = [p for p in check_snapshot(snap) if p.reason == "TOO_MANY_COPIES"]
    assert len(too_many) == 1
    kd_in_stock = snap.stock.index("KD")
    assert too_many[0].field == f"stock[{kd_in_stock}]"
    assert ("", "ZONES_DO_NOT_ADD_UP") in probs


def test_too_many_copies_in_hand():
    snap = make_snapshot("classic", hands={0: "QH QH QH QH"}, stock=())
    too_many = [p.field for p in check_snapshot(snap) if p.reason == "TOO_MANY_COPIES"]
    assert too_many == ["seats[0].hand[3]"]


def test_unknown_card_code():
    snap = set_seat(base(), 0, hand=("5H", "ZZ", "7H", "9C"))
    assert ("seats[0].hand[1]", "UNKNOWN_CARD_CODE") in found(snap)


def test_zones_do_not_add_up_listed():
    snap = base()
    snap = replace(snap, stock=snap.stock[1:], stock_count=snap.stock_count - 1)
    only(snap, ("", "ZONES_DO_NOT_ADD_UP"))


def test_zones_do_not_add_up_hidden_stock():
    snap = player_view(base(), 0)
    only(replace(snap, stock_count=snap.stock_count + 1), ("stockCount", "ZONES_DO_NOT_ADD_UP"))
    snap = player_view(base(), 0)
    only(set_seat(snap, 1, hand_count=5), ("stockCount", "ZONES_DO_NOT_ADD_UP"))


def test_counts_disagree():
    only(set_seat(base(), 0, hand_count=9), ("seats[0].handCount", "DERIVED_FIELD_DISAGREES"))
    snap = base()
    only(replace(snap, stock_count=snap.stock_count + 2), ("stockCount", "DERIVED_FIELD_DISAGREES"))


def test_negative_counts_do_not_crash():
    snap = set_seat(player_view(base(), None), 1, hand_count=-3)
    snap = replace(snap, stock_count=-1)
    probs = found(snap)
    assert ("seats[1].handCount", "OUT_OF_RANGE") in probs
    assert ("stockCount", "OUT_OF_RANGE") in probs


def test_dealt_is_not_a_zone():
    assert check_snapshot(set_seat(base(), 0, dealt=("QH",) * 10)) == []


# -- melds ----------------------------------------------------------------------------


def test_meld_ids():
    snap = base()
    bad = replace(snap.sides[0].melds[1], id="m3")  # side 1's meld is m3
    only(
        set_side(snap, 0, melds=(snap.sides[0].melds[0], bad)),
        ("sides[1].melds[0].id", "DUPLICATE_MELD_ID"),
    )
    bad = replace(snap.sides[0].melds[0], id="m 1!")
    only(
        set_side(snap, 0, melds=(bad, snap.sides[0].melds[1])),
        ("sides[0].melds[0].id", "OUT_OF_RANGE"),
    )
    bad = replace(snap.sides[0].melds[0], id="x" * 33)
    only(
        set_side(snap, 0, melds=(bad, snap.sides[0].melds[1])),
        ("sides[0].melds[0].id", "OUT_OF_RANGE"),
    )
    bad = replace(snap.sides[0].melds[0], id="")
    only(
        set_side(snap, 0, melds=(bad, snap.sides[0].melds[1])), ("sides[0].melds[0].id", "REQUIRED")
    )


def test_illegal_meld_content():
    snap = base()
    bad = replace(snap.sides[0].melds[1], cards=("JD", "2C", "2H"))  # 1 natural, 2 wilds
    snap = set_side(snap, 0, melds=(snap.sides[0].melds[0], bad))
    probs = found(snap)
    assert ("sides[0].melds[1].cards", "NOT_A_LEGAL_MELD") in probs


def test_run_stored_out_of_order():
    snap = base()
    bad = replace(snap.sides[0].melds[0], cards=("10S", "8S", "9S"))
    only(
        set_side(snap, 0, melds=(bad, snap.sides[0].melds[1])),
        ("sides[0].melds[0].cards", "NOT_A_LEGAL_MELD"),
    )


def test_run_in_canasta_profile_is_illegal():
    snap = make_snapshot("canasta", melds={0: ["5H 6H 7H"]})
    only(snap, ("sides[0].melds[0].cards", "NOT_A_LEGAL_MELD"))


def test_black_three_meld_is_fine_content_wise():
    snap = make_snapshot(
        "classic",
        melds={0: ["3S 3C 3S"]},
        phase=Phase.OVER,
        result=Result(EndReason.WENT_OUT, seat=0),
        has_melded=[0],
    )
    assert check_snapshot(snap) == []


def test_meld_kind_disagrees():
    snap = base()
    bad = replace(snap.sides[0].melds[1], kind=MeldKind.RUN)
    only(
        set_side(snap, 0, melds=(snap.sides[0].melds[0], bad)),
        ("sides[0].melds[1].kind", "DERIVED_FIELD_DISAGREES"),
    )


def test_laid_by_not_on_side():
    snap = base()
    bad = replace(snap.sides[0].melds[0], laid_by=1)
    only(
        set_side(snap, 0, melds=(bad, snap.sides[0].melds[1])),
        ("sides[0].melds[0].laidBy", "OUT_OF_RANGE"),
    )


def test_red_threes_only_red_threes():
    # move one 3S from the stock to side 0's red threes
    stock = list(base().stock)
    stock.remove("3S")
    snap = set_side(
        replace(base(), stock=tuple(stock), stock_count=len(stock)), 0, red_threes=("3S",)
    )
    only(snap, ("sides[0].redThrees[0]", "OUT_OF_RANGE"))


def test_unknown_penalty_code():
    """A penalty names one the engine records: not a refusal code, not a scoring term."""
    snap = make_snapshot("spanish", 4)
    snap = set_side(
        snap,
        1,
        penalties=(
            Penalty("ASKED_AND_DID_NOT_GO_OUT", -100),
            Penalty("RED_THREE_IN_HAND", -500),
            Penalty("NOPE", -1),
        ),
    )
    only(
        snap,
        ("sides[1].penalties[1].code", "OUT_OF_RANGE"),
        ("sides[1].penalties[2].code", "OUT_OF_RANGE"),
    )


@pytest.mark.parametrize("points", [-99, -1000, 0, 100, 123456])
def test_penalty_points_are_the_rulesets(points):
    """docs/rules.md#snapshot-fields: a penalty is worth the ruleset's penalty points, never
    what the snapshot says (ScoreDeal adds them up)."""
    snap = set_side(
        make_snapshot("spanish", 4), 0, penalties=(Penalty("OUT_OF_TURN_DRAW", points),)
    )
    only(snap, ("sides[0].penalties[0].points", "DERIVED_FIELD_DISAGREES"))


@pytest.mark.parametrize("profile", ["classic", "pagat", "canasta", "bolivia", "official"])
def test_no_penalties_without_penalties_enabled(profile):
    snap = set_side(make_snapshot(profile, 4), 1, penalties=(Penalty("OUT_OF_TURN_DRAW", -100),))
    only(snap, ("sides[1].penalties[0]", "OUT_OF_RANGE"))


# -- turn, phase, deal ----------------------------------------------------------------


def test_turn_seat_out_of_range():
    snap = base()
    only(replace(snap, turn=replace(snap.turn, seat=4)), ("turn.seat", "OUT_OF_RANGE"))


def test_phase_and_result():
    snap = base()
    only(
        replace(snap, turn=replace(snap.turn, phase=Phase.OVER)),
        ("turn.phase", "PHASE_INCONSISTENT"),
    )
    only(replace(snap, result=Result(EndReason.STOCK_EXHAUSTED)), ("result", "PHASE_INCONSISTENT"))


def test_result_seat():
    only(base(phase=Phase.OVER, result=Result(EndReason.WENT_OUT)), ("result.seat", "REQUIRED"))
    only(
        base(phase=Phase.OVER, result=Result(EndReason.WENT_OUT, seat=7)),
        ("result.seat", "OUT_OF_RANGE"),
    )


def test_turn_flags_in_draw_phase():
    only(
        base(phase=Phase.DRAW, melded_this_turn=True), ("turn.meldedThisTurn", "PHASE_INCONSISTENT")
    )
    only(base(phase=Phase.DRAW, took_pile=True), ("turn.tookPile", "PHASE_INCONSISTENT"))
    only(base(phase=Phase.DRAW, go_out=GoOut.ASKED), ("turn.goOut", "PHASE_INCONSISTENT"))
    assert (
        check_snapshot(
            base(phase=Phase.PLAY, took_pile=True, melded_this_turn=True, go_out=GoOut.ASKED)
        )
        == []
    )


def test_go_out_question_needs_a_partner():
    snap = make_snapshot("pagat", 3, go_out=GoOut.ASKED)
    only(snap, ("turn.goOut", "PHASE_INCONSISTENT"))


def test_dealer_deal_number_ply():
    only(base(dealer=4), ("dealer", "OUT_OF_RANGE"))
    only(base(deal_number=0), ("dealNumber", "OUT_OF_RANGE"))
    only(base(ply=-1), ("ply", "OUT_OF_RANGE"))


def test_replacements_owed_only_in_spanish():
    only(
        set_seat(base(), 0, red_three_replacements_owed=1),
        ("seats[0].redThreeReplacementsOwed", "OUT_OF_RANGE"),
    )
    sp = make_snapshot("spanish", owed={0: 1})
    assert check_snapshot(sp) == []
    only(
        make_snapshot("spanish", owed={0: -1}),
        ("seats[0].redThreeReplacementsOwed", "OUT_OF_RANGE"),
    )


# -- all at once ----------------------------------------------------------------------


def test_every_problem_is_reported():
    snap = base()
    snap = set_seat(snap, 0, hand_count=1, side=1)
    bad_meld = replace(snap.sides[0].melds[0], id="m2", laid_by=3)
    snap = set_side(snap, 0, melds=(bad_meld, snap.sides[0].melds[1]))
    snap = replace(
        snap,
        turn=replace(snap.turn, seat=9, phase=Phase.DRAW, took_pile=True),
        dealer=-1,
        ply=-5,
        deal_number=0,
        stock_count=3,
    )
    expected = {
        ("seats[0].side", "DERIVED_FIELD_DISAGREES"),
        ("seats[0].handCount", "DERIVED_FIELD_DISAGREES"),
        ("sides[0].melds[1].id", "DUPLICATE_MELD_ID"),
        ("sides[0].melds[0].laidBy", "OUT_OF_RANGE"),
        ("stockCount", "DERIVED_FIELD_DISAGREES"),
        ("turn.seat", "OUT_OF_RANGE"),
        ("turn.tookPile", "PHASE_INCONSISTENT"),
        ("dealer", "OUT_OF_RANGE"),
        ("ply", "OUT_OF_RANGE"),
        ("dealNumber", "OUT_OF_RANGE"),
    }
    assert found(snap) == expected


def test_empty_snapshot_does_not_crash():
    snap = make_snapshot("classic", 4, fill_stock=False)
    snap = replace(snap, seats=(), sides=())
    probs = found(snap)
    assert ("seats", "UNSUPPORTED_PLAYER_COUNT") in probs
    assert ("", "ZONES_DO_NOT_ADD_UP") in probs


def test_unknown_codes_in_dealt_are_reported_at_their_index():
    probs = check_snapshot(set_seat(base(), 1, dealt=("QH", "ZZ", "5C", "1X")))
    assert [(p.field, p.reason) for p in probs] == [
        ("seats[1].dealt[1]", "UNKNOWN_CARD_CODE"),
        ("seats[1].dealt[3]", "UNKNOWN_CARD_CODE"),
    ]


# -- the result: figures the rules produce (docs/rules.md#snapshot-fields) -------------------


def with_result(snap, **kw):
    return replace(snap, result=replace(snap.result, **kw))


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"with_partner": True},
        {"from_dealt": False},
        {"from_dealt": False, "with_partner": True},
        {"concealed": False},
    ],
)
def test_played_spanish_endings_are_consistent(kw):
    snap = went_out("spanish", **kw)
    assert check_snapshot(snap) == []
    for seat in (None, 0, 1):
        assert check_snapshot(player_view(snap, seat)) == []


@pytest.mark.parametrize("profile", ["classic", "pagat"])
def test_premium_in_a_profile_without_premiums(profile):
    """Issue 19: a classic or pagat result carrying a premium is refused, not scored."""
    snap = went_out(profile)
    assert check_snapshot(snap) == [] and snap.result.concealed
    only(
        with_result(snap, premium=Premium("DEALT_HAND", 1000)),
        ("result.premium", "OUT_OF_RANGE"),
    )


@pytest.mark.parametrize(
    "premium, problem",
    [
        (Premium("BIG", 1000), ("result.premium.kind", "OUT_OF_RANGE")),
        (Premium("", 0), ("result.premium.kind", "OUT_OF_RANGE")),
        (Premium("DEALT_HAND", -100), ("result.premium.points", "DERIVED_FIELD_DISAGREES")),
        (Premium("DEALT_HAND", 123456), ("result.premium.points", "DERIVED_FIELD_DISAGREES")),
        (Premium("DEALT_HAND", 500), ("result.premium.points", "DERIVED_FIELD_DISAGREES")),
        (Premium("DURING_PLAY", 500), ("result.premium.kind", "DERIVED_FIELD_DISAGREES")),
        (
            Premium("DEALT_HAND_WITH_PARTNER", 500),
            ("result.premium.kind", "DERIVED_FIELD_DISAGREES"),
        ),
        (None, ("result.premium", "DERIVED_FIELD_DISAGREES")),
    ],
)
def test_spanish_premium_is_the_one_earned(premium, problem):
    """Only one of the four kinds, with its own points, and the one the table earns
    (DEALT_HAND here: seven nines from the dealt hand, nothing added to the partner's)."""
    snap = went_out("spanish")
    assert snap.result.premium == Premium("DEALT_HAND", 1000)
    only(with_result(snap, premium=premium), problem)


def test_spanish_premium_needs_a_concealed_going_out():
    snap = went_out("spanish", concealed=False)
    only(
        with_result(snap, premium=Premium("DEALT_HAND", 1000)),
        ("result.premium", "PHASE_INCONSISTENT"),
    )
    over = make_snapshot(
        "spanish", 4, phase=Phase.OVER, result=Result(EndReason.STOCK_EXHAUSTED, None)
    )
    only(
        with_result(over, premium=Premium("DURING_PLAY", 500)),
        ("result.premium", "PHASE_INCONSISTENT"),
    )


def test_premium_with_the_dealt_hand_hidden():
    """A view hides the going-out seat's ``dealt``: either origin of the meld is accepted,
    nothing else (the partner flag, the points and the need for a premium still hold)."""
    view = player_view(went_out("spanish"), 1)
    assert view.seats[0].dealt == ()
    assert check_snapshot(with_result(view, premium=Premium("DURING_PLAY", 500))) == []
    for premium in (Premium("DURING_PLAY_WITH_PARTNER", 200), None):
        bad = with_result(view, premium=premium)
        assert {p.field for p in check_snapshot(bad)} <= {"result.premium", "result.premium.kind"}
        assert check_snapshot(bad)


def test_premium_comes_from_the_rulesets_table():
    """The points come from the ruleset's ``concealed_premiums`` (an override pays others)."""
    table = (ConcealedPremium("DEALT_HAND", 700), ConcealedPremium("DURING_PLAY", 300))
    snap = went_out("classic")
    snap = replace(snap, ruleset=replace(snap.ruleset, concealed_premiums=table))
    only(snap, ("result.premium", "DERIVED_FIELD_DISAGREES"))
    assert check_snapshot(with_result(snap, premium=Premium("DEALT_HAND", 700))) == []
    only(
        with_result(snap, premium=Premium("DEALT_HAND", 1000)),
        ("result.premium.points", "DERIVED_FIELD_DISAGREES"),
    )


def test_result_seat_is_the_last_turns_seat_with_an_empty_hand():
    snap = went_out("spanish")
    moved = replace(snap, turn=replace(snap.turn, seat=1))
    only(moved, ("result.seat", "DERIVED_FIELD_DISAGREES"))
    holding = set_seat(snap, 0, hand=snap.stock[:2], hand_count=2)
    holding = replace(holding, stock=snap.stock[2:], stock_count=len(snap.stock) - 2)
    only(holding, ("result.seat", "PHASE_INCONSISTENT"))


def test_concealed_is_checked():
    """Concealed exactly when the seat took no pile this turn and laid nothing in an earlier
    turn; the final snapshot keeps that turn's melding in meldedThisTurn, not hasMelded."""
    snap = went_out("spanish")
    assert not snap.seats[0].has_melded and snap.turn.melded_this_turn
    took = replace(snap, turn=replace(snap.turn, took_pile=True))
    only(took, ("result.concealed", "DERIVED_FIELD_DISAGREES"))
    only(
        with_result(snap, concealed=False),
        ("result.concealed", "DERIVED_FIELD_DISAGREES"),
        ("result.premium", "PHASE_INCONSISTENT"),
    )
    earlier = went_out("classic", concealed=False)
    assert earlier.seats[0].has_melded and not earlier.result.concealed
    only(with_result(earlier, concealed=True), ("result.concealed", "DERIVED_FIELD_DISAGREES"))
    stock_end = make_snapshot(
        "classic", 4, phase=Phase.OVER, result=Result(EndReason.STOCK_EXHAUSTED, None)
    )
    only(with_result(stock_end, concealed=True), ("result.concealed", "PHASE_INCONSISTENT"))

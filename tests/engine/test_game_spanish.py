"""docs/rules.md#spanish and the dealing rows of docs/rules.md#parameters it contrasts with:
upcard burial, dealt red 3s replaced at the seat's first turn, the concealed premiums, and
the seed-000 penalties (recorded in the side's penalties, also on refused actions).
"""

from __future__ import annotations

from collections import Counter

import pytest
from played_endings import went_out
from rules_support import (
    KINGS7,
    PROFILES,
    QUEENS7,
    allowed,
    codes_of,
    event_types,
    make_snapshot,
    refused,
    with_stock,
)

from samba_adjudicator.engine import dealing
from samba_adjudicator.engine.cards import RANK, WILD, pack_list
from samba_adjudicator.engine.model import (
    Addition,
    AnswerGoOut,
    AskGoOut,
    Discard,
    DrawStock,
    GoOut,
    MeldCards,
    Phase,
    TakePile,
)
from samba_adjudicator.engine.premium_kinds import ConcealedPremium
from samba_adjudicator.engine.ruleset import RulesetError, resolve

# -- dealing with a controlled deck ----------------------------------------------------------


def rigged_deck(profile, players, first=(), upcards=()):
    """A pack order: the hands get ``first`` then plain naturals, then ``upcards``."""
    rules = resolve(profile)
    size = rules.table_size(players).hand_size
    pack = Counter(pack_list(rules.decks, rules.jokers))
    pack.subtract(Counter(first) + Counter(upcards))
    plain = [
        c
        for c in pack_list(rules.decks, rules.jokers)
        if c not in WILD and RANK[c] not in ("3", "9")
    ]
    hands = list(first)
    for c in plain:
        if len(hands) == players * size:
            break
        if pack[c] > 0:
            pack[c] -= 1
            hands.append(c)
    rest = list(pack.elements())
    return rules, hands + list(upcards) + rest


def rigged_deal(profile, players=4, first=(), upcards=("9H",)):
    rules, deck = rigged_deck(profile, players, first, upcards)
    return dealing.deal_pack(rules, players, deck, dealer=0)


UPCARDS = ("3H", "2C", "3S", "JK", "9H")
BURIED = {
    "classic": ("3H", "2C", "3S"),
    "pagat": ("3H",),
    "spanish": UPCARDS,
    "canasta": ("3H", "2C", "3S"),
    "bolivia": ("3H", "2C", "3S"),
    "official": ("3H", "2C", "3S"),
}


@pytest.mark.parametrize("profile", PROFILES)
def test_s9_upcard_buried_under_any_three_or_wild(profile):
    """docs/rules.md#spanish / docs/rules.md#parameters upcard_buried_if: spanish covers a 3 or
    wild upcard until a natural shows;
    classic, canasta, bolivia, official bury wild and red 3 (a black 3 stays); pagat buries
    nothing."""
    snap = rigged_deal(profile, upcards=UPCARDS)
    assert snap.discard_pile == BURIED[profile]


@pytest.mark.parametrize("profile, owed, hand", [("classic", 0, 15), ("spanish", 1, 14)])
def test_s9_dealt_red_three_replaced_at_first_turn(profile, owed, hand):
    """docs/rules.md#spanish / docs/rules.md#parameters red_threes: a dealt red 3 is laid out at
    once; classic replaces it now,
    spanish owes the replacement until the seat's first turn."""
    snap = rigged_deal(profile, first=("3H",))
    assert snap.sides[1].red_threes == ("3H",)
    assert snap.seats[1].red_three_replacements_owed == owed
    assert len(snap.seats[1].hand) == hand


def test_s9_replacements_drawn_before_the_draw():
    """docs/rules.md#spanish: the owed replacements are drawn when the seat's turn first comes,
    before its draw (stock order: replacement first, then the two drawn cards)."""
    snap = make_snapshot(
        "spanish", 4, hands={0: "5C 6D"}, owed={0: 1}, red_threes={0: "3H"}, phase=Phase.DRAW
    )
    snap = with_stock(snap, "9C 9D 9S 8S")
    out = allowed(snap, DrawStock(0))
    assert out.snapshot.seats[0].hand == ("5C", "6D", "9C", "9D", "9S")
    assert out.snapshot.seats[0].red_three_replacements_owed == 0
    assert out.snapshot.stock_count == snap.stock_count - 3


def test_s9_replacements_drawn_before_a_pile_take():
    """docs/rules.md#spanish: taking the pile on the first turn also draws the owed replacements
    first."""
    snap = make_snapshot(
        "spanish",
        4,
        hands={0: "KS KD 5C 6D"},
        owed={0: 1},
        red_threes={0: "3H"},
        discard="4C KH",
        melds={0: ["AH AS AD"]},
        phase=Phase.DRAW,
    )
    snap = with_stock(snap, "9C")
    out = allowed(snap, TakePile(0, hand_cards=("KS", "KD")))
    assert sorted(out.snapshot.seats[0].hand) == ["4C", "5C", "6D", "9C"]
    assert out.snapshot.seats[0].red_three_replacements_owed == 0


# -- premiums --------------------------------------------------------------------------------

NINES = "9H 9S 9D 9C 9H 9S 9D"


@pytest.mark.parametrize(
    "from_dealt, with_partner, kind, points",
    [
        (True, False, "DEALT_HAND", 1000),
        (True, True, "DEALT_HAND_WITH_PARTNER", 500),
        (False, False, "DURING_PLAY", 500),
        (False, True, "DURING_PLAY_WITH_PARTNER", 200),
    ],
)
def test_s9_concealed_premiums(from_dealt, with_partner, kind, points):
    """docs/rules.md#spanish: going out concealed with a seven-card meld formed in the hand: 1000
    from the dealt hand without adding to the partner's melds; 500 from the dealt hand adding; 500
    formed in play, not adding; 200 formed in play and adding (in concealedBonus)."""
    hand = NINES + (" KC 5C" if with_partner else " 5C")
    dealt = hand if from_dealt else "4H 4S 5H 6H 7H 8H 10H JH QH 4D 5D 6D 7D 8D 10D"
    snap = make_snapshot(
        "spanish",
        4,
        hands={0: hand},
        dealt={0: dealt},
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2],
    )
    adds = (Addition("m1", ("KC",)),) if with_partner else ()
    s1 = allowed(
        snap, MeldCards(0, new_melds=(tuple(NINES.split()),), additions=adds), listing=False
    ).snapshot
    assert s1.turn.added_to_partner_melds is with_partner
    out = allowed(s1, Discard(0, "5C"))
    res = out.snapshot.result
    assert res.concealed and res.premium is not None
    assert (res.premium.kind, res.premium.points) == (kind, points)
    assert out.score.sides[0].concealed_bonus == points


def test_s9_no_premium_when_not_concealed():
    """docs/rules.md#spanish: the premiums are for going out concealed only."""
    snap = make_snapshot(
        "spanish",
        4,
        hands={0: NINES + " 5C"},
        dealt={0: NINES + " 5C"},
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[0, 2],
    )
    s1 = allowed(snap, MeldCards(0, new_melds=(tuple(NINES.split()),))).snapshot
    out = allowed(s1, Discard(0, "5C"))
    assert not out.snapshot.result.concealed and out.snapshot.result.premium is None
    assert out.score.sides[0].concealed_bonus == 0


# -- penalties --------------------------------------------------------------------------------


@pytest.mark.parametrize("profile, penalty", [("spanish", -100), ("classic", 0), ("pagat", 0)])
def test_s9_asked_and_did_not_go_out(profile, penalty):
    """docs/rules.md#spanish: asking permission and then ending the turn without going out costs
    −100 in spanish, recorded when the turn passes (side penalties + PENALTY_ASSESSED)."""
    snap = make_snapshot(profile, 4, hands={0: "5C 6D 7H"}, melds={0: ["AH AS AD"]})
    s1 = allowed(snap, AskGoOut(0)).snapshot
    s2 = allowed(s1, AnswerGoOut(2, True)).snapshot
    assert s2.sides[0].penalties == ()
    out = allowed(s2, Discard(0, "5C"))
    pens = out.snapshot.sides[0].penalties
    if penalty:
        assert [(p.code, p.points) for p in pens] == [("ASKED_AND_DID_NOT_GO_OUT", -100)]
        assert "PENALTY_ASSESSED" in event_types(out)
    else:
        assert pens == () and "PENALTY_ASSESSED" not in event_types(out)


@pytest.mark.parametrize("hand", ["9H 9S 9D", "9H 9S 9D 5C"], ids=["every-card", "all-but-one"])
@pytest.mark.parametrize("profile, penalty", [("spanish", -100), ("classic", 0)])
def test_s9_trying_to_go_out_after_no(profile, penalty, hand):
    """docs/rules.md#spanish: trying to go out after the partner said no is refused and, in
    spanish, costs −100: ApplyAction returns the input snapshot with the penalty recorded.
    Melding down to one card (the last to be discarded) is the same attempt as melding every
    card: the same codes and the same penalty (docs/rules.md "Further decisions")."""
    snap = make_snapshot(
        profile,
        4,
        hands={0: hand},
        melds={0: [KINGS7, QUEENS7]},
        has_melded=[0],
        go_out=GoOut.DENIED,
    )
    meld_out = MeldCards(0, new_melds=(("9H", "9S", "9D"),))
    vs = refused(snap, meld_out, "GO_OUT_REFUSED_BY_PARTNER")
    from samba_adjudicator.engine.game import apply

    out = apply(snap, meld_out)
    pens = [(p.code, p.points) for p in out.snapshot.sides[0].penalties]
    if penalty:
        assert "WENT_OUT_AFTER_REFUSAL" in codes_of(vs)
        v = next(v for v in vs if v.code == "WENT_OUT_AFTER_REFUSAL")
        assert v.penalty_points == -100
        assert pens == [("WENT_OUT_AFTER_REFUSAL", -100)]
        assert "PENALTY_ASSESSED" in event_types(out)
        assert out.snapshot.seats == snap.seats and out.snapshot.turn == snap.turn
    else:
        assert pens == [] and out.snapshot == snap


@pytest.mark.parametrize("profile, penalty", [("spanish", -100), ("classic", 0)])
def test_s9_out_of_turn_draw(profile, penalty):
    """docs/rules.md#spanish: an out-of-turn draw is refused (NOT_YOUR_TURN) and, in spanish,
    penalised (OUT_OF_TURN_DRAW, penaltyPoints −100, recorded for the offender's side)."""
    snap = make_snapshot(profile, 4, hands={0: "5C 6D", 1: "7C 8D"}, phase=Phase.DRAW)
    vs = refused(snap, DrawStock(1), "NOT_YOUR_TURN")
    from samba_adjudicator.engine.game import apply

    out = apply(snap, DrawStock(1))
    if penalty:
        v = next(v for v in vs if v.code == "OUT_OF_TURN_DRAW")
        assert v.penalty_points == -100
        assert [(p.code, p.points) for p in out.snapshot.sides[1].penalties] == [
            ("OUT_OF_TURN_DRAW", -100)
        ]
        assert out.snapshot.sides[0].penalties == ()
        assert out.snapshot.seats[1].hand == ("7C", "8D")
    else:
        assert "OUT_OF_TURN_DRAW" not in codes_of(vs) and out.snapshot == snap


def test_s9_cards_exposed_out_of_turn():
    """docs/rules.md#spanish: exposing (melding) cards out of turn is penalised in spanish."""
    snap = make_snapshot(
        "spanish", 4, hands={0: "5C 6D", 1: "9C 9D 9S 8D 7D"}, melds={1: ["AH AS AD"]}
    )
    vs = refused(snap, MeldCards(1, new_melds=(("9C", "9D", "9S"),)), "NOT_YOUR_TURN")
    assert "CARDS_EXPOSED_OUT_OF_TURN" in codes_of(vs)
    from samba_adjudicator.engine.game import apply

    out = apply(snap, MeldCards(1, new_melds=(("9C", "9D", "9S"),)))
    assert [(p.code, p.points) for p in out.snapshot.sides[1].penalties] == [
        ("CARDS_EXPOSED_OUT_OF_TURN", -100)
    ]


def test_s9_three_wilds_in_a_canasta():
    """docs/rules.md#spanish: three wilds in a canasta is refused and penalised
    (THREE_WILDS_IN_CANASTA)."""
    snap = make_snapshot(
        "spanish", 4, hands={0: "9H 9S 9D 9C 2C 2D JK 5C 6D"}, melds={0: ["AH AS AD"]}
    )
    action = MeldCards(0, new_melds=(("9H", "9S", "9D", "9C", "2C", "2D", "JK"),))
    vs = refused(snap, action, "THREE_WILDS_IN_CANASTA")
    v = next(v for v in vs if v.code == "THREE_WILDS_IN_CANASTA")
    assert v.penalty_points == -100
    from samba_adjudicator.engine.game import apply

    out = apply(snap, action)
    assert ("THREE_WILDS_IN_CANASTA", -100) in [
        (p.code, p.points) for p in out.snapshot.sides[0].penalties
    ]
    assert out.snapshot.sides[0].melds == snap.sides[0].melds


def test_s9_penalties_subtracted_by_scoring_after_apply():
    """docs/rules.md#spanish/docs/rules.md#scoring: a penalty recorded by ApplyAction is subtracted
    when the deal is scored."""
    snap = make_snapshot("spanish", 4, hands={0: "5C 6D 7H"}, melds={0: [KINGS7]})
    s = allowed(snap, AskGoOut(0)).snapshot
    s = allowed(s, AnswerGoOut(2, True)).snapshot
    s = allowed(s, Discard(0, "5C")).snapshot
    from samba_adjudicator.engine.scoring import score

    s0 = score(s, provisional=True).sides[0]
    assert s0.penalty_points == -100
    assert s0.deal_total == 570 - 100 - (5 + 5)


def test_s9_spanish_goes_out_with_two_seven_card_melds():
    """docs/rules.md#spanish: spanish going out needs two seven-card melds."""
    one = make_snapshot("spanish", 4, hands={0: "9H 9S 9D"}, melds={0: [KINGS7]}, has_melded=[0])
    refused(one, MeldCards(0, new_melds=(("9H", "9S", "9D"),)), "GO_OUT_REQUIREMENT_NOT_MET")
    two = make_snapshot("spanish", 4, hands={0: "5C"}, melds={0: [KINGS7, QUEENS7]}, has_melded=[0])
    assert allowed(two, Discard(0, "5C")).score.sides[0].going_out_bonus == 200


# -- docs/rules.md#dealing, docs/rules.md#parameters dealing shape (hand_size, players allowed, six-


@pytest.mark.parametrize(
    "profile, players, size",
    [
        ("classic", 2, 15),
        ("classic", 4, 15),
        ("classic", 6, 13),
        ("pagat", 2, 15),
        ("pagat", 3, 15),
        ("pagat", 4, 15),
        ("spanish", 2, 15),
        ("spanish", 5, 15),
        ("spanish", 6, 15),
        ("canasta", 2, 15),
        ("canasta", 3, 13),
        ("canasta", 4, 11),
        ("bolivia", 4, 15),
        ("official", 4, 15),
    ],
)
def test_s3_hand_size(profile, players, size):
    """docs/rules.md#dealing / docs/rules.md#parameters hand_size: each seat receives hand_size
    cards; the seat left of the
    dealer plays first, in DRAW."""
    snap = rigged_deal(profile, players)
    assert [len(s.hand) for s in snap.seats] == [size] * players
    assert snap.turn.seat == 1 and snap.turn.phase is Phase.DRAW


@pytest.mark.parametrize(
    "profile, players",
    [
        ("classic", 3),
        ("classic", 5),
        ("pagat", 5),
        ("pagat", 6),
        ("canasta", 5),
        ("canasta", 6),
        ("bolivia", 2),
        ("bolivia", 6),
        ("official", 2),
        ("official", 3),
    ],
)
def test_s3_players_allowed(profile, players):
    """docs/rules.md#parameters players allowed: classic 2/4/6, pagat 2–4, spanish 2–6, canasta
    2–4, bolivia and official 4 only (an unsupported count is an invalid argument)."""
    from samba_adjudicator.engine.model import InvalidInput

    with pytest.raises(InvalidInput):
        dealing.deal(resolve(profile), players, "x")


@pytest.mark.parametrize(
    "profile, overrides, sides",
    [
        ("classic", {}, [(0, 3), (1, 4), (2, 5)]),
        ("spanish", {}, [(0, 3), (1, 4), (2, 5)]),
        ("spanish", {"six_player_layout": "TWO_TRIOS"}, [(0, 2, 4), (1, 3, 5)]),
    ],
)
def test_s2_six_player_sides(profile, overrides, sides):
    """docs/rules.md#seating and sides / docs/rules.md#parameters six_player_layout: three pairs
    {0,3},{1,4},{2,5}; spanish
    may play two trios {0,2,4},{1,3,5}."""
    from samba_adjudicator.engine.ruleset import SixPlayerLayout

    ov = {k: SixPlayerLayout(v) for k, v in overrides.items()}
    snap = dealing.deal(resolve(profile, ov), 6, "x")
    assert [s.seats for s in snap.sides] == sides


def test_s9_premiums_are_a_parameter_of_the_ruleset():
    """docs/rules.md#spanish-premiums: the kinds and points are the ruleset's
    ``concealed_premiums`` (only spanish lists them); an override pays its own table."""
    assert [(p.kind, p.points) for p in resolve("spanish").concealed_premiums] == [
        ("DEALT_HAND", 1000),
        ("DEALT_HAND_WITH_PARTNER", 500),
        ("DURING_PLAY", 500),
        ("DURING_PLAY_WITH_PARTNER", 200),
    ]
    for profile in PROFILES:
        if profile != "spanish":
            assert resolve(profile).concealed_premiums == ()
    for profile in ("classic", "pagat", "official"):
        ending = went_out(profile)
        assert ending.result.concealed and ending.result.premium is None
    table = (ConcealedPremium("DEALT_HAND", 700),)
    paid = went_out("spanish", overrides={"concealed_premiums": table})
    assert (paid.result.premium.kind, paid.result.premium.points) == ("DEALT_HAND", 700)
    unpaid = went_out("spanish", from_dealt=False, overrides={"concealed_premiums": table})
    assert unpaid.result.concealed and unpaid.result.premium is None


@pytest.mark.parametrize(
    "table, field",
    [
        ((ConcealedPremium("JACKPOT", 100),), "concealed_premiums[0].kind"),
        ((ConcealedPremium("DURING_PLAY", -1),), "concealed_premiums[0].points"),
        (
            (ConcealedPremium("DURING_PLAY", 1), ConcealedPremium("DURING_PLAY", 2)),
            "concealed_premiums[1].kind",
        ),
    ],
)
def test_s9_a_bad_premium_table_is_refused(table, field):
    with pytest.raises(RulesetError) as e:
        resolve("spanish", {"concealed_premiums": table})
    assert [(p.field, p.reason) for p in e.value.problems] == [
        (f"ruleset.overrides.{field}", "OUT_OF_RANGE")
    ]

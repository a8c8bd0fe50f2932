"""Property tests: random deals played through the legal-action list (DEVELOPERS.md).

For every profile, every allowed player count and both variations, hypothesis picks a seed
and a sequence of choices; the deal is played by choosing among ``legal_actions``. After
every step: cards are conserved, every position not over lists at least one legal action
(no dead ends, docs/rules.md "Further decisions"), every listed action validates, validate
and apply agree, every event names the acting seat, apply never mutates its input, a
sample of unlisted actions is refused, and every seat's known cards
(docs/rules.md#public-knowledge) stay within its hand. Play is
steered now and then into asking "may I go out?" and answering "no", and short-stock deals
(one deck, small hands) reach the end of the stock within the bound.
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections import Counter

import pytest
from builders import one_card_variants, zone_cards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from samba_adjudicator.engine import apply, deal, legal_actions, resolve, validate
from samba_adjudicator.engine.action_order import action_key
from samba_adjudicator.engine.cards import RED_THREES, pack_counts, sort_cards
from samba_adjudicator.engine.consistency import check_snapshot
from samba_adjudicator.engine.model import (
    Addition,
    AnswerGoOut,
    AskGoOut,
    Discard,
    GoOut,
    MeldCards,
    Phase,
    TakePile,
)

SPECS = [
    (spec, players)
    for spec in (
        "classic",
        "pagat",
        "spanish",
        "canasta",
        "bolivia",
        "official",
        "classic+uruguayan",
        "classic+open",
        "pagat+uruguayan+open",
        "bolivia+uruguayan",
        "official+open+uruguayan",
    )
    for players in resolve(spec).players_allowed
]
#: One deck and seven cards each: the stock runs out within a few rounds.
SHORT_STOCK = {"decks": 1, "jokers": 2, "hand_size": 7}
SHORT_SPECS = [
    (spec, players)
    for spec in ("classic", "pagat", "canasta", "bolivia", "official", "spanish+open+uruguayan")
    for players in resolve(spec).players_allowed
]
MAX_PLIES = 160
#: Examples per profile and player count; raise it for a deeper search, e.g.
#: PLAYOUT_EXAMPLES=100 pytest tests/test_playouts.py --hypothesis-profile=noshrink
EXAMPLES = int(os.environ.get("PLAYOUT_EXAMPLES", "6"))


def play(  # noqa: C901 - one playout
    spec: str,
    players: int,
    seed: str,
    choices,
    overrides=None,
) -> None:
    rules = resolve(spec, overrides)
    s = deal(rules, players, seed)
    pack = pack_counts(rules.decks, rules.jokers)
    assert zone_cards(s) == pack
    probe_rng = random.Random(choices.draw(st.integers(0, 2**32)))
    for _ in range(MAX_PLIES):
        if s.turn.phase is Phase.OVER:
            break
        actions, _complete = legal_actions(s)
        assert actions, "a position that is not over has no legal action"
        keys = {action_key(a) for a in actions}
        assert len(keys) == len(actions), "an action is listed twice"
        for a in actions:
            assert validate(s, a) == [], (a, validate(s, a))
        # A discard of a card not in hand and a meld of cards not held are never listed.
        for c in pack:
            if c not in s.seats[s.turn.seat].hand and s.turn.phase is Phase.PLAY:
                probe = Discard(s.turn.seat, c)
                assert action_key(probe) not in keys
                refused = apply(s, probe)
                assert not refused.legal and list(refused.violations) == validate(s, probe)
                assert refused.snapshot == s
                break
        # Completeness: random single melds and additions that validate must be listed.
        turn_seat = s.turn.seat
        hand = list(s.seats[turn_seat].hand)
        side = s.sides[s.seats[turn_seat].side]
        if s.turn.phase is Phase.PLAY and side.opened and s.turn.go_out.value != "ASKED":
            for _ in range(8):
                picked = tuple(probe_rng.sample(hand, probe_rng.randint(1, min(4, len(hand)))))
                probes = [MeldCards(turn_seat, new_melds=(picked,))]
                probes += [
                    MeldCards(turn_seat, additions=(Addition(m.id, picked),)) for m in side.melds
                ]
                for probe in probes:
                    if not validate(s, probe):
                        assert action_key(probe) in keys, f"legal {probe} not listed"
        # Prefer melds and takes now and then so deals reach canastas and going out.
        variants = one_card_variants(s) if probe_rng.random() < 0.5 else []
        for variant in variants:
            assert variant is not variants[0] or check_snapshot(variant) == []
            left, _ = legal_actions(variant)
            assert left, f"no legal action with one card: {variant.turn}"
            for a in left:
                assert validate(variant, a) == [], (a, validate(variant, a))
        # Ask now and then, and answer "no" more often than not, to reach the positions
        # after a refusal.
        asks = [a for a in actions if isinstance(a, AskGoOut)]
        denials = [a for a in actions if isinstance(a, AnswerGoOut) and not a.allow]
        melds = [a for a in actions if isinstance(a, (MeldCards, TakePile))]
        if asks and choices.draw(st.integers(0, 3)) == 0:
            pick_from = asks
        elif denials and choices.draw(st.integers(0, 3)):
            pick_from = denials
        else:
            pick_from = melds if melds and choices.draw(st.booleans()) else actions
        action = pick_from[choices.draw(st.integers(0, len(pick_from) - 1))]
        # a deep plain copy: the compiled build's frozen classes cannot be deep-copied
        before = dataclasses.astuple(s)
        outcome = apply(s, action)
        assert dataclasses.astuple(s) == before, "apply mutated its input"
        assert outcome.legal and not outcome.violations
        assert validate(s, action) == []
        # docs/api.md#event: every event names the acting seat and its side, so a typed
        # client reads Event.seat 0 as seat 0, never as "no seat"
        acting = (action.seat, s.seats[action.seat].side)
        assert all((e.seat, e.side) == acting for e in outcome.events), outcome.events
        _check_known(s, outcome.snapshot, action, outcome.events)
        s = outcome.snapshot
        assert zone_cards(s) == pack, "cards not conserved"
        assert check_snapshot(s) == [], check_snapshot(s)
        if s.turn.phase is Phase.OVER:
            assert outcome.score is not None
            assert s.result is not None


def _check_known(before, after, action, events) -> None:
    """docs/rules.md#public-knowledge: every seat's known cards are a part of its hand, in
    the canonical order; only the acting seat's change; a whole-pile take makes the cards
    it brought into the hand known."""
    for seat, was in zip(after.seats, before.seats, strict=True):
        assert not Counter(seat.known) - Counter(seat.hand), (seat.known, seat.hand)
        assert list(seat.known) == sort_cards(seat.known)
        if seat.seat != action.seat:
            assert seat.known == was.known
    taken = [e.cards for e in events if e.type == "PILE_TAKEN"]
    if taken:
        into_hand = Counter(c for c in taken[0][:-1] if c not in RED_THREES)
        assert not into_hand - Counter(after.seats[action.seat].known)


@pytest.mark.parametrize("spec,players", SPECS, ids=[f"{s}-{p}p" for s, p in SPECS])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(min_size=1, max_size=12), choices=st.data())
def test_random_deals_keep_invariants(spec, players, seed, choices):
    play(spec, players, seed, choices)


@pytest.mark.parametrize("spec,players", SHORT_SPECS, ids=[f"{s}-{p}p" for s, p in SHORT_SPECS])
@settings(
    max_examples=max(2, EXAMPLES // 2), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(seed=st.text(min_size=1, max_size=12), choices=st.data())
def test_short_stock_deals_keep_invariants(spec, players, seed, choices):
    """The same invariants up to the end of the stock (red 3s drawn last included)."""
    play(spec, players, seed, choices, SHORT_STOCK)


def test_listing_shortcut_keys_equal_the_generic_ones():
    """engine.action_order.entry's shortcut must give exactly action_key and sort_key."""
    from samba_adjudicator.engine.action_order import entry as _entry
    from samba_adjudicator.engine.action_order import sort_key

    for a in [
        MeldCards(1, new_melds=(("QH", "2S", "QD"),)),
        Discard(1, "QH"),
        MeldCards(1, additions=(Addition("m1", ("QH",)),)),
    ]:
        key, order = _entry(a)
        assert key == action_key(a) and (order, key) == sort_key(a)


def test_listing_bytes_order_like_the_tuple_of_group_count_cards():
    """sort_key's bytes compare like (group, card count, cards key), counts over 255 too."""
    from samba_adjudicator.engine.action_order import cards_key, listing_head

    triples = [
        (g, n, cards_key(cards))
        for g in (0, 2, 3, 5)
        for n in (1, 3, 255, 256, 300)
        for cards in (("AS",), ("AS", "KC"), ("2S", "JK"), ())
    ]
    by_bytes = sorted(triples, key=lambda t: listing_head(t[0], t[1]) + t[2])
    assert by_bytes == sorted(triples)


def test_listing_fast_paths_equal_the_generic_ones():
    """The group melds listed without a check get their listing bytes and keys where they
    are generated and are built without the dataclass constructor: both must equal the
    generic results, on a hand of 42 cards (bench/scenarios.py late) and on opening and
    mid-game hands."""
    import sys
    from pathlib import Path

    from samba_adjudicator.engine.action_order import entry as _entry
    from samba_adjudicator.engine.action_order import sort_key
    from samba_adjudicator.engine.legal import _for_seat, _single_meld_builder

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from scenarios import late, midgame, opening

    for make in (opening, midgame, late):
        s = make()
        sure, _, _ = _for_seat(s, s.turn.seat)
        for order, key, action in sure:
            rebuilt = MeldCards(action.seat, new_melds=action.new_melds)
            assert type(action) is MeldCards and action == rebuilt
            assert repr(action) == repr(rebuilt) and hash(action) == hash(rebuilt)
            assert (key, order) == _entry(rebuilt)
            assert key == action_key(rebuilt) and (order, key) == sort_key(rebuilt)
        # Deals follow the ruleset version, so the exact count moves with it; a 40+ card
        # hand still makes hundreds of groups.
        assert make is not late or len(sure) > 300
    built = _single_meld_builder(2)(("QH", "QS", "2C"))
    assert built == MeldCards(2, new_melds=(("QH", "QS", "2C"),))
    plain = MeldCards(2, new_melds=(("QH", "QS", "2C"),))
    assert dataclasses.astuple(built) == dataclasses.astuple(plain)
    assert repr(built) == repr(plain)


@pytest.mark.parametrize("spec,players", SPECS, ids=[f"{s}-{p}p" for s, p in SPECS])
def test_the_opening_shortcut_judges_as_validate(spec, players):
    """docs/rules.md#initial-meld: legal_actions judges a side's opening melds by their
    content and points (engine.legal.QuickCheck) instead of running validate. On played
    positions of a side that has not opened, every opening candidate, each with its last
    meld left off (often under the requirement) and each with its last meld cut to two
    cards (no meld), gets validate's verdict; a wrong
    shortcut would list an illegal opening or drop a legal one."""
    from samba_adjudicator.engine.legal import QuickCheck, _play_candidates

    judged = shortcut = refused = 0
    rng = random.Random(f"opening-{spec}-{players}")
    for k in range(6):
        s = deal(resolve(spec), players, f"opening-{k}")
        for _ in range(12):
            if s.turn.phase is Phase.OVER:
                break
            seat = s.turn.seat
            # what legal_actions asks the shortcut: the seat to play, no question pending
            if (
                s.turn.phase is Phase.PLAY
                and s.turn.go_out is not GoOut.ASKED
                and not s.sides[s.seats[seat].side].opened
            ):
                quick = QuickCheck(s, seat)
                candidates = [
                    a
                    for a in _play_candidates(s, seat)[0]
                    if isinstance(a, MeldCards) and not a.additions
                ]
                candidates += [
                    MeldCards(seat, new_melds=a.new_melds[:-1])
                    for a in candidates
                    if len(a.new_melds) > 1
                ] + [
                    MeldCards(seat, new_melds=a.new_melds[:-1] + (a.new_melds[-1][:2],))
                    for a in candidates
                ]  # a meld of two cards is no meld
                for a in candidates:
                    assert quick.legal(a) == (not validate(s, a)), a
                    judged += 1
                    if quick.initial_meld and quick._opens(a.new_melds) is not None:
                        shortcut += 1
                        refused += bool(validate(s, a))
            actions, _ = legal_actions(s)
            s = apply(s, rng.choice(actions)).snapshot
    if resolve(spec).groups_per_rank.name != "ONE" and not resolve(spec).side_wild_limit:
        # the shortcut judged openings both ways: some it lists, some it refuses
        assert judged > 0 and 0 < refused < shortcut, (judged, shortcut, refused)


# -- official: pair takes with several groups of the top card's rank ------------------------

RANKS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
WILD_POOL = ("2H", "2S", "2D", "2C") * 3 + ("JK",) * 6


@st.composite
def several_groups(draw):
    """An ``official`` draw-phase position (docs/rules.md#further-decisions, item 14):
    seat 0's side holds two or three groups of the top card's rank, some of them completed
    canastas, some with wilds; the hand holds naturals of the rank, wilds and a little
    else; the pile may be frozen (a wild in it)."""
    from builders import make_snapshot

    rank = draw(st.sampled_from(RANKS))
    others = [r for r in RANKS if r != rank]
    naturals = iter([rank + suit for suit in "HSDC"] * 3)
    wilds = iter(draw(st.permutations(WILD_POOL)))
    groups = []
    count, budget = draw(st.integers(2, 3)), 8  # naturals for groups: 4 left for hand and top
    for k in range(count):
        most = budget - 2 * (count - k - 1)
        w = draw(st.integers(0 if most >= 3 else 1, 2))
        n = draw(st.integers(max(2, 3 - w), min(7 - w, most)))
        if 7 - w <= most and draw(st.booleans()):
            n = 7 - w  # a completed canasta, half the time it fits
        budget -= n
        groups.append(
            " ".join([next(naturals) for _ in range(n)] + [next(wilds) for _ in range(w)])
        )
    hand = [next(naturals) for _ in range(draw(st.integers(1, 3)))]
    hand += [next(wilds) for _ in range(draw(st.integers(0, 2)))]
    hand += [o + "C" for o in draw(st.lists(st.sampled_from(others), max_size=3))]
    pile = [others[0] + "D"] + ([next(wilds)] if draw(st.booleans()) else []) + [next(naturals)]
    other = f"{others[1]}H {others[1]}S {others[1]}D"
    s = make_snapshot(
        "official",
        4,
        hands={0: " ".join(hand)},
        melds={0: [*groups, other]},
        discard=" ".join(pile),
        phase=Phase.DRAW,
    )
    # the side's melds in any order: the oldest group is the lowest id, not the first listed
    melds = tuple(draw(st.permutations(s.sides[0].melds)))
    return dataclasses.replace(
        s, sides=(dataclasses.replace(s.sides[0], melds=melds), *s.sides[1:])
    )


def _applies_like_validate(s, action) -> None:
    before = dataclasses.astuple(s)
    outcome = apply(s, action)
    assert dataclasses.astuple(s) == before, "apply mutated its input"
    assert [v.code for v in outcome.violations] == [v.code for v in validate(s, action)]
    assert outcome.legal is not bool(outcome.violations)
    if outcome.legal:
        assert zone_cards(outcome.snapshot) == zone_cards(s), "cards not conserved"
        assert check_snapshot(outcome.snapshot) == [], check_snapshot(outcome.snapshot)


@settings(max_examples=EXAMPLES * 10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=several_groups())
def test_official_takes_naming_a_group_keep_invariants(s):
    """Positions that played deals seldom reach: every listed action validates and applies
    as validate says without mutating its input; every pair take (each hand-card choice,
    naming each of the side's melds or none) is judged alike by validate and apply; a
    legal named take is listed, and an unnamed one is the listed take naming the oldest
    group."""
    from samba_adjudicator.engine.shapes import submultisets
    from samba_adjudicator.engine.work import groups_of_rank

    actions, _ = legal_actions(s, 0)
    keys = {action_key(a) for a in actions}
    for a in actions:
        assert validate(s, a) == [], (a, validate(s, a))
        _applies_like_validate(s, a)
    top = s.discard_pile[-1]
    rank = top[:-1]
    side = s.sides[0]
    oldest = side.melds[groups_of_rank(side.melds, rank)[0]].id
    hand = Counter(c for c in s.seats[0].hand if c[:-1] == rank or c[:-1] == "2" or c == "JK")
    for cards in submultisets(hand, 2, sum(hand.values())):
        for meld_id in [None] + [m.id for m in side.melds]:
            take = TakePile(0, hand_cards=tuple(cards), meld_id=meld_id)
            _applies_like_validate(s, take)
            if validate(s, take):
                continue
            if meld_id is None:
                named = dataclasses.replace(take, meld_id=oldest)
                assert action_key(named) in keys, f"legal {named} not listed"
                assert apply(s, take).snapshot == apply(s, named).snapshot
            else:
                assert action_key(take) in keys, f"legal {take} not listed"

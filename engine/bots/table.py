"""What a seat can read off the table: public facts the rules of thumb weigh.

Everything here reads only what a player view shows (melds, red 3s, the discard pile,
hand counts, the seat's own hand), so a level that uses it sees no hidden card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..cards import RANK, RUN_INDEX, SUIT, VALUE, WILD
from ..model import Action, Discard, Meld, MeldCards, MeldKind, Side, Snapshot, TakePile
from ..ruleset import ExtendTake, Ruleset
from ..vocabulary import SEVEN


def seven_card_bonus(rules: Ruleset, meld: Meld) -> int:
    """The bonus a meld of seven or more cards earns (an estimate for a growing one)."""
    if meld.kind is MeldKind.RUN:
        return rules.samba_bonus
    if meld.kind is MeldKind.WILD_GROUP:
        return rules.bolivia_bonus
    if meld.kind is MeldKind.BLACK_THREES:
        return 0
    natural = not any(c in WILD for c in meld.cards)
    return rules.natural_canasta_bonus if natural else rules.mixed_canasta_bonus


def table_value(rules: Ruleset, side: Side) -> int:
    """The side's points on the table: melded card values, seven-card bonuses and red 3s
    (what the deal would score for it now, hands aside)."""
    total = rules.red_three_value * len(side.red_threes)
    for meld in side.melds:
        total += sum(VALUE[c] for c in meld.cards)
        if len(meld.cards) >= SEVEN:
            total += seven_card_bonus(rules, meld)
    return total


def lead(view: Snapshot, seat: int) -> int:
    """The seat's side's table value minus the best other side's (positive: ahead)."""
    rules = view.ruleset
    mine = view.seats[seat].side
    others = [table_value(rules, s) for s in view.sides if s.side != mine]
    return table_value(rules, view.sides[mine]) - max(others, default=0)


def hand_of(view: Snapshot, seat: int) -> tuple[str, ...]:
    return view.seats[seat].hand


def cards_from_hand(action: Action) -> int:
    """How many cards ``action`` lays or throws from the hand."""
    if isinstance(action, Discard):
        return 1
    if isinstance(action, MeldCards):
        return sum(len(m) for m in action.new_melds) + sum(len(a.cards) for a in action.additions)
    return 0


def empties_hand(view: Snapshot, seat: int, action: Action) -> bool:
    """``action`` leaves the seat without cards: it goes out."""
    hand = len(hand_of(view, seat))
    return hand > 0 and cards_from_hand(action) == hand


def next_opponent(view: Snapshot, seat: int) -> int:
    """The next seat clockwise of another side (the one a discard is offered to)."""
    mine = view.seats[seat].side
    for step in range(1, view.players):
        other = (seat + step) % view.players
        if view.seats[other].side != mine:
            return other
    return seat


def _extends_run(meld: Meld, card: str) -> bool:
    naturals = [c for c in meld.cards if c not in WILD]
    if not naturals or card in WILD or RANK[card] not in RUN_INDEX:
        return False
    if SUIT[card] != SUIT[naturals[0]]:
        return False
    ends = [RUN_INDEX[RANK[c]] for c in naturals]
    return RUN_INDEX[RANK[card]] in (min(ends) - 1, max(ends) + 1)


def feeds_side(rules: Ruleset, side: Side, card: str) -> bool:
    """Could ``side`` use ``card`` on top of the pile by extending one of its melds?"""
    if rules.take_by_extending_meld is ExtendTake.NOT_ALLOWED or card in WILD:
        return False
    for meld in side.melds:
        if rules.take_by_extending_meld is ExtendTake.OWN_MELD_UNDER_SEVEN and (
            len(meld.cards) >= SEVEN
        ):
            continue
        if meld.kind is MeldKind.GROUP and RANK[card] == _group_rank(meld.cards):
            return True
        if meld.kind is MeldKind.RUN and _extends_run(meld, card):
            return True
    return False


def _group_rank(cards: Iterable[str]) -> str:
    for c in cards:
        if c not in WILD:
            return RANK[c]
    return ""


def rank_counts(cards: Iterable[str]) -> Counter[str]:
    """Natural cards by rank (wilds left out)."""
    return Counter([RANK[c] for c in cards if c not in WILD])


def wilds_in(cards: Iterable[str]) -> int:
    return sum(1 for c in cards if c in WILD)


def take_cost(action: TakePile) -> tuple[int, int]:
    """(wilds, cards) a take spends from the hand: the fewer the better."""
    spent = list(action.hand_cards)
    for m in action.new_melds:
        spent += m
    for a in action.additions:
        spent += a.cards
    return wilds_in(spent), len(spent)

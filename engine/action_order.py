"""Equal actions and the listing order of legal actions (docs/api.md#resources, #legal-actions).

Two actions are equal when they have the same seat, kind, meld ids and card multisets
(``action_key``); a list is sorted by ``sort_key``: draws, takes, new melds, additions,
swaps, discards, permission actions, within a group fewer cards first, then canonical
card order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from .cards import ORDER, sort_cards
from .model import (
    Action,
    AnswerGoOut,
    AskGoOut,
    Discard,
    DrawStock,
    MeldCards,
    SwapWild,
    TakePile,
    TakeTopCard,
)

#: An action's identity (``action_key``).
ActionKey = tuple[object, ...]
#: An action's place in a list (``sort_key``): its listing bytes, then its key for ties.
SortKey = tuple[bytes, ActionKey]

GROUP_ORDER: dict[type, int] = {
    DrawStock: 0,
    TakePile: 1,
    TakeTopCard: 1,
    SwapWild: 4,
    Discard: 5,
    AskGoOut: 6,
    AnswerGoOut: 6,
}
#: The listing bytes start with this many bytes: the group, then the card count (two).
HEAD = 3


def listing_head(group: int, count: int) -> bytes:
    """The first ``HEAD`` bytes of an action's listing bytes (``listing``)."""
    return bytes((group, count >> 8, count & 0xFF))


def entry(a: Action) -> tuple[ActionKey, bytes]:
    """``(action_key(a), listing(a))``, computed once; the most frequent kinds (a single
    new meld, a single addition, a discard) take a shortcut with the very same result."""
    if isinstance(a, MeldCards):
        if len(a.new_melds) == 1 and not a.additions:
            return single_meld_entry(a.seat, cards_key(a.new_melds[0]))
        if len(a.additions) == 1 and not a.new_melds:
            addition = a.additions[0]
            added = cards_key(addition.cards)
            key: ActionKey = ("meld", a.seat, (), ((addition.meld_id, added),))
            return key, listing_head(3, len(added)) + added
    if isinstance(a, Discard):
        return ("discard", a.seat, a.card), listing_head(5, 1) + bytes((ORDER[a.card],))
    return action_key(a), listing(a)


def single_meld_entry(seat: int, meld_key: bytes) -> tuple[ActionKey, bytes]:
    """``(action_key, listing)`` of a MeldCards of ``seat`` with one new meld and no
    addition, from the meld's ``cards_key``."""
    return ("meld", seat, (meld_key,), ()), listing_head(2, len(meld_key)) + meld_key


# -- equality and order -------------------------------------------------------------------


def cards_key(cards: Iterable[str]) -> bytes:
    """The card multiset as its ORDER values ascending, one byte each (ORDER < 256):
    bytes compare like the tuple of those values, but faster."""
    return bytes(sorted([ORDER[c] for c in cards]))


def action_key(a: Action) -> ActionKey:
    """Equal actions (docs/api.md#resources): seat, kind, meld ids and card multisets."""
    if isinstance(a, (DrawStock,)):
        return ("draw", a.seat, cards_key(a.cards))
    if isinstance(a, TakePile):
        return (
            "take",
            a.seat,
            cards_key(a.hand_cards),
            a.meld_id or "",
            tuple(sorted(cards_key(m) for m in a.new_melds)),
            tuple(sorted((x.meld_id, cards_key(x.cards)) for x in a.additions)),
        )
    if isinstance(a, TakeTopCard):
        return ("top", a.seat, a.meld_id)
    if isinstance(a, MeldCards):
        return (
            "meld",
            a.seat,
            tuple(sorted(cards_key(m) for m in a.new_melds)),
            tuple(sorted((x.meld_id, cards_key(x.cards)) for x in a.additions)),
        )
    if isinstance(a, SwapWild):
        return ("swap", a.seat, a.meld_id, a.natural, a.wild)
    if isinstance(a, Discard):
        return ("discard", a.seat, a.card)
    if isinstance(a, AskGoOut):
        return ("ask", a.seat)
    return ("answer", a.seat, a.allow)


def _card_count(a: Action) -> int:
    if isinstance(a, TakePile):
        return (
            len(a.hand_cards)
            + sum(len(m) for m in a.new_melds)
            + sum(len(x.cards) for x in a.additions)
        )
    if isinstance(a, MeldCards):
        return sum(len(m) for m in a.new_melds) + sum(len(x.cards) for x in a.additions)
    if isinstance(a, Discard):
        return 1
    return 0


def sort_key(a: Action) -> SortKey:
    """Draws, takes, new melds, additions, swaps, discards, permission actions; within a
    group fewer cards first, then canonical card order (docs/api.md#methods); equal
    listings (the same cards for two melds) by ``action_key``."""
    return listing(a), action_key(a)


def listing(a: Action) -> bytes:
    """The group, the card count and the canonical cards of ``a`` as one bytes value
    (``listing_head`` then ``cards_key``), which compares like the tuple of the three:
    the head has a fixed length and a pack holds far fewer than 65,536 cards."""
    group = (2 if a.new_melds else 3) if isinstance(a, MeldCards) else GROUP_ORDER[type(a)]
    return listing_head(group, _card_count(a)) + _canonical_cards(a)


def _canonical_cards(a: Action) -> bytes:
    if isinstance(a, TakePile):
        cards = list(a.hand_cards) + [c for m in a.new_melds for c in m]
    elif isinstance(a, MeldCards):
        cards = [c for m in a.new_melds for c in m] + [c for x in a.additions for c in x.cards]
    elif isinstance(a, Discard):
        cards = [a.card]
    elif isinstance(a, SwapWild):
        cards = [a.natural, a.wild]
    else:
        cards = []
    return cards_key(cards)


def canonical(a: Action) -> Action:
    """The action with every card list in canonical order (how the list prints them:
    the service sorts only the page it returns, not the whole list)."""
    if isinstance(a, TakePile):
        return replace(
            a,
            hand_cards=tuple(sort_cards(a.hand_cards)),
            new_melds=tuple(tuple(sort_cards(m)) for m in a.new_melds),
        )
    if isinstance(a, MeldCards):
        return replace(
            a,
            new_melds=tuple(tuple(sort_cards(m)) for m in a.new_melds),
            additions=tuple(replace(x, cards=tuple(sort_cards(x.cards))) for x in a.additions),
        )
    return a

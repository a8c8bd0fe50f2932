"""Determinization: full positions consistent with one seat's view (docs/bots.md#strong).

The cards the view does not show are the pack less every card it does show (the seat's
hand, every visible hand, melds, red 3s, the discard pile). A world first gives each hidden
hand the cards every seat knows it holds (``Seat.known``: taken with the pile and not laid
down since, engine.knowledge), then deals the rest at random, in canonical order shuffled
by the bot's own random generator, to the hidden hands (each up to its ``hand_count``) and
then to the stock (``stock_count``). Other seats' ``dealt`` hands stay unknown (empty), so
a sampled world never grants them a spanish dealt-hand premium.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from ..cards import ORDER, pack_counts, sort_cards
from ..model import Snapshot

#: Whether a world gives each hidden hand its known cards (``Seat.known``) before dealing.
KNOWN_IN_WORLDS = True


def unseen(view: Snapshot) -> list[str]:
    """The cards ``view`` does not show, in canonical order."""
    left: Counter[str] = pack_counts(view.ruleset.decks, view.ruleset.jokers)
    for seat in view.seats:
        left.subtract(seat.hand)
    for side in view.sides:
        left.subtract(side.red_threes)
        for meld in side.melds:
            left.subtract(meld.cards)
    left.subtract(view.stock)
    left.subtract(view.discard_pile)
    cards = [c for c, n in left.items() for _ in range(max(n, 0))]
    cards.sort(key=lambda c: ORDER[c])
    return cards


def sample_world(view: Snapshot, pool: list[str], rng: random.Random) -> Snapshot:
    """One full position: ``pool`` (the unseen cards) dealt to the hidden hands, each
    holding its known cards, and the rest at random to the hidden hands and the stock."""
    cards = list(pool)
    rng.shuffle(cards)
    return filled(view, cards)


def _known_in_pool(view: Snapshot, cards: list[str]) -> tuple[list[tuple[str, ...]], list[str]]:
    """(each seat's known cards that are among ``cards``, for hidden hands only; ``cards``
    less those, in their order). A known card not among them (a hand-built view) is left
    out rather than invented, so the world's cards stay the pack's."""
    left: Counter[str] = Counter(cards)
    held: list[tuple[str, ...]] = []
    for seat in view.seats:
        mine: list[str] = []
        if seat.hand_hidden and KNOWN_IN_WORLDS:
            for card in seat.known[: seat.hand_count]:
                if left[card] > 0:
                    left[card] -= 1
                    mine.append(card)
        held.append(tuple(mine))
    taken: Counter[str] = Counter([c for hand in held for c in hand])
    rest = []
    for card in cards:
        if taken[card] > 0:
            taken[card] -= 1
        else:
            rest.append(card)
    return held, rest


def neutral_world(view: Snapshot) -> Snapshot:
    """The view with its unseen cards dealt in canonical order: a full position that
    depends on the view alone. The legal list is taken from it, because some actions
    (a spanish take that draws owed red-3 replacements) can only be judged with a stock,
    while no action's legality depends on which cards the hidden zones hold."""
    return filled(view, unseen(view))


def filled(view: Snapshot, cards: list[str]) -> Snapshot:
    """Each hidden hand given its known cards (``Seat.known``) and then ``cards`` in order
    up to its ``hand_count``, the rest to a hidden stock (``stock_count``). Short of cards
    (a hand-built view), hands come first."""
    held, cards = _known_in_pool(view, cards)
    seats = []
    for seat, known in zip(view.seats, held, strict=True):
        if seat.hand_hidden:
            more = seat.hand_count - len(known)
            hand = tuple(sort_cards(known + tuple(cards[:more])))
            cards = cards[more:]
            seats.append(replace(seat, hand=hand, hand_count=len(hand), redacted=False))
        else:
            seats.append(seat)
    stock = view.stock
    if view.stock_hidden:
        stock = tuple(cards[: view.stock_count])
    return replace(view, seats=tuple(seats), stock=stock, stock_count=len(stock))

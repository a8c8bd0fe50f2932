"""Cards, their codes, values and the pack (docs/rules.md#cards, docs/rules.md#card-values).

A card is its canonical code: rank ``A 2 3 4 5 6 7 8 9 10 J Q K`` then suit ``S H D C``,
or ``JK`` for a joker. Copies are not distinguished, so a hand is a multiset of codes.
Everything here is a table lookup so the engine's hot paths stay cheap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKER = "JK"

#: Natural ranks in run order: 4 low, ace high (docs/rules.md#runs).
RUN_ORDER = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RUN_INDEX = {rank: i for i, rank in enumerate(RUN_ORDER)}
NATURAL_RANKS = frozenset(RUN_ORDER)

ALL_CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS) + (JOKER,)
#: Canonical listing order (docs/api.md#cards): rank A 2 … K, then suit S H D C, jokers last.
ORDER = {code: i for i, code in enumerate(ALL_CODES)}

RANK: dict[str, str] = {code: code[:-1] for code in ALL_CODES if code != JOKER}
RANK[JOKER] = JOKER
SUIT: dict[str, str] = {code: code[-1] for code in ALL_CODES if code != JOKER}
SUIT[JOKER] = ""

WILD = frozenset([JOKER] + ["2" + s for s in SUITS])
RED_THREES = frozenset(("3H", "3D"))
BLACK_THREES = frozenset(("3S", "3C"))

_RANK_VALUE = {
    "A": 20,
    "2": 20,
    "K": 10,
    "Q": 10,
    "J": 10,
    "10": 10,
    "9": 10,
    "8": 10,
    "7": 5,
    "6": 5,
    "5": 5,
    "4": 5,
    "3": 5,
}
#: Point value of a card melded (plus) or left in hand (minus). Red 3s score only as
#: bonuses, but a red 3 never sits in a meld; its in-hand penalty is a ruleset parameter.
VALUE: dict[str, int] = {c: (50 if c == JOKER else _RANK_VALUE[RANK[c]]) for c in ALL_CODES}


def parse_card(text: str) -> str | None:
    """Canonical code for ``text`` (accepts ``T`` for 10 and lower case), or None."""
    if text in ORDER:
        return text
    if not isinstance(text, str):
        return None
    up = text.strip().upper()
    if up == JOKER:
        return JOKER
    if len(up) < 2:
        return None
    rank, suit = up[:-1], up[-1]
    if rank == "T":
        rank = "10"
    code = rank + suit
    return code if code in ORDER else None


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=ORDER.__getitem__)


def pack_counts(decks: int, jokers: int) -> Counter[str]:
    """How many copies of each code the pack holds: ``decks`` of 52 plus ``jokers``."""
    counts: Counter[str] = Counter({c: decks for c in ALL_CODES if c != JOKER})
    counts[JOKER] = jokers
    return counts


def pack_list(decks: int, jokers: int) -> list[str]:
    """The pack in a fixed, documented order (the shuffle's input, engine.shuffle)."""
    cards: list[str] = []
    for _ in range(decks):
        cards.extend(c for c in ALL_CODES if c != JOKER)
    cards.extend([JOKER] * jokers)
    return cards


def points(cards: Iterable[str]) -> int:
    return sum(VALUE[c] for c in cards)

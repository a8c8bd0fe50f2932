"""The values a ruleset parameter takes (docs/rules.md#parameters): the enums of the rules'
alternatives, and the small records of the parameters that vary with the table (players)
or the match score. engine.ruleset's ``Ruleset`` holds one of each per parameter.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class WildRule(enum.Enum):
    """How many wilds a group may hold (docs/rules.md#wild-rules)."""

    MORE_NATURALS = "MORE_NATURALS"  # naturals strictly outnumber wilds
    TWICE_NATURALS = "TWICE_NATURALS"  # naturals at least twice the wilds
    MIN_TWO_NATURALS = "MIN_TWO_NATURALS"  # at least two naturals, wilds never exceed them
    ONE_UNTIL_SEVEN = "ONE_UNTIL_SEVEN"  # one wild below seven cards, a second from seven


class FreezeModel(enum.Enum):
    """When only a natural pair may take the pile (docs/rules.md#freeze)."""

    NEVER = "NEVER"
    PILE_HOLDS_WILD_OR_BLACK3 = "PILE_HOLDS_WILD_OR_BLACK3"
    CANASTA = "CANASTA"


class UpcardRule(enum.Enum):
    """Which upcards are buried under the next card at the deal (docs/rules.md#dealing)."""

    BURY_NOTHING = "BURY_NOTHING"
    BURY_WILD_OR_RED_THREE = "BURY_WILD_OR_RED_THREE"
    BURY_WILD_OR_ANY_THREE = "BURY_WILD_OR_ANY_THREE"


class BlockedTop(enum.Enum):
    """Top cards that make the pile untakeable while on top (docs/rules.md#blocked-top)."""

    WILD_OR_BLACK_THREE = "WILD_OR_BLACK_THREE"
    WILD_OR_ANY_THREE = "WILD_OR_ANY_THREE"


class GroupsPerRank(enum.Enum):
    """How many groups of one rank a side may hold (docs/rules.md#one-group-per-rank)."""

    MANY = "MANY"
    ONE = "ONE"  # canasta: cards of a rank the side holds join its group
    MANY_MAY_MERGE = "MANY_MAY_MERGE"  # official: a side may merge its groups of a rank


class ExtendTake(enum.Enum):
    """Whether the top card may take the pile by extending a side's meld
    (docs/rules.md#discard-pile)."""

    NOT_ALLOWED = "NOT_ALLOWED"
    ANY_OWN_MELD = "ANY_OWN_MELD"
    OWN_MELD_UNDER_SEVEN = "OWN_MELD_UNDER_SEVEN"


class RedThreeReplacement(enum.Enum):
    """When dealt red 3s are replaced (docs/rules.md#dealing, #spanish)."""

    REPLACE_NOW = "REPLACE_NOW"
    REPLACE_AT_FIRST_TURN = "REPLACE_AT_FIRST_TURN"


class RedThreePositiveIf(enum.Enum):
    """What a side needs at the end of the deal for its red 3s to count for it
    (docs/rules.md#scoring)."""

    INITIAL_MELD = "INITIAL_MELD"
    TWO_CANASTAS = "TWO_CANASTAS"
    ANY_MELD = "ANY_MELD"


class RedThreePenalty(enum.Enum):
    """How red 3s count against a side that fails the condition (docs/rules.md#scoring)."""

    PER_CARD = "PER_CARD"
    MIRROR = "MIRROR"


class SixPlayerLayout(enum.Enum):
    THREE_PAIRS = "THREE_PAIRS"
    TWO_TRIOS = "TWO_TRIOS"


@dataclass(frozen=True)
class TableSize:
    """Parameters that depend on the number of players (docs/rules.md#parameters)."""

    players: int
    hand_size: int
    draw_count: int
    target_score: int
    go_out_canastas: int


@dataclass(frozen=True)
class InitialMeldBand:
    """From a match score of ``from_score`` upward the initial meld needs ``points``."""

    from_score: int
    points: int

"""The discard pile: blocked tops and freeze models (docs/rules.md#discard-pile).

Each freeze model is one predicate chosen by ``ruleset.freeze``; the blocked-top rule is
chosen by ``ruleset.blocked_top``. A snapshot cannot tell a buried upcard from a discard,
so both freeze the pile alike (docs/rules.md#freeze).
"""

from __future__ import annotations

from typing import Callable

from .cards import BLACK_THREES, RANK, RED_THREES, WILD
from .model import Snapshot
from .ruleset import BlockedTop, FreezeModel, Ruleset

BLOCKING: dict[BlockedTop, Callable[[str], bool]] = {
    BlockedTop.WILD_OR_BLACK_THREE: lambda c: c in WILD or c in BLACK_THREES,
    BlockedTop.WILD_OR_ANY_THREE: lambda c: c in WILD or RANK[c] == "3",
}


def _holds_wild_or_black_three(snapshot: Snapshot, side: int) -> bool:
    return any(c in WILD or c in BLACK_THREES for c in snapshot.discard_pile)


def _canasta_freeze(snapshot: Snapshot, side: int) -> bool:
    if not snapshot.sides[side].opened:
        return True
    return any(c in WILD or c in RED_THREES for c in snapshot.discard_pile)


FREEZE: dict[FreezeModel, Callable[[Snapshot, int], bool]] = {
    FreezeModel.NEVER: lambda snapshot, side: False,
    FreezeModel.PILE_HOLDS_WILD_OR_BLACK3: _holds_wild_or_black_three,
    FreezeModel.CANASTA: _canasta_freeze,
}


def top_card(snapshot: Snapshot) -> str | None:
    return snapshot.discard_pile[-1] if snapshot.discard_pile else None


def is_blocked(rules: Ruleset, snapshot: Snapshot) -> bool:
    """While the top card is a blocking card nobody may take the pile."""
    top = top_card(snapshot)
    return top is not None and BLOCKING[rules.blocked_top](top)


def is_frozen(rules: Ruleset, snapshot: Snapshot, side: int) -> bool:
    """Frozen for ``side``: only a natural pair of the top card's rank may take the pile."""
    return FREEZE[rules.freeze](snapshot, side)


def frozen_for_sides(snapshot: Snapshot) -> tuple[int, ...]:
    rules = snapshot.ruleset
    return tuple(s.side for s in snapshot.sides if is_frozen(rules, snapshot, s.side))

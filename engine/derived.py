"""Output-only facts of a snapshot (docs/api.md#resources): computed, never stored.

``Meld.status``/``natural``, ``Side.opened``/``initialMeldRequirement``, ``pile`` and
``turn.awaitingSeats`` are functions of the snapshot; the service fills them into every
answer and checks client-given ones against these (DERIVED_FIELD_DISAGREES).
"""

from __future__ import annotations

from typing import NamedTuple

from . import melds, pile
from .cards import WILD
from .model import GoOut, Meld, MeldStatus, Phase, Side, Snapshot
from .ruleset import Ruleset


class PileState(NamedTuple):
    top: str | None
    count: int
    blocked: bool
    frozen_for_sides: tuple[int, ...]


def meld_status(ruleset: Ruleset, meld: Meld) -> MeldStatus:
    """INCOMPLETE, CANASTA (group ≥ 7), SAMBA (run of 7) or CLOSED (bolivia)."""
    return melds.meld_status(meld)


def meld_natural(meld: Meld) -> bool:
    """The meld holds no wild card."""
    return not any(c in WILD for c in meld.cards)


def pile_state(snapshot: Snapshot) -> PileState:
    """The discard pile's top card, size, blocked flag and the sides it is frozen for."""
    rules = snapshot.ruleset
    return PileState(top=pile.top_card(snapshot), count=len(snapshot.discard_pile),
                     blocked=pile.is_blocked(rules, snapshot),
                     frozen_for_sides=pile.frozen_for_sides(snapshot))


def awaiting_seats(snapshot: Snapshot) -> tuple[int, ...]:
    """The seats whose action the deal waits for: none when over; the asker's partners
    while the "may I go out?" question is open; otherwise the seat whose turn it is."""
    turn = snapshot.turn
    if turn.phase is Phase.OVER:
        return ()
    if turn.go_out is GoOut.ASKED:
        return snapshot.partners(turn.seat)
    return (turn.seat,)


def initial_meld_requirement(ruleset: Ruleset, side: Side) -> int:
    """The points the side's initial meld needs, by its match score before the deal."""
    return ruleset.initial_meld_requirement(side.match_score)


def side_opened(side: Side) -> bool:
    return side.opened

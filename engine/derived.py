"""Output-only facts of a snapshot (docs/api.md#resources): computed, never stored.

``Side.initialMeldRequirement`` (``initial_meld_requirement``, from engine.table_rules),
``pile`` and ``turn.awaitingSeats`` are functions of the snapshot (``Meld.status`` and
``natural`` are engine.vocabulary's ``meld_status`` and ``is_natural``, ``Side.opened`` is
``Side.opened``); the service fills them into every answer and checks client-given ones
against these (DERIVED_FIELD_DISAGREES).
"""

from __future__ import annotations

from typing import NamedTuple

from . import pile
from .model import GoOut, Phase, Snapshot
from .table_rules import initial_meld_requirement as initial_meld_requirement  # a derived field


class PileState(NamedTuple):
    top: str | None
    size: int  # the contract's ``pile.count`` (a NamedTuple field may not be named count)
    blocked: bool
    frozen_for_sides: tuple[int, ...]


def pile_state(snapshot: Snapshot) -> PileState:
    """The discard pile's top card, size, blocked flag and the sides it is frozen for."""
    rules = snapshot.ruleset
    return PileState(
        top=pile.top_card(snapshot),
        size=len(snapshot.discard_pile),
        blocked=pile.is_blocked(rules, snapshot),
        frozen_for_sides=pile.frozen_for_sides(snapshot),
    )


def awaiting_seats(snapshot: Snapshot) -> tuple[int, ...]:
    """The seats whose action the deal waits for: none when over; the asker's partners
    while the "may I go out?" question is open; otherwise the seat whose turn it is."""
    turn = snapshot.turn
    if turn.phase is Phase.OVER:
        return ()
    if turn.go_out is GoOut.ASKED:
        return snapshot.partners(turn.seat)
    return (turn.seat,)

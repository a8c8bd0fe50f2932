"""Inference from what each seat did: how likely a sampled world makes the other seats'
visible choices, under the student (docs/bots.md#strong).

A snapshot carries no history, but its discard pile is one: while nobody has taken it,
each card on it was discarded by the seat before the one above it. So, counting back from
the seat whose turn it is, ``pile[-k]`` was the last discard of the seat ``k`` places
before it, made from its present hand plus that card (nobody else changes a seat's hand),
and ``pile[-k - 1]`` was the top card it declined when it drew from the stock instead.
``clues`` reads these from the view, for the hidden hands, one round back (never the
pile's bottom card: it may be the upcard). ``likelihood`` scores a world by them: for each
clue, the position before the choice is rebuilt from the world (the seat's hand plus its
discard, the pile as it was; the table as it is now, an approximation) and the student
(engine.bots.student) values the seat's ``Inference.candidates`` best choices by BASIC's
rating plus the one it made; a softmax at ``Inference.temperature`` points gives the chance
of that choice (engine.bots.strong sets them: ``INFER_*``). The world's likelihood is
their product. Everything here reads the view and the world STRONG samples from it: no
hidden card of the true position.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..cards import sort_cards
from ..deadline import checkpoint
from ..legal import QuickCheck
from ..model import Action, Discard, DrawStock, GoOut, Phase, Snapshot, Turn
from . import basic, student
from .draws import draw_choices


@dataclass(frozen=True)
class Inference:
    """How the likelihood is taken: the choices the student weighs at each clue (BASIC's
    best rated, plus the one made), the softmax's temperature in the student's points
    (lower trusts it more), and whether the draws declined count."""

    candidates: int = 4
    temperature: float = 100.0
    declined: bool = True


@dataclass(frozen=True)
class Clue:
    """A hidden seat's discard of ``card``, ``back`` places down the pile (1: the top)."""

    seat: int
    card: str
    back: int


def clues(view: Snapshot, seat: int) -> list[Clue]:
    """The hidden seats' last discards the view's pile shows (module docstring): one round
    back from the seat whose turn it is, not the observer's own, not the bottom card."""
    t = view.turn
    pile = view.discard_pile
    if t.phase is Phase.OVER or (t.phase is not Phase.DRAW and t.took_pile):
        return []
    players = len(view.seats)
    out = []
    for back in range(1, players):
        if back >= len(pile):
            break
        h = (t.seat - back) % players
        if h != seat and view.seats[h].hand_hidden:
            out.append(Clue(h, pile[-back], back))
    return out


def likelihood(
    world: Snapshot, found: Sequence[Clue], how: Inference = Inference()
) -> tuple[float, int]:
    """(the world's likelihood under the student, the candidates it valued)."""
    total = 1.0
    valued = 0
    for clue in found:
        checkpoint()
        before = _before_discard(world, clue)
        made = Discard(clue.seat, clue.card)
        p, n = _chance(before, clue.seat, made, _discards(before, clue), how)
        total *= p
        valued += n
        if how.declined and clue.back + 1 <= len(world.discard_pile):
            drawing = replace(before, turn=Turn(seat=clue.seat, phase=Phase.DRAW))
            legal = draw_choices(drawing, clue.seat)
            p, n = _chance(drawing, clue.seat, DrawStock(clue.seat), legal, how)
            total *= p
            valued += n
    return total, valued


def _before_discard(world: Snapshot, clue: Clue) -> Snapshot:
    """The world as the seat saw it before its discard: its hand plus the card, the pile
    below it, its turn to play (the rest of the table as it is now)."""
    seats = list(world.seats)
    mine = seats[clue.seat]
    hand = tuple(sort_cards((*mine.hand, clue.card)))
    seats[clue.seat] = replace(mine, hand=hand, hand_count=len(hand))
    return replace(
        world,
        seats=tuple(seats),
        discard_pile=world.discard_pile[: -clue.back],
        turn=Turn(seat=clue.seat, phase=Phase.PLAY, go_out=GoOut.NOT_ASKED),
    )


def _discards(before: Snapshot, clue: Clue) -> list[Action]:
    quick = QuickCheck(before, clue.seat)
    cards = sorted(set(before.seats[clue.seat].hand))
    return [a for a in [Discard(clue.seat, c) for c in cards] if quick.legal(a)]


def _chance(
    s: Snapshot, seat: int, made: Action, legal: Sequence[Action], how: Inference
) -> tuple[float, int]:
    """(the softmax chance of ``made`` among ``legal`` by the student's values, the
    candidates valued): 1 when it is the only choice or not among them (no evidence)."""
    if len(legal) < 2 or made not in legal:
        return 1.0, 0
    rated = basic.rate_all(s, seat, legal)
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
    ranks = [r for r in range(len(order)) if r < how.candidates or rated[order[r]].action == made]
    picks = [rated[order[r]].action for r in ranks]
    values = [
        student.evaluate(student.features(s, s, seat, a, r))
        for a, r in zip(picks, ranks, strict=True)
    ]
    top = max(values)
    weights = [math.exp((v - top) / how.temperature) for v in values]
    return weights[picks.index(made)] / sum(weights), len(picks)

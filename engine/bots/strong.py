"""STRONG: determinized sampling with BASIC playouts (docs/bots.md#strong).

STRONG searches the draw, the discard and the answer to "may I go out?"; melding and going
out follow BASIC. The candidates are BASIC's ``CANDIDATES`` best rated actions of that
decision. Worlds are sampled from the view (engine.bots.worlds); in each, every candidate
is applied and play goes on by BASIC for every seat until the seat's next turn begins (or
the deal ends, or ``HORIZON`` plies), and the position is judged (``judge``). The same
worlds serve every candidate. The best mean wins, but BASIC's choice stays unless a rival
beats it by ``MARGIN`` points on average.

The budget is counted in simulated plies, not in time, so that the answer depends on the
request alone: ``PLIES_PER_MS`` plies per millisecond of budget (about the pure build's
speed on one core; the compiled build is faster, so it answers well within the budget).
A search whose worlds would overrun the call's deadline is stopped by the engine's
checkpoints (engine.deadline): the call fails rather than answer something else.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..deadline import checkpoint
from ..game import apply
from ..legal import legal_actions
from ..model import Action, AnswerGoOut, Discard, GoOut, Phase, Snapshot
from ..scoring import score
from . import basic
from .choice import Rated, reason
from .table import SEVEN, empties_hand
from .worlds import sample_world, unseen

CANDIDATES = 4
#: Points a searched rival must gain on average over BASIC's choice to replace it.
MARGIN = 40.0
PLIES_PER_MS = 1.0
HORIZON = 40
#: At least this many worlds, whatever the budget.
MIN_WORLDS = 2
#: The hand counts this share of its penalty (cards in hand are also chances to meld).
HAND_WEIGHT = 0.0
#: Points per card a growing meld is worth beyond its cards, towards its bonus.
PROGRESS = 12.0


def choose(
    view: Snapshot, seat: int, legal: Sequence[Action], rng: random.Random, budget_ms: int
) -> Rated:
    """STRONG's action: BASIC's, unless a searched rival of the same kind beats it by
    ``MARGIN`` on average over the sampled worlds."""
    rated = basic.rate_all(view, seat, legal)
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
    pick = rated[order[0]]
    if not _searched(view, seat, pick.action):
        return pick
    kind = type(pick.action)
    picks = [
        rated[i] for i in order if type(rated[i].action) is kind or view.turn.phase is Phase.DRAW
    ]
    picks = picks[:CANDIDATES]
    if len(picks) == 1:
        return pick
    side = view.seats[seat].side
    pool = unseen(view)
    totals = [0.0] * len(picks)
    allowance = int(budget_ms * PLIES_PER_MS)
    spent = 0
    worlds = 0
    while worlds < MIN_WORLDS or spent < allowance:
        world = sample_world(view, pool, rng)
        for i, candidate in enumerate(picks):
            value, plies = _play_out(world, candidate.action, seat, side)
            totals[i] += value
            spent += plies
        worlds += 1
    best = 0
    for i in range(1, len(picks)):
        if totals[i] > totals[best]:
            best = i
    if (totals[best] - totals[0]) / worlds < MARGIN:
        best = 0
    mean = totals[best] / worlds
    said = reason(
        "SEARCHED",
        reason=picks[best].reason.message,
        count=len(picks),
        worlds=worlds,
        mean=f"{mean:+.0f}",
    )
    return Rated(picks[best].action, mean, said)


def _searched(view: Snapshot, seat: int, action: Action) -> bool:
    """The decisions STRONG searches: the draw, the discard, the answer to "may I go
    out?". Melding follows BASIC (its order within a turn matters little; its risks are
    judged at the discard), and so does going out."""
    if view.turn.phase is Phase.DRAW or isinstance(action, AnswerGoOut):
        return True
    return isinstance(action, Discard) and not empties_hand(view, seat, action)


def _play_out(world: Snapshot, action: Action, seat: int, side: int) -> tuple[float, int]:
    """(the judged value for ``side``, plies played) after ``action`` in ``world``."""
    outcome = apply(world, action)
    s = outcome.snapshot
    plies = 1
    left_turn = False
    while s.turn.phase is not Phase.OVER and plies < HORIZON:
        mover = _mover(s)
        if mover == seat and left_turn and s.turn.phase is Phase.DRAW:
            break
        if mover != seat:
            left_turn = True
        checkpoint()
        legal, _ = legal_actions(s, mover)
        s = apply(s, basic.choose(s, mover, legal).action).snapshot
        plies += 1
    return judge(s, side), plies


def _mover(s: Snapshot) -> int:
    """The seat that acts next (the first partner while "may I go out?" is open)."""
    if s.turn.go_out is GoOut.ASKED:
        return s.partners(s.turn.seat)[0]
    return s.turn.seat


def judge(s: Snapshot, side: int) -> float:
    """The side's position: its (provisional) deal total, its hands counted at
    ``HAND_WEIGHT`` and its growing melds at ``PROGRESS`` a card, minus the best other
    side's. A finished deal is judged by its real totals."""
    report = score(s, provisional=s.turn.phase is not Phase.OVER)
    values = []
    for sc in report.sides:
        value = float(sc.deal_total)
        if s.turn.phase is not Phase.OVER:
            value -= (1.0 - HAND_WEIGHT) * sc.hand_penalty
            value += _progress(s, sc.side)
        values.append(value)
    mine = values[side]
    return mine - max(v for i, v in enumerate(values) if i != side)


def _progress(s: Snapshot, side: int) -> float:
    total = 0.0
    for meld in s.sides[side].melds:
        size = len(meld.cards)
        if 3 < size < SEVEN:
            total += PROGRESS * (size - 3)
    return total

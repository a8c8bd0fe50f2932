"""Realistic positions for the benchmarks, made by really playing (no hand-built states).

- ``opening``: a fresh classic deal, first seat after drawing (PLAY, side not opened).
- ``midgame``: about thirty plies of play preferring melds and takes, in PLAY.
- ``late``: a seat holding 40+ cards after taking a big pile, in PLAY.
Every position comes from ``engine.deal`` and ``engine.apply`` of listed legal actions with
a fixed seed, so the figures are reproducible.
"""

from __future__ import annotations

import random

from samba_adjudicator.engine import apply, deal, legal_actions, resolve
from samba_adjudicator.engine.model import (
    Action,
    Discard,
    DrawStock,
    MeldCards,
    Phase,
    Snapshot,
    TakePile,
)


def _step(s: Snapshot, rng: random.Random, prefer) -> Action:
    actions, _ = legal_actions(s)
    preferred = [a for a in actions if prefer(a)]
    pool = preferred or actions
    return rng.choice(pool)


def opening(seed: str = "bench-opening") -> Snapshot:
    s = deal(resolve("classic"), 4, seed)
    return apply(s, DrawStock(s.turn.seat)).snapshot


def midgame_path(seed: str = "bench-mid") -> tuple[str, list[Action], Snapshot]:
    """The deal's seed, the actions played from it and the position they reach (``midgame``):
    what a client replays through the service to hold that position as the service
    rendered (and, with signing on, signed) it."""
    for attempt in range(50):
        rng = random.Random(f"{seed}-{attempt}")
        s = deal(resolve("classic"), 4, f"{seed}-{attempt}")
        played: list[Action] = []
        for _ in range(30):
            if s.turn.phase is Phase.OVER:
                break
            action = _step(s, rng, lambda a: isinstance(a, (MeldCards, TakePile)))
            played.append(action)
            s = apply(s, action).snapshot
        if s.turn.phase is Phase.DRAW:
            played.append(DrawStock(s.turn.seat))
            s = apply(s, played[-1]).snapshot
        if s.turn.phase is Phase.PLAY and any(side.melds for side in s.sides):
            return f"{seed}-{attempt}", played, s
    raise RuntimeError("no mid-game position found")


def midgame(seed: str = "bench-mid") -> Snapshot:
    return midgame_path(seed)[2]


def late(seed: str = "bench-late") -> Snapshot:
    """Draw and discard until the pile is big, then the first legal pile take."""
    for attempt in range(200):
        rng = random.Random(f"{seed}-{attempt}")
        s = deal(resolve("classic"), 4, f"{seed}-{attempt}")
        for _ in range(400):
            if s.turn.phase is Phase.OVER:
                break
            actions, _ = legal_actions(s)
            takes = [a for a in actions if isinstance(a, TakePile) and a.hand_cards]
            if takes and len(s.discard_pile) >= 25:
                s = apply(s, takes[0]).snapshot
                if len(s.seats[s.turn.seat].hand) >= 40:
                    return s
                break
            simple = [a for a in actions if isinstance(a, (DrawStock, Discard))]
            s = apply(s, rng.choice(simple or actions)).snapshot
    raise RuntimeError("no late position found")


def typical_action(s: Snapshot):
    """The action a client would most often validate here: a meld if any, else a discard."""
    actions, _ = legal_actions(s)
    melds = [a for a in actions if isinstance(a, MeldCards)]
    return (melds or [a for a in actions if isinstance(a, Discard)] or actions)[0]

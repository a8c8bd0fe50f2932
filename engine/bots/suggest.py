"""SuggestAction's engine side: the seat's view, what it may choose from (at its draw the
few draw choices, at its play one meld of each class BASIC tells apart, otherwise its
legal list: engine.bots.draws.choices), the level's choice."""

from __future__ import annotations

import random

from ..messages import problem
from ..model import InvalidInput, Phase, Problem, Snapshot
from ..view import player_view, require_hand
from . import basic, strong
from .choice import DEFAULT_BUDGET_MS, MAX_BUDGET_MS, Level, Suggestion, reason
from .draws import choices
from .strong_options import STRONG, StrongOptions
from .worlds import neutral_world


def suggest(
    snapshot: Snapshot,
    seat: int,
    level: Level,
    seed: str = "",
    budget_ms: int = 0,
    strong_options: StrongOptions = STRONG,
) -> Suggestion:
    """One legal action for ``seat`` at ``level``, decided from ``seat``'s view only.

    ``budget_ms`` bounds STRONG's search (0: ``DEFAULT_BUDGET_MS``; capped at
    ``MAX_BUDGET_MS``); the answer is a function of the view, the level, the seed and the
    budget. ``strong_options`` is STRONG's settings (engine.bots.strong_options: the
    level's own unless a bench passes a trial's). Raises InvalidInput for a finished
    deal, a seat that is not awaited, or a negative budget, and
    HIDDEN_INFORMATION_REQUIRED for a seat whose hand ``snapshot`` hides
    (``require_hand``).
    """
    problems = _problems(snapshot, seat, budget_ms)
    if problems:
        raise InvalidInput(problems)
    require_hand(snapshot, seat)  # a view of another seat: its own view is not in it
    view = player_view(snapshot, seat)
    legal = choices(neutral_world(view), seat)
    if not legal:
        raise InvalidInput(
            [
                problem(
                    "seat",
                    "NOT_AWAITED",
                    "seat {seat} has nothing to do in this position",
                    seat=seat,
                )
            ]
        )
    if len(legal) == 1:
        return Suggestion(legal[0], reason("ONLY_ACTION"))
    rng = random.Random(_rng_seed(view, seat, seed))
    if level is Level.RANDOM:
        return Suggestion(rng.choice(legal), reason("RANDOM"))
    if level is Level.BASIC:
        rated = basic.choose(view, seat, legal)
    else:
        rated = strong.choose(view, seat, legal, rng, search_budget(budget_ms), strong_options)
    return Suggestion(rated.action, rated.reason)


def search_budget(budget_ms: int) -> int:
    """STRONG's budget for a request's ``budget_ms`` (0: the default; capped)."""
    return min(budget_ms or DEFAULT_BUDGET_MS, MAX_BUDGET_MS)


def _problems(snapshot: Snapshot, seat: int, budget_ms: int) -> list[Problem]:
    out: list[Problem] = []
    if budget_ms < 0:
        out.append(Problem("budgetMs", "OUT_OF_RANGE", "budgetMs must not be negative"))
    if not 0 <= seat < snapshot.players:
        out.append(
            problem(
                "seat",
                "OUT_OF_RANGE",
                "seat must be 0..{last}, not {seat}",
                last=snapshot.players - 1,
                seat=seat,
            )
        )
    if snapshot.turn.phase is Phase.OVER:
        out.append(Problem("snapshot.turn.phase", "DEAL_OVER", "the deal is over"))
    return out


def _rng_seed(view: Snapshot, seat: int, seed: str) -> str:
    """The generator's seed: the request's seed and what the seat sees that changes from
    move to move (so one seed does not repeat the same pattern all deal long)."""
    hand = ",".join(sorted(view.seats[seat].hand))
    pile = ",".join(view.discard_pile)
    return f"samba-bot/v1|{seed}|{view.ply}|{seat}|{view.turn.phase.value}|{hand}|{pile}"

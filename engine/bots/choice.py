"""The values a computer player answers with, and the levels it plays at (docs/bots.md)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..model import Action

#: STRONG's search budget when the request gives none, and the most a request may ask for.
DEFAULT_BUDGET_MS = 200
MAX_BUDGET_MS = 2000


class Level(enum.Enum):
    """How hard the computer player thinks (docs/bots.md#levels)."""

    RANDOM = "RANDOM"
    BASIC = "BASIC"
    STRONG = "STRONG"


@dataclass(frozen=True)
class Reason:
    """Why the action was chosen: a stable ``code`` (docs/bots.md#reasons) and a short
    English ``message`` for a hint."""

    code: str
    message: str


@dataclass(frozen=True)
class Suggestion:
    """One legal action for the seat and the reason for it."""

    action: Action
    reason: Reason


@dataclass(frozen=True)
class Rated:
    """A legal action with the rule of thumb's rating (higher is better) and reason."""

    action: Action
    rating: float
    reason: Reason

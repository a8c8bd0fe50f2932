"""Bad input: what a malformed request is refused with (docs/rules.md#bad-input).

Its own module, below both engine.ruleset (a ruleset reference that cannot be resolved)
and engine.model (a snapshot or action that cannot be read), which both report problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One reason a request is malformed: field path (JSON names), reason, description."""

    field: str
    reason: str
    description: str


class InvalidInput(ValueError):
    """A malformed request: every problem found, never repaired (docs/rules.md#bad-input)."""

    def __init__(self, problems: Sequence[Problem], kind: str = "INVALID_REQUEST"):
        super().__init__("; ".join(f"{p.field}: {p.description}" for p in problems))
        # kept as given: the service's bounded ProblemList carries the count it left out
        self.problems = problems
        self.kind = kind  # INVALID_REQUEST, HIDDEN_INFORMATION_REQUIRED, SNAPSHOT_IS_VIEW, …

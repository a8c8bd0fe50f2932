"""Bad input: what a malformed request is refused with (docs/rules.md#bad-input).

Its own module, below both engine.ruleset (a ruleset reference that cannot be resolved)
and engine.model (a snapshot or action that cannot be read), which both report problems.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, init=False)
class Problem:
    """One reason a request is malformed: field path (JSON names), reason, description.

    ``template`` and ``params`` say how the English description was made (``engine.messages``),
    so that the service can say it in another language; they take no part in equality."""

    field: str
    reason: str
    description: str
    template: str = dataclasses.field(default="", compare=False)
    params: Mapping[str, str] = dataclasses.field(default_factory=dict, compare=False, hash=False)

    def __init__(
        self,
        field: str,
        reason: str,
        description: str,
        template: str = "",
        params: Mapping[str, str] | None = None,
    ) -> None:
        object.__setattr__(self, "field", field)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "params", {} if params is None else params)


class InvalidInput(ValueError):
    """A malformed request: every problem found, never repaired (docs/rules.md#bad-input)."""

    def __init__(self, problems: Sequence[Problem], kind: str = "INVALID_REQUEST"):
        super().__init__("; ".join(f"{p.field}: {p.description}" for p in problems))
        # kept as given: the service's bounded ProblemList carries the count it left out
        self.problems = problems
        self.kind = kind  # INVALID_REQUEST, HIDDEN_INFORMATION_REQUIRED, SNAPSHOT_IS_VIEW, …

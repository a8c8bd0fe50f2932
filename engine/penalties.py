"""Spanish penalties (docs/rules.md#spanish): the one module that reads ``penalties_enabled`` and
``penalty_points``.

A penalised refusal is a violation carrying ``penalty_points``; ``apply`` then adds the
points to the side's penalties (engine.game). Without penalties the same refusals carry
no extra violation.
"""

from __future__ import annotations

from .model import GoOut, Penalty, Violation
from .ruleset import Ruleset
from .violations import violation

#: The codes of the penalties the engine records in a side's ``penalties``.
RECORDED_CODES = (
    "ASKED_AND_DID_NOT_GO_OUT",
    "WENT_OUT_AFTER_REFUSAL",
    "OUT_OF_TURN_DRAW",
    "CARDS_EXPOSED_OUT_OF_TURN",
    "THREE_WILDS_IN_CANASTA",
)
#: Three wilds make a canasta penalised from this many (seed 000).
PENALISED_CANASTA_WILDS = 3


def enabled(rules: Ruleset) -> bool:
    return rules.penalties_enabled


def penalty_violations(rules: Ruleset, code: str, field: str, **details: object) -> list[Violation]:
    """The penalty ``code`` as a one-violation list when the ruleset has penalties."""
    if not rules.penalties_enabled:
        return []
    return [violation(code, field, rules.penalty_points, **details)]


def out_of_turn(rules: Ruleset, draws: bool, exposes_cards: bool) -> list[Violation]:
    """Taking cards, or laying them, out of turn."""
    if draws:
        return penalty_violations(rules, "OUT_OF_TURN_DRAW", "action.seat")
    if exposes_cards:
        return penalty_violations(rules, "CARDS_EXPOSED_OUT_OF_TURN", "action.seat")
    return []


def went_out_after_refusal(rules: Ruleset, field: str) -> list[Violation]:
    """Emptying the hand after the partner said no (only a penalty of some points)."""
    return [
        v for v in penalty_violations(rules, "WENT_OUT_AFTER_REFUSAL", field) if v.penalty_points
    ]


def three_wilds_in_canasta(
    rules: Ruleset, wilds: int, complete: bool, field: str
) -> list[Violation]:
    if wilds < PENALISED_CANASTA_WILDS or not complete:
        return []
    return penalty_violations(rules, "THREE_WILDS_IN_CANASTA", field, points=rules.penalty_points)


def asked_and_did_not_go_out(rules: Ruleset, go_out: GoOut) -> Penalty | None:
    """The turn ends without going out after "may I go out?" was asked."""
    if rules.penalties_enabled and go_out is not GoOut.NOT_ASKED:
        return Penalty("ASKED_AND_DID_NOT_GO_OUT", rules.penalty_points)
    return None

"""ApplyAction's ``computer``: a computer seat's move in one call.

``ApplyActionRequest`` takes exactly one of ``action`` and ``computer {seat, level, seed,
budget_ms}``. With ``computer`` the service chooses the seat's action as SuggestAction does
(``engine.bots.suggest``, from that seat's view only: the same seat, level, seed and budget
give the same action) and applies it; the answer is ApplyAction's plus ``chosen {action,
reason}``. The engine's problems about the seat and the budget are reported at
``computer.seat`` and ``computer.budgetMs``.

A request with ``computer`` is heavy like SuggestAction (``is_heavy``): both transports run
it on a worker thread under the heavy-call limit (``service.pipeline.runtime``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from samba_adjudicator.engine import bots
from samba_adjudicator.engine.action_order import canonical
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Action, InvalidInput, Problem, Snapshot

from ..base import pb
from ..codec import required, wire
from ..codec.actions import action_to_proto
from ..codec.answers import reason_to_proto

#: SuggestActionRequest.Level -> the engine's level (LEVEL_UNSPECIFIED: BASIC; a number
#: the schema lacks never gets here: service.codec.enums refuses it).
BOT_LEVELS: dict[int, bots.Level] = {
    pb.SuggestActionRequest.LEVEL_UNSPECIFIED: bots.Level.BASIC,
    pb.SuggestActionRequest.RANDOM: bots.Level.RANDOM,
    pb.SuggestActionRequest.BASIC: bots.Level.BASIC,
    pb.SuggestActionRequest.STRONG: bots.Level.STRONG,
}

#: ApplyActionRequest.computer's field number and JSON name (``is_heavy``).
_COMPUTER_NUMBER = pb.ApplyActionRequest.DESCRIPTOR.fields_by_name["computer"].number
_COMPUTER_KEY = b'"computer"'
#: The engine's paths of SuggestAction's fields -> ApplyAction's.
_PATHS = {"seat": "computer.seat", "budgetMs": "computer.budgetMs"}


def request_problems(req: pb.ApplyActionRequest, found: Sequence[Problem]) -> list[Problem]:
    """The problems of a request giving both ``action`` and ``computer``, or neither; and,
    as SuggestAction does, a negative budget when the request has ``found`` problems
    already (else the engine reports it with the seat's)."""
    has_action, has_computer = req.HasField("action"), req.HasField("computer")
    if has_action and has_computer:
        return [
            problem(field, "ONE_OF", "give {field} or {other}, not both", field=field, other=other)
            for field, other in (("action", "computer"), ("computer", "action"))
        ]
    if not has_action and not has_computer:
        missing = problem(
            "action",
            "REQUIRED",
            "{field} is required (or {other})",
            field="action",
            other="computer",
        )
        return required.unexplained(found, [missing])
    if found and req.computer.budget_ms < 0:
        return [Problem(_PATHS["budgetMs"], "OUT_OF_RANGE", "budgetMs must not be negative")]
    return []


def suggestion(
    snap: Snapshot, seat: int, level: int, seed: str, budget_ms: int, lang: str
) -> tuple[Action, pb.ChosenAction]:
    """SuggestAction's answer, for SuggestAction and ApplyAction alike: the engine's action
    for ``seat`` at ``level`` (a SuggestActionRequest.Level) and the action and reason as
    answered, the reason in ``lang``. InvalidInput at SuggestAction's paths."""
    chosen = bots.suggest(snap, seat, BOT_LEVELS[level], seed, budget_ms)
    return chosen.action, pb.ChosenAction(
        action=action_to_proto(canonical(chosen.action)),
        reason=reason_to_proto(chosen.reason, lang),
    )


def choose(snap: Snapshot, move: pb.ComputerMove, lang: str) -> tuple[Action, pb.ChosenAction]:
    """The computer player's action for ``move.seat`` on the full position ``snap`` and
    the answer's ``chosen``, its reason in ``lang``; InvalidInput at ApplyAction's paths."""
    try:
        return suggestion(snap, move.seat, move.level, move.seed, move.budget_ms, lang)
    except InvalidInput as e:
        raise InvalidInput([_at_computer(p) for p in e.problems], e.kind) from None


def _at_computer(p: Problem) -> Problem:
    field = _PATHS.get(p.field)
    return p if field is None else dataclasses.replace(p, field=field)


def is_heavy(method: str, body: bytes, json: bool) -> bool:
    """Whether an ApplyAction request asks for a computer move, read from its bytes before
    they are parsed. Protobuf: the top-level field present (``wire.has_field``). JSON: the
    key ``"computer"`` anywhere in the body, an overestimate that only sends a few cheap
    requests to the worker threads."""
    if method != "ApplyAction":
        return False
    if json:
        return _COMPUTER_KEY in body
    return wire.has_field(body, _COMPUTER_NUMBER)

"""The closed list of violation codes (docs/api.md#violation-codes), each with its rule and message.

Every refusal the engine gives is built here, so a code always names the same rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from .messages import AS_GIVEN, EITHER, N_, Text, english, flat, joined, text
from .model import GoOut, Violation

#: Where a violation's ``rule`` points: a section of the project's rules reference.
RULE = "docs/rules.md#"

#: code -> (section of docs/rules.md, English message template; ``{…}`` filled from details)
CODES: dict[str, tuple[str, str]] = {
    # turn
    "NOT_YOUR_TURN": (RULE + "turn", N_("it is seat {turn}'s turn, not seat {seat}'s")),
    "WRONG_PHASE": (RULE + "turn", N_("{action} is not allowed in the {phase} phase")),
    "DEAL_OVER": (RULE + "turn", N_("the deal is over")),
    "STALE_SNAPSHOT": (
        RULE + "turn",
        N_("expectedPly {expected} does not match the snapshot's ply {actual}"),
    ),
    # hand
    "CARDS_NOT_IN_HAND": (RULE + "atomic-melds", N_("the hand does not hold {cards}")),
    # pile
    "PILE_EMPTY": (RULE + "discard-pile", N_("the discard pile is empty")),
    "PILE_BLOCKED": (RULE + "blocked-top", N_("{top} on top blocks the pile")),
    "PILE_FROZEN": (
        RULE + "freeze",
        N_("the pile is frozen: only a natural pair of the top card's rank takes it"),
    ),
    "TAKE_NEEDS_NATURAL_PAIR": (
        RULE + "take-with-pair",
        N_("taking the pile needs two natural {rank}s from the hand"),
    ),
    "TAKE_METHOD_NOT_ALLOWED": (
        RULE + "discard-pile",
        N_("{method} is not allowed by this ruleset"),
    ),
    "TOP_CARD_DOES_NOT_FIT": (
        RULE + "take-by-extending",
        N_("the top card {top} does not fit meld {meld}"),
    ),
    # meld shape
    "MELD_TOO_SHORT": (RULE + "groups", N_("a meld needs at least three cards")),
    "MIXED_RANKS": (RULE + "groups", N_("a group holds naturals of one rank only")),
    "NOT_A_RUN": (
        RULE + "runs",
        N_("a run is naturals of one suit in unbroken order, 4 low to ace high, no duplicates"),
    ),
    "RUN_TOO_LONG": (RULE + "runs", N_("a run never exceeds seven cards")),
    "RUNS_NOT_ALLOWED": (RULE + "runs", N_("this ruleset has no runs")),
    "WILD_IN_RUN_NOT_ALLOWED": (
        RULE + "runs",
        N_("runs hold no wild cards (at most one with runs_allow_wilds)"),
    ),
    "WILD_RULE_BROKEN": (
        RULE + "wild-rules",
        N_("{naturals} naturals and {wilds} wilds break the {rule} rule"),
    ),
    "TOO_MANY_WILDS": (RULE + "wild-rules", N_("a group holds at most {max} wilds")),
    "WILD_ONLY_GROUP_NOT_ALLOWED": (
        RULE + "bolivia",
        N_("groups of wild cards only are not allowed"),
    ),
    "THREES_NOT_MELDABLE": (
        RULE + "cards",
        N_("red 3s are never melded; black 3s only in a black-3 group"),
    ),
    "BLACK_THREES_ONLY_WHEN_GOING_OUT": (
        RULE + "black-three-groups",
        N_("a black-3 group may be melded only when going out"),
    ),
    "BLACK_THREE_GROUP_TOO_LARGE": (
        RULE + "black-three-groups",
        N_("a black-3 group holds at most {max} cards"),
    ),
    # meld target
    "NOT_OWN_MELD": (RULE + "where-melds-go", N_("meld {meld} belongs to another side")),
    "MELD_CLOSED": (RULE + "where-melds-go", N_("meld {meld} is closed")),
    "WILD_ONTO_CANASTA_NOT_ALLOWED": (
        RULE + "official",
        N_("no wild may be added to a completed canasta"),
    ),
    "SIDE_WILD_LIMIT": (
        RULE + "uruguayan",
        N_("the side's groups would hold {wilds} wilds; the limit is {max}"),
    ),
    "WILD_SWAP_NOT_ALLOWED": (RULE + "wild-swap", N_("{reason}")),
    "WILD_SWAP_MISMATCH": (RULE + "wild-swap", N_("{reason}")),
    # opening and floor
    "INITIAL_MELD_TOO_LOW": (
        RULE + "initial-meld",
        N_("the initial meld needs {required} points; this counts {actual}"),
    ),
    "HAND_FLOOR": (
        RULE + "hand-floor",
        N_("a player whose side cannot go out must keep at least two cards after melding"),
    ),
    # going out and permission
    "GO_OUT_REQUIREMENT_NOT_MET": (
        RULE + "going-out",
        N_("going out needs {required}; the side has {actual}"),
    ),
    "GO_OUT_REFUSED_BY_PARTNER": (
        RULE + "may-i-go-out",
        N_("the partner said no: the player may not go out this turn"),
    ),
    "NO_PARTNER": (RULE + "may-i-go-out", N_("there is no partner to ask")),
    "ALREADY_ASKED": (RULE + "may-i-go-out", N_("the question was already asked this turn")),
    "ASK_AFTER_MELDING": (
        RULE + "may-i-go-out",
        N_("the question is asked before the first meld of the turn"),
    ),
    "NOTHING_TO_ANSWER": (RULE + "may-i-go-out", N_("no question is open")),
    "NOT_A_PARTNER": (RULE + "may-i-go-out", N_("seat {seat} is not the asker's partner")),
    # spanish penalties (docs/rules.md#spanish-penalties)
    "RED_THREE_IN_HAND": (
        RULE + "spanish-penalties",
        N_("a red 3 in hand at the end costs {points}"),
    ),
    "ASKED_AND_DID_NOT_GO_OUT": (RULE + "spanish-penalties", N_("asked to go out and did not")),
    "WENT_OUT_AFTER_REFUSAL": (
        RULE + "spanish-penalties",
        N_("tried to go out after the partner said no"),
    ),
    "OUT_OF_TURN_DRAW": (RULE + "spanish-penalties", N_("took cards out of turn")),
    "CARDS_EXPOSED_OUT_OF_TURN": (RULE + "spanish-penalties", N_("exposed cards out of turn")),
    "THREE_WILDS_IN_CANASTA": (RULE + "spanish-penalties", N_("three wilds in a canasta")),
}


#: The reasons of WILD_SWAP_MISMATCH (its message is its ``reason`` detail, a nested message:
#: engine.messages.text): the meld and the wild it does not hold, or the natural given.
SWAP_MISMATCHES = (
    N_("meld {meld} holds no {wild}"),
    N_("{natural} is not the natural the wild stands for"),
)


class _Defaults(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def violation(code: str, field: str = "", penalty: int = 0, **details: object) -> Violation:
    """A violation of ``code``, its message said from the code's template and ``details``
    (each given as ``str``, or a ``Text``: a nested message, whose template and parameters
    the violation keeps beside its English)."""
    rule, template = CODES[code]
    params = flat(details)
    return Violation(
        code=code,
        message=filled(template, params),
        rule=rule,
        field=field,
        details=english(params),
        penalty_points=penalty,
        template=template,
        params=params,
    )


#: NOT_YOUR_TURN while "may I go out?" is open: to a partner asked, and to anyone else.
ASKED_ANSWER_FIRST = N_("seat {turn} asked to go out: seat {seat} answers first (answerGoOut)")
ASKED_WAITS_FOR = N_(
    "seat {turn} asked to go out: the deal waits for {who} to answer, not seat {seat}"
)


def _awaited(seats: list[str]) -> Text:
    """``seat 1`` or ``seat 1 or 5``: the seats the question waits for."""
    each = [text(AS_GIVEN, value=s) for s in seats or [""]]
    return text(N_("seat {seats}"), seats=joined(each, EITHER))


def not_your_turn(turn: int, awaiting: tuple[int, ...], seat: int, go_out: GoOut) -> Violation:
    """NOT_YOUR_TURN, said with the seats the deal waits for (``turn.awaitingSeats``,
    details ``awaitingSeats``, space-separated; ``turn`` is always ``turn.seat``): while
    "may I go out?" is open they are the asker's partners, whose only action is their
    answer, so the message names the question rather than a turn."""
    waited = " ".join(str(a) for a in awaiting)
    out = violation("NOT_YOUR_TURN", "action.seat", turn=turn, awaitingSeats=waited, seat=seat)
    if go_out is not GoOut.ASKED:
        return out
    if seat in awaiting:
        template, params = ASKED_ANSWER_FIRST, dict(out.params)
    else:
        who = _awaited([str(a) for a in awaiting])
        template, params = ASKED_WAITS_FOR, {**out.params, **flat({"who": who})}
    return replace(out, message=filled(template, params), template=template, params=params)


def filled(template: str, params: Mapping[str, str]) -> str:
    """The English ``template`` makes from ``params`` (a placeholder that names none: ``?``)."""
    return template.format_map(_Defaults(english(params)))

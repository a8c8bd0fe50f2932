"""The closed list of violation codes (CONTRACT.md §8), each with its rule and message.

Every refusal the engine gives is built here, so a code always names the same rule.
"""

from __future__ import annotations

from .model import Violation

#: code -> (RULES.md section, English message template; ``{…}`` filled from details)
CODES: dict[str, tuple[str, str]] = {
    # turn
    "NOT_YOUR_TURN": ("RULES.md §2 Turn", "it is seat {turn}'s turn, not seat {seat}'s"),
    "WRONG_PHASE": ("RULES.md §2 Turn", "{action} is not allowed in the {phase} phase"),
    "DEAL_OVER": ("RULES.md §6", "the deal is over"),
    "STALE_SNAPSHOT": ("CONTRACT.md §4 Action",
                       "expectedPly {expected} does not match the snapshot's ply {actual}"),
    # hand
    "CARDS_NOT_IN_HAND": ("RULES.md §2 A meld action is atomic",
                          "the hand does not hold {cards}"),
    # pile
    "PILE_EMPTY": ("RULES.md §4", "the discard pile is empty"),
    "PILE_BLOCKED": ("RULES.md §4 Blocked top", "{top} on top blocks the pile"),
    "PILE_FROZEN": ("RULES.md §4 Freeze models",
                    "the pile is frozen: only a natural pair of the top card's rank takes it"),
    "TAKE_NEEDS_NATURAL_PAIR": ("RULES.md §4 Taking with a natural pair",
                                "taking the pile needs two natural {rank}s from the hand"),
    "TAKE_METHOD_NOT_ALLOWED": ("RULES.md §4", "{method} is not allowed by this ruleset"),
    "TOP_CARD_DOES_NOT_FIT": ("RULES.md §4", "the top card {top} does not fit meld {meld}"),
    # meld shape
    "MELD_TOO_SHORT": ("RULES.md §2 Groups/Runs", "a meld needs at least three cards"),
    "MIXED_RANKS": ("RULES.md §2 Groups", "a group holds naturals of one rank only"),
    "NOT_A_RUN": ("RULES.md §2 Runs",
                  "a run is naturals of one suit in unbroken order, 4 low to ace high, "
                  "no duplicates"),
    "RUN_TOO_LONG": ("RULES.md §2 Runs", "a run never exceeds seven cards"),
    "RUNS_NOT_ALLOWED": ("RULES.md §3 runs", "this ruleset has no runs"),
    "WILD_IN_RUN_NOT_ALLOWED": ("RULES.md §2 Runs",
                                "runs hold no wild cards (at most one with runs_allow_wilds)"),
    "WILD_RULE_BROKEN": ("RULES.md §3 group_wild_rule",
                         "{naturals} naturals and {wilds} wilds break the {rule} rule"),
    "TOO_MANY_WILDS": ("RULES.md §3 group_max_wilds", "a group holds at most {max} wilds"),
    "WILD_ONLY_GROUP_NOT_ALLOWED": ("RULES.md §8", "groups of wild cards only are not allowed"),
    "THREES_NOT_MELDABLE": ("RULES.md §2 Cards",
                            "red 3s are never melded; black 3s only in a black-3 group"),
    "BLACK_THREES_ONLY_WHEN_GOING_OUT": ("RULES.md §2 Black-3 group",
                                         "a black-3 group may be melded only when going out"),
    "BLACK_THREE_GROUP_TOO_LARGE": ("RULES.md §3 black_three_group_max",
                                    "a black-3 group holds at most {max} cards"),
    # meld target
    "NOT_OWN_MELD": ("RULES.md §5.1", "meld {meld} belongs to another side"),
    "MELD_CLOSED": ("RULES.md §2 Runs", "meld {meld} is closed"),
    "WILD_ONTO_CANASTA_NOT_ALLOWED": ("RULES.md §3 wild_onto_canasta",
                                      "no wild may be added to a completed canasta"),
    "SIDE_WILD_LIMIT": ("RULES.md §5.5",
                        "the side's groups would hold {wilds} wilds; the limit is {max}"),
    "WILD_SWAP_NOT_ALLOWED": ("RULES.md §5.4", "{reason}"),
    "WILD_SWAP_MISMATCH": ("RULES.md §5.4", "{reason}"),
    # opening and floor
    "INITIAL_MELD_TOO_LOW": ("RULES.md §5.2",
                             "the initial meld needs {required} points; this counts {actual}"),
    "HAND_FLOOR": ("RULES.md §5.3",
                   "a player whose side cannot go out must keep at least two cards after "
                   "melding"),
    # going out and permission
    "GO_OUT_REQUIREMENT_NOT_MET": ("RULES.md §6",
                                   "going out needs {required}; the side has {actual}"),
    "GO_OUT_REFUSED_BY_PARTNER": ("RULES.md §2 may I go out",
                                  "the partner said no: the player may not go out this turn"),
    "NO_PARTNER": ("RULES.md §2 may I go out", "there is no partner to ask"),
    "ALREADY_ASKED": ("RULES.md §2 may I go out", "the question was already asked this turn"),
    "ASK_AFTER_MELDING": ("RULES.md §2 may I go out",
                          "the question is asked before the first meld of the turn"),
    "NOTHING_TO_ANSWER": ("RULES.md §2 may I go out", "no question is open"),
    "NOT_A_PARTNER": ("RULES.md §2 may I go out", "seat {seat} is not the asker's partner"),
    # spanish penalties (RULES.md §9)
    "RED_THREE_IN_HAND": ("RULES.md §9", "a red 3 in hand at the end costs {points}"),
    "ASKED_AND_DID_NOT_GO_OUT": ("RULES.md §9", "asked to go out and did not"),
    "WENT_OUT_AFTER_REFUSAL": ("RULES.md §9", "tried to go out after the partner said no"),
    "OUT_OF_TURN_DRAW": ("RULES.md §9", "took cards out of turn"),
    "CARDS_EXPOSED_OUT_OF_TURN": ("RULES.md §9", "exposed cards out of turn"),
    "THREE_WILDS_IN_CANASTA": ("RULES.md §9", "three wilds in a canasta"),
}


class _Defaults(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def violation(code: str, field: str = "", penalty: int = 0, **details: object) -> Violation:
    rule, template = CODES[code]
    text = {k: str(v) for k, v in details.items()}
    return Violation(code=code, message=template.format_map(_Defaults(text)), rule=rule,
                     field=field, details=text, penalty_points=penalty)

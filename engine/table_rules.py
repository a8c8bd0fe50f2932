"""Side rules (docs/rules.md#initial-meld, #hand-floor, #uruguayan, #going-out): what a
side's whole table allows.

Each rule reads the side's melds (or hand size) after an action and returns its
violations, empty when the rule holds; engine.melds judges one meld's content only.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import penalties
from .cards import WILD
from .model import GoOut, Meld, MeldKind, Side, Violation
from .ruleset import Ruleset
from .violations import violation
from .vocabulary import seven_card_melds


def meets_go_out_requirement(rules: Ruleset, players: int, melds: Iterable[Meld]) -> bool:
    """docs/rules.md#going-out: the side holds ``go_out_canastas`` complete melds, ``go_out_sambas``
    of them sambas (bolivia: at least one escalera)."""
    total, sambas = seven_card_melds(melds)
    return total >= rules.table_size(players).go_out_canastas and sambas >= rules.go_out_sambas


def go_out_requirement_violations(
    rules: Ruleset, players: int, melds: Iterable[Meld], field: str
) -> list[Violation]:
    melds = tuple(melds)
    if meets_go_out_requirement(rules, players, melds):
        return []
    total, sambas = seven_card_melds(melds)
    required = f"{rules.table_size(players).go_out_canastas} canastas/sambas"
    if rules.go_out_sambas:
        required += f", {rules.go_out_sambas} of them sambas"
    return [
        violation(
            "GO_OUT_REQUIREMENT_NOT_MET",
            field,
            required=required,
            actual=f"{total} ({sambas} sambas)",
        )
    ]


def hand_floor_violations(
    rules: Ruleset,
    players: int,
    melds: Iterable[Meld],
    left: int,
    go_out: GoOut,
    field: str,
    allow_empty: bool,
) -> list[Violation]:
    """docs/rules.md#hand-floor and #going-out: fewer than ``rules.hand_floor`` cards left
    only when the side may go out; none left (``allow_empty``) only by going out. After the
    partner's "no", keeping one card (the last to be discarded) is as much an attempt to go
    out as keeping none: both carry the spanish penalty (docs/rules.md "Further decisions")."""
    if left >= rules.hand_floor:
        return []
    if go_out is GoOut.DENIED:
        return [
            violation("GO_OUT_REFUSED_BY_PARTNER", field),
            *penalties.went_out_after_refusal(rules, field),
        ]
    if not meets_go_out_requirement(rules, players, melds):
        if left == 0:
            return go_out_requirement_violations(rules, players, melds, field)
        return [violation("HAND_FLOOR", field, left=left)]
    if left == 0 and not allow_empty:
        return [violation("HAND_FLOOR", field, left=left)]
    return []


def side_group_wilds(melds: Iterable[Meld]) -> int:
    """Wilds in all of a side's groups (docs/rules.md#uruguayan)."""
    return sum(1 for m in melds if m.kind is MeldKind.GROUP for c in m.cards if c in WILD)


def side_wild_limit_violations(
    rules: Ruleset, melds: Iterable[Meld], field: str
) -> list[Violation]:
    """docs/rules.md#uruguayan: the side's groups hold at most ``side_wild_limit``
    wilds together (0: no limit)."""
    if not rules.side_wild_limit:
        return []
    wilds = side_group_wilds(melds)
    if wilds <= rules.side_wild_limit:
        return []
    return [violation("SIDE_WILD_LIMIT", field, wilds=wilds, max=rules.side_wild_limit)]


def black_three_violations(
    rules: Ruleset, players: int, melds: Iterable[Meld], left: int, go_out: GoOut, fields: list[str]
) -> list[Violation]:
    """docs/rules.md#black-three-groups: laid (at ``fields``) only by a player going out, who
    keeps at most one card while the side may go out."""
    if not fields:
        return []
    may_go_out = go_out is not GoOut.DENIED and meets_go_out_requirement(rules, players, melds)
    if left <= 1 and may_go_out:
        return []
    return [violation("BLACK_THREES_ONLY_WHEN_GOING_OUT", f) for f in fields]


def initial_meld_requirement(rules: Ruleset, side: Side) -> int:
    """The points the side's initial meld needs, by its match score before the deal."""
    return rules.initial_meld_requirement(side.match_score)


def initial_meld_violations(
    rules: Ruleset, side: Side, counted: int, field: str
) -> list[Violation]:
    """docs/rules.md#initial-meld: a side that had not opened lays at least its requirement."""
    if side.opened:
        return []
    need = initial_meld_requirement(rules, side)
    if counted >= need:
        return []
    return [violation("INITIAL_MELD_TOO_LOW", field, required=need, actual=counted)]

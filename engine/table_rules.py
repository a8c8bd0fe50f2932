"""Side-level rules: going out, the initial meld, the hand floor, the uruguayan limit.

These read the whole side (its melds on the table), unlike engine.melds which judges one
meld's content.
"""

from __future__ import annotations

from typing import Iterable

from .cards import WILD
from .model import Meld, MeldKind, Side, Snapshot
from .ruleset import Ruleset

SEVEN = 7


def seven_card_melds(melds: Iterable[Meld]) -> tuple[int, int]:
    """(canastas and sambas, sambas) among ``melds``; a bolivia counts as a canasta."""
    total = sambas = 0
    for m in melds:
        if len(m.cards) >= SEVEN and m.kind is not MeldKind.BLACK_THREES:
            total += 1
            if m.kind is MeldKind.RUN:
                sambas += 1
    return total, sambas


def meets_go_out_requirement(rules: Ruleset, players: int, melds: Iterable[Meld]) -> bool:
    """docs/rules.md#going-out: the side holds ``go_out_canastas`` seven-card melds,
    ``go_out_sambas`` of them sambas (bolivia: at least one escalera)."""
    table = rules.table(players)
    total, sambas = seven_card_melds(melds)
    return total >= table.go_out_canastas and sambas >= rules.go_out_sambas


def go_out_requirement_text(rules: Ruleset, players: int) -> str:
    table = rules.table(players)
    text = f"{table.go_out_canastas} canastas/sambas"
    if rules.go_out_sambas:
        text += f", {rules.go_out_sambas} of them sambas"
    return text


def side_group_wilds(melds: Iterable[Meld]) -> int:
    """Wilds in all of a side's groups (docs/rules.md#uruguayan)."""
    return sum(1 for m in melds if m.kind is MeldKind.GROUP for c in m.cards if c in WILD)


def initial_requirement(rules: Ruleset, side: Side) -> int:
    return rules.initial_meld_requirement(side.match_score)


def meld_number(meld_id: str) -> int | None:
    """N of a meld id ``m<N>`` (N in ASCII digits), else None.

    Accepts exactly what ``re.match(r"^m([0-9]+)$", meld_id)`` accepts, including its one
    trailing newline before ``$``, without a regex match per meld. ``str.isdigit`` alone
    would also take non-ASCII digits such as "²" or "٣", hence ``isascii``.
    """
    if not meld_id.startswith("m"):
        return None
    digits = meld_id[1:]
    if digits.endswith("\n"):
        digits = digits[:-1]
    if digits.isascii() and digits.isdigit():
        return int(digits)
    return None


def next_meld_number(snapshot: Snapshot) -> int:
    """Meld ids made by the service are m<N>, N = 1 + the largest such N (docs/api.md#resources)."""
    best = 0
    for side in snapshot.sides:
        for m in side.melds:
            number = meld_number(m.id)
            if number is not None and number > best:
                best = number
    return best + 1

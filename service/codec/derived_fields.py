"""Client-given output-only snapshot fields against ``engine.derived`` (docs/api.md#cards).

Output-only fields may be omitted; when given (non-default: proto3 cannot tell an omitted
``false``/``0`` from a given one) they must agree with what the engine derives, or the
snapshot is refused with DERIVED_FIELD_DISAGREES at the field's path. Checked only once the
snapshot is consistent (the derivations assume it).
"""

from __future__ import annotations

from typing import Any

from samba_adjudicator.engine import derived, vocabulary
from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.cards import parse_card
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Problem

from ..base import pb

#: Engine meld status -> its protobuf number (``pb.Meld.Status.Value``, made once).
_STATUS_NUMBERS: dict[m.MeldStatus, int] = {
    status: pb.Meld.Status.Value(status.name) for status in m.MeldStatus
}


class _Disagreements:
    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def add(self, field: str, given: Any, actual: Any) -> None:
        where = f"{self.path}.{field}"
        self.problems.append(
            problem(
                where,
                "DERIVED_FIELD_DISAGREES",
                "{field} is {actual}, not {given}",
                field=where,
                actual=repr(actual),
                given=repr(given),
            )
        )


def disagreements(msg: pb.Snapshot, snap: m.Snapshot, path: str) -> list[Problem]:
    """Every given output-only field of ``msg`` that disagrees with ``snap`` (loaded from
    it, consistent), at its JSON path under ``path``. A default value stands for "not
    given" (proto3 cannot tell an omitted ``false``/``0`` from a given one)."""
    out = _Disagreements(path)
    for i, (seat, es) in enumerate(zip(msg.seats, snap.seats, strict=True)):
        if seat.hand_hidden and not es.hand_hidden:  # a hidden hand lists no card
            out.add(f"seats[{i}].handHidden", True, False)
    if msg.stock_hidden and not snap.stock_hidden:
        out.add("stockHidden", True, False)
    for k, (side, engine_side) in enumerate(zip(msg.sides, snap.sides, strict=True)):
        _side(out, f"sides[{k}]", side, engine_side, snap.ruleset)
    if msg.HasField("pile"):
        _pile(out, msg.pile, derived.pile_state(snap))
    waiting = tuple(msg.turn.awaiting_seats)
    if waiting:
        actual = derived.awaiting_seats(snap)
        if sorted(waiting) != sorted(actual):
            out.add("turn.awaitingSeats", list(waiting), list(actual))
    return out.problems


def _side(out: _Disagreements, path: str, side: pb.Side, engine_side: m.Side, rules: Any) -> None:
    if side.opened and not engine_side.opened:
        out.add(f"{path}.opened", True, False)
    need = derived.initial_meld_requirement(rules, engine_side)
    if side.initial_meld_requirement and side.initial_meld_requirement != need:
        out.add(f"{path}.initialMeldRequirement", side.initial_meld_requirement, need)
    for j, (meld, engine_meld) in enumerate(zip(side.melds, engine_side.melds, strict=True)):
        where = f"{path}.melds[{j}]"
        status = vocabulary.meld_status(engine_meld)
        if meld.status and meld.status != _STATUS_NUMBERS[status]:
            out.add(f"{where}.status", pb.Meld.Status.Name(meld.status), status.name)
        if meld.natural and not vocabulary.is_natural(engine_meld.cards):
            out.add(f"{where}.natural", True, False)


def _pile(out: _Disagreements, pile: pb.Pile, state: tuple) -> None:
    top, count, blocked, frozen = state
    if pile.top and parse_card(pile.top) != top:
        out.add("pile.top", pile.top, top or "")
    if pile.count and pile.count != count:
        out.add("pile.count", pile.count, count)
    if pile.blocked and not blocked:
        out.add("pile.blocked", True, False)
    if pile.frozen_for_sides and sorted(pile.frozen_for_sides) != sorted(frozen):
        out.add("pile.frozenForSides", list(pile.frozen_for_sides), list(frozen))

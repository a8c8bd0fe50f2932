"""Client-given output-only snapshot fields against ``engine.derived`` (docs/api.md#cards).

Output-only fields may be omitted; when given (non-default: proto3 cannot tell an omitted
``false``/``0`` from a given one) they must agree with what the engine derives, or the
snapshot is refused with DERIVED_FIELD_DISAGREES at the field's path. Checked only once the
snapshot is consistent (the derivations assume it).

What was given is read off the protobuf message (``given_in``, a ``Given`` record) and
compared in one place (``disagreements_of``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from samba_adjudicator.engine import derived, vocabulary
from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.cards import parse_card
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Problem
from samba_adjudicator.service.base import pb

#: Engine meld status -> its protobuf number (``pb.Meld.Status.Value``, made once).
_STATUS_NUMBERS: dict[m.MeldStatus, int] = {
    status: pb.Meld.Status.Value(status.name) for status in m.MeldStatus
}


@dataclass(frozen=True, slots=True)
class GivenSide:
    """A side's output-only fields as given: ``melds`` as (status number, natural) pairs,
    one per meld in order (0 / False: not given)."""

    opened: bool
    initial_meld_requirement: int
    melds: tuple[tuple[int, bool], ...]


@dataclass(frozen=True, slots=True)
class Given:
    """A snapshot's output-only fields as given, defaults standing for "not given":
    ``hands_hidden`` one flag per seat, ``pile`` (top, count, blocked, frozen for sides)
    when the pile was given at all."""

    hands_hidden: tuple[bool, ...]
    stock_hidden: bool
    sides: tuple[GivenSide, ...]
    pile: tuple[str, int, bool, tuple[int, ...]] | None
    awaiting_seats: tuple[int, ...]


def given_in(msg: pb.Snapshot) -> Given:
    """The output-only fields of a protobuf snapshot."""
    pile = msg.pile if msg.HasField("pile") else None
    return Given(
        hands_hidden=tuple(s.hand_hidden for s in msg.seats),
        stock_hidden=msg.stock_hidden,
        sides=tuple(
            GivenSide(
                side.opened,
                side.initial_meld_requirement,
                tuple((meld.status, meld.natural) for meld in side.melds),
            )
            for side in msg.sides
        ),
        pile=None
        if pile is None
        else (pile.top, pile.count, pile.blocked, tuple(pile.frozen_for_sides)),
        awaiting_seats=tuple(msg.turn.awaiting_seats),
    )


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
    it, consistent), at its JSON path under ``path``."""
    return disagreements_of(given_in(msg), snap, path)


def disagreements_of(given: Given, snap: m.Snapshot, path: str) -> list[Problem]:
    """``disagreements`` of the output-only fields a snapshot was given with."""
    out = _Disagreements(path)
    for i, (hidden, es) in enumerate(zip(given.hands_hidden, snap.seats, strict=True)):
        if hidden and not es.hand_hidden:
            out.add(f"seats[{i}].handHidden", True, False)
    if given.stock_hidden and not snap.stock_hidden:
        out.add("stockHidden", True, False)
    for k, (side, engine_side) in enumerate(zip(given.sides, snap.sides, strict=True)):
        _side(out, f"sides[{k}]", side, engine_side, snap.ruleset)
    if given.pile is not None:
        _pile(out, given.pile, derived.pile_state(snap))
    waiting = given.awaiting_seats
    if waiting:
        actual = derived.awaiting_seats(snap)
        if sorted(waiting) != sorted(actual):
            out.add("turn.awaitingSeats", list(waiting), list(actual))
    return out.problems


def _side(out: _Disagreements, path: str, side: GivenSide, engine_side: m.Side, rules: Any) -> None:
    if side.opened and not engine_side.opened:
        out.add(f"{path}.opened", True, False)
    need = derived.initial_meld_requirement(rules, engine_side)
    if side.initial_meld_requirement and side.initial_meld_requirement != need:
        out.add(f"{path}.initialMeldRequirement", side.initial_meld_requirement, need)
    for j, ((status_number, natural), engine_meld) in enumerate(
        zip(side.melds, engine_side.melds, strict=True)
    ):
        where = f"{path}.melds[{j}]"
        status = vocabulary.meld_status(engine_meld)
        if status_number and status_number != _STATUS_NUMBERS[status]:
            out.add(f"{where}.status", pb.Meld.Status.Name(status_number), status.name)
        if natural and not vocabulary.is_natural(engine_meld.cards):
            out.add(f"{where}.natural", True, False)


def _pile(out: _Disagreements, pile: tuple[str, int, bool, tuple[int, ...]], state: tuple) -> None:
    given_top, given_count, given_blocked, given_frozen = pile
    top, count, blocked, frozen = state
    if given_top and parse_card(given_top) != top:
        out.add("pile.top", given_top, top or "")
    if given_count and given_count != count:
        out.add("pile.count", given_count, count)
    if given_blocked and not blocked:
        out.add("pile.blocked", True, False)
    if given_frozen and sorted(given_frozen) != sorted(frozen):
        out.add("pile.frozenForSides", list(given_frozen), list(frozen))

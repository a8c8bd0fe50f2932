"""The deal's own fields of a client-given snapshot, checked like the rest of it
(engine.consistency, which calls ``check_deal_fields``): dealer, deal number and ply, the
turn's seat and phase, this turn's flags and question, and who went out."""

from __future__ import annotations

from collections.abc import Callable

from .messages import problem
from .model import EndReason, GoOut, Phase, Problem, Snapshot

#: Records a problem (engine.messages.problem: its description a template with parameters).
Add = Callable[[Problem], None]


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_deal_fields(snapshot: Snapshot, add: Add) -> None:
    """Every problem of the deal's own fields."""
    _deal_fields(snapshot, add)
    _turn(snapshot, add)
    _turn_flags(snapshot, add)
    _result(snapshot, add)


def _deal_fields(snapshot: Snapshot, add: Add) -> None:
    """Dealer, deal number and ply."""
    n = len(snapshot.seats)
    if not _is_int(snapshot.dealer) or not 0 <= snapshot.dealer < max(n, 1):
        add(problem("dealer", "OUT_OF_RANGE", "dealer must be a seat 0..{last}", last=n - 1))
    if not _is_int(snapshot.deal_number) or snapshot.deal_number < 1:
        add(problem("dealNumber", "OUT_OF_RANGE", "dealNumber must be 1 or more"))
    if not _is_int(snapshot.ply) or snapshot.ply < 0:
        add(problem("ply", "OUT_OF_RANGE", "ply must not be negative"))


def _turn(snapshot: Snapshot, add: Add) -> None:
    """The turn's seat; phase OVER and a result go together."""
    n = len(snapshot.seats)
    turn = snapshot.turn
    seat_ok = _is_int(turn.seat) and 0 <= turn.seat < n
    if not seat_ok:
        add(problem("turn.seat", "OUT_OF_RANGE", "turn.seat must be a seat 0..{last}", last=n - 1))
    over = turn.phase is Phase.OVER
    if over and snapshot.result is None:
        add(problem("turn.phase", "PHASE_INCONSISTENT", "phase OVER needs a result"))
    if snapshot.result is not None and not over:
        add(problem("result", "PHASE_INCONSISTENT", "a result is set only when the phase is OVER"))


def _turn_flags(snapshot: Snapshot, add: Add) -> None:
    """This turn's flags and question, by phase."""
    turn = snapshot.turn
    n = len(snapshot.seats)
    seat_ok = _is_int(turn.seat) and 0 <= turn.seat < n
    if turn.phase is Phase.DRAW:
        for name, flag in (
            ("meldedThisTurn", turn.melded_this_turn),
            ("tookPile", turn.took_pile),
            ("addedToPartnerMelds", turn.added_to_partner_melds),
        ):
            if flag:
                add(
                    problem(
                        f"turn.{name}",
                        "PHASE_INCONSISTENT",
                        "{name} cannot be set in the DRAW phase",
                        name=name,
                    )
                )
    if turn.go_out is not GoOut.NOT_ASKED:
        if turn.phase is Phase.DRAW:
            add(
                problem(
                    "turn.goOut",
                    "PHASE_INCONSISTENT",
                    "the go-out question is asked only in the PLAY phase",
                )
            )
        elif seat_ok and _has_no_partner(snapshot, turn.seat):
            add(
                problem(
                    "turn.goOut",
                    "PHASE_INCONSISTENT",
                    "seat {seat} has no partner to ask",
                    seat=turn.seat,
                )
            )


def _result(snapshot: Snapshot, add: Add) -> None:
    """Who went out."""
    n = len(snapshot.seats)
    result = snapshot.result
    if result is not None and result.reason is EndReason.WENT_OUT:
        if result.seat is None:
            add(problem("result.seat", "REQUIRED", "a deal that ended by going out names the seat"))
        elif not _is_int(result.seat) or not 0 <= result.seat < n:
            add(
                problem(
                    "result.seat",
                    "OUT_OF_RANGE",
                    "result.seat must be a seat 0..{last}",
                    last=n - 1,
                )
            )


def _has_no_partner(snapshot: Snapshot, seat: int) -> bool:
    t = snapshot.ruleset.sides_for(len(snapshot.seats))
    return not any(s != seat and s % t == seat % t for s in range(len(snapshot.seats)))

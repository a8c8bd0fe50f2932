"""The figures of a snapshot that the rules produce, checked against the rest of it
(docs/rules.md#snapshot-fields): the result's seat, concealed flag and premium, and the
sides' penalties. A client may not hand them in: ScoreDeal would score whatever they say.

Each problem is reported at its field path relative to the snapshot, like every problem of
engine.consistency (which calls ``check_outcome`` last). Decisions:
- The seat that went out is the seat whose turn it was (the final turn keeps its seat), and
  its hand is empty.
- ``concealed`` is true exactly for a going out with no pile take that turn by a seat that
  laid nothing in an earlier turn (``hasMelded``; the final turn's melding is only in
  ``turn.meldedThisTurn``, engine.going_out).
- The premium is exactly the one engine.premiums computes from the table, the seat's
  ``dealt`` and ``turn.addedToPartnerMelds``; with ``dealt`` empty (a view hides it) either
  origin of the meld is accepted.
- A penalty is one the ruleset assesses (only with ``penalties_enabled``), with the
  ruleset's ``penalty_points``.
"""

from __future__ import annotations

from collections.abc import Callable

from .messages import EITHER, N_, Text, joined, problem, text
from .model import EndReason, Premium, Problem, Result, Snapshot
from .penalties import RECORDED_CODES
from .premiums import premiums_allowed

#: Records a problem (engine.messages.problem: its description a template with parameters).
Add = Callable[[Problem], None]


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_outcome(snapshot: Snapshot, add: Add) -> None:
    """Every disagreement of the result and the penalties with the rest of ``snapshot``."""
    _penalties(snapshot, add)
    result = snapshot.result
    if result is None:
        return
    went_out = result.reason is EndReason.WENT_OUT
    seat = result.seat
    seat_ok = went_out and _is_int(seat) and seat is not None and 0 <= seat < len(snapshot.seats)
    if seat_ok and seat is not None:
        _going_out_seat(snapshot, seat, add)
        _concealed(snapshot, result, seat, add)
    elif result.concealed and not went_out:
        add(problem("result.concealed", "PHASE_INCONSISTENT", "only a going out is concealed"))
    _premium(snapshot, result, seat if seat_ok else None, add)


def _going_out_seat(snapshot: Snapshot, seat: int, add: Add) -> None:
    """The seat that went out moved last and holds no card."""
    if seat != snapshot.turn.seat:
        add(
            problem(
                "result.seat",
                "DERIVED_FIELD_DISAGREES",
                "the seat that went out is the seat of the last turn, {seat}",
                seat=snapshot.turn.seat,
            )
        )
    held = snapshot.seats[seat]
    count = len(held.hand) if held.hand else held.hand_count
    if count:
        add(
            problem(
                "result.seat",
                "PHASE_INCONSISTENT",
                "seat {seat} went out but holds {count} cards",
                seat=seat,
                count=count,
            )
        )


def _concealed(snapshot: Snapshot, result: Result, seat: int, add: Add) -> None:
    """Concealed exactly when the seat took no pile this turn and laid nothing in an earlier
    one (``hasMelded``: the final turn's melding is in ``turn.meldedThisTurn``)."""
    took_pile = snapshot.turn.took_pile
    melded_before = snapshot.seats[seat].has_melded
    if result.concealed == (not took_pile and not melded_before):
        return
    if result.concealed and took_pile:
        template = N_("the seat took the pile this turn: its going out is not concealed")
    elif result.concealed:
        template = N_(
            "the seat melded in an earlier turn (hasMelded): its going out is not concealed"
        )
    else:
        template = N_("the seat took no pile and laid nothing in an earlier turn: concealed")
    add(problem("result.concealed", "DERIVED_FIELD_DISAGREES", template))


def _describe(premium: Premium | None) -> Text:
    if premium is None:
        return text(N_("no premium"))
    return text(N_("{kind} ({points})"), kind=premium.kind, points=premium.points)


def _premium(snapshot: Snapshot, result: Result, seat: int | None, add: Add) -> None:
    """The premium the going out earns, and only that (docs/rules.md#spanish-premiums)."""
    rules = snapshot.ruleset
    given = result.premium
    if given is not None and not rules.concealed_premiums:
        add(
            problem(
                "result.premium",
                "OUT_OF_RANGE",
                "{profile} pays no premiums",
                profile=rules.profile,
            )
        )
        return
    if seat is None or not result.concealed:
        if given is not None:
            add(
                problem(
                    "result.premium",
                    "PHASE_INCONSISTENT",
                    "a premium is earned only by going out concealed",
                )
            )
        return
    paid = {p.kind: p.points for p in rules.concealed_premiums}
    if given is not None and given.kind not in paid:
        add(
            problem(
                "result.premium.kind",
                "OUT_OF_RANGE",
                "kind must be one of {kinds}",
                kinds=", ".join(paid),
            )
        )
        return
    if given is not None and given.points != paid[given.kind]:
        add(
            problem(
                "result.premium.points",
                "DERIVED_FIELD_DISAGREES",
                "a {kind} premium is worth {points}, not {given}",
                kind=given.kind,
                points=paid[given.kind],
                given=given.points,
            )
        )
        return
    side = seat % max(len(snapshot.sides), 1)
    melds = snapshot.sides[side].melds if side < len(snapshot.sides) else ()
    allowed = premiums_allowed(
        rules, seat, melds, snapshot.seats[seat].dealt, snapshot.turn.added_to_partner_melds
    )
    if given not in allowed:
        where = "result.premium.kind" if given is not None else "result.premium"
        earned = joined([_describe(p) for p in allowed], EITHER)
        add(
            problem(
                where,
                "DERIVED_FIELD_DISAGREES",
                "this going out earns {allowed}, not {given}",
                allowed=earned,
                given=_describe(given),
            )
        )


def _penalties(snapshot: Snapshot, add: Add) -> None:
    """Only a ruleset with penalties records them, each of a code it assesses and worth the
    ruleset's penalty points."""
    rules = snapshot.ruleset
    for k, side in enumerate(snapshot.sides):
        for x, penalty in enumerate(side.penalties):
            where = f"sides[{k}].penalties[{x}]"
            if not rules.penalties_enabled:
                add(
                    problem(
                        where,
                        "OUT_OF_RANGE",
                        "{profile} assesses no penalties",
                        profile=rules.profile,
                    )
                )
            elif penalty.code not in RECORDED_CODES:
                add(
                    problem(
                        f"{where}.code",
                        "OUT_OF_RANGE",
                        "{code} is not a penalty; one of {codes}",
                        code=repr(penalty.code),
                        codes=", ".join(RECORDED_CODES),
                    )
                )
            elif penalty.points != rules.penalty_points:
                add(
                    problem(
                        f"{where}.points",
                        "DERIVED_FIELD_DISAGREES",
                        "a penalty is worth {points}, not {given}",
                        points=rules.penalty_points,
                        given=penalty.points,
                    )
                )

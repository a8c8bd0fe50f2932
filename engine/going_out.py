"""Going out and the end of a turn (docs/rules.md#turn, #going-out); the premium a concealed
going out earns comes from engine.premiums (docs/rules.md#spanish-premiums).

A seat whose hand empties while its side may go out ends the deal (``finish_if_out``);
otherwise a turn ends with a discard (``end_turn``), or, for a seat left without a legal
action, as if the stock ran out (``end_stranded``).
"""

from __future__ import annotations

from dataclasses import replace

from . import penalties
from .model import EndReason, Event, GoOut, Phase, Premium, Result, Turn
from .premiums import earned_premium
from .table_rules import meets_go_out_requirement
from .work import Work


def may_go_out(work: Work) -> bool:
    """No partner's "no" this turn, and the side meets the going-out requirement."""
    return work.turn.go_out is not GoOut.DENIED and meets_go_out_requirement(
        work.base.ruleset, work.players, work.side_melds
    )


def finish_if_out(work: Work) -> None:
    """The hand is empty and going out is allowed: the deal ends (docs/rules.md#going-out)."""
    seat = work.base.seats[work.seat]
    if work.hands[work.seat] or seat.hand_hidden:
        return
    concealed = not seat.has_melded and not work.turn.took_pile
    premium = concealed_premium(work) if concealed else None
    # The final turn's melding stays in turn.meldedThisTurn, out of hasMelded ("an earlier
    # turn"): so the final snapshot still shows whether the going out was concealed.
    work.turn = replace(work.turn, phase=Phase.OVER)
    work.result = Result(EndReason.WENT_OUT, work.seat, concealed, premium)
    work.events.append(
        Event("WENT_OUT", work.seat, work.side, points=work.base.ruleset.go_out_bonus)
    )
    work.events.append(Event("DEAL_ENDED", work.seat, work.side))


def concealed_premium(work: Work) -> Premium | None:
    """Going out concealed with a seven-card meld formed in the hand (docs/rules.md#spanish)."""
    return earned_premium(
        work.base.ruleset,
        work.seat,
        work.side_melds,
        work.base.seats[work.seat].dealt,
        work.turn.added_to_partner_melds,
    )


def fold_melded(work: Work) -> None:
    """This turn's melding folds into the seat's ``has_melded``."""
    if work.turn.melded_this_turn:
        work.has_melded[work.seat] = True


def assess_asked_penalty(work: Work) -> None:
    """Spanish: the seat asked "may I go out?" and its turn ends without going out
    (docs/rules.md#spanish)."""
    penalty = penalties.asked_and_did_not_go_out(work.base.ruleset, work.turn.go_out)
    if penalty is not None:
        work.penalties[work.side].append(penalty)
        work.events.append(Event("PENALTY_ASSESSED", work.seat, work.side, points=penalty.points))


def end_turn(work: Work) -> None:
    """The turn passes clockwise."""
    assess_asked_penalty(work)
    fold_melded(work)
    work.turn = Turn(seat=(work.seat + 1) % work.players, phase=Phase.DRAW)


def end_stranded(work: Work) -> None:
    """The last card discarded by a seat that may not go out ends the deal as if the stock
    ran out (docs/rules.md "Further decisions": no position without a legal action).

    A seat holds a single card in the play phase only when its draw emptied the stock on
    red 3s (or in a hand-built position); without this it could neither meld nor
    discard, and after a "no" to "may I go out?" not even ask."""
    assess_asked_penalty(work)
    work.turn = replace(work.turn, phase=Phase.OVER)
    work.result = Result(EndReason.STOCK_EXHAUSTED)
    work.events.append(Event("DEAL_ENDED", work.seat, work.side))

"""Validate and apply actions: the only ways a deal changes (docs/rules.md#turn,
#discard-pile, #melding, #going-out).

``apply`` plays the action on a private working copy (engine.work) and freezes it;
``validate`` is ``apply``'s verdict without the state, so the two can never disagree.
This module holds the turn (whose turn, which phase), the draw, melding, the wild swap,
the discard and the "may I go out?" question; taking the pile is engine.takes, going out
and the end of a turn engine.going_out, laying melds engine.laying.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from . import melds as M
from . import penalties
from .cards import RANK, WILD, pack_counts
from .deadline import checkpoint
from .derived import awaiting_seats
from .going_out import end_stranded, end_turn, finish_if_out, may_go_out
from .laying import check_meld, lay_melds
from .messages import N_, problem, text
from .model import (
    Action,
    AnswerGoOut,
    AskGoOut,
    Discard,
    DrawStock,
    EndReason,
    Event,
    GoOut,
    InvalidInput,
    MeldCards,
    MeldKind,
    Outcome,
    Penalty,
    Phase,
    Problem,
    Result,
    ScoreReport,
    Snapshot,
    SwapWild,
    TakePile,
    TakeTopCard,
    Turn,
    Violation,
)
from .scoring import score as score_deal
from .table_rules import hand_floor_violations, initial_meld_violations
from .takes import take_pile, take_top_card
from .violations import SWAP_MISMATCHES, not_your_turn, violation
from .vocabulary import SEVEN
from .work import Refused, Work

__all__ = ["validate", "apply", "replay", "check_meld", "ReplayStep"]

ACTION_FIELD: dict[type, str] = {
    DrawStock: "drawStock",
    TakePile: "takePile",
    TakeTopCard: "takeTopCard",
    MeldCards: "meld",
    SwapWild: "swapWild",
    Discard: "discard",
    AskGoOut: "askGoOut",
    AnswerGoOut: "answerGoOut",
}
DRAW_ACTIONS = (DrawStock, TakePile, TakeTopCard)

#: One step of ``replay``: (legal, violations, events).
ReplayStep = tuple[bool, tuple[Violation, ...], tuple[Event, ...]]


# -- public API ---------------------------------------------------------------------------


def validate(snapshot: Snapshot, action: Action) -> list[Violation]:
    """Why ``action`` is illegal in ``snapshot`` (empty when legal)."""
    return list(_play(snapshot, action, validate_only=True)[0])


def apply(snapshot: Snapshot, action: Action) -> Outcome:
    """The next state when ``action`` is legal; else the input plus any penalty
    (docs/rules.md#spanish)."""
    violations, work = _play(snapshot, action, validate_only=False)
    if violations:
        return _refusal(snapshot, action, violations)
    new = work.freeze()
    score = score_deal(new) if new.turn.phase is Phase.OVER else None
    return Outcome(True, (), new, tuple(work.events), score)


def replay(
    snapshot: Snapshot, actions: Sequence[Action]
) -> tuple[list[ReplayStep], Snapshot, int | None, ScoreReport | None]:
    """Apply ``actions`` in order, stopping at the first illegal one (docs/api.md#methods):
    each step's answer, the last legal snapshot, the index of the illegal action (None
    when all were legal) and the score when the deal ended."""
    results: list[ReplayStep] = []
    current = snapshot
    for index, action in enumerate(actions):
        checkpoint()
        try:
            outcome = apply(current, action)
        except InvalidInput as bad:
            raise InvalidInput(
                [
                    replace(p, field=p.field.replace("action", f"actions[{index}]", 1))
                    for p in bad.problems
                ],
                bad.kind,
            ) from None
        results.append((outcome.legal, outcome.violations, outcome.events))
        if not outcome.legal:
            return results, current, index, None
        current = outcome.snapshot
    score = score_deal(current) if current.turn.phase is Phase.OVER and actions else None
    return results, current, None, score


def _refusal(snapshot: Snapshot, action: Action, violations: list[Violation]) -> Outcome:
    penalised = [v for v in violations if v.penalty_points]
    if not penalised:
        return Outcome(False, tuple(violations), snapshot)
    side = snapshot.seats[action.seat].side
    extra = tuple(Penalty(v.code, v.penalty_points) for v in penalised)
    sides = tuple(
        replace(s, penalties=s.penalties + extra) if s.side == side else s for s in snapshot.sides
    )
    events = tuple(Event("PENALTY_ASSESSED", action.seat, side, points=p.points) for p in extra)
    return Outcome(False, tuple(violations), replace(snapshot, sides=sides, signature=""), events)


# -- dispatch -----------------------------------------------------------------------------


def _play(s: Snapshot, action: Action, validate_only: bool) -> tuple[list[Violation], Work]:
    if not 0 <= action.seat < s.players:
        raise InvalidInput(
            [
                problem(
                    "action.seat",
                    "OUT_OF_RANGE",
                    "seat {seat} does not exist at this table",
                    seat=action.seat,
                )
            ]
        )
    work = Work(s, action.seat)
    if action.expected_ply is not None and action.expected_ply != s.ply:
        return [
            violation(
                "STALE_SNAPSHOT", "action.expectedPly", expected=action.expected_ply, actual=s.ply
            )
        ], work
    if s.turn.phase is Phase.OVER:
        return [violation("DEAL_OVER", "action")], work
    problems = _turn_violations(s, action)
    if problems:
        return problems, work
    try:
        _handle(work, action, validate_only)
    except Refused as refused:
        return refused.violations, work
    return [], work


def _handle(work: Work, action: Action, validate_only: bool) -> None:
    if isinstance(action, MeldCards):
        _meld(work, action)
    elif isinstance(action, Discard):
        _discard(work, action)
    elif isinstance(action, DrawStock):
        _draw_stock(work, action, validate_only)
    elif isinstance(action, TakePile):
        take_pile(work, action)
    elif isinstance(action, TakeTopCard):
        take_top_card(work, action)
    elif isinstance(action, SwapWild):
        _swap_wild(work, action)
    elif isinstance(action, AskGoOut):
        _ask(work)
    else:
        _answer(work, action)


def _turn_violations(s: Snapshot, action: Action) -> list[Violation]:
    turn = s.turn
    if isinstance(action, AnswerGoOut):
        if turn.go_out is not GoOut.ASKED:
            return [violation("NOTHING_TO_ANSWER", "action.answerGoOut")]
        if action.seat not in s.partners(turn.seat):
            return [violation("NOT_A_PARTNER", "action.seat", seat=action.seat)]
        return []
    if action.seat != turn.seat or turn.go_out is GoOut.ASKED:
        out = [not_your_turn(turn.seat, awaiting_seats(s), action.seat, turn.go_out)]
        if action.seat != turn.seat:
            out += penalties.out_of_turn(
                s.ruleset,
                isinstance(action, DRAW_ACTIONS),
                isinstance(action, (MeldCards, SwapWild)),
            )
        return out
    wanted = Phase.DRAW if isinstance(action, DRAW_ACTIONS) else Phase.PLAY
    if turn.phase is not wanted:
        name = ACTION_FIELD[type(action)]
        return [violation("WRONG_PHASE", f"action.{name}", action=name, phase=turn.phase.value)]
    return []


def _refuse(violations: list[Violation]) -> None:
    if violations:
        raise Refused(violations)


# -- the draw -----------------------------------------------------------------------------


def _draw_stock(work: Work, action: DrawStock, validate_only: bool) -> None:
    s = work.base
    if s.stock_hidden:
        if not action.cards and not validate_only:
            raise InvalidInput(
                [
                    Problem(
                        "action.drawStock.cards",
                        "REQUIRED",
                        "the stock is hidden: list the cards drawn",
                    )
                ],
                "HIDDEN_INFORMATION_REQUIRED",
            )
        work.hidden_draws = list(action.cards) if action.cards else None
        if work.hidden_draws is None:
            work.turn = replace(work.turn, phase=Phase.PLAY)
            return
    elif action.cards:
        raise InvalidInput(
            [
                Problem(
                    "action.drawStock.cards",
                    "OUT_OF_RANGE",
                    "the stock is listed: the service draws from it",
                )
            ]
        )
    if s.stock_count == 0:
        work.turn = replace(work.turn, phase=Phase.OVER)
        work.result = Result(EndReason.STOCK_EXHAUSTED)
        work.events.append(Event("DEAL_ENDED", work.seat, work.side))
        return
    _draw(work, action)


def _draw(work: Work, action: DrawStock) -> None:
    s = work.base
    before = len(work.hands[work.seat])
    work.draw_owed()
    work.draw_for(s.ruleset.table_size(work.players).draw_count)
    drawn = tuple(work.hands[work.seat][before:])
    if work.hidden_draws:
        raise InvalidInput(
            [
                Problem(
                    "action.drawStock.cards",
                    "OUT_OF_RANGE",
                    "more cards than the draw takes from the stock",
                )
            ]
        )
    if s.seats[work.seat].hand_hidden:
        work.hidden_drawn[work.seat] += len(drawn)
        work.hands[work.seat] = []
    if s.stock_hidden:
        _check_hidden_copies(s, action.cards)
    work.events.append(Event("CARDS_DRAWN", work.seat, work.side, cards=drawn))
    t = work.turn  # replace(t, phase=Phase.PLAY), built directly (hot path)
    work.turn = Turn(
        seat=t.seat,
        phase=Phase.PLAY,
        took_pile=t.took_pile,
        melded_this_turn=t.melded_this_turn,
        added_to_partner_melds=t.added_to_partner_melds,
        go_out=t.go_out,
    )


def _check_hidden_copies(s: Snapshot, cards: Sequence[str]) -> None:
    """Cards drawn from a hidden stock must exist beside every card listed."""
    listed: Counter[str] = Counter()
    for seat in s.seats:
        listed.update(seat.hand)
    for side in s.sides:
        listed.update(side.red_threes)
        for m in side.melds:
            listed.update(m.cards)
    listed.update(s.discard_pile)
    listed.update(cards)
    over = listed - pack_counts(s.ruleset.decks, s.ruleset.jokers)
    if over:
        raise InvalidInput(
            [
                problem(
                    "action.drawStock.cards",
                    "TOO_MANY_COPIES",
                    "more copies than the pack holds: {cards}",
                    cards=sorted(over),
                )
            ]
        )


# -- melding ------------------------------------------------------------------------------


def _meld(work: Work, action: MeldCards) -> None:
    field = "action.meld"
    if not action.new_melds and not action.additions:
        raise InvalidInput([Problem(field, "REQUIRED", "a meld action lays at least one meld")])
    rules = work.base.ruleset
    work.take_from_hand(
        [c for m in action.new_melds for c in m] + [c for a in action.additions for c in a.cards],
        field,
    )
    counted = lay_melds(work, action.new_melds, action.additions, field)
    _refuse(initial_meld_violations(rules, work.base.sides[work.side], counted, field))
    work.mark_melded()
    _refuse(
        hand_floor_violations(
            rules,
            work.players,
            work.side_melds,
            len(work.hands[work.seat]),
            work.turn.go_out,
            field,
            allow_empty=True,
        )
    )
    finish_if_out(work)


def _swap_wild(work: Work, action: SwapWild) -> None:
    """docs/rules.md#wild-swap: a natural from the hand replaces the wild it stands for."""
    field = "action.swapWild"
    if not work.base.ruleset.wild_swap:
        raise Refused(
            [
                violation(
                    "WILD_SWAP_NOT_ALLOWED",
                    field,
                    reason=text(N_("this ruleset does not allow swapping a wild")),
                )
            ]
        )
    j = work.own_meld(action.meld_id, f"{field}.meldId")
    meld = work.side_melds[j]
    _check_swap(action, meld.kind, meld.cards, meld.id, field)
    work.take_from_hand((action.natural,), f"{field}.natural")
    cards = list(meld.cards)
    cards[cards.index(action.wild)] = action.natural
    work.side_melds[j] = replace(meld, cards=tuple(cards))
    work.hands[work.seat].append(action.wild)
    work.events.append(
        Event("WILD_SWAPPED", work.seat, work.side, meld.id, (action.natural, action.wild))
    )
    if meld.laid_by in work.partners:
        work.turn = replace(work.turn, added_to_partner_melds=True)
    work.mark_melded()


def _check_swap(
    action: SwapWild, kind: MeldKind, cards: tuple[str, ...], meld_id: str, field: str
) -> None:
    if kind is not MeldKind.GROUP or len(cards) >= SEVEN:
        raise Refused(
            [
                violation(
                    "WILD_SWAP_NOT_ALLOWED",
                    f"{field}.meldId",
                    reason=text(N_("only a wild in an incomplete group may be swapped")),
                )
            ]
        )
    if action.wild not in WILD or action.wild not in cards:
        raise Refused(
            [
                violation(
                    "WILD_SWAP_MISMATCH",
                    f"{field}.wild",
                    reason=text(SWAP_MISMATCHES[0], meld=meld_id, wild=action.wild),
                    meld=meld_id,
                    wild=action.wild,
                )
            ]
        )
    if action.natural in WILD or RANK[action.natural] != M.group_rank(cards):
        raise Refused(
            [
                violation(
                    "WILD_SWAP_MISMATCH",
                    f"{field}.natural",
                    reason=text(SWAP_MISMATCHES[1], natural=action.natural),
                    natural=action.natural,
                )
            ]
        )


# -- the discard and the question ---------------------------------------------------------


def _discard(work: Work, action: Discard) -> None:
    work.take_from_hand((action.card,), "action.discard.card")
    work.pile.append(action.card)
    work.events.append(Event("DISCARDED", work.seat, work.side, cards=(action.card,)))
    if work.hands[work.seat]:
        end_turn(work)
    elif may_go_out(work):
        finish_if_out(work)
    else:
        end_stranded(work)


def _ask(work: Work) -> None:
    field = "action.askGoOut"
    if not work.partners or not work.base.ruleset.ask_partner:
        raise Refused([violation("NO_PARTNER", field)])
    if work.turn.go_out is not GoOut.NOT_ASKED:
        raise Refused([violation("ALREADY_ASKED", field)])
    if work.turn.melded_this_turn:
        raise Refused([violation("ASK_AFTER_MELDING", field)])
    work.turn = replace(work.turn, go_out=GoOut.ASKED)
    work.events.append(Event("PERMISSION_ASKED", work.seat, work.side))


def _answer(work: Work, action: AnswerGoOut) -> None:
    work.turn = replace(work.turn, go_out=GoOut.GRANTED if action.allow else GoOut.DENIED)
    work.events.append(
        Event("PERMISSION_ANSWERED", work.seat, work.side, points=1 if action.allow else 0)
    )

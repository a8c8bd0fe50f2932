"""Scoring a deal and the match (docs/rules.md#scoring, docs/rules.md#match-end,
docs/api.md#side-score).

``deal total = melded card values + canasta/samba/bolivia bonuses + red 3 score
+ going-out bonus (+ concealed bonus / spanish premium) − cards left in the side's hands
+ penalties``. Every term is its own SideScore field, **signed as it adds** to the total.

Decisions where the rules are silent (also in the ScoreDeal docs):
- A bolivia (seven-wild group) counts as a seven-card meld for ``TWO_CANASTAS`` (it is a
  canasta of wilds); a black-3 group never does.
- "The side opened" (INITIAL_MELD) and "has a meld" (ANY_MELD) both mean: the side has a
  meld on the table at the end of the deal.
- The spanish premium (``result.premium``) goes to the going-out side's ``concealedBonus``
  whenever the result carries one; the result is taken as given (docs/api.md#resources).
- ``provisional=True`` on a deal that is already over scores it as final (its real result)
  and reports ``provisional: false``; on an unfinished deal it scores as if the deal ended
  now by STOCK_EXHAUSTED (no going-out or concealed bonus) and reports ``provisional:
  true``. Match-over, winner and draw are computed from those totals either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from . import vocabulary
from .cards import BLACK_THREES, RED_THREES, VALUE
from .messages import problem
from .model import (
    EndReason,
    InvalidInput,
    Meld,
    Phase,
    Problem,
    Result,
    ScoreReport,
    Side,
    SideScore,
    Snapshot,
)
from .ruleset import RedThreePenalty, RedThreePositiveIf, Ruleset


def red_threes_positive(ruleset: Ruleset, side: Side) -> bool:
    """Whether ``red_three_positive_if`` holds for the side as it stands (docs/rules.md#scoring)."""
    cond = ruleset.red_three_positive_if
    if cond is RedThreePositiveIf.TWO_CANASTAS:
        return vocabulary.seven_card_melds(side.melds)[0] >= 2  # a bolivia counts
    # INITIAL_MELD (the side opened) and ANY_MELD (the side has a meld) coincide here.
    return bool(side.melds)


def red_three_figure(ruleset: Ruleset, count: int) -> int:
    """The positive figure: count × value, or the ``all`` figure for every red 3 of the pack."""
    if count <= 0:
        return 0
    if count >= ruleset.red_threes_in_pack:
        return ruleset.red_three_all_value
    return count * ruleset.red_three_value


def red_three_points(ruleset: Ruleset, side: Side) -> int:
    """The side's red-3 score, signed: positive, or PER_CARD / MIRROR against
    (docs/rules.md#red-threes)."""
    count = len(side.red_threes)
    if count == 0:
        return 0
    if red_threes_positive(ruleset, side):
        return red_three_figure(ruleset, count)
    if ruleset.red_three_penalty is RedThreePenalty.PER_CARD:
        return -count * ruleset.red_three_value
    return -red_three_figure(ruleset, count)


def card_in_hand_penalty(ruleset: Ruleset, card: str) -> int:
    """What one card left in hand adds to the score (≤ 0)."""
    if card in BLACK_THREES:
        return ruleset.black_three_in_hand
    if card in RED_THREES:
        return ruleset.red_three_in_hand
    return -VALUE.get(card, 0)


def hand_penalty(ruleset: Ruleset, hand: Iterable[str]) -> int:
    return sum(card_in_hand_penalty(ruleset, c) for c in hand)


def _natural_and_not(melds: Iterable[Meld], kind: Callable[[Meld], bool]) -> tuple[int, int]:
    """How many of ``melds`` are of ``kind`` and natural, and of ``kind`` with wilds."""
    natural = mixed = 0
    for m in melds:
        if kind(m):
            if vocabulary.is_natural(m.cards):
                natural += 1
            else:
                mixed += 1
    return natural, mixed


def side_score(snapshot: Snapshot, side: Side, result: Result | None) -> SideScore:
    rules = snapshot.ruleset
    meld_points = sum(VALUE.get(c, 0) for m in side.melds for c in m.cards)
    natural_canastas, mixed_canastas = _natural_and_not(side.melds, vocabulary.is_canasta)
    natural_sambas, open_sambas = _natural_and_not(side.melds, vocabulary.is_samba)
    bolivias = sum(1 for m in side.melds if vocabulary.is_bolivia(m))
    canasta_bonus = (
        natural_canastas * rules.natural_canasta_bonus + mixed_canastas * rules.mixed_canasta_bonus
    )
    samba_bonus = natural_sambas * rules.samba_bonus + open_sambas * rules.open_samba_bonus
    bolivia_bonus = bolivias * rules.bolivia_bonus
    red_points = red_three_points(rules, side)

    going_out = concealed = 0
    if (
        result is not None
        and result.reason is EndReason.WENT_OUT
        and result.seat is not None
        and result.seat in side.seats
    ):
        going_out = rules.go_out_bonus
        if result.concealed:
            concealed += rules.concealed_bonus
        if result.premium is not None:
            concealed += result.premium.points
    in_hand = sum(
        hand_penalty(rules, snapshot.seats[s].hand)
        for s in side.seats
        if 0 <= s < len(snapshot.seats)
    )
    penalties = sum(p.points for p in side.penalties)
    total = (
        meld_points
        + canasta_bonus
        + samba_bonus
        + bolivia_bonus
        + red_points
        + going_out
        + concealed
        + in_hand
        + penalties
    )
    return SideScore(
        side=side.side,
        meld_points=meld_points,
        natural_canastas=natural_canastas,
        mixed_canastas=mixed_canastas,
        sambas=natural_sambas + open_sambas,
        bolivias=bolivias,
        canasta_bonus=canasta_bonus,
        samba_bonus=samba_bonus,
        bolivia_bonus=bolivia_bonus,
        red_threes=len(side.red_threes),
        red_three_points=red_points,
        going_out_bonus=going_out,
        concealed_bonus=concealed,
        hand_penalty=in_hand,
        penalty_points=penalties,
        deal_total=total,
        match_total=side.match_score + total,
    )


def match_outcome(
    ruleset: Ruleset, players: int, deal_number: int, totals: list[int]
) -> tuple[bool, int | None, bool]:
    """(match_over, winner_side, draw) after a deal with these match totals
    (docs/rules.md#match-end)."""
    allowed = players in ruleset.players_allowed
    target = ruleset.table_size(players).target_score if allowed else None
    reached = target is not None and any(t >= target for t in totals)
    last_deal = ruleset.max_deals > 0 and deal_number >= ruleset.max_deals
    if not (reached or last_deal) or not totals:
        return False, None, False
    if not reached:
        return True, None, True  # max_deals ends the match as a draw
    top = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == top]
    if len(leaders) == 1:
        return True, leaders[0], False
    return True, None, True


def score(snapshot: Snapshot, provisional: bool = False) -> ScoreReport:
    """ScoreDeal (docs/api.md#methods): every side's itemised score and the match outcome.

    Raises InvalidInput: PHASE_INCONSISTENT when a final score is asked of an unfinished
    deal; kind HIDDEN_INFORMATION_REQUIRED when a hand is hidden (field
    ``snapshot.seats[i].hand``).
    """
    over = snapshot.turn.phase is Phase.OVER and snapshot.result is not None
    if not provisional and not over:
        raise InvalidInput(
            [
                Problem(
                    "snapshot.turn.phase",
                    "PHASE_INCONSISTENT",
                    "a final score needs a finished deal (phase OVER with a result); "
                    "ask with provisional: true to score an unfinished deal",
                )
            ]
        )
    hidden = [
        problem(
            f"snapshot.seats[{i}].hand",
            "HIDDEN_INFORMATION_REQUIRED",
            "scoring needs seat {seat}'s hand, which is hidden",
            seat=i,
        )
        for i, seat in enumerate(snapshot.seats)
        if seat.hand_hidden
    ]
    if hidden:
        raise InvalidInput(hidden, kind="HIDDEN_INFORMATION_REQUIRED")
    result = snapshot.result if over else Result(reason=EndReason.STOCK_EXHAUSTED)
    sides = tuple(side_score(snapshot, side, result) for side in snapshot.sides)
    match_over, winner, draw = match_outcome(
        snapshot.ruleset, snapshot.players, snapshot.deal_number, [s.match_total for s in sides]
    )
    return ScoreReport(
        sides=sides, match_over=match_over, winner_side=winner, draw=draw, provisional=not over
    )

"""The student: a small network that values STRONG's candidates from the seat's view only
(docs/bots.md#the-teacher-and-the-student).

``features(view, seat, action, rank)`` reads a candidate as numbers: what the position
looks like from the seat after the action (taken on the view's neutral world, whose hidden
cards are dealt in canonical order, so that only what the view shows counts: the melds, the
red 3s, the pile, every seat's hand count and known cards, the seat's own hand), what the
action does, and BASIC's rank of it. ``values`` weighs them by the network of
``engine.bots.student_weights`` (one hidden layer of rectified units), fitted by
bench/train_bots.py to the values a full-information teacher gave the same candidates
(bench/teacher.py), each less the mean of its decision's: so a value says how much better
than its rivals a candidate is, in final deal points. Plain Python: no training library at
run time; the weights are a data module compiled with the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..cards import BLACK_THREES, RANK, VALUE, WILD
from ..game import apply
from ..model import (
    Action,
    AnswerGoOut,
    Discard,
    DrawStock,
    GoOut,
    MeldCards,
    Phase,
    SideScore,
    Snapshot,
    SwapWild,
    TakePile,
    TakeTopCard,
)
from ..pile import is_frozen
from ..scoring import score
from ..vocabulary import SEVEN
from .basic import pair_risk
from .student_weights import HIDDEN, INPUT_MEAN, INPUT_SCALE, OUTPUT, OUTPUT_BIAS, WEIGHTS_1
from .table import seven_card_bonus
from .worlds import neutral_world

#: The features' names, in the order ``features`` gives them.
FEATURES: tuple[str, ...] = (
    "table_points",
    "sevens",
    "growing_cards",
    "growing_bonus",
    "opened",
    "hand_counts",
    "known_cards",
    "own_hand_cards",
    "own_hand_points",
    "own_wilds",
    "own_pairs",
    "own_singletons",
    "own_fits",
    "pile_for_drawer",
    "frozen_for_drawer",
    "stock_share",
    "over",
    "kind_draw_stock",
    "kind_take",
    "kind_meld",
    "kind_swap",
    "kind_discard",
    "kind_answer_yes",
    "kind_answer_no",
    "kind_other",
    "cards_laid",
    "pile_taken",
    "discard_points",
    "discard_wild",
    "discard_black_three",
    "discard_pair_risk",
    "discard_rank_left",
    "basic_rank",
)


def values(view: Snapshot, seat: int, actions: Sequence[Action]) -> list[float]:
    """The student's value of each of ``actions`` (BASIC's rank order: the first is
    BASIC's pick), each less their mean. All zero while no network is fitted."""
    if not OUTPUT:
        return [0.0] * len(actions)
    world = neutral_world(view)
    out = [evaluate(features(view, world, seat, a, rank)) for rank, a in enumerate(actions)]
    mean = sum(out) / len(out) if out else 0.0
    return [v - mean for v in out]


def evaluate(x: Sequence[float]) -> float:
    """The network's output for the features ``x``: standardized, one hidden layer of
    rectified units, a linear output."""
    z = [(xi - m) / s for xi, m, s in zip(x, INPUT_MEAN, INPUT_SCALE, strict=True)]
    total = OUTPUT_BIAS
    for j in range(len(HIDDEN)):
        row = WEIGHTS_1[j]
        h = HIDDEN[j]
        for i in range(len(z)):
            h += row[i] * z[i]
        if h > 0.0:
            total += OUTPUT[j] * h
    return total


def features(view: Snapshot, world: Snapshot, seat: int, action: Action, rank: int) -> list[float]:
    """The candidate ``action`` of ``seat`` as FEATURES: ``world`` is the view's neutral
    world (engine.bots.worlds.neutral_world), ``rank`` BASIC's rank of the action."""
    after = apply(world, action).snapshot
    side = view.seats[seat].side
    table = _table(after, side)
    hand = after.seats[seat].hand
    drawer = after.seats[_mover(after)].side if after.turn.phase is not Phase.OVER else side
    sign = 1.0 if drawer == side else -1.0
    pile = float(len(after.discard_pile))
    frozen = pile if after.discard_pile and is_frozen(after.ruleset, after, drawer) else 0.0
    pack = 52.0 * after.ruleset.decks + after.ruleset.jokers
    return (
        table
        + _own_hand(after, side, hand)
        + [
            sign * pile,
            sign * frozen,
            after.stock_count / pack,
            1.0 if after.turn.phase is Phase.OVER else 0.0,
        ]
        + _kind(action)
        + _action(view, seat, action, after)
        + [float(rank)]
    )


def _table(s: Snapshot, side: int) -> list[float]:
    """The public figures, the side's less the best other side's (by table points)."""
    report = score(s, provisional=True)
    figures = [_side(s, sc.side, sc) for sc in report.sides]
    mine = figures[side]
    others = [f for i, f in enumerate(figures) if i != side]
    theirs = max(others, key=lambda f: f[0]) if others else mine
    return [a - b for a, b in zip(mine, theirs, strict=True)]


def _side(s: Snapshot, side: int, sc: SideScore) -> list[float]:
    points = (
        sc.meld_points
        + sc.canasta_bonus
        + sc.samba_bonus
        + sc.bolivia_bonus
        + sc.red_three_points
        + sc.going_out_bonus
        + sc.concealed_bonus
        - sc.penalty_points
    )
    sevens = sc.natural_canastas + sc.mixed_canastas + sc.sambas + sc.bolivias
    cards = 0
    bonus = 0.0
    for meld in s.sides[side].melds:
        size = len(meld.cards)
        if 3 < size < SEVEN:
            cards += size - 3
            bonus += seven_card_bonus(s.ruleset, meld) * (size - 3) / 4.0
    seats = [x for x in s.seats if x.side == side]
    return [
        float(points),
        float(sevens),
        float(cards),
        bonus,
        1.0 if s.sides[side].melds else 0.0,
        float(sum(x.hand_count for x in seats)),
        float(sum(len(x.known) for x in seats)),
    ]


def _own_hand(s: Snapshot, side: int, hand: tuple[str, ...]) -> list[float]:
    """The seat's own hand: cards, points, wilds, ranks held twice or more, singletons,
    cards that fit a meld of its side's rank."""
    ranks = Counter([RANK[c] for c in hand if c not in WILD])
    melded = {RANK[c] for m in s.sides[side].melds for c in m.cards if c not in WILD}
    return [
        float(len(hand)),
        float(sum(VALUE[c] for c in hand)),
        float(sum(1 for c in hand if c in WILD)),
        float(sum(1 for n in ranks.values() if n >= 2)),
        float(sum(1 for n in ranks.values() if n == 1)),
        float(sum(n for r, n in ranks.items() if r in melded)),
    ]


def _kind(action: Action) -> list[float]:
    """One of: draw from the stock, take, meld, swap, discard, answer yes, answer no,
    other (ask)."""
    flags = [
        1.0 if isinstance(action, DrawStock) else 0.0,
        1.0 if isinstance(action, (TakePile, TakeTopCard)) else 0.0,
        1.0 if isinstance(action, MeldCards) else 0.0,
        1.0 if isinstance(action, SwapWild) else 0.0,
        1.0 if isinstance(action, Discard) else 0.0,
    ]
    yes = isinstance(action, AnswerGoOut) and action.allow
    no = isinstance(action, AnswerGoOut) and not action.allow
    flags += [1.0 if yes else 0.0, 1.0 if no else 0.0]
    flags.append(1.0 if sum(flags) == 0.0 else 0.0)
    return flags


def _action(view: Snapshot, seat: int, action: Action, after: Snapshot) -> list[float]:
    """What the action does: cards laid from the hand, the pile taken, and of a discard
    its points, wild or black 3, BASIC's risk that the next side pairs it, and how many
    of its rank stay in hand."""
    before = view.seats[seat].hand
    laid = 0.0
    if isinstance(action, MeldCards):
        laid = float(
            sum(len(m) for m in action.new_melds) + sum(len(a.cards) for a in action.additions)
        )
    taken = float(len(view.discard_pile)) if isinstance(action, (TakePile, TakeTopCard)) else 0.0
    if not isinstance(action, Discard):
        return [laid, taken, 0.0, 0.0, 0.0, 0.0, 0.0]
    card = action.card
    left = sum(1 for c in before if c not in WILD and RANK[c] == RANK[card]) - 1
    return [
        laid,
        taken,
        float(VALUE[card]),
        1.0 if card in WILD else 0.0,
        1.0 if card in BLACK_THREES else 0.0,
        pair_risk(view, seat, card),
        float(max(left, 0)) if card not in WILD else 0.0,
    ]


def _mover(s: Snapshot) -> int:
    if s.turn.go_out is GoOut.ASKED:
        return s.partners(s.turn.seat)[0]
    return s.turn.seat

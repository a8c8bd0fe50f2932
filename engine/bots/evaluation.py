"""A fitted evaluation: the deal's expected final margin from a position (docs/bots.md#strong).

``features(s, side)`` reads a full position as numbers, each from ``side``'s point of view
(its side's value minus the best other side's, or a table fact signed by who draws
next); ``fitted_margin`` weighs them by ``engine.bots.weights.WEIGHTS``, fitted by ordinary
least squares (a little ridge) on BASIC's self-play to the final deal margin
(bench/train_bots.py, ``make train-bots``). Pure: the weights are a Python data module.
"""

from __future__ import annotations

from ..cards import VALUE, WILD
from ..model import GoOut, Phase, Side, SideScore, Snapshot
from ..pile import is_frozen
from ..scoring import score
from ..vocabulary import SEVEN
from .table import seven_card_bonus
from .weights import WEIGHTS

#: The features' names, in the order ``features`` gives them and WEIGHTS weighs them.
FEATURES: tuple[str, ...] = (
    "meld_points",
    "bonus_points",
    "red_three_points",
    "penalty_points",
    "hand_penalty",
    "hand_cards",
    "sevens",
    "growing_melds",
    "growing_cards",
    "growing_bonus",
    "opened",
    "known_cards",
    "wilds_in_hand",
    "pile_for_drawer",
    "frozen_pile_for_drawer",
    "stock_x_table",
    "stock_x_hand_cards",
)


def features(s: Snapshot, side: int) -> list[float]:
    """``s`` (a full position, its deal not over) as FEATURES, for ``side``: each side's
    figure minus that of the other side with the highest provisional deal total; the pile
    (and the pile frozen for the drawer) counted for the side that draws next, against the
    other; the table and the hand cards weighed by the share of the pack still in the
    stock (early leads can still change)."""
    report = score(s, provisional=True)
    others = [sc for sc in report.sides if sc.side != side]
    other = max(others, key=lambda sc: sc.deal_total).side if others else side
    mine = _side_figures(s, side, report.sides[side])
    theirs = _side_figures(s, other, report.sides[other])
    diff = [a - b for a, b in zip(mine, theirs, strict=True)]
    drawer = s.seats[_mover(s)].side
    sign = 1.0 if drawer == side else -1.0
    pile = float(len(s.discard_pile))
    frozen = pile if s.discard_pile and is_frozen(s.ruleset, s, drawer) else 0.0
    pack = 52.0 * s.ruleset.decks + s.ruleset.jokers
    stock_share = s.stock_count / pack
    table = diff[0] + diff[1] + diff[2] - diff[3]
    return diff + [sign * pile, sign * frozen, stock_share * table, stock_share * diff[5]]


def _side_figures(s: Snapshot, side: int, sc: SideScore) -> list[float]:
    """One side's figures, in FEATURES' order up to ``wilds_in_hand``."""
    held = [c for seat in s.seats if seat.side == side for c in seat.hand]
    known = sum(len(seat.known) for seat in s.seats if seat.side == side)
    growing, cards, bonus = _growing(s, s.sides[side])
    sevens = sc.natural_canastas + sc.mixed_canastas + sc.sambas + sc.bolivias
    return [
        float(sc.meld_points),
        float(sc.canasta_bonus + sc.samba_bonus + sc.bolivia_bonus),
        float(sc.red_three_points),
        float(sc.penalty_points),
        float(sum(VALUE[c] for c in held)),
        float(len(held)),
        float(sevens),
        float(growing),
        float(cards),
        bonus,
        1.0 if s.sides[side].melds else 0.0,
        float(known),
        float(sum(1 for c in held if c in WILD)),
    ]


def _growing(s: Snapshot, side: Side) -> tuple[int, int, float]:
    """(melds of four to six cards, their cards beyond three, the share of their seven-card
    bonus those cards make: bonus × (size − 3) / 4)."""
    melds = 0
    cards = 0
    bonus = 0.0
    for meld in side.melds:
        size = len(meld.cards)
        if 3 < size < SEVEN:
            melds += 1
            cards += size - 3
            bonus += seven_card_bonus(s.ruleset, meld) * (size - 3) / 4.0
    return melds, cards, bonus


def _mover(s: Snapshot) -> int:
    """The seat that acts next (the first partner while "may I go out?" is open)."""
    if s.turn.go_out is GoOut.ASKED:
        return s.partners(s.turn.seat)[0]
    return s.turn.seat


def fitted_margin(s: Snapshot, side: int) -> float:
    """The fitted model's expected final margin of ``side`` (its deal total minus the best
    other side's) from ``s``; a finished deal's real margin."""
    if s.turn.phase is Phase.OVER:
        totals = [sc.deal_total for sc in score(s).sides]
        return float(totals[side] - max(t for i, t in enumerate(totals) if i != side))
    return sum(w * x for w, x in zip(WEIGHTS, features(s, side), strict=True))

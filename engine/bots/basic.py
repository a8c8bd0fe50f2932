"""BASIC: a club player's rules of thumb, one rating per legal action, no search
(docs/bots.md#basic).

- Draw: take the pile when it holds ``RICH_PILE`` cards or more (the take that spends the
  fewest wilds and hand cards), else draw from the stock.
- Play: go out when ahead; complete canastas and sambas first, then grow melds with
  naturals, open when the hand allows; spend wilds only to complete a seven-card meld;
  keep one card beyond the hand floor, or ``KEEP_FOR_PAIRS`` where only hand cards take
  the pile (``take_by_extending_meld`` NOT_ALLOWED: pairs held for it); never ask "may I
  go out?".
- Discard: a card the next side cannot take the pile with (it extends none of its
  melds, and, where a natural pair takes the pile, few of its rank are unseen and the next
  seat is not known to hold one), preferring black 3s, singletons and low cards; a wild
  only to freeze a rich pile when behind.
- A partner's "may I go out?": yes when the side is ahead on the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import BLACK_THREES, RANK, RED_THREES, VALUE, WILD
from ..deadline import checkpoint
from ..model import (
    Action,
    AnswerGoOut,
    AskGoOut,
    Discard,
    MeldCards,
    Phase,
    Snapshot,
    SwapWild,
    TakePile,
    TakeTopCard,
)
from ..ruleset import ExtendTake, FreezeModel, Ruleset
from ..shapes import CHECK_EVERY
from ..vocabulary import SEVEN
from .choice import Rated, reason
from .table import (
    empties_hand,
    feeds_side,
    hand_of,
    lead,
    next_opponent,
    rank_counts,
    take_cost,
    wilds_in,
)

#: A pile worth taking holds at least this many cards.
RICH_PILE = 3
#: A pile worth freezing with a wild, when behind.
FREEZE_PILE = 6
#: Cards BASIC keeps in hand after melding (the hand floor is two; one more keeps options).
KEEP = 3


def choose(view: Snapshot, seat: int, legal: Sequence[Action]) -> Rated:
    """BASIC's action: the best rated, the first listed among equals."""
    rated = rate_all(view, seat, legal)
    best = rated[0]
    for r in rated[1:]:
        if r.rating > best.rating:
            best = r
    return best


def rate_all(view: Snapshot, seat: int, legal: Sequence[Action]) -> list[Rated]:
    """Every legal action rated, in the list's order (a huge hand's tens of thousands
    looking at the deadline as they go: engine.deadline)."""
    if view.turn.phase is Phase.DRAW:
        return [_rate_draw(view, a) for a in legal]
    ahead = lead(view, seat) >= 0
    rated: list[Rated] = []
    for start in range(0, len(legal), CHECK_EVERY):
        checkpoint()
        rated += [_rate_play(view, seat, a, ahead) for a in legal[start : start + CHECK_EVERY]]
    return rated


def _rate_draw(view: Snapshot, action: Action) -> Rated:
    pile = len(view.discard_pile)
    if isinstance(action, TakePile):
        wilds, spent = take_cost(action)
        rating = 10.0 * pile - 8.0 * wilds - spent if pile >= RICH_PILE else -1.0 - wilds
        return Rated(action, rating, reason("TAKE_PILE", cards=pile))
    if isinstance(action, TakeTopCard):
        return Rated(action, -0.5, reason("TAKE_TOP_CARD"))
    return Rated(action, 0.0, reason("DRAW_STOCK"))


def _rate_play(view: Snapshot, seat: int, action: Action, ahead: bool) -> Rated:
    if isinstance(action, AnswerGoOut):
        if action.allow == ahead:
            # 0: yes, the side is ahead; 1: no, it is behind; 2: the other answer
            return Rated(action, 1.0, reason("ANSWER_GO_OUT", 0 if ahead else 1))
        return Rated(action, 0.0, reason("ANSWER_GO_OUT", 2))
    if empties_hand(view, seat, action):
        rating = 1000.0 if ahead else -50.0
        return Rated(action, rating, reason("GO_OUT"))
    if isinstance(action, MeldCards):
        return _rate_meld(view, seat, action)
    if isinstance(action, SwapWild):
        return Rated(action, 15.0, reason("SWAP_WILD"))
    if isinstance(action, Discard):
        return _rate_discard(view, seat, action, ahead)
    if isinstance(action, AskGoOut):
        return Rated(action, -1000.0, reason("ASK_GO_OUT"))
    return Rated(action, -1000.0, reason("OTHER"))


def _rate_meld(view: Snapshot, seat: int, action: MeldCards) -> Rated:
    side = view.sides[view.seats[seat].side]
    rules = view.ruleset
    melds = {m.id: m for m in side.melds}
    laid = [c for m in action.new_melds for c in m] + [c for a in action.additions for c in a.cards]
    wilds = wilds_in(laid)
    completes = 0
    for a in action.additions:
        meld = melds.get(a.meld_id)
        if meld is not None and len(meld.cards) < SEVEN <= len(meld.cards) + len(a.cards):
            completes += 1
    completes += sum(1 for m in action.new_melds if len(m) >= SEVEN)
    rating = 2.0 * sum(VALUE[c] for c in laid if c not in WILD) / 5.0 + len(laid)
    rating -= 25.0 * wilds
    if completes:
        rating += 60.0 * completes + 20.0 * wilds
        said = reason("COMPLETE_SEVEN")
    elif not side.melds:
        rating += 40.0 - 10.0 * len(action.new_melds)
        said = reason("OPEN")
    else:
        said = reason("MELD")
    left = len(hand_of(view, seat)) - len(laid)
    if left < _keep(rules) and not completes:
        rating -= 30.0
    if rules.black_three_group_max and any(c in BLACK_THREES for c in laid):
        rating -= 5.0
    return Rated(action, rating, said)


#: Per unseen natural of the discard's rank, what a pair-take risk costs (pile of four).
PAIR_RISK = 1.5


def pair_risk(view: Snapshot, seat: int, card: str) -> float:
    """How likely the next side takes the pile with a pair of ``card``'s rank (the rules
    take by a natural pair: ``take_natural_pair``), weighed by the pile's size: the naturals of
    the rank the seat cannot see, and more when the next seat is known to hold one (it took
    it with the pile: ``Seat.known``)."""
    rules = view.ruleset
    if not rules.take_natural_pair:
        return 0.0
    rank = RANK[card]
    seen = sum(1 for c in hand_of(view, seat) if RANK[c] == rank)
    seen += sum(1 for c in view.discard_pile if RANK[c] == rank)
    for side in view.sides:
        for meld in side.melds:
            seen += sum(1 for c in meld.cards if RANK[c] == rank)
    unseen = max(0, 4 * rules.decks - seen)
    risk = PAIR_RISK * unseen * (1 + len(view.discard_pile)) / 5.0
    if any(RANK[c] == rank for c in view.seats[next_opponent(view, seat)].known):
        risk += 30.0
    return risk


#: Cards BASIC keeps in hand where only hand cards take the pile (``_keep``): measured
#: best of 3, 5, 7, 9 and 12 against RANDOM at canasta and pagat (docs/bots.md#basic).
KEEP_FOR_PAIRS = 12


def _keep(rules: Ruleset) -> int:
    """Cards to keep in hand after melding: more where only hand cards take the pile (no
    take by a meld on the table: ``take_by_extending_meld``), to hold pairs for it."""
    if rules.take_by_extending_meld is ExtendTake.NOT_ALLOWED:
        return KEEP_FOR_PAIRS
    return KEEP


def _rate_discard(view: Snapshot, seat: int, action: Discard, ahead: bool) -> Rated:
    card = action.card
    hand = hand_of(view, seat)
    opponent = view.sides[view.seats[next_opponent(view, seat)].side]
    pile = len(view.discard_pile)
    if card in WILD:
        freezes = view.ruleset.freeze is not FreezeModel.NEVER
        if freezes and not ahead and pile >= FREEZE_PILE:
            return Rated(action, 5.0, reason("FREEZE_PILE"))
        return Rated(action, -40.0 - 0.1 * VALUE[card], reason("DISCARD"))
    if card in BLACK_THREES:
        return Rated(action, 3.0, reason("SAFE_DISCARD", 0))
    if card in RED_THREES:
        return Rated(action, 2.0, reason("SAFE_DISCARD", 1))
    rating = -0.1 * VALUE[card]
    if feeds_side(view.ruleset, opponent, card):
        rating -= 30.0
    rating -= pair_risk(view, seat, card)
    same = rank_counts(hand)[RANK[card]]
    rating += 2.0 if same == 1 else -6.0 * (same - 1)
    return Rated(action, rating, reason("SAFE_DISCARD", 2))


__all__ = ["choose", "rate_all", "RICH_PILE"]

"""The draw's few choices: what a computer player weighs at a draw without listing every
way to take the pile (docs/bots.md#the-draw).

A hand of a hundred cards can take the pile in tens of thousands of ways (each set of
naturals and wilds of the top card's rank, each with every initial meld it could complete):
listing them all costs seconds, while the levels only ever want the cheap ones. The
choices are: the draw from the stock; the top card onto each run and the pile onto each of
the side's melds (when the rules allow them); and the pile taken with hand cards of the
top card's rank, the fewest wilds and then the fewest cards first: the takes of the first
such set, alone when it is worth the initial meld, else with the fewest further melds
that make it (for at most ``HAND_SETS`` sets), at most ``TAKES`` takes in all. Each choice is
checked by ``engine.game.validate``: every one is legal.
"""

from __future__ import annotations

from collections import Counter

from .. import pile as P
from ..action_order import sort_key
from ..cards import BLACK_THREES, RANK, WILD, points
from ..deadline import checkpoint
from ..game import validate
from ..legal import legal_actions
from ..model import Action, DrawStock, GoOut, MeldKind, Phase, Snapshot, TakePile, TakeTopCard
from ..shapes import initial_meld_combos, submultisets
from ..table_rules import initial_meld_requirement
from ..takes import owes_hidden_replacements
from .plays import play_choices

#: Takes with hand cards kept: a few, so that a search has rivals to weigh.
TAKES = 4
#: Sets of hand cards worth less than the initial meld that are tried with the melds
#: they need (each such try costs a search of combinations).
HAND_SETS = 4


def choices(s: Snapshot, seat: int) -> list[Action]:
    """What the levels choose from: at the seat's draw its few draw choices
    (engine.bots.draws), at its play one meld of each kind BASIC tells apart
    (engine.bots.plays), otherwise (an answer to "may I go out?") every legal action."""
    t = s.turn
    if t.go_out is not GoOut.ASKED and seat == t.seat:
        if t.phase is Phase.DRAW:
            return draw_choices(s, seat)
        if t.phase is Phase.PLAY:
            return play_choices(s, seat) or legal_actions(s, seat)[0]
    return legal_actions(s, seat)[0]


def draw_choices(s: Snapshot, seat: int) -> list[Action]:
    """The seat's legal draw choices (module docstring), in the legal list's order. ``s`` is a full
    position (a view with its hidden cards dealt) in the DRAW phase, ``seat`` to draw."""
    rules = s.ruleset
    top = P.top_card(s)
    checked: list[Action] = [DrawStock(seat)]
    if owes_hidden_replacements(s, seat) or top is None or P.is_blocked(rules, s):
        return [a for a in checked if not validate(s, a)]
    side = s.sides[s.seats[seat].side]
    for meld in side.melds:
        checked.append(TakePile(seat, meld_id=meld.id))
        if meld.kind is MeldKind.RUN and rules.take_top_card_to_run:
            checked.append(TakeTopCard(seat, meld.id))
    out = [a for a in checked if not validate(s, a)]
    if top not in WILD and top not in BLACK_THREES and RANK[top] != "3":
        out += _hand_takes(s, seat, top)
    out.sort(key=sort_key)  # the legal list's order
    return out


def _hand_takes(s: Snapshot, seat: int, top: str) -> list[Action]:
    """The cheapest legal takes with hand cards (at most TAKES): among the first
    HAND_SETS sets of hand cards, fewest wilds then fewest cards first, each set alone or
    with the initial melds it needs, ranked by the wilds and then the cards they spend."""
    rules = s.ruleset
    side = s.sides[s.seats[seat].side]
    hand = Counter(s.seats[seat].hand)
    rank = RANK[top]
    naturals = Counter({c: n for c, n in hand.items() if c not in WILD and RANK[c] == rank})
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    need = 0 if side.opened else initial_meld_requirement(rules, side)
    sets = [
        nat + wl
        for nat in submultisets(naturals, 1, sum(naturals.values()))
        for wl in submultisets(wilds, 0, min(rules.group_max_wilds, sum(wilds.values())))
        if len(nat) + len(wl) >= 2
    ]
    sets.sort(key=_cost)
    top_points = points((top,))
    alone = [cards for cards in sets if points(cards) + top_points >= need]
    takes = [TakePile(seat, hand_cards=cards) for cards in alone]
    best = _cost(alone[0]) if alone else None
    short = [cards for cards in sets if points(cards) + top_points < need]
    for cards in short[:HAND_SETS]:
        checkpoint()
        wilds_spent, spent = _cost(cards)
        if best is not None and (wilds_spent, spent + 3) >= best:
            break  # with a meld of three more cards it cannot be cheaper
        rest = hand - Counter(cards)
        got = points(cards) + top_points
        combos, _ = initial_meld_combos(s, seat, rest, need - got)
        takes += [TakePile(seat, hand_cards=cards, new_melds=c) for c in combos]
    # equal costs in the legal list's order, as BASIC takes the first listed of equals
    takes.sort(
        key=lambda a: (_cost(a.hand_cards + tuple(c for m in a.new_melds for c in m)), sort_key(a))
    )
    legal: list[Action] = []
    for a in takes:
        if len(legal) == TAKES:
            break
        if not validate(s, a):
            legal.append(a)
    return legal


def _cost(cards: tuple[str, ...]) -> tuple[int, int]:
    """(wilds, cards) spent: the fewer the better."""
    return sum(1 for c in cards if c in WILD), len(cards)

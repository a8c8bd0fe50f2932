"""The play's choices: what a computer player weighs in the PLAY phase without listing
every legal action (docs/bots.md#the-play).

A hand of a hundred and fifty cards can lay tens of thousands of melds (every set of
naturals of a rank with every set of wilds, each addition likewise): listing them costs
the better part of a second, while BASIC rates a meld only by what it lays (the points
of its naturals, how many cards and wilds, whether it completes a seven-card meld,
black 3s, what it leaves in hand). Melds that lay the same (the same meld grown, naturals
of the same values, as many wilds, black 3s or not) rate alike, and BASIC takes the first
listed among equals, so one of each such class is enough: the first in the legal list's
order that ``engine.game.validate`` finds legal. Groups and additions to groups are made
class by class (a rank's first ``n`` naturals in canonical order, with each set of ``w``
wilds in the list's order until one is legal), never as the whole list; runs and the few
other shapes are made whole and kept one a class. Every discard, the wild swaps and "may
I go out?" are kept as listed. Before the side has opened, a meld's points decide whether
it makes the initial meld and its melds must not need the same cards: wilds of different
points are told apart, groups keep ``OPENING_VARIANTS`` sets of suits of each size and
runs their very naturals; the initial melds are the first of each class worth the
requirement alone and the combinations of these shapes that make it
(engine.shapes.initial_meld_combos).

Every choice is checked as the listing checks its candidates (``validate``, or the
listing's shortcut past it, ``engine.legal.QuickCheck``): all are legal, in the legal
list's order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from .. import melds as M
from ..action_order import action_key, cards_key, sort_key
from ..cards import BLACK_THREES, ORDER, RANK, RUN_INDEX, VALUE, WILD, points
from ..deadline import checkpoint
from ..legal import QuickCheck
from ..model import (
    Action,
    Addition,
    AskGoOut,
    Discard,
    Meld,
    MeldCards,
    MeldKind,
    Side,
    Snapshot,
    SwapWild,
)
from ..ruleset import GroupsPerRank
from ..shapes import CHECK_EVERY, addition_shapes, initial_meld_combos, other_shapes, submultisets
from ..table_rules import initial_meld_requirement
from ..vocabulary import SEVEN

#: Before the side has opened, the sets of a rank's naturals of one size tried.
OPENING_VARIANTS = 8
#: A card multiset a meld action lays.
Shape = tuple[str, ...]
#: Whether a shape is legal (as the meld action the caller makes of it).
Legal = Callable[[Shape], bool]


def play_choices(s: Snapshot, seat: int) -> list[Action]:
    """The seat's legal play choices (module docstring), in the legal list's order. ``s``
    is a full position (a view with its hidden cards dealt) in the PLAY phase, ``seat``
    to play. Empty only when nothing of these is legal."""
    side = s.sides[s.seats[seat].side]
    hand = Counter(s.seats[seat].hand)
    out: list[Action] = []
    quick = QuickCheck(s, seat)
    wild_sets = _wild_sets(hand, s.ruleset.group_max_wilds)
    shapes = _new_melds(s, quick, seat, hand, wild_sets)
    if side.opened:
        out += [MeldCards(seat, new_melds=(m,)) for m in shapes]
        for meld in side.melds:
            out += [
                MeldCards(seat, additions=(Addition(meld.id, c),))
                for c in _additions(s, quick, seat, hand, meld, wild_sets)
            ]
        if s.ruleset.wild_swap:
            out += [a for a in _swaps(seat, hand, side) if quick.legal(a)]
    else:
        out += _openings(s, quick, seat, hand, side, shapes)
    out += [a for a in [Discard(seat, c) for c in hand] if quick.legal(a)]
    if quick.legal(AskGoOut(seat)):
        out.append(AskGoOut(seat))
    unique = {action_key(a): a for a in reversed(out)}
    return sorted(unique.values(), key=sort_key)


def _openings(
    s: Snapshot, quick: QuickCheck, seat: int, hand: Counter[str], side: Side, shapes: list[Shape]
) -> list[Action]:
    """Initial melds: the first shape of each class worth the requirement alone, and the
    combinations of the shapes that make it (engine.shapes.initial_meld_combos), each
    validated."""
    need = initial_meld_requirement(s.ruleset, side)
    firsts: dict[tuple[object, ...], Shape] = {}
    for m in sorted((m for m in shapes if points(m) >= need), key=cards_key, reverse=True):
        firsts[_class_of(m)] = m  # the first in listing order of each class stays
    alone: list[Action] = [MeldCards(seat, new_melds=(m,)) for m in firsts.values()]
    combos, _ = initial_meld_combos(s, seat, hand, need, shapes=list(shapes))
    combined: list[Action] = [MeldCards(seat, new_melds=c) for c in combos if len(c) > 1]
    return _legal(quick, alone + combined)


def _legal(quick: QuickCheck, actions: list[Action]) -> list[Action]:
    out: list[Action] = []
    for start in range(0, len(actions), CHECK_EVERY):
        checkpoint()
        out += [a for a in actions[start : start + CHECK_EVERY] if quick.legal(a)]
    return out


def _new_melds(
    s: Snapshot, quick: QuickCheck, seat: int, hand: Counter[str], wild_sets: list[list[Shape]]
) -> list[Shape]:
    """One legal new meld of each class (groups made class by class, the other shapes
    whole); before the side has opened, of each class the first whose content is a meld
    (the opening validates their combinations)."""
    rules = s.ruleset
    side = s.sides[s.seats[seat].side]
    merge_ranks: set[str | None] = set()
    if rules.groups_per_rank is GroupsPerRank.ONE:
        merge_ranks = {M.group_rank(m.cards) for m in side.melds if m.kind is MeldKind.GROUP}
    rule = M.WILD_RULES[rules.group_wild_rule]
    opened = side.opened

    def legal(cards: Shape) -> bool:
        if not opened:
            return not M.check_new(rules, cards)[2]
        return quick.legal(MeldCards(seat, new_melds=(cards,)))

    out: list[Shape] = []
    for nats in _naturals_by_rank(hand):
        checkpoint()
        merging = RANK[nats[0]] in merge_ranks
        for n in range(1 if merging else 2, len(nats) + 1):
            for w, sets in enumerate(wild_sets):
                if merging or (n + w >= 3 and (not w or rule(n, w))):
                    out += _groups(legal, nats, n, sets, opened)
    out += _one_a_class(legal, other_shapes(s, hand), exact=not opened)
    return out


def _groups(legal: Legal, nats: Shape, n: int, sets: list[Shape], opened: bool) -> list[Shape]:
    """The groups of ``n`` of the rank's naturals ``nats`` and a set of wilds of
    ``sets``: once the side has opened the first legal (BASIC rates them alike), before it
    the first of each suit variant and wilds' worth (the initial meld counts points, and
    its melds must not need the same cards)."""
    out: list[Shape] = []
    for nat in _suit_variants(nats, n) if not opened else [nats[:n]]:
        for group in _by_worth(sets) if not opened else [sets]:
            found = _first(legal, [nat + wl for wl in group])
            if found is not None:
                out.append(found)
    return out


def _additions(
    s: Snapshot,
    quick: QuickCheck,
    seat: int,
    hand: Counter[str],
    meld: Meld,
    wild_sets: list[list[Shape]],
) -> list[Shape]:
    """One legal addition to ``meld`` of each class (``wild_sets``: _wild_sets of the
    hand for the most wilds a group holds)."""

    def legal(cards: Shape) -> bool:
        return quick.legal(MeldCards(seat, additions=(Addition(meld.id, cards),)))

    if meld.kind is not MeldKind.GROUP:
        return _one_a_class(legal, addition_shapes(s, hand, meld))
    rank = M.group_rank(meld.cards)
    nats = _sorted_cards([c for c in hand.elements() if c not in WILD and RANK[c] == rank])
    room = max(0, s.ruleset.group_max_wilds - M.wild_count(meld.cards))
    out: list[Shape] = []
    for n in range(len(nats) + 1):
        checkpoint()
        for w, sets in enumerate(wild_sets[: room + 1]):
            if n + w:
                found = _first(legal, [nats[:n] + wl for wl in sets])
                if found is not None:
                    out.append(found)
    return out


def _swaps(seat: int, hand: Counter[str], side: Side) -> Iterator[Action]:
    for meld in side.melds:
        if meld.kind is MeldKind.GROUP and len(meld.cards) < SEVEN:
            rank = M.group_rank(meld.cards)
            for wild in sorted({c for c in meld.cards if c in WILD}, key=ORDER.__getitem__):
                for nat in hand:
                    if nat not in WILD and RANK[nat] == rank:
                        yield SwapWild(seat, meld.id, nat, wild)


def _naturals_by_rank(hand: Counter[str]) -> list[Shape]:
    """Each rank's naturals the hand holds (group ranks only), canonical order."""
    by_rank: dict[str, list[str]] = {}
    for c in hand.elements():
        if c not in WILD and RANK[c] in RUN_INDEX:
            by_rank.setdefault(RANK[c], []).append(c)
    return [_sorted_cards(cards) for cards in by_rank.values()]


def _wild_sets(hand: Counter[str], most: int) -> list[list[Shape]]:
    """The sets of ``w`` wilds from the hand, for each ``w`` in 0..most, canonical order."""
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    sets: list[list[Shape]] = [[] for _ in range(min(most, sum(wilds.values())) + 1)]
    for wl in submultisets(wilds, 0, len(sets) - 1):
        sets[len(wl)].append(wl)
    return [sorted(group, key=cards_key) for group in sets]


def _suit_variants(nats: Shape, n: int) -> list[Shape]:
    """Sets of ``n`` of a rank's naturals ``nats``: only the first, in listing order,
    once the side has opened (BASIC rates them alike); before, the first
    ``OPENING_VARIANTS``, so that an initial meld of several melds (a run and a group
    sharing a card's rank) finds the suits it needs."""
    counts = Counter(nats)
    return sorted(submultisets(counts, n, n), key=cards_key)[:OPENING_VARIANTS]


def _by_worth(sets: list[Shape]) -> list[list[Shape]]:
    """``sets`` of wilds split by their points: BASIC rates them alike, but before the
    side has opened a meld's points decide whether it makes the initial meld."""
    worths: dict[int, list[Shape]] = {}
    for wl in sets:
        worths.setdefault(points(wl), []).append(wl)
    return list(worths.values())


def _sorted_cards(cards: Iterable[str]) -> Shape:
    return tuple(sorted(cards, key=ORDER.__getitem__))


def _first(legal: Legal, shapes: Iterable[Shape]) -> Shape | None:
    """The first of ``shapes`` in listing order that is legal (the first is, mostly)."""
    keyed = [(cards_key(cards), cards) for cards in shapes]
    if not keyed:
        return None
    first = min(keyed)[1]
    if legal(first):
        return first
    for _, cards in sorted(keyed):
        if legal(cards):
            return cards
    return None


def _one_a_class(legal: Legal, shapes: Iterable[Shape], exact: bool = False) -> list[Shape]:
    """The first legal shape of each class: BASIC rates alike the shapes with naturals of
    the same values, as many wilds and black 3s or not (wilds of the same points here,
    which the initial meld counts). ``exact``: the same naturals, not only their values
    (an initial meld of two runs of the same values needs both)."""
    classes: dict[tuple[object, ...], list[Shape]] = {}
    for cards in shapes:
        key = _class_of(cards)
        if exact:
            key = (*key, tuple(c for c in cards if c not in WILD))
        classes.setdefault(key, []).append(cards)
    out: list[Shape] = []
    for group in classes.values():
        checkpoint()
        found = _first(legal, group)
        if found is not None:
            out.append(found)
    return out


def _class_of(cards: Shape) -> tuple[object, ...]:
    values = sorted(VALUE[c] for c in cards if c not in WILD)
    wilds = sorted(VALUE[c] for c in cards if c in WILD)  # points: the initial meld
    return tuple(values), tuple(wilds), any(c in BLACK_THREES for c in cards)

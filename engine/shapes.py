"""The shapes legal actions are made of (docs/api.md#legal-actions): card multisets of
a hand that could be a new meld, an addition to a meld, or an opening combination.

Shapes are candidates: engine.legal keeps only those ``validate`` finds legal, so a shape
here may be too generous but never too strict.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import combinations, product

from . import melds as M
from . import penalties
from .action_order import cards_key
from .deadline import checkpoint
from .cards import BLACK_THREES, ORDER, RANK, RUN_INDEX, RUN_ORDER, SUIT, WILD, points
from .model import Meld, MeldKind, Side, Snapshot
from .ruleset import GroupsPerRank, Ruleset
from .vocabulary import SEVEN

#: Opening combinations hold at most this many melds (engine.legal docstring).
MAX_OPENING_MELDS = 3
#: At most this many combinations are examined; the list is then marked incomplete.
MAX_OPENING_CANDIDATES = 4000
#: Candidates examined between two looks at the caller's deadline (engine.deadline).
CHECK_EVERY = 512

#: A group of naturals ``nat`` and the wild choices that fit it (group_batches).
Fitting = list[tuple[tuple[str, ...], bytes, bytes, bool]]


def opening_combos(s: Snapshot, seat: int, hand: Counter[str], need: int,
                    shapes: list[tuple[str, ...]] | None = None
                    ) -> tuple[list[tuple[tuple[str, ...], ...]], bool]:
    """Minimal sets of new melds from ``hand`` worth ``need`` points together."""
    side = s.sides[s.seats[seat].side]
    if shapes is None:
        shapes = list(new_meld_shapes(s, hand, side))
    shapes, worth = _by_worth([m for m in shapes if not all(c in BLACK_THREES for c in m)])
    found: list[tuple[tuple[str, ...], ...]] = []
    examined = 0
    for size in range(1, MAX_OPENING_MELDS + 1):
        # The combinations of the indices and of their worths come in step.
        for combo, values in zip(combinations(range(len(shapes)), size),
                                 combinations(worth, size), strict=True):
            examined += 1
            if examined > MAX_OPENING_CANDIDATES:
                return found, False
            if not examined % CHECK_EVERY:
                checkpoint()
            total = sum(values)
            if total < need or (size > 1 and total - min(values) >= need):
                continue  # short, or not minimal
            melds = tuple(shapes[i] for i in combo)
            if size > 1:
                used: Counter[str] = Counter()
                for m in melds:
                    used.update(m)
                if used - hand:
                    continue
            found.append(melds)
    return found, True


def _by_worth(shapes: list[tuple[str, ...]]) -> tuple[list[tuple[str, ...]], list[int]]:
    """The shapes worth most first (then in canonical card order), and their worths.

    Worths and sort keys in chunks, each worth computed once: a huge hand has tens of
    thousands of shapes, and the caller's deadline is looked at between chunks."""
    worths: list[int] = []
    keys: list[tuple[int, list[int]]] = []
    for start in range(0, len(shapes), CHECK_EVERY):
        checkpoint()
        chunk = shapes[start:start + CHECK_EVERY]
        values = [points(m) for m in chunk]
        worths += values
        keys += [(-w, [ORDER[c] for c in m]) for w, m in zip(values, chunk, strict=True)]
    order = sorted(range(len(shapes)), key=keys.__getitem__)
    checkpoint()
    return [shapes[i] for i in order], [worths[i] for i in order]


def new_meld_shapes(s: Snapshot, hand: Counter[str], side: Side) -> Iterator[tuple[str, ...]]:
    """Card multisets that could be a new meld (content is re-checked by validate)."""
    for nat, _nat_key, fitting in group_batches(s, hand, side):
        for wilds, _below, _above, _checked in fitting:
            yield nat + wilds
    yield from other_shapes(s, hand)


def group_batches(s: Snapshot, hand: Counter[str], side: Side
                  ) -> Iterator[tuple[tuple[str, ...], bytes, Fitting]]:
    """Groups of one natural rank plus wilds, batched by their naturals: for each
    ``(nat, nat_key, fitting)``, every ``(wilds, below, above, checked)`` of ``fitting``
    is the group ``nat + wilds``, whose ``cards_key`` is ``below + nat_key + above``;
    ``checked``: its content already satisfies the wild rule and the wild cap (false for a
    rank the side's group would absorb)."""
    rules = s.ruleset
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    wild_total = sum(wilds.values())
    by_rank: dict[str, Counter[str]] = {}
    for c, n in hand.items():
        if c not in WILD and RANK[c] in RUN_INDEX:
            by_rank.setdefault(RANK[c], Counter())[c] = n
    merge_ranks: set[str | None] = set()
    if rules.groups_per_rank is GroupsPerRank.ONE:
        merge_ranks = {M.group_rank(m.cards) for m in side.melds if m.kind is MeldKind.GROUP}
    rule = M.WILD_RULES[rules.group_wild_rule]
    penalised = penalties.enabled(rules)  # three wilds carry a penalty: let validate judge
    wild_choices = [(wl, cards_key(wl)) for wl in submultisets(
        wilds, 0, min(rules.group_max_wilds, wild_total))]
    for rank, nats in by_rank.items():
        merging = rank in merge_ranks
        # The ORDER values of one natural rank are consecutive and no wild's falls among
        # them, so a group's cards key is the wilds below the rank, then the naturals (in
        # canonical order already), then the wilds above: the wilds' cards key cut where
        # the rank's values would go.
        lowest = ORDER[rank + "S"]
        wild_parts: list[tuple[tuple[str, ...], bytes, bytes]] = []
        for wl, wild_key in wild_choices:
            cut = bisect_left(wild_key, lowest)
            wild_parts.append((wl, wild_key[:cut], wild_key[cut:]))
        fitting_by_size: dict[int, Fitting] = {}
        for nat in submultisets(nats, 1 if merging else 2, sum(nats.values())):
            n = len(nat)
            if n not in fitting_by_size:
                fitting_by_size[n] = _fitting(n, merging, wild_parts, rule, penalised)
            yield nat, bytes([ORDER[c] for c in nat]), fitting_by_size[n]


def _fitting(n: int, merging: bool, wild_parts: list[tuple[tuple[str, ...], bytes, bytes]],
             rule: Callable[[int, int], bool], penalised: bool) -> Fitting:
    """The wild choices a group of ``n`` naturals can take: a content prefilter (the wild
    rule on counts); validate re-checks merges and penalised groups."""
    if merging:
        return [(wl, below, above, False) for wl, below, above in wild_parts]
    return [(wl, below, above, not (penalised and len(wl) >= 3))
            for wl, below, above in wild_parts
            if n + len(wl) >= 3 and (not wl or rule(n, len(wl)))]


def other_shapes(s: Snapshot, hand: Counter[str]) -> Iterator[tuple[str, ...]]:
    """Runs, black-3 groups and wild-only groups the hand could lay."""
    rules = s.ruleset
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    wild_total = sum(wilds.values())
    if rules.runs_allowed:
        yield from run_shapes(hand, rules.runs_allow_wilds)
    blacks = Counter({c: n for c, n in hand.items() if c in BLACK_THREES})
    yield from submultisets(blacks, 3, min(rules.black_three_group_max, sum(blacks.values())))
    if rules.wild_only_groups:
        yield from submultisets(wilds, 3, min(SEVEN, wild_total))


def run_shapes(hand: Counter[str], allow_wild: bool) -> Iterator[tuple[str, ...]]:
    """Every window of 3..7 ranks of one suit the hand can fill; with ``allow_wild``, one
    rank of the window (missing or not) may be a wild instead."""
    wild_codes = [c for c in hand if c in WILD] if allow_wild else []
    for suit in "SHDC":
        have = [(r + suit) in hand for r in RUN_ORDER]
        for lo in range(len(RUN_ORDER)):
            for hi in range(lo + 3, min(lo + SEVEN, len(RUN_ORDER)) + 1):
                missing = [i for i in range(lo, hi) if not have[i]]
                if len(missing) > (1 if wild_codes else 0):
                    continue
                window = [RUN_ORDER[i] + suit for i in range(lo, hi)]
                if not missing:
                    yield tuple(window)
                for p in (missing or range(lo, hi)):
                    rest = tuple(c for i, c in enumerate(window, lo) if i != p)
                    for w in wild_codes:
                        yield rest + (w,)


def addition_shapes(s: Snapshot, hand: Counter[str], meld: Meld) -> Iterator[tuple[str, ...]]:
    """Card multisets from ``hand`` that could extend ``meld``."""
    rules = s.ruleset
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    if meld.kind is MeldKind.GROUP:
        yield from _group_additions(rules, hand, wilds, meld)
    elif meld.kind is MeldKind.RUN:
        yield from _run_additions(rules, hand, meld)
    elif meld.kind is MeldKind.WILD_GROUP:
        yield from submultisets(wilds, 1, min(SEVEN - len(meld.cards), sum(wilds.values())))
    elif meld.kind is MeldKind.BLACK_THREES:
        blacks = Counter({c: n for c, n in hand.items() if c in BLACK_THREES})
        yield from submultisets(blacks, 1, sum(blacks.values()))


def _group_additions(rules: Ruleset, hand: Counter[str], wilds: Counter[str], meld: Meld
                     ) -> Iterator[tuple[str, ...]]:
    rank = M.group_rank(meld.cards)
    nats = Counter({c: n for c, n in hand.items() if c not in WILD and RANK[c] == rank})
    room = max(0, rules.group_max_wilds - M.wild_count(meld.cards))
    for nat in submultisets(nats, 0, sum(nats.values())):
        for wl in submultisets(wilds, 0, min(room, sum(wilds.values()))):
            if nat or wl:
                yield nat + wl


def _run_additions(rules: Ruleset, hand: Counter[str], meld: Meld) -> Iterator[tuple[str, ...]]:
    if len(meld.cards) >= SEVEN:
        return
    allow_wild = rules.runs_allow_wilds and not M.wild_count(meld.cards)
    wild_codes = [c for c in hand if c in WILD] if allow_wild else []
    for codes in _run_extensions(meld):
        missing = [c for c in codes if c not in hand]
        if not missing:
            yield tuple(codes)
        if len(missing) <= (1 if wild_codes else 0):
            # the wild may stand for the missing rank, or for any held one
            for stand_in in (missing or codes):
                for w in wild_codes:
                    yield tuple(c for c in codes if c != stand_in) + (w,)
    for w in wild_codes:
        yield (w,)


def _run_extensions(meld: Meld) -> Iterator[list[str]]:
    """The cards below and above ``meld`` (a run) that would extend it, up to seven."""
    suit = next(SUIT[c] for c in meld.cards if c not in WILD)
    start = M.run_start(meld.cards)
    end = start + len(meld.cards) - 1
    room = SEVEN - len(meld.cards)
    for below in range(0, room + 1):
        for above in range(0, room + 1 - below):
            if below + above == 0 or start - below < 0 or end + above >= len(RUN_ORDER):
                continue
            positions = list(range(start - below, start)) + list(range(end + 1,
                                                                       end + above + 1))
            yield [RUN_ORDER[i] + suit for i in positions]


def submultisets(counts: Counter[str], low: int, high: int) -> Iterator[tuple[str, ...]]:
    """Every sub-multiset of ``counts`` with ``low``..``high`` cards, canonical order."""
    codes = sorted(counts, key=ORDER.__getitem__)
    for picks in product(*(range(counts[c] + 1) for c in codes)):
        size = sum(picks)
        if low <= size <= high:
            yield tuple([c for c, k in zip(codes, picks, strict=True) for _ in range(k)])

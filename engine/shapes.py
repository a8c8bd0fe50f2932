"""The shapes legal actions are made of (docs/api.md#legal-actions): card multisets of
a hand that could be a new meld, an addition to a meld, or an initial-meld combination.

Shapes are candidates: engine.legal keeps only those ``validate`` finds legal, so a shape
here may be too generous but never too strict.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator
from itertools import accumulate, combinations

from . import melds as M
from . import penalties
from .action_order import cards_key, listing_head
from .cards import BLACK_THREES, ORDER, RANK, RUN_INDEX, RUN_ORDER, SUIT, WILD, points
from .deadline import checkpoint
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


def initial_meld_combos(
    s: Snapshot,
    seat: int,
    hand: Counter[str],
    need: int,
    shapes: list[tuple[str, ...]] | None = None,
) -> tuple[list[tuple[tuple[str, ...], ...]], bool]:
    """Minimal sets of new melds from ``hand`` worth ``need`` points together.

    The combinations of 1..MAX_OPENING_MELDS shapes (worth most first) are examined in
    ``itertools.combinations`` order, at most MAX_OPENING_CANDIDATES of them; the list is
    complete when that bound cut none. Worths never rise along a combination, so its least
    is its last, and the minimal ones of a block of combinations sharing all but the last
    shape are a prefix of the block: blocks are counted, not walked."""
    side = s.sides[s.seats[seat].side]
    if shapes is None:
        shapes = list(new_meld_shapes(s, hand, side))
    shapes, worth = _by_worth([m for m in shapes if not all(c in BLACK_THREES for c in m)])
    n = len(shapes)
    room = MAX_OPENING_CANDIDATES  # combinations still to examine
    found: list[tuple[tuple[str, ...], ...]] = []
    for size in range(1, MAX_OPENING_MELDS + 1):
        for head in combinations(range(n), size - 1):
            checkpoint()
            start = head[-1] + 1 if head else 0
            block = n - start
            short = need - sum(worth[i] for i in head)
            if head and short <= 0:
                pass  # the head alone is worth enough: no combination here is minimal
            else:
                _minimal_in_block(shapes, worth, hand, head, start, min(block, room), short, found)
            room -= block
            if room < 0:
                return found, False
    return found, True


def _minimal_in_block(
    shapes: list[tuple[str, ...]],
    worth: list[int],
    hand: Counter[str],
    head: tuple[int, ...],
    start: int,
    count: int,
    short: int,
    found: list[tuple[tuple[str, ...], ...]],
) -> None:
    """Append the combinations ``head + (k,)``, ``k`` in ``start..start+count-1``, whose
    last shape covers ``short`` and whose cards the hand holds."""
    for k in range(start, start + count):
        if worth[k] < short:
            return  # worths fall from here on
        melds = tuple(shapes[i] for i in head) + (shapes[k],)
        if not head or _held(melds, hand):
            found.append(melds)


def _held(melds: tuple[tuple[str, ...], ...], hand: Counter[str]) -> bool:
    used: Counter[str] = Counter()
    for m in melds:
        used.update(m)
    return all(hand[c] >= k for c, k in used.items())


def _by_worth(shapes: list[tuple[str, ...]]) -> tuple[list[tuple[str, ...]], list[int]]:
    """The shapes worth most first (then in canonical card order), and their worths.

    Worths and sort keys in chunks, each worth computed once: a huge hand has tens of
    thousands of shapes, and the caller's deadline is looked at between chunks."""
    worths: list[int] = []
    keys: list[tuple[int, list[int]]] = []
    for start in range(0, len(shapes), CHECK_EVERY):
        checkpoint()
        chunk = shapes[start : start + CHECK_EVERY]
        values = [points(m) for m in chunk]
        worths += values
        keys += [(-w, [ORDER[c] for c in m]) for w, m in zip(values, chunk, strict=True)]
    order = sorted(range(len(shapes)), key=keys.__getitem__)
    checkpoint()
    return [shapes[i] for i in order], [worths[i] for i in order]


def new_meld_shapes(s: Snapshot, hand: Counter[str], side: Side) -> Iterator[tuple[str, ...]]:
    """Card multisets that could be a new meld (content is re-checked by validate)."""
    for nat, _nat_key, fitting in group_batches(s, hand, side):
        for wilds, _head, _above, _checked in fitting:
            yield nat + wilds
    yield from other_shapes(s, hand)


def group_batches(
    s: Snapshot, hand: Counter[str], side: Side
) -> Iterator[tuple[tuple[str, ...], bytes, Fitting]]:
    """Groups of one natural rank plus wilds, batched by their naturals: for each
    ``(nat, nat_key, fitting)``, every ``(wilds, head, above, checked)`` of ``fitting``
    is the group ``nat + wilds``, whose listing order as a single new meld
    (engine.action_order.listing) is ``head + nat_key + above`` and whose ``cards_key``
    is that order without its first ``HEAD`` bytes; ``checked``: its content already
    satisfies the wild rule and the wild cap (false for a rank the side's group would
    absorb)."""
    rules = s.ruleset
    by_rank: dict[str, Counter[str]] = {}
    for c, n in hand.items():
        if c not in WILD and RANK[c] in RUN_INDEX:
            by_rank.setdefault(RANK[c], Counter())[c] = n
    merge_ranks: set[str | None] = set()
    if rules.groups_per_rank is GroupsPerRank.ONE:
        merge_ranks = {M.group_rank(m.cards) for m in side.melds if m.kind is MeldKind.GROUP}
    fits = _GroupFits(rules, Counter({c: n for c, n in hand.items() if c in WILD}))
    for rank, nats in by_rank.items():
        merging = rank in merge_ranks
        lowest = ORDER[rank + "S"]
        for nat in submultisets(nats, 1 if merging else 2, sum(nats.values())):
            yield nat, bytes([ORDER[c] for c in nat]), fits.get(lowest, len(nat), merging)


class _GroupFits:
    """The wild choices that fit a group (group_batches), made once for every rank whose
    cards fall at the same place among the wilds' and for every number of naturals."""

    def __init__(self, rules: Ruleset, wilds: Counter[str]):
        self.rule = M.WILD_RULES[rules.group_wild_rule]
        self.penalised = penalties.enabled(rules)  # three wilds carry a penalty: validate
        self.choices = [
            (wl, cards_key(wl))
            for wl in submultisets(wilds, 0, min(rules.group_max_wilds, sum(wilds.values())))
        ]
        self.wild_orders = sorted(ORDER[c] for c in wilds)
        self.made: dict[tuple[int, int, bool], Fitting] = {}

    def get(self, lowest: int, n: int, merging: bool) -> Fitting:
        """For ``n`` naturals of the rank whose lowest ORDER value is ``lowest``."""
        key = (bisect_left(self.wild_orders, lowest), n, merging)
        fitting = self.made.get(key)
        if fitting is None:
            fitting = self.made[key] = self._make(lowest, n, merging)
        return fitting

    def _make(self, lowest: int, n: int, merging: bool) -> Fitting:
        """A content prefilter (the wild rule on counts); validate re-checks merges and
        penalised groups. The ORDER values of one natural rank are consecutive and no
        wild's falls among them, so a group's cards key is the wilds below the rank, the
        naturals (in canonical order already), then the wilds above: the wilds' cards key
        cut where the rank's values would go."""
        out: Fitting = []
        for wl, wild_key in self.choices:
            if not merging and (n + len(wl) < 3 or (wl and not self.rule(n, len(wl)))):
                continue
            cut = bisect_left(wild_key, lowest)
            checked = not merging and not (self.penalised and len(wl) >= 3)
            out.append((wl, listing_head(2, n + len(wl)) + wild_key[:cut], wild_key[cut:], checked))
        return out


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
    allowed = 1 if wild_codes else 0
    for suit in "SHDC":
        have = [(r + suit) in hand for r in RUN_ORDER]
        held = list(accumulate(have, initial=0))  # held[i]: ranks held below index i
        for lo in range(len(RUN_ORDER)):
            for hi in range(lo + 3, min(lo + SEVEN, len(RUN_ORDER)) + 1):
                if hi - lo - (held[hi] - held[lo]) > allowed:
                    break  # a longer window misses as many ranks or more
                missing = [i for i in range(lo, hi) if not have[i]]
                window = [RUN_ORDER[i] + suit for i in range(lo, hi)]
                if not missing:
                    yield tuple(window)
                for p in missing or range(lo, hi):
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


def _group_additions(
    rules: Ruleset, hand: Counter[str], wilds: Counter[str], meld: Meld
) -> Iterator[tuple[str, ...]]:
    rank = M.group_rank(meld.cards)
    nats = Counter({c: n for c, n in hand.items() if c not in WILD and RANK[c] == rank})
    room = max(0, rules.group_max_wilds - M.wild_count(meld.cards))
    wild_sets = submultisets(wilds, 0, min(room, sum(wilds.values())))
    for nat in submultisets(nats, 0, sum(nats.values())):
        for wl in wild_sets:
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
            for stand_in in missing or codes:
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
            positions = list(range(start - below, start)) + list(range(end + 1, end + above + 1))
            yield [RUN_ORDER[i] + suit for i in positions]


def submultisets(counts: Counter[str], low: int, high: int) -> list[tuple[str, ...]]:
    """Every sub-multiset of ``counts`` with ``low``..``high`` cards, canonical order: the
    order of ``itertools.product`` over each code's copies (0, 1, …), codes in canonical
    order, the first varying slowest. Built from the last code back, and a part already
    over ``high`` is dropped at once."""
    parts: list[tuple[str, ...]] = [()]
    for c in sorted(counts, key=ORDER.__getitem__, reverse=True):
        parts = [
            (c,) * k + rest for k in range(counts[c] + 1) for rest in parts if k + len(rest) <= high
        ]
    return [p for p in parts if len(p) >= low]

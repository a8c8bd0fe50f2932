"""The shapes of legal actions (engine.shapes) against plain reference versions: the
faster enumerations must find the same shapes in the same order, the same initial-meld
combinations and the same completeness flag (bench/differential.py compares whole
engines; these reach the bound on initial-meld combinations, which play rarely does)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import combinations, product

import pytest

from samba_adjudicator.engine import deal, resolve
from samba_adjudicator.engine.cards import BLACK_THREES, ORDER, RANK, RED_THREES, WILD, points
from samba_adjudicator.engine.shapes import (
    MAX_OPENING_CANDIDATES,
    MAX_OPENING_MELDS,
    initial_meld_combos,
    new_meld_shapes,
    submultisets,
)


def reference_submultisets(counts: Counter[str], low: int, high: int) -> list[tuple[str, ...]]:
    codes = sorted(counts, key=ORDER.__getitem__)
    out = []
    for picks in product(*(range(counts[c] + 1) for c in codes)):
        if low <= sum(picks) <= high:
            out.append(tuple(c for c, k in zip(codes, picks, strict=True) for _ in range(k)))
    return out


def reference_initial_meld_combos(
    shapes: list[tuple[str, ...]], hand: Counter[str], need: int
) -> tuple[list[tuple[tuple[str, ...], ...]], bool]:
    """Every combination examined one by one, as engine.shapes did before."""
    kept = [m for m in shapes if not all(c in BLACK_THREES for c in m)]
    order = sorted(range(len(kept)), key=lambda i: (-points(kept[i]), [ORDER[c] for c in kept[i]]))
    kept = [kept[i] for i in order]
    found = []
    examined = 0
    for size in range(1, MAX_OPENING_MELDS + 1):
        for combo in combinations(range(len(kept)), size):
            examined += 1
            if examined > MAX_OPENING_CANDIDATES:
                return found, False
            values = [points(kept[i]) for i in combo]
            total = sum(values)
            if total < need or (size > 1 and total - min(values) >= need):
                continue
            melds = tuple(kept[i] for i in combo)
            used: Counter[str] = Counter()
            for m in melds:
                used.update(m)
            if size == 1 or not used - hand:
                found.append(melds)
    return found, True


def grown(seed: str, size: int):
    """A fresh classic deal, seat 1 holding ``size`` cards (the next ones of the stock)."""
    s = deal(resolve("classic"), 4, seed)
    extra = [c for c in s.stock if c not in RED_THREES][: max(0, size - len(s.seats[1].hand))]
    hand = s.seats[1].hand + tuple(extra)
    seats = tuple(
        replace(x, hand=hand, hand_count=len(hand)) if x.seat == 1 else x for x in s.seats
    )
    return s, replace(s, seats=seats)


@pytest.mark.parametrize("seed,size", [("a", 15), ("b", 17), ("c", 22), ("d", 30), ("e", 45)])
def test_submultisets_match_the_product_order(seed, size):
    """On what the shapes take sub-multisets of: the wilds, the naturals of one rank, the
    black 3s (a whole hand would have billions)."""
    _, s = grown(seed, size)
    hand = Counter(s.seats[1].hand)
    parts = [
        Counter({c: n for c, n in hand.items() if c in WILD}),
        Counter({c: n for c, n in hand.items() if c in BLACK_THREES}),
    ]
    parts += [
        Counter({c: n for c, n in hand.items() if RANK[c] == rank})
        for rank in {RANK[c] for c in hand if c not in WILD}
    ]
    for part in parts:
        for low, high in ((0, 2), (1, 3), (2, 99), (3, 7), (0, 0)):
            assert submultisets(part, low, high) == reference_submultisets(part, low, high)


@pytest.mark.parametrize(
    "seed,size", [("a", 15), ("b", 17), ("c", 22), ("d", 30), ("e", 45), ("f", 60)]
)
def test_initial_meld_combos_match_the_combination_walk(seed, size):
    _, s = grown(seed, size)
    hand = Counter(s.seats[1].hand)
    side = s.sides[s.seats[1].side]
    shapes = list(new_meld_shapes(s, hand, side))
    flags = set()
    for need in (0, 15, 50, 90, 120, 150, 400):
        got = initial_meld_combos(s, 1, hand, need, shapes=shapes)
        assert got == reference_initial_meld_combos(shapes, hand, need), need
        flags.add(got[1])
    # the bigger hands reach the bound on examined combinations
    assert size < 30 or False in flags

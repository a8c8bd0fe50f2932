"""What a meld may hold (docs/rules.md#runs, #groups, #black-three-groups, #wild-rules).

The group wild rule is one of four small predicates chosen by ``ruleset.group_wild_rule``;
runs and groups are judged by content only here. Side-level rules (uruguayan limit,
black 3s only when going out) live in engine.table_rules, the words (complete, closed,
natural) in engine.vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import penalties
from .cards import BLACK_THREES, RANK, RED_THREES, RUN_INDEX, RUN_ORDER, SUIT, WILD, points
from .model import Meld, MeldCheck, MeldKind, RunEnd, Violation
from .ruleset import Ruleset, WildRule
from .violations import violation
from .vocabulary import SEVEN, is_closed, is_natural, status

#: docs/rules.md#wild-rules: naturals N and wilds W of a group of ``size`` cards.
WILD_RULES: dict[WildRule, Callable[[int, int], bool]] = {
    WildRule.MORE_NATURALS: lambda n, w: n > w,
    WildRule.TWICE_NATURALS: lambda n, w: n >= 2 * w,
    WildRule.MIN_TWO_NATURALS: lambda n, w: n >= 2 and w <= n,
    WildRule.ONE_UNTIL_SEVEN: lambda n, w: n >= 2 and (w <= 1 or n + w >= SEVEN),
}


def infer_kind(cards: Sequence[str]) -> MeldKind:
    """The kind a set of cards can only be: black 3s, wilds only, a run, or a group."""
    # Set methods instead of all(...) generators: the same answers, on the validate hot path.
    if cards and BLACK_THREES.issuperset(cards):
        return MeldKind.BLACK_THREES
    if cards and WILD.issuperset(cards):
        return MeldKind.WILD_GROUP
    naturals = [c for c in cards if c not in WILD]
    ranks = {RANK[c] for c in naturals}
    if len(naturals) >= 2 and len(ranks) == len(naturals):
        return MeldKind.RUN
    return MeldKind.GROUP


def group_rank(cards: Sequence[str]) -> str | None:
    for c in cards:
        if c not in WILD:
            return RANK[c]
    return None


def wild_count(cards: Sequence[str]) -> int:
    return sum(1 for c in cards if c in WILD)


# -- groups -------------------------------------------------------------------------------


def group_wild_violations(rules: Ruleset, naturals: int, wilds: int, field: str) -> list[Violation]:
    out = penalties.three_wilds_in_canasta(rules, wilds, naturals + wilds >= SEVEN, field)
    if wilds > rules.group_max_wilds:
        out.append(violation("TOO_MANY_WILDS", field, max=rules.group_max_wilds))
    elif wilds and not WILD_RULES[rules.group_wild_rule](naturals, wilds):
        out.append(
            violation(
                "WILD_RULE_BROKEN",
                field,
                naturals=naturals,
                wilds=wilds,
                rule=rules.group_wild_rule.value,
            )
        )
    return out


def _check_group(rules: Ruleset, cards: Sequence[str], field: str) -> list[Violation]:
    naturals = [c for c in cards if c not in WILD]
    if len({RANK[c] for c in naturals}) > 1:
        return [violation("MIXED_RANKS", field)]
    return group_wild_violations(rules, len(naturals), len(cards) - len(naturals), field)


# -- runs ---------------------------------------------------------------------------------


def order_run(cards: Sequence[str], wild_at: RunEnd | None = None) -> tuple[str, ...] | None:
    """The run's cards low to high, the wild (``open``) placed at the rank it stands for.

    Returns None when the cards cannot form one unbroken run. With a wild and no gap
    among the naturals, the wild goes to the end ``wild_at`` names, and None when that end
    is impossible (below 4, above A): a named end is never moved. Unnamed, the wild goes
    HIGH unless the run ends at the ace (both documented in docs/rules.md).
    """
    naturals = [c for c in cards if c not in WILD]
    wilds = [c for c in cards if c in WILD]
    if not naturals or len(wilds) > 1:
        return None
    if len({SUIT[c] for c in naturals}) != 1 or any(RANK[c] not in RUN_INDEX for c in naturals):
        return None
    idx = sorted(RUN_INDEX[RANK[c]] for c in naturals)
    if len(set(idx)) != len(idx):
        return None
    by_index = {RUN_INDEX[RANK[c]]: c for c in naturals}
    span = idx[-1] - idx[0] + 1
    if not wilds:
        if span != len(idx):
            return None
        return tuple(by_index[i] for i in idx)
    gaps = [i for i in range(idx[0], idx[-1] + 1) if i not in by_index]
    if len(gaps) > 1:
        return None
    if gaps:
        by_index[gaps[0]] = wilds[0]
    else:
        end = wild_at or (RunEnd.HIGH if idx[-1] + 1 < len(RUN_ORDER) else RunEnd.LOW)
        at = idx[-1] + 1 if end is RunEnd.HIGH else idx[0] - 1
        if not 0 <= at < len(RUN_ORDER):
            return None
        by_index[at] = wilds[0]
    return tuple(by_index[i] for i in sorted(by_index))


def run_start(cards: Sequence[str]) -> int:
    """RUN_ORDER index of a run's lowest card (a leading wild stands for the rank below)."""
    for i, c in enumerate(cards):
        if c not in WILD:
            return RUN_INDEX[RANK[c]] - i
    raise ValueError("a run holds naturals")


def _check_run(
    rules: Ruleset, cards: Sequence[str], field: str, wild_at: RunEnd | None = None
) -> tuple[tuple[str, ...] | None, list[Violation]]:
    if not rules.runs_allowed:
        return None, [violation("RUNS_NOT_ALLOWED", field)]
    wilds = wild_count(cards)
    if wilds and (not rules.runs_allow_wilds or wilds > 1):
        return None, [violation("WILD_IN_RUN_NOT_ALLOWED", field)]
    if len(cards) > SEVEN:
        return None, [violation("RUN_TOO_LONG", field)]
    ordered = order_run(cards, wild_at)
    if ordered is None:
        return None, [violation("NOT_A_RUN", field)]
    return ordered, []


# -- whole melds --------------------------------------------------------------------------


def check_new(
    rules: Ruleset, cards: Sequence[str], field: str = ""
) -> tuple[MeldKind | None, tuple[str, ...], list[Violation]]:
    """Judge ``cards`` as a new meld by content (no side or going-out context).

    Returns the kind, the cards in table order, and the violations (empty when legal).
    A black-3 group is legal content here; engine.game adds the going-out condition.
    """
    cards = tuple(cards)
    if not RED_THREES.isdisjoint(cards) or (
        not BLACK_THREES.isdisjoint(cards) and not BLACK_THREES.issuperset(cards)
    ):
        return None, cards, [violation("THREES_NOT_MELDABLE", field)]
    if len(cards) < 3:
        return None, cards, [violation("MELD_TOO_SHORT", field)]
    kind = infer_kind(cards)
    if kind is MeldKind.BLACK_THREES:
        if len(cards) > rules.black_three_group_max:
            return (
                None,
                cards,
                [violation("BLACK_THREE_GROUP_TOO_LARGE", field, max=rules.black_three_group_max)],
            )
        return kind, cards, []
    if kind is MeldKind.WILD_GROUP:
        if not rules.wild_only_groups:
            return None, cards, [violation("WILD_ONLY_GROUP_NOT_ALLOWED", field)]
        if len(cards) > SEVEN:
            return None, cards, [violation("MELD_TOO_SHORT", field)]
        return kind, cards, []
    if kind is MeldKind.RUN:
        ordered, problems = _check_run(rules, cards, field)
        return (kind if not problems else None), (ordered or cards), problems
    problems = _check_group(rules, cards, field)
    return (kind if not problems else None), cards, problems


def check_extend(
    rules: Ruleset, meld: Meld, cards: Sequence[str], field: str = "", end: RunEnd | None = None
) -> tuple[tuple[str, ...], list[Violation]]:
    """Judge adding ``cards`` to ``meld`` by content; returns the meld's new cards (its old
    ones when refused)."""
    cards = tuple(cards)
    if is_closed(meld):
        return meld.cards, [violation("MELD_CLOSED", field, meld=meld.id)]
    if not RED_THREES.isdisjoint(cards):
        return meld.cards, [violation("THREES_NOT_MELDABLE", field)]
    if meld.kind is MeldKind.BLACK_THREES:
        problems = _extend_black_threes(rules, meld, cards, field)
    elif not BLACK_THREES.isdisjoint(cards):
        problems = [violation("THREES_NOT_MELDABLE", field)]
    elif meld.kind is MeldKind.WILD_GROUP:
        problems = _extend_wild_group(meld, cards, field)
    elif meld.kind is MeldKind.RUN:
        return _extend_run(rules, meld, cards, field, end)
    elif WILD.isdisjoint(cards):  # naturals onto a group: the common case, checked directly
        problems = _check_group(rules, meld.cards + cards, field)
    else:
        problems = _extend_group(rules, meld, cards, field)
    return (meld.cards + cards if not problems else meld.cards), problems


def _extend_black_threes(
    rules: Ruleset, meld: Meld, cards: tuple[str, ...], field: str
) -> list[Violation]:
    if not BLACK_THREES.issuperset(cards):
        return [violation("THREES_NOT_MELDABLE", field)]
    if len(meld.cards) + len(cards) > rules.black_three_group_max:
        return [violation("BLACK_THREE_GROUP_TOO_LARGE", field, max=rules.black_three_group_max)]
    return []


def _extend_wild_group(meld: Meld, cards: tuple[str, ...], field: str) -> list[Violation]:
    if not WILD.issuperset(cards):
        return [violation("MIXED_RANKS", field)]
    if len(meld.cards) + len(cards) > SEVEN:
        return [violation("MELD_CLOSED", field, meld=meld.id)]
    return []


def _extend_group(
    rules: Ruleset, meld: Meld, cards: tuple[str, ...], field: str
) -> list[Violation]:
    problems = []
    if not WILD.isdisjoint(cards) and not rules.wild_onto_canasta and len(meld.cards) >= SEVEN:
        problems.append(violation("WILD_ONTO_CANASTA_NOT_ALLOWED", field))
    return problems + _check_group(rules, meld.cards + cards, field)


def _extend_run(
    rules: Ruleset, meld: Meld, cards: tuple[str, ...], field: str, end: RunEnd | None
) -> tuple[tuple[str, ...], list[Violation]]:
    wilds_added = wild_count(cards)
    if wilds_added and (not rules.runs_allow_wilds or wilds_added + wild_count(meld.cards) > 1):
        return meld.cards, [violation("WILD_IN_RUN_NOT_ALLOWED", field)]
    if len(meld.cards) + len(cards) > SEVEN:
        return meld.cards, [violation("RUN_TOO_LONG", field)]
    taken = _run_positions(meld, cards)
    if taken is not None and wilds_added:
        taken = _place_wild(taken, next(c for c in cards if c in WILD), end)
    if taken is None:
        return meld.cards, [violation("NOT_A_RUN", field)]
    keys = sorted(taken)
    if keys[-1] - keys[0] + 1 != len(keys) or keys[0] < 0 or keys[-1] >= len(RUN_ORDER):
        return meld.cards, [violation("NOT_A_RUN", field)]
    return tuple(taken[k] for k in keys), []


def _run_positions(meld: Meld, cards: tuple[str, ...]) -> dict[int, str] | None:
    """RUN_ORDER index -> card of the run with the natural ``cards`` added; None when one
    is of another suit, not a run rank, or a rank the run holds."""
    start = run_start(meld.cards)
    taken = {start + i: c for i, c in enumerate(meld.cards)}
    suit = next(SUIT[c] for c in meld.cards if c not in WILD)
    for c in cards:
        if c in WILD:
            continue
        if SUIT[c] != suit or RANK[c] not in RUN_INDEX or RUN_INDEX[RANK[c]] in taken:
            return None
        taken[RUN_INDEX[RANK[c]]] = c
    return taken


def _place_wild(taken: dict[int, str], wild: str, end: RunEnd | None) -> dict[int, str] | None:
    """The added wild fills the one gap, else goes to the end ``end`` names; unnamed, HIGH
    unless the run ends at the ace. None when that cannot make a run."""
    lo, hi = min(taken), max(taken)
    gaps = [i for i in range(lo, hi + 1) if i not in taken]
    if gaps:
        if len(gaps) > 1:
            return None
        taken[gaps[0]] = wild
        return taken
    high_ok, low_ok = hi + 1 < len(RUN_ORDER), lo > 0
    # An explicit end must be possible; without one, HIGH unless the run ends at A.
    if end is RunEnd.LOW or (end is None and not high_ok):
        if not low_ok:
            return None
        taken[lo - 1] = wild
    elif high_ok:
        taken[hi + 1] = wild
    else:
        return None
    return taken


def check_meld_content(rules: Ruleset, cards: Sequence[str]) -> MeldCheck:
    """CheckMeld's first form: is this a legal new meld under the ruleset (content only)."""
    kind, ordered, problems = check_new(rules, cards, "cards")
    if problems:
        return MeldCheck(False, None, None, False, 0, tuple(problems))
    note = BLACK_THREES_NOTE if kind is MeldKind.BLACK_THREES else ""
    return MeldCheck(
        True, kind, status(kind, len(ordered)), is_natural(ordered), points(ordered), note=note
    )


#: CheckMeld's note on black 3s judged by content alone: the going-out context decides.
BLACK_THREES_NOTE = (
    "a black-3 group is laid only by a player going out: afterwards the "
    "player holds at most one card and the side may go out"
)


__all__ = [
    "WILD_RULES",
    "infer_kind",
    "check_new",
    "check_extend",
    "order_run",
    "run_start",
    "group_rank",
    "wild_count",
    "group_wild_violations",
    "check_meld_content",
    "BLACK_THREES_NOTE",
]

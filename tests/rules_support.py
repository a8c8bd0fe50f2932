"""Shared helpers for the tests/engine/test_game_*.py suites (no tests here).

Every helper that judges an action also checks ListLegalActions' consistency on the
position (docs/api.md#legal-actions): every listed action validates as legal, and a
refused action is never listed.
"""

from __future__ import annotations

from dataclasses import replace

from builders import cards, make_snapshot  # noqa: F401 - re-exported for the suites

from samba_adjudicator.engine.action_order import action_key
from samba_adjudicator.engine.game import apply, validate
from samba_adjudicator.engine.legal import legal_actions
from samba_adjudicator.engine.model import Snapshot

PROFILES = ("classic", "pagat", "spanish", "canasta", "bolivia", "official")
SAMBA_PROFILES = ("classic", "pagat", "spanish", "bolivia", "official")

KINGS7 = "KH KS KD KC KH KS KD"
QUEENS7 = "QH QS QD QC QH QS QD"
SAMBA_4_10 = "4H 5H 6H 7H 8H 9H 10H"
SAMBA_8_A = "8S 9S 10S JS QS KS AS"


def codes_of(violations) -> list[str]:
    return [v.code for v in violations]


_LEGAL_CACHE: dict[int, tuple[Snapshot, list, set]] = {}


def listed(snap: Snapshot, seat: int | None = None):
    """ListLegalActions for ``seat`` (memoised per snapshot object)."""
    key = (id(snap), seat)
    hit = _LEGAL_CACHE.get(key)
    if hit is not None and hit[0] is snap:
        return hit[1], hit[2]
    actions, _complete = legal_actions(snap, seat)
    keys = {action_key(a) for a in actions}
    _LEGAL_CACHE[key] = (snap, actions, keys)
    return actions, keys


def assert_list_consistent(snap: Snapshot, seat: int | None = None) -> None:
    """Every action ListLegalActions gives validates as legal."""
    actions, _ = listed(snap, seat)
    for a in actions:
        assert validate(snap, a) == [], f"listed but refused: {a} -> {validate(snap, a)}"


def refused(snap: Snapshot, action, code: str | None = None, *, listing: bool = True):
    """``action`` is illegal (with ``code`` among the violations when given); apply leaves
    the position unchanged apart from penalties; the action is not listed as legal."""
    vs = validate(snap, action)
    assert vs, f"expected a refusal, {action} was legal"
    if code is not None:
        assert code in codes_of(vs), f"expected {code}, got {codes_of(vs)}"
    out = apply(snap, action)
    assert not out.legal
    assert codes_of(out.violations) == codes_of(vs)
    if not any(v.penalty_points for v in vs):
        assert out.snapshot == snap, "a refused action changed the snapshot"
    if listing:
        actions, keys = listed(snap, action.seat)
        assert action_key(action) not in keys, f"refused {action} is listed as legal"
        assert_list_consistent(snap, action.seat)
    return vs


def allowed(snap: Snapshot, action, *, listing: bool = True):
    """``action`` is legal; returns apply's Outcome."""
    vs = validate(snap, action)
    assert vs == [], f"expected legal, got {[(v.code, v.details) for v in vs]}"
    out = apply(snap, action)
    assert out.legal and out.violations == ()
    if listing:
        assert_list_consistent(snap, action.seat)
        if is_atomic(snap, action):
            _, keys = listed(snap, action.seat)
            assert action_key(action) in keys, (
                f"legal atomic action {action} is missing from ListLegalActions"
            )
    return out


def is_atomic(snap: Snapshot, action) -> bool:
    """docs/api.md#methods: one draw or take, one meld action with exactly one new meld or one
    addition, one swap, one discard, a permission action. (A take or meld of an unopened
    side carrying further opening melds is listed only in minimal form: not judged here.)"""
    from samba_adjudicator.engine.model import MeldCards, TakePile

    if isinstance(action, MeldCards):
        return len(action.new_melds) + len(action.additions) == 1
    if isinstance(action, TakePile):
        return not action.new_melds and not action.additions
    return True


def judge(snap: Snapshot, action, expected: str | None):
    """``expected`` None: legal (returns the Outcome); else refused with that code."""
    if expected is None:
        return allowed(snap, action)
    return refused(snap, action, expected)


def with_stock(snap: Snapshot, front) -> Snapshot:
    """The same position with ``front`` moved to the top of the (filled) stock."""
    rest = list(snap.stock)
    for c in cards(front):
        rest.remove(c)
    stock = tuple(cards(front)) + tuple(rest)
    return replace(snap, stock=stock, stock_count=len(stock))


def melds_of(snap: Snapshot, side: int = 0) -> list[tuple[str, ...]]:
    return [m.cards for m in snap.sides[side].melds]


def sorted_cards(cs) -> list[str]:
    return sorted(cs)


def event_types(outcome) -> list[str]:
    return [e.type for e in outcome.events]

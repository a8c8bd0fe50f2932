"""Every inconsistency of a client-given snapshot (docs/rules.md#bad-input, docs/api.md#snapshot,
docs/api.md#errors).

``check_snapshot`` never repairs and never stops at the first problem: it lists every one,
each with a JSON field path relative to the snapshot (``seats[0].hand[3]``,
``sides[1].melds[0].cards``, ``stockCount``, ``turn.seat``); the service prefixes the
request's own path (``snapshot.``). It must not crash on any input the model can hold
(negative counts, unknown codes, out-of-range seats).

Decisions where the contract is silent:
- ``turn.meldedThisTurn``, ``turn.tookPile``, ``turn.addedToPartnerMelds`` and a ``goOut``
  other than NOT_ASKED are inconsistent in the DRAW phase; they are allowed in PLAY and in
  OVER (the final snapshot keeps the flags of the turn that ended the deal).
- Meld ids: an empty id is REQUIRED, a malformed one OUT_OF_RANGE; a repeated id is
  DUPLICATE_MELD_ID at every occurrence after the first.
- Zones that do not add up are reported at ``stockCount`` when the stock is hidden (its
  count is then the only free figure), else at the snapshot itself (field ``""``).
- ``dealt`` is checked for card codes only; it is not a zone and is not counted.
- ``known`` (engine.knowledge.check_known) is a part of its hand; a hidden hand's known
  cards count with the listed zones toward the pack's copies (not toward the zones' sum:
  the hand's count holds them).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from itertools import chain

from . import melds
from .cards import ORDER, RED_THREES, pack_counts
from .deal_checks import check_deal_fields
from .knowledge import check_known
from .messages import EACH, joined, problem, text
from .model import Meld, MeldKind, Problem, RunEnd, Snapshot
from .outcome_checks import check_outcome
from .ruleset import RedThreeReplacement
from .violations import CODES

#: Records a problem (engine.messages.problem: its description a template with parameters).
Add = Callable[[Problem], None]
#: The card zones of a snapshot: (field path, cards).
Zones = list[tuple[str, tuple[str, ...]]]

MELD_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


_CODES = frozenset(ORDER)


def _codes_and_copies_fit(card_lists: list[tuple[str, ...]], limit: Counter[str]) -> bool:
    """Whether every card listed is a card code, held no more often than the pack holds
    it: the common case, counted at C speed before any card is looked at one by one."""
    seen: Counter[str] = Counter(chain.from_iterable(card_lists))
    return _CODES.issuperset(seen) and all(n <= limit[c] for c, n in seen.items())


def _report_codes_and_copies(zones: Zones, limit: Counter[str], add: Add) -> None:
    """Each unknown code, and the first copy of a card beyond what the pack holds, at its
    path (the zones in their listed order)."""
    seen: Counter[str] = Counter()
    reported: set[str] = set()
    for path, cards in zones:
        for x, card in enumerate(cards):
            if card not in ORDER:
                add(_unknown_code(f"{path}[{x}]", card))
                continue
            seen[card] += 1
            if seen[card] > limit[card] and card not in reported:
                reported.add(card)
                add(
                    problem(
                        f"{path}[{x}]",
                        "TOO_MANY_COPIES",
                        "the pack holds {count} of {card}; this is one more",
                        count=limit[card],
                        card=card,
                    )
                )


def _unknown_code(path: str, card: str) -> Problem:
    return problem(path, "UNKNOWN_CARD_CODE", "{card} is not a card code", card=repr(card))


def check_snapshot(snapshot: Snapshot) -> list[Problem]:
    """Every problem of ``snapshot`` (empty when it is consistent)."""
    out: list[Problem] = []
    add = out.append
    _seats_and_sides(snapshot, add)
    listed = _card_codes(snapshot, add)
    _counts(snapshot, listed, add)
    _melds_and_red_threes(snapshot, add)
    _seat_fields(snapshot, add)
    check_known(snapshot, add)
    check_deal_fields(snapshot, add)
    check_outcome(snapshot, add)
    return out


def _seats_and_sides(snapshot: Snapshot, add: Add) -> None:
    """Players, seats and sides."""
    rules = snapshot.ruleset
    n = len(snapshot.seats)
    if n not in rules.players_allowed:
        add(
            problem(
                "seats",
                "UNSUPPORTED_PLAYER_COUNT",
                "{profile} is played by {counts} players, not {n}",
                profile=rules.profile,
                counts=", ".join(map(str, rules.players_allowed)),
                n=n,
            )
        )
    t = rules.sides_for(n) if n > 0 else 0
    for i, seat in enumerate(snapshot.seats):
        if seat.seat != i:
            add(problem(f"seats[{i}].seat", "OUT_OF_RANGE", "seats[{i}].seat must be {i}", i=i))
        if t and seat.side != i % t:
            add(
                problem(
                    f"seats[{i}].side",
                    "DERIVED_FIELD_DISAGREES",
                    "seat {seat} is on side {side} (seat mod {sides}), not {given}",
                    seat=i,
                    side=i % t,
                    sides=t,
                    given=seat.side,
                )
            )
    if len(snapshot.sides) != t:
        add(
            problem(
                "sides",
                "OUT_OF_RANGE",
                "{players} players form {sides} sides, not {given}",
                players=n,
                sides=t,
                given=len(snapshot.sides),
            )
        )
    for k, side in enumerate(snapshot.sides):
        if side.side != k:
            add(problem(f"sides[{k}].side", "OUT_OF_RANGE", "sides[{k}].side must be {k}", k=k))
        expected = tuple(s for s in range(n) if t and s % t == k)
        if tuple(side.seats) != expected:
            add(
                problem(
                    f"sides[{k}].seats",
                    "DERIVED_FIELD_DISAGREES",
                    "side {side} is seats {seats}, not {given}",
                    side=k,
                    seats=list(expected),
                    given=list(side.seats),
                )
            )


def _zones(snapshot: Snapshot) -> Zones:
    """The card zones with their paths, in the order problems are reported."""
    zones: Zones = []
    for i, seat in enumerate(snapshot.seats):
        zones.append((f"seats[{i}].hand", tuple(seat.hand)))
    for k, side in enumerate(snapshot.sides):
        for j, meld in enumerate(side.melds):
            zones.append((f"sides[{k}].melds[{j}].cards", tuple(meld.cards)))
        zones.append((f"sides[{k}].redThrees", tuple(side.red_threes)))
    zones.append(("stock", tuple(snapshot.stock)))
    zones.append(("discardPile", tuple(snapshot.discard_pile)))
    zones.extend(_hidden_known(snapshot))
    return zones


def _hidden_known(snapshot: Snapshot) -> Zones:
    """The known cards of hidden hands, with their paths: the cards of a listed hand's
    ``known`` are among its hand's."""
    return [
        (f"seats[{i}].known", tuple(seat.known))
        for i, seat in enumerate(snapshot.seats)
        if seat.known and seat.hand_hidden
    ]


def _card_codes(snapshot: Snapshot, add: Add) -> int:
    """Card codes and copies; returns how many cards the zones list. The zones' paths are
    written out only when there is a problem to report."""
    rules = snapshot.ruleset
    card_lists = [tuple(seat.hand) for seat in snapshot.seats]
    for side in snapshot.sides:
        card_lists.extend(tuple(meld.cards) for meld in side.melds)
        card_lists.append(tuple(side.red_threes))
    card_lists.append(tuple(snapshot.stock))
    card_lists.append(tuple(snapshot.discard_pile))

    limit = _pack_counts(rules.decks, rules.jokers)
    listed = sum(map(len, card_lists))
    card_lists.extend(cards for _, cards in _hidden_known(snapshot))
    if not _codes_and_copies_fit(card_lists, limit):
        _report_codes_and_copies(_zones(snapshot), limit, add)
    for i, seat in enumerate(snapshot.seats):
        if _CODES.issuperset(seat.dealt):
            continue
        for x, card in enumerate(seat.dealt):
            if card not in ORDER:
                add(_unknown_code(f"seats[{i}].dealt[{x}]", card))
    return listed


#: (decks, jokers) -> pack_counts(decks, jokers), for the few packs rulesets use.
_PACKS: dict[tuple[int, int], Counter[str]] = {}


def _pack_counts(decks: int, jokers: int) -> Counter[str]:
    """``pack_counts``, made once per pack (only read here: ``limit[card]``)."""
    limit = _PACKS.get((decks, jokers))
    if limit is None:
        limit = pack_counts(decks, jokers)
        if len(_PACKS) < 64:
            _PACKS[(decks, jokers)] = limit
    return limit


def _counts(snapshot: Snapshot, listed: int, add: Add) -> None:
    """Counts and hidden zones: the zones add up to the pack."""
    rules = snapshot.ruleset
    hidden = 0
    for i, seat in enumerate(snapshot.seats):
        if not _is_int(seat.hand_count) or seat.hand_count < 0:
            add(problem(f"seats[{i}].handCount", "OUT_OF_RANGE", "handCount must not be negative"))
        elif seat.hand and seat.hand_count != len(seat.hand):
            add(
                problem(
                    f"seats[{i}].handCount",
                    "DERIVED_FIELD_DISAGREES",
                    "the hand lists {listed} cards, handCount says {given}",
                    listed=len(seat.hand),
                    given=seat.hand_count,
                )
            )
        elif not seat.hand:
            hidden += seat.hand_count
    stock_hidden = False
    if not _is_int(snapshot.stock_count) or snapshot.stock_count < 0:
        add(problem("stockCount", "OUT_OF_RANGE", "stockCount must not be negative"))
    elif snapshot.stock and snapshot.stock_count != len(snapshot.stock):
        add(
            problem(
                "stockCount",
                "DERIVED_FIELD_DISAGREES",
                "the stock lists {listed} cards, stockCount says {given}",
                listed=len(snapshot.stock),
                given=snapshot.stock_count,
            )
        )
    elif not snapshot.stock:
        hidden += snapshot.stock_count
        stock_hidden = snapshot.stock_count > 0
    total = listed + hidden
    if total != rules.pack_size:
        add(
            problem(
                "stockCount" if stock_hidden else "",
                "ZONES_DO_NOT_ADD_UP",
                "the cards listed plus the hidden counts make {total}, the pack holds {pack}",
                total=total,
                pack=rules.pack_size,
            )
        )


def _melds_and_red_threes(snapshot: Snapshot, add: Add) -> None:
    """Melds and red 3s of each side (penalties: engine.outcome_checks)."""
    ids: set[str] = set()
    for k, side in enumerate(snapshot.sides):
        for j, meld in enumerate(side.melds):
            _check_meld(snapshot, k, j, meld, ids, add)
        for x, card in enumerate(side.red_threes):
            if card in ORDER and card not in RED_THREES:
                add(
                    problem(
                        f"sides[{k}].redThrees[{x}]",
                        "OUT_OF_RANGE",
                        "{card} is not a red 3 (3H or 3D)",
                        card=card,
                    )
                )


def _seat_fields(snapshot: Snapshot, add: Add) -> None:
    """The seats' own fields."""
    rules = snapshot.ruleset
    for i, seat in enumerate(snapshot.seats):
        owed = seat.red_three_replacements_owed
        if not _is_int(owed) or owed < 0:
            add(
                problem(
                    f"seats[{i}].redThreeReplacementsOwed",
                    "OUT_OF_RANGE",
                    "redThreeReplacementsOwed must not be negative",
                )
            )
        elif owed > 0 and rules.red_threes is not RedThreeReplacement.REPLACE_AT_FIRST_TURN:
            add(
                problem(
                    f"seats[{i}].redThreeReplacementsOwed",
                    "OUT_OF_RANGE",
                    "red 3 replacements are owed only with red_threes REPLACE_AT_FIRST_TURN",
                )
            )


def _check_meld(snapshot: Snapshot, k: int, j: int, meld: Meld, ids: set[str], add: Add) -> None:
    rules = snapshot.ruleset
    path = f"sides[{k}].melds[{j}]"
    mid = meld.id
    if not isinstance(mid, str) or mid == "":
        add(problem(f"{path}.id", "REQUIRED", "a meld needs an id"))
    elif not MELD_ID.fullmatch(mid):
        add(
            problem(
                f"{path}.id", "OUT_OF_RANGE", "a meld id matches {pattern}", pattern=MELD_ID.pattern
            )
        )
    elif mid in ids:
        add(problem(f"{path}.id", "DUPLICATE_MELD_ID", "meld id {id} is used twice", id=repr(mid)))
    else:
        ids.add(mid)
    side = snapshot.sides[k]
    if meld.laid_by not in side.seats or not _is_int(meld.laid_by):
        add(
            problem(
                f"{path}.laidBy", "OUT_OF_RANGE", "laidBy must be a seat of side {side}", side=k
            )
        )
    cards = tuple(meld.cards)
    if not _CODES.issuperset(cards):
        return  # reported as UNKNOWN_CARD_CODE
    kind, ordered, violations = melds.check_new(rules, cards, f"{path}.cards")
    if violations:
        said = [text(CODES[v.code][1], **v.details) for v in violations]
        add(
            problem(
                f"{path}.cards",
                "NOT_A_LEGAL_MELD",
                "{violations}",
                violations=joined(said, EACH),
            )
        )
    elif (
        kind is MeldKind.RUN
        and cards != ordered
        and cards not in (melds.order_run(cards, RunEnd.LOW), melds.order_run(cards, RunEnd.HIGH))
    ):
        add(
            problem(
                f"{path}.cards",
                "NOT_A_LEGAL_MELD",
                "a run is stored low to high: {cards}",
                cards=" ".join(ordered),
            )
        )
    # a legal meld's kind is the one check_new inferred: not inferred a second time
    inferred = kind if kind is not None else melds.infer_kind(cards) if cards else None
    if inferred is not None and meld.kind is not inferred:
        add(
            problem(
                f"{path}.kind",
                "DERIVED_FIELD_DISAGREES",
                "these cards form a {inferred}, not {given}",
                inferred=inferred.value,
                given=getattr(meld.kind, "value", meld.kind),
            )
        )

"""Every legal atomic action of a position (docs/api.md#legal-actions).

Candidates are generated from the hand by shape (groups, runs, extensions, …) and each is
kept only if ``engine.game.validate`` finds it legal, so the list and the validator can
never disagree. An *atomic* action is one draw or take, one meld action with exactly one
new meld or one addition, one wild swap, one discard, or a permission action; while the
side has not opened, a take or meld may carry the further melds needed for the initial
meld. Those opening combinations are *minimal* (dropping any one meld would fall short),
hold at most ``MAX_OPENING_MELDS`` melds, and at most ``MAX_OPENING_CANDIDATES`` are
examined; ``complete`` is False when that bound cut some.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import replace
from itertools import combinations, product
from operator import itemgetter
from typing import Callable, Iterable, Iterator

from .cards import BLACK_THREES, ORDER, RANK, RUN_ORDER, SUIT, WILD, points, sort_cards
from .deadline import checkpoint
from .game import validate
from .model import (Action, Addition, AnswerGoOut, AskGoOut, Discard, DrawStock, GoOut,
                    InvalidInput, MeldCards, MeldKind, Phase, Problem, Snapshot, SwapWild,
                    TakePile, TakeTopCard)
from . import melds as M
from . import pile as P
from .table_rules import initial_requirement

MAX_OPENING_MELDS = 3
MAX_OPENING_CANDIDATES = 4000
#: Candidates examined between two looks at the caller's deadline (engine.deadline).
CHECK_EVERY = 512
SEVEN = 7

GROUP_ORDER = {DrawStock: 0, TakePile: 1, TakeTopCard: 1, SwapWild: 4, Discard: 5,
               AskGoOut: 6, AnswerGoOut: 6}


def legal_actions(snapshot: Snapshot, seat: int | None = None) -> tuple[list[Action], bool]:
    """Every legal atomic action for ``seat`` (default: every awaiting seat), in the
    contract's order, and whether the list is complete (see module docstring)."""
    s = snapshot
    if s.turn.phase is Phase.OVER:
        return [], True
    if seat is None:
        seats = list(s.partners(s.turn.seat)) if s.turn.go_out is GoOut.ASKED else [s.turn.seat]
    else:
        seats = [seat]
    # The first of equal actions is kept: sure ones, then checked ones, seat by seat.
    unique: dict[tuple, tuple[tuple, Action]] = {}
    complete = True
    for who in seats:
        sure, checked, done = _for_seat(s, who)
        for key, entry in sure:
            unique.setdefault(key, entry)
        for a in checked:
            key, order = _entry(a)
            unique.setdefault(key, (order, a))
        complete = complete and done
    return [a for _, a in sorted(unique.values(), key=itemgetter(0))], complete


def _entry(a: Action) -> tuple[tuple, tuple]:
    """``(action_key(a), sort_key(a))``, computed once; the most frequent kinds (a single
    new meld, a single addition, a discard) take a shortcut with the very same result."""
    kind = type(a)
    if kind is MeldCards:
        if len(a.new_melds) == 1 and not a.additions:
            return _single_meld_entry(a.seat, _cards_key(a.new_melds[0]))
        if len(a.additions) == 1 and not a.new_melds:
            addition = a.additions[0]
            cards_key = _cards_key(addition.cards)
            key = ("meld", a.seat, (), ((addition.meld_id, cards_key),))
            return key, (3, len(cards_key), cards_key, key)
    if kind is Discard:
        key = ("discard", a.seat, a.card)
        return key, (5, 1, bytes((ORDER[a.card],)), key)
    key = action_key(a)
    return key, _order(a, key)


def _single_meld_entry(seat: int, cards_key: bytes) -> tuple[tuple, tuple]:
    """``(action_key, sort_key)`` of a MeldCards of ``seat`` with one new meld and no
    addition, from the meld's ``_cards_key``."""
    key = ("meld", seat, (cards_key,), ())
    return key, (2, len(cards_key), cards_key, key)


def _for_seat(s: Snapshot, seat: int
              ) -> tuple[list[tuple[tuple, tuple[tuple, Action]]], list[Action], bool]:
    """(entries ``(action_key, (sort_key, action))`` of actions legal by construction,
    the other legal actions, complete)."""
    turn = s.turn
    if turn.go_out is GoOut.ASKED:
        if seat in s.partners(turn.seat):
            return [], [AnswerGoOut(seat, True), AnswerGoOut(seat, False)], True
        return [], [], True
    if seat != turn.seat:
        return [], [], True
    if s.seats[seat].hand_hidden:
        # The list depends on that hand: a view of another seat cannot answer it.
        raise InvalidInput([Problem(f"snapshot.seats[{seat}].hand", "REQUIRED",
                                    f"seat {seat}'s hand is hidden in this snapshot; its "
                                    f"legal actions depend on it")],
                           "HIDDEN_INFORMATION_REQUIRED")
    sure: list[tuple[tuple, tuple[tuple, Action]]] = []
    if turn.phase is Phase.DRAW:
        candidates, complete = _draw_candidates(s, seat)
    else:
        candidates, complete, sure = _play_candidates(s, seat)
    quick = _QuickCheck(s, seat)
    legal = []
    for start in range(0, len(candidates), CHECK_EVERY):
        checkpoint()  # a huge hand has tens of thousands of candidates
        legal += [a for a in candidates[start:start + CHECK_EVERY] if quick.legal(a)]
    return sure, legal, complete


class _QuickCheck:
    """A shortcut past ``validate`` for the bulk of candidates whose legality needs no
    more than their content: a single meld or addition, or a discard, that leaves two or
    more cards in the hand of an opened side, with no side-level rule in play. Anything
    else goes through ``validate``. The property tests check that every listed action
    validates, so the shortcut cannot drift from the rules unnoticed."""

    def __init__(self, s: Snapshot, seat: int):
        self.s = s
        self.rules = s.ruleset
        side = s.sides[s.seats[seat].side]
        self.melds = {m.id: m for m in side.melds}
        self.hand_size = len(s.seats[seat].hand)
        self.simple = (s.turn.phase is Phase.PLAY and side.opened
                       and not self.rules.side_wild_limit)
        self.merge_groups = self.rules.groups_per_rank.name == "ONE"

    def legal(self, a: Action) -> bool:
        if self.simple:
            if isinstance(a, Discard) and self.hand_size >= 2:
                return True
            if isinstance(a, MeldCards) and len(a.new_melds) + len(a.additions) == 1:
                cards = a.new_melds[0] if a.new_melds else a.additions[0].cards
                if self.hand_size - len(cards) >= 2 and not any(c in BLACK_THREES
                                                                 for c in cards):
                    if a.new_melds and not self.merge_groups:
                        return self._new_meld_ok(cards)
                    if a.additions:
                        meld = self.melds[a.additions[0].meld_id]
                        if meld.kind is not MeldKind.BLACK_THREES:
                            return not M.check_extend(self.rules, meld, cards)[1]
        return not validate(self.s, a)

    def _new_meld_ok(self, cards: tuple[str, ...]) -> bool:
        wilds = sum(1 for c in cards if c in WILD)
        ranks = {RANK[c] for c in cards if c not in WILD}
        if len(ranks) == 1 and len(cards) - wilds >= 2 and len(cards) >= 3:
            # a group of one natural rank: only the wild rule can refuse it
            return not M.group_wild_violations(self.rules, len(cards) - wilds, wilds, "")
        return not M.check_new(self.rules, cards)[2]


# -- candidates ---------------------------------------------------------------------------

def _draw_candidates(s: Snapshot, seat: int) -> tuple[list[Action], bool]:
    rules = s.ruleset
    out: list[Action] = [DrawStock(seat)]
    top = P.top_card(s)
    complete = True
    if top is None or P.is_blocked(rules, s):
        return out, True
    side = s.sides[s.seats[seat].side]
    hand = Counter(s.seats[seat].hand)
    for meld in side.melds:
        out.append(TakePile(seat, meld_id=meld.id))
        if meld.kind is MeldKind.RUN and rules.take_top_card_to_run:
            out.append(TakeTopCard(seat, meld.id))
    if top in WILD or top in BLACK_THREES or RANK[top] == "3":
        return out, True
    rank = RANK[top]
    naturals = Counter({c: n for c, n in hand.items() if c not in WILD and RANK[c] == rank})
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    need = 0 if side.opened else initial_requirement(rules, side)
    for nat in _submultisets(naturals, 1, sum(naturals.values())):
        for wl in _submultisets(wilds, 0, min(rules.group_max_wilds, sum(wilds.values()))):
            if len(nat) + len(wl) < 2:
                continue
            hand_cards = tuple(nat + wl)
            got = points(hand_cards) + points((top,))
            if got >= need:
                out.append(TakePile(seat, hand_cards=hand_cards))
                continue
            rest = hand - Counter(hand_cards)
            combos, done = _opening_combos(s, seat, rest, need - got)
            complete = complete and done
            out.extend(TakePile(seat, hand_cards=hand_cards, new_melds=combo) for combo in combos)
    return out, complete


def _play_candidates(s: Snapshot, seat: int
                     ) -> tuple[list[Action], bool, list[tuple[tuple, tuple[tuple, Action]]]]:
    """(candidates to check, complete, entries ``(action_key, (sort_key, action))`` of
    the actions legal by construction)."""
    rules = s.ruleset
    side = s.sides[s.seats[seat].side]
    hand = Counter(s.seats[seat].hand)
    out: list[Action] = []
    sure: list[tuple[tuple, tuple[tuple, Action]]] = []
    complete = True
    if side.opened:
        # Checked groups that leave two cards are legal as they stand when no side-level
        # rule is in play (see _QuickCheck); they skip the check, and their listing keys
        # come from the cards key the shapes carry.
        simple = s.turn.phase is Phase.PLAY and not rules.side_wild_limit
        room = len(s.seats[seat].hand) - 2
        single_meld = _single_meld_builder(seat)
        for nat, nat_key, fitting in _group_batches(s, hand, side):
            checkpoint()
            for wilds, below, above, checked in fitting:
                cards = nat + wilds
                if simple and checked and len(cards) <= room:
                    key, order = _single_meld_entry(seat, below + nat_key + above)
                    sure.append((key, (order, single_meld(cards))))
                else:
                    out.append(MeldCards(seat, new_melds=(cards,)))
        out.extend(MeldCards(seat, new_melds=(m,)) for m in _other_shapes(s, hand))
        for meld in side.melds:
            for cards in _addition_shapes(s, hand, meld):
                out.append(MeldCards(seat, additions=(Addition(meld.id, cards),)))
        if rules.wild_swap:
            for meld in side.melds:
                if meld.kind is MeldKind.GROUP and len(meld.cards) < SEVEN:
                    rank = M.group_rank(meld.cards)
                    for wild in {c for c in meld.cards if c in WILD}:
                        for nat in hand:
                            if nat not in WILD and RANK[nat] == rank:
                                out.append(SwapWild(seat, meld.id, nat, wild))
    else:
        new_melds = list(_new_meld_shapes(s, hand, side))
        need = initial_requirement(rules, side)
        for i, m in enumerate(new_melds):
            if not i % CHECK_EVERY:
                checkpoint()
            if points(m) >= need:
                out.append(MeldCards(seat, new_melds=(m,)))
        combos, complete = _opening_combos(s, seat, hand, need, shapes=new_melds)
        out.extend(MeldCards(seat, new_melds=c) for c in combos if len(c) > 1)
    out.extend(Discard(seat, c) for c in hand)
    out.append(AskGoOut(seat))
    return out, complete, sure


def _single_meld_builder(seat: int) -> Callable[[tuple[str, ...]], MeldCards]:
    """A faster ``lambda cards: MeldCards(seat, new_melds=(cards,))`` for the thousand
    groups a big hand can make (issue 2's 2 ms budget for ListLegalActions): the frozen
    dataclass's ``__init__`` pays one ``object.__setattr__`` per field, so each action gets
    a copy of the fields of one constructed action instead, with its meld put in. Same
    fields in the same order: an equal action, same repr and hash (tests/test_playouts.py
    compares the two). Should MeldCards ever run code at construction or use slots, the
    real constructor is used."""
    if hasattr(MeldCards, "__post_init__") or hasattr(MeldCards, "__slots__"):
        return lambda cards: MeldCards(seat, new_melds=(cards,))
    prototype = vars(MeldCards(seat, new_melds=((),)))

    def build(cards: tuple[str, ...]) -> MeldCards:
        fields = prototype.copy()
        fields["new_melds"] = (cards,)
        action = object.__new__(MeldCards)
        object.__setattr__(action, "__dict__", fields)
        return action
    return build


def _opening_combos(s: Snapshot, seat: int, hand: Counter, need: int,
                    shapes: list[tuple[str, ...]] | None = None
                    ) -> tuple[list[tuple[tuple[str, ...], ...]], bool]:
    """Minimal sets of new melds from ``hand`` worth ``need`` points together."""
    side = s.sides[s.seats[seat].side]
    if shapes is None:
        shapes = list(_new_meld_shapes(s, hand, side))
    shapes = [m for m in shapes if not all(c in BLACK_THREES for c in m)]
    # Worths and sort keys in chunks, each worth computed once: a huge hand has tens of
    # thousands of shapes, and the caller's deadline is looked at between chunks.
    worths: list[int] = []
    keys: list[tuple] = []
    for start in range(0, len(shapes), CHECK_EVERY):
        checkpoint()
        chunk = shapes[start:start + CHECK_EVERY]
        values = [points(m) for m in chunk]
        worths += values
        keys += [(-w, [ORDER[c] for c in m]) for w, m in zip(values, chunk)]
    order = sorted(range(len(shapes)), key=keys.__getitem__)
    checkpoint()
    shapes = [shapes[i] for i in order]
    worth = [worths[i] for i in order]
    found: list[tuple[tuple[str, ...], ...]] = []
    examined = 0
    for size in range(1, MAX_OPENING_MELDS + 1):
        # The combinations of the indices and of their worths come in step.
        for combo, values in zip(combinations(range(len(shapes)), size),
                                 combinations(worth, size)):
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
                used: Counter = Counter()
                for m in melds:
                    used.update(m)
                if used - hand:
                    continue
            found.append(melds)
    return found, True


def _new_meld_shapes(s: Snapshot, hand: Counter, side) -> Iterator[tuple[str, ...]]:
    """Card multisets that could be a new meld (content is re-checked by validate)."""
    for nat, _nat_key, fitting in _group_batches(s, hand, side):
        for wilds, _below, _above, _checked in fitting:
            yield nat + wilds
    yield from _other_shapes(s, hand)


def _group_batches(s: Snapshot, hand: Counter, side) -> Iterator[tuple[
        tuple[str, ...], bytes, list[tuple[tuple[str, ...], bytes, bytes, bool]]]]:
    """Groups of one natural rank plus wilds, batched by their naturals: for each
    ``(nat, nat_key, fitting)``, every ``(wilds, below, above, checked)`` of ``fitting``
    is the group ``nat + wilds``, whose ``_cards_key`` is ``below + nat_key + above``;
    ``checked``: its content already satisfies the wild rule and the wild cap (false for a
    rank the side's group would absorb)."""
    rules = s.ruleset
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    wild_total = sum(wilds.values())
    by_rank: dict[str, Counter] = {}
    for c, n in hand.items():
        if c not in WILD and RANK[c] in M.RUN_INDEX:
            by_rank.setdefault(RANK[c], Counter())[c] = n
    merge_ranks = set()
    if rules.groups_per_rank.name == "ONE":
        merge_ranks = {M.group_rank(m.cards) for m in side.melds if m.kind is MeldKind.GROUP}
    rule = M.WILD_RULES[rules.group_wild_rule]
    penalised = rules.penalties_enabled  # three wilds carry a penalty: let validate judge
    wild_choices = [(wl, _cards_key(wl)) for wl in _submultisets(
        wilds, 0, min(rules.group_max_wilds, wild_total), as_tuple=True)]
    for rank, nats in by_rank.items():
        merging = rank in merge_ranks
        # The ORDER values of one natural rank are consecutive and no wild's falls among
        # them, so a group's cards key is the wilds below the rank, then the naturals (in
        # canonical order already), then the wilds above: the wilds' cards key cut where
        # the rank's values would go.
        lowest = ORDER[rank + "S"]
        wild_parts = []
        for wl, wild_key in wild_choices:
            cut = bisect_left(wild_key, lowest)
            wild_parts.append((wl, wild_key[:cut], wild_key[cut:]))
        fitting_by_size: dict[int, list[tuple[tuple[str, ...], bytes, bytes, bool]]] = {}
        for nat in _submultisets(nats, 1 if merging else 2, sum(nats.values()), as_tuple=True):
            n = len(nat)
            if n not in fitting_by_size:
                # Content prefilter (the wild rule on counts); validate re-checks merges.
                if merging:
                    fitting_by_size[n] = [(wl, below, above, False)
                                          for wl, below, above in wild_parts]
                else:
                    fitting_by_size[n] = [
                        (wl, below, above, not (penalised and len(wl) >= 3))
                        for wl, below, above in wild_parts
                        if n + len(wl) >= 3 and (not wl or rule(n, len(wl)))]
            yield nat, bytes([ORDER[c] for c in nat]), fitting_by_size[n]


def _other_shapes(s: Snapshot, hand: Counter) -> Iterator[tuple[str, ...]]:
    """Runs, black-3 groups and wild-only groups the hand could lay."""
    rules = s.ruleset
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    wild_total = sum(wilds.values())
    if rules.runs_allowed:
        yield from _run_shapes(hand, rules.runs_allow_wilds)
    blacks = Counter({c: n for c, n in hand.items() if c in BLACK_THREES})
    yield from _submultisets(blacks, 3, min(rules.black_three_group_max, sum(blacks.values())),
                             as_tuple=True)
    if rules.wild_only_groups:
        yield from _submultisets(wilds, 3, min(SEVEN, wild_total), as_tuple=True)


def _run_shapes(hand: Counter, allow_wild: bool) -> Iterator[tuple[str, ...]]:
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


def _addition_shapes(s: Snapshot, hand: Counter, meld) -> Iterator[tuple[str, ...]]:
    rules = s.ruleset
    wilds = Counter({c: n for c, n in hand.items() if c in WILD})
    if meld.kind is MeldKind.GROUP:
        rank = M.group_rank(meld.cards)
        nats = Counter({c: n for c, n in hand.items() if c not in WILD and RANK[c] == rank})
        room = max(0, rules.group_max_wilds - M.wild_count(meld.cards))
        for nat in _submultisets(nats, 0, sum(nats.values())):
            for wl in _submultisets(wilds, 0, min(room, sum(wilds.values()))):
                if nat or wl:
                    yield tuple(nat + wl)
    elif meld.kind is MeldKind.RUN:
        if len(meld.cards) >= SEVEN:
            return
        suit = next(SUIT[c] for c in meld.cards if c not in WILD)
        start = M.run_start(meld.cards)
        end = start + len(meld.cards) - 1
        room = SEVEN - len(meld.cards)
        allow_wild = rules.runs_allow_wilds and not M.wild_count(meld.cards)
        wild_codes = [c for c in hand if c in WILD] if allow_wild else []
        for below in range(0, room + 1):
            for above in range(0, room + 1 - below):
                if below + above == 0 or start - below < 0 or end + above >= len(RUN_ORDER):
                    continue
                positions = list(range(start - below, start)) + list(range(end + 1,
                                                                           end + above + 1))
                codes = [RUN_ORDER[i] + suit for i in positions]
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
    elif meld.kind is MeldKind.WILD_GROUP:
        yield from _submultisets(wilds, 1, min(SEVEN - len(meld.cards), sum(wilds.values())),
                                 as_tuple=True)
    elif meld.kind is MeldKind.BLACK_THREES:
        blacks = Counter({c: n for c, n in hand.items() if c in BLACK_THREES})
        yield from _submultisets(blacks, 1, sum(blacks.values()), as_tuple=True)


def _submultisets(counts: Counter, low: int, high: int, as_tuple: bool = False
                  ) -> Iterator:
    """Every sub-multiset of ``counts`` with ``low``..``high`` cards, canonical order."""
    codes = sorted(counts, key=ORDER.__getitem__)
    for picks in product(*(range(counts[c] + 1) for c in codes)):
        size = sum(picks)
        if low <= size <= high:
            cards = [c for c, k in zip(codes, picks) for _ in range(k)]
            yield tuple(cards) if as_tuple else cards


# -- equality and order -------------------------------------------------------------------

def _cards_key(cards: Iterable[str]) -> bytes:
    """The card multiset as its ORDER values ascending, one byte each (ORDER < 256):
    bytes compare like the tuple of those values, but faster."""
    return bytes(sorted([ORDER[c] for c in cards]))


def action_key(a: Action) -> tuple:
    """Equal actions (docs/api.md#resources): seat, kind, meld ids and card multisets."""
    if isinstance(a, (DrawStock,)):
        return ("draw", a.seat, _cards_key(a.cards))
    if isinstance(a, TakePile):
        return ("take", a.seat, _cards_key(a.hand_cards), a.meld_id or "",
                tuple(sorted(_cards_key(m) for m in a.new_melds)),
                tuple(sorted((x.meld_id, _cards_key(x.cards)) for x in a.additions)))
    if isinstance(a, TakeTopCard):
        return ("top", a.seat, a.meld_id)
    if isinstance(a, MeldCards):
        return ("meld", a.seat, tuple(sorted(_cards_key(m) for m in a.new_melds)),
                tuple(sorted((x.meld_id, _cards_key(x.cards)) for x in a.additions)))
    if isinstance(a, SwapWild):
        return ("swap", a.seat, a.meld_id, a.natural, a.wild)
    if isinstance(a, Discard):
        return ("discard", a.seat, a.card)
    if isinstance(a, AskGoOut):
        return ("ask", a.seat)
    return ("answer", a.seat, a.allow)


def _card_count(a: Action) -> int:
    if isinstance(a, TakePile):
        return len(a.hand_cards) + sum(len(m) for m in a.new_melds) + sum(
            len(x.cards) for x in a.additions)
    if isinstance(a, MeldCards):
        return sum(len(m) for m in a.new_melds) + sum(len(x.cards) for x in a.additions)
    if isinstance(a, Discard):
        return 1
    return 0


def sort_key(a: Action) -> tuple:
    """Draws, takes, new melds, additions, swaps, discards, permission actions; within a
    group fewer cards first, then canonical card order (docs/api.md#methods)."""
    return _order(a, action_key(a))


def _order(a: Action, key: tuple) -> tuple:
    if isinstance(a, MeldCards):
        group = 2 if a.new_melds else 3
    else:
        group = GROUP_ORDER[type(a)]
    return (group, _card_count(a), _canonical_cards(a), key)


def _canonical_cards(a: Action) -> bytes:
    if isinstance(a, TakePile):
        cards = list(a.hand_cards) + [c for m in a.new_melds for c in m]
    elif isinstance(a, MeldCards):
        cards = [c for m in a.new_melds for c in m] + [c for x in a.additions for c in x.cards]
    elif isinstance(a, Discard):
        cards = [a.card]
    elif isinstance(a, SwapWild):
        cards = [a.natural, a.wild]
    else:
        cards = []
    return _cards_key(cards)


def canonical(a: Action) -> Action:
    """The action with every card list in canonical order (how the list prints them:
    the service sorts only the page it returns, not the whole list)."""
    if isinstance(a, TakePile):
        return replace(a, hand_cards=tuple(sort_cards(a.hand_cards)),
                       new_melds=tuple(tuple(sort_cards(m)) for m in a.new_melds))
    if isinstance(a, MeldCards):
        return replace(a, new_melds=tuple(tuple(sort_cards(m)) for m in a.new_melds),
                       additions=tuple(replace(x, cards=tuple(sort_cards(x.cards)))
                                       for x in a.additions))
    return a

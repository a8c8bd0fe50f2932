"""Every legal atomic action of a position (docs/api.md#legal-actions).

Candidates are generated from the hand by shape (groups, runs, extensions, …) and each is
kept only if ``engine.game.validate`` finds it legal, so the list and the validator can
never disagree. An *atomic* action is one draw or take, one meld action with exactly one
new meld or one addition, one wild swap, one discard, or a permission action; while the
side has not opened, a take or meld may carry the further melds needed for the initial
meld. Those initial-meld combinations are *minimal* (dropping any one meld would fall short),
hold at most ``MAX_OPENING_MELDS`` melds, and at most ``MAX_OPENING_CANDIDATES`` are
examined; ``complete`` is False when that bound cut some.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from operator import itemgetter

from . import melds as M
from . import pile as P
from .action_order import HEAD, ActionKey, entry
from .cards import BLACK_THREES, RANK, WILD, points
from .deadline import checkpoint
from .game import validate
from .model import (
    Action,
    Addition,
    AnswerGoOut,
    AskGoOut,
    Discard,
    DrawStock,
    GoOut,
    MeldCards,
    MeldKind,
    Phase,
    Side,
    Snapshot,
    SwapWild,
    TakePile,
    TakeTopCard,
)
from .shapes import (
    CHECK_EVERY,
    MAX_OPENING_CANDIDATES,
    MAX_OPENING_MELDS,
    addition_shapes,
    group_batches,
    initial_meld_combos,
    new_meld_shapes,
    other_shapes,
    submultisets,
)
from .table_rules import initial_meld_requirement
from .takes import owes_hidden_replacements, pair_take_names_group
from .view import require_hand
from .vocabulary import SEVEN
from .work import groups_of_rank

__all__ = ["legal_actions", "MAX_OPENING_MELDS", "MAX_OPENING_CANDIDATES"]

#: An action in the list: ``(listing bytes, action_key, action)`` (engine.action_order).
Listed = tuple[bytes, ActionKey, Action]


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
    unique: dict[ActionKey, Listed] = {}
    complete = True
    for who in seats:
        sure, checked, done = _for_seat(s, who)
        for listed in sure:
            unique.setdefault(listed[1], listed)
        for i, a in enumerate(checked):
            if not i % CHECK_EVERY:
                checkpoint()  # the listing bytes of tens of thousands of actions
            key, order = entry(a)
            unique.setdefault(key, (order, key, a))
        complete = complete and done
    checkpoint()
    return _in_order(list(unique.values())), complete


def _in_order(listed: list[Listed]) -> list[Action]:
    """The actions by listing bytes, and by action key where those are equal (sort_key):
    one sort on bytes, and a second, on nearly sorted data, only when two are equal."""
    listed.sort(key=itemgetter(0))
    checkpoint()  # a sort cannot stop midway; between the steps the deadline is looked at
    if len({x[0] for x in listed}) < len(listed):
        checkpoint()
        listed.sort(key=itemgetter(0, 1))
    checkpoint()
    return [x[2] for x in listed]


def _for_seat(s: Snapshot, seat: int) -> tuple[list[Listed], list[Action], bool]:
    """(actions legal by construction with their listing, the other legal actions,
    complete)."""
    turn = s.turn
    if turn.go_out is GoOut.ASKED:
        if seat in s.partners(turn.seat):
            return [], [AnswerGoOut(seat, True), AnswerGoOut(seat, False)], True
        return [], [], True
    if seat != turn.seat:
        return [], [], True
    require_hand(s, seat)  # the list depends on that hand
    sure: list[Listed] = []
    if turn.phase is Phase.DRAW:
        candidates, complete = _draw_candidates(s, seat)
        if owes_hidden_replacements(s, seat):
            # a take's legality depends on the replacements it draws first (hidden): the
            # list holds the draw, which is legal whatever comes, and says it is partial
            return [], [DrawStock(seat)], len(candidates) == 1
    else:
        candidates, complete, sure = _play_candidates(s, seat)
    quick = QuickCheck(s, seat)
    legal: list[Action] = []
    for start in range(0, len(candidates), CHECK_EVERY):
        checkpoint()  # a huge hand has tens of thousands of candidates
        legal += [a for a in candidates[start : start + CHECK_EVERY] if quick.legal(a)]
    return sure, legal, complete


class QuickCheck:
    """A shortcut past ``validate`` for the bulk of candidates whose legality needs no
    more than their content: a single meld or addition, or a discard, that leaves two or
    more cards in the hand of an opened side, with no side-level rule in play; and new
    melds without black 3s that open a side (each meld's content, their points against
    the requirement) and leave two or more cards, with no side-level rule in play and no
    group merging into another. Anything else goes through ``validate``. The property
    tests check that every listed action validates, and bench/differential.py that the
    lists equal those of validate alone, so the shortcut cannot drift from the rules
    unnoticed."""

    def __init__(self, s: Snapshot, seat: int):
        self.s = s
        self.rules = s.ruleset
        side = s.sides[s.seats[seat].side]
        self.melds = {m.id: m for m in side.melds}
        self.hand_size = len(s.seats[seat].hand)
        plain = s.turn.phase is Phase.PLAY and not self.rules.side_wild_limit
        self.simple = plain and side.opened
        self.merge_groups = self.rules.groups_per_rank.name == "ONE"
        self.initial_meld = plain and not side.opened and not self.merge_groups
        self.need = initial_meld_requirement(self.rules, side)

    def legal(self, a: Action) -> bool:
        verdict: bool | None = None
        if self.simple:
            verdict = self._simple(a)
        elif self.initial_meld and isinstance(a, MeldCards) and not a.additions:
            verdict = self._opens(a.new_melds)
        return not validate(self.s, a) if verdict is None else verdict

    def _simple(self, a: Action) -> bool | None:
        """The verdict on ``a`` for an opened side, None when validate must judge."""
        if isinstance(a, Discard) and self.hand_size >= 2:
            return True
        if isinstance(a, MeldCards) and len(a.new_melds) + len(a.additions) == 1:
            cards = a.new_melds[0] if a.new_melds else a.additions[0].cards
            left = self.hand_size - len(cards)
            if left >= self.rules.hand_floor and not any(c in BLACK_THREES for c in cards):
                if a.new_melds and not self.merge_groups:
                    return self._new_meld_ok(cards)
                if a.additions:
                    meld = self.melds[a.additions[0].meld_id]
                    if meld.kind is not MeldKind.BLACK_THREES:
                        return not M.check_extend(self.rules, meld, cards)[1]
        return None

    def _opens(self, melds: tuple[tuple[str, ...], ...]) -> bool | None:
        """The verdict on laying ``melds`` (cards the hand holds) as the side's initial
        meld, None when validate must judge."""
        cards = [c for m in melds for c in m]
        if self.hand_size - len(cards) < self.rules.hand_floor or not BLACK_THREES.isdisjoint(
            cards
        ):
            return None
        if any(M.check_new(self.rules, m)[2] for m in melds):
            return False
        return points(cards) >= self.need

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
    need = 0 if side.opened else initial_meld_requirement(rules, side)
    targets = _pair_take_targets(s, side, rank)
    for nat in submultisets(naturals, 1, sum(naturals.values())):
        for wl in submultisets(wilds, 0, min(rules.group_max_wilds, sum(wilds.values()))):
            if len(nat) + len(wl) < 2:
                continue
            hand_cards = tuple(nat + wl)
            got = points(hand_cards) + points((top,))
            if got >= need:
                out.extend(TakePile(seat, hand_cards=hand_cards, meld_id=t) for t in targets)
                continue
            rest = hand - Counter(hand_cards)
            combos, done = initial_meld_combos(s, seat, rest, need - got)
            complete = complete and done
            out.extend(
                TakePile(seat, hand_cards=hand_cards, meld_id=t, new_melds=combo)
                for combo in combos
                for t in targets
            )
    return out, complete


def _pair_take_targets(s: Snapshot, side: Side, rank: str) -> list[str | None]:
    """The meldId of each pair take to list: each of the side's groups of ``rank`` where it
    holds several and a take names the one it joins, else none (docs/rules.md#further-decisions,
    item 14); validate keeps the groups the take may legally join."""
    groups = groups_of_rank(side.melds, rank)
    if len(groups) < 2 or not pair_take_names_group(s.ruleset):
        return [None]
    return [side.melds[j].id for j in groups]


def _play_candidates(s: Snapshot, seat: int) -> tuple[list[Action], bool, list[Listed]]:
    """(candidates to check, complete, entries of the actions legal by construction)."""
    side = s.sides[s.seats[seat].side]
    hand = Counter(s.seats[seat].hand)
    out: list[Action] = []
    sure: list[Listed] = []
    complete = True
    if side.opened:
        _opened_candidates(s, seat, hand, side, out, sure)
    else:
        complete = _initial_meld_candidates(s, seat, hand, side, out)
    out.extend(Discard(seat, c) for c in hand)
    out.append(AskGoOut(seat))
    return out, complete, sure


def _opened_candidates(
    s: Snapshot, seat: int, hand: Counter[str], side: Side, out: list[Action], sure: list[Listed]
) -> None:
    """Single melds, additions and swaps of an opened side."""
    # Checked groups that leave the hand floor's cards are legal as they stand when no side-level
    # rule is in play (see QuickCheck); they skip the check, and their listing bytes
    # and keys come from the cards keys the shapes carry.
    simple = s.turn.phase is Phase.PLAY and not s.ruleset.side_wild_limit
    room = len(s.seats[seat].hand) - s.ruleset.hand_floor
    single_meld = _single_meld_builder(seat)
    for nat, nat_key, fitting in group_batches(s, hand, side):
        checkpoint()
        for wilds, head, above, checked in fitting:
            cards = nat + wilds
            if simple and checked and len(cards) <= room:
                order = head + nat_key + above
                sure.append((order, ("meld", seat, (order[HEAD:],), ()), single_meld(cards)))
            else:
                out.append(MeldCards(seat, new_melds=(cards,)))
    out.extend(MeldCards(seat, new_melds=(m,)) for m in other_shapes(s, hand))
    for meld in side.melds:
        for cards in addition_shapes(s, hand, meld):
            out.append(MeldCards(seat, additions=(Addition(meld.id, cards),)))
    if s.ruleset.wild_swap:
        out.extend(_swap_candidates(seat, hand, side))


def _swap_candidates(seat: int, hand: Counter[str], side: Side) -> list[Action]:
    out: list[Action] = []
    for meld in side.melds:
        if meld.kind is MeldKind.GROUP and len(meld.cards) < SEVEN:
            rank = M.group_rank(meld.cards)
            for wild in {c for c in meld.cards if c in WILD}:
                out.extend(
                    SwapWild(seat, meld.id, nat, wild)
                    for nat in hand
                    if nat not in WILD and RANK[nat] == rank
                )
    return out


def _initial_meld_candidates(
    s: Snapshot, seat: int, hand: Counter[str], side: Side, out: list[Action]
) -> bool:
    """New melds, alone or combined, worth the side's initial meld; returns complete."""
    new_melds = list(new_meld_shapes(s, hand, side))
    need = initial_meld_requirement(s.ruleset, side)
    for i, m in enumerate(new_melds):
        if not i % CHECK_EVERY:
            checkpoint()
        if points(m) >= need:
            out.append(MeldCards(seat, new_melds=(m,)))
    combos, complete = initial_meld_combos(s, seat, hand, need, shapes=new_melds)
    out.extend(MeldCards(seat, new_melds=c) for c in combos if len(c) > 1)
    return complete


def _single_meld_builder(seat: int) -> Callable[[tuple[str, ...]], MeldCards]:
    """A faster ``lambda cards: MeldCards(seat, new_melds=(cards,))`` for the thousand
    groups a big hand can make (issue 2's 2 ms budget for ListLegalActions): the frozen
    dataclass's ``__init__`` pays one ``object.__setattr__`` per field, so each action gets
    a copy of the fields of one constructed action instead, with its meld put in. Same
    fields in the same order: an equal action, same repr and hash (tests/test_playouts.py
    compares the two). Should MeldCards ever run code at construction or have no instance
    ``__dict__`` (slots, or the compiled build's native class, whose constructor is fast),
    the real constructor is used."""
    sample = MeldCards(seat, new_melds=((),))
    if hasattr(MeldCards, "__post_init__") or not hasattr(sample, "__dict__"):
        return lambda cards: MeldCards(seat, new_melds=(cards,))
    prototype = dict(sample.__dict__)

    def build(cards: tuple[str, ...]) -> MeldCards:
        fields = prototype.copy()
        fields["new_melds"] = (cards,)
        action = object.__new__(MeldCards)
        object.__setattr__(action, "__dict__", fields)
        return action

    return build

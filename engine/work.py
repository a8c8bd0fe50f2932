"""The working copy an action is played on, and the steps every action shares.

``apply`` plays an action on a ``Work`` (mutable lists of a snapshot's zones) and freezes
it into the next snapshot; a refusal is raised as ``Refused`` with every violation found.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from . import melds as M
from .cards import RED_THREES, points
from .knowledge import known_after
from .messages import problem
from .model import (
    Event,
    InvalidInput,
    Meld,
    MeldKind,
    Penalty,
    Problem,
    Result,
    Seat,
    Snapshot,
    Violation,
)
from .ruleset import RedThreeReplacement
from .view import require_hand
from .violations import violation
from .vocabulary import SEVEN


class Refused(Exception):
    """The action is illegal: every violation found."""

    def __init__(self, violations: Sequence[Violation]):
        super().__init__()
        self.violations = list(violations)


def meld_number(meld_id: str) -> int | None:
    """N of a meld id ``m<N>`` (N in ASCII digits), else None.

    Accepts exactly what ``re.match(r"^m([0-9]+)$", meld_id)`` accepts, including its one
    trailing newline before ``$``, without a regex match per meld. ``str.isdigit`` alone
    would also take non-ASCII digits such as "²" or "٣", hence ``isascii``.
    """
    if not meld_id.startswith("m"):
        return None
    digits = meld_id[1:]
    if digits.endswith("\n"):
        digits = digits[:-1]
    if digits.isascii() and digits.isdigit():
        return int(digits)
    return None


def _age(melds: Sequence[Meld], j: int) -> tuple[int, int]:
    """How old the meld at index ``j`` is: the N of an id m<N>, the service's order of
    creation; an id of another form comes after those, in the side's order."""
    number = meld_number(melds[j].id)
    return (0, number) if number is not None else (1, j)


def groups_of_rank(melds: Sequence[Meld], rank: str) -> list[int]:
    """Indexes of the groups of ``rank`` among a side's ``melds``, the oldest first
    (docs/rules.md#further-decisions, item 14)."""
    found = [
        j for j, m in enumerate(melds) if m.kind is MeldKind.GROUP and M.group_rank(m.cards) == rank
    ]
    if len(found) > 1:
        found.sort(key=lambda j: _age(melds, j))
    return found


def next_meld_number(snapshot: Snapshot) -> int:
    """Meld ids made by the service are m<N>, N = 1 + the largest such N (docs/api.md#resources)."""
    best = 0
    for side in snapshot.sides:
        for m in side.melds:
            number = meld_number(m.id)
            if number is not None and number > best:
                best = number
    return best + 1


class Work:
    """A mutable working copy of a snapshot, for the action of ``seat``; frozen again by
    ``freeze``."""

    def __init__(self, s: Snapshot, seat: int):
        self.base = s
        self.seat = seat
        self.side = s.seats[seat].side
        self.players = len(s.seats)
        self._partners: tuple[int, ...] | None = None  # found when first needed
        self.hands = [list(x.hand) for x in s.seats]
        self.melds = [list(x.melds) for x in s.sides]
        self.side_melds = self.melds[self.side]  # the acting side's, changed in place
        self.red_threes = [list(x.red_threes) for x in s.sides]
        self.penalties: list[list[Penalty]] = [list(x.penalties) for x in s.sides]
        self.owed = [x.red_three_replacements_owed for x in s.seats]
        self.stock = list(s.stock)
        self.stock_count = s.stock_count
        self.pile = list(s.discard_pile)
        self.turn = s.turn
        self.result: Result | None = s.result
        self.has_melded = [x.has_melded for x in s.seats]
        self.events: list[Event] = []
        self.next_id: int | None = None  # found by new_id: most actions make no meld
        self.hidden_draws: list[str] | None = None
        self.hidden_drawn = [0] * len(s.seats)  # cards drawn into a hidden hand
        self.laid: list[str] = []  # cards that left the acting seat's hand (engine.knowledge)
        self.taken: list[str] = []  # pile cards that reached it

    @property
    def partners(self) -> tuple[int, ...]:
        if self._partners is None:
            self._partners = self.base.partners(self.seat)
        return self._partners

    # -- stock ------------------------------------------------------------------------
    def draw_one(self) -> str | None:
        if self.stock_count <= 0:
            return None
        self.stock_count -= 1
        if self.hidden_draws is not None:
            if not self.hidden_draws:
                raise InvalidInput(
                    [
                        Problem(
                            "action.drawStock.cards",
                            "OUT_OF_RANGE",
                            "fewer cards than the draw takes from the stock",
                        )
                    ]
                )
            return self.hidden_draws.pop(0)
        return self.stock.pop(0)

    def draw_for(self, count: int) -> list[str]:
        """Draw ``count`` cards for the seat; red 3s are laid out and replaced
        (docs/rules.md#dealing)."""
        got: list[str] = []
        while len(got) < count:
            card = self.draw_one()
            if card is None:
                break
            if card in RED_THREES:
                self.lay_red_three(card)
                continue
            got.append(card)
        self.hands[self.seat].extend(got)
        return got

    def lay_red_three(self, card: str) -> None:
        self.red_threes[self.side].append(card)
        self.events.append(Event("RED_THREE_LAID", self.seat, self.side, cards=(card,)))

    def draw_owed(self) -> None:
        """Spanish: dealt red 3s are replaced when the seat's turn first comes
        (docs/rules.md#spanish)."""
        owed = self.owed[self.seat]
        if owed and self.base.ruleset.red_threes is RedThreeReplacement.REPLACE_AT_FIRST_TURN:
            self.owed[self.seat] = 0
            self.draw_for(owed)

    # -- the hand ---------------------------------------------------------------------
    def take_from_hand(self, cards: Sequence[str], field: str) -> None:
        """Remove ``cards`` (a multiset) from the hand, or refuse CARDS_NOT_IN_HAND."""
        hand = self.hands[self.seat]
        require_hand(self.base, self.seat)
        # Removing from a copy fails exactly when some card is listed more often than the
        # hand holds it; only then are the (costlier) multisets built to name the missing.
        rest = hand.copy()
        try:
            for c in cards:
                rest.remove(c)
        except ValueError:
            missing = Counter(cards) - Counter(hand)
            raise Refused(
                [violation("CARDS_NOT_IN_HAND", field, cards=" ".join(sorted(missing.elements())))]
            ) from None
        hand[:] = rest
        self.laid.extend(cards)

    # -- melds ------------------------------------------------------------------------
    def new_id(self) -> str:
        if self.next_id is None:
            self.next_id = next_meld_number(self.base)
        mid = f"m{self.next_id}"
        self.next_id += 1
        return mid

    def own_meld(self, meld_id: str, field: str) -> int:
        """Index of the side's meld ``meld_id``: an unknown id is bad input, another side's
        meld a refusal (docs/rules.md#where-melds-go)."""
        j = next((k for k, m in enumerate(self.side_melds) if m.id == meld_id), None)
        if j is None:
            if self.base.find_meld(meld_id) is None:
                raise InvalidInput(
                    [
                        problem(
                            field,
                            "UNKNOWN_MELD_ID",
                            "no meld {meld} in the snapshot",
                            meld=repr(meld_id),
                        )
                    ]
                )
            raise Refused([violation("NOT_OWN_MELD", field, meld=meld_id)])
        return j

    def group_of_rank(self, rank: str) -> int | None:
        """Index of the side's oldest group of ``rank``, if any (``groups_of_rank``)."""
        found = groups_of_rank(self.side_melds, rank)
        return found[0] if found else None

    def create_meld(self, kind: MeldKind, cards: tuple[str, ...]) -> Meld:
        meld = Meld(self.new_id(), cards, self.seat, kind)
        self.side_melds.append(meld)
        self.events.append(
            Event("MELD_CREATED", self.seat, self.side, meld.id, cards, points(cards))
        )
        self.completion_event(meld, 0)
        return meld

    def extend_meld(self, index: int, combined: tuple[str, ...], cards: tuple[str, ...]) -> None:
        """The side's meld ``index`` now holds ``combined``, ``cards`` added: its events,
        and the turn notes a partner's meld grew (spanish premiums)."""
        before = self.side_melds[index]
        after = replace(before, cards=combined)
        self.side_melds[index] = after
        self.events.append(
            Event("MELD_EXTENDED", self.seat, self.side, after.id, cards, points(cards))
        )
        self.completion_event(after, len(before.cards))
        if before.laid_by in self.partners:
            self.turn = replace(self.turn, added_to_partner_melds=True)

    def completion_event(self, meld: Meld, size_before: int) -> None:
        if size_before < SEVEN <= len(meld.cards) and meld.kind is not MeldKind.BLACK_THREES:
            kind = "SAMBA_COMPLETED" if meld.kind is MeldKind.RUN else "CANASTA_COMPLETED"
            self.events.append(Event(kind, self.seat, self.side, meld.id, meld.cards))

    # -- the turn ---------------------------------------------------------------------
    def mark_melded(self) -> None:
        self.turn = self.turn.replaced(melded_this_turn=True)

    def _known(self, i: int, seat: Seat) -> tuple[str, ...]:
        """``seat.known`` after the action: only the acting seat's changes, and only when
        cards left its hand or the pile reached it (a hand that only grew keeps it)."""
        if i != self.seat or not (self.laid or self.taken) or seat.hand_hidden:
            return seat.known
        if not (seat.known or self.taken):
            return ()
        return known_after(seat.known, self.laid, self.taken, self.hands[i])

    def freeze(self) -> Snapshot:
        # ``replaced`` names only what an action changes; the compiled build writes it out
        # per class (dataclass_inits.py), at the cost of the constructor.
        s = self.base
        seats = tuple(
            seat.replaced(
                hand=tuple(self.hands[i]) if not seat.hand_hidden else (),
                hand_count=(seat.hand_count + self.hidden_drawn[i])
                if seat.hand_hidden
                else len(self.hands[i]),
                has_melded=self.has_melded[i],
                red_three_replacements_owed=self.owed[i],
                known=self._known(i, seat),
            )
            for i, seat in enumerate(s.seats)
        )
        sides = tuple(
            side.replaced(
                melds=tuple(self.melds[i]),
                red_threes=tuple(self.red_threes[i]),
                penalties=tuple(self.penalties[i]),
            )
            for i, side in enumerate(s.sides)
        )
        return s.replaced(
            seats=seats,
            sides=sides,
            stock=tuple(self.stock) if not s.stock_hidden else (),
            stock_count=self.stock_count,
            discard_pile=tuple(self.pile),
            turn=self.turn,
            ply=s.ply + 1,
            result=self.result,
            signature="",
        )

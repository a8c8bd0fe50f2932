"""The state of a deal and the actions on it: immutable values (docs/api.md#resources).

A ``Snapshot`` is one instant of a deal. The engine never mutates one: ``apply`` returns a
new snapshot. Output-only facts (meld status, pile state, awaiting seats, …) are functions
of the snapshot, computed where needed (engine.melds, engine.pile), never stored.

Every value is a plain frozen dataclass. The compiled build compiles a copy of this module
in which each class writes out the ``__init__`` its dataclass would generate (mypyc
compiles a written ``__init__``; the generated one stays interpreted and builds a value
many times slower: docs/performance.md#the-compiled-build); the build's staging step
derives it from the fields below (dataclass_inits.py, tests/engine/test_model_init.py).
A class that the engine copies with a few changes says ``replaced = _replaced``: a copy
names only what changes (``seat.replaced(hand=...)``), and the build writes that method out
too, every field a keyword of its own, at the constructor's cost.
``Problem`` and ``InvalidInput`` (engine.problems) are part of this vocabulary.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from .problems import InvalidInput, Problem
from .ruleset import DEFAULT_PROFILE, Ruleset

__all__ = [
    "Phase",
    "GoOut",
    "MeldKind",
    "MeldStatus",
    "EndReason",
    "RunEnd",
    "Meld",
    "Penalty",
    "Seat",
    "Side",
    "Turn",
    "Premium",
    "Result",
    "RulesetRef",
    "Snapshot",
    "Addition",
    "DrawStock",
    "TakePile",
    "TakeTopCard",
    "MeldCards",
    "SwapWild",
    "Discard",
    "AskGoOut",
    "AnswerGoOut",
    "Action",
    "Violation",
    "Event",
    "SideScore",
    "ScoreReport",
    "Outcome",
    "MeldCheck",
    "Problem",
    "InvalidInput",
]


class Phase(enum.Enum):
    DRAW = "DRAW"
    PLAY = "PLAY"
    OVER = "OVER"


class GoOut(enum.Enum):
    """The "may I go out?" question of the current turn (docs/rules.md#may-i-go-out)."""

    NOT_ASKED = "NOT_ASKED"
    ASKED = "ASKED"
    GRANTED = "GRANTED"
    DENIED = "DENIED"


class MeldKind(enum.Enum):
    GROUP = "GROUP"
    RUN = "RUN"
    BLACK_THREES = "BLACK_THREES"
    WILD_GROUP = "WILD_GROUP"


class MeldStatus(enum.Enum):
    INCOMPLETE = "INCOMPLETE"
    CANASTA = "CANASTA"
    SAMBA = "SAMBA"
    CLOSED = "CLOSED"


class EndReason(enum.Enum):
    WENT_OUT = "WENT_OUT"
    STOCK_EXHAUSTED = "STOCK_EXHAUSTED"


class RunEnd(enum.Enum):
    LOW = "LOW"
    HIGH = "HIGH"


_T = TypeVar("_T")


def _replaced(self: _T, **changes: Any) -> _T:
    """``self`` with the fields ``changes`` names set anew (``dataclasses.replace``), as the
    method ``replaced`` of the classes that take it; the compiled build writes it out per
    class (dataclass_inits.py)."""
    return cast(_T, dataclasses.replace(cast(Any, self), **changes))


@dataclass(frozen=True)
class Meld:
    """Cards on the table. Runs are kept low to high; groups in the order laid."""

    id: str
    cards: tuple[str, ...]
    laid_by: int
    kind: MeldKind


@dataclass(frozen=True)
class Penalty:
    code: str
    points: int


@dataclass(frozen=True)
class Seat:
    seat: int
    side: int
    hand: tuple[str, ...]
    hand_count: int
    has_melded: bool = False
    dealt: tuple[str, ...] = ()
    red_three_replacements_owed: int = 0
    #: The cards every seat knows this seat holds: taken with the pile and not laid down
    #: since, in the canonical order (engine.knowledge). Public: every view keeps it.
    known: tuple[str, ...] = ()
    #: A view hides the cards of this seat, which holds none (one that went out): its
    #: emptied ``dealt`` is hidden, not a claim (engine.view). Set only when ``hand_count``
    #: is 0: a count > 0 with no card listed says it already. The wire's ``handHidden``.
    redacted: bool = False

    replaced = _replaced

    @property
    def hand_hidden(self) -> bool:
        """No card of the hand is listed because the view hides them: a hand of
        ``hand_count`` > 0 with none listed, or a redacted one (even of 0 cards)."""
        return not self.hand and (self.hand_count > 0 or self.redacted)


@dataclass(frozen=True)
class Side:
    side: int
    seats: tuple[int, ...]
    match_score: int = 0
    melds: tuple[Meld, ...] = ()
    red_threes: tuple[str, ...] = ()
    penalties: tuple[Penalty, ...] = ()

    replaced = _replaced

    @property
    def opened(self) -> bool:
        """The side made its initial meld: it has a meld on the table
        (docs/rules.md#initial-meld)."""
        return bool(self.melds)


@dataclass(frozen=True)
class Turn:
    seat: int
    phase: Phase
    took_pile: bool = False
    melded_this_turn: bool = False
    added_to_partner_melds: bool = False
    go_out: GoOut = GoOut.NOT_ASKED

    replaced = _replaced


@dataclass(frozen=True)
class Premium:
    kind: str
    points: int


@dataclass(frozen=True)
class Result:
    reason: EndReason
    seat: int | None = None
    concealed: bool = False
    premium: Premium | None = None


@dataclass(frozen=True)
class RulesetRef:
    """What the client asked for, echoed back: profile spec, overrides and pinned version."""

    profile: str = DEFAULT_PROFILE
    overrides: Mapping[str, object] = dataclasses.field(
        default_factory=dict, hash=False, compare=False
    )
    version: str = ""


@dataclass(frozen=True)
class Snapshot:
    ruleset: Ruleset
    deal_number: int
    dealer: int
    seats: tuple[Seat, ...]
    sides: tuple[Side, ...]
    stock: tuple[str, ...]
    stock_count: int
    discard_pile: tuple[str, ...]
    turn: Turn
    ply: int = 0
    result: Result | None = None
    ruleset_ref: RulesetRef = dataclasses.field(default_factory=RulesetRef, compare=False)
    signature: str = dataclasses.field(default="", compare=False)
    #: SHA-256 commitment to the deal's secret seed (docs/dealing.md#5-deals-players-can-verify);
    #: "" for a deal made before commitments existed. Public: every view keeps it.
    deal_commitment: str = ""

    replaced = _replaced

    @property
    def stock_hidden(self) -> bool:
        return not self.stock and self.stock_count > 0

    @property
    def is_view(self) -> bool:
        """A player's or spectator's view: some seat's hand is hidden (docs/api.md#methods)."""
        return any(s.hand_hidden for s in self.seats)

    @property
    def players(self) -> int:
        return len(self.seats)

    def side_of(self, seat: int) -> Side:
        return self.sides[self.seats[seat].side]

    def partners(self, seat: int) -> tuple[int, ...]:
        return tuple(s for s in self.side_of(seat).seats if s != seat)

    def find_meld(self, meld_id: str) -> tuple[int, Meld] | None:
        for side in self.sides:
            for meld in side.melds:
                if meld.id == meld_id:
                    return side.side, meld
        return None


# -- actions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Addition:
    meld_id: str
    cards: tuple[str, ...]
    end: RunEnd | None = None


@dataclass(frozen=True)
class DrawStock:
    seat: int
    cards: tuple[str, ...] = ()  # only with a hidden stock: the chance outcome
    expected_ply: int | None = None


@dataclass(frozen=True)
class TakePile:
    seat: int
    hand_cards: tuple[str, ...] = ()
    meld_id: str | None = None
    new_melds: tuple[tuple[str, ...], ...] = ()
    additions: tuple[Addition, ...] = ()
    expected_ply: int | None = None


@dataclass(frozen=True)
class TakeTopCard:
    seat: int
    meld_id: str
    expected_ply: int | None = None


@dataclass(frozen=True)
class MeldCards:
    seat: int
    new_melds: tuple[tuple[str, ...], ...] = ()
    additions: tuple[Addition, ...] = ()
    expected_ply: int | None = None


@dataclass(frozen=True)
class SwapWild:
    seat: int
    meld_id: str
    natural: str
    wild: str
    expected_ply: int | None = None


@dataclass(frozen=True)
class Discard:
    seat: int
    card: str
    expected_ply: int | None = None


@dataclass(frozen=True)
class AskGoOut:
    seat: int
    expected_ply: int | None = None


@dataclass(frozen=True)
class AnswerGoOut:
    seat: int
    allow: bool
    expected_ply: int | None = None


Action = (
    DrawStock | TakePile | TakeTopCard | MeldCards | SwapWild | Discard | AskGoOut | AnswerGoOut
)


# -- answers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """Why a well-formed action is illegal: a code of docs/api.md#violation-codes and the rule."""

    code: str
    message: str
    rule: str
    field: str = ""
    details: Mapping[str, str] = dataclasses.field(default_factory=dict, hash=False)
    penalty_points: int = 0
    #: the English template ``message`` was said from and its parameters (engine.messages),
    #: so that the service says it in another language; they take no part in equality
    template: str = dataclasses.field(default="", compare=False)
    params: Mapping[str, str] = dataclasses.field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Event:
    type: str
    seat: int | None = None
    side: int | None = None
    meld_id: str = ""
    cards: tuple[str, ...] = ()
    points: int = 0


@dataclass(frozen=True)
class SideScore:
    side: int
    meld_points: int = 0
    natural_canastas: int = 0
    mixed_canastas: int = 0
    sambas: int = 0
    bolivias: int = 0
    canasta_bonus: int = 0
    samba_bonus: int = 0
    bolivia_bonus: int = 0
    red_threes: int = 0
    red_three_points: int = 0
    going_out_bonus: int = 0
    concealed_bonus: int = 0
    hand_penalty: int = 0
    penalty_points: int = 0
    deal_total: int = 0
    match_total: int = 0


@dataclass(frozen=True)
class ScoreReport:
    sides: tuple[SideScore, ...]
    match_over: bool
    winner_side: int | None
    draw: bool
    provisional: bool


@dataclass(frozen=True)
class Outcome:
    """ApplyAction's answer: the next state when legal, else the input (plus penalties)."""

    legal: bool
    violations: tuple[Violation, ...]
    snapshot: Snapshot
    events: tuple[Event, ...] = ()
    score: ScoreReport | None = None


@dataclass(frozen=True)
class MeldCheck:
    valid: bool
    kind: MeldKind | None
    status: MeldStatus | None
    natural: bool
    points: int
    violations: tuple[Violation, ...] = ()
    note: str = ""  # a condition the content check cannot judge (black 3s: going out)

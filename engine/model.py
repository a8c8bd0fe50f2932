"""The state of a deal and the actions on it: immutable values (docs/api.md#resources).

A ``Snapshot`` is one instant of a deal. The engine never mutates one: ``apply`` returns a
new snapshot. Output-only facts (meld status, pile state, awaiting seats, …) are functions
of the snapshot, computed where needed (engine.melds, engine.pile), never stored.

Every value is a frozen dataclass with its own ``__init__`` (``init=False``), written out
rather than generated: mypyc compiles a written one, and the compiled build then builds a
value many times faster than through the generated ``__init__``, which stays interpreted
(a four-field class called by keyword in a compiled loop: 1.8 µs against 0.11 µs;
docs/performance.md#the-compiled-build). A
field given by a default factory takes None for "not given". tests/test_model_init.py
checks that each ``__init__`` takes the dataclass's fields, in order, with their defaults,
and sets every one.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .ruleset import Ruleset


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


@dataclass(frozen=True, init=False)
class Meld:
    """Cards on the table. Runs are kept low to high; groups in the order laid."""

    id: str
    cards: tuple[str, ...]
    laid_by: int
    kind: MeldKind

    def __init__(self, id: str, cards: tuple[str, ...], laid_by: int, kind: MeldKind) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "laid_by", laid_by)
        object.__setattr__(self, "kind", kind)


@dataclass(frozen=True, init=False)
class Penalty:
    code: str
    points: int

    def __init__(self, code: str, points: int) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, init=False)
class Seat:
    seat: int
    side: int
    hand: tuple[str, ...]
    hand_count: int
    has_melded: bool = False
    dealt: tuple[str, ...] = ()
    red_three_replacements_owed: int = 0

    def __init__(
        self,
        seat: int,
        side: int,
        hand: tuple[str, ...],
        hand_count: int,
        has_melded: bool = False,
        dealt: tuple[str, ...] = (),
        red_three_replacements_owed: int = 0,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "side", side)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "hand_count", hand_count)
        object.__setattr__(self, "has_melded", has_melded)
        object.__setattr__(self, "dealt", dealt)
        object.__setattr__(self, "red_three_replacements_owed", red_three_replacements_owed)

    @property
    def hand_hidden(self) -> bool:
        return not self.hand and self.hand_count > 0


@dataclass(frozen=True, init=False)
class Side:
    side: int
    seats: tuple[int, ...]
    match_score: int = 0
    melds: tuple[Meld, ...] = ()
    red_threes: tuple[str, ...] = ()
    penalties: tuple[Penalty, ...] = ()

    def __init__(
        self,
        side: int,
        seats: tuple[int, ...],
        match_score: int = 0,
        melds: tuple[Meld, ...] = (),
        red_threes: tuple[str, ...] = (),
        penalties: tuple[Penalty, ...] = (),
    ) -> None:
        object.__setattr__(self, "side", side)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "match_score", match_score)
        object.__setattr__(self, "melds", melds)
        object.__setattr__(self, "red_threes", red_threes)
        object.__setattr__(self, "penalties", penalties)

    @property
    def opened(self) -> bool:
        """The side made its initial meld: it has a meld on the table
        (docs/rules.md#initial-meld)."""
        return bool(self.melds)


@dataclass(frozen=True, init=False)
class Turn:
    seat: int
    phase: Phase
    took_pile: bool = False
    melded_this_turn: bool = False
    added_to_partner_melds: bool = False
    go_out: GoOut = GoOut.NOT_ASKED

    def __init__(
        self,
        seat: int,
        phase: Phase,
        took_pile: bool = False,
        melded_this_turn: bool = False,
        added_to_partner_melds: bool = False,
        go_out: GoOut = GoOut.NOT_ASKED,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "took_pile", took_pile)
        object.__setattr__(self, "melded_this_turn", melded_this_turn)
        object.__setattr__(self, "added_to_partner_melds", added_to_partner_melds)
        object.__setattr__(self, "go_out", go_out)


@dataclass(frozen=True, init=False)
class Premium:
    kind: str
    points: int

    def __init__(self, kind: str, points: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, init=False)
class Result:
    reason: EndReason
    seat: int | None = None
    concealed: bool = False
    premium: Premium | None = None

    def __init__(
        self,
        reason: EndReason,
        seat: int | None = None,
        concealed: bool = False,
        premium: Premium | None = None,
    ) -> None:
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "concealed", concealed)
        object.__setattr__(self, "premium", premium)


@dataclass(frozen=True, init=False)
class RulesetRef:
    """What the client asked for, echoed back: profile spec, overrides and pinned version."""

    profile: str = "classic"
    overrides: Mapping[str, object] = dataclasses.field(
        default_factory=dict, hash=False, compare=False
    )
    version: str = ""

    def __init__(
        self,
        profile: str = "classic",
        overrides: Mapping[str, object] | None = None,
        version: str = "",
    ) -> None:
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "overrides", {} if overrides is None else overrides)
        object.__setattr__(self, "version", version)


@dataclass(frozen=True, init=False)
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

    def __init__(
        self,
        ruleset: Ruleset,
        deal_number: int,
        dealer: int,
        seats: tuple[Seat, ...],
        sides: tuple[Side, ...],
        stock: tuple[str, ...],
        stock_count: int,
        discard_pile: tuple[str, ...],
        turn: Turn,
        ply: int = 0,
        result: Result | None = None,
        ruleset_ref: RulesetRef | None = None,
        signature: str = "",
    ) -> None:
        object.__setattr__(self, "ruleset", ruleset)
        object.__setattr__(self, "deal_number", deal_number)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "sides", sides)
        object.__setattr__(self, "stock", stock)
        object.__setattr__(self, "stock_count", stock_count)
        object.__setattr__(self, "discard_pile", discard_pile)
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "ply", ply)
        object.__setattr__(self, "result", result)
        object.__setattr__(
            self, "ruleset_ref", RulesetRef() if ruleset_ref is None else ruleset_ref
        )
        object.__setattr__(self, "signature", signature)

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


@dataclass(frozen=True, init=False)
class Addition:
    meld_id: str
    cards: tuple[str, ...]
    end: RunEnd | None = None

    def __init__(self, meld_id: str, cards: tuple[str, ...], end: RunEnd | None = None) -> None:
        object.__setattr__(self, "meld_id", meld_id)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "end", end)


@dataclass(frozen=True, init=False)
class DrawStock:
    seat: int
    cards: tuple[str, ...] = ()  # only with a hidden stock: the chance outcome
    expected_ply: int | None = None

    def __init__(
        self, seat: int, cards: tuple[str, ...] = (), expected_ply: int | None = None
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "expected_ply", expected_ply)


@dataclass(frozen=True, init=False)
class TakePile:
    seat: int
    hand_cards: tuple[str, ...] = ()
    meld_id: str | None = None
    new_melds: tuple[tuple[str, ...], ...] = ()
    additions: tuple[Addition, ...] = ()
    expected_ply: int | None = None

    def __init__(
        self,
        seat: int,
        hand_cards: tuple[str, ...] = (),
        meld_id: str | None = None,
        new_melds: tuple[tuple[str, ...], ...] = (),
        additions: tuple[Addition, ...] = (),
        expected_ply: int | None = None,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "hand_cards", hand_cards)
        object.__setattr__(self, "meld_id", meld_id)
        object.__setattr__(self, "new_melds", new_melds)
        object.__setattr__(self, "additions", additions)
        object.__setattr__(self, "expected_ply", expected_ply)


@dataclass(frozen=True, init=False)
class TakeTopCard:
    seat: int
    meld_id: str
    expected_ply: int | None = None

    def __init__(self, seat: int, meld_id: str, expected_ply: int | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "meld_id", meld_id)
        object.__setattr__(self, "expected_ply", expected_ply)


@dataclass(frozen=True, init=False)
class MeldCards:
    seat: int
    new_melds: tuple[tuple[str, ...], ...] = ()
    additions: tuple[Addition, ...] = ()
    expected_ply: int | None = None

    def __init__(
        self,
        seat: int,
        new_melds: tuple[tuple[str, ...], ...] = (),
        additions: tuple[Addition, ...] = (),
        expected_ply: int | None = None,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "new_melds", new_melds)
        object.__setattr__(self, "additions", additions)
        object.__setattr__(self, "expected_ply", expected_ply)


@dataclass(frozen=True, init=False)
class SwapWild:
    seat: int
    meld_id: str
    natural: str
    wild: str
    expected_ply: int | None = None

    def __init__(
        self, seat: int, meld_id: str, natural: str, wild: str, expected_ply: int | None = None
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "meld_id", meld_id)
        object.__setattr__(self, "natural", natural)
        object.__setattr__(self, "wild", wild)
        object.__setattr__(self, "expected_ply", expected_ply)


@dataclass(frozen=True, init=False)
class Discard:
    seat: int
    card: str
    expected_ply: int | None = None

    def __init__(self, seat: int, card: str, expected_ply: int | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "expected_ply", expected_ply)


@dataclass(frozen=True, init=False)
class AskGoOut:
    seat: int
    expected_ply: int | None = None

    def __init__(self, seat: int, expected_ply: int | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "expected_ply", expected_ply)


@dataclass(frozen=True, init=False)
class AnswerGoOut:
    seat: int
    allow: bool
    expected_ply: int | None = None

    def __init__(self, seat: int, allow: bool, expected_ply: int | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "allow", allow)
        object.__setattr__(self, "expected_ply", expected_ply)


Action = (
    DrawStock | TakePile | TakeTopCard | MeldCards | SwapWild | Discard | AskGoOut | AnswerGoOut
)


# -- answers ------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class Violation:
    """Why a well-formed action is illegal: a code of docs/api.md#violation-codes and the rule."""

    code: str
    message: str
    rule: str
    field: str = ""
    details: Mapping[str, str] = dataclasses.field(default_factory=dict, hash=False)
    penalty_points: int = 0

    def __init__(
        self,
        code: str,
        message: str,
        rule: str,
        field: str = "",
        details: Mapping[str, str] | None = None,
        penalty_points: int = 0,
    ) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "field", field)
        object.__setattr__(self, "details", {} if details is None else details)
        object.__setattr__(self, "penalty_points", penalty_points)


@dataclass(frozen=True, init=False)
class Event:
    type: str
    seat: int | None = None
    side: int | None = None
    meld_id: str = ""
    cards: tuple[str, ...] = ()
    points: int = 0

    def __init__(
        self,
        type: str,
        seat: int | None = None,
        side: int | None = None,
        meld_id: str = "",
        cards: tuple[str, ...] = (),
        points: int = 0,
    ) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "side", side)
        object.__setattr__(self, "meld_id", meld_id)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "points", points)


@dataclass(frozen=True, init=False)
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

    def __init__(
        self,
        side: int,
        meld_points: int = 0,
        natural_canastas: int = 0,
        mixed_canastas: int = 0,
        sambas: int = 0,
        bolivias: int = 0,
        canasta_bonus: int = 0,
        samba_bonus: int = 0,
        bolivia_bonus: int = 0,
        red_threes: int = 0,
        red_three_points: int = 0,
        going_out_bonus: int = 0,
        concealed_bonus: int = 0,
        hand_penalty: int = 0,
        penalty_points: int = 0,
        deal_total: int = 0,
        match_total: int = 0,
    ) -> None:
        object.__setattr__(self, "side", side)
        object.__setattr__(self, "meld_points", meld_points)
        object.__setattr__(self, "natural_canastas", natural_canastas)
        object.__setattr__(self, "mixed_canastas", mixed_canastas)
        object.__setattr__(self, "sambas", sambas)
        object.__setattr__(self, "bolivias", bolivias)
        object.__setattr__(self, "canasta_bonus", canasta_bonus)
        object.__setattr__(self, "samba_bonus", samba_bonus)
        object.__setattr__(self, "bolivia_bonus", bolivia_bonus)
        object.__setattr__(self, "red_threes", red_threes)
        object.__setattr__(self, "red_three_points", red_three_points)
        object.__setattr__(self, "going_out_bonus", going_out_bonus)
        object.__setattr__(self, "concealed_bonus", concealed_bonus)
        object.__setattr__(self, "hand_penalty", hand_penalty)
        object.__setattr__(self, "penalty_points", penalty_points)
        object.__setattr__(self, "deal_total", deal_total)
        object.__setattr__(self, "match_total", match_total)


@dataclass(frozen=True, init=False)
class ScoreReport:
    sides: tuple[SideScore, ...]
    match_over: bool
    winner_side: int | None
    draw: bool
    provisional: bool

    def __init__(
        self,
        sides: tuple[SideScore, ...],
        match_over: bool,
        winner_side: int | None,
        draw: bool,
        provisional: bool,
    ) -> None:
        object.__setattr__(self, "sides", sides)
        object.__setattr__(self, "match_over", match_over)
        object.__setattr__(self, "winner_side", winner_side)
        object.__setattr__(self, "draw", draw)
        object.__setattr__(self, "provisional", provisional)


@dataclass(frozen=True, init=False)
class Outcome:
    """ApplyAction's answer: the next state when legal, else the input (plus penalties)."""

    legal: bool
    violations: tuple[Violation, ...]
    snapshot: Snapshot
    events: tuple[Event, ...] = ()
    score: ScoreReport | None = None

    def __init__(
        self,
        legal: bool,
        violations: tuple[Violation, ...],
        snapshot: Snapshot,
        events: tuple[Event, ...] = (),
        score: ScoreReport | None = None,
    ) -> None:
        object.__setattr__(self, "legal", legal)
        object.__setattr__(self, "violations", violations)
        object.__setattr__(self, "snapshot", snapshot)
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "score", score)


@dataclass(frozen=True, init=False)
class MeldCheck:
    valid: bool
    kind: MeldKind | None
    status: MeldStatus | None
    natural: bool
    points: int
    violations: tuple[Violation, ...] = ()
    note: str = ""  # a condition the content check cannot judge (black 3s: going out)

    def __init__(
        self,
        valid: bool,
        kind: MeldKind | None,
        status: MeldStatus | None,
        natural: bool,
        points: int,
        violations: tuple[Violation, ...] = (),
        note: str = "",
    ) -> None:
        object.__setattr__(self, "valid", valid)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "natural", natural)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "violations", violations)
        object.__setattr__(self, "note", note)


# -- bad input ----------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class Problem:
    """One reason a request is malformed: field path (JSON names), reason, description.

    ``template`` and ``params`` say how the English description was made (``engine.messages``),
    so that the service can say it in another language; they take no part in equality."""

    field: str
    reason: str
    description: str
    template: str = dataclasses.field(default="", compare=False)
    params: Mapping[str, str] = dataclasses.field(default_factory=dict, compare=False, hash=False)

    def __init__(
        self,
        field: str,
        reason: str,
        description: str,
        template: str = "",
        params: Mapping[str, str] | None = None,
    ) -> None:
        object.__setattr__(self, "field", field)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "params", {} if params is None else params)


class InvalidInput(ValueError):
    """A malformed request: every problem found, never repaired (docs/rules.md#bad-input)."""

    def __init__(self, problems: Sequence[Problem], kind: str = "INVALID_REQUEST"):
        super().__init__("; ".join(f"{p.field}: {p.description}" for p in problems))
        # kept as given: the service's bounded ProblemList carries the count it left out
        self.problems = problems
        self.kind = kind  # INVALID_REQUEST, HIDDEN_INFORMATION_REQUIRED, SNAPSHOT_IS_VIEW, …

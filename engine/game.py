"""Validate and apply actions: the only ways a deal changes (docs/rules.md#turn, #discard-pile,
#melding, #going-out).

``apply`` computes the next snapshot on a private working copy and freezes it; ``validate``
is ``apply``'s verdict without the state, so the two can never disagree.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Sequence

from . import melds as M
from . import pile as P
from . import table_rules as T
from .deadline import checkpoint
from .cards import BLACK_THREES, RANK, RED_THREES, WILD, points
from .model import (Action, Addition, AnswerGoOut, AskGoOut, Discard, DrawStock, EndReason,
                    Event, GoOut, InvalidInput, Meld, MeldCards, MeldKind, Outcome, Penalty,
                    Phase, Premium, Problem, Result, Seat, Side, Snapshot, SwapWild, TakePile,
                    TakeTopCard, Turn, Violation)
from .ruleset import ExtendTake, GroupsPerRank, RedThreeReplacement
from .violations import violation

SEVEN = 7

ACTION_FIELD = {DrawStock: "drawStock", TakePile: "takePile", TakeTopCard: "takeTopCard",
                MeldCards: "meld", SwapWild: "swapWild", Discard: "discard",
                AskGoOut: "askGoOut", AnswerGoOut: "answerGoOut"}
DRAW_ACTIONS = (DrawStock, TakePile, TakeTopCard)


def _require_plain_fields(cls: type, names: tuple[str, ...]) -> None:
    """Stop at import unless ``cls`` has exactly the init fields ``names`` and no
    __post_init__. A few hot paths build ``cls(...)`` field by field instead of calling
    dataclasses.replace (several times slower); this keeps them equal to ``replace`` should
    a field ever be added."""
    declared = cls.__dataclass_fields__  # every field, InitVar and ClassVar ones included
    if (tuple(declared) != names or not all(f.init for f in declared.values())
            or hasattr(cls, "__post_init__")):
        raise ImportError(f"engine.game builds {cls.__name__} field by field; update it")


_require_plain_fields(Turn, ("seat", "phase", "took_pile", "melded_this_turn",
                             "added_to_partner_melds", "go_out"))
_require_plain_fields(Seat, ("seat", "side", "hand", "hand_count", "has_melded", "dealt",
                             "red_three_replacements_owed"))
_require_plain_fields(Side, ("side", "seats", "match_score", "melds", "red_threes",
                             "penalties"))
_require_plain_fields(Snapshot, ("ruleset", "deal_number", "dealer", "seats", "sides", "stock",
                                 "stock_count", "discard_pile", "turn", "ply", "result",
                                 "ruleset_ref", "signature"))


class _Refused(Exception):
    def __init__(self, violations: Sequence[Violation]):
        self.violations = list(violations)


class _Work:
    """A mutable working copy of a snapshot; frozen again by ``freeze``."""

    def __init__(self, s: Snapshot):
        self.base = s
        self.hands = [list(seat.hand) for seat in s.seats]
        self.melds = [list(side.melds) for side in s.sides]
        self.red_threes = [list(side.red_threes) for side in s.sides]
        self.penalties = [list(side.penalties) for side in s.sides]
        self.owed = [seat.red_three_replacements_owed for seat in s.seats]
        self.stock = list(s.stock)
        self.stock_count = s.stock_count
        self.pile = list(s.discard_pile)
        self.turn = s.turn
        self.result: Result | None = s.result
        self.has_melded = [seat.has_melded for seat in s.seats]
        self.events: list[Event] = []
        self.next_id: int | None = None  # found by new_id: most actions make no meld
        self.hidden_draws: list[str] | None = None
        self.hidden_drawn = [0] * len(s.seats)  # cards drawn into a hidden hand

    # -- stock ------------------------------------------------------------------------
    def draw_one(self) -> str | None:
        if self.stock_count <= 0:
            return None
        self.stock_count -= 1
        if self.hidden_draws is not None:
            if not self.hidden_draws:
                raise InvalidInput([Problem("action.drawStock.cards", "OUT_OF_RANGE",
                                            "fewer cards than the draw takes from the stock")])
            return self.hidden_draws.pop(0)
        return self.stock.pop(0)

    def draw_for(self, seat: int, count: int) -> list[str]:
        """Draw ``count`` cards; red 3s are laid out and replaced (docs/rules.md#dealing)."""
        got: list[str] = []
        side = self.base.seats[seat].side
        while len(got) < count:
            card = self.draw_one()
            if card is None:
                break
            if card in RED_THREES:
                self.red_threes[side].append(card)
                self.events.append(Event("RED_THREE_LAID", seat, side, cards=(card,)))
                continue
            got.append(card)
        self.hands[seat].extend(got)
        return got

    # -- melds ------------------------------------------------------------------------
    def new_id(self) -> str:
        if self.next_id is None:
            self.next_id = T.next_meld_number(self.base)
        mid = f"m{self.next_id}"
        self.next_id += 1
        return mid

    def freeze(self) -> Snapshot:
        # Constructors rather than dataclasses.replace: the same values (every field is
        # passed; see _require_plain_fields), at a fraction of the cost.
        s = self.base
        seats = tuple(
            Seat(seat=seat.seat, side=seat.side,
                 hand=tuple(self.hands[i]) if not seat.hand_hidden else (),
                 hand_count=(seat.hand_count + self.hidden_drawn[i]) if seat.hand_hidden
                 else len(self.hands[i]),
                 has_melded=self.has_melded[i], dealt=seat.dealt,
                 red_three_replacements_owed=self.owed[i])
            for i, seat in enumerate(s.seats))
        sides = tuple(Side(side=side.side, seats=side.seats, match_score=side.match_score,
                           melds=tuple(self.melds[i]), red_threes=tuple(self.red_threes[i]),
                           penalties=tuple(self.penalties[i]))
                      for i, side in enumerate(s.sides))
        return Snapshot(ruleset=s.ruleset, deal_number=s.deal_number, dealer=s.dealer,
                        seats=seats, sides=sides,
                        stock=tuple(self.stock) if not s.stock_hidden else (),
                        stock_count=self.stock_count, discard_pile=tuple(self.pile),
                        turn=self.turn, ply=s.ply + 1, result=self.result,
                        ruleset_ref=s.ruleset_ref, signature="")


@dataclass
class _Ctx:
    s: Snapshot
    seat: int
    side: int
    players: int


# -- public API ---------------------------------------------------------------------------

def validate(snapshot: Snapshot, action: Action) -> list[Violation]:
    """Why ``action`` is illegal in ``snapshot`` (empty when legal)."""
    return list(_play(snapshot, action, validate_only=True)[0])


def apply(snapshot: Snapshot, action: Action) -> Outcome:
    """The next state when ``action`` is legal; else the input plus any penalty
    (docs/rules.md#spanish)."""
    violations, work = _play(snapshot, action, validate_only=False)
    if violations:
        return _refusal(snapshot, action, violations)
    new = work.freeze()
    score = None
    if new.turn.phase is Phase.OVER:
        from .scoring import score as score_deal
        score = score_deal(new)
    return Outcome(True, (), new, tuple(work.events), score)


def replay(snapshot: Snapshot, actions: Sequence[Action]):
    """Apply ``actions`` in order, stopping at the first illegal one (docs/api.md#methods)."""
    results = []
    current = snapshot
    for index, action in enumerate(actions):
        checkpoint()
        try:
            outcome = apply(current, action)
        except InvalidInput as bad:
            raise InvalidInput([replace(p, field=p.field.replace("action", f"actions[{index}]", 1))
                                for p in bad.problems], bad.kind) from None
        results.append((outcome.legal, outcome.violations, outcome.events))
        if not outcome.legal:
            return results, current, index, None
        current = outcome.snapshot
    score = None
    if current.turn.phase is Phase.OVER and actions:
        from .scoring import score as score_deal
        score = score_deal(current)
    return results, current, None, score


def _refusal(snapshot: Snapshot, action: Action, violations: list[Violation]) -> Outcome:
    penalised = [v for v in violations if v.penalty_points]
    if not penalised:
        return Outcome(False, tuple(violations), snapshot)
    side = snapshot.seats[action.seat].side
    extra = tuple(Penalty(v.code, v.penalty_points) for v in penalised)
    sides = tuple(replace(s, penalties=s.penalties + extra) if s.side == side else s
                  for s in snapshot.sides)
    events = tuple(Event("PENALTY_ASSESSED", action.seat, side, points=p.points)
                   for p in extra)
    return Outcome(False, tuple(violations), replace(snapshot, sides=sides, signature=""),
                   events)


# -- dispatch -----------------------------------------------------------------------------

def _play(s: Snapshot, action: Action, validate_only: bool) -> tuple[list[Violation], _Work]:
    if not 0 <= action.seat < s.players:
        raise InvalidInput([Problem("action.seat", "OUT_OF_RANGE",
                                    f"seat {action.seat} does not exist at this table")])
    work = _Work(s)
    name = ACTION_FIELD[type(action)]
    if action.expected_ply is not None and action.expected_ply != s.ply:
        return [violation("STALE_SNAPSHOT", "action.expectedPly", expected=action.expected_ply,
                          actual=s.ply)], work
    if s.turn.phase is Phase.OVER:
        return [violation("DEAL_OVER", "action")], work
    problems = _turn_violations(s, action, name)
    if problems:
        return problems, work
    ctx = _Ctx(s, action.seat, s.seats[action.seat].side, s.players)
    try:
        HANDLERS[type(action)](ctx, work, action, validate_only)
    except _Refused as refused:
        return refused.violations, work
    return [], work


def _turn_violations(s: Snapshot, action: Action, name: str) -> list[Violation]:
    turn = s.turn
    if isinstance(action, AnswerGoOut):
        if turn.go_out is not GoOut.ASKED:
            return [violation("NOTHING_TO_ANSWER", "action.answerGoOut")]
        if action.seat not in s.partners(turn.seat):
            return [violation("NOT_A_PARTNER", "action.seat", seat=action.seat)]
        return []
    if action.seat != turn.seat or turn.go_out is GoOut.ASKED:
        penalty = 0
        code = None
        if action.seat != turn.seat and s.ruleset.penalties_enabled:
            if isinstance(action, DRAW_ACTIONS):
                code = "OUT_OF_TURN_DRAW"
            elif isinstance(action, (MeldCards, SwapWild)):
                code = "CARDS_EXPOSED_OUT_OF_TURN"
            penalty = s.ruleset.penalty_points if code else 0
        whose = turn.seat if turn.go_out is not GoOut.ASKED else "partner"
        out = [violation("NOT_YOUR_TURN", "action.seat", turn=whose, seat=action.seat)]
        if code:
            out.append(violation(code, "action.seat", penalty))
        return out
    wanted = Phase.DRAW if isinstance(action, DRAW_ACTIONS) else Phase.PLAY
    if turn.phase is not wanted:
        return [violation("WRONG_PHASE", f"action.{name}", action=name, phase=turn.phase.value)]
    return []


# -- helpers ------------------------------------------------------------------------------

def _take_from_hand(work: _Work, seat: int, cards: Sequence[str], field: str) -> None:
    """Remove ``cards`` (a multiset) from the hand, or refuse CARDS_NOT_IN_HAND."""
    hand = work.hands[seat]
    if work.base.seats[seat].hand_hidden:
        raise InvalidInput([Problem(f"snapshot.seats[{seat}].hand", "REQUIRED",
                                    "the acting seat's hand is hidden")],
                           "HIDDEN_INFORMATION_REQUIRED")
    # Removing from a copy fails exactly when some card is listed more often than the hand
    # holds it; only then are the (costlier) multisets built to name the missing cards.
    rest = hand.copy()
    try:
        for c in cards:
            rest.remove(c)
    except ValueError:
        missing = Counter(cards) - Counter(hand)
        raise _Refused([violation("CARDS_NOT_IN_HAND", field,
                                  cards=" ".join(sorted(missing.elements())))]) from None
    hand[:] = rest


def _can_go_out(ctx: _Ctx, work: _Work) -> bool:
    return (work.turn.go_out is not GoOut.DENIED
            and T.meets_go_out_requirement(ctx.s.ruleset, ctx.players, work.melds[ctx.side]))


def _hand_floor(ctx: _Ctx, work: _Work, field: str, allow_empty: bool) -> None:
    """docs/rules.md#hand-floor and #going-out: fewer than two cards left only when the side may go
    out."""
    left = len(work.hands[ctx.seat])
    if left >= 2:
        return
    rules = ctx.s.ruleset
    if work.turn.go_out is GoOut.DENIED:
        penalty = rules.penalty_points if (rules.penalties_enabled and left == 0) else 0
        out = [violation("GO_OUT_REFUSED_BY_PARTNER", field)]
        if penalty:
            out.append(violation("WENT_OUT_AFTER_REFUSAL", field, penalty))
        raise _Refused(out)
    if not T.meets_go_out_requirement(rules, ctx.players, work.melds[ctx.side]):
        total, sambas = T.seven_card_melds(work.melds[ctx.side])
        if left == 0:
            raise _Refused([violation("GO_OUT_REQUIREMENT_NOT_MET", field,
                                      required=T.go_out_requirement_text(rules, ctx.players),
                                      actual=f"{total} ({sambas} sambas)")])
        raise _Refused([violation("HAND_FLOOR", field, left=left)])
    if left == 0 and not allow_empty:
        raise _Refused([violation("HAND_FLOOR", field, left=left)])


def _lay_melds(ctx: _Ctx, work: _Work, new_melds: Sequence[Sequence[str]],
               additions: Sequence[Addition], field: str) -> int:
    """Lay new melds and additions for the side; returns their card points
    (docs/rules.md#initial-meld).

    Every problem of the batch is reported together (the action is atomic).
    """
    rules = ctx.s.ruleset
    problems: list[Violation] = []
    side_melds = work.melds[ctx.side]
    counted = 0
    partners = ctx.s.partners(ctx.seat)
    black_three_fields = []
    for i, cards in enumerate(new_melds):
        f = f"{field}.newMelds[{i}]"
        rank = M.group_rank(cards)
        target = None
        if (rules.groups_per_rank is GroupsPerRank.ONE and rank is not None
                and M.infer_kind(cards) is MeldKind.GROUP):
            target = next((j for j, m in enumerate(side_melds)
                           if m.kind is MeldKind.GROUP and M.group_rank(m.cards) == rank), None)
        if target is not None:
            meld = side_melds[target]
            combined, errs = M.check_extend(rules, meld, cards, f)
            if errs:
                problems += errs
                continue
            side_melds[target] = replace(meld, cards=combined)
            _extend_events(work, ctx, meld, side_melds[target], tuple(cards))
            if meld.laid_by in partners:
                work.turn = replace(work.turn, added_to_partner_melds=True)
            counted += points(cards)
            continue
        kind, ordered, errs = M.check_new(rules, cards, f)
        if errs:
            problems += errs
            continue
        if kind is MeldKind.BLACK_THREES:
            black_three_fields.append(f)
        meld = Meld(work.new_id(), ordered, ctx.seat, kind)
        side_melds.append(meld)
        meld_points = points(ordered)
        counted += meld_points
        work.events.append(Event("MELD_CREATED", ctx.seat, ctx.side, meld.id, ordered,
                                 meld_points))
        _completion_event(work, ctx, meld, 0)
    for i, add in enumerate(additions):
        f = f"{field}.additions[{i}]"
        try:
            j = _own_meld(ctx, work, add.meld_id, f"{f}.meldId")
        except _Refused as refused:
            problems += refused.violations  # reported with the batch's other problems
            continue
        meld = side_melds[j]
        if any(c in BLACK_THREES for c in add.cards) and meld.kind is MeldKind.BLACK_THREES:
            black_three_fields.append(f)
        combined, errs = M.check_extend(rules, meld, add.cards, f, add.end)
        if errs:
            problems += errs
            continue
        side_melds[j] = replace(meld, cards=combined)
        counted += points(add.cards)
        _extend_events(work, ctx, meld, side_melds[j], tuple(add.cards))
        if meld.laid_by in partners:
            work.turn = replace(work.turn, added_to_partner_melds=True)
    if rules.side_wild_limit and T.side_group_wilds(side_melds) > rules.side_wild_limit:
        problems.append(violation("SIDE_WILD_LIMIT", field,
                                  wilds=T.side_group_wilds(side_melds), max=rules.side_wild_limit))
    if black_three_fields:
        left = len(work.hands[ctx.seat])
        if left > 1 or not _can_go_out(ctx, work):
            problems += [violation("BLACK_THREES_ONLY_WHEN_GOING_OUT", f)
                         for f in black_three_fields]
    if problems:
        raise _Refused(problems)
    return counted


def _extend_events(work: _Work, ctx: _Ctx, before: Meld, after: Meld,
                   cards: tuple[str, ...]) -> None:
    work.events.append(Event("MELD_EXTENDED", ctx.seat, ctx.side, after.id, cards,
                             points(cards)))
    _completion_event(work, ctx, after, len(before.cards))


def _completion_event(work: _Work, ctx: _Ctx, meld: Meld, size_before: int) -> None:
    if size_before < SEVEN <= len(meld.cards):
        kind = "SAMBA_COMPLETED" if meld.kind is MeldKind.RUN else "CANASTA_COMPLETED"
        if meld.kind in (MeldKind.GROUP, MeldKind.RUN, MeldKind.WILD_GROUP):
            work.events.append(Event(kind, ctx.seat, ctx.side, meld.id, meld.cards))


def _own_meld(ctx: _Ctx, work: _Work, meld_id: str, field: str) -> int:
    """Index of the side's meld ``meld_id``: an unknown id is bad input, another side's
    meld a refusal (docs/rules.md#where-melds-go)."""
    j = next((k for k, m in enumerate(work.melds[ctx.side]) if m.id == meld_id), None)
    if j is None:
        if ctx.s.find_meld(meld_id) is None:
            raise InvalidInput([Problem(field, "UNKNOWN_MELD_ID",
                                        f"no meld {meld_id!r} in the snapshot")])
        raise _Refused([violation("NOT_OWN_MELD", field, meld=meld_id)])
    return j


def _check_initial(ctx: _Ctx, opened_before: bool, counted: int, field: str) -> None:
    if opened_before:
        return
    need = T.initial_requirement(ctx.s.ruleset, ctx.s.sides[ctx.side])
    if counted < need:
        raise _Refused([violation("INITIAL_MELD_TOO_LOW", field, required=need, actual=counted)])


def _mark_melded(ctx: _Ctx, work: _Work) -> None:
    t = work.turn  # replace(t, melded_this_turn=True), built directly (hot path)
    work.turn = Turn(seat=t.seat, phase=t.phase, took_pile=t.took_pile, melded_this_turn=True,
                     added_to_partner_melds=t.added_to_partner_melds, go_out=t.go_out)


def _draw_owed(ctx: _Ctx, work: _Work) -> None:
    """Spanish: dealt red 3s are replaced when the seat's turn first comes
    (docs/rules.md#spanish)."""
    owed = work.owed[ctx.seat]
    if owed and ctx.s.ruleset.red_threes is RedThreeReplacement.REPLACE_AT_FIRST_TURN:
        work.owed[ctx.seat] = 0
        work.draw_for(ctx.seat, owed)


# -- going out ----------------------------------------------------------------------------

def _finish_if_out(ctx: _Ctx, work: _Work) -> None:
    """The hand is empty and going out is allowed: the deal ends (docs/rules.md#going-out)."""
    if work.hands[ctx.seat] or ctx.s.seats[ctx.seat].hand_hidden:
        return
    concealed = (not ctx.s.seats[ctx.seat].has_melded and not work.turn.took_pile)
    premium = _spanish_premium(ctx, work) if concealed else None
    work.has_melded = [h or (i == ctx.seat and work.turn.melded_this_turn)
                       for i, h in enumerate(work.has_melded)]
    work.turn = replace(work.turn, phase=Phase.OVER)
    work.result = Result(EndReason.WENT_OUT, ctx.seat, concealed, premium)
    work.events.append(Event("WENT_OUT", ctx.seat, ctx.side,
                             points=ctx.s.ruleset.go_out_bonus))
    work.events.append(Event("DEAL_ENDED", ctx.seat, ctx.side))


SPANISH_PREMIUMS = (("DEALT_HAND", 1000), ("DEALT_HAND_WITH_PARTNER", 500),
                    ("DURING_PLAY", 500), ("DURING_PLAY_WITH_PARTNER", 200))


def _spanish_premium(ctx: _Ctx, work: _Work) -> Premium | None:
    """Going out concealed with a seven-card meld formed in the hand (docs/rules.md#spanish)."""
    if not ctx.s.ruleset.concealed_premiums:
        return None
    dealt = Counter(ctx.s.seats[ctx.seat].dealt)
    sevens = [m for m in work.melds[ctx.side]
              if m.laid_by == ctx.seat and len(m.cards) >= SEVEN
              and m.kind in (MeldKind.GROUP, MeldKind.RUN)]
    if not sevens:
        return None
    from_dealt = any(not (Counter(m.cards) - dealt) for m in sevens)
    with_partner = work.turn.added_to_partner_melds
    index = (0 if from_dealt else 2) + (1 if with_partner else 0)
    kind, points_ = SPANISH_PREMIUMS[index]
    return Premium(kind, points_)


def _asked_penalty(ctx: _Ctx, work: _Work) -> None:
    """Spanish: the seat asked "may I go out?" and its turn ends without going out
    (docs/rules.md#spanish)."""
    rules = ctx.s.ruleset
    if rules.penalties_enabled and work.turn.go_out is not GoOut.NOT_ASKED:
        work.penalties[ctx.side].append(Penalty("ASKED_AND_DID_NOT_GO_OUT", rules.penalty_points))
        work.events.append(Event("PENALTY_ASSESSED", ctx.seat, ctx.side,
                                 points=rules.penalty_points))


def _end_turn(ctx: _Ctx, work: _Work) -> None:
    """The turn passes clockwise; this turn's melding folds into ``has_melded``."""
    _asked_penalty(ctx, work)
    if work.turn.melded_this_turn:
        work.has_melded[ctx.seat] = True
    work.turn = Turn(seat=(ctx.seat + 1) % ctx.players, phase=Phase.DRAW)


# -- handlers -----------------------------------------------------------------------------

def _draw_stock(ctx: _Ctx, work: _Work, action: DrawStock, validate_only: bool) -> None:
    s = ctx.s
    if s.stock_hidden:
        if not action.cards and not validate_only:
            raise InvalidInput([Problem("action.drawStock.cards", "REQUIRED",
                                        "the stock is hidden: list the cards drawn")],
                               "HIDDEN_INFORMATION_REQUIRED")
        work.hidden_draws = list(action.cards) if action.cards else None
        if work.hidden_draws is None:
            work.turn = replace(work.turn, phase=Phase.PLAY)
            return
    elif action.cards:
        raise InvalidInput([Problem("action.drawStock.cards", "OUT_OF_RANGE",
                                    "the stock is listed: the service draws from it")])
    if s.stock_count == 0:
        work.turn = replace(work.turn, phase=Phase.OVER)
        work.result = Result(EndReason.STOCK_EXHAUSTED)
        work.events.append(Event("DEAL_ENDED", ctx.seat, ctx.side))
        return
    before = len(work.hands[ctx.seat])
    _draw_owed(ctx, work)
    work.draw_for(ctx.seat, s.ruleset.table(ctx.players).draw_count)
    drawn = tuple(work.hands[ctx.seat][before:])
    if work.hidden_draws:
        raise InvalidInput([Problem("action.drawStock.cards", "OUT_OF_RANGE",
                                    "more cards than the draw takes from the stock")])
    if s.seats[ctx.seat].hand_hidden:
        work.hidden_drawn[ctx.seat] += len(drawn)
        work.hands[ctx.seat] = []
    if s.stock_hidden:
        _check_hidden_copies(ctx, work, action.cards)
    work.events.append(Event("CARDS_DRAWN", ctx.seat, ctx.side, cards=drawn))
    t = work.turn  # replace(t, phase=Phase.PLAY), built directly (hot path)
    work.turn = Turn(seat=t.seat, phase=Phase.PLAY, took_pile=t.took_pile,
                     melded_this_turn=t.melded_this_turn,
                     added_to_partner_melds=t.added_to_partner_melds, go_out=t.go_out)


def _check_hidden_copies(ctx: _Ctx, work: _Work, cards: Sequence[str]) -> None:
    from .cards import pack_counts
    rules = ctx.s.ruleset
    listed: Counter = Counter()
    for seat in ctx.s.seats:
        listed.update(seat.hand)
    for side in ctx.s.sides:
        listed.update(side.red_threes)
        for m in side.melds:
            listed.update(m.cards)
    listed.update(ctx.s.discard_pile)
    listed.update(cards)
    over = listed - pack_counts(rules.decks, rules.jokers)
    if over:
        raise InvalidInput([Problem("action.drawStock.cards", "TOO_MANY_COPIES",
                                    f"more copies than the pack holds: {sorted(over)}")])


def _take_pile(ctx: _Ctx, work: _Work, action: TakePile, validate_only: bool) -> None:
    s, rules = ctx.s, ctx.s.ruleset
    field = "action.takePile"
    if bool(action.hand_cards) == bool(action.meld_id):
        raise InvalidInput([Problem(field, "REQUIRED",
                                    "takePile needs handCards or meldId, not both")])
    top = P.top_card(s)
    if top is None:
        raise _Refused([violation("PILE_EMPTY", field)])
    if P.is_blocked(rules, s):
        raise _Refused([violation("PILE_BLOCKED", field, top=top)])
    if s.stock_hidden and work.owed[ctx.seat]:
        raise InvalidInput([Problem("snapshot.stock", "REQUIRED",
                                    "red-3 replacements owed are drawn from the hidden stock")],
                           "HIDDEN_INFORMATION_REQUIRED")
    _draw_owed(ctx, work)
    frozen = P.is_frozen(rules, s, ctx.side)
    opened_before = s.sides[ctx.side].opened
    side_melds = work.melds[ctx.side]
    if action.meld_id:
        if rules.take_by_extending_meld is ExtendTake.NOT_ALLOWED:
            raise _Refused([violation("TAKE_METHOD_NOT_ALLOWED", f"{field}.meldId",
                                      method="taking the pile by extending a meld")])
        j = _own_meld(ctx, work, action.meld_id, f"{field}.meldId")
        if frozen:
            raise _Refused([violation("PILE_FROZEN", field)])
        meld = side_melds[j]
        if (rules.take_by_extending_meld is ExtendTake.OWN_MELD_UNDER_SEVEN
                and len(meld.cards) >= SEVEN):
            raise _Refused([violation("TOP_CARD_DOES_NOT_FIT", f"{field}.meldId", top=top,
                                      meld=meld.id)])
        combined, errs = M.check_extend(rules, meld, (top,), f"{field}.meldId")
        if errs:
            raise _Refused([violation("TOP_CARD_DOES_NOT_FIT", f"{field}.meldId", top=top,
                                      meld=meld.id)] + errs)
        side_melds[j] = replace(meld, cards=combined)
        _extend_events(work, ctx, meld, side_melds[j], (top,))
        if meld.laid_by in s.partners(ctx.seat):
            work.turn = replace(work.turn, added_to_partner_melds=True)
        counted = 0
    else:
        counted = _take_with_hand_cards(ctx, work, action, top, frozen, field)
    # Melds laid inside the take use hand cards only; the pile reaches the hand first so
    # the black-3 and floor checks see the whole hand (docs/rules.md#discard-pile).
    _take_from_hand(work, ctx.seat, [c for m in action.new_melds for c in m]
                    + [c for a in action.additions for c in a.cards], field)
    rest = work.pile[:-1]
    work.pile = []
    work.events.append(Event("PILE_TAKEN", ctx.seat, ctx.side, cards=tuple(work.base.discard_pile)))
    for c in rest:
        if c in RED_THREES:
            work.red_threes[ctx.side].append(c)
            work.events.append(Event("RED_THREE_LAID", ctx.seat, ctx.side, cards=(c,)))
        else:
            work.hands[ctx.seat].append(c)
    counted += _lay_melds(ctx, work, action.new_melds, action.additions, field)
    _check_initial(ctx, opened_before, counted, field)
    work.turn = replace(work.turn, phase=Phase.PLAY, took_pile=True, melded_this_turn=True)
    _hand_floor(ctx, work, field, allow_empty=True)
    _finish_if_out(ctx, work)


def _take_with_hand_cards(ctx: _Ctx, work: _Work, action: TakePile, top: str, frozen: bool,
                          field: str) -> int:
    """The natural pair (or, unfrozen where allowed, natural plus wild) takes the pile."""
    s, rules = ctx.s, ctx.s.ruleset
    rank = RANK[top]
    cards = tuple(action.hand_cards)
    if any(c not in WILD and RANK[c] != rank for c in cards):
        raise _Refused([violation("MIXED_RANKS", f"{field}.handCards")])
    naturals = sum(1 for c in cards if c not in WILD)
    if naturals < 2:
        plus_wild = naturals == 1 and len(cards) >= 2 and rules.take_natural_plus_wild
        if not plus_wild:
            raise _Refused([violation("TAKE_NEEDS_NATURAL_PAIR", f"{field}.handCards",
                                      rank=rank)])
        if frozen:
            raise _Refused([violation("PILE_FROZEN", f"{field}.handCards")])
    elif not rules.take_natural_pair:
        raise _Refused([violation("TAKE_METHOD_NOT_ALLOWED", f"{field}.handCards",
                                  method="taking the pile with a natural pair")])
    _take_from_hand(work, ctx.seat, cards, f"{field}.handCards")
    side_melds = work.melds[ctx.side]
    target = None
    if rules.pair_take_merges or rules.groups_per_rank is GroupsPerRank.ONE:
        target = next((j for j, m in enumerate(side_melds)
                       if m.kind is MeldKind.GROUP and M.group_rank(m.cards) == rank), None)
    laid = (top,) + cards
    if target is not None:
        meld = side_melds[target]
        combined, errs = M.check_extend(rules, meld, laid, f"{field}.handCards")
        if errs:
            raise _Refused(errs)
        side_melds[target] = replace(meld, cards=combined)
        _extend_events(work, ctx, meld, side_melds[target], laid)
        if meld.laid_by in s.partners(ctx.seat):
            work.turn = replace(work.turn, added_to_partner_melds=True)
    else:
        kind, ordered, errs = M.check_new(rules, laid, f"{field}.handCards")
        if errs:
            raise _Refused(errs)
        meld = Meld(work.new_id(), ordered, ctx.seat, kind)
        side_melds.append(meld)
        work.events.append(Event("MELD_CREATED", ctx.seat, ctx.side, meld.id, ordered,
                                 points(ordered)))
        _completion_event(work, ctx, meld, 0)
    if rules.side_wild_limit and T.side_group_wilds(side_melds) > rules.side_wild_limit:
        raise _Refused([violation("SIDE_WILD_LIMIT", f"{field}.handCards",
                                  wilds=T.side_group_wilds(side_melds),
                                  max=rules.side_wild_limit)])
    return points(laid)


def _take_top_card(ctx: _Ctx, work: _Work, action: TakeTopCard, validate_only: bool) -> None:
    s, rules = ctx.s, ctx.s.ruleset
    field = "action.takeTopCard"
    if not rules.take_top_card_to_run:
        raise _Refused([violation("TAKE_METHOD_NOT_ALLOWED", field,
                                  method="taking only the top card")])
    top = P.top_card(s)
    if top is None:
        raise _Refused([violation("PILE_EMPTY", field)])
    if P.is_blocked(rules, s):
        raise _Refused([violation("PILE_BLOCKED", field, top=top)])
    side_melds = work.melds[ctx.side]
    j = _own_meld(ctx, work, action.meld_id, f"{field}.meldId")
    meld = side_melds[j]
    if meld.kind is not MeldKind.RUN or len(meld.cards) >= SEVEN:
        raise _Refused([violation("TOP_CARD_DOES_NOT_FIT", f"{field}.meldId", top=top,
                                  meld=meld.id)])
    if s.stock_hidden and work.owed[ctx.seat]:
        raise InvalidInput([Problem("snapshot.stock", "REQUIRED",
                                    "red-3 replacements owed are drawn from the hidden stock")],
                           "HIDDEN_INFORMATION_REQUIRED")
    combined, errs = M.check_extend(rules, meld, (top,), f"{field}.meldId")
    if errs:
        raise _Refused([violation("TOP_CARD_DOES_NOT_FIT", f"{field}.meldId", top=top,
                                  meld=meld.id)])
    _draw_owed(ctx, work)
    side_melds[j] = replace(meld, cards=combined)
    work.pile.pop()
    work.events.append(Event("TOP_CARD_TAKEN", ctx.seat, ctx.side, meld.id, (top,)))
    _extend_events(work, ctx, meld, side_melds[j], (top,))
    if meld.laid_by in s.partners(ctx.seat):
        work.turn = replace(work.turn, added_to_partner_melds=True)
    work.turn = replace(work.turn, phase=Phase.PLAY, took_pile=True, melded_this_turn=True)
    # The top card is melded at once, so the hand floor applies (docs/rules.md#hand-floor).
    _hand_floor(ctx, work, field, allow_empty=False)


def _meld(ctx: _Ctx, work: _Work, action: MeldCards, validate_only: bool) -> None:
    field = "action.meld"
    if not action.new_melds and not action.additions:
        raise InvalidInput([Problem(field, "REQUIRED", "a meld action lays at least one meld")])
    opened_before = ctx.s.sides[ctx.side].opened
    _take_from_hand(work, ctx.seat, [c for m in action.new_melds for c in m]
                    + [c for a in action.additions for c in a.cards], field)
    counted = _lay_melds(ctx, work, action.new_melds, action.additions, field)
    _check_initial(ctx, opened_before, counted, field)
    _mark_melded(ctx, work)
    _hand_floor(ctx, work, field, allow_empty=True)
    _finish_if_out(ctx, work)


def _swap_wild(ctx: _Ctx, work: _Work, action: SwapWild, validate_only: bool) -> None:
    rules = ctx.s.ruleset
    field = "action.swapWild"
    if not rules.wild_swap:
        raise _Refused([violation("WILD_SWAP_NOT_ALLOWED", field,
                                  reason="this ruleset does not allow swapping a wild")])
    side_melds = work.melds[ctx.side]
    j = _own_meld(ctx, work, action.meld_id, f"{field}.meldId")
    meld = side_melds[j]
    if meld.kind is not MeldKind.GROUP or len(meld.cards) >= SEVEN:
        raise _Refused([violation("WILD_SWAP_NOT_ALLOWED", f"{field}.meldId",
                                  reason="only a wild in an incomplete group may be swapped")])
    if action.wild not in WILD or action.wild not in meld.cards:
        raise _Refused([violation("WILD_SWAP_MISMATCH", f"{field}.wild",
                                  reason=f"meld {meld.id} holds no {action.wild}")])
    if action.natural in WILD or RANK[action.natural] != M.group_rank(meld.cards):
        raise _Refused([violation("WILD_SWAP_MISMATCH", f"{field}.natural",
                                  reason=f"{action.natural} is not the natural the wild "
                                         f"stands for")])
    _take_from_hand(work, ctx.seat, (action.natural,), f"{field}.natural")
    cards = list(meld.cards)
    cards[cards.index(action.wild)] = action.natural
    side_melds[j] = replace(meld, cards=tuple(cards))
    work.hands[ctx.seat].append(action.wild)
    work.events.append(Event("WILD_SWAPPED", ctx.seat, ctx.side, meld.id,
                             (action.natural, action.wild)))
    if meld.laid_by in ctx.s.partners(ctx.seat):
        work.turn = replace(work.turn, added_to_partner_melds=True)
    _mark_melded(ctx, work)


def _discard(ctx: _Ctx, work: _Work, action: Discard, validate_only: bool) -> None:
    _take_from_hand(work, ctx.seat, (action.card,), "action.discard.card")
    work.pile.append(action.card)
    work.events.append(Event("DISCARDED", ctx.seat, ctx.side, cards=(action.card,)))
    if work.hands[ctx.seat]:
        _end_turn(ctx, work)
    elif _can_go_out(ctx, work):
        _finish_if_out(ctx, work)
    else:
        _end_stranded(ctx, work)


def _end_stranded(ctx: _Ctx, work: _Work) -> None:
    """The last card discarded by a seat that may not go out ends the deal as if the stock
    ran out (docs/rules.md "Further decisions": no position without a legal action).

    A seat holds a single card in the play phase only when its draw emptied the stock on
    red 3s (or in a hand-built position); without this it could neither meld nor
    discard, and after a "no" to "may I go out?" not even ask."""
    _asked_penalty(ctx, work)
    if work.turn.melded_this_turn:
        work.has_melded[ctx.seat] = True
    work.turn = replace(work.turn, phase=Phase.OVER)
    work.result = Result(EndReason.STOCK_EXHAUSTED)
    work.events.append(Event("DEAL_ENDED", ctx.seat, ctx.side))


def _ask(ctx: _Ctx, work: _Work, action: AskGoOut, validate_only: bool) -> None:
    field = "action.askGoOut"
    if not ctx.s.partners(ctx.seat) or not ctx.s.ruleset.ask_partner:
        raise _Refused([violation("NO_PARTNER", field)])
    if work.turn.go_out is not GoOut.NOT_ASKED:
        raise _Refused([violation("ALREADY_ASKED", field)])
    if work.turn.melded_this_turn:
        raise _Refused([violation("ASK_AFTER_MELDING", field)])
    work.turn = replace(work.turn, go_out=GoOut.ASKED)
    work.events.append(Event("PERMISSION_ASKED", ctx.seat, ctx.side))


def _answer(ctx: _Ctx, work: _Work, action: AnswerGoOut, validate_only: bool) -> None:
    work.turn = replace(work.turn, go_out=GoOut.GRANTED if action.allow else GoOut.DENIED)
    work.events.append(Event("PERMISSION_ANSWERED", ctx.seat, ctx.side,
                             points=1 if action.allow else 0))


HANDLERS = {DrawStock: _draw_stock, TakePile: _take_pile, TakeTopCard: _take_top_card,
            MeldCards: _meld, SwapWild: _swap_wild, Discard: _discard, AskGoOut: _ask,
            AnswerGoOut: _answer}


def check_meld(ruleset, cards: Sequence[str], snapshot: Snapshot | None = None,
               seat: int | None = None, meld_id: str | None = None):
    """CheckMeld (docs/api.md#methods): content alone, or whether ``seat`` may lay ``cards``
    (as a new meld, or onto ``meld_id``) for its side now. "Now" judges the table and the
    side's rules (uruguayan limit, one group per rank, closed melds, black 3s only when
    going out, judged by the seat's hand size); it does not require the cards to be in the
    hand or the turn to be the seat's, so a client can ask while planning. Black 3s judged
    by content alone are valid with a note: they are laid only when going out."""
    from .model import MeldCheck
    from .melds import check_meld_content, is_natural, status
    if snapshot is None:
        if meld_id:
            raise InvalidInput([Problem("snapshot", "REQUIRED", "meldId needs a snapshot")])
        return check_meld_content(ruleset, cards)
    if seat is None or not 0 <= seat < snapshot.players:
        raise InvalidInput([Problem("seat", "REQUIRED" if seat is None else "OUT_OF_RANGE",
                                    "a snapshot needs the seat that would lay the meld")])
    ctx = _Ctx(snapshot, seat, snapshot.seats[seat].side, snapshot.players)
    work = _Work(snapshot)
    # The hand's cards are not judged, its size is: black 3s are laid only by a seat left
    # with at most one card, as ValidateAction judges them.
    work.hands[seat] = ["?"] * max(0, snapshot.seats[seat].hand_count - len(cards))
    if seat != snapshot.turn.seat:
        work.turn = replace(work.turn, go_out=GoOut.NOT_ASKED)  # a "no" binds its asker only
    new = () if meld_id else (tuple(cards),)
    adds = (Addition(meld_id, tuple(cards)),) if meld_id else ()
    try:
        _lay_melds(ctx, work, new, adds, "cards")
    except _Refused as refused:
        fixed = [replace(v, field=v.field.replace("cards.newMelds[0]", "cards")
                         .replace("cards.additions[0]", "cards")) for v in refused.violations]
        return MeldCheck(False, None, None, False, 0, tuple(fixed))
    meld = next(m for m in reversed(work.melds[ctx.side])
                if (m.id == meld_id if meld_id else True))
    if meld_id is None and ruleset.groups_per_rank is GroupsPerRank.ONE:
        meld = max(work.melds[ctx.side], key=lambda m: Counter(m.cards) >= Counter(cards))
    return MeldCheck(True, meld.kind, status(meld.kind, len(meld.cards)), is_natural(meld.cards),
                     points(meld.cards))

"""Taking from the discard pile (docs/rules.md#discard-pile): the whole pile with a natural
pair (or, where allowed, a natural and a wild, or by extending a meld), or only the top card
onto a run.
"""

from __future__ import annotations

from dataclasses import replace

from . import melds as M
from . import pile as P
from .cards import RANK, RED_THREES, WILD, points
from .going_out import finish_if_out
from .laying import lay_melds
from .model import (
    Event,
    InvalidInput,
    MeldKind,
    Phase,
    Problem,
    Snapshot,
    TakePile,
    TakeTopCard,
    Violation,
)
from .ruleset import ExtendTake, GroupsPerRank, RedThreeReplacement, Ruleset
from .table_rules import hand_floor_violations, initial_meld_violations, side_wild_limit_violations
from .violations import violation
from .vocabulary import SEVEN
from .work import Refused, Work


def pair_take_joins_group(rules: Ruleset) -> bool:
    """A pair take joins the side's group of the top card's rank instead of starting a new
    one: ``pair_take_merges``, or a ruleset whose groups of a rank are one or may merge
    (docs/rules.md#parameters ``groups_per_rank``, #decisions "official may merge")."""
    return rules.pair_take_merges or rules.groups_per_rank is not GroupsPerRank.MANY


def pair_take_names_group(rules: Ruleset) -> bool:
    """A pair take may name (``meldId``) which of the side's groups of the top card's rank
    it joins: it joins a group, and a side may hold several groups of a rank
    (docs/rules.md#further-decisions, item 14)."""
    return pair_take_joins_group(rules) and rules.groups_per_rank is not GroupsPerRank.ONE


def _check_take_fields(rules: Ruleset, action: TakePile, field: str) -> None:
    """handCards or meldId; both only where the meldId names the group a pair take joins."""
    both = bool(action.hand_cards) and bool(action.meld_id)
    if not (action.hand_cards or action.meld_id) or (both and not pair_take_names_group(rules)):
        raise InvalidInput(
            [Problem(field, "REQUIRED", "takePile needs handCards or meldId, not both")]
        )


def take_pile(work: Work, action: TakePile) -> None:
    field = "action.takePile"
    s, rules = work.base, work.base.ruleset
    _check_take_fields(rules, action, field)
    top = _takeable_top(work, field)
    _draw_owed_replacements(work)
    frozen = P.is_frozen(rules, s, work.side)
    if action.meld_id and not action.hand_cards:
        counted = _take_by_extending(work, action.meld_id, top, frozen, field)
    else:
        counted = _take_with_hand_cards(work, action, top, frozen, field)
    # Melds laid inside the take use hand cards only; the pile reaches the hand first so
    # the black-3 and floor checks see the whole hand (docs/rules.md#discard-pile).
    work.take_from_hand(
        [c for m in action.new_melds for c in m] + [c for a in action.additions for c in a.cards],
        field,
    )
    _pile_to_hand(work)
    counted += lay_melds(work, action.new_melds, action.additions, field)
    _refuse(initial_meld_violations(rules, s.sides[work.side], counted, field))
    work.turn = replace(work.turn, phase=Phase.PLAY, took_pile=True, melded_this_turn=True)
    _refuse(
        hand_floor_violations(
            rules,
            work.players,
            work.side_melds,
            len(work.hands[work.seat]),
            work.turn.go_out,
            field,
            allow_empty=True,
        )
    )
    finish_if_out(work)


def _refuse(violations: list[Violation]) -> None:
    if violations:
        raise Refused(violations)


def _takeable_top(work: Work, field: str) -> str:
    """The top card, unless the pile is empty or blocked."""
    top = P.top_card(work.base)
    if top is None:
        raise Refused([violation("PILE_EMPTY", field)])
    if P.is_blocked(work.base.ruleset, work.base):
        raise Refused([violation("PILE_BLOCKED", field, top=top)])
    return top


def owes_hidden_replacements(s: Snapshot, seat: int) -> bool:
    """The seat's first draw-phase action draws red-3 replacements owed (spanish) from a
    hidden stock: a take then depends on cards the snapshot does not show
    (docs/rules.md#decisions, item 9)."""
    return (
        s.stock_hidden
        and s.seats[seat].red_three_replacements_owed > 0
        and s.ruleset.red_threes is RedThreeReplacement.REPLACE_AT_FIRST_TURN
    )


def _require_stock_for_owed(work: Work) -> None:
    if work.base.stock_hidden and work.owed[work.seat]:
        raise InvalidInput(
            [
                Problem(
                    "snapshot.stock",
                    "REQUIRED",
                    "red-3 replacements owed are drawn from the hidden stock",
                )
            ],
            "HIDDEN_INFORMATION_REQUIRED",
        )


def _draw_owed_replacements(work: Work) -> None:
    _require_stock_for_owed(work)
    work.draw_owed()


def _pile_to_hand(work: Work) -> None:
    """The whole pile goes to the hand, the top card excepted (it was melded); red 3s in it
    are laid out."""
    rest = work.pile[:-1]
    work.pile = []
    work.events.append(
        Event("PILE_TAKEN", work.seat, work.side, cards=tuple(work.base.discard_pile))
    )
    for c in rest:
        if c in RED_THREES:
            work.lay_red_three(c)
        else:
            work.hands[work.seat].append(c)
            work.taken.append(c)


def _misfit(field: str, top: str, meld_id: str) -> list[Violation]:
    return [violation("TOP_CARD_DOES_NOT_FIT", field, top=top, meld=meld_id)]


def _take_by_extending(work: Work, meld_id: str, top: str, frozen: bool, field: str) -> int:
    """The top card extends one of the side's melds (docs/rules.md#take-by-extending);
    its points do not count toward the initial meld."""
    rules = work.base.ruleset
    if rules.take_by_extending_meld is ExtendTake.NOT_ALLOWED:
        raise Refused(
            [
                violation(
                    "TAKE_METHOD_NOT_ALLOWED",
                    f"{field}.meldId",
                    method="taking the pile by extending a meld",
                )
            ]
        )
    j = work.own_meld(meld_id, f"{field}.meldId")
    if frozen:
        raise Refused([violation("PILE_FROZEN", field)])
    meld = work.side_melds[j]
    if rules.take_by_extending_meld is ExtendTake.OWN_MELD_UNDER_SEVEN and len(meld.cards) >= SEVEN:
        _refuse(_misfit(f"{field}.meldId", top, meld.id))
    combined, errs = M.check_extend(rules, meld, (top,), f"{field}.meldId")
    if errs:
        _refuse(_misfit(f"{field}.meldId", top, meld.id) + errs)
    work.extend_meld(j, combined, (top,))
    return 0


def _check_take_cards(
    rules: Ruleset, rank: str, cards: tuple[str, ...], frozen: bool, field: str
) -> None:
    """The natural pair (or, unfrozen where allowed, natural plus wild) of ``rank``."""
    if any(c not in WILD and RANK[c] != rank for c in cards):
        raise Refused([violation("MIXED_RANKS", field)])
    naturals = sum(1 for c in cards if c not in WILD)
    if naturals >= 2:
        if not rules.take_natural_pair:
            raise Refused(
                [
                    violation(
                        "TAKE_METHOD_NOT_ALLOWED",
                        field,
                        method="taking the pile with a natural pair",
                    )
                ]
            )
        return
    if not (naturals == 1 and len(cards) >= 2 and rules.take_natural_plus_wild):
        raise Refused([violation("TAKE_NEEDS_NATURAL_PAIR", field, rank=rank)])
    if frozen:
        raise Refused([violation("PILE_FROZEN", field)])


def _take_with_hand_cards(work: Work, action: TakePile, top: str, frozen: bool, field: str) -> int:
    """The hand cards and the top card form a group, new or joining the side's."""
    rules = work.base.ruleset
    cards_field = f"{field}.handCards"
    cards = tuple(action.hand_cards)
    # the group named first: an id the snapshot lacks is bad input, whatever the cards
    target = _pair_take_target(work, action.meld_id, top, f"{field}.meldId")
    _check_take_cards(rules, RANK[top], cards, frozen, cards_field)
    work.take_from_hand(cards, cards_field)
    laid = (top,) + cards
    if target is not None:
        combined, errs = M.check_extend(rules, work.side_melds[target], laid, cards_field)
        _refuse(errs)
        work.extend_meld(target, combined, laid)
    else:
        kind, ordered, errs = M.check_new(rules, laid, cards_field)
        _refuse(errs)
        work.create_meld(kind or MeldKind.GROUP, ordered)
    _refuse(side_wild_limit_violations(rules, work.side_melds, cards_field))
    return points(laid)


def _pair_take_target(work: Work, meld_id: str | None, top: str, field: str) -> int | None:
    """The side's group a pair take joins, None for a new group: the group ``meld_id``
    names, else the oldest of the top card's rank (docs/rules.md#further-decisions, item
    14). A meld id that is not the side's group of that rank is treated as a take by
    extending treats it: unknown (bad input), another side's meld, or a meld of the side
    the top card does not fit (refused)."""
    rank = RANK[top]
    if not pair_take_joins_group(work.base.ruleset):
        return None
    if not meld_id:
        return work.group_of_rank(rank)
    j = work.own_meld(meld_id, field)
    meld = work.side_melds[j]
    if meld.kind is not MeldKind.GROUP or M.group_rank(meld.cards) != rank:
        _refuse(_misfit(field, top, meld.id))
    return j


def take_top_card(work: Work, action: TakeTopCard) -> None:
    """The top card alone extends a run of the side (docs/rules.md#take-top-card)."""
    rules = work.base.ruleset
    field = "action.takeTopCard"
    if not rules.take_top_card_to_run:
        raise Refused(
            [violation("TAKE_METHOD_NOT_ALLOWED", field, method="taking only the top card")]
        )
    top = _takeable_top(work, field)
    j = work.own_meld(action.meld_id, f"{field}.meldId")
    meld = work.side_melds[j]
    if meld.kind is not MeldKind.RUN or len(meld.cards) >= SEVEN:
        _refuse(_misfit(f"{field}.meldId", top, meld.id))
    _require_stock_for_owed(work)
    combined, errs = M.check_extend(rules, meld, (top,), f"{field}.meldId")
    if errs:
        _refuse(_misfit(f"{field}.meldId", top, meld.id))
    work.draw_owed()
    work.pile.pop()
    work.events.append(Event("TOP_CARD_TAKEN", work.seat, work.side, meld.id, (top,)))
    work.extend_meld(j, combined, (top,))
    work.turn = replace(work.turn, phase=Phase.PLAY, took_pile=True, melded_this_turn=True)
    # The top card is melded at once, so the hand floor applies (docs/rules.md#hand-floor).
    _refuse(
        hand_floor_violations(
            rules,
            work.players,
            work.side_melds,
            len(work.hands[work.seat]),
            work.turn.go_out,
            field,
            allow_empty=False,
        )
    )

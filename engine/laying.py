"""Laying melds: new melds and additions for a side, as one atomic batch (docs/rules.md#melding),
and CheckMeld's question "may this seat lay these cards now?" (docs/api.md#methods).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from . import melds as M
from .cards import BLACK_THREES, points
from .model import Addition, GoOut, InvalidInput, MeldCheck, MeldKind, Problem, Snapshot, Violation
from .ruleset import GroupsPerRank, Ruleset
from .table_rules import black_three_violations, side_wild_limit_violations
from .vocabulary import is_natural, status
from .work import Refused, Work


def lay_melds(
    work: Work, new_melds: Sequence[Sequence[str]], additions: Sequence[Addition], field: str
) -> int:
    """Lay new melds and additions for the side; returns their card points
    (docs/rules.md#initial-meld).

    Every problem of the batch is reported together (the action is atomic).
    """
    rules = work.base.ruleset
    problems: list[Violation] = []
    black_three_fields: list[str] = []
    counted = 0
    for i, cards in enumerate(new_melds):
        got, errs = _lay_new(work, cards, f"{field}.newMelds[{i}]", black_three_fields)
        counted += got
        problems += errs
    for i, add in enumerate(additions):
        got, errs = _lay_addition(work, add, f"{field}.additions[{i}]", black_three_fields)
        counted += got
        problems += errs
    # The guards only skip two calls on the validate hot path; the rules are the functions'.
    if rules.side_wild_limit:
        problems += side_wild_limit_violations(rules, work.side_melds, field)
    if black_three_fields:
        problems += black_three_violations(
            rules,
            work.players,
            work.side_melds,
            len(work.hands[work.seat]),
            work.turn.go_out,
            black_three_fields,
        )
    if problems:
        raise Refused(problems)
    return counted


def _merge_target(work: Work, cards: Sequence[str]) -> int | None:
    """With one group per rank (canasta), the side's group a new group joins."""
    if work.base.ruleset.groups_per_rank is not GroupsPerRank.ONE:
        return None
    rank = M.group_rank(cards)
    if rank is None or M.infer_kind(cards) is not MeldKind.GROUP:
        return None
    return work.group_of_rank(rank)


def _lay_new(
    work: Work, cards: Sequence[str], field: str, black_three_fields: list[str]
) -> tuple[int, list[Violation]]:
    rules = work.base.ruleset
    target = _merge_target(work, cards)
    if target is not None:
        combined, errs = M.check_extend(rules, work.side_melds[target], cards, field)
        if errs:
            return 0, errs
        work.extend_meld(target, combined, tuple(cards))
        return points(cards), []
    kind, ordered, errs = M.check_new(rules, cards, field)
    if errs or kind is None:
        return 0, errs
    if kind is MeldKind.BLACK_THREES:
        black_three_fields.append(field)
    work.create_meld(kind, ordered)
    return points(ordered), []


def _lay_addition(
    work: Work, add: Addition, field: str, black_three_fields: list[str]
) -> tuple[int, list[Violation]]:
    try:
        j = work.own_meld(add.meld_id, f"{field}.meldId")
    except Refused as refused:
        return 0, refused.violations  # reported with the batch's other problems
    meld = work.side_melds[j]
    if meld.kind is MeldKind.BLACK_THREES and not BLACK_THREES.isdisjoint(add.cards):
        black_three_fields.append(field)
    combined, errs = M.check_extend(work.base.ruleset, meld, add.cards, field, add.end)
    if errs:
        return 0, errs
    work.extend_meld(j, combined, tuple(add.cards))
    return points(add.cards), []


def check_meld(
    ruleset: Ruleset,
    cards: Sequence[str],
    snapshot: Snapshot | None = None,
    seat: int | None = None,
    meld_id: str | None = None,
) -> MeldCheck:
    """CheckMeld (docs/api.md#methods): content alone, or whether ``seat`` may lay ``cards``
    (as a new meld, or onto ``meld_id``) for its side now. "Now" judges the table and the
    side's rules (uruguayan limit, one group per rank, closed melds, black 3s only when
    going out, judged by the seat's hand size); it does not require the cards to be in the
    hand or the turn to be the seat's, so a client can ask while planning. Black 3s judged
    by content alone are valid with a note: they are laid only when going out."""
    if snapshot is None:
        if meld_id:
            raise InvalidInput([Problem("snapshot", "REQUIRED", "meldId needs a snapshot")])
        return M.check_meld_content(ruleset, cards)
    if seat is None or not 0 <= seat < snapshot.players:
        raise InvalidInput(
            [
                Problem(
                    "seat",
                    "REQUIRED" if seat is None else "OUT_OF_RANGE",
                    "a snapshot needs the seat that would lay the meld",
                )
            ]
        )
    return _check_meld_now(ruleset, cards, snapshot, seat, meld_id)


def _check_meld_now(
    ruleset: Ruleset, cards: Sequence[str], snapshot: Snapshot, seat: int, meld_id: str | None
) -> MeldCheck:
    work = Work(snapshot, seat)
    # The hand's cards are not judged, its size is: black 3s are laid only by a seat left
    # with at most one card, as ValidateAction judges them.
    work.hands[seat] = ["?"] * max(0, snapshot.seats[seat].hand_count - len(cards))
    if seat != snapshot.turn.seat:
        work.turn = replace(work.turn, go_out=GoOut.NOT_ASKED)  # a "no" binds its asker only
    new = () if meld_id else (tuple(cards),)
    adds = (Addition(meld_id, tuple(cards)),) if meld_id else ()
    try:
        lay_melds(work, new, adds, "cards")
    except Refused as refused:
        fixed = [
            replace(
                v,
                field=v.field.replace("cards.newMelds[0]", "cards").replace(
                    "cards.additions[0]", "cards"
                ),
            )
            for v in refused.violations
        ]
        return MeldCheck(False, None, None, False, 0, tuple(fixed))
    meld = next(m for m in reversed(work.side_melds) if (m.id == meld_id if meld_id else True))
    if meld_id is None and ruleset.groups_per_rank is GroupsPerRank.ONE:
        meld = max(work.side_melds, key=lambda m: Counter(m.cards) >= Counter(cards))
    return MeldCheck(
        True,
        meld.kind,
        status(meld.kind, len(meld.cards)),
        is_natural(meld.cards),
        points(meld.cards),
    )

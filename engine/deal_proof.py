"""Checking a deal against its revealed seeds (docs/dealing.md#5-deals-players-can-verify).

``verify(snapshot, secret, contributions)``: the problems that refute the deal (empty when
it follows), each with its path under ``deal``. The hashes are engine.deal_seed's.
"""

from __future__ import annotations

from collections.abc import Sequence

from .deal_seed import commitment, shuffle_seed
from .dealing import deal
from .messages import problem
from .model import Problem, Snapshot
from .templates import N_

#: The text of each reason (the service says it again in the caller's language).
TEXTS = {
    "REQUIRED": N_("the deal carries no commitment: it was dealt before commitments existed"),
    "COMMITMENT_MISMATCH": N_("the commitment is not the revealed seed's"),
    "NOT_THE_SHUFFLE": N_("{field} is not what the revealed seeds deal"),
    "NOTHING_TO_CHECK": N_(
        "the deal shows no seat's dealt cards: it proves nothing about the shuffle"
    ),
}


def _found(field: str, reason: str) -> Problem:
    return problem(field, reason, TEXTS[reason], field=field)


# -- verification --------------------------------------------------------------------------


def verify(snapshot: Snapshot, secret: str, contributions: Sequence[str]) -> list[Problem]:
    """What in ``snapshot`` the revealed ``secret`` and ``contributions`` refute.

    The commitment must be the secret's. Every seat's ``dealt`` the snapshot shows must be
    the shuffle's (a view shows its own seat's only); the first snapshot (ply 0) also shows
    the whole deal: hands, red 3s laid, replacements owed, the discard pile and a listed
    stock must be the shuffle's too. A snapshot that shows no dealt hand proves nothing
    about the shuffle, and says so.
    """
    out = _commitment_check(snapshot.deal_commitment, secret)
    expected = deal(
        snapshot.ruleset,
        len(snapshot.seats),
        shuffle_seed(secret, contributions),
        snapshot.dealer,
        snapshot.deal_number,
        tuple(s.match_score for s in snapshot.sides),
    )
    out += _dealt_check(snapshot, expected)
    if snapshot.ply == 0:
        out += _first_snapshot_check(snapshot, expected)
    return out


def _commitment_check(given: str, secret: str) -> list[Problem]:
    if not given:
        return [_found("deal.dealCommitment", "REQUIRED")]
    if given != commitment(secret):
        return [_found("deal.dealCommitment", "COMMITMENT_MISMATCH")]
    return []


def _dealt_check(snapshot: Snapshot, expected: Snapshot) -> list[Problem]:
    out: list[Problem] = []
    shown = 0
    for i, (seat, want) in enumerate(zip(snapshot.seats, expected.seats, strict=True)):
        if seat.hand_hidden and not seat.dealt:
            continue  # the view says it hides this seat (handHidden); an empty dealt is not that
        shown += 1
        if seat.dealt != want.dealt:
            out.append(_differs(f"deal.seats[{i}].dealt"))
    if not shown:
        out.append(_found("deal.seats", "NOTHING_TO_CHECK"))
    return out


def _first_snapshot_check(snapshot: Snapshot, expected: Snapshot) -> list[Problem]:
    out: list[Problem] = []
    for i, (seat, want) in enumerate(zip(snapshot.seats, expected.seats, strict=True)):
        if not seat.hand_hidden and seat.hand != want.hand:
            out.append(_differs(f"deal.seats[{i}].hand"))
        if seat.red_three_replacements_owed != want.red_three_replacements_owed:
            out.append(_differs(f"deal.seats[{i}].redThreeReplacementsOwed"))
    for k, (side, want_side) in enumerate(zip(snapshot.sides, expected.sides, strict=True)):
        if side.red_threes != want_side.red_threes:
            out.append(_differs(f"deal.sides[{k}].redThrees"))
    if snapshot.discard_pile != expected.discard_pile:
        out.append(_differs("deal.discardPile"))
    if not snapshot.stock_hidden and snapshot.stock != expected.stock:
        out.append(_differs("deal.stock"))
    return out


def _differs(field: str) -> Problem:
    return _found(field, "NOT_THE_SHUFFLE")

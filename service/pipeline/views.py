"""What ApplyAction, Deal and ReplayDeal add to their answer on request: every seat's view
and a spectator's (``include_views``), and a match carried from deal to deal (``previous``).

A seat's view is ``engine.player_view`` of the answer's position, signed like every snapshot,
with the answer's events as that seat may see them (``engine.events_seen_by``: another
seat's drawn cards counted, not shown). A game server then sends each player its own view
and events as they are, in one call per move.

A match is carried by the service when Deal is given the previous deal's final snapshot: it
is over, trusted like any snapshot (signed when signing is on), and the new deal's match
scores, deal number, dealer and ruleset are derived from it. Raw match scores or a deal
number past the first are taken only with signing off, since the service could not tell
them from forged ones; the match end (target score, ``max_deals``) is enforced either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from google.protobuf.message import Message

from samba_adjudicator import engine
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Event, Phase, Problem, Snapshot
from samba_adjudicator.engine.scoring import match_outcome

from ..base import pb
from ..base.errors import ApiError, ProblemList, Problems, invalid_argument
from ..codec.answers import event_to_proto
from ..codec.snapshot_bytes import as_field
from . import int_range
from .loading import SnapshotLoader


def _events(events: Sequence[Event], viewer: int | None) -> list[pb.Event]:
    return [event_to_proto(e, n) for e, n in engine.events_seen_by(tuple(events), viewer)]


def seat_views(
    writer: SnapshotLoader, response: Message, snap: Snapshot, events: Sequence[Event], seats=()
) -> list[bytes]:
    """The ``views`` (one SeatView per seat in seat order) and ``spectator_view`` fields of
    ``response``, of ``snap`` and ``events``, each snapshot as written (signed); with
    ``seats`` (``view_seats``, checked by ``check_view_seats``) only those seats' views, in
    that order, and no spectator view."""
    fields = response.DESCRIPTOR.fields_by_name
    out = [
        _view(writer, fields["views"], pb.SeatView(seat=i, events=_events(events, i)), snap, i)
        for i in seats or range(len(snap.seats))
    ]
    if not seats:
        spectator = pb.SpectatorView(events=_events(events, None))
        out.append(_view(writer, fields["spectator_view"], spectator, snap, None))
    return out


def _view(writer: SnapshotLoader, field, view: Message, snap: Snapshot, seat: int | None) -> bytes:
    """Field ``field`` holding ``view``: its own fields, then ``seat``'s view as written."""
    number = view.DESCRIPTOR.fields_by_name["snapshot"].number
    written, _ = writer.written(engine.player_view(snap, seat))
    return as_field(field.number, view.SerializeToString() + as_field(number, written))


def off_the_table(seat: int, snap: Snapshot, field: str) -> Problem | None:
    """The problem of a ``seat`` at ``field`` that is not one of the table's (else None)."""
    if 0 <= seat < len(snap.seats):
        return None
    return problem(
        field,
        "OUT_OF_RANGE",
        "{field} must be a seat 0..{last}, not {seat}",
        field=field,
        last=len(snap.seats) - 1,
        seat=seat,
    )


def check_view_seats(
    req: pb.ApplyActionRequest | pb.DealRequest | pb.ReplayDealRequest, snap: Snapshot
) -> None:
    """INVALID_ARGUMENT for a ``view_seats`` with a seat off the table or given twice, or
    given without ``include_views`` (it narrows the views, it does not ask for them). A list
    longer than the table is one problem at ``viewSeats``, found before any entry is looked
    at: a megabyte of protobuf holds a million entries."""
    problems = ProblemList()
    if req.view_seats and not req.include_views:
        problems.append(
            Problem("viewSeats", "REQUIRED", "viewSeats narrows includeViews: set includeViews")
        )
    listed, players = len(req.view_seats), len(snap.seats)
    if listed > players:
        problems.append(
            problem(
                "viewSeats",
                "OUT_OF_RANGE",
                "{field} lists at most {max} seats (each once), not {count}",
                field="viewSeats",
                max=players,
                count=listed,
            )
        )
    else:
        _check_each_view_seat(req.view_seats, snap, problems)
    if problems:
        raise invalid_argument(problems)


def _check_each_view_seat(seats: Sequence[int], snap: Snapshot, problems: Problems) -> None:
    """The problems of ``view_seats``' entries (no more of them than the table's seats)."""
    seen: set[int] = set()
    for i, seat in enumerate(seats):
        field = f"viewSeats[{i}]"
        if (off := off_the_table(seat, snap, field)) is not None:
            problems.append(off)
        elif seat in seen:
            problems.append(
                problem(field, "OUT_OF_RANGE", "seat {seat} is listed twice", seat=seat)
            )
        seen.add(seat)


class Carried(NamedTuple):
    """What a new deal takes from the match so far."""

    dealer: int
    deal_number: int
    match_scores: tuple[int, ...]


def match_over() -> ApiError:
    return ApiError(
        "FAILED_PRECONDITION",
        "MATCH_OVER",
        "the match is over (a side reached the target score, or the last deal was played): "
        "start a new match (deal 1, zero scores)",
    )


def carried_from(previous: Snapshot, req: pb.DealRequest) -> Carried:
    """The new deal's dealer (the next seat), deal number and match scores from the
    previous deal's final snapshot (its players too: ``players`` may be left out).
    INVALID_ARGUMENT when it is not over or the request gives what it derives otherwise;
    FAILED_PRECONDITION ``MATCH_OVER`` when the match ended."""
    problems = []
    if previous.turn.phase is not Phase.OVER:
        problems.append(
            Problem("previous.turn.phase", "OUT_OF_RANGE", "previous must be a finished deal")
        )
    players = len(previous.seats)
    if req.players and req.players != players:  # left out: the previous deal's
        problems.append(
            problem(
                "players",
                "DERIVED_FIELD_DISAGREES",
                "previous was played by {players} players, not {given}",
                players=players,
                given=req.players,
            )
        )
    for name, given in (
        ("ruleset", req.HasField("ruleset")),
        ("dealer", req.dealer != 0),
        ("dealNumber", req.deal_number != 0),
        ("matchScores", len(req.match_scores) > 0),
    ):
        if given:
            problems.append(
                problem(
                    name,
                    "DERIVED_FIELD_DISAGREES",
                    "{field} derives from previous: leave it out",
                    field=name,
                )
            )
    if problems:
        raise invalid_argument(problems)
    report = engine.score(previous, False)
    int_range.check_next_deal(previous, report)
    if report.match_over:
        raise match_over()
    return Carried(
        (previous.dealer + 1) % players,
        previous.deal_number + 1,
        tuple(s.match_total for s in report.sides),
    )


def carried_raw(req: pb.DealRequest, rules: er.Ruleset, signed: bool) -> Carried:
    """The request's own dealer, deal number and match scores: with signing on only a new
    match (PERMISSION_DENIED ``MATCH_CARRY_OVER_UNSIGNED``), and never past the match end."""
    scores = tuple(req.match_scores)
    number = req.deal_number or 1
    if signed and (number > 1 or any(scores)):
        raise ApiError(
            "PERMISSION_DENIED",
            "MATCH_CARRY_OVER_UNSIGNED",
            "with signing on, a deal after the first takes the match from `previous` "
            "(the previous deal's signed final snapshot), not from matchScores/dealNumber",
        )
    if (number > 1 or any(scores)) and req.players in rules.players_allowed:
        totals = list(scores) or [0] * rules.sides_for(req.players)
        over, _, _ = match_outcome(rules, req.players, number - 1, totals)
        if over:
            raise match_over()
    return Carried(req.dealer, req.deal_number, scores)

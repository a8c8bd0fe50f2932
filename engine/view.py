"""GetPlayerView: a snapshot as one seat (or a spectator) may see it (docs/api.md#methods).

Other seats' ``hand`` and ``dealt`` are emptied with ``hand_count`` kept and the seat marked
``redacted`` (the wire's ``handHidden``), so every seat but the viewer's is hidden, one that
went out and holds no card too (its emptied ``dealt`` is hidden, not a claim); the stock is
hidden (``stock`` emptied, ``stock_count`` kept); the signature is cleared (the service signs
the view afresh when signing is on). Everything else — melds, red 3s, the discard pile, the
turn — is public.

``events_seen_by`` is the same rule for the events of an action: the cards a seat draws from
the stock go to its hidden hand, so a ``CARDS_DRAWN`` event shows them to the drawer only;
every other seat, and a spectator, learns how many were drawn. Every other event is about
public cards (the pile, the table, red 3s laid out) and is seen as it is.
"""

from __future__ import annotations

from dataclasses import replace

from .messages import problem
from .model import Event, InvalidInput, Seat, Snapshot


def _hide(seat: Seat) -> Seat:
    count = len(seat.hand) if seat.hand else seat.hand_count
    return replace(seat, hand=(), hand_count=count, dealt=(), redacted=count == 0)


def player_view(snapshot: Snapshot, seat: int | None) -> Snapshot:
    """The view of ``seat`` (None: a spectator, who sees no hand).

    Raises InvalidInput (``seat`` OUT_OF_RANGE) for a seat the snapshot does not have.
    """
    if seat is not None and (
        not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(snapshot.seats)
    ):
        raise InvalidInput(
            [
                problem(
                    "seat",
                    "OUT_OF_RANGE",
                    "seat must be 0..{last}, not {seat}",
                    last=len(snapshot.seats) - 1,
                    seat=repr(seat),
                )
            ]
        )
    seats = tuple(s if i == seat else _hide(s) for i, s in enumerate(snapshot.seats))
    stock_count = len(snapshot.stock) if snapshot.stock else snapshot.stock_count
    return replace(snapshot, seats=seats, stock=(), stock_count=stock_count, signature="")


def require_hand(snapshot: Snapshot, seat: int) -> None:
    """InvalidInput HIDDEN_INFORMATION_REQUIRED when ``seat``'s hand is hidden in
    ``snapshot`` (a view of another seat): what the seat may do depends on that hand, so
    neither its legal actions, nor the legality of its action, nor a suggestion for it can
    be answered. The one check of ListLegalActions, ValidateAction and SuggestAction."""
    if snapshot.seats[seat].hand_hidden:
        raise InvalidInput(
            [
                problem(
                    f"snapshot.seats[{seat}].hand",
                    "REQUIRED",
                    "seat {seat}'s hand is hidden in this snapshot; its legal actions depend on it",
                    seat=seat,
                )
            ],
            "HIDDEN_INFORMATION_REQUIRED",
        )


#: Events whose cards go to the acting seat's hidden hand.
PRIVATE_EVENTS = frozenset({"CARDS_DRAWN"})


def events_seen_by(events: tuple[Event, ...], viewer: int | None) -> list[tuple[Event, int]]:
    """Each event as ``viewer`` (None: a spectator) may see it, with the number of cards it
    concerns: a private event of another seat has its cards emptied, its count kept."""
    seen: list[tuple[Event, int]] = []
    for e in events:
        if e.type in PRIVATE_EVENTS and e.seat != viewer and e.cards:
            seen.append((replace(e, cards=()), len(e.cards)))
        else:
            seen.append((e, len(e.cards)))
    return seen

"""GetPlayerView: a snapshot as one seat (or a spectator) may see it (docs/api.md#methods).

Other seats' ``hand`` and ``dealt`` are emptied with ``hand_count`` kept, so every
non-empty hand but the viewer's is hidden; the stock is hidden (``stock`` emptied,
``stock_count`` kept); the signature is cleared (the service signs the view afresh when
signing is on). Everything else — melds, red 3s, the discard pile, the turn — is public.
"""

from __future__ import annotations

from dataclasses import replace

from .messages import problem
from .model import InvalidInput, Seat, Snapshot


def _hide(seat: Seat) -> Seat:
    count = len(seat.hand) if seat.hand else seat.hand_count
    return replace(seat, hand=(), hand_count=count, dealt=())


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

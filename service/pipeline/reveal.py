"""GetPlayerView's ``reveal``: a view with every hand open (docs/api.md#revealed-views).

``REVEAL_FINISHED_DEAL`` opens every hand once the deal is over, when no card of a hand is
still in play (the after-deal review a table shows); while the deal is in play it is
refused, INVALID_ARGUMENT on ``reveal``. ``REVEAL_TEACHING`` opens every hand at any point:
a teaching table, where the game server decides that everyone sees everything. Both need
the full snapshot (a view cannot reveal what it does not hold: ``SNAPSHOT_IS_VIEW``), so
only the holder of the table, the game server, can ask. The stock stays hidden (its order is
the next draws, and no one's hand). The answer is not signed: with every hand open and the
stock hidden it is not a view the service would refuse to apply, so it is for display only.
"""

from __future__ import annotations

from dataclasses import replace

from samba_adjudicator import engine
from samba_adjudicator.engine.messages import problem
from samba_adjudicator.engine.model import Phase, Snapshot

from ..base import pb
from ..base.errors import invalid_argument

Reveal = pb.GetPlayerViewRequest.Reveal


def revealed_view(snap: Snapshot, seat: int | None, reveal: int) -> Snapshot:
    """``snap`` with the stock hidden and every hand open (``reveal`` set), after checking
    that ``reveal`` may open them; ``seat`` only checked (every hand is open)."""
    if reveal == Reveal.REVEAL_FINISHED_DEAL and snap.turn.phase is not Phase.OVER:
        raise invalid_argument(
            [
                problem(
                    "reveal",
                    "OUT_OF_RANGE",
                    "REVEAL_FINISHED_DEAL opens hands still in play: the deal is not over "
                    "(a teaching table asks REVEAL_TEACHING)",
                )
            ]
        )
    hidden = engine.player_view(snap, seat)
    return replace(hidden, seats=snap.seats)

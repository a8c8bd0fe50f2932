"""Recipe: undo within a turn.

The service is stateless: to undo, the game server keeps the snapshot from before a move and
makes it the table again. Whether a move may be undone is the game's rule; this recipe's rule
(docs/guide.md#undo-within-a-turn) is that a move may be taken back while it revealed nothing
and involved no one else: the turn is still the same seat's, in ``PLAY``, and the move's events
are only melds laid or extended and wilds swapped (``MELD_CREATED``, ``MELD_EXTENDED``,
``WILD_SWAPPED``, ``CANASTA_COMPLETED``, ``SAMBA_COMPLETED``). Any other event ends what can
be undone: a draw from the stock (``CARDS_DRAWN``: the drawer has seen new cards), a pile
take (``PILE_TAKEN``, ``TOP_CARD_TAKEN``), a red three laid (its replacement was drawn), a
go-out question or answer (``PERMISSION_ASKED``, ``PERMISSION_ANSWERED``: the partner has
answered), a penalty, a discard (the turn passed) and the end of the deal.

An undone snapshot is one the service produced (signed, when it signs), so it goes on as any
other; after restoring it, send each seat its view again (GetPlayerView, or the next move's
``includeViews``). Its ``ply`` is lower, so a message racing the undo is refused
``STALE_SNAPSHOT``.

    python -m samba_adjudicator.client.examples.undo --transport rest \
        --target http://127.0.0.1:8080
"""

from __future__ import annotations

import argparse
import json

from samba_adjudicator.client import Client

UNDOABLE = {"MELD_CREATED", "MELD_EXTENDED", "WILD_SWAPPED", "CANASTA_COMPLETED", "SAMBA_COMPLETED"}


class Table:
    """The game server's table: the snapshot, and the snapshots a player may go back to."""

    def __init__(self, snapshot: dict) -> None:
        self.snapshot = snapshot
        self.undo_stack: list[dict] = []

    def applied(self, answer: dict) -> None:
        """Keep the snapshot from before the move if the move may be undone, else forget
        every earlier one (nothing before a draw, a take or a question comes back)."""
        before, after = self.snapshot, answer["snapshot"]
        undoable = (
            after["turn"]["phase"] == "PLAY"
            and after["turn"]["seat"] == before["turn"]["seat"]
            and all(event["type"] in UNDOABLE for event in answer["events"])
        )
        self.undo_stack = [*self.undo_stack, before] if undoable else []
        self.snapshot = after

    def undo(self) -> bool:
        if not self.undo_stack:
            return False
        self.snapshot = self.undo_stack.pop()
        return True


def play(client: Client) -> dict:
    table = Table(client.deal({"players": 4, "seed": "undo-recipe"})["snapshot"])
    report: dict = {"undone": 0, "refused": []}
    while table.snapshot["turn"]["phase"] != "OVER" and not report["undone"]:
        snapshot = table.snapshot
        seat = snapshot["turn"]["awaitingSeats"][0]
        actions = client.list_legal_actions({"snapshot": snapshot, "seat": seat})["actions"]
        meld = next((a for a in actions if "meld" in a), None)
        if meld is None:  # a computer move for everything else
            computer = {"seat": seat, "level": "BASIC", "seed": str(snapshot["ply"])}
            answer = client.apply_action({"snapshot": snapshot, "computer": computer})
        else:
            answer = client.apply_action({"snapshot": snapshot, "action": meld})
        table.applied(answer)
        if meld is not None and table.undo():  # the player changes their mind
            assert table.snapshot == snapshot
            report["undone"] += 1
            report["ply"] = snapshot["ply"]
        elif not table.undo_stack:  # a draw, a take, a discard…: nothing to take back
            report["refused"] = sorted({*report["refused"], *(e["type"] for e in answer["events"])})
    # the restored table goes on: the next move is applied to it as to any snapshot
    seat = table.snapshot["turn"]["awaitingSeats"][0]
    computer = {"seat": seat, "level": "BASIC", "seed": "after-undo"}
    answer = client.apply_action({"snapshot": table.snapshot, "computer": computer})
    report["afterUndoLegal"] = answer["legal"]
    return report


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--transport", choices=("grpc", "rest"), default="rest")
    p.add_argument("--target", default="http://127.0.0.1:8080")
    args = p.parse_args()
    with getattr(Client, args.transport)(args.target) as client:
        print(json.dumps(play(client)))


if __name__ == "__main__":
    main()

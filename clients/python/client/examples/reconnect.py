"""Recipe: a player reconnecting.

A device that lost its connection (a closed tab, a phone that slept) has missed views. The
game server holds the table's current snapshot, so it re-sends that seat's view of it:
GetPlayerView of the current snapshot for the seat, plus, when the game awaits that seat,
its legal actions (ListLegalActions on the full snapshot). Nothing is replayed and nothing
is stored per player: the view of the current position is all a device needs. The events
the player missed are not in a view; a table that shows a history keeps each seat's view
events as the moves are applied.

    python -m samba_adjudicator.client.examples.reconnect --transport rest \
        --target http://127.0.0.1:8080
"""

from __future__ import annotations

import argparse
import json

from samba_adjudicator.client import Client


def rejoin(client: Client, snapshot: dict, seat: int) -> dict:
    """What the server sends the reconnecting ``seat``: its view, and its actions if the
    game waits for it."""
    message = {"view": client.get_player_view({"snapshot": snapshot, "seat": seat})["snapshot"]}
    if seat in snapshot["turn"]["awaitingSeats"]:
        page = client.list_legal_actions({"snapshot": snapshot, "seat": seat})
        message["actions"] = page["actions"]
    return message


def play(client: Client, away: int = 2, moves: int = 12) -> dict:
    extras = {"includeViews": True}
    answer = client.deal({"players": 4, "seed": "reconnect-recipe", **extras})
    for _ in range(moves):  # seat `away` is offline: its views are lost
        snapshot = answer["snapshot"]
        seat = snapshot["turn"]["awaitingSeats"][0]
        computer = {"seat": seat, "level": "BASIC", "seed": str(snapshot["ply"])}
        answer = client.apply_action({"snapshot": snapshot, "computer": computer, **extras})
    message = rejoin(client, answer["snapshot"], away)
    view = message["view"]
    # the same view the last move would have sent it, and only its own hand
    assert view == answer["views"][away]["snapshot"]
    hidden = [i for i, s in enumerate(view["seats"]) if s["handHidden"]]
    assert hidden == [i for i in range(4) if i != away]
    return {
        "seat": away,
        "ply": view["ply"],
        "hidden": hidden,
        "actions": len(message.get("actions", [])),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--transport", choices=("grpc", "rest"), default="rest")
    p.add_argument("--target", default="http://127.0.0.1:8080")
    args = p.parse_args()
    with getattr(Client, args.transport)(args.target) as client:
        print(json.dumps(play(client)))


if __name__ == "__main__":
    main()

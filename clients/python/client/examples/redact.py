"""What each seat may receive after an action: its own view of the snapshot, and the events
with other players' drawn cards stripped (docs/guide.md, step 6)."""

from __future__ import annotations

from samba_adjudicator.client import Client


def events_for(viewer: int, events: list[dict]) -> list[dict]:
    """The events as ``viewer`` may see them: only the drawer sees the cards of CARDS_DRAWN."""
    return [
        dict(e, cards=[]) if e["type"] == "CARDS_DRAWN" and e["seat"] != viewer else e
        for e in events
    ]


def messages_for_each_seat(client: Client, snapshot: dict, events: list[dict]) -> list[dict]:
    """One message per seat: its view of the snapshot and its events."""
    return [
        {
            "seat": seat,
            "snapshot": client.get_player_view({"snapshot": snapshot, "seat": seat})["snapshot"],
            "events": events_for(seat, events),
        }
        for seat in range(len(snapshot["seats"]))
    ]

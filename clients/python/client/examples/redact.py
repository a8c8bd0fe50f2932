"""What each seat may receive after an action (docs/guide.md, step 6): asked for with
``includeViews``, the answer carries each seat's view of the snapshot and the events as that
seat may see them (other players' drawn cards counted, not shown), signed like every
snapshot; the game server forwards them as they are."""

from __future__ import annotations

from samba_adjudicator.client import Client


def apply_for_each_seat(client: Client, snapshot: dict, action: dict) -> tuple[dict, list[dict]]:
    """(the answer, one message per seat: its view of the new snapshot and its events)."""
    answer = client.apply_action({"snapshot": snapshot, "action": action, "includeViews": True})
    return answer, [
        {"seat": v["seat"], "snapshot": v["snapshot"], "events": v["events"]}
        for v in answer["views"]
    ]

"""Recipe: a turn timer, and the forced move of a player who timed out.

The game server gives the awaited seat ``--turn-seconds`` to move. When the time is up it
moves for them with ApplyAction's ``computer`` (the service chooses for that seat from its
view only, as a computer player would, and applies it: one call). We chose a computer move
over "the first legal action": the first listed action is a fixed choice (always the draw,
then the first meld listed, then the first discard), which can throw away a good hand or
answer a partner's "may I go out?" the same way every time; a BASIC computer move plays on
sensibly, and its ``chosen.reason`` can be shown ("timed out: discarded 7H"). Each move sends
``expectedPly``, so a player's move that arrives after the forced one is refused
(``legal: false``, ``STALE_SNAPSHOT``) instead of being applied to the wrong position.

Here seats 0, 1 and 3 answer in time (played by a computer on their behalf, for the
example) and seat 2 never does: each of its turns is forced, and its late move refused.

    python -m samba_adjudicator.client.examples.turn_timer --transport rest \
        --target http://127.0.0.1:8080
"""

from __future__ import annotations

import argparse
import asyncio
import json

from samba_adjudicator.client import AsyncClient

ASLEEP = 2  # the seat whose player never answers in time


async def player_move(client: AsyncClient, snapshot: dict, seat: int) -> dict:
    """What the player at ``seat`` sends (in a real game: their device's message)."""
    if seat == ASLEEP:
        await asyncio.sleep(3600)  # never in time
    suggested = await client.suggest_action(
        {"snapshot": snapshot, "seat": seat, "level": "RANDOM", "seed": str(snapshot["ply"])}
    )
    return suggested["action"]


async def one_move(client: AsyncClient, snapshot: dict, turn_seconds: float) -> tuple[dict, bool]:
    """(the answer, whether the move was forced) for the awaited seat's move."""
    seat = snapshot["turn"]["awaitingSeats"][0]
    try:
        action = await asyncio.wait_for(player_move(client, snapshot, seat), turn_seconds)
    except TimeoutError:  # the time is up: the service moves for the seat
        computer = {"seat": seat, "level": "BASIC", "seed": f"timer-{snapshot['ply']}"}
        forced = await client.apply_action(
            {"snapshot": snapshot, "computer": {**computer, "budgetMs": 20}}
        )
        return forced, True
    answer = await client.apply_action(
        {"snapshot": snapshot, "action": {**action, "expectedPly": snapshot["ply"]}}
    )
    return answer, False


async def play(client: AsyncClient, turn_seconds: float) -> dict:
    answer = await client.deal({"players": 4, "seed": "turn-timer"})
    forced, late_refused = 0, 0
    while answer["snapshot"]["turn"]["phase"] != "OVER":
        before = answer["snapshot"]
        answer, was_forced = await one_move(client, before, turn_seconds)
        assert answer["legal"], answer["violations"]
        if was_forced:
            forced += 1
            chosen = answer["chosen"]
            print(f"seat {chosen['action']['seat']} timed out: {chosen['reason']['message']}")
            # the sleeper's move arrives late, for the position before the forced move
            late = await client.apply_action(
                {
                    "snapshot": answer["snapshot"],
                    "action": {"seat": ASLEEP, "drawStock": {}, "expectedPly": before["ply"]},
                }
            )
            codes = [v["code"] for v in late["violations"]]
            late_refused += not late["legal"] and "STALE_SNAPSHOT" in codes
    return {"forced": forced, "lateRefused": late_refused, "ply": answer["snapshot"]["ply"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--transport", choices=("grpc", "rest"), default="rest")
    p.add_argument("--target", default="http://127.0.0.1:8080")
    p.add_argument("--turn-seconds", type=float, default=0.2)
    args = p.parse_args()

    async def run() -> None:
        async with getattr(AsyncClient, args.transport)(args.target) as client:
            print(json.dumps(await play(client, args.turn_seconds)))

    asyncio.run(run())


if __name__ == "__main__":
    main()

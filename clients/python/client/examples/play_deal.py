"""A bot that plays one whole 4-player ``classic`` deal through the adjudicator and prints
the score. Every decision comes from the service: whose turn it is (``awaitingSeats``),
what may be done (ListLegalActions), what happened (ApplyAction); the bot only picks.

    python -m samba_adjudicator.client.examples.play_deal --transport rest \
        --target http://127.0.0.1:8080
    python -m samba_adjudicator.client.examples.play_deal --transport grpc \
        --target 127.0.0.1:50051 --asyncio
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random

from samba_adjudicator.client import AsyncClient, Client

# Lower is preferred. Melding first gets canastas (and a chance to go out); drawing from
# an empty stock ends the deal, so the bot never keeps a dry game alive by taking piles.
PREFERENCE = {
    "meld": 1,
    "takePile": 2,
    "takeTopCard": 2,
    "drawStock": 3,
    "discard": 4,
    "answerGoOut": 5,
    "askGoOut": 7,
    "swapWild": 8,
}


def preference(action: dict, snapshot: dict) -> int:
    if "drawStock" in action and snapshot["stockCount"] == 0:
        return 0
    if "answerGoOut" in action and not action["answerGoOut"].get("allow"):
        return 6
    return next(rank for kind, rank in PREFERENCE.items() if kind in action)


def choose(actions: list[dict], snapshot: dict, rng: random.Random) -> dict:
    best = min(preference(a, snapshot) for a in actions)
    return rng.choice([a for a in actions if preference(a, snapshot) == best])


class Game:
    """One deal's state between calls: the bot's side of the loop, transport-free."""

    def __init__(self, seed: str, max_actions: int = 5000) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.max_actions = max_actions
        self.applied = 0

    def deal_request(self) -> dict:
        return {"ruleset": {"profile": "classic"}, "players": 4, "seed": self.seed}

    def over(self, snapshot: dict) -> bool:
        if self.applied >= self.max_actions:
            raise RuntimeError(f"the deal did not end in {self.max_actions} actions")
        return snapshot["turn"]["phase"] == "OVER"

    def list_request(self, snapshot: dict, page_token: str) -> dict:
        # Usually the seat whose turn it is; a partner when asked "may I go out?".
        seat = snapshot["turn"]["awaitingSeats"][0]
        return {"snapshot": snapshot, "seat": seat, "pageSize": 1000, "pageToken": page_token}

    def apply_request(self, snapshot: dict, actions: list[dict]) -> dict:
        action = dict(choose(actions, snapshot, self.rng), expectedPly=snapshot["ply"])
        return {"snapshot": snapshot, "action": action}

    def next_snapshot(self, answer: dict) -> dict:
        if not answer["legal"]:
            codes = [v["code"] for v in answer["violations"]]
            raise RuntimeError(f"a listed action was refused: {codes}")
        self.applied += 1
        return answer["snapshot"]

    def report(self, snapshot: dict, score: dict) -> None:
        print(f"deal over after {self.applied} actions: {snapshot['result']['reason']}")
        for side in score["sides"]:
            print(f"side {side['side']}: {side['dealTotal']} points")
        print(
            json.dumps(
                {
                    "applied": self.applied,
                    "reason": snapshot["result"]["reason"],
                    "sides": [side["dealTotal"] for side in score["sides"]],
                }
            )
        )


def play(client: Client, game: Game) -> None:
    snapshot = client.deal(game.deal_request())["snapshot"]
    while not game.over(snapshot):
        actions, token = [], ""
        while True:  # every page of the legal actions
            page = client.list_legal_actions(game.list_request(snapshot, token))
            actions += page["actions"]
            token = page["nextPageToken"]
            if not token:
                break
        answer = client.apply_action(game.apply_request(snapshot, actions))
        snapshot = game.next_snapshot(answer)
    game.report(snapshot, client.score_deal({"snapshot": snapshot}))


async def play_async(client: AsyncClient, game: Game) -> None:
    snapshot = (await client.deal(game.deal_request()))["snapshot"]
    while not game.over(snapshot):
        actions, token = [], ""
        while True:
            page = await client.list_legal_actions(game.list_request(snapshot, token))
            actions += page["actions"]
            token = page["nextPageToken"]
            if not token:
                break
        answer = await client.apply_action(game.apply_request(snapshot, actions))
        snapshot = game.next_snapshot(answer)
    game.report(snapshot, await client.score_deal({"snapshot": snapshot}))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--transport", choices=("grpc", "rest"), default="rest")
    p.add_argument(
        "--target", default="http://127.0.0.1:8080", help="REST base URL, or host:port for gRPC"
    )
    p.add_argument("--seed", default="example-bot")
    p.add_argument("--asyncio", action="store_true", help="use AsyncClient")
    args = p.parse_args()
    game = Game(args.seed)
    if args.asyncio:

        async def run() -> None:
            async with getattr(AsyncClient, args.transport)(args.target) as client:
                await play_async(client, game)

        asyncio.run(run())
    else:
        with getattr(Client, args.transport)(args.target) as client:
            play(client, game)


if __name__ == "__main__":
    main()

"""A bot that plays one whole 4-player ``classic`` deal through the adjudicator and prints
the score. Every decision comes from the service: whose turn it is and what may be done
(``nextActions``), what happened (ApplyAction); the bot only picks. As a game server would,
it asks every answer for the views of each seat (``includeViews``), so one call per move
gives the next player's actions and what to send each player; ListLegalActions is called
only for the rest of a list longer than one page. The deal's calls are written once
(``Game.calls``, a generator of requests that is sent the answers), and ``play`` /
``play_async`` send them through a ``Client`` or an ``AsyncClient``.

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
from collections.abc import Generator

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

    #: What every Deal and ApplyAction asks for: each seat's view and the next seat's page.
    EXTRAS = {"includeViews": True, "includeLegalActions": True}

    def deal_request(self) -> dict:
        return {"ruleset": {"profile": "classic"}, "players": 4, "seed": self.seed, **self.EXTRAS}

    def over(self, snapshot: dict) -> bool:
        if self.applied >= self.max_actions:
            raise RuntimeError(f"the deal did not end in {self.max_actions} actions")
        return snapshot["turn"]["phase"] == "OVER"

    def list_request(self, answer: dict, page_token: str) -> dict:
        """A further page of the awaited seat's list (the answer carries the first)."""
        seat = answer["nextActions"]["seat"]
        return {
            "snapshot": answer["snapshot"],
            "seat": seat,
            "pageSize": 1000,
            "pageToken": page_token,
        }

    def apply_request(self, snapshot: dict, actions: list[dict]) -> dict:
        action = dict(choose(actions, snapshot, self.rng), expectedPly=snapshot["ply"])
        return {"snapshot": snapshot, "action": action, **self.EXTRAS}

    def checked(self, answer: dict) -> dict:
        if not answer["legal"]:
            codes = [v["code"] for v in answer["violations"]]
            raise RuntimeError(f"a listed action was refused: {codes}")
        self.applied += 1
        return answer

    def send_views(self, answer: dict) -> None:
        """Where a game server sends each player ``view["snapshot"]`` and ``view["events"]``:
        drawn cards of other seats are already counted, not shown."""
        assert len(answer["views"]) == len(answer["snapshot"]["seats"])

    def calls(self) -> Generator[tuple[str, dict], dict, None]:
        """The whole deal, written once for both clients: yields each call (the RPC's name
        and the request) and is sent its answer; ``play`` and ``play_async`` make them."""
        answer = yield "Deal", self.deal_request()
        while not self.over(answer["snapshot"]):
            self.send_views(answer)
            actions, token = (
                list(answer["nextActions"]["actions"]),
                answer["nextActions"]["nextPageToken"],
            )
            while token:  # a list longer than one page
                page = yield "ListLegalActions", self.list_request(answer, token)
                actions += page["actions"]
                token = page["nextPageToken"]
            answer = yield "ApplyAction", self.apply_request(answer["snapshot"], actions)
            self.checked(answer)
        self.report(answer["snapshot"], answer["score"])

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
    calls = game.calls()
    try:
        call = next(calls)
        while True:
            call = calls.send(client.call(*call))
    except StopIteration:
        pass


async def play_async(client: AsyncClient, game: Game) -> None:
    calls = game.calls()
    try:
        call = next(calls)
        while True:
            call = calls.send(await client.call(*call))
    except StopIteration:
        pass


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

"""Calls and wall time per deal for a game server, before and after views in the answer
(docs/guide.md#one-call-per-move): the same bot (clients/python/client/examples/play_deal.py's
choice) plays the same seeded 4-player classic deals over REST and gRPC against one real
server on 127.0.0.1, by two recipes that hand every player the same messages:

- ``six-calls``: ListLegalActions (every page), ApplyAction, then GetPlayerView per seat
  and the drawn cards stripped from the events by hand;
- ``one-call``: ApplyAction with ``includeViews`` and ``includeLegalActions`` (a further
  ListLegalActions only for a list longer than one page).

and, for a table whose seats 1 and 3 are computer players (BASIC) and 0 and 2 people:

- ``suggest``: a computer seat's move is SuggestAction, then ApplyAction of its action;
- ``computer``: a computer seat's move is one ApplyAction with ``computer``;
- ``comp+seats``: the same, with ``viewSeats`` [0, 2]: only the people's views.

Every recipe runs in the same process, deals interleaved, so each ratio is measured against
a baseline of the same run (``six-calls`` for ``one-call``, ``suggest`` for the computer
tables). ``make bench-views`` (BENCH_ARGS="--deals 2").
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from service_bench import Server  # noqa: E402

from samba_adjudicator.client import Client  # noqa: E402
from samba_adjudicator.client.examples.play_deal import choose  # noqa: E402


def redacted(viewer: int, events: list[dict]) -> list[dict]:
    return [
        dict(e, cards=[]) if e["type"] == "CARDS_DRAWN" and e["seat"] != viewer else e
        for e in events
    ]


def six_calls(client: Client, seed: str) -> tuple[int, int]:
    rng, calls = random.Random(seed), 1
    snapshot = client.deal({"players": 4, "seed": seed})["snapshot"]
    while snapshot["turn"]["phase"] != "OVER":
        seat, actions, token = snapshot["turn"]["awaitingSeats"][0], [], ""
        while True:
            page = client.list_legal_actions(
                {"snapshot": snapshot, "seat": seat, "pageSize": 100, "pageToken": token}
            )
            calls += 1
            actions += page["actions"]
            token = page["nextPageToken"]
            if not token:
                break
        answer = client.apply_action(
            {"snapshot": snapshot, "action": choose(actions, snapshot, rng)}
        )
        snapshot = answer["snapshot"]
        for viewer in range(4):
            client.get_player_view({"snapshot": snapshot, "seat": viewer})
            redacted(viewer, answer["events"])
        calls += 5
    return calls, snapshot["ply"]


EXTRAS = {"includeViews": True, "includeLegalActions": True}


def one_call(client: Client, seed: str) -> tuple[int, int]:
    rng, calls = random.Random(seed), 1
    answer = client.deal({"players": 4, "seed": seed, **EXTRAS})
    while answer["snapshot"]["turn"]["phase"] != "OVER":
        nxt = answer["nextActions"]
        actions, token = list(nxt["actions"]), nxt["nextPageToken"]
        while token:
            page = client.list_legal_actions(
                {"snapshot": answer["snapshot"], "seat": nxt["seat"], "pageToken": token}
            )
            calls += 1
            actions += page["actions"]
            token = page["nextPageToken"]
        snapshot = answer["snapshot"]
        answer = client.apply_action(
            {"snapshot": snapshot, "action": choose(actions, snapshot, rng), **EXTRAS}
        )
        calls += 1
    return calls, answer["snapshot"]["ply"]


COMPUTERS = (1, 3)


def computer_table(client: Client, seed: str, one_call: bool, view_seats=()) -> tuple[int, int]:
    """One deal of a table with computer seats: (calls, moves)."""
    rng, calls = random.Random(seed), 1
    extras = {**EXTRAS, "viewSeats": list(view_seats)}
    answer = client.deal({"players": 4, "seed": seed, **extras})
    while answer["snapshot"]["turn"]["phase"] != "OVER":
        nxt, snapshot = answer["nextActions"], answer["snapshot"]
        body = {"snapshot": snapshot, **extras}
        if nxt["seat"] not in COMPUTERS:
            actions, token = list(nxt["actions"]), nxt["nextPageToken"]
            while token:
                page = client.list_legal_actions(
                    {"snapshot": snapshot, "seat": nxt["seat"], "pageToken": token}
                )
                calls += 1
                actions += page["actions"]
                token = page["nextPageToken"]
            body["action"] = choose(actions, snapshot, rng)
        elif one_call:
            body["computer"] = {"seat": nxt["seat"], "level": "BASIC", "seed": seed}
        else:
            move = {"snapshot": snapshot, "seat": nxt["seat"], "level": "BASIC", "seed": seed}
            body["action"] = client.suggest_action(move)["action"]
            calls += 1
        answer = client.apply_action(body)
        calls += 1
    return calls, answer["snapshot"]["ply"]


RECIPES = {
    "six-calls": six_calls,
    "one-call": one_call,
    "suggest": lambda client, seed: computer_table(client, seed, False),
    "computer": lambda client, seed: computer_table(client, seed, True),
    "comp+seats": lambda client, seed: computer_table(client, seed, True, (0, 2)),
}
#: Each recipe's baseline for the ratio column.
BASELINE = {
    "six-calls": "six-calls",
    "one-call": "six-calls",
    "suggest": "suggest",
    "computer": "suggest",
    "comp+seats": "suggest",
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=4)
    args = p.parse_args()
    server = Server(1)
    try:
        targets = {
            "rest": lambda: Client.rest(f"http://127.0.0.1:{server.http_port}", timeout=30),
            "grpc": lambda: Client.grpc(f"127.0.0.1:{server.grpc_port}", timeout=30),
        }
        print(f"build {server.build}, {args.deals} deals per recipe and transport")
        print("transport  recipe      calls/deal  moves/deal  calls/move  wall s/deal  ratio")
        for transport, make in targets.items():
            totals = {name: [0, 0, 0.0] for name in RECIPES}
            with make() as client:
                for k in range(args.deals):
                    for name, recipe in RECIPES.items():  # interleaved: same load for both
                        start = time.perf_counter()
                        calls, moves = recipe(client, f"views-bench-{k}")
                        t = totals[name]
                        t[0], t[1], t[2] = (
                            t[0] + calls,
                            t[1] + moves,
                            t[2] + time.perf_counter() - start,
                        )
            for name, (calls, moves, wall) in totals.items():
                n, base = args.deals, totals[BASELINE[name]][2]
                print(
                    f"{transport:<10} {name:<11} {calls / n:>10.1f}  {moves / n:>10.1f}"
                    f"  {(calls - n) / moves:>10.2f}  {wall / n:>11.3f}  {wall / base:>5.2f}"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()

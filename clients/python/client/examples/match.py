"""Recipe: a whole match across deals, as a game server keeps it.

Each deal after the first is dealt from the previous deal's final snapshot (``previous``):
the service carries the match scores, deal number, dealer, ruleset and players over, so a
match stays as trustworthy as its snapshots (signed when the service signs). The match is
over when a deal's score says ``matchOver`` (a side reached the target, or the last deal
was played); a Deal after that answers FAILED_PRECONDITION ``MATCH_OVER``. Every seat here
is a computer player (ApplyAction with ``computer``): one call per move.

    python -m samba_adjudicator.client.examples.match --transport rest \
        --target http://127.0.0.1:8080 [--max-deals 2]
"""

from __future__ import annotations

import argparse
import json
import secrets

from samba_adjudicator.client import Client


def play_deal(client: Client, answer: dict, table: str) -> dict:
    """Moves until the deal is over; the last answer (it carries ``score``)."""
    while answer["snapshot"]["turn"]["phase"] != "OVER":
        snapshot = answer["snapshot"]
        seat = snapshot["turn"]["awaitingSeats"][0]
        computer = {"seat": seat, "level": "BASIC", "seed": f"{table}-{snapshot['ply']}"}
        answer = client.apply_action(
            {"snapshot": snapshot, "computer": {**computer, "budgetMs": 20}}
        )
        assert answer["legal"], answer["violations"]  # a computer move is always legal
    return answer


def play_match(client: Client, table: str, max_deals: int = 0) -> dict:
    ruleset: dict = {"profile": "classic"}
    if max_deals:  # a shorter match: the last deal ends it whatever the scores
        ruleset["overrides"] = {"maxDeals": max_deals}
    # a fresh secret seed per deal: the seed reveals every hand, keep it on the server
    answer = client.deal({"ruleset": ruleset, "players": 4, "seed": secrets.token_hex(16)})
    deals = []
    while True:
        answer = play_deal(client, answer, table)
        score = answer["score"]
        deals.append([side["dealTotal"] for side in score["sides"]])
        print(f"deal {answer['snapshot']['dealNumber']}: {deals[-1]}")
        if score["matchOver"]:
            break
        # store the final snapshot exactly as returned: it is the next deal's `previous`
        answer = client.deal({"previous": answer["snapshot"], "seed": secrets.token_hex(16)})
    totals = [side["matchTotal"] for side in score["sides"]]
    outcome = {"winnerSide": score["winnerSide"]} if "winnerSide" in score else {"draw": True}
    return {"deals": len(deals), "matchTotals": totals, **outcome}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--transport", choices=("grpc", "rest"), default="rest")
    p.add_argument("--target", default="http://127.0.0.1:8080")
    p.add_argument("--max-deals", type=int, default=0, help="0: the profile's own match end")
    args = p.parse_args()
    with getattr(Client, args.transport)(args.target) as client:
        print(json.dumps(play_match(client, "table-1", args.max_deals)))


if __name__ == "__main__":
    main()

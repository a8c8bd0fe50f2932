"""Recipe: a teaching view with every hand open, and every hand revealed once a deal is over.

GetPlayerView's ``reveal`` (docs/api.md#revealed-views) opens every hand of the view:

- ``REVEAL_TEACHING`` at any point, for a teaching table: the game server has decided that
  everyone at this table sees every hand (a lesson, a replay with commentary);
- ``REVEAL_FINISHED_DEAL`` once the deal is over, for the after-deal review; while the deal
  is in play it is refused (INVALID_ARGUMENT on ``reveal``), so an ordinary table can ask
  for it without ever showing a hand that is still in play.

Both need the full snapshot (only the game server holds it); the stock stays hidden, and a
revealed view is not signed: it is for display, not to be sent back.

    python -m samba_adjudicator.client.examples.teaching_view --transport rest \
        --target http://127.0.0.1:8080
"""

from __future__ import annotations

import argparse
import json

from samba_adjudicator.client import AdjudicatorError, Client


def open_hands(view: dict) -> int:
    return sum(1 for seat in view["seats"] if seat["hand"] and not seat["handHidden"])


def play(client: Client) -> dict:
    report: dict = {}
    answer = client.deal({"players": 4, "seed": "teaching-recipe"})
    snapshot = answer["snapshot"]
    teaching = {"snapshot": snapshot, "seat": 0, "reveal": "REVEAL_TEACHING"}
    report["teachingOpenHands"] = open_hands(client.get_player_view(teaching)["snapshot"])
    try:  # an ordinary table's review, asked too early: refused, nothing shown
        client.get_player_view({"snapshot": snapshot, "seat": 0, "reveal": "REVEAL_FINISHED_DEAL"})
    except AdjudicatorError as e:
        report["inPlay"] = [e.status, [v.field for v in e.violations]]
    while snapshot["turn"]["phase"] != "OVER":
        seat = snapshot["turn"]["awaitingSeats"][0]
        computer = {"seat": seat, "level": "BASIC", "seed": str(snapshot["ply"]), "budgetMs": 20}
        snapshot = client.apply_action({"snapshot": snapshot, "computer": computer})["snapshot"]
    review = {"snapshot": snapshot, "reveal": "REVEAL_FINISHED_DEAL"}  # the spectator's too
    view = client.get_player_view(review)["snapshot"]
    report["reviewOpenHands"] = open_hands(view)
    report["reviewHands"] = [len(seat["hand"]) for seat in view["seats"]]
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

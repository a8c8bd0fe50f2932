"""Every CLI method answers for every profile and variation (issue: the other rulesets).

Runs the CLI's own entry (`service.transport.cli.run`: JSON text in, the REST body and exit status
out, exactly what the command prints) in process, since a subprocess per call for every
profile would be slow; tests/test_cli.py runs the real command.
"""

from __future__ import annotations

import json

import pytest

from samba_adjudicator.service.pipeline.api import Adjudicator
from samba_adjudicator.service.transport.cli import run

SPECS = [
    "classic",
    "pagat",
    "spanish",
    "canasta",
    "bolivia",
    "official",
    "classic+uruguayan",
    "classic+open",
    "pagat+uruguayan+open",
]
PLAYERS = {"bolivia": 4, "official": 4}


def call(method: str, body: dict) -> dict:
    status, answer = run(method, json.dumps(body).encode(), adjudicator=Adjudicator())
    assert status == 0, answer
    return answer


@pytest.mark.parametrize("spec", SPECS)
def test_every_method_for_every_profile(spec):
    ref = {"profile": spec}
    base = spec.split("+")[0]
    players = PLAYERS.get(base, 2 if base != "spanish" else 6)
    ruleset = call("GetRuleset", {"profile": spec})
    assert ruleset["profile"] == spec and ruleset["version"]
    assert spec.split("+")[0] in {r["profile"] for r in call("ListRulesets", {})["rulesets"]}

    snapshot = call("Deal", {"ruleset": ref, "players": players, "seed": f"cli-{spec}"})["snapshot"]
    assert len(snapshot["seats"]) == players
    listed = call("ListLegalActions", {"snapshot": snapshot})
    assert listed["totalSize"] == len(listed["actions"]) > 0
    draw = listed["actions"][0]
    assert call("ValidateAction", {"snapshot": snapshot, "action": draw}) == {
        "legal": True,
        "violations": [],
    }
    applied = call("ApplyAction", {"snapshot": snapshot, "action": draw})
    assert applied["legal"] and applied["snapshot"]["ply"] == 1
    replayed = call("ReplayDeal", {"snapshot": snapshot, "actions": [draw]})
    assert replayed["snapshot"] == applied["snapshot"]
    after = applied["snapshot"]
    view = call("GetPlayerView", {"snapshot": after, "seat": 0})
    assert view["viewerSeat"] == 0 and view["snapshot"]["stockHidden"]
    score = call("ScoreDeal", {"snapshot": after, "provisional": True})
    assert score["provisional"] and len(score["sides"]) == len(after["sides"])
    hand = after["seats"][after["turn"]["seat"]]["hand"]
    checked = call("CheckMeld", {"ruleset": ref, "cards": hand[:3]})
    assert set(checked) >= {"valid", "kind", "status", "natural", "points", "violations"}


@pytest.mark.parametrize(
    "spec,players", [("classic", 3), ("bolivia", 2), ("official", 6), ("pagat", 6), ("canasta", 5)]
)
def test_unsupported_player_count_names_the_allowed_ones(spec, players):
    status, answer = run(
        "Deal",
        json.dumps({"ruleset": {"profile": spec}, "players": players, "seed": "x"}).encode(),
        adjudicator=Adjudicator(),
    )
    assert status == 2
    violations = answer["error"]["details"][1]["fieldViolations"]
    assert violations[0]["reason"] == "UNSUPPORTED_PLAYER_COUNT"
    allowed = call("GetRuleset", {"profile": spec})["tableSizes"]
    for size in allowed:
        assert str(size["players"]) in violations[0]["description"]

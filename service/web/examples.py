"""Worked examples of every REST route, made by the service itself.

The OpenAPI document shows, for each route, a request the service accepts, the answer it
gives, and the error it gives to a broken version of that request. None of them is written
by hand: a real deal is dealt from a fixed seed and the requests are built from it (the
first legal action of the seat to move, a legal discard after it, ...), then answered by
an ``Adjudicator`` set up as the servers' are (with the same snapshot-signing keys, so the
example snapshots carry valid signatures where signing is on). A change of rules or schema
cannot leave a stale example behind.
"""

from __future__ import annotations

import functools
import json

from ..base.errors import ApiError
from ..codec import jsonio
from ..codec.error_bodies import rest_body
from ..codec.signing import Signer
from ..pipeline.api import Adjudicator
from ..pipeline.call import Call
from ..pipeline.runtime import Runtime

EXAMPLE_SEED = "example-seed-1"
EXAMPLE_REQUEST_ID = "example-request-id"
#: A misspelt field name: what the error example of each POST route adds to its request.
TYPO_FIELD = "handcards"


def _answer(adjudicator: Adjudicator, method: str, body: dict) -> dict:
    """The REST answer body to ``body``: the response, or the error body."""
    runtime = Runtime(None, adjudicator, count_calls=False)  # the boundary the gateway uses
    try:
        return jsonio.to_dict(runtime.answer(Call(method, json.dumps(body), json=True)).whole())
    except ApiError as e:
        return rest_body(e, EXAMPLE_REQUEST_ID)


def _requests(adjudicator: Adjudicator) -> dict[str, dict]:
    deal = {"ruleset": {"profile": "classic"}, "players": 4, "seed": EXAMPLE_SEED}
    snapshot = _answer(adjudicator, "Deal", deal)["snapshot"]
    listed = _answer(adjudicator, "ListLegalActions", {"snapshot": snapshot})["actions"]
    first = listed[0]  # the draw of the seat to move
    after = _answer(adjudicator, "ApplyAction", {"snapshot": snapshot, "action": first})
    then = _answer(adjudicator, "ListLegalActions", {"snapshot": after["snapshot"]})["actions"]
    discard = next(a for a in then if "discard" in a)
    return {
        "Deal": deal,
        "CheckMeld": {"ruleset": {"profile": "classic"}, "cards": ["7H", "7D", "2C"]},
        "ValidateAction": {"snapshot": snapshot, "action": first},
        "ApplyAction": {"snapshot": snapshot, "action": first},
        "ListLegalActions": {"snapshot": snapshot, "pageSize": 10},
        "ScoreDeal": {"snapshot": snapshot, "provisional": True},
        "GetPlayerView": {"snapshot": snapshot, "seat": first["seat"]},
        "ReplayDeal": {"snapshot": snapshot, "actions": [first, discard]},
        "SuggestAction": {
            "snapshot": after["snapshot"],
            "seat": first["seat"],
            "level": "BASIC",
            "seed": EXAMPLE_SEED,
        },
        "VerifyDeal": {"deal": snapshot, "seed": EXAMPLE_SEED},
    }


@functools.cache
def route_examples(signer: Signer | None) -> dict[str, dict]:
    """RPC name -> {"request": body or None, "response": body, "error": error body}, made
    with the server's ``signer``."""
    adjudicator = Adjudicator(signer=signer)
    out: dict[str, dict] = {}
    for method, body in _requests(adjudicator).items():
        broken = {**body, TYPO_FIELD: []}
        out[method] = {
            "request": body,
            "response": _answer(adjudicator, method, body),
            "error": _answer(adjudicator, method, broken),
        }
    out["ListRulesets"] = {
        "request": None,
        "response": _answer(adjudicator, "ListRulesets", {}),
        "error": None,
    }
    out["GetRuleset"] = {
        "request": {"profile": "classic+open"},
        "response": _answer(adjudicator, "GetRuleset", {"profile": "classic+open"}),
        "error": _answer(adjudicator, "GetRuleset", {"profile": "chess"}),
    }
    return out

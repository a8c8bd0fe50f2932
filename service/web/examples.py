"""Worked examples of every REST route, made by the service itself.

The OpenAPI document shows, for each route, a request the service accepts, the answer it
gives, and the error it gives to a broken version of that request. The requests are the RPCs'
rows (``service.pipeline.rpc``) filled in from a real deal dealt from a fixed seed (the first
legal action of the seat to move, a legal discard after it, ...), and answered by an
``Adjudicator`` set up as the servers' are (with the same snapshot-signing keys, so the example
snapshots carry valid signatures where signing is on): no position or answer is written by
hand, and a change of rules or schema cannot leave a stale one behind.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from ..base.errors import ApiError
from ..codec import jsonio
from ..codec.error_bodies import rest_body
from ..codec.signing import Signer
from ..pipeline.api import Adjudicator
from ..pipeline.call import Call
from ..pipeline.rpc import RPCS
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


def _filled(body: dict[str, Any], sample: dict[str, Any]) -> dict[str, Any]:
    """``body`` with each ``"$name"`` in it the sample's ``name``."""
    text = re.sub(r'"\$(\w+)"', lambda m: json.dumps(sample[m[1]]), json.dumps(body))
    return json.loads(text)


def _sample(adjudicator: Adjudicator) -> dict[str, Any]:
    """What the examples name: a deal of EXAMPLE_SEED, the first legal action of the seat to
    move (a draw), the snapshot after it and a legal discard then."""
    ask = functools.partial(_answer, adjudicator)
    s: dict[str, Any] = {"seed": EXAMPLE_SEED}
    s["snapshot"] = ask("Deal", _filled(RPCS["Deal"].example or {}, s))["snapshot"]
    s["first"] = first = ask("ListLegalActions", {"snapshot": s["snapshot"]})["actions"][0]
    s["after"] = ask("ApplyAction", {"snapshot": s["snapshot"], "action": first})["snapshot"]
    then = ask("ListLegalActions", {"snapshot": s["after"]})["actions"]
    return {**s, "seat": first["seat"], "discard": next(a for a in then if "discard" in a)}


@functools.cache
def route_examples(signer: Signer | None) -> dict[str, dict]:
    """RPC name -> {"request": body or None, "response": body, "error": error body or None},
    made with the server's ``signer`` from each RPC's row (``service.pipeline.rpc``)."""
    adjudicator = Adjudicator(signer=signer)
    sample = _sample(adjudicator)
    out: dict[str, dict] = {}
    for method, rpc in RPCS.items():
        body = None if rpc.example is None else _filled(rpc.example, sample)
        error = rpc.error or (None if body is None else {**body, TYPO_FIELD: []})
        out[method] = {
            "request": body,
            "response": _answer(adjudicator, method, body or {}),
            "error": None if error is None else _answer(adjudicator, method, error),
        }
    return out

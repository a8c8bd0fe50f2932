"""What the service knows of an RPC beyond its schema, one row each (``RPCS``); its handler is
the ``Adjudicator`` method of its snake_case name (CONTRIBUTING.md, "Adding … an RPC")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..base import pb

Outcome = tuple[str, list[str]]  # a call's label (samba_calls_total, its log line), its codes


def ok(response: Any) -> Outcome:
    return "ok", []


def judged(verdict: str) -> Callable[[Any], Outcome]:  # the answer's field saying it is legal
    return lambda r: ("legal" if getattr(r, verdict) else "illegal", [v.code for v in r.violations])


def replayed(r: Any) -> Outcome:
    codes = [v.code for result in r.results for v in result.violations]
    return ("illegal" if r.HasField("first_illegal_index") else "legal"), codes


class Rpc(NamedTuple):
    outcome: Callable[[Any], Outcome] = ok  # of an answer
    #: its REST example's request ("$name": the dealt sample's, service.web.examples); None: none
    example: dict[str, Any] | None = {"snapshot": "$snapshot"}
    heavy: bool = False  # every call lists or replays legal actions (service.pipeline.heavy)
    error: dict[str, Any] | None = None  # its error example's request; None: a misspelt field


_AT = {"snapshot": "$snapshot"}
_CLASSIC = {"ruleset": {"profile": "classic"}}
_ROWS = {  # RPC: Rpc(outcome, example, heavy, error); none: Rpc()
    "ListRulesets": Rpc(ok, None),
    "GetRuleset": Rpc(ok, {"profile": "classic+open"}, error={"profile": "chess"}),
    "Deal": Rpc(ok, {**_CLASSIC, "players": 4, "seed": "$seed"}),
    "CheckMeld": Rpc(judged("valid"), {**_CLASSIC, "cards": ["7H", "7D", "2C"]}),
    "ValidateAction": Rpc(judged("legal"), {**_AT, "action": "$first"}),
    "ApplyAction": Rpc(judged("legal"), {**_AT, "action": "$first"}),
    "ListLegalActions": Rpc(ok, {**_AT, "pageSize": 10}, heavy=True),
    "ScoreDeal": Rpc(ok, {**_AT, "provisional": True}),
    "GetPlayerView": Rpc(ok, {**_AT, "seat": "$seat"}),
    "ReplayDeal": Rpc(replayed, {**_AT, "actions": ["$first", "$discard"]}, True),
    "SuggestAction": Rpc(
        ok, {"snapshot": "$after", "seat": "$seat", "level": "BASIC", "seed": "$seed"}, True
    ),
    "VerifyDeal": Rpc(ok, {"deal": "$snapshot", "seed": "$seed"}),
}
RPCS = {m.name: _ROWS.get(m.name, Rpc()) for m in pb.SERVICE.methods}  # in the schema's order

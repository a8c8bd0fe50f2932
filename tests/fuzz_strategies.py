"""Hypothesis strategies for fuzzing the servers: *valid* snapshots reached by play, and
mutations of them, so that generated requests get past the JSON parser and reach the
engine."""

from __future__ import annotations

import copy

from hypothesis import strategies as st

from samba_adjudicator.engine import apply, deal, legal_actions, resolve
from samba_adjudicator.engine.action_order import canonical
from samba_adjudicator.engine.model import Phase
from samba_adjudicator.service.codec import convert, jsonio
from samba_adjudicator.service.codec.actions import action_to_proto

SPECS = (
    ("classic", 4),
    ("classic", 2),
    ("pagat", 4),
    ("spanish", 3),
    ("bolivia", 4),
    ("classic+open", 4),
)
MAX_PLIES = 40


@st.composite
def positions(draw) -> tuple[dict, dict | None]:
    """(snapshot, one legal action or None), proto3 JSON, after a random number of plies of
    a random deal played through the legal-action list."""
    spec, players = draw(st.sampled_from(SPECS))
    s = deal(resolve(spec), players, draw(st.text(min_size=1, max_size=8)))
    for _ in range(draw(st.integers(0, MAX_PLIES))):
        if s.turn.phase is Phase.OVER:
            break
        actions, _ = legal_actions(s)
        if not actions:
            break
        s = apply(s, actions[draw(st.integers(0, len(actions) - 1))]).snapshot
    actions, _ = legal_actions(s) if s.turn.phase is not Phase.OVER else ([], True)
    action = (
        jsonio.to_dict(action_to_proto(canonical(actions[draw(st.integers(0, len(actions) - 1))])))
        if actions
        else None
    )
    return jsonio.to_dict(convert.snapshot_to_proto(s)), action


_ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([1e400, -0.0, 0.5]),
    st.text(max_size=12),
    st.sampled_from(["JK", "2C", "10H", "ZZ", "7\u2665", "", "PLAY"]),
    st.lists(st.sampled_from(["AS", "3H", "JK", "XX"]), max_size=5),
    st.just({}),
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated(draw, value):
    """``value`` with one to three random changes: a value replaced, a key dropped, a list
    item duplicated or dropped, an unknown key added."""
    out = copy.deepcopy(value)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(out) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = out
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        kind = draw(st.sampled_from(["replace", "drop", "duplicate", "extra"]))
        if kind == "replace":
            parent[last] = draw(_ODD_VALUES)
        elif kind == "drop":
            del parent[last]
        elif kind == "duplicate" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["bogus", "hand_count", "stockCount"]))] = draw(_ODD_VALUES)
    return out


#: Routes taking a snapshot, and how a request is made from (snapshot, action).
def _request(method: str, snapshot: dict, action: dict | None) -> dict:
    if method in ("ValidateAction", "ApplyAction"):
        return {"snapshot": snapshot, "action": action or {"seat": 0, "drawStock": {}}}
    if method == "ReplayDeal":
        return {"snapshot": snapshot, "actions": [action] if action else []}
    if method == "ScoreDeal":
        return {"snapshot": snapshot, "provisional": True}
    if method == "CheckMeld":
        seat = snapshot.get("turn", {}).get("seat", 0) if isinstance(snapshot, dict) else 0
        return {"snapshot": snapshot, "seat": seat, "cards": ["7H", "7D", "7C"]}
    if method == "GetPlayerView":
        return {"snapshot": snapshot, "seat": 0}
    if method == "SuggestAction":
        seat = snapshot.get("turn", {}).get("seat", 0) if isinstance(snapshot, dict) else 0
        return {"snapshot": snapshot, "seat": seat, "level": "BASIC", "seed": "fuzz"}
    return {"snapshot": snapshot, "pageSize": 5}


SNAPSHOT_METHODS = (
    "ValidateAction",
    "ApplyAction",
    "ReplayDeal",
    "ScoreDeal",
    "CheckMeld",
    "GetPlayerView",
    "ListLegalActions",
    "SuggestAction",
)


@st.composite
def requests(draw) -> tuple[str, dict]:
    """(method, request body): a played position, its request mutated or left valid."""
    method = draw(st.sampled_from(SNAPSHOT_METHODS))
    snapshot, action = draw(positions())
    body = _request(method, snapshot, action)
    if draw(st.booleans()):
        body = draw(mutated(body))
    return method, body

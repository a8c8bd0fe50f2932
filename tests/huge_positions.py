"""Positions and requests that cost the most to answer (abuse tests and bench-abuse)."""

from __future__ import annotations

from builders import make_snapshot, pack_counts, ruleset_of

from samba_adjudicator.engine import model as m
from samba_adjudicator.service.codec import convert, jsonio

#: Cards the other seats and the pile hold in ``huge_hand``.
_ELSEWHERE = ("3H", "3D", "4D", "4S", "4C", "9C")


def huge_hand(size: int = 149) -> dict:
    """proto3 JSON of a classic 4-player snapshot where seat 0, opened and to play, holds
    ``size`` cards: tens of thousands of legal actions."""
    left = pack_counts(ruleset_of("classic").decks, ruleset_of("classic").jokers)
    hand = [c for c in sorted(left.elements()) if c not in _ELSEWHERE][:size]
    snap = make_snapshot(
        "classic",
        4,
        hands={0: " ".join(hand), 1: "4D", 2: "4S", 3: "4C"},
        discard="9C",
        turn_seat=0,
        phase=m.Phase.PLAY,
        took_pile=False,
        has_melded=[0],
    )
    return jsonio.to_dict(convert.snapshot_to_proto(snap))


def bad_codes(snapshot: dict, count: int = 120_000) -> dict:
    """``snapshot`` with seat 0 holding ``count`` unknown card codes (0.7 MB of JSON)."""
    out = dict(snapshot)
    out["seats"] = [dict(s) for s in snapshot["seats"]]
    out["seats"][0]["hand"] = ["ZZ"] * count
    return out


def worst_requests(snapshot: dict) -> dict[str, dict]:
    """For each POST route, a malformed request of about a megabyte that costs the most to
    refuse: ``snapshot`` is any valid snapshot (proto3 JSON)."""
    bad = bad_codes(snapshot, 150_000)
    draw = {"seat": 0, "drawStock": {}}
    return {
        "Deal": {"players": 4, "seed": "s", "matchScores": list(range(120_000))},
        "CheckMeld": {"cards": ["ZZ"] * 150_000},
        "ValidateAction": {"snapshot": bad, "action": draw},
        "ApplyAction": {"snapshot": bad, "action": draw},
        "ListLegalActions": {"snapshot": bad},
        "ScoreDeal": {"snapshot": bad, "provisional": True},
        "GetPlayerView": {"snapshot": bad, "seat": 0},
        "ReplayDeal": {
            "snapshot": bad_codes(snapshot, 100_000),
            "actions": [{"seat": 0, "discard": {"card": "ZZ"}}] * 2000,
        },
    }


def huge_draw(size: int = 103) -> dict:
    """proto3 JSON of a classic 2-player snapshot where seat 0, not yet opened, is to draw
    holding ``size`` cards with a pile of three: tens of thousands of ways to take it (the
    103-card position of issue 34, where one computer player's ply cost seconds)."""
    left = pack_counts(ruleset_of("classic").decks, ruleset_of("classic").jokers)
    elsewhere = ("3H", "3D", "4D", "4S", "9C", "5C", "5C")
    hand = [c for c in sorted(left.elements()) if c not in elsewhere][:size]
    snap = make_snapshot(
        "classic",
        2,
        hands={0: " ".join(hand), 1: "4D 4S"},
        discard="5C 5C 9C",
        turn_seat=0,
        phase=m.Phase.DRAW,
    )
    return jsonio.to_dict(convert.snapshot_to_proto(snap))


def huge_opened_hand(size: int = 140) -> dict:
    """proto3 JSON of a classic 4-player snapshot where seat 0's side has opened (a group
    of kings and a run of hearts on the table) and seat 0, to play, holds ``size`` cards:
    every group, addition and wild choice of a side that may meld anything."""
    left = pack_counts(ruleset_of("classic").decks, ruleset_of("classic").jokers)
    melds = ("KS KD KC", "4H 5H 6H")
    elsewhere = (*_ELSEWHERE, *" ".join(melds).split())
    for card in elsewhere:
        left[card] -= 1
    hand = sorted(left.elements())[:size]
    snap = make_snapshot(
        "classic",
        4,
        hands={0: " ".join(hand), 1: "4D", 2: "4S", 3: "4C"},
        melds={0: list(melds)},
        discard="9C",
        turn_seat=0,
        phase=m.Phase.PLAY,
        took_pile=False,
        has_melded=[0],
    )
    return jsonio.to_dict(convert.snapshot_to_proto(snap))

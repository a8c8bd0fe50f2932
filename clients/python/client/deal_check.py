"""Checking a deal against its revealed seeds with no server (docs/dealing.md, "Deals players
can verify"): the commitment, the shuffle's seed, the version-stable shuffle and the dealing
of the hands, each written again here from the documented construction.

    from samba_adjudicator.client.deal_check import verify_deal
    answer = verify_deal(deal, seed, contributions, ruleset=ruleset)
    # {"verified": bool, "problems": [{"field", "reason", "description"}]}

``deal``: a snapshot of the deal (its first or any later one, full or a player's view) as
proto3 JSON or a ``_pb.Snapshot``; ``ruleset``: the deal's resolved ruleset as GetRuleset
or ListRulesets answered it (its ``version`` keys the shuffle), JSON or a ``_pb.Ruleset``.
Checked: the commitment is the seed's, and every seat's ``dealt`` the deal shows is what
the seeds deal. (The service's VerifyDeal checks a first snapshot's other zones too.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

COMMIT_PREFIX = b"samba-deal-commit/v1\x00"
SEED_PREFIX = b"samba-deal-seed/v1\x00"
SHUFFLE_VERSION = "samba-deal/v1"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
RED_THREES = frozenset({"3H", "3D"})
WILDS = frozenset({"JK", "2S", "2H", "2D", "2C"})
BURIED = {
    "BURY_NOTHING": lambda c: False,
    "BURY_WILD_OR_RED_THREE": lambda c: c in WILDS or c in RED_THREES,
    "BURY_WILD_OR_ANY_THREE": lambda c: c in WILDS or c.startswith("3"),
}


def deal_commitment(seed: str) -> str:
    """The commitment a deal made with ``seed`` carries (``dealCommitment``)."""
    return hashlib.sha256(COMMIT_PREFIX + seed.encode("utf-8")).hexdigest()


def shuffle_seed(seed: str, contributions: Sequence[str] = ()) -> str:
    """The seed the shuffle uses: ``seed`` alone, or the hash of it and the contributions."""
    if not contributions:
        return seed
    raw = seed.encode("utf-8")
    parts = [SEED_PREFIX, len(raw).to_bytes(4, "big"), raw, len(contributions).to_bytes(4, "big")]
    for c in contributions:
        data = c.encode("utf-8")
        parts += [len(data).to_bytes(4, "big"), data]
    return hashlib.sha256(b"".join(parts)).hexdigest()


def _words(key: bytes) -> Iterator[int]:
    block = 0
    while True:
        digest = hashlib.sha256(key + block.to_bytes(8, "big")).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k : k + 4], "big")
        block += 1


def shuffled_pack(version: str, players: int, dealer: int, deal_number: int, seed: str,
                  decks: int, jokers: int) -> list[str]:  # fmt: skip
    """The pack in the order the deal uses it (docs/dealing.md, "The shuffle")."""
    text = f"{SHUFFLE_VERSION}|{version}|{players}|{dealer}|{deal_number or 1}|{seed}"
    words = _words(hashlib.sha256(text.encode("utf-8")).digest())
    a = [r + s for _ in range(decks) for r in RANKS for s in SUITS] + ["JK"] * jokers
    for i in range(len(a) - 1, 0, -1):
        m = i + 1
        limit = 2**32 - (2**32 % m)
        w = next(words)
        while w >= limit:
            w = next(words)
        j = w % m
        a[i], a[j] = a[j], a[i]
    return a


def dealt_hands(pack: Sequence[str], players: int, dealer: int, ruleset: Mapping) -> list[list]:
    """Each seat's ``dealt`` (its hand after red-3 handling) from the shuffled pack."""
    sizes = {t["players"]: t["handSize"] for t in ruleset["tableSizes"]}
    order = [(dealer + k) % players for k in range(1, players + 1)]
    hands: list[list[str]] = [[] for _ in range(players)]
    pos = 0
    for _ in range(sizes[players]):
        for s in order:
            hands[s].append(pack[pos])
            pos += 1
    buried = BURIED[ruleset.get("upcardBuriedIf", "BURY_NOTHING")]
    pos += 1  # the upcard
    while pos <= len(pack) - 1 and buried(pack[pos - 1]):
        pos += 1
    replace_now = ruleset.get("redThrees", "REPLACE_NOW") == "REPLACE_NOW"
    for s in order:
        while any(c in RED_THREES for c in hands[s]):
            laid = sum(c in RED_THREES for c in hands[s])
            hands[s] = [c for c in hands[s] if c not in RED_THREES]
            if not replace_now:
                break
            hands[s] += pack[pos : pos + laid]
            pos += laid
    return hands


def _as_json(value: Any) -> Mapping:
    if isinstance(value, Mapping):
        return value
    from google.protobuf import json_format  # a _pb message

    return json_format.MessageToDict(value)


def _problem(field: str, reason: str, description: str) -> dict:
    return {"field": field, "reason": reason, "description": description}


def _commitment_problems(deal: Mapping, seed: str) -> list[dict]:
    given = deal.get("dealCommitment", "")
    if not given:
        return [_problem("deal.dealCommitment", "REQUIRED", "the deal carries no commitment")]
    if given != deal_commitment(seed):
        return [
            _problem(
                "deal.dealCommitment",
                "COMMITMENT_MISMATCH",
                "the commitment is not the revealed seed's",
            )
        ]
    return []


def verify_deal(
    deal: Any, seed: str, seed_contributions: Sequence[str] = (), *, ruleset: Any
) -> dict:
    """``{"verified": bool, "problems": [...]}``, as the service's VerifyDeal answers."""
    deal, ruleset = _as_json(deal), _as_json(ruleset)
    out = _commitment_problems(deal, seed)
    pinned = deal.get("ruleset", {}).get("version", "")
    if pinned and pinned != ruleset.get("version"):
        out.append(
            _problem("deal.ruleset.version", "NOT_THE_SHUFFLE", "the ruleset is another version")
        )
    seats = deal.get("seats", [])
    players, dealer = len(seats), deal.get("dealer", 0)
    pack = shuffled_pack(
        ruleset["version"],
        players,
        dealer,
        deal.get("dealNumber", 0),
        shuffle_seed(seed, seed_contributions),
        ruleset["decks"],
        ruleset["jokers"],
    )
    hands = dealt_hands(pack, players, dealer, ruleset)
    shown = 0
    for i, seat in enumerate(seats):
        dealt = seat.get("dealt", [])
        if not dealt and seat.get("handHidden", False):
            continue
        shown += 1
        if list(dealt) != hands[i]:
            field = f"deal.seats[{i}].dealt"
            out.append(_problem(field, "NOT_THE_SHUFFLE", f"{field} is not what the seeds deal"))
    if not shown:
        out.append(_problem("deal.seats", "NOTHING_TO_CHECK", "the deal shows no dealt cards"))
    return {"verified": not out, "problems": out}

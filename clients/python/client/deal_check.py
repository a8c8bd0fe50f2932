"""Checking a deal against its revealed seeds with no server (docs/dealing.md, "Deals players
can verify"): the commitment, the shuffle's seed, the version-stable shuffle and the dealing
of the hands, each written again here from the documented construction.

    from samba_adjudicator.client.deal_check import verify_deal
    answer = verify_deal(deal, seed, contributions, ruleset=ruleset)
    # {"verified": bool, "problems": [{"field", "reason", "description"}]}

``deal``: a snapshot of the deal (its first or any later one, full or a player's view) as
proto3 JSON or a ``_pb.Snapshot``; ``ruleset``: the deal's resolved ruleset as Deal answered
it (``DealResponse.ruleset``, overrides applied) or, for a profile without overrides,
GetRuleset (its ``version`` keys the shuffle), JSON or a ``_pb.Ruleset``. Checked, as the
service's VerifyDeal checks: the commitment is the seed's, every seat's ``dealt`` the deal
does not say it hides (``handHidden``) is what the seeds deal, and a first snapshot's other
zones; refused alike: what VerifyDeal refuses of the seeds, the commitment's form and
``handHidden``. The vectors of tests/deal_vectors.json hold the three checks to one answer.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import grpc

from .errors import AdjudicatorError, FieldViolation

COMMIT_PREFIX = b"samba-deal-commit/v1\x00"
SEED_PREFIX = b"samba-deal-seed/v1\x00"
SHUFFLE_VERSION = "samba-deal/v1"
MAX_SEED_BYTES = 128  # a seed, and each contribution
MAX_CONTRIBUTIONS = 64
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
    return list(_shuffled(version, players, dealer, deal_number, seed, decks, jokers))


@functools.lru_cache(maxsize=32)  # checking many views of one deal shuffles once
def _shuffled(version: str, players: int, dealer: int, deal_number: int, seed: str,
              decks: int, jokers: int) -> tuple[str, ...]:  # fmt: skip
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
    return tuple(a)


def dealt_hands(pack: Sequence[str], players: int, dealer: int, ruleset: Mapping) -> list[list]:
    """Each seat's ``dealt`` (its hand after red-3 handling) from the shuffled pack."""
    return dealt_position(pack, players, dealer, ruleset)["hands"]


def _sides(players: int, ruleset: Mapping) -> int:
    if players == 4:
        return 2
    if players == 6:
        return 2 if ruleset.get("sixPlayerLayout") == "TWO_TRIOS" else 3
    return players


def dealt_position(pack: Sequence[str], players: int, dealer: int, ruleset: Mapping) -> dict:
    """The first snapshot's zones from the shuffled pack (docs/dealing.md, "Dealing from the
    shuffled list"): ``hands`` (each seat's ``dealt``), ``owed``, ``redThrees`` by side,
    ``discardPile`` and ``stock``."""
    sizes = {t["players"]: t["handSize"] for t in ruleset["tableSizes"]}
    order = [(dealer + k) % players for k in range(1, players + 1)]
    hands: list[list[str]] = [[] for _ in range(players)]
    pos = 0
    for _ in range(sizes[players]):
        for s in order:
            hands[s].append(pack[pos])
            pos += 1
    buried = BURIED[ruleset.get("upcardBuriedIf", "BURY_NOTHING")]
    start = pos
    pos += 1  # the upcard
    while pos <= len(pack) - 1 and buried(pack[pos - 1]):
        pos += 1
    pile = list(pack[start:pos])
    replace_now = ruleset.get("redThrees", "REPLACE_NOW") == "REPLACE_NOW"
    sides = _sides(players, ruleset)
    red_threes: list[list[str]] = [[] for _ in range(sides)]
    owed = [0] * players
    for s in order:
        while any(c in RED_THREES for c in hands[s]):
            laid = [c for c in hands[s] if c in RED_THREES]
            hands[s] = [c for c in hands[s] if c not in RED_THREES]
            red_threes[s % sides] += laid
            if not replace_now:
                owed[s] = len(laid)
                break
            hands[s] += pack[pos : pos + len(laid)]
            pos += len(laid)
    return {
        "hands": hands,
        "owed": owed,
        "redThrees": red_threes,
        "discardPile": pile,
        "stock": list(pack[pos:]),
    }


def _as_json(value: Any) -> Mapping:
    if isinstance(value, Mapping):
        return value
    from google.protobuf import json_format  # a _pb message

    return json_format.MessageToDict(value)


def _problem(field: str, reason: str, description: str) -> dict:
    return {"field": field, "reason": reason, "description": description}


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _hidden(seat: Mapping) -> bool:
    """The view hides the seat's cards (``handHidden``; omitted on a hand of ``handCount``
    > 0 with no card listed, which can only be hidden): docs/api.md#what-a-view-hides."""
    return not seat.get("hand") and (seat.get("handCount", 0) > 0 or seat.get("handHidden", False))


def _violations(deal: Mapping, seed: str, contributions: Sequence[str]) -> list[FieldViolation]:
    """What the service refuses as INVALID_ARGUMENT, in its order."""
    out = []
    if not seed:
        out.append(FieldViolation("seed", "REQUIRED", "seed is required"))
    elif _bytes(seed) > MAX_SEED_BYTES:
        out.append(FieldViolation("seed", "OUT_OF_RANGE", "seed is at most 128 bytes of UTF-8"))
    if len(contributions) > MAX_CONTRIBUTIONS:
        out.append(
            FieldViolation(
                "seedContributions", "OUT_OF_RANGE", "seedContributions lists at most 64"
            )
        )
    for i, c in enumerate(contributions[:MAX_CONTRIBUTIONS]):
        if not c or _bytes(c) > MAX_SEED_BYTES:
            out.append(
                FieldViolation(
                    f"seedContributions[{i}]", "OUT_OF_RANGE", "a contribution is 1 to 128 bytes"
                )
            )
    given = deal.get("dealCommitment", "")
    if given and not (len(given) == 64 and all(c in "0123456789abcdef" for c in given)):
        out.append(FieldViolation("deal.dealCommitment", "OUT_OF_RANGE", "64 lowercase hex digits"))
    for i, seat in enumerate(deal.get("seats", [])):
        if seat.get("handHidden", False) and seat.get("hand"):
            field = f"deal.seats[{i}].handHidden"
            out.append(
                FieldViolation(field, "DERIVED_FIELD_DISAGREES", "a hidden hand lists no card")
            )
    return out


def _refuse(deal: Mapping, seed: str, contributions: Sequence[str], ruleset: Mapping) -> None:
    """Raise what the service would answer instead of a check: INVALID_ARGUMENT with every
    violation, or FAILED_PRECONDITION when the deal pins another ruleset version."""
    violations = _violations(deal, seed, contributions)
    if violations:
        raise AdjudicatorError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"{len(violations)} problem(s)",
            reason="INVALID_REQUEST",
            violations=violations,
        )
    pinned = deal.get("ruleset", {}).get("version", "")
    if pinned and pinned != ruleset.get("version"):
        raise AdjudicatorError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"the deal pins ruleset version {pinned!r}, not {ruleset.get('version')!r}",
            reason="RULESET_VERSION_MISMATCH",
        )


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


def _differs(field: str) -> dict:
    return _problem(field, "NOT_THE_SHUFFLE", f"{field} is not what the seeds deal")


def _dealt_problems(seats: Sequence[Mapping], want: Mapping) -> list[dict]:
    out, shown = [], 0
    for i, seat in enumerate(seats):
        dealt = list(seat.get("dealt", []))
        if not dealt and _hidden(seat):
            continue  # the view says it hides this seat; an empty dealt is not that
        shown += 1
        if dealt != want["hands"][i]:
            out.append(_differs(f"deal.seats[{i}].dealt"))
    if not shown:
        out.append(_problem("deal.seats", "NOTHING_TO_CHECK", "the deal shows no dealt cards"))
    return out


def _first_snapshot_problems(deal: Mapping, want: Mapping) -> list[dict]:
    out = []
    for i, seat in enumerate(deal.get("seats", [])):
        if not _hidden(seat) and list(seat.get("hand", [])) != want["hands"][i]:
            out.append(_differs(f"deal.seats[{i}].hand"))
        if seat.get("redThreeReplacementsOwed", 0) != want["owed"][i]:
            out.append(_differs(f"deal.seats[{i}].redThreeReplacementsOwed"))
    for k, side in enumerate(deal.get("sides", [])):
        if list(side.get("redThrees", [])) != want["redThrees"][k]:
            out.append(_differs(f"deal.sides[{k}].redThrees"))
    if list(deal.get("discardPile", [])) != want["discardPile"]:
        out.append(_differs("deal.discardPile"))
    stock = list(deal.get("stock", []))
    if (stock or not deal.get("stockCount", 0)) and stock != want["stock"]:
        out.append(_differs("deal.stock"))
    return out


def verify_deal(
    deal: Any, seed: str, seed_contributions: Sequence[str] = (), *, ruleset: Any
) -> dict:
    """``{"verified": bool, "problems": [...]}``, as the service's VerifyDeal answers; what
    the service refuses (a bad seed or contribution, a malformed commitment, ``handHidden``
    on a listed hand, another pinned ruleset version) raises the same ``AdjudicatorError``."""
    deal, ruleset = _as_json(deal), _as_json(ruleset)
    contributions = list(seed_contributions)
    _refuse(deal, seed, contributions, ruleset)
    out = _commitment_problems(deal, seed)
    seats = deal.get("seats", [])
    players, dealer = len(seats), deal.get("dealer", 0)
    pack = shuffled_pack(
        ruleset["version"],
        players,
        dealer,
        deal.get("dealNumber", 0),
        shuffle_seed(seed, contributions),
        ruleset["decks"],
        ruleset["jokers"],
    )
    want = dealt_position(pack, players, dealer, ruleset)
    out += _dealt_problems(seats, want)
    if not deal.get("ply", 0):
        out += _first_snapshot_problems(deal, want)
    return {"verified": not out, "problems": out}

"""Deals players can verify: a commitment to the server's secret, and the shuffle seed the
secret and the players' contributions fix together (docs/dealing.md#5-deals-players-can-verify).
Pure hashing; the check of a dealt deal is engine.deal_proof.

- ``commitment(secret)``: ``hex(SHA-256("samba-deal-commit/v1\\0" || utf8(secret)))``,
  carried by the deal's snapshot (``deal_commitment``) and every view of it.
- ``shuffle_seed(secret, contributions)``: the secret itself when there are no
  contributions (today's shuffle, unchanged); otherwise ``hex(SHA-256("samba-deal-seed/v1\\0"
  || u32(len(secret)) || secret || u32(count) || for each contribution, in the order given:
  u32(len(c)) || c))``, lengths in bytes of UTF-8, ``u32`` 4 bytes big-endian. The hex
  string is the seed of the version-stable shuffle (engine.dealing).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from .messages import problem
from .model import Problem

COMMIT_PREFIX = b"samba-deal-commit/v1\x00"
SEED_PREFIX = b"samba-deal-seed/v1\x00"
MAX_CONTRIBUTIONS = 64
MAX_CONTRIBUTION_BYTES = 128
COMMITMENT_HEX_LENGTH = 64


def commitment(secret: str) -> str:
    """The public commitment to a deal's secret seed (lowercase hex)."""
    return hashlib.sha256(COMMIT_PREFIX + secret.encode("utf-8")).hexdigest()


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def shuffle_seed(secret: str, contributions: Sequence[str]) -> str:
    """The seed the shuffle uses: ``secret`` alone, or the hash of it and the contributions."""
    if not contributions:
        return secret
    raw = secret.encode("utf-8")
    parts = [SEED_PREFIX, _u32(len(raw)), raw, _u32(len(contributions))]
    for c in contributions:
        data = c.encode("utf-8")
        parts += [_u32(len(data)), data]
    return hashlib.sha256(b"".join(parts)).hexdigest()


def contribution_problems(contributions: Sequence[object], field: str) -> list[Problem]:
    """At most MAX_CONTRIBUTIONS, each 1..MAX_CONTRIBUTION_BYTES bytes of UTF-8."""
    out: list[Problem] = []
    if len(contributions) > MAX_CONTRIBUTIONS:
        out.append(
            problem(
                field,
                "OUT_OF_RANGE",
                "{field} lists at most {max} contributions, not {count}",
                field=field,
                max=MAX_CONTRIBUTIONS,
                count=len(contributions),
            )
        )
    for i, c in enumerate(contributions[:MAX_CONTRIBUTIONS]):
        if not isinstance(c, str) or not c or len(c.encode("utf-8")) > MAX_CONTRIBUTION_BYTES:
            out.append(
                problem(
                    f"{field}[{i}]",
                    "OUT_OF_RANGE",
                    "a seed contribution is 1 to {max} bytes of UTF-8",
                    max=MAX_CONTRIBUTION_BYTES,
                )
            )
    return out


def commitment_problems(value: str, field: str) -> list[Problem]:
    """A snapshot's ``deal_commitment`` is empty or 64 lowercase hex digits."""
    if value == "" or (
        len(value) == COMMITMENT_HEX_LENGTH and all(c in "0123456789abcdef" for c in value)
    ):
        return []
    return [
        problem(
            field,
            "OUT_OF_RANGE",
            "{field} is a SHA-256 digest: 64 lowercase hex digits",
            field=field,
        )
    ]

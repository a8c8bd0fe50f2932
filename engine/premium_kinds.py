"""The kinds of premium for going out concealed (docs/rules.md#spanish-premiums).

A kind names where the seat's seven-card meld came from (whole from the dealt hand, or
formed during play) and whether the seat added to a partner's meld that turn. Which kinds a
ruleset pays, and how much, is its ``concealed_premiums`` parameter (only ``spanish`` has
any); this leaf module holds the vocabulary both ``ruleset`` and ``premiums`` read.
"""

from __future__ import annotations

from dataclasses import dataclass

#: kind -> (the meld came whole from the dealt hand, the seat added to a partner's meld).
PREMIUM_KINDS: dict[str, tuple[bool, bool]] = {
    "DEALT_HAND": (True, False),
    "DEALT_HAND_WITH_PARTNER": (True, True),
    "DURING_PLAY": (False, False),
    "DURING_PLAY_WITH_PARTNER": (False, True),
}


@dataclass(frozen=True)
class ConcealedPremium:
    """A going out concealed of ``kind`` earns ``points`` (a row of ``concealed_premiums``)."""

    kind: str
    points: int


def kind_of(from_dealt: bool, with_partner: bool) -> str:
    """The kind named by the two conditions."""
    for kind, conditions in PREMIUM_KINDS.items():
        if conditions == (from_dealt, with_partner):
            return kind
    raise AssertionError("PREMIUM_KINDS names every pair of conditions")

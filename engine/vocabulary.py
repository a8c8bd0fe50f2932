"""The words of the rules for melds (docs/rules.md#runs, #going-out, #scoring): one home for each.

A meld of seven or more cards is *complete*: a group is then a canasta, a run a samba (and
closed), a wild-only group a bolivia (closed). A black-3 group is never complete. A meld
is *natural* when it holds no wild card. Every other module asks these questions here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import WILD
from .model import Meld, MeldKind, MeldStatus

#: Cards that complete a meld; the most a run or a wild-only group holds.
SEVEN = 7

_COMPLETE_STATUS = {
    MeldKind.GROUP: MeldStatus.CANASTA,
    MeldKind.RUN: MeldStatus.SAMBA,
    MeldKind.WILD_GROUP: MeldStatus.CLOSED,
}


def is_natural(cards: Sequence[str]) -> bool:
    """The cards hold no wild card."""
    return WILD.isdisjoint(cards)


def status(kind: MeldKind | None, size: int) -> MeldStatus:
    """INCOMPLETE, CANASTA (group ≥ 7), SAMBA (run of 7) or CLOSED (bolivia)."""
    if size >= SEVEN and kind is not None:
        return _COMPLETE_STATUS.get(kind, MeldStatus.INCOMPLETE)
    return MeldStatus.INCOMPLETE


def meld_status(meld: Meld) -> MeldStatus:
    return status(meld.kind, len(meld.cards))


def is_canasta(meld: Meld) -> bool:
    return meld.kind is MeldKind.GROUP and len(meld.cards) >= SEVEN


def is_samba(meld: Meld) -> bool:
    return meld.kind is MeldKind.RUN and len(meld.cards) >= SEVEN


def is_bolivia(meld: Meld) -> bool:
    return meld.kind is MeldKind.WILD_GROUP and len(meld.cards) >= SEVEN


def is_complete(meld: Meld) -> bool:
    """A canasta, a samba or a bolivia: what going out (docs/rules.md#going-out) and the
    TWO_CANASTAS red-3 condition (#red-threes) count. A black-3 group never is."""
    return len(meld.cards) >= SEVEN and meld.kind is not MeldKind.BLACK_THREES


def is_closed(meld: Meld) -> bool:
    """A samba and a bolivia take no more cards (docs/rules.md#runs, #bolivia)."""
    return meld.kind in (MeldKind.RUN, MeldKind.WILD_GROUP) and len(meld.cards) >= SEVEN


def seven_card_melds(melds: Iterable[Meld]) -> tuple[int, int]:
    """(complete melds, sambas among them) of a side's ``melds``."""
    total = sambas = 0
    for m in melds:
        if is_complete(m):
            total += 1
            if m.kind is MeldKind.RUN:
                sambas += 1
    return total, sambas

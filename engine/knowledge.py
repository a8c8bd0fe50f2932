"""What every seat knows of another seat's hand: the cards it took with the pile and has not
laid down since (docs/rules.md#public-knowledge).

``Seat.known`` records it in the snapshot, so every view, each seat's alike, carries it;
``known_after`` is the rule ``apply`` follows after each action, ``check_known`` the
consistency check of a client-given snapshot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from .cards import ORDER, sort_cards
from .messages import problem
from .model import Problem, Snapshot

Add = Callable[[Problem], None]


def known_after(
    known: Sequence[str], laid: Sequence[str], taken: Sequence[str], hand: Sequence[str]
) -> tuple[str, ...]:
    """The acting seat's public cards after an action, in the canonical card order:

        known' = min((known − laid) + taken, hand')    (as multisets)

    ``laid``: every card that left the hand in the action (melds, additions, the cards of
    a take's own meld, a swapped natural, the discard). Observers cannot tell which of two
    identical cards was laid, so laying a copy of a known card lowers its count: ``known``
    is a lower bound every observer can be sure of. ``taken``: the pile cards that reached
    the hand (a whole-pile take: the pile but its top card, which is melded, and its red
    3s, laid out; a top-card-only take melds that card and takes none). A take's melds
    use hand cards only, laid before the pile reaches the hand (docs/rules.md#opening-by-taking),
    so the cards taken are never among the cards laid in the same action. ``hand``: the
    hand after the action; ``min`` keeps ``known'`` a part of it (going out empties both).
    Other seats' ``known`` does not change when one seat acts; a new deal starts empty.
    """
    rest = Counter(known)
    rest.subtract(laid)
    rest = +rest  # a card laid that was not known leaves nothing to forget
    rest.update(taken)
    return tuple(sort_cards((rest & Counter(hand)).elements()))


def check_known(snapshot: Snapshot, add: Add) -> None:
    """Each seat's ``known`` fits its hand: a part of a listed hand (KNOWN_CARD_NOT_IN_HAND
    at the first copy beyond it), no longer than a hidden one (KNOWN_CARD_NOT_IN_HAND at
    ``known``).
    Codes: a listed hand's here; a hidden hand's with the other zones' copies
    (engine.consistency)."""
    for i, seat in enumerate(snapshot.seats):
        if not seat.known:
            continue
        if seat.hand_hidden:
            if len(seat.known) > seat.hand_count:
                add(
                    problem(
                        f"seats[{i}].known",
                        "KNOWN_CARD_NOT_IN_HAND",
                        "{known} cards are known in a hand of {count}",
                        known=len(seat.known),
                        count=seat.hand_count,
                    )
                )
            continue
        _check_in_hand(i, seat.known, seat.hand, add)


def _check_in_hand(i: int, known: Sequence[str], hand: Sequence[str], add: Add) -> None:
    held = Counter(hand)
    for x, card in enumerate(known):
        path = f"seats[{i}].known[{x}]"
        if card not in ORDER:
            add(problem(path, "UNKNOWN_CARD_CODE", "{card} is not a card code", card=repr(card)))
        elif held[card] > 0:
            held[card] -= 1
        else:
            add(
                problem(
                    path,
                    "KNOWN_CARD_NOT_IN_HAND",
                    "the hand holds {held} of {card}; this known card is one more",
                    held=Counter(hand)[card],
                    card=card,
                )
            )

"""The premium a concealed going out earns (docs/rules.md#spanish-premiums).

Going out concealed with a seven-card meld (canasta or samba) the seat laid: the meld came
whole from the dealt hand (multiset inclusion in ``dealt``) or was formed during play, and
the seat added to a partner's meld this turn or not. The ruleset's ``concealed_premiums``
pays each kind (only ``spanish`` lists any); with several such melds the best paid kind
counts. Everything it reads is in the final snapshot, so a client-given premium is checked
against it (engine.consistency), never trusted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from .model import Meld, Premium
from .premium_kinds import kind_of
from .ruleset import Ruleset
from .vocabulary import is_canasta, is_samba


def earned_premium(
    rules: Ruleset,
    seat: int,
    side_melds: Iterable[Meld],
    dealt: Sequence[str],
    with_partner: bool,
) -> Premium | None:
    """The premium of ``seat`` going out concealed, or None (no premiums in the ruleset, no
    seven-card meld laid by the seat, or a kind the ruleset does not pay)."""
    if not rules.concealed_premiums:
        return None
    sevens = [m for m in side_melds if m.laid_by == seat and (is_canasta(m) or is_samba(m))]
    dealt_cards = Counter(dealt)
    kinds = {kind_of(not (Counter(m.cards) - dealt_cards), with_partner) for m in sevens}
    paid = [p for p in rules.concealed_premiums if p.kind in kinds]
    if not paid:
        return None
    best = max(paid, key=lambda p: p.points)
    return Premium(best.kind, best.points)


def premiums_allowed(
    rules: Ruleset, seat: int, side_melds: Sequence[Meld], dealt: Sequence[str], with_partner: bool
) -> tuple[Premium | None, ...]:
    """What the result of ``seat`` going out concealed may carry: the earned premium, or,
    when ``dealt`` is empty (hidden in a view, or never given), the premium of either
    origin (nothing from the dealt hand, or every meld from it)."""
    if dealt:
        return (earned_premium(rules, seat, side_melds, dealt, with_partner),)
    laid = [c for m in side_melds if m.laid_by == seat for c in m.cards]
    return (
        earned_premium(rules, seat, side_melds, (), with_partner),
        earned_premium(rules, seat, side_melds, laid, with_partner),
    )

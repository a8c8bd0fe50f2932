"""The values a computer player answers with, and the levels it plays at (docs/bots.md)."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass

from ..messages import N_, Text, text
from ..model import Action

#: STRONG's search budget when the request gives none, and the most a request may ask for.
DEFAULT_BUDGET_MS = 200
MAX_BUDGET_MS = 2000


class Level(enum.Enum):
    """How hard the computer player thinks (docs/bots.md#levels)."""

    RANDOM = "RANDOM"
    BASIC = "BASIC"
    STRONG = "STRONG"


@dataclass(frozen=True)
class Reason:
    """Why the action was chosen: a stable ``code`` (docs/bots.md#reasons) and a short
    English ``message`` for a hint, made by ``reason`` from one of the code's templates;
    ``template`` and ``params`` say how (engine.messages: another reason given as a
    parameter is nested, ``name:`` and ``name.x``), so that the service says it in the
    caller's language. They take no part in equality."""

    code: str
    message: str
    template: str = dataclasses.field(default="", compare=False)
    params: Mapping[str, str] = dataclasses.field(default_factory=dict, compare=False, hash=False)

    def said(self) -> Text:
        """The message, to give as a parameter of another (SEARCHED's ``reason``)."""
        return Text(self.message, self.template, self.params)


#: Reason code -> the templates of its messages: the only texts a Reason says (each marked
#: for the catalogs: babel.cfg).
REASON_TEXTS: dict[str, tuple[str, ...]] = {
    "TAKE_PILE": (N_("take the pile of {cards} cards"),),
    "TAKE_TOP_CARD": (N_("take the top card onto a run"),),
    "DRAW_STOCK": (N_("draw from the stock"),),
    "ANSWER_GO_OUT": (
        N_("yes: the side is ahead"),
        N_("no: the side is behind"),
        N_("the other answer"),
    ),
    "GO_OUT": (N_("go out while the side is ahead"),),
    "SWAP_WILD": (N_("win a wild back from a meld"),),
    "ASK_GO_OUT": (N_("ask the partner"),),
    "OTHER": (N_("no rule of thumb"),),
    "COMPLETE_SEVEN": (N_("complete a canasta or samba"),),
    "OPEN": (N_("make the initial meld"),),
    "MELD": (N_("meld toward canastas and sambas"),),
    "FREEZE_PILE": (N_("freeze a rich pile while behind"),),
    "DISCARD": (N_("give up a wild"),),
    "SAFE_DISCARD": (
        N_("a black 3 stops the next player"),
        N_("discard a red 3"),
        N_("a discard the next side cannot build on"),
    ),
    "ONLY_ACTION": (N_("the only legal action"),),
    "RANDOM": (N_("chosen at random"),),
    # {reason}: the message of the searched action's own reason
    "SEARCHED": (N_("{reason}: best of {count} over {worlds} sampled deals (mean {mean})"),),
}


def reason(code: str, which: int = 0, /, **params: object) -> Reason:
    """A Reason of ``code`` said from its template number ``which``, filled from ``params``
    (each given as ``str``, or a ``Text``: another reason's ``said()``)."""
    template = REASON_TEXTS[code][which]
    if not params:
        return Reason(code, template, template)
    said = text(template, **params)
    return Reason(code, said.english, template, said.params)


@dataclass(frozen=True)
class Suggestion:
    """One legal action for the seat and the reason for it."""

    action: Action
    reason: Reason


@dataclass(frozen=True)
class Rated:
    """A legal action with the rule of thumb's rating (higher is better) and reason."""

    action: Action
    rating: float
    reason: Reason

"""Texts with no field of their own in an answer, for a page to show (the playground):
a short text for each event type and the name of each score term. Placeholders name the
event's fields (``{seat}``, ``{side}``, ``{meld}``, ``{cards}``, ``{points}``)."""

from __future__ import annotations

from samba_adjudicator.engine.messages import N_

from .catalogs import say

#: Event.Type name -> a short text of what happened.
EVENT_TEXTS = {
    "CARDS_DRAWN": N_("seat {seat} drew from the stock: {cards}"),
    "PILE_TAKEN": N_("seat {seat} took the discard pile: {cards}"),
    "TOP_CARD_TAKEN": N_("seat {seat} took the top card {cards} onto run {meld}"),
    "RED_THREE_LAID": N_("a red 3 laid out for side {side}: {cards}"),
    "MELD_CREATED": N_("seat {seat} laid meld {meld}: {cards}"),
    "MELD_EXTENDED": N_("seat {seat} added {cards} to meld {meld}"),
    "WILD_SWAPPED": N_("seat {seat} swapped a natural for a wild in meld {meld}: {cards}"),
    "CANASTA_COMPLETED": N_("meld {meld} is now a canasta"),
    "SAMBA_COMPLETED": N_("run {meld} is now a samba"),
    "DISCARDED": N_("seat {seat} discarded {cards}"),
    "PERMISSION_ASKED": N_("seat {seat} asked: may I go out?"),
    "PERMISSION_ANSWERED": N_("the partner of seat {seat} answered"),
    "PENALTY_ASSESSED": N_("side {side} is charged a penalty of {points} points"),
    "WENT_OUT": N_("seat {seat} went out"),
    "DEAL_ENDED": N_("the deal is over"),
}

#: SideScore field (JSON name) -> the name of the score term.
SCORE_LABELS = {
    "meldPoints": N_("points of the melds"),
    "canastaBonus": N_("canasta bonus"),
    "sambaBonus": N_("samba bonus"),
    "boliviaBonus": N_("bolivia bonus"),
    "redThreePoints": N_("red 3s"),
    "goingOutBonus": N_("going out"),
    "concealedBonus": N_("going out concealed"),
    "handPenalty": N_("cards left in hand"),
    "penaltyPoints": N_("penalties"),
    "dealTotal": N_("deal total"),
    "matchTotal": N_("match total"),
}


def page_texts(lang: str) -> dict[str, dict[str, str]]:
    """Every event text and score label in ``lang`` (templates left unfilled)."""
    return {
        "events": {k: say(lang, v) for k, v in EVENT_TEXTS.items()},
        "scoreLabels": {k: say(lang, v) for k, v in SCORE_LABELS.items()},
    }

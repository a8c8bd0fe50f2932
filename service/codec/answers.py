"""The engine's judgements as answer messages: violations, events, scores, meld checks, reasons."""

from __future__ import annotations

import dataclasses

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.bots.choice import Reason

from ..base import pb
from ..i18n.catalogs import word
from ..i18n.negotiation import DEFAULT
from .paths import json_path


def violation_to_proto(v: m.Violation, lang: str = DEFAULT) -> pb.Violation:
    """The wire's Violation, its message in ``lang`` (docs/i18n.md)."""
    msg = pb.Violation(
        code=v.code,
        message=word(lang, v.message, v.template, v.params),
        rule=v.rule,
        field=json_path(v.field),
        penalty_points=v.penalty_points,
    )
    for k, val in (v.details or {}).items():
        msg.details[str(k)] = str(val)
    return msg


def reason_to_proto(r: Reason, lang: str) -> pb.SuggestionReason:
    """Why a computer player chose its action, the message in ``lang``."""
    return pb.SuggestionReason(code=r.code, message=word(lang, r.message, r.template, r.params))


def event_to_proto(e: m.Event, card_count: int = -1) -> pb.Event:
    """``card_count``: the cards the event concerns when they are hidden from the viewer
    (``engine.events_seen_by``); otherwise the length of ``cards``."""
    known = pb.Event.Type.keys()  # an EnumTypeWrapper has no `in`
    kind = pb.Event.Type.Value(e.type) if e.type in known else pb.Event.TYPE_UNSPECIFIED
    return pb.Event(
        type=kind,
        seat=e.seat or 0,
        side=e.side or 0,
        meld_id=e.meld_id or "",
        cards=list(e.cards),
        points=e.points,
        card_count=len(e.cards) if card_count < 0 else card_count,
    )


def score_to_proto(report: m.ScoreReport) -> pb.ScoreDealResponse:
    msg = pb.ScoreDealResponse(
        match_over=report.match_over, draw=report.draw, provisional=report.provisional
    )
    for s in report.sides:
        msg.sides.add(**dataclasses.asdict(s))
    if report.winner_side is not None:
        msg.winner_side = report.winner_side
    return msg


def meld_check_to_proto(check: m.MeldCheck, lang: str) -> pb.CheckMeldResponse:
    return pb.CheckMeldResponse(
        valid=check.valid,
        kind=(
            pb.Meld.Kind.Value(check.kind.name)
            if check.kind is not None
            else pb.Meld.KIND_UNSPECIFIED
        ),
        status=(
            pb.Meld.Status.Value(check.status.name)
            if check.status is not None
            else pb.Meld.STATUS_UNSPECIFIED
        ),
        natural=check.natural,
        points=check.points,
        violations=[violation_to_proto(v, lang) for v in check.violations],
        note=check.note,
    )

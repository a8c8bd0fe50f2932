"""Action messages <-> engine actions (docs/api.md#resources).

Reading an action collects every problem at its JSON path (bad card codes, a seat out of
range, an unknown meld id) into ``problems``; an action without a kind reads as None (the
required-field check reports the missing oneof).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine.messages import problem

from ..base import pb
from ..base.errors import Problems
from .paths import card, cards


def meld_ids(snap: m.Snapshot) -> set[str]:
    return {meld.id for side in snap.sides for meld in side.melds}


class _Reader:
    """What reading one action's kind needs: where it is, the problems, the known ids."""

    def __init__(self, path: str, problems: Problems, meld_ids: set[str] | None) -> None:
        self.path = path
        self.problems = problems
        self.meld_ids = meld_ids

    def cards(self, texts: Sequence[str], name: str) -> tuple[str, ...]:
        return cards(texts, f"{self.path}.{name}", self.problems)

    def card(self, text: str, name: str) -> str:
        return (card(text, f"{self.path}.{name}", self.problems) or "") if text else ""

    def meld_id(self, meld_id: str, path: str | None = None) -> str:
        if self.meld_ids is not None and meld_id and meld_id not in self.meld_ids:
            self.problems.append(
                problem(
                    path or f"{self.path}.meldId",
                    "UNKNOWN_MELD_ID",
                    "no meld has id {meld}",
                    meld=repr(meld_id),
                )
            )
        return meld_id

    def new_melds(self, items: Sequence[Any]) -> tuple[tuple[str, ...], ...]:
        return tuple(self.cards(nm.cards, f"newMelds[{i}].cards") for i, nm in enumerate(items))

    def additions(self, items: Sequence[Any]) -> tuple[m.Addition, ...]:
        out = []
        for i, a in enumerate(items):
            ap = f"additions[{i}]"
            self.meld_id(a.meld_id, f"{self.path}.{ap}.meldId")
            end = m.RunEnd[pb.Addition.End.Name(a.end)] if a.end else None
            out.append(
                m.Addition(meld_id=a.meld_id, cards=self.cards(a.cards, f"{ap}.cards"), end=end)
            )
        return tuple(out)


def _take_pile_action(body: pb.TakePile, r: _Reader, seat: int, ply: int | None) -> m.TakePile:
    meld_id = r.meld_id(body.meld_id)  # problems in the order of the fields
    return m.TakePile(
        seat,
        r.cards(body.hand_cards, "handCards"),
        meld_id or None,
        r.new_melds(body.new_melds),
        r.additions(body.additions),
        ply,
    )


#: Action kind (oneof member) -> reader(body, reader, seat, expected ply).
_READERS: dict[str, Callable[[Any, _Reader, int, int | None], m.Action]] = {
    "draw_stock": lambda b, r, seat, ply: m.DrawStock(seat, r.cards(b.cards, "cards"), ply),
    "take_pile": _take_pile_action,
    "take_top_card": lambda b, r, seat, ply: m.TakeTopCard(seat, r.meld_id(b.meld_id), ply),
    "meld": lambda b, r, seat, ply: m.MeldCards(
        seat, r.new_melds(b.new_melds), r.additions(b.additions), ply
    ),
    "swap_wild": lambda b, r, seat, ply: m.SwapWild(
        seat, r.meld_id(b.meld_id), r.card(b.natural, "natural"), r.card(b.wild, "wild"), ply
    ),
    "discard": lambda b, r, seat, ply: m.Discard(seat, r.card(b.card, "card"), ply),
    "ask_go_out": lambda b, r, seat, ply: m.AskGoOut(seat, ply),
    "answer_go_out": lambda b, r, seat, ply: m.AnswerGoOut(seat, b.allow, ply),
}


def action_from_proto(
    msg: pb.Action,
    path: str,
    problems: Problems,
    players: int | None = None,
    known_meld_ids: set[str] | None = None,
) -> m.Action | None:
    """The engine action; bad cards, an unknown seat (``players`` given) or an unknown meld
    id (``known_meld_ids`` given) are appended to ``problems``. None without a kind."""
    seat = msg.seat if msg.HasField("seat") else 0
    if players is not None and msg.HasField("seat") and not 0 <= seat < players:
        problems.append(
            problem(
                f"{path}.seat",
                "OUT_OF_RANGE",
                "seat must be 0..{last}, not {seat}",
                last=players - 1,
                seat=seat,
            )
        )
    expected = msg.expected_ply if msg.HasField("expected_ply") else None
    kind = msg.WhichOneof("kind")
    if kind is None:
        return None
    kind_path = f"{path}.{msg.DESCRIPTOR.fields_by_name[kind].json_name}"
    reader = _Reader(kind_path, problems, known_meld_ids)
    return _READERS[kind](getattr(msg, kind), reader, seat, expected)


def _additions_to_proto(target: Any, additions: Sequence[m.Addition]) -> None:
    for a in additions:
        item = target.add(meld_id=a.meld_id, cards=list(a.cards))
        if a.end is not None:
            item.end = pb.Addition.End.Value(a.end.name)


def _take_pile(msg: pb.Action, action: m.TakePile) -> None:
    msg.take_pile.SetInParent()
    msg.take_pile.hand_cards.extend(action.hand_cards)
    msg.take_pile.meld_id = action.meld_id or ""
    for nm in action.new_melds:
        msg.take_pile.new_melds.add(cards=list(nm))
    _additions_to_proto(msg.take_pile.additions, action.additions)


def _meld(msg: pb.Action, action: m.MeldCards) -> None:
    msg.meld.SetInParent()
    for nm in action.new_melds:
        msg.meld.new_melds.add(cards=list(nm))
    _additions_to_proto(msg.meld.additions, action.additions)


def _draw_stock(msg: pb.Action, action: m.DrawStock) -> None:
    msg.draw_stock.SetInParent()
    msg.draw_stock.cards.extend(action.cards)


def _swap_wild(msg: pb.Action, action: m.SwapWild) -> None:
    msg.swap_wild.CopyFrom(
        pb.SwapWild(meld_id=action.meld_id, natural=action.natural, wild=action.wild)
    )


def _answer_go_out(msg: pb.Action, action: m.AnswerGoOut) -> None:
    msg.answer_go_out.SetInParent()
    msg.answer_go_out.allow = action.allow


#: Engine action type -> writer(message, action).
_WRITERS: dict[type, Callable[[pb.Action, Any], None]] = {
    m.DrawStock: _draw_stock,
    m.TakePile: _take_pile,
    m.TakeTopCard: lambda msg, a: setattr(msg.take_top_card, "meld_id", a.meld_id),
    m.MeldCards: _meld,
    m.SwapWild: _swap_wild,
    m.Discard: lambda msg, a: setattr(msg.discard, "card", a.card),
    m.AskGoOut: lambda msg, a: msg.ask_go_out.SetInParent(),
    m.AnswerGoOut: _answer_go_out,
}


def action_to_proto(action: m.Action) -> pb.Action:
    write = _WRITERS.get(type(action))
    if write is None:
        raise TypeError(f"not an action: {action!r}")
    msg = pb.Action(seat=action.seat)
    if action.expected_ply is not None:
        msg.expected_ply = action.expected_ply
    write(msg, action)
    return msg

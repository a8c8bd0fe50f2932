"""Protobuf messages <-> engine values (CONTRACT.md §3, §4).

Input rules:
- Cards go through ``engine.cards.parse_card`` (``T`` for 10, lower case); every bad code
  is a Problem at its exact path (``snapshot.seats[0].hand[3]``), reason UNKNOWN_CARD_CODE.
- Problems are collected, never repaired, and raised together as ``InvalidInput``.
  Builders append to a ``problems`` list; ``load_snapshot`` and the action readers raise.
- Paths are JSON names relative to the request; engine paths in snake_case are camelised.
- Output-only snapshot fields may be omitted; when given (non-default: proto3 cannot tell
  an omitted ``false``/``0`` from a given one) they must agree with the engine
  (DERIVED_FIELD_DISAGREES).

Output: every output-only field is filled from ``engine.derived``; cards are canonical.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Any, Iterable, Sequence

from google.protobuf.message import Message

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.cards import ORDER, parse_card
from samba_adjudicator.engine.deadline import checkpoint
from samba_adjudicator.engine.model import InvalidInput, Problem

from . import pb
from .errors import ProblemList

# -- paths --------------------------------------------------------------------------------

_SEGMENT = re.compile(r"^([^\[]*)(.*)$")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def json_path(path: str) -> str:
    """``ruleset.overrides.table_sizes[0].hand_size`` -> ``…tableSizes[0].handSize``."""
    if not path or "_" not in path:
        return path
    out = []
    for seg in path.split("."):
        name, index = _SEGMENT.match(seg).groups()
        out.append(camel(name) + index)
    return ".".join(out)


def prefixed(problems: Iterable[Problem], prefix: str) -> list[Problem]:
    """Engine problems relative to a sub-message, re-rooted at ``prefix`` (``snapshot``)."""
    out = []
    for p in problems:
        f = json_path(p.field)
        if prefix:
            f = prefix if not f else (f"{prefix}{f}" if f.startswith("[") else f"{prefix}.{f}")
        out.append(Problem(f, p.reason, p.description))
    return out


def raise_if(problems: list[Problem], kind: str = "INVALID_REQUEST") -> None:
    if problems:
        raise InvalidInput(ProblemList(problems), kind)


# -- cards --------------------------------------------------------------------------------

def card(text: str, path: str, problems: list[Problem]) -> str | None:
    code = parse_card(text)
    if code is None:
        problems.append(Problem(path, "UNKNOWN_CARD_CODE",
                                f"{text!r} is not a card code (rank A 2 3 4 5 6 7 8 9 10 J Q K"
                                f" or T, then suit S H D C; or JK)"))
    return code


_CODES = frozenset(ORDER)


def cards(texts: Iterable[str], path: str, problems: list[Problem]) -> tuple[str, ...]:
    """Canonical codes of ``texts``; bad ones reported (``path[i]``) and left out."""
    texts = tuple(texts)
    if _CODES.issuperset(texts):  # the common case: already canonical
        return texts
    out = []
    for i, t in enumerate(texts):
        if not i & 1023:
            checkpoint()  # a request can hold a hundred thousand bad codes
        code = card(t, f"{path}[{i}]", problems)
        if code is not None:
            out.append(code)
    return tuple(out)


# -- generic enum / dataclass helpers -----------------------------------------------------

def _enum_name(f, number: int) -> str | None:
    v = f.enum_type.values_by_number.get(number)
    return None if v is None or v.number == 0 else v.name


def _set(msg: Message, name: str, value: Any) -> None:
    """Set proto field ``name`` from an engine value (enum, dataclass tuple, scalar)."""
    f = msg.DESCRIPTOR.fields_by_name[name]
    if f.is_repeated:
        target = getattr(msg, name)
        for item in value:
            if dataclasses.is_dataclass(item):
                sub = target.add()
                for k, v in dataclasses.asdict(item).items():
                    setattr(sub, k, v)
            else:
                target.append(item)
    elif isinstance(value, enum.Enum):
        setattr(msg, name, f.enum_type.values_by_name[value.name].number)
    else:
        setattr(msg, name, value)


# -- rulesets -----------------------------------------------------------------------------

_ROW_TYPES = {"TableSize": er.TableSize, "InitialMeldBand": er.InitialMeldBand}


def overrides_from_proto(msg: pb.RulesetOverrides, path: str,
                         problems: list[Problem]) -> dict[str, Any]:
    """The engine's overrides dict: only the fields set (lists: non-empty)."""
    out: dict[str, Any] = {}
    for f in msg.DESCRIPTOR.fields:
        fpath = f"{path}.{f.json_name}"
        if f.is_repeated:
            rows = getattr(msg, f.name)
            if rows:
                cls = _ROW_TYPES[f.message_type.name]
                out[f.name] = tuple(cls(**{g.name: getattr(r, g.name)
                                           for g in r.DESCRIPTOR.fields}) for r in rows)
        elif msg.HasField(f.name):
            value = getattr(msg, f.name)
            if f.enum_type is not None:
                name = _enum_name(f, value)
                if name is None:
                    problems.append(Problem(fpath, "OUT_OF_RANGE",
                                            f"{fpath} must name a {f.enum_type.name}"))
                    continue
                value = getattr(er, f.enum_type.name)[name]
            out[f.name] = value
    return out


def overrides_to_proto(overrides: dict[str, Any]) -> pb.RulesetOverrides:
    msg = pb.RulesetOverrides()
    for name, value in overrides.items():
        _set(msg, name, value)
    return msg


def ruleset_ref_from_proto(msg: pb.RulesetRef, path: str, problems: list[Problem]
                           ) -> tuple[er.Ruleset | None, m.RulesetRef]:
    """Resolve a RulesetRef; problems (unknown profile, parameter, …) are appended.

    The version pin is *not* checked here (it is FAILED_PRECONDITION, not invalid input):
    the caller compares ``ref.version`` with ``ruleset.version``.
    """
    local: list[Problem] = []
    overrides = overrides_from_proto(msg.overrides, f"{path}.overrides", local)
    profile = msg.profile or "classic"
    ref = m.RulesetRef(profile=profile, overrides=overrides, version=msg.version)
    problems.extend(local)
    if local:
        return None, ref
    try:
        rules = er.resolve(profile, overrides, path=path)
    except er.RulesetError as e:
        problems.extend(Problem(json_path(p.field), p.reason, p.description)
                        for p in e.problems)
        return None, ref
    # Answers name the variations in their documented order, however the request put them.
    return rules, dataclasses.replace(ref, profile=rules.profile)


def ruleset_ref_to_proto(ref: m.RulesetRef) -> pb.RulesetRef:
    msg = pb.RulesetRef(profile=ref.profile, version=ref.version)
    if ref.overrides:
        msg.overrides.CopyFrom(overrides_to_proto(dict(ref.overrides)))
    return msg


def ruleset_description(profile: str) -> str:
    base, *variations = (profile or "classic").split("+")
    text = er.PROFILE_DESCRIPTIONS.get(base, "")
    if variations:
        text += f" Variations: {', '.join(variations)}."
    return text


def ruleset_to_proto(rules: er.Ruleset) -> pb.Ruleset:
    msg = pb.Ruleset(profile=rules.profile, version=rules.version,
                     description=ruleset_description(rules.profile))
    for f in dataclasses.fields(rules):
        if f.name not in ("profile", "version"):
            _set(msg, f.name, getattr(rules, f.name))
    return msg


# -- snapshots: proto -> engine -----------------------------------------------------------

def _meld_kind(cards_: Sequence[str]) -> m.MeldKind:
    from samba_adjudicator.engine import derived
    infer = getattr(derived, "meld_kind", None)
    if infer is None:
        from samba_adjudicator.engine.melds import infer_kind as infer
    return infer(cards_)


def snapshot_from_proto(msg: pb.Snapshot, path: str, problems: list[Problem]
                        ) -> m.Snapshot | None:
    """Build the engine Snapshot; unparseable values are appended to ``problems``.

    Never raises and never judges consistency (``check_snapshot_input`` does that). Fields
    the required-field check reports (``turn.phase``, …) get a neutral stand-in here.
    Returns None when the ruleset cannot be resolved.
    """
    rules, ref = ruleset_ref_from_proto(msg.ruleset, f"{path}.ruleset", problems)
    seats = []
    for i, s in enumerate(msg.seats):
        sp = f"{path}.seats[{i}]"
        hand = cards(s.hand, f"{sp}.hand", problems)
        seats.append(m.Seat(
            seat=s.seat if s.seat else i, side=s.side, hand=hand,
            hand_count=s.hand_count if (s.hand_count or not s.hand) else len(s.hand),
            has_melded=s.has_melded, dealt=cards(s.dealt, f"{sp}.dealt", problems),
            red_three_replacements_owed=s.red_three_replacements_owed))
    sides = []
    for k, sd in enumerate(msg.sides):
        kp = f"{path}.sides[{k}]"
        melds = []
        for j, md in enumerate(sd.melds):
            mp = f"{kp}.melds[{j}]"
            before = len(problems)
            mcards = cards(md.cards, f"{mp}.cards", problems)
            if md.kind:
                kind = m.MeldKind[pb.Meld.Kind.Name(md.kind)] \
                    if md.kind in pb.Meld.Kind.values() else None
                if kind is None:
                    problems.append(Problem(f"{mp}.kind", "OUT_OF_RANGE",
                                            f"{md.kind} is not a meld kind"))
                    continue
            elif len(problems) == before:
                kind = _meld_kind(mcards)
            else:
                continue
            melds.append(m.Meld(id=md.id, cards=mcards, laid_by=md.laid_by, kind=kind))
        sides.append(m.Side(
            side=sd.side if sd.side else k, seats=tuple(sd.seats), match_score=sd.match_score,
            melds=tuple(melds), red_threes=cards(sd.red_threes, f"{kp}.redThrees", problems),
            penalties=tuple(m.Penalty(p.code, p.points) for p in sd.penalties)))
    stock = cards(msg.stock, f"{path}.stock", problems)
    discard = cards(msg.discard_pile, f"{path}.discardPile", problems)
    t = msg.turn
    turn = m.Turn(
        seat=t.seat if t.HasField("seat") else 0,
        phase=m.Phase[pb.Turn.Phase.Name(t.phase)] if t.phase else m.Phase.DRAW,
        took_pile=t.took_pile, melded_this_turn=t.melded_this_turn,
        added_to_partner_melds=t.added_to_partner_melds,
        go_out=m.GoOut[pb.Turn.GoOut.Name(t.go_out)] if t.go_out else m.GoOut.NOT_ASKED)
    result = None
    if msg.HasField("result"):
        r = msg.result
        premium = m.Premium(r.premium.kind, r.premium.points) if r.HasField("premium") else None
        result = m.Result(
            reason=m.EndReason[pb.Result.Reason.Name(r.reason)] if r.reason
            else m.EndReason.STOCK_EXHAUSTED,
            seat=r.seat if r.HasField("seat") else None, concealed=r.concealed,
            premium=premium)
    if rules is None:
        return None
    return m.Snapshot(
        ruleset=rules, deal_number=msg.deal_number, dealer=msg.dealer, seats=tuple(seats),
        sides=tuple(sides), stock=stock,
        stock_count=msg.stock_count if (msg.stock_count or not msg.stock) else len(msg.stock),
        discard_pile=discard, turn=turn, ply=msg.ply, result=result, ruleset_ref=ref,
        signature=msg.signature)


def check_snapshot_input(msg: pb.Snapshot, snap: m.Snapshot, path: str) -> list[Problem]:
    """``engine.check_snapshot`` (re-rooted at ``path``), then, when consistent, the
    client-given output-only fields against ``engine.derived``."""
    from samba_adjudicator import engine
    from samba_adjudicator.engine import derived

    problems = prefixed(engine.check_snapshot(snap), path)
    if problems:
        return problems

    def disagree(field: str, given: Any, actual: Any) -> None:
        problems.append(Problem(f"{path}.{field}", "DERIVED_FIELD_DISAGREES",
                                f"{path}.{field} is {actual!r}, not {given!r}"))

    rules = snap.ruleset
    for i, (s, es) in enumerate(zip(msg.seats, snap.seats)):
        if s.hand_hidden and not es.hand_hidden:
            disagree(f"seats[{i}].handHidden", True, False)
    if msg.stock_hidden and not snap.stock_hidden:
        disagree("stockHidden", True, False)
    for k, (sd, es) in enumerate(zip(msg.sides, snap.sides)):
        if sd.opened and not es.opened:
            disagree(f"sides[{k}].opened", True, False)
        need = derived.initial_meld_requirement(rules, es)
        if sd.initial_meld_requirement and sd.initial_meld_requirement != need:
            disagree(f"sides[{k}].initialMeldRequirement", sd.initial_meld_requirement, need)
        for j, (md, em) in enumerate(zip(sd.melds, es.melds)):
            mp = f"sides[{k}].melds[{j}]"
            status = derived.meld_status(rules, em)
            if md.status and md.status != pb.Meld.Status.Value(status.name):
                disagree(f"{mp}.status", pb.Meld.Status.Name(md.status), status.name)
            if md.natural and not derived.meld_natural(em):
                disagree(f"{mp}.natural", True, False)
    if msg.HasField("pile"):
        state = derived.pile_state(snap)
        p = msg.pile
        top = parse_card(p.top) if p.top else None
        if p.top and top != state[0]:
            disagree("pile.top", p.top, state[0] or "")
        if p.count and p.count != state[1]:
            disagree("pile.count", p.count, state[1])
        if p.blocked and not state[2]:
            disagree("pile.blocked", True, False)
        if p.frozen_for_sides and sorted(p.frozen_for_sides) != sorted(state[3]):
            disagree("pile.frozenForSides", list(p.frozen_for_sides), list(state[3]))
    waiting = msg.turn.awaiting_seats
    if waiting:
        actual = derived.awaiting_seats(snap)
        if sorted(waiting) != sorted(actual):
            disagree("turn.awaitingSeats", list(waiting), list(actual))
    return problems


def load_snapshot(msg: pb.Snapshot, path: str = "snapshot",
                  problems: list[Problem] | None = None) -> m.Snapshot:
    """Proto -> a consistent engine Snapshot, or InvalidInput with every problem found
    (``problems``: earlier problems of the same request, reported together)."""
    problems = ProblemList(problems or ())
    snap = snapshot_from_proto(msg, path, problems)
    if problems or snap is None:
        raise InvalidInput(problems or [Problem(path, "REQUIRED", "snapshot is required")])
    raise_if(check_snapshot_input(msg, snap, path))
    return snap


# -- snapshots: engine -> proto -----------------------------------------------------------

def meld_to_proto(rules: er.Ruleset, meld: m.Meld) -> pb.Meld:
    from samba_adjudicator.engine import derived
    return pb.Meld(id=meld.id, cards=list(meld.cards), laid_by=meld.laid_by,
                   kind=pb.Meld.Kind.Value(meld.kind.name),
                   status=pb.Meld.Status.Value(derived.meld_status(rules, meld).name),
                   natural=derived.meld_natural(meld))


def snapshot_to_proto(snap: m.Snapshot) -> pb.Snapshot:
    """Every field filled, output-only ones included; ``signature`` left empty (the API
    signs)."""
    from samba_adjudicator.engine import derived
    rules = snap.ruleset
    msg = pb.Snapshot(ruleset=ruleset_ref_to_proto(snap.ruleset_ref),
                      deal_number=snap.deal_number, dealer=snap.dealer, ply=snap.ply,
                      stock=list(snap.stock),
                      stock_count=len(snap.stock) if snap.stock else snap.stock_count,
                      stock_hidden=snap.stock_hidden, discard_pile=list(snap.discard_pile))
    for s in snap.seats:
        msg.seats.add(seat=s.seat, side=s.side, hand=list(s.hand),
                      hand_count=len(s.hand) if s.hand else s.hand_count,
                      hand_hidden=s.hand_hidden, has_melded=s.has_melded, dealt=list(s.dealt),
                      red_three_replacements_owed=s.red_three_replacements_owed)
    for sd in snap.sides:
        side = msg.sides.add(side=sd.side, seats=list(sd.seats), match_score=sd.match_score,
                             opened=sd.opened,
                             initial_meld_requirement=derived.initial_meld_requirement(rules, sd),
                             red_threes=list(sd.red_threes))
        for meld in sd.melds:
            side.melds.append(meld_to_proto(rules, meld))
        for p in sd.penalties:
            side.penalties.add(code=p.code, points=p.points)
    top, count, blocked, frozen = derived.pile_state(snap)
    msg.pile.CopyFrom(pb.Pile(top=top or "", count=count, blocked=blocked,
                              frozen_for_sides=list(frozen)))
    t = snap.turn
    msg.turn.CopyFrom(pb.Turn(seat=t.seat, phase=pb.Turn.Phase.Value(t.phase.name),
                              took_pile=t.took_pile, melded_this_turn=t.melded_this_turn,
                              added_to_partner_melds=t.added_to_partner_melds,
                              go_out=pb.Turn.GoOut.Value(t.go_out.name),
                              awaiting_seats=list(derived.awaiting_seats(snap))))
    if snap.result is not None:
        r = snap.result
        res = pb.Result(reason=pb.Result.Reason.Value(r.reason.name), concealed=r.concealed)
        if r.seat is not None:
            res.seat = r.seat
        if r.premium is not None:
            res.premium.CopyFrom(pb.Premium(kind=r.premium.kind, points=r.premium.points))
        msg.result.CopyFrom(res)
    return msg


# -- actions ------------------------------------------------------------------------------

def _additions(items, path: str, problems: list[Problem], meld_ids) -> tuple[m.Addition, ...]:
    out = []
    for i, a in enumerate(items):
        ap = f"{path}[{i}]"
        _check_meld_id(a.meld_id, f"{ap}.meldId", problems, meld_ids)
        end = m.RunEnd[pb.Addition.End.Name(a.end)] if a.end else None
        out.append(m.Addition(meld_id=a.meld_id, cards=cards(a.cards, f"{ap}.cards", problems),
                              end=end))
    return tuple(out)


def _new_melds(items, path: str, problems: list[Problem]) -> tuple[tuple[str, ...], ...]:
    return tuple(cards(nm.cards, f"{path}[{i}].cards", problems) for i, nm in enumerate(items))


def _check_meld_id(meld_id: str, path: str, problems: list[Problem], meld_ids) -> None:
    if meld_ids is not None and meld_id and meld_id not in meld_ids:
        problems.append(Problem(path, "UNKNOWN_MELD_ID", f"no meld has id {meld_id!r}"))


def meld_ids(snap: m.Snapshot) -> set[str]:
    return {meld.id for side in snap.sides for meld in side.melds}


def action_from_proto(msg: pb.Action, path: str, problems: list[Problem],
                      players: int | None = None, known_meld_ids: set[str] | None = None
                      ) -> m.Action | None:
    """The engine action; bad cards, an unknown seat (``players`` given) or an unknown meld
    id (``known_meld_ids`` given) are appended to ``problems``. None without a kind."""
    seat = msg.seat if msg.HasField("seat") else 0
    if players is not None and msg.HasField("seat") and not 0 <= seat < players:
        problems.append(Problem(f"{path}.seat", "OUT_OF_RANGE",
                                f"seat must be 0..{players - 1}, not {seat}"))
    expected = msg.expected_ply if msg.HasField("expected_ply") else None
    kind = msg.WhichOneof("kind")
    if kind is None:
        return None
    body = getattr(msg, kind)
    kp = f"{path}.{msg.DESCRIPTOR.fields_by_name[kind].json_name}"
    ids = known_meld_ids
    if kind == "draw_stock":
        return m.DrawStock(seat, cards(body.cards, f"{kp}.cards", problems), expected)
    if kind == "take_pile":
        _check_meld_id(body.meld_id, f"{kp}.meldId", problems, ids)
        return m.TakePile(seat, cards(body.hand_cards, f"{kp}.handCards", problems),
                          body.meld_id or None, _new_melds(body.new_melds, f"{kp}.newMelds",
                                                           problems),
                          _additions(body.additions, f"{kp}.additions", problems, ids),
                          expected)
    if kind == "take_top_card":
        _check_meld_id(body.meld_id, f"{kp}.meldId", problems, ids)
        return m.TakeTopCard(seat, body.meld_id, expected)
    if kind == "meld":
        return m.MeldCards(seat, _new_melds(body.new_melds, f"{kp}.newMelds", problems),
                           _additions(body.additions, f"{kp}.additions", problems, ids),
                           expected)
    if kind == "swap_wild":
        _check_meld_id(body.meld_id, f"{kp}.meldId", problems, ids)
        natural = card(body.natural, f"{kp}.natural", problems) if body.natural else ""
        wild = card(body.wild, f"{kp}.wild", problems) if body.wild else ""
        return m.SwapWild(seat, body.meld_id, natural or "", wild or "", expected)
    if kind == "discard":
        code = card(body.card, f"{kp}.card", problems) if body.card else ""
        return m.Discard(seat, code or "", expected)
    if kind == "ask_go_out":
        return m.AskGoOut(seat, expected)
    if kind == "answer_go_out":
        return m.AnswerGoOut(seat, body.allow, expected)
    raise AssertionError(kind)


def _additions_to_proto(target, additions: Sequence[m.Addition]) -> None:
    for a in additions:
        item = target.add(meld_id=a.meld_id, cards=list(a.cards))
        if a.end is not None:
            item.end = pb.Addition.End.Value(a.end.name)


def action_to_proto(action: m.Action) -> pb.Action:
    msg = pb.Action(seat=action.seat)
    if action.expected_ply is not None:
        msg.expected_ply = action.expected_ply
    if isinstance(action, m.DrawStock):
        msg.draw_stock.SetInParent()
        msg.draw_stock.cards.extend(action.cards)
    elif isinstance(action, m.TakePile):
        msg.take_pile.SetInParent()
        msg.take_pile.hand_cards.extend(action.hand_cards)
        msg.take_pile.meld_id = action.meld_id or ""
        for nm in action.new_melds:
            msg.take_pile.new_melds.add(cards=list(nm))
        _additions_to_proto(msg.take_pile.additions, action.additions)
    elif isinstance(action, m.TakeTopCard):
        msg.take_top_card.meld_id = action.meld_id
    elif isinstance(action, m.MeldCards):
        msg.meld.SetInParent()
        for nm in action.new_melds:
            msg.meld.new_melds.add(cards=list(nm))
        _additions_to_proto(msg.meld.additions, action.additions)
    elif isinstance(action, m.SwapWild):
        msg.swap_wild.CopyFrom(pb.SwapWild(meld_id=action.meld_id, natural=action.natural,
                                           wild=action.wild))
    elif isinstance(action, m.Discard):
        msg.discard.card = action.card
    elif isinstance(action, m.AskGoOut):
        msg.ask_go_out.SetInParent()
    elif isinstance(action, m.AnswerGoOut):
        msg.answer_go_out.SetInParent()
        msg.answer_go_out.allow = action.allow
    else:
        raise TypeError(f"not an action: {action!r}")
    return msg


# -- answers ------------------------------------------------------------------------------

def violation_to_proto(v: m.Violation) -> pb.Violation:
    msg = pb.Violation(code=v.code, message=v.message, rule=v.rule, field=json_path(v.field),
                       penalty_points=v.penalty_points)
    for k, val in (v.details or {}).items():
        msg.details[str(k)] = str(val)
    return msg


def event_to_proto(e: m.Event) -> pb.Event:
    kind = pb.Event.Type.Value(e.type) if e.type in pb.Event.Type.keys() else 0
    return pb.Event(type=kind, seat=e.seat or 0, side=e.side or 0, meld_id=e.meld_id or "",
                    cards=list(e.cards), points=e.points)


def score_to_proto(report: m.ScoreReport) -> pb.ScoreDealResponse:
    msg = pb.ScoreDealResponse(match_over=report.match_over, draw=report.draw,
                               provisional=report.provisional)
    for s in report.sides:
        msg.sides.add(**dataclasses.asdict(s))
    if report.winner_side is not None:
        msg.winner_side = report.winner_side
    return msg


def meld_check_to_proto(check: m.MeldCheck) -> pb.CheckMeldResponse:
    return pb.CheckMeldResponse(
        valid=check.valid,
        kind=pb.Meld.Kind.Value(check.kind.name) if check.kind is not None else 0,
        status=pb.Meld.Status.Value(check.status.name) if check.status is not None else 0,
        natural=check.natural, points=check.points,
        violations=[violation_to_proto(v) for v in check.violations], note=check.note)

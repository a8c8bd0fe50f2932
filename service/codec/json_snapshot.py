"""A snapshot's JSON object read straight into engine values, for the common case: the
service's own rendering sent back (docs/performance.md, "the cold path").

``read(obj)`` returns (engine Snapshot, the output-only fields given) when ``obj`` is written
the way the service answers: lowerCamelCase names only, integers as JSON integers in the
int32 range, enums by name, canonical card codes, every REQUIRED field set. Anything else
(snake_case names, ``null``, a number as a string, an unknown field, a card written ``T``, a
missing field, a wrong type) gives None and the request takes the ordinary way
(``service.codec.jsonio`` to a protobuf message, ``service.codec.convert`` to engine
values), which reports every problem with its path. So this reader never reports a problem:
what it accepts, it reads exactly as that way does (tests/test_json_snapshot.py holds the
two to each other), and what it does not, it leaves to the way that explains.

The required-field walk is folded into the read: a REQUIRED field that is not set is one more
reason for None.
"""

from __future__ import annotations

from typing import Any

from samba_adjudicator.engine import model as m
from samba_adjudicator.engine import ruleset as er
from samba_adjudicator.engine.melds import infer_kind
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import convert
from samba_adjudicator.service.codec.derived_fields import Given, GivenSide
from samba_adjudicator.service.codec.paths import CARD_CODES
from samba_adjudicator.service.codec.rulesets import ruleset_ref_from_proto

_INT32_LOW, _INT32_HIGH = -(2**31), 2**31 - 1


class _Unusual(Exception):
    """Not the service's own form: the ordinary reader takes the snapshot."""


def _by_name(numbers: dict[int, Any], enum: Any) -> dict[str, Any]:
    """Enum name -> the engine member ``convert`` reads its number as (0 excluded)."""
    return {enum.Name(number): member for number, member in numbers.items() if number}


_MELD_KINDS = _by_name(convert.MELD_KINDS, pb.Meld.Kind)
_PHASES = _by_name(convert.PHASES, pb.Turn.Phase)
_GO_OUTS = _by_name(convert.GO_OUTS, pb.Turn.GoOut)
_REASONS = {v.name: m.EndReason[v.name] for v in pb.Result.Reason.DESCRIPTOR.values if v.number}
_STATUSES = {v.name: v.number for v in pb.Meld.Status.DESCRIPTOR.values}
#: The names an unset enum is rendered with: read as unset, as the ordinary way does.
_KIND_UNSET, _GO_OUT_UNSET = "KIND_UNSPECIFIED", "GO_OUT_UNSPECIFIED"

# The JSON names each message may have, written out rather than read from the descriptors:
# a field added to the schema must be read here before it is accepted, and until then sends
# the snapshot the ordinary way (tests/test_json_snapshot.py compares these with the schema).
_SNAPSHOT_KEYS = frozenset(
    {
        "ruleset",
        "dealNumber",
        "dealer",
        "ply",
        "seats",
        "sides",
        "stock",
        "stockCount",
        "stockHidden",
        "discardPile",
        "pile",
        "turn",
        "result",
        "signature",
    }
)
_SEAT_KEYS = frozenset(
    {
        "seat",
        "side",
        "hand",
        "handCount",
        "handHidden",
        "hasMelded",
        "dealt",
        "redThreeReplacementsOwed",
    }
)
_SIDE_KEYS = frozenset(
    {
        "side",
        "seats",
        "matchScore",
        "opened",
        "initialMeldRequirement",
        "melds",
        "redThrees",
        "penalties",
    }
)
_MELD_KEYS = frozenset({"id", "cards", "laidBy", "kind", "status", "natural"})
_PENALTY_KEYS = frozenset({"code", "points"})
_PILE_KEYS = frozenset({"top", "count", "blocked", "frozenForSides"})
_TURN_KEYS = frozenset(
    {
        "seat",
        "phase",
        "tookPile",
        "meldedThisTurn",
        "addedToPartnerMelds",
        "goOut",
        "awaitingSeats",
    }
)
_RESULT_KEYS = frozenset({"reason", "seat", "concealed", "premium"})
_PREMIUM_KEYS = frozenset({"kind", "points"})
_RULESET_KEYS = frozenset({"profile", "version"})


def read(obj: dict[str, Any]) -> tuple[m.Snapshot, Given] | None:
    """(engine Snapshot, output-only fields given) of a snapshot in the service's own JSON
    form, or None for anything else. Never raises for any JSON value; consistency and the
    output-only fields are left to the caller, as for the ordinary reader."""
    try:
        return _snapshot(obj)
    except _Unusual:
        return None


def _object(value: Any, keys: frozenset[str]) -> dict[str, Any]:
    if type(value) is not dict or not keys.issuperset(value):
        raise _Unusual
    return value


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise _Unusual
    return value


def _int(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key, 0)
    if type(value) is not int or not _INT32_LOW <= value <= _INT32_HIGH:
        raise _Unusual
    return value


def _bool(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key, False)
    if type(value) is not bool:
        raise _Unusual
    return value


def _str(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key, "")
    if type(value) is not str:
        raise _Unusual
    return value


def _cards(obj: dict[str, Any], key: str) -> tuple[str, ...]:
    """Canonical codes only: strings first (a list or an object among them could not be
    looked up in ``CARD_CODES``), then every one a code of it."""
    items = _list(obj.get(key, []))
    for item in items:
        if type(item) is not str:
            raise _Unusual
    if not CARD_CODES.issuperset(items):
        raise _Unusual
    return tuple(items)


def _ints(obj: dict[str, Any], key: str) -> tuple[int, ...]:
    items = _list(obj.get(key, []))
    for item in items:
        if type(item) is not int or not _INT32_LOW <= item <= _INT32_HIGH:
            raise _Unusual
    return tuple(items)


def _enum(obj: dict[str, Any], key: str, members: dict[str, Any], unset: str | None) -> Any:
    """The member named at ``key``; None when absent or named ``unset``."""
    name = obj.get(key, unset)
    if name is unset or name == unset:
        return None
    member = members.get(name) if type(name) is str else None
    if member is None:
        raise _Unusual
    return member


def _ruleset(value: Any) -> tuple[er.Ruleset, m.RulesetRef]:
    obj = _object(value, _RULESET_KEYS)  # overrides: the ordinary way reads them
    problems: list = []
    msg = pb.RulesetRef(profile=_str(obj, "profile"), version=_str(obj, "version"))
    rules, ref = ruleset_ref_from_proto(msg, "", problems)
    if rules is None or problems:
        raise _Unusual
    return rules, ref


def _seat(value: Any, i: int) -> tuple[m.Seat, bool]:
    s = _object(value, _SEAT_KEYS)
    hand = _cards(s, "hand")
    return (
        m.Seat(
            seat=_int(s, "seat") or i,
            side=_int(s, "side"),
            hand=hand,
            hand_count=_int(s, "handCount") or len(hand),
            has_melded=_bool(s, "hasMelded"),
            dealt=_cards(s, "dealt"),
            red_three_replacements_owed=_int(s, "redThreeReplacementsOwed"),
        ),
        _bool(s, "handHidden"),
    )


def _meld(value: Any) -> tuple[m.Meld, tuple[int, bool]]:
    md = _object(value, _MELD_KEYS)
    meld_id = _str(md, "id")
    if not meld_id:  # REQUIRED
        raise _Unusual
    cards = _cards(md, "cards")
    kind = _enum(md, "kind", _MELD_KINDS, _KIND_UNSET) or infer_kind(cards)
    status = _enum(md, "status", _STATUSES, None) or 0
    return (
        m.Meld(id=meld_id, cards=cards, laid_by=_int(md, "laidBy"), kind=kind),
        (status, _bool(md, "natural")),
    )


def _side(value: Any, k: int) -> tuple[m.Side, GivenSide]:
    sd = _object(value, _SIDE_KEYS)
    melds = [_meld(md) for md in _list(sd.get("melds", []))]
    penalties = []
    for item in _list(sd.get("penalties", [])):
        p = _object(item, _PENALTY_KEYS)
        penalties.append(m.Penalty(_str(p, "code"), _int(p, "points")))
    return (
        m.Side(
            side=_int(sd, "side") or k,
            seats=_ints(sd, "seats"),
            match_score=_int(sd, "matchScore"),
            melds=tuple(meld for meld, _ in melds),
            red_threes=_cards(sd, "redThrees"),
            penalties=tuple(penalties),
        ),
        GivenSide(
            _bool(sd, "opened"),
            _int(sd, "initialMeldRequirement"),
            tuple(given for _, given in melds),
        ),
    )


def _turn(value: Any) -> tuple[m.Turn, tuple[int, ...]]:
    t = _object(value, _TURN_KEYS)
    phase = _enum(t, "phase", _PHASES, None)
    if "seat" not in t or phase is None:  # both REQUIRED
        raise _Unusual
    return (
        m.Turn(
            seat=_int(t, "seat"),
            phase=phase,
            took_pile=_bool(t, "tookPile"),
            melded_this_turn=_bool(t, "meldedThisTurn"),
            added_to_partner_melds=_bool(t, "addedToPartnerMelds"),
            go_out=_enum(t, "goOut", _GO_OUTS, _GO_OUT_UNSET) or m.GoOut.NOT_ASKED,
        ),
        _ints(t, "awaitingSeats"),
    )


def _result(value: Any) -> m.Result:
    r = _object(value, _RESULT_KEYS)
    reason = _enum(r, "reason", _REASONS, None)
    if reason is None:  # REQUIRED
        raise _Unusual
    premium = None
    if "premium" in r:
        p = _object(r["premium"], _PREMIUM_KEYS)
        premium = m.Premium(_str(p, "kind"), _int(p, "points"))
    return m.Result(
        reason=reason,
        seat=_int(r, "seat") if "seat" in r else None,
        concealed=_bool(r, "concealed"),
        premium=premium,
    )


def _snapshot(obj: dict[str, Any]) -> tuple[m.Snapshot, Given]:
    snap = _object(obj, _SNAPSHOT_KEYS)
    if "ruleset" not in snap or "turn" not in snap:  # REQUIRED
        raise _Unusual
    rules, ref = _ruleset(snap["ruleset"])
    seats = [_seat(s, i) for i, s in enumerate(_list(snap.get("seats", [])))]
    sides = [_side(sd, k) for k, sd in enumerate(_list(snap.get("sides", [])))]
    if not seats or not sides:  # REQUIRED
        raise _Unusual
    stock = _cards(snap, "stock")
    stock_count = _int(snap, "stockCount")
    turn, awaiting = _turn(snap["turn"])
    pile = None
    if "pile" in snap:
        p = _object(snap["pile"], _PILE_KEYS)
        pile = (_str(p, "top"), _int(p, "count"), _bool(p, "blocked"), _ints(p, "frozenForSides"))
    engine_snapshot = m.Snapshot(
        ruleset=rules,
        deal_number=_int(snap, "dealNumber"),
        dealer=_int(snap, "dealer"),
        seats=tuple(seat for seat, _ in seats),
        sides=tuple(side for side, _ in sides),
        stock=stock,
        stock_count=stock_count if (stock_count or not stock) else len(stock),
        discard_pile=_cards(snap, "discardPile"),
        turn=turn,
        ply=_int(snap, "ply"),
        result=_result(snap["result"]) if "result" in snap else None,
        ruleset_ref=ref,
        signature=_str(snap, "signature"),
    )
    given = Given(
        hands_hidden=tuple(hidden for _, hidden in seats),
        stock_hidden=_bool(snap, "stockHidden"),
        sides=tuple(given_side for _, given_side in sides),
        pile=pile,
        awaiting_seats=awaiting,
    )
    return engine_snapshot, given

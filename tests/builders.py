"""Hand-built snapshots for tests: ``make_snapshot`` and friends (reusable by every test).

    from builders import make_snapshot, cards   # tests/ is on sys.path under pytest
    snap = make_snapshot("pagat", players=4,
                         hands={0: [], 2: "JK 7H"},
                         melds={0: ["8S 9S 10S JS QS KS AS", "KH KS KD KC KH KS KD"]},
                         red_threes={0: ["3H"]},
                         discard=["5C"], turn_seat=0, phase=Phase.OVER,
                         result=Result(EndReason.WENT_OUT, seat=0))

Card lists may be given as lists/tuples of codes or as one space-separated string. Seats not
named in ``hands`` get an empty hand. Each side's melds get ids ``m1, m2, …`` in order
(across sides: side 0's first, then side 1's, …), ``laid_by`` = the side's first seat (or a
``(cards, laid_by)`` pair), the kind inferred (engine.melds.infer_kind) and runs stored low
to high; a ready ``Meld`` is taken as is. With ``fill_stock`` (default) every card of the
pack not listed anywhere goes to the stock in canonical order, so the snapshot is
consistent (engine.consistency.check_snapshot finds nothing); pass ``stock=[…]`` to give
the stock yourself (``fill_stock`` is then ignored). ``ruleset`` may be a profile spec
(``"classic+open"``), optionally with ``overrides``, or a resolved Ruleset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from samba_adjudicator.engine import apply, deal, resolve
from samba_adjudicator.engine.bots import basic
from samba_adjudicator.engine.bots.draws import choices
from samba_adjudicator.engine.cards import ORDER, pack_counts, sort_cards
from samba_adjudicator.engine.melds import infer_kind, order_run
from samba_adjudicator.engine.model import (
    GoOut,
    Meld,
    MeldKind,
    Penalty,
    Phase,
    Result,
    RulesetRef,
    Seat,
    Side,
    Snapshot,
    Turn,
)
from samba_adjudicator.engine.ruleset import Ruleset, resolve

CardsLike = str | Sequence[str]


def cards(spec: CardsLike | None) -> tuple[str, ...]:
    """``"KH KS 10D"`` or ``["KH", "KS"]`` → a tuple of codes (checked)."""
    if spec is None:
        return ()
    out = tuple(spec.split()) if isinstance(spec, str) else tuple(spec)
    for c in out:
        if c not in ORDER:
            raise ValueError(f"builders: unknown card code {c!r}")
    return out


def ruleset_of(ruleset: str | Ruleset, overrides: Mapping[str, object] | None = None) -> Ruleset:
    return ruleset if isinstance(ruleset, Ruleset) else resolve(ruleset, overrides or {})


def make_meld(spec, meld_id: str, laid_by: int) -> Meld:
    if isinstance(spec, Meld):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], int):
        spec, laid_by = spec
    cs = cards(spec)
    kind = infer_kind(cs)
    if kind is MeldKind.RUN:
        cs = order_run(cs) or cs
    return Meld(id=meld_id, cards=cs, laid_by=laid_by, kind=kind)


def make_snapshot(  # noqa: C901
    ruleset: str | Ruleset = "classic",
    players: int = 4,
    *,
    overrides: Mapping[str, object] | None = None,
    hands: Mapping[int, CardsLike] | None = None,
    hand_counts: Mapping[int, int] | None = None,
    melds: Mapping[int, Iterable] | None = None,
    red_threes: Mapping[int, CardsLike] | None = None,
    penalties: Mapping[int, Iterable[tuple[str, int]]] | None = None,
    match_scores: Sequence[int] | None = None,
    has_melded: Iterable[int] = (),
    dealt: Mapping[int, CardsLike] | None = None,
    owed: Mapping[int, int] | None = None,
    discard: CardsLike = (),
    stock: CardsLike | None = None,
    fill_stock: bool = True,
    turn_seat: int = 0,
    phase: Phase = Phase.PLAY,
    go_out: GoOut = GoOut.NOT_ASKED,
    took_pile: bool = False,
    melded_this_turn: bool = False,
    added_to_partner_melds: bool = False,
    result: Result | None = None,
    dealer: int | None = None,
    deal_number: int = 1,
    ply: int = 0,
) -> Snapshot:
    """A snapshot from the parts a test cares about (module docstring).

    ``hand_counts`` hides a seat's hand: the seat gets ``hand=()`` and that count (those
    cards are then *not* put in the stock either, so the zones still add up when the
    stock is filled: the filled stock is shortened by that many cards from its end).
    """
    rules = ruleset_of(ruleset, overrides)
    t = rules.sides_for(players)
    hands = hands or {}
    hand_counts = hand_counts or {}
    melds = melds or {}
    red_threes = red_threes or {}
    penalties = penalties or {}
    dealt = dealt or {}
    owed = owed or {}
    scores = tuple(match_scores) if match_scores is not None else (0,) * t
    has_melded = set(has_melded)

    seats = []
    for s in range(players):
        hand = cards(hands.get(s))
        count = len(hand)
        if s in hand_counts:
            hand, count = (), hand_counts[s]
        seats.append(
            Seat(
                seat=s,
                side=s % t,
                hand=hand,
                hand_count=count,
                has_melded=s in has_melded,
                dealt=cards(dealt.get(s)),
                red_three_replacements_owed=owed.get(s, 0),
            )
        )

    next_id = 1
    sides = []
    for k in range(t):
        side_seats = tuple(s for s in range(players) if s % t == k)
        side_melds = []
        for spec in melds.get(k, ()):
            side_melds.append(make_meld(spec, f"m{next_id}", side_seats[0]))
            next_id += 1
        sides.append(
            Side(
                side=k,
                seats=side_seats,
                match_score=scores[k],
                melds=tuple(side_melds),
                red_threes=cards(red_threes.get(k)),
                penalties=tuple(Penalty(c, p) for c, p in penalties.get(k, ())),
            )
        )

    pile = cards(discard)
    if stock is not None:
        stock_cards = cards(stock)
    elif fill_stock:
        used = Counter()
        for seat in seats:
            used.update(seat.hand)
        for side in sides:
            for m in side.melds:
                used.update(m.cards)
            used.update(side.red_threes)
        used.update(pile)
        left = pack_counts(rules.decks, rules.jokers)
        for c, k in used.items():
            if k > left[c]:
                raise ValueError(f"builders: {k} copies of {c}, the pack holds {left[c]}")
            left[c] -= k
        stock_cards = tuple(sort_cards(left.elements()))
        hidden = sum(hand_counts.values())
        stock_cards = stock_cards[: len(stock_cards) - hidden] if hidden else stock_cards
    else:
        stock_cards = ()

    return Snapshot(
        ruleset=rules,
        deal_number=deal_number,
        dealer=(turn_seat - 1) % players if dealer is None else dealer,
        seats=tuple(seats),
        sides=tuple(sides),
        stock=stock_cards,
        stock_count=len(stock_cards),
        discard_pile=pile,
        turn=Turn(
            seat=turn_seat,
            phase=phase,
            took_pile=took_pile,
            melded_this_turn=melded_this_turn,
            added_to_partner_melds=added_to_partner_melds,
            go_out=go_out,
        ),
        ply=ply,
        result=result,
        ruleset_ref=RulesetRef(profile=rules.profile),
    )


def over(snapshot: Snapshot, result: Result) -> Snapshot:
    """The same snapshot, ended with ``result`` (phase OVER)."""
    return replace(snapshot, turn=replace(snapshot.turn, phase=Phase.OVER), result=result)


def zone_cards(snap: Snapshot) -> Counter:
    """Every listed card of a snapshot (hands, melds, red 3s, stock, pile) as a multiset:
    equal to the pack when cards are conserved."""
    c: Counter = Counter()
    for seat in snap.seats:
        c.update(seat.hand)
    for side in snap.sides:
        c.update(side.red_threes)
        for m in side.melds:
            c.update(m.cards)
    c.update(snap.stock)
    c.update(snap.discard_pile)
    return c


def one_card_variants(s: Snapshot) -> list[Snapshot]:
    """The position with the seat to play left holding one card (the rest put back at the
    end of the stock), as a draw that empties the stock on red 3s leaves it; with partners,
    also after a "no" to "may I go out?". Hand floor and refusal together must still leave
    a legal action."""
    seat = s.turn.seat
    hand = s.seats[seat].hand
    if s.turn.phase is not Phase.PLAY or s.turn.go_out is GoOut.ASKED or len(hand) < 2:
        return []
    seats = tuple(
        replace(x, hand=hand[:1], hand_count=1, known=tuple(c for c in hand[:1] if c in x.known))
        if x.seat == seat
        else x
        for x in s.seats
    )
    stock = s.stock + hand[1:]
    one = replace(s, seats=seats, stock=stock, stock_count=len(stock))
    out = [one]
    if s.partners(seat):
        out.append(replace(one, turn=replace(one.turn, go_out=GoOut.DENIED)))
    return out


def load_snapshot(msg):
    """A client-given ``pb.Snapshot`` through the service's loading pipeline on its own,
    without keys or cache: a trusted engine Snapshot, or InvalidInput with every problem."""
    from samba_adjudicator.service.base import pb
    from samba_adjudicator.service.pipeline.decoding import Request
    from samba_adjudicator.service.pipeline.loading import SnapshotLoader

    request = Request("ScoreDeal", pb.ScoreDealRequest(snapshot=msg), [])
    return SnapshotLoader(cache_size=0).load(request)[0]


def mover(s: Snapshot) -> int:
    """The seat that acts next: the partner answering "may I go out?", else the turn's."""
    return s.partners(s.turn.seat)[0] if s.turn.go_out is GoOut.ASKED else s.turn.seat


def basic_positions(profile: str, players: int, seed: str, limit: int = 400):
    """Every position of a deal BASIC plays at every seat, in order."""
    s = deal(resolve(profile), players, seed)
    while s.turn.phase is not Phase.OVER and s.ply < limit:
        yield s
        seat = mover(s)
        s = apply(s, basic.choose(s, seat, choices(s, seat)).action).snapshot
    yield s

"""ListLegalActions as the hand grows: actions and µs per ``engine.legal_actions`` call for
hands of 10 to 150 cards, beside a baseline measured in the same run.

    .venv/bin/python bench/legal_curve.py            # the table (about a minute)
    .venv/bin/python bench/legal_curve.py --quick    # one short repeat each (seconds)
    .venv/bin/python bench/legal_curve.py --json     # the rows as JSON

Positions: the classic profile, 4 players, the seat to move in the PLAY phase, its side
opened or not. Each comes from real play where play reaches that hand size (classic deals
played through ``engine.apply`` with a fixed seed, steered towards pile takes so hands
grow); otherwise it is the largest played position below the size, with the seat to move
given the cards it lacks from the stock (the next cards it would draw), then from the other
hands, then from the bottom of the discard pile, red 3s left where they are: cards are
moved, never made, and ``check_snapshot`` must find the result consistent. A side that has
not opened holds at most 17 cards in PLAY (15 dealt, +1 a turn), so small not-opened hands
do not exist; an opened side's melds keep the largest sizes out of reach ("-" rows).

Timing is ``bench/engine_bench.per_call_us`` (median of repeats); the baseline is protobuf
parse+serialize of the position's ValidateActionRequest, as in bench/engine_bench.py. The
garbage collector is set up as the server sets it up.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenarios  # noqa: E402
from bench.engine_bench import per_call_us  # noqa: E402
from samba_adjudicator.engine import apply, check_snapshot, deal, legal_actions, resolve  # noqa: E402
from samba_adjudicator.engine.cards import RED_THREES  # noqa: E402
from samba_adjudicator.engine.model import (  # noqa: E402
    Action,
    Discard,
    DrawStock,
    GoOut,
    MeldCards,
    Phase,
    Snapshot,
    TakePile,
)

SIZES = (10, 20, 30, 42, 60, 80, 100, 125, 150)
SEED = "legal-curve"
#: Deals played to collect positions, and the hand size past which a deal stops.
DEALS = 24
MAX_PLIES = 240
GROWN_ENOUGH = 70


@dataclass
class Row:
    hand: int
    opened: bool
    origin: str  # "played", "grown from N", or why there is no position
    actions: int = 0
    complete: bool = True
    us: float = 0.0
    baseline_us: float = 0.0

    @property
    def ratio(self) -> float:
        return self.us / self.baseline_us if self.baseline_us else 0.0


# -- positions ------------------------------------------------------------------------


def _mover(s: Snapshot) -> tuple[int, bool]:
    seat = s.turn.seat
    return len(s.seats[seat].hand), s.sides[s.seats[seat].side].opened


def _draw(s: Snapshot, rng: random.Random) -> Snapshot:
    """Take the pile when the engine lists a take (mostly), else draw."""
    takes = [a for a in legal_actions(s)[0] if isinstance(a, TakePile)]
    if takes and rng.random() < 0.8:
        return apply(s, rng.choice(takes)).snapshot
    return apply(s, DrawStock(s.turn.seat)).snapshot


def _play(s: Snapshot, rng: random.Random, opener: bool) -> Snapshot:
    """Open now and then (sides of an ``opener`` deal), else discard a random card; any
    action the engine refuses falls back to one of its listed actions."""
    seat = s.turn.seat
    size, opened = _mover(s)
    choice: Action = Discard(seat, rng.choice(s.seats[seat].hand))
    if opener and not opened and size <= 30 and rng.random() < 0.5:
        melds = [a for a in legal_actions(s)[0] if isinstance(a, MeldCards)]
        choice = rng.choice(melds) if melds else choice
    outcome = apply(s, choice)
    if outcome.legal:
        return outcome.snapshot
    listed = legal_actions(s)[0]
    discards = [a for a in listed if isinstance(a, Discard)]
    return apply(s, rng.choice(discards or listed)).snapshot


def _melded(s: Snapshot) -> int:
    return sum(len(m.cards) for side in s.sides for m in side.melds)


def played_positions(deals: int = DEALS) -> dict[tuple[int, bool], Snapshot]:
    """For each (hand size, side opened), the PLAY position seen in real play with the
    fewest cards in melds (the first of those): it can be grown the furthest."""
    late = scenarios.late()
    found: dict[tuple[int, bool], Snapshot] = {_mover(late): late}
    rules = resolve("classic")
    for d in range(deals):
        rng = random.Random(f"{SEED}-{d}")
        s = deal(rules, 4, f"{SEED}-{d}")
        opener = d % 2 == 1
        for _ in range(MAX_PLIES):
            if s.turn.phase is Phase.OVER or _mover(s)[0] > GROWN_ENOUGH:
                break
            if s.turn.phase is Phase.DRAW:
                s = _draw(s, rng)
                continue
            key = _mover(s)
            if s.turn.go_out is GoOut.NOT_ASKED and (
                key not in found or _melded(s) < _melded(found[key])
            ):
                found[key] = s
            s = _play(s, rng, opener)
    return found


def grow(s: Snapshot, size: int) -> Snapshot | None:
    """``s`` with the seat to move holding ``size`` cards, the missing ones moved from the
    stock (front first), the other hands, then the discard pile (bottom first); red 3s
    stay where they are. None when the table has too few cards."""
    seat = s.turn.seat
    hand = list(s.seats[seat].hand)
    stock = list(s.stock)
    others = {i: list(x.hand) for i, x in enumerate(s.seats) if i != seat}
    pile = list(s.discard_pile)
    sources = [stock] + [others[i] for i in sorted(others, key=lambda i: (i - seat) % 4)]
    for source in sources + [pile]:
        kept = []
        for card in source:
            if len(hand) < size and card not in RED_THREES:
                hand.append(card)
            else:
                kept.append(card)
        source[:] = kept
    if len(hand) < size:
        return None
    seats = tuple(
        replace(
            x,
            hand=tuple(hand if i == seat else others[i]),
            hand_count=len(hand if i == seat else others[i]),
        )
        for i, x in enumerate(s.seats)
    )
    grown = replace(
        s,
        seats=seats,
        stock=tuple(stock),
        stock_count=len(stock),
        discard_pile=tuple(pile),
        signature="",
    )
    problems = check_snapshot(grown)
    if problems:
        raise AssertionError(f"grown position is inconsistent: {problems}")
    return grown


def position(
    found: dict[tuple[int, bool], Snapshot], size: int, opened: bool
) -> tuple[Snapshot | None, str]:
    """The played position of that size, else one grown from the largest below it."""
    if (size, opened) in found:
        return found[(size, opened)], "played"
    below = [n for n, o in found if o == opened and n < size]
    if not below:
        return None, "not reachable (a side not opened holds 17+ cards)"
    start = max(below)
    grown = grow(found[(start, opened)], size)
    if grown is None:
        return None, "not reachable (the other cards are in melds or red 3s)"
    return grown, f"grown from {start}"


# -- measurement ----------------------------------------------------------------------


def baseline(s: Snapshot, actions: list[Action]) -> Callable[[], object]:
    """protobuf parse+serialize of the position's ValidateActionRequest."""
    from samba_adjudicator.service.base import pb
    from samba_adjudicator.service.codec import convert
    from samba_adjudicator.service.codec.actions import action_to_proto

    melds = [a for a in actions if isinstance(a, MeldCards)]
    action = (melds or [a for a in actions if isinstance(a, Discard)] or actions)[0]
    wire = pb.ValidateActionRequest(
        snapshot=convert.snapshot_to_proto(s), action=action_to_proto(action)
    ).SerializeToString()
    return lambda: pb.ValidateActionRequest.FromString(wire).SerializeToString()


def measure(row: Row, s: Snapshot, min_time: float, repeats: int) -> None:
    actions, row.complete = legal_actions(s)
    row.actions = len(actions)
    row.baseline_us = per_call_us(baseline(s, actions), min_time, repeats)
    row.us = per_call_us(lambda: legal_actions(s), min_time, repeats)


def rows(min_time: float, repeats: int, verbose: bool) -> list[Row]:
    found = played_positions()
    out: list[Row] = []
    for size in SIZES:
        for opened in (True, False):
            s, origin = position(found, size, opened)
            row = Row(size, opened, origin)
            if s is not None:
                measure(row, s, min_time, repeats)
            out.append(row)
            if verbose:
                print(
                    f"  measured hand {size} {'opened' if opened else 'not opened'}",
                    file=sys.stderr,
                    flush=True,
                )
    return out


def table(out: list[Row]) -> str:
    lines = [f"{'hand':>4} {'side':10} {'actions':>8} {'µs/call':>10} {'× baseline':>11}  position"]
    for r in out:
        side = "opened" if r.opened else "not opened"
        if not r.actions:
            lines.append(f"{r.hand:4} {side:10} {'-':>8} {'-':>10} {'-':>11}  {r.origin}")
            continue
        count = f"{r.actions}" + ("" if r.complete else "*")
        lines.append(f"{r.hand:4} {side:10} {count:>8} {r.us:10.1f} {r.ratio:11.1f}  {r.origin}")
    if any(r.actions and not r.complete for r in out):
        lines.append(
            "* the list is marked incomplete (opening combinations cut at MAX_OPENING_CANDIDATES)"
        )
    return "\n".join(lines)


def main() -> int:
    from samba_adjudicator.service.transport.server import tune_gc

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    tune_gc()  # the collector as the server sets it up (service/transport/server.py)
    min_time, repeats = (0.01, 1) if args.quick else (0.2, 5)
    out = rows(min_time, repeats, verbose=not args.json)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "hand": r.hand,
                        "opened": r.opened,
                        "position": r.origin,
                        "actions": r.actions,
                        "complete": r.complete,
                        "us_per_call": round(r.us, 1),
                        "baseline_us": round(r.baseline_us, 2),
                        "ratio_to_baseline": round(r.ratio, 1),
                    }
                    for r in out
                ],
                indent=1,
            )
        )
    else:
        print(table(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

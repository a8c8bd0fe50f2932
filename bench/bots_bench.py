"""Computer-player tournaments (docs/bots.md#strength): whole deals, seats alternating,
seeds fixed, every decision asked of ``engine.bots.suggest`` on the full snapshot (which
redacts it to the seat's view) and applied.

    .venv/bin/python bench/bots_bench.py            # the tournament of docs/bots.md
    .venv/bin/python bench/bots_bench.py --quick    # a few deals each (a minute)
    .venv/bin/python bench/bots_bench.py --json     # the rows as JSON

Matches: BASIC against RANDOM and STRONG against BASIC, at 2 and 4 players, classic and
canasta. Deal ``i`` of a match uses seed ``i // 2``; on even deals the first level sits at
side 0, on odd deals at side 1, so each shuffle is played from both chairs. A deal is won
by the side with the higher deal total (a tie counts half). The table gives the win rate
with its 95 % Wilson interval, the mean score margin (first level's deal total minus the
other's), and the time per decision of each level (p50, p99: the CPU time of the process,
one core, so that other work on a shared machine does not inflate it; cache and frequency
effects still do). Matches run in ``--jobs`` processes (default 2).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samba_adjudicator.engine import apply, deal, resolve, score  # noqa: E402
from samba_adjudicator.engine.bots import Level, suggest  # noqa: E402
from samba_adjudicator.engine.build import CURRENT  # noqa: E402
from samba_adjudicator.engine.model import GoOut, Phase, Snapshot  # noqa: E402

#: (first level, second level, profile, players)
MATCHES = [
    (Level.BASIC, Level.RANDOM, "classic", 2),
    (Level.BASIC, Level.RANDOM, "classic", 4),
    (Level.BASIC, Level.RANDOM, "canasta", 2),
    (Level.BASIC, Level.RANDOM, "canasta", 4),
    (Level.STRONG, Level.BASIC, "classic", 2),
    (Level.STRONG, Level.BASIC, "classic", 4),
    (Level.STRONG, Level.BASIC, "canasta", 2),
    (Level.STRONG, Level.BASIC, "canasta", 4),
]
DEALS = {Level.RANDOM: 100, Level.BASIC: 30}
QUICK_DEALS = {Level.RANDOM: 6, Level.BASIC: 4}
MAX_PLIES = 1500


@dataclass
class Row:
    first: str
    second: str
    profile: str
    players: int
    deals: int
    wins: float
    win_rate: float
    ci_low: float
    ci_high: float
    mean_margin: float
    budget_ms: int
    seconds: float
    decisions: dict[str, list[float]]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _mover(s: Snapshot) -> int:
    return s.partners(s.turn.seat)[0] if s.turn.go_out is GoOut.ASKED else s.turn.seat


def play(levels: Sequence[Level], profile: str, players: int, seed: str, budget: int):
    """One deal; (deal total per side, decision times per level)."""
    s = deal(resolve(profile), players, seed)
    times: dict[str, list[float]] = {}
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        seat = _mover(s)
        level = levels[s.seats[seat].side]
        start = time.process_time()
        got = suggest(s, seat, level, seed, budget)
        times.setdefault(level.value, []).append(time.process_time() - start)
        outcome = apply(s, got.action)
        assert outcome.legal, (profile, players, s.ply, got)
        s = outcome.snapshot
    totals = [side.deal_total for side in score(s, provisional=True).sides]
    return totals, times


def run_match(first: Level, second: Level, profile: str, players: int, deals: int, budget: int):
    start = time.perf_counter()
    wins = 0.0
    margin = 0
    decisions: dict[str, list[float]] = {}
    for i in range(deals):
        mine = i % 2  # the side the first level sits at
        sides = resolve(profile).sides_for(players)
        levels = [first if k == mine else second for k in range(sides)]
        totals, times = play(levels, profile, players, f"bots-bench-{i // 2}", budget)
        other = max(t for k, t in enumerate(totals) if k != mine)
        wins += 1.0 if totals[mine] > other else 0.5 if totals[mine] == other else 0.0
        margin += totals[mine] - other
        for level, values in times.items():
            decisions.setdefault(level, []).extend(values)
    low, high = wilson(wins, deals)
    return Row(
        first.value,
        second.value,
        profile,
        players,
        deals,
        wins,
        wins / deals,
        low,
        high,
        margin / deals,
        budget,
        time.perf_counter() - start,
        decisions,
    )


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a few deals per match")
    p.add_argument("--json", action="store_true", help="the rows as JSON")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--budget", type=int, default=200, help="STRONG's budgetMs (default 200)")
    p.add_argument("--deals", type=int, default=0, help="deals per match (0: the default)")
    p.add_argument("--only", default="", help="only matches whose first level is this")
    args = p.parse_args(argv)
    counts = QUICK_DEALS if args.quick else DEALS
    matches = [m for m in MATCHES if not args.only or m[0].value == args.only.upper()]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [
            pool.submit(run_match, a, b, prof, n, args.deals or counts[b], args.budget)
            for a, b, prof, n in matches
        ]
        rows = [f.result() for f in futures]
    total = time.perf_counter() - started
    if args.json:
        print(json.dumps([asdict(r) for r in rows]))
        return 0
    print(f"build: {CURRENT.name}; STRONG budgetMs {args.budget}; {args.jobs} processes")
    print(
        f"{'match':<16} {'table':<10} {'deals':>5} {'win %':>6} {'95 % CI':>13} "
        f"{'margin':>7} {'seconds':>8}"
    )
    pooled: dict[str, list[float]] = {}
    for r in rows:
        print(
            f"{r.first + ' v ' + r.second:<16} {r.profile + ' ' + str(r.players) + 'p':<10} "
            f"{r.deals:>5} {100 * r.win_rate:>6.1f} "
            f"{100 * r.ci_low:>5.1f}–{100 * r.ci_high:<5.1f} {r.mean_margin:>+7.0f} "
            f"{r.seconds:>8.1f}"
        )
        for level, values in r.decisions.items():
            pooled.setdefault(level, []).extend(values)
    for first in sorted({r.first for r in rows}):
        mine = [r for r in rows if r.first == first]
        wins = sum(r.wins for r in mine)
        n = sum(r.deals for r in mine)
        low, high = wilson(wins, n)
        print(
            f"{first} v {mine[0].second} pooled: {100 * wins / n:.1f} % of {n} deals "
            f"(95 % CI {100 * low:.1f}–{100 * high:.1f})"
        )
    for level in ("RANDOM", "BASIC", "STRONG"):
        values = pooled.get(level, [])
        if values:
            print(
                f"{level:<7} decisions {len(values):>6}: "
                f"p50 {1e3 * percentile(values, 0.5):7.2f} ms  "
                f"p99 {1e3 * percentile(values, 0.99):7.2f} ms"
            )
    print(f"whole tournament: {total:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

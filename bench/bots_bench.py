"""The computer players' ladder (docs/bots.md#strength): every level against every other,
whole deals, seats mirrored, seeds fixed, every decision asked of ``engine.bots.suggest``
on the full snapshot (which redacts it to the seat's view) and applied.

    .venv/bin/python bench/bots_bench.py             # the ladder of docs/bots.md
    .venv/bin/python bench/bots_bench.py --quick     # one mirrored shuffle per table
    .venv/bin/python bench/bots_bench.py --json      # the rows and the summary as JSON
    .venv/bin/python bench/bots_bench.py --only BASIC:RANDOM --deals 400
    .venv/bin/python bench/bots_bench.py --only STRONG:BASIC --deals 66 --skip 68   # deals 68..133

Pairs: BASIC v RANDOM, STRONG v BASIC, STRONG v RANDOM, each at every table of ``TABLES``
(classic, pagat and canasta, 2 and 4 players). Deal ``i`` of a match uses seed ``i // 2``;
on even deals the first level sits at side 0, on odd deals at side 1, so each shuffle is
played from both chairs. A deal is won by the side with the higher deal total (a tie
counts half). Per table and pooled: the win rate with its 95 % Wilson interval and the mean
margin (first level's deal total minus the best other side's). Per level: the time per
decision (p50, p99: the CPU time of the process, one core, so that other work on a shared
machine does not inflate it; cache and frequency effects still do).

The rating: a Bradley-Terry model fitted on every deal of the ladder (a win 1, a tie half
to each), by its minorize-maximize iteration, on the Elo scale (400 log10 of the strength:
a 200-point gap expects 76 % of deals), RANDOM anchored at 0. Each pair also gets one
virtual tie, so that a level that never lost still has a finite rating.

Then the issue's targets, each met or NOT MET (``TARGETS`` below). Matches are split into
chunks of deals run in ``--jobs`` processes (default 2), the expensive ones first.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samba_adjudicator.engine import apply, deal, resolve, score  # noqa: E402
from samba_adjudicator.engine.bots import DEFAULT_BUDGET_MS, Level, suggest  # noqa: E402
from samba_adjudicator.engine.bots.strong_options import STRONG, StrongOptions  # noqa: E402
from samba_adjudicator.engine.build import CURRENT  # noqa: E402
from samba_adjudicator.engine.model import GoOut, Phase, Snapshot  # noqa: E402

LEVELS = ("RANDOM", "BASIC", "STRONG")
#: (first level, second level) -> mirrored deals per table (even: both chairs per shuffle)
PAIRS: dict[tuple[str, str], int] = {
    ("BASIC", "RANDOM"): 400,
    ("STRONG", "BASIC"): 134,
    ("STRONG", "RANDOM"): 40,
}
QUICK_DEALS = 2
TABLES = [(p, n) for p in ("classic", "pagat", "canasta") for n in (2, 4)]
#: Deals per chunk of work handed to a process.
CHUNK = 20
MAX_PLIES = 1500
#: The ladder's time limit on the 2-core development machine (seconds), a target.
LADDER_SECONDS = 30 * 60
#: Issue 57's targets for STRONG v BASIC: the pooled rate over at least STRONG_DEALS
#: mirrored deals, the 95 % interval's lower bound, and every table's rate.
STRONG_RATE = 0.60
STRONG_DEALS = 1600
STRONG_LOW = 0.575
STRONG_TABLE = 0.52


@dataclass
class Row:
    """One match: a pair of levels at one table."""

    first: str
    second: str
    profile: str
    players: int
    deals: int = 0
    wins: float = 0.0
    margin: float = 0.0
    #: Each mirrored pair's mean margin (deals 2k and 2k + 1: one shuffle from both chairs).
    pair_margins: list[float] = field(default_factory=list)
    seconds: float = 0.0
    budget_ms: int = DEFAULT_BUDGET_MS
    decisions: dict[str, list[float]] = field(default_factory=dict)

    @property
    def table(self) -> str:
        return f"{self.profile} {self.players}p"

    @property
    def pair(self) -> str:
        return f"{self.first} v {self.second}"

    def add(self, other: Row) -> None:
        self.deals += other.deals
        self.wins += other.wins
        self.margin += other.margin
        self.pair_margins.extend(other.pair_margins)
        self.seconds += other.seconds
        for level, values in other.decisions.items():
            self.decisions.setdefault(level, []).extend(values)


def margin_se(pair_margins: Sequence[float]) -> float:
    """The standard error of the mean margin, over mirrored pairs: a shuffle's two deals
    share their cards, so the pair, not the deal, is the independent unit."""
    n = len(pair_margins)
    if n < 2:
        return 0.0
    mean = sum(pair_margins) / n
    var = sum((m - mean) ** 2 for m in pair_margins) / (n - 1)
    return math.sqrt(var / n)


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


def play(
    levels: Sequence[Level],
    profile: str,
    players: int,
    seed: str,
    budget: int,
    options: StrongOptions = STRONG,
):
    """One deal; (deal total per side, decision times per level); STRONG plays ``options``."""
    s = deal(resolve(profile), players, seed)
    times: dict[str, list[float]] = {}
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        seat = _mover(s)
        level = levels[s.seats[seat].side]
        start = time.process_time()
        got = suggest(s, seat, level, seed, budget, options)
        times.setdefault(level.value, []).append(time.process_time() - start)
        outcome = apply(s, got.action)
        assert outcome.legal, (profile, players, s.ply, got)
        s = outcome.snapshot
    totals = [side.deal_total for side in score(s, provisional=True).sides]
    return totals, times


def run_chunk(
    first: str,
    second: str,
    profile: str,
    players: int,
    deals: range,
    budget: int,
    settings: Sequence[str] = (),
):
    """Deals ``deals`` of one match (deal ``i``: seed ``i // 2``, chairs swapped on odd),
    STRONG with the ``--set`` items ``settings`` (``strong_options``)."""
    start = time.perf_counter()
    options = strong_options(settings)
    row = Row(first, second, profile, players, budget_ms=budget)
    sides = resolve(profile).sides_for(players)
    last = 0.0  # the margin of the shuffle's first chair
    for i in deals:
        mine = i % 2  # the side the first level sits at
        levels = [Level(first) if k == mine else Level(second) for k in range(sides)]
        totals, times = play(levels, profile, players, f"bots-bench-{i // 2}", budget, options)
        other = max(t for k, t in enumerate(totals) if k != mine)
        row.deals += 1
        row.wins += 1.0 if totals[mine] > other else 0.5 if totals[mine] == other else 0.0
        row.margin += totals[mine] - other
        if mine == 1 and i - 1 in deals:  # the shuffle's second chair: its pair complete
            row.pair_margins.append((last + totals[mine] - other) / 2)
        last = totals[mine] - other
        for level, values in times.items():
            row.decisions.setdefault(level, []).extend(values)
    row.seconds = time.perf_counter() - start
    return row


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def ratings(
    rows: Sequence[Row], anchor: str = "RANDOM", iterations: int = 2000
) -> dict[str, float]:
    """Bradley-Terry strengths fitted on every deal (module docstring), on the Elo scale,
    ``anchor`` at 0; one virtual tie per pair keeps every rating finite."""
    wins: dict[tuple[str, str], float] = {}
    games: dict[frozenset[str], float] = {}
    for a, b in dict.fromkeys((r.first, r.second) for r in rows):
        wins[(a, b)] = wins[(b, a)] = 0.5
        games[frozenset((a, b))] = 1.0
    for r in rows:
        wins[(r.first, r.second)] += r.wins
        wins[(r.second, r.first)] += r.deals - r.wins
        games[frozenset((r.first, r.second))] += r.deals
    levels = sorted({a for a, _ in wins}, key=lambda v: LEVELS.index(v))
    strength = dict.fromkeys(levels, 1.0)
    for _ in range(iterations):
        for i in levels:
            won = sum(w for (x, _), w in wins.items() if x == i)
            denom = sum(
                games[frozenset((x, y))] / (strength[x] + strength[y]) for (x, y) in wins if x == i
            )
            strength[i] = won / denom
        norm = strength.get(anchor, strength[levels[0]])
        strength = {k: v / norm for k, v in strength.items()}
    return {k: 400 * math.log10(v) for k, v in strength.items()}


@dataclass
class Verdict:
    target: str
    met: bool
    measured: str


def _pooled(rows: Sequence[Row], first: str, second: str) -> Row | None:
    mine = [r for r in rows if (r.first, r.second) == (first, second)]
    if not mine:
        return None
    total = Row(first, second, "pooled", 0)
    for r in mine:
        total.add(r)
    return total


def targets(rows: Sequence[Row], budget: int, seconds: float) -> list[Verdict]:
    """The issue's targets against the rows: each met or not (a pair not played is not met)."""
    out: list[Verdict] = []
    sb = [r for r in rows if (r.first, r.second) == ("STRONG", "BASIC")]
    pooled = _pooled(rows, "STRONG", "BASIC")
    if pooled is None:
        out.append(
            Verdict(
                f"STRONG >= {100 * STRONG_RATE:.0f} % v BASIC pooled over >= {STRONG_DEALS} deals",
                False,
                "not played",
            )
        )
    else:
        rate = pooled.wins / pooled.deals
        low, _ = wilson(pooled.wins, pooled.deals)
        worst = min(sb, key=lambda r: r.wins / r.deals)
        out.append(
            Verdict(
                f"STRONG >= {100 * STRONG_RATE:.0f} % v BASIC pooled over >= {STRONG_DEALS} deals",
                rate >= STRONG_RATE and pooled.deals >= STRONG_DEALS,
                f"{100 * rate:.1f} % of {pooled.deals}",
            )
        )
        out.append(
            Verdict(
                f"STRONG v BASIC: 95 % interval's lower bound > {100 * STRONG_LOW:g} %",
                low > STRONG_LOW,
                f"{100 * low:.1f} %",
            )
        )
        out.append(
            Verdict(
                f"STRONG v BASIC: every table >= {100 * STRONG_TABLE:g} %",
                worst.wins / worst.deals >= STRONG_TABLE,
                f"lowest {worst.table} {100 * worst.wins / worst.deals:.1f} %",
            )
        )
    br = [r for r in rows if (r.first, r.second) == ("BASIC", "RANDOM")]
    played = {(r.profile, r.players) for r in br}
    low_tables = [r for r in br if r.wins / r.deals < 0.90]
    worst_br = min(br, key=lambda r: r.wins / r.deals) if br else None
    out.append(
        Verdict(
            "BASIC >= 90 % v RANDOM at every table",
            not low_tables and played >= set(TABLES),
            f"lowest {worst_br.table} {100 * worst_br.wins / worst_br.deals:.1f} %"
            if worst_br
            else "not played",
        )
    )
    strong = [v for r in rows for v in r.decisions.get("STRONG", [])]
    p99 = 1e3 * percentile(strong, 0.99)
    out.append(
        Verdict(
            f"STRONG p99 decision <= budgetMs {budget}",
            bool(strong) and p99 <= budget,
            f"{p99:.1f} ms" if strong else "not played",
        )
    )
    out.append(
        Verdict(
            f"whole ladder <= {LADDER_SECONDS // 60} minutes",
            seconds <= LADDER_SECONDS,
            f"{seconds:.0f} s",
        )
    )
    return out


def _work(
    pairs: dict[tuple[str, str], int],
    tables,
    budget: int,
    skip: int = 0,
    settings: Sequence[str] = (),
):
    """Chunks of deals (``skip`` onwards), the expensive (STRONG) pairs first so that the
    processes finish together; each carries the ``--set`` items (plain strings: a worker
    makes its own StrongOptions from them)."""
    jobs = []
    for (first, second), deals in sorted(pairs.items(), key=lambda kv: "STRONG" not in kv[0]):
        for profile, players in tables:
            for start in range(skip, skip + deals, CHUNK):
                stop = min(skip + deals, start + CHUNK)
                chunk = range(start, stop)
                jobs.append((first, second, profile, players, chunk, budget, tuple(settings)))
    return jobs


def add_set_option(p: argparse.ArgumentParser) -> None:
    """``--set NAME=VALUE``, repeatable: a field of STRONG's settings for a trial, made
    into one value by ``strong_options``; the ladder and the oracle measure take it alike."""
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a field of engine.bots.strong_options.StrongOptions for a trial "
        "(e.g. search_meld=0; the name in either case)",
    )


def strong_options(settings: Sequence[str], base: StrongOptions = STRONG) -> StrongOptions:
    """``base`` with the ``--set`` items ``NAME=VALUE`` (a field's name in either case; a
    value of the field's type, a switch 1/0, true/false or yes/no), every bad item named."""
    names = {f.name for f in fields(StrongOptions)}
    changes: dict[str, object] = {}
    bad: list[str] = []
    for item in settings:
        name, sep, value = item.partition("=")
        key = name.strip().lower()
        if not sep or key not in names:
            bad.append(f"{item!r}: not NAME=VALUE with NAME a field of StrongOptions")
            continue
        try:
            changes[key] = _typed(getattr(base, key), value.strip())
        except ValueError as e:
            bad.append(f"{item!r}: {e}")
    if bad:
        raise SystemExit("--set: " + "; ".join(bad) + f" (fields: {', '.join(sorted(names))})")
    return replace(base, **changes)


def _typed(old: object, value: str) -> object:
    """``value`` read as the type of the field's default ``old``."""
    if isinstance(old, bool):
        if value.lower() not in ("1", "0", "true", "false", "yes", "no"):
            raise ValueError(f"{value!r} is not a switch (1/0, true/false, yes/no)")
        return value.lower() in ("1", "true", "yes")
    if isinstance(old, int | float):
        return type(old)(value)
    return value


def run_ladder(
    pairs: dict[tuple[str, str], int],
    tables,
    budget: int,
    jobs: int,
    settings: Sequence[str] = (),
    skip: int = 0,
) -> list[Row]:
    rows: dict[tuple[str, str, str, int], Row] = {}
    strong_options(settings)  # every bad --set item named before any deal is played
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        work = _work(pairs, tables, budget, skip, settings)
        futures = [pool.submit(run_chunk, *job) for job in work]
        for f in futures:
            got = f.result()
            key = (got.first, got.second, got.profile, got.players)
            rows.setdefault(key, Row(*key, budget_ms=budget)).add(got)
    order = list(pairs)
    return sorted(
        rows.values(),
        key=lambda r: (order.index((r.first, r.second)), TABLES.index((r.profile, r.players))),
    )


def summary(rows: Sequence[Row], budget: int, seconds: float, settings: Sequence[str] = ()) -> dict:
    """Everything the table prints, as plain data (the --json answer)."""
    pooled = {}
    for first, second in dict.fromkeys((r.first, r.second) for r in rows):
        p = _pooled(rows, first, second)
        assert p is not None
        low, high = wilson(p.wins, p.deals)
        pooled[f"{first} v {second}"] = {
            "deals": p.deals,
            "wins": p.wins,
            "win_rate": p.wins / p.deals,
            "ci_low": low,
            "ci_high": high,
            "mean_margin": p.margin / p.deals,
            "margin_se": margin_se(p.pair_margins),
            **_times(p.decisions.get(first, [])),
        }
    times = {}
    for level in LEVELS:
        values = [v for r in rows for v in r.decisions.get(level, [])]
        if values:
            times[level] = {
                "decisions": len(values),
                "p50_ms": 1e3 * percentile(values, 0.5),
                "p99_ms": 1e3 * percentile(values, 0.99),
            }
    return {
        "build": CURRENT.name,
        "budget_ms": budget,
        "settings": list(settings),
        "seconds": seconds,
        "rows": [
            {
                "first": r.first,
                "second": r.second,
                "profile": r.profile,
                "players": r.players,
                "deals": r.deals,
                "wins": r.wins,
                "win_rate": r.wins / r.deals,
                "ci_low": wilson(r.wins, r.deals)[0],
                "ci_high": wilson(r.wins, r.deals)[1],
                "mean_margin": r.margin / r.deals,
                "margin_se": margin_se(r.pair_margins),
                **_times(r.decisions.get(r.first, [])),
                "seconds": r.seconds,
                "decisions": {k: len(v) for k, v in r.decisions.items()},
                # what --merge pools parts of a split ladder from
                "pair_margins": r.pair_margins,
                "decision_ms": {k: [round(1e3 * x, 3) for x in v] for k, v in r.decisions.items()},
            }
            for r in rows
        ],
        "pooled": pooled,
        "times": times,
        "ratings": ratings(rows),
        "targets": [asdict(v) for v in targets(rows, budget, seconds)],
    }


def _times(values: Sequence[float]) -> dict:
    """The first level's CPU per decision (p50, p99, in ms) in a row or a pooled pair."""
    return {"p50_ms": 1e3 * percentile(values, 0.5), "p99_ms": 1e3 * percentile(values, 0.99)}


def _line(name: str, r: dict) -> str:
    """A row of the table: the deals, the win rate and its 95 % interval, the mean margin
    ± its standard error over mirrored pairs, the first level's CPU per decision."""
    return (
        f"{name:<28} {r['deals']:>5} {100 * r['win_rate']:>6.1f} "
        f"{100 * r['ci_low']:>5.1f}–{100 * r['ci_high']:<5.1f} "
        f"{r['mean_margin']:>+6.0f} ± {r['margin_se']:<4.0f} "
        f"{r['p50_ms']:>7.2f} {r['p99_ms']:>7.1f}"
    )


def render(data: dict, jobs: int, parts: int = 0) -> str:
    """The table; ``parts``: how many --json files --merge pooled (then no processes ran)."""
    ran = f"{parts} parts merged" if parts else f"{jobs} processes"
    lines = [
        f"build: {data['build']}; STRONG budgetMs {data['budget_ms']}; {ran}; "
        f"--set {' '.join(data['settings']) or 'none'}",
        f"{'match':<16} {'table':<11} {'deals':>5} {'win %':>6} {'95 % CI':>11} "
        f"{'margin ± SE':>13} {'p50 ms':>7} {'p99 ms':>7} {'seconds':>8}"
        "   (margin: mean over deals, SE over mirrored pairs; ms: the first level's CPU)",
    ]
    for r in data["rows"]:
        name = f"{r['first'] + ' v ' + r['second']:<16} {r['profile']} {r['players']}p"
        lines.append(f"{_line(name, r)} {r['seconds']:>8.1f}")
    for pair, p in data["pooled"].items():
        lines.append(_line(pair + " pooled", p))
    for level, t in data["times"].items():
        lines.append(
            f"{level:<7} decisions {t['decisions']:>7}: p50 {t['p50_ms']:7.2f} ms  "
            f"p99 {t['p99_ms']:7.2f} ms"
        )
    lines.append(
        "rating (Bradley-Terry, Elo scale, RANDOM 0): "
        + ", ".join(f"{k} {v:+.0f}" for k, v in data["ratings"].items())
    )
    for v in data["targets"]:
        verdict = "met" if v["met"] else "NOT MET"
        lines.append(f"target: {v['target']}: {verdict} ({v['measured']})")
    lines.append(f"whole ladder: {data['seconds']:.0f} s")
    return "\n".join(lines)


def merge(paths: Sequence[str]) -> tuple[list[Row], int, list[str], float]:
    """The rows of the ``--json`` files of a split ladder's parts (``--skip``), pooled
    match by match: deals, wins, margins, mirrored pairs and decision times add up. Their
    rows, budget, settings and summed seconds; parts of other budgets or settings refused."""
    rows: dict[tuple[str, str, str, int], Row] = {}
    seen: set[tuple[int, tuple[str, ...]]] = set()
    seconds = 0.0
    for path in paths:
        data = json.loads(Path(path).read_text())
        seen.add((data["budget_ms"], tuple(data.get("settings", []))))
        seconds += data["seconds"]
        for r in data["rows"]:
            if "pair_margins" not in r:
                raise SystemExit(f"--merge: {path} has no pair_margins (an older --json)")
            key = (r["first"], r["second"], r["profile"], r["players"])
            part = Row(*key, deals=r["deals"], wins=r["wins"], margin=r["mean_margin"] * r["deals"])
            part.pair_margins = list(r["pair_margins"])
            part.seconds = r["seconds"]
            part.decisions = {k: [x / 1e3 for x in v] for k, v in r["decision_ms"].items()}
            rows.setdefault(key, Row(*key)).add(part)
    if len(seen) != 1:
        raise SystemExit(f"--merge: the parts differ in budget or settings: {sorted(seen)}")
    budget, settings = seen.pop()
    order = list(PAIRS)
    ordered = sorted(
        rows.values(),
        key=lambda r: (order.index((r.first, r.second)), TABLES.index((r.profile, r.players))),
    )
    for r in ordered:
        r.budget_ms = budget
    return ordered, budget, list(settings), seconds


def _pairs(args: argparse.Namespace) -> dict[tuple[str, str], int]:
    """The pairs to play and their deals per table (--only, --deals, --quick)."""
    chosen: dict[tuple[str, str], int] = {}
    wanted = [w.strip().upper() for w in args.only.split(",") if w.strip()]
    for pair, deals in PAIRS.items():
        name = ":".join(pair)
        if wanted and not any(w in (name, pair[0]) for w in wanted):
            continue
        chosen[pair] = args.deals or (QUICK_DEALS if args.quick else deals)
    if not chosen:
        raise SystemExit(f"--only {args.only!r} names no pair of {[':'.join(p) for p in PAIRS]}")
    return chosen


def _tables(spec: str) -> list[tuple[str, int]]:
    if not spec:
        return TABLES
    out = []
    for item in spec.split(","):
        profile, _, players = item.strip().partition(":")
        if (profile, int(players or 0)) not in TABLES:
            raise SystemExit(f"--tables: {item!r} is none of {TABLES}")
        out.append((profile, int(players)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help=f"{QUICK_DEALS} deals per match")
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        default="",
        metavar="FILE",
        help="the rows and summary as JSON (to FILE, or stdout)",
    )
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument(
        "--budget", type=int, default=DEFAULT_BUDGET_MS, help="STRONG's budgetMs (default 200)"
    )
    p.add_argument("--deals", type=int, default=0, help="deals per match, every pair (even)")
    p.add_argument(
        "--only",
        default="",
        help="pairs to play, comma-separated: a first level (BASIC) or a pair (STRONG:RANDOM)",
    )
    p.add_argument("--tables", default="", help="tables, e.g. canasta:2,pagat:4 (default all)")
    p.add_argument(
        "--skip",
        type=int,
        default=0,
        help="start at deal N (even): a later slice of the same seeds, to split a long run",
    )
    add_set_option(p)
    p.add_argument(
        "--merge",
        nargs="+",
        default=[],
        metavar="FILE",
        help="play nothing: pool the --json FILEs of a split ladder's parts and print them",
    )
    args = p.parse_args(argv)
    if args.deals % 2 or args.skip % 2:
        raise SystemExit("--deals and --skip must be even: each shuffle is played from both chairs")
    if args.merge:
        rows, budget, settings, seconds = merge(args.merge)
        data = summary(rows, budget, seconds, settings)
    else:
        pairs = _pairs(args)
        started = time.perf_counter()
        rows = run_ladder(pairs, _tables(args.tables), args.budget, args.jobs, args.set, args.skip)
        data = summary(rows, args.budget, time.perf_counter() - started, args.set)
    if args.json == "-":
        print(json.dumps(data))
        return 0
    if args.json:
        Path(args.json).write_text(json.dumps(data))
    print(render(data, args.jobs, len(args.merge)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The oracle measure of STRONG's judgement (docs/bots.md#the-oracle-measure): before a
measure of strength, how well STRONG's estimates rank the candidates of a decision.

    .venv/bin/python bench/bots_oracle.py               # make bench-oracle: 420 decisions
    .venv/bin/python bench/bots_oracle.py --per-table 4 --playouts 2 --json -

The decisions: BASIC plays every seat of seeded deals (``oracle-<profile>-<players>-<i>``)
at every table of bots_bench.TABLES (classic, pagat, canasta; 2 and 4 players); every
``STRIDE``-th decision whose choices hold at least two actions is kept, until
``--per-table`` decisions (70: 420 in all). Each decision's candidates are BASIC's
``CANDIDATES`` best rated choices (of every kind: draws, takes, melds, discards, going out,
the answer to "may I go out?"), and STRONG's own pick when it is none of them.

The truth: each candidate is applied in the true position (every hand as it is) and the
deal is played to its end by BASIC at every seat ``--playouts`` times, the first with the
true stock, the others with the stock reshuffled (the same stocks for every candidate);
its true value is the mean final margin of the deciding seat's side (its deal total minus
the best other side's).

STRONG's estimates: ``engine.bots.strong.search`` on the seat's view at the default budget
(the candidates' mean values over its sampled worlds). Reported, pooled and by kind of
decision:

- the correlation between STRONG's estimated and the true difference of each candidate
  from BASIC's pick (Pearson, over every other candidate of every decision);
- the share of decisions where STRONG's pick is the true best of the candidates (a tie
  counts);
- the mean true points STRONG's pick gains over BASIC's pick;
- for scale: the same for the true best (what a perfect judge would gain).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots_bench import TABLES, add_set_option, strong_options  # noqa: E402

from samba_adjudicator.engine import apply, deal, player_view, resolve, score  # noqa: E402
from samba_adjudicator.engine.bots import DEFAULT_BUDGET_MS, basic, strong  # noqa: E402
from samba_adjudicator.engine.bots.draws import choices  # noqa: E402
from samba_adjudicator.engine.bots.strong_options import STRONG, StrongOptions  # noqa: E402
from samba_adjudicator.engine.bots.suggest import _rng_seed  # noqa: E402
from samba_adjudicator.engine.bots.table import empties_hand  # noqa: E402
from samba_adjudicator.engine.bots.worlds import neutral_world  # noqa: E402
from samba_adjudicator.engine.build import CURRENT  # noqa: E402
from samba_adjudicator.engine.model import (  # noqa: E402
    Action,
    AnswerGoOut,
    Discard,
    GoOut,
    MeldCards,
    Phase,
    Snapshot,
)

PER_TABLE = 70
PLAYOUTS = 3
CANDIDATES = STRONG.candidates
#: Every STRIDE-th decision of a deal with at least two choices is kept.
STRIDE = 7
MAX_PLIES = 1500
SEED = "oracle"
#: The issue's target for the correlation.
TARGET_CORRELATION = 0.35


@dataclass
class Decision:
    """One measured decision: its candidates' true values and STRONG's estimates."""

    table: str
    kind: str
    truth: list[float]
    estimates: list[float] = field(default_factory=list)  # for the first CANDIDATES only
    basic: int = 0  # the index of BASIC's pick (always 0: the best rated)
    strong: int = 0  # the index of STRONG's pick


def _mover(s: Snapshot) -> int:
    return s.partners(s.turn.seat)[0] if s.turn.go_out is GoOut.ASKED else s.turn.seat


def kind_of(s: Snapshot, action: Action) -> str:
    """The decision's kind, named by BASIC's pick."""
    if s.turn.phase is Phase.DRAW:
        return "draw"
    if isinstance(action, AnswerGoOut):
        return "answer"
    seat = action.seat
    if empties_hand(s, seat, action):
        return "go out"
    if isinstance(action, Discard):
        return "discard"
    if isinstance(action, MeldCards):
        return "meld"
    return "other"


def positions(profile: str, players: int, wanted: int) -> list[Snapshot]:
    """``wanted`` decisions of BASIC self-play, every STRIDE-th with two choices or more."""
    out: list[Snapshot] = []
    i = 0
    while len(out) < wanted:
        s = deal(resolve(profile), players, f"{SEED}-{profile}-{players}-{i}")
        i += 1
        seen = 0
        while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES and len(out) < wanted:
            seat = _mover(s)
            legal = choices(s, seat)
            if len(legal) >= 2:
                seen += 1
                if seen % STRIDE == 0:
                    out.append(s)
            s = apply(s, basic.choose(s, seat, legal).action).snapshot
    return out


def margin(s: Snapshot, side: int) -> float:
    totals = [sc.deal_total for sc in score(s, provisional=True).sides]
    return float(totals[side] - max(t for i, t in enumerate(totals) if i != side))


def play_to_end(s: Snapshot, action: Action, side: int) -> float:
    s = apply(s, action).snapshot
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        seat = _mover(s)
        s = apply(s, basic.choose(s, seat, choices(s, seat)).action).snapshot
    return margin(s, side)


def true_values(s: Snapshot, actions: Sequence[Action], playouts: int, key: str) -> list[float]:
    """Each action's mean final margin over ``playouts`` deals played to the end by BASIC
    from the true position: the true stock, then the stock reshuffled (seeded by ``key``)."""
    return [sum(row) / playouts for row in playout_values(s, actions, playouts, key)]


def playout_values(
    s: Snapshot, actions: Sequence[Action], playouts: int, key: str
) -> list[list[float]]:
    """Each action's final margin in each of the ``playouts`` deals of true_values (the
    same stocks for every action: the first ``k`` of them are those of ``k`` playouts)."""
    side = s.seats[_mover(s)].side
    values: list[list[float]] = [[] for _ in actions]
    rng = random.Random(key)
    for k in range(playouts):
        world = s
        if k:
            stock = list(s.stock)
            rng.shuffle(stock)
            world = replace(s, stock=tuple(stock))
        for i, action in enumerate(actions):
            values[i].append(play_to_end(world, action, side))
    return values


def measure(
    s: Snapshot,
    table: str,
    playouts: int,
    budget: int,
    key: str,
    known: dict | None = None,
    o: StrongOptions = STRONG,
) -> Decision:
    """One decision: the candidates, STRONG's estimates and pick (STRONG playing ``o``),
    the true values (those ``known`` holds for ``key`` are read from it, by the
    candidate's repr, the others played out and added to it)."""
    seat = _mover(s)
    view = player_view(s, seat)
    legal = choices(neutral_world(view), seat)
    candidates = [r.action for r in strong.candidates(view, seat, legal, o)]
    rng = random.Random(_rng_seed(view, seat, key))
    if o.student:
        estimates, _ = strong.estimate(view, seat, candidates, rng, budget, o)
    else:
        totals, worlds = strong.search(view, seat, candidates, rng, budget, o)
        estimates = [t / worlds for t in totals] if worlds else []
    if o.student:  # choose's pick, from the same estimates (one search, not two)
        pick = candidates[strong.best_of(estimates)]
    else:
        rng = random.Random(_rng_seed(view, seat, key))
        pick = strong.choose(view, seat, legal, rng, budget, o).action
    if pick not in candidates:
        candidates.append(pick)
    truth = cached_true_values(s, candidates, playouts, key, {} if known is None else known)
    return Decision(
        table,
        kind_of(view, candidates[0]),
        truth,
        estimates,
        0,
        candidates.index(pick),
    )


def cached_true_values(
    s: Snapshot, actions: Sequence[Action], playouts: int, key: str, known: dict
) -> list[float]:
    """true_values, each action's read from ``known[key][repr(action)]`` when there (a
    cache of an earlier run with the same playouts: the truth depends on the seeds alone,
    and each action is played out on its own), the missing ones played out and added."""
    mine = known.setdefault(key, {})
    missing = [a for a in actions if repr(a) not in mine]
    if missing:
        for a, v in zip(missing, true_values(s, missing, playouts, key), strict=True):
            mine[repr(a)] = v
    return [mine[repr(a)] for a in actions]


def run_table(
    profile: str,
    players: int,
    wanted: int,
    playouts: int,
    budget: int,
    known: dict,
    settings: Sequence[str] = (),
) -> tuple[list[Decision], dict]:
    out = []
    o = strong_options(settings)
    for n, s in enumerate(positions(profile, players, wanted)):
        key = f"{SEED}-{profile}-{players}-{n}"
        out.append(measure(s, f"{profile} {players}p", playouts, budget, key, known, o))
    return out, known


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else 0.0


def report(decisions: Sequence[Decision]) -> dict:
    """The measure over ``decisions``: correlation, share of true best, mean gains."""
    est: list[float] = []
    tru: list[float] = []
    best = 0.0
    gain = 0.0
    headroom = 0.0
    for d in decisions:
        for i in range(1, len(d.estimates)):
            est.append(d.estimates[i] - d.estimates[d.basic])
            tru.append(d.truth[i] - d.truth[d.basic])
        top = max(d.truth)
        best += 1.0 if d.truth[d.strong] >= top else 0.0
        gain += d.truth[d.strong] - d.truth[d.basic]
        headroom += top - d.truth[d.basic]
    n = max(1, len(decisions))
    return {
        "decisions": len(decisions),
        "pairs": len(est),
        "correlation": pearson(est, tru),
        "true_best_share": best / n,
        "basic_true_best_share": sum(1 for d in decisions if d.truth[d.basic] >= max(d.truth)) / n,
        "gain_over_basic": gain / n,
        "best_gain_over_basic": headroom / n,
        "overruled": sum(1 for d in decisions if d.strong != d.basic) / n,
    }


def summary(decisions: Sequence[Decision], seconds: float, args: argparse.Namespace) -> dict:
    kinds = sorted({d.kind for d in decisions})
    tables = list(dict.fromkeys(d.table for d in decisions))
    return {
        "build": CURRENT.name,
        "budget_ms": args.budget,
        "playouts": args.playouts,
        "settings": args.set,
        "seconds": seconds,
        "pooled": report(decisions),
        "by_kind": {k: report([d for d in decisions if d.kind == k]) for k in kinds},
        "by_table": {t: report([d for d in decisions if d.table == t]) for t in tables},
        "decisions": [asdict(d) for d in decisions],
    }


def render(data: dict) -> str:
    lines = [
        f"build: {data['build']}; STRONG budgetMs {data['budget_ms']}; "
        f"{data['playouts']} playouts to the deal's end per candidate; "
        f"settings {data['settings'] or 'none'}",
        f"{'decisions':<20} {'n':>4} {'corr':>6} {'STRONG best':>11} {'BASIC best':>10} "
        f"{'STRONG gain':>11} {'best gain':>9} {'overruled':>9}",
    ]

    def line(name: str, r: dict) -> str:
        return (
            f"{name:<20} {r['decisions']:>4} {r['correlation']:>6.3f} "
            f"{100 * r['true_best_share']:>10.1f}% {100 * r['basic_true_best_share']:>9.1f}% "
            f"{r['gain_over_basic']:>+11.1f} {r['best_gain_over_basic']:>+9.1f} "
            f"{100 * r['overruled']:>8.1f}%"
        )

    for name, r in data["by_table"].items():
        lines.append(line(name, r))
    for name, r in data["by_kind"].items():
        lines.append(line(name, r))
    lines.append(line("pooled", data["pooled"]))
    corr = data["pooled"]["correlation"]
    verdict = "met" if corr >= TARGET_CORRELATION else "NOT MET"
    lines.append(f"target: oracle correlation >= {TARGET_CORRELATION}: {verdict} ({corr:.3f})")
    lines.append(f"oracle measure: {data['seconds']:.0f} s")
    return "\n".join(lines)


def run(
    per_table: int,
    playouts: int,
    budget: int,
    jobs: int,
    settings: Sequence[str] = (),
    known: dict | None = None,
) -> list[Decision]:
    """The decisions of every table; ``known`` (a truth cache, by decision key and
    candidate) is read and completed."""
    known = {} if known is None else known
    wanted = tuple(settings)
    strong_options(wanted)  # every bad --set item named before any decision is measured
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [
            pool.submit(run_table, p, n, per_table, playouts, budget, _part(known, p, n), wanted)
            for p, n in TABLES
        ]
        out = []
        for f in futures:
            decisions, cached = f.result()
            known.update(cached)
            out += decisions
        return out


def _part(known: dict, profile: str, players: int) -> dict:
    prefix = f"{SEED}-{profile}-{players}-"
    return {k: v for k, v in known.items() if k.startswith(prefix)}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--per-table", type=int, default=PER_TABLE, help="decisions per table")
    p.add_argument("--playouts", type=int, default=PLAYOUTS, help="true playouts per candidate")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET_MS, help="STRONG's budgetMs")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--json", nargs="?", const="-", default="", metavar="FILE")
    p.add_argument(
        "--truth-cache",
        default="",
        metavar="FILE",
        help="read and extend the true values of an earlier run (same --playouts) from FILE",
    )
    add_set_option(p)
    args = p.parse_args(argv)
    started = time.perf_counter()
    cache = Path(args.truth_cache) if args.truth_cache else None
    known = json.loads(cache.read_text()) if cache and cache.exists() else {}
    if known and known.get("playouts") != args.playouts:
        p.error(f"{cache} holds true values of {known.get('playouts')} playouts")
    truths = known.get("truths", {})
    decisions = run(args.per_table, args.playouts, args.budget, args.jobs, args.set, truths)
    if cache:
        cache.write_text(json.dumps({"playouts": args.playouts, "truths": truths}))
    data = summary(decisions, time.perf_counter() - started, args)
    if args.json == "-":
        print(json.dumps(data))
        return 0
    if args.json:
        Path(args.json).write_text(json.dumps(data))
    print(render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())

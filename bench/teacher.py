"""The teacher who sees every card (docs/bots.md#the-teacher-and-the-student): labels
self-play decisions of every kind with each candidate's value in the true world. Offline
only: no module of engine/ or service/ imports it (tests/engine/bots/test_student.py).

    .venv/bin/python bench/teacher.py --per-table 1000  # make bots-labels: the committed labels
    .venv/bin/python bench/teacher.py --per-table 4 --out /tmp/labels.jsonl
    .venv/bin/python bench/teacher.py --reliability 150 --playouts 3   # the labels' noise

The decisions: BASIC plays every seat of the deals dealt from the seeds
``teacher-<profile>-<players>-<i>`` at every table of bots_bench.TABLES (classic, pagat,
canasta; 2 and 4 players); every ``STRIDE``-th decision whose choices hold at least two
actions is kept, ``--per-table`` of them. Its candidates are those STRONG weighs
(``candidates``: BASIC's ``StrongOptions.candidates`` best rated choices of every kind,
engine.bots.strong_options, taken on the seat's view: draws, takes, melds, additions,
discards, going out, the answer to "may I go out?").

The label: the full-information search of the oracle measure (bots_oracle.true_values):
every candidate applied to the true position (every hand as it is) and the deal played to
its end by BASIC at every seat ``--playouts`` times, first with the true stock, then with
the stock reshuffled; the mean final margin of the deciding side (its deal total minus the
best other side's).

Each line of the output is one decision: its table, seed, the number of actions played in
the deal before it (``step``: bench/train_bots.py replays the deal to it) and its
candidates' values in STRONG's candidate order. The first line says the command and the
seeds. The output depends on the seeds alone: the same command writes the same bytes.

``--reliability N`` measures the labels' noise instead: the first ``N`` decisions (as
evenly as the tables allow, the labels' own) are played out ``2 * --playouts`` times per
candidate (the same stocks for every candidate, the first ``--playouts`` those of the
labels), and for each ``k`` up to ``--playouts`` it prints the split-half reliability: the
correlation between the candidates' differences from BASIC's pick (the oracle measure's
statistic) computed from playouts ``1..k`` and from ``K+1..K+k``, and its mean over
``SPLITS`` seeded draws of two disjoint sets of ``k`` playouts (steadier). That is how far
a ``k``-playout label agrees with itself; no estimate can correlate with it better than
the square root (``ceiling``). The same (random halves) for two labels of less variance
made of the same playouts, the margin clipped to ``CLIP`` points and "the deal is won" (1,
a tie 0.5, 0), and the CPU seconds a decision's ``k`` playouts cost. ``--out FILE`` keeps
every playout's margin (JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots_bench import TABLES  # noqa: E402
from bots_oracle import pearson, playout_values, true_values  # noqa: E402

from samba_adjudicator.engine import apply, deal, player_view, resolve  # noqa: E402
from samba_adjudicator.engine.bots import basic  # noqa: E402
from samba_adjudicator.engine.bots.draws import choices  # noqa: E402
from samba_adjudicator.engine.bots.strong import candidates  # noqa: E402
from samba_adjudicator.engine.model import GoOut, Phase, Snapshot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "data" / "teacher.jsonl"
PER_TABLE = 1000
PLAYOUTS = 3
#: Every STRIDE-th decision of a deal with at least two choices is kept.
STRIDE = 5
MAX_PLIES = 1500
SEED = "teacher"
#: --reliability: random halves drawn per k, and the clipped label's bound (points).
SPLITS = 200
CLIP = 400.0


def _mover(s: Snapshot) -> int:
    return s.partners(s.turn.seat)[0] if s.turn.go_out is GoOut.ASKED else s.turn.seat


def decisions(profile: str, players: int) -> Iterator[tuple[str, int, Snapshot]]:
    """(seed, step, position) of BASIC self-play: every STRIDE-th decision with two
    choices or more, deal after deal."""
    i = 0
    while True:
        seed = f"{SEED}-{profile}-{players}-{i}"
        i += 1
        for step, s in replay(profile, players, seed):
            if step is not None:
                yield seed, step, s


def replay(profile: str, players: int, seed: str) -> Iterator[tuple[int | None, Snapshot]]:
    """The positions of one deal of BASIC self-play, each with its step (the actions played
    before it) when it is a kept decision, else None."""
    s = deal(resolve(profile), players, seed)
    step = 0
    seen = 0
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        seat = _mover(s)
        legal = choices(s, seat)
        kept = None
        if len(legal) >= 2:
            seen += 1
            kept = step if seen % STRIDE == 0 else None
        yield kept, s
        s = apply(s, basic.choose(s, seat, legal).action).snapshot
        step += 1


def position(profile: str, players: int, seed: str, step: int) -> Snapshot:
    """The position ``step`` actions into the deal ``seed`` of BASIC self-play."""
    for n, (_, s) in enumerate(replay(profile, players, seed)):
        if n == step:
            return s
    raise ValueError(f"{seed} has no step {step}")


def labelled(profile: str, players: int, wanted: int) -> Iterator[tuple[str, int, Snapshot, list]]:
    """The first ``wanted`` decisions of a table with two candidates or more: (seed, step,
    position, STRONG's candidates on the seat's view)."""
    found = 0
    for seed, step, s in decisions(profile, players):
        if found >= wanted:
            return
        seat = _mover(s)
        picks = candidates(player_view(s, seat), seat)
        if len(picks) >= 2:
            found += 1
            yield seed, step, s, [r.action for r in picks]


def label_table(profile: str, players: int, wanted: int, playouts: int) -> list[dict]:
    out: list[dict] = []
    for seed, step, s, actions in labelled(profile, players, wanted):
        truth = true_values(s, actions, playouts, f"{seed}-{step}")
        out.append(
            {
                "table": f"{profile} {players}",
                "seed": seed,
                "step": step,
                "values": [round(v, 3) for v in truth],
            }
        )
    return out


def noise_table(profile: str, players: int, wanted: int, playouts: int) -> list[dict]:
    """The first ``wanted`` labelled decisions of a table, each candidate played out
    ``playouts`` times: every playout's margin, and the CPU seconds they cost."""
    out: list[dict] = []
    for seed, step, s, actions in labelled(profile, players, wanted):
        started = time.process_time()
        values = playout_values(s, actions, playouts, f"{seed}-{step}")
        cpu = time.process_time() - started
        out.append({"table": f"{profile} {players}", "seed": seed, "step": step})
        out[-1].update(values=values, cpu=cpu)
    return out


def _won(margin: float) -> float:
    return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0


def _clipped(margin: float) -> float:
    return max(-CLIP, min(CLIP, margin))


def split_half(
    rows: Sequence[dict], first: Sequence[int], second: Sequence[int], label=None
) -> float:  # type: ignore[no-untyped-def]
    """The correlation between the candidates' differences from BASIC's pick (candidate 0)
    by the mean of the playouts ``first`` and by that of the playouts ``second`` (``label``
    maps a playout's margin first)."""
    out: tuple[list[float], list[float]] = ([], [])
    for row in rows:
        for part, playouts in zip(out, (first, second), strict=True):
            means = [
                sum(label(vs[j]) if label else vs[j] for j in playouts) / len(playouts)
                for vs in row["values"]
            ]
            part += [m - means[0] for m in means[1:]]
    return pearson(*out)


def random_halves(rows: Sequence[dict], k: int, label=None) -> float:  # type: ignore[no-untyped-def]
    """split_half's mean over ``SPLITS`` seeded draws of two disjoint sets of ``k``
    playouts: steadier than one split."""
    rng = random.Random(f"{SEED}-halves-{k}")
    total = 0.0
    for _ in range(SPLITS):
        order = list(range(len(rows[0]["values"][0])))
        rng.shuffle(order)
        total += split_half(rows, order[:k], order[k : 2 * k], label)
    return total / SPLITS


def reliability(rows: Sequence[dict], half: int) -> list[dict]:
    """For each ``k`` up to ``half``: the split-half reliability of the mean margin of
    ``k`` playouts (playouts ``1..k`` against ``half+1..half+k``; and the mean over
    random halves), its ceiling (the square root), the same (random halves) for the
    margin clipped to ``CLIP`` points and for "the deal is won", and the CPU seconds a
    decision's ``k`` playouts cost."""
    cpu = sum(r["cpu"] for r in rows) / max(1, len(rows)) / (2 * half)
    out = []
    for k in range(1, half + 1):
        r = random_halves(rows, k)
        out.append(
            {
                "playouts": k,
                "reliability": split_half(rows, range(k), range(half, half + k)),
                "random_halves": r,
                "ceiling": math.sqrt(max(0.0, r)),
                "clipped": random_halves(rows, k, _clipped),
                "won": random_halves(rows, k, _won),
                "cpu_s": cpu * k,
            }
        )
    return out


def measure_noise(total: int, playouts: int, jobs: int, out: str) -> None:
    per = [total // len(TABLES) + (i < total % len(TABLES)) for i in range(len(TABLES))]
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [
            pool.submit(noise_table, p, n, w, 2 * playouts)
            for (p, n), w in zip(TABLES, per, strict=True)
        ]
        rows = [row for f in futures for row in f.result()]
    found = reliability(rows, playouts)
    pairs = sum(len(r["values"]) - 1 for r in rows)
    print(f"label noise: {len(rows)} decisions, {pairs} candidates beside BASIC's pick")
    print(f"reliability of the margin (1..k v {playouts}+1..{playouts}+k; random halves: the")
    print(f"mean of {SPLITS}), its ceiling, the margin clipped to {CLIP:g}, the deal won")
    print("playouts  1..k  random  ceiling  clipped    won  CPU s a decision")
    for f in found:
        print(
            f"{f['playouts']:>8}  {f['reliability']:>4.3f}  {f['random_halves']:>6.3f}  "
            f"{f['ceiling']:>7.3f}  {f['clipped']:>7.3f}  {f['won']:>5.3f}  {f['cpu_s']:>16.3f}"
        )
    if out:
        data = {"decisions": rows, "reliability": found}
        Path(out).write_text(json.dumps(data, sort_keys=True) + "\n")


def run(per_table: int, playouts: int, jobs: int) -> list[dict]:
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(label_table, p, n, per_table, playouts) for p, n in TABLES]
        return [row for f in futures for row in f.result()]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--per-table", type=int, default=PER_TABLE, help="decisions per table")
    p.add_argument("--playouts", type=int, default=PLAYOUTS, help="true playouts per candidate")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    p.add_argument("--out", default=str(OUT), help="the labels to write (JSON lines)")
    p.add_argument(
        "--reliability",
        type=int,
        default=0,
        metavar="N",
        help="measure the labels' noise on N decisions (2 x --playouts each); --out: raw JSON",
    )
    args = p.parse_args(argv)
    started = time.perf_counter()
    if args.reliability:
        out = args.out if args.out != str(OUT) else ""
        measure_noise(args.reliability, args.playouts, args.jobs, out)
        print(f"{time.perf_counter() - started:.0f} s")
        return 0
    rows = run(args.per_table, args.playouts, args.jobs)
    header = {
        "command": f"bench/teacher.py --per-table {args.per_table} --playouts {args.playouts}",
        "seeds": f"{SEED}-<profile>-<players>-<i>, every {STRIDE}th decision",
        "tables": [f"{p} {n}" for p, n in TABLES],
        "decisions": len(rows),
    }
    lines = [json.dumps(header, sort_keys=True)] + [json.dumps(r, sort_keys=True) for r in rows]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"{len(rows)} decisions labelled, {time.perf_counter() - started:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

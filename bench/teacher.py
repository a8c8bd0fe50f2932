"""The teacher who sees every card (docs/bots.md#the-teacher-and-the-student): labels
self-play decisions of every kind with each candidate's value in the true world. Offline
only: no module of engine/ or service/ imports it (tests/engine/bots/test_student.py).

    .venv/bin/python bench/teacher.py --per-table 200   # make bots-labels: the committed labels
    .venv/bin/python bench/teacher.py --per-table 4 --out /tmp/labels.jsonl

The decisions: BASIC plays every seat of the deals dealt from the seeds
``teacher-<profile>-<players>-<i>`` at every table of bots_bench.TABLES (classic, pagat,
canasta; 2 and 4 players); every ``STRIDE``-th decision whose choices hold at least two
actions is kept, ``--per-table`` of them. Its candidates are those STRONG weighs
(``candidates``: BASIC's ``engine.bots.strong.CANDIDATES`` best rated choices of every kind,
taken on the seat's view: draws, takes, melds, additions, discards, going out, the answer
to "may I go out?").

The label: the full-information search of the oracle measure (bots_oracle.true_values):
every candidate applied to the true position (every hand as it is) and the deal played to
its end by BASIC at every seat ``--playouts`` times, first with the true stock, then with
the stock reshuffled; the mean final margin of the deciding side (its deal total minus the
best other side's).

Each line of the output is one decision: its table, seed, the number of actions played in
the deal before it (``step``: bench/train_bots.py replays the deal to it) and its
candidates' values in STRONG's candidate order. The first line says the command and the
seeds. The output depends on the seeds alone: the same command writes the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots_bench import TABLES  # noqa: E402
from bots_oracle import true_values  # noqa: E402

from samba_adjudicator.engine import apply, deal, player_view, resolve  # noqa: E402
from samba_adjudicator.engine.bots import basic  # noqa: E402
from samba_adjudicator.engine.bots.draws import choices  # noqa: E402
from samba_adjudicator.engine.bots.strong import candidates  # noqa: E402
from samba_adjudicator.engine.model import GoOut, Phase, Snapshot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "data" / "teacher.jsonl"
PER_TABLE = 200
PLAYOUTS = 3
#: Every STRIDE-th decision of a deal with at least two choices is kept.
STRIDE = 5
MAX_PLIES = 1500
SEED = "teacher"


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


def label_table(profile: str, players: int, wanted: int, playouts: int) -> list[dict]:
    out: list[dict] = []
    for seed, step, s in decisions(profile, players):
        if len(out) >= wanted:
            break
        seat = _mover(s)
        picks = candidates(player_view(s, seat), seat)
        if len(picks) < 2:
            continue
        truth = true_values(s, [r.action for r in picks], playouts, f"{seed}-{step}")
        out.append(
            {
                "table": f"{profile} {players}",
                "seed": seed,
                "step": step,
                "values": [round(v, 3) for v in truth],
            }
        )
    return out


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
    args = p.parse_args(argv)
    started = time.perf_counter()
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

"""What STRONG's options cost against a BASIC playout ply (docs/bots.md#strong), on the
positions of the oracle measure (bench/bots_oracle.py: BASIC self-play, every table):

    .venv/bin/python bench/strong_costs.py --per-table 10 [--json FILE]

- **a BASIC ply**: the playout's step (the mover's choices, BASIC's pick, the action
  applied), the baseline;
- **a student ply**: the same step with ``PLAYOUT`` "student" (BASIC's best
  ``CANDIDATES`` valued by the student, its best played);
- **a student candidate**: one candidate valued by the student (features and network);
- **a world's likelihood**: engine.bots.inference.likelihood of one sampled world.

Each is CPU time of this process, measured in the same run, and given as a ratio to the
BASIC ply: ``STUDENT_PLY_COST`` (plies charged per candidate the student values) is the
student candidate's ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots_bench import TABLES  # noqa: E402
from bots_oracle import _mover, positions  # noqa: E402

from samba_adjudicator.engine import apply, player_view  # noqa: E402
from samba_adjudicator.engine.bots import basic, inference, strong, student  # noqa: E402
from samba_adjudicator.engine.bots.draws import choices  # noqa: E402
from samba_adjudicator.engine.bots.worlds import sample_world, unseen  # noqa: E402
from samba_adjudicator.engine.build import CURRENT  # noqa: E402
from samba_adjudicator.engine.model import Snapshot  # noqa: E402


def _timed(steps: Sequence[Callable[[], object]], repeat: int) -> float:
    """Mean CPU seconds of one step."""
    started = time.process_time()
    for _ in range(repeat):
        for step in steps:
            step()
    return (time.process_time() - started) / max(1, repeat * len(steps))


def _basic_ply(s: Snapshot) -> Callable[[], object]:
    seat = _mover(s)
    return lambda: apply(s, basic.choose(s, seat, choices(s, seat)).action)


def _student_ply(s: Snapshot) -> Callable[[], object]:
    seat = _mover(s)
    return lambda: apply(s, strong.student_move(s, seat)[0])


def _candidate(s: Snapshot) -> Callable[[], object]:
    seat = _mover(s)
    action = basic.choose(s, seat, choices(s, seat)).action
    return lambda: student.values(s, seat, [action])


def _likelihood(s: Snapshot) -> Callable[[], object]:
    seat = _mover(s)
    view = player_view(s, seat)
    found = inference.clues(view, seat)
    world = sample_world(view, unseen(view), random.Random(0))
    return lambda: inference.likelihood(world, found)


def measure(per_table: int, repeat: int) -> dict:
    states: list[Snapshot] = []
    for profile, players in TABLES:
        states += positions(profile, players, per_table)
    basic_s = _timed([_basic_ply(s) for s in states], repeat)
    rows = {
        "basic ply": basic_s,
        "student ply": _timed([_student_ply(s) for s in states], repeat),
        "student candidate": _timed([_candidate(s) for s in states], repeat),
        "world's likelihood": _timed([_likelihood(s) for s in states], repeat),
    }
    return {
        "build": CURRENT.name,
        "positions": len(states),
        "ms": {k: v * 1000 for k, v in rows.items()},
        "ratio": {k: v / basic_s for k, v in rows.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--per-table", type=int, default=10, help="positions per table")
    p.add_argument("--repeat", type=int, default=3, help="times each position is timed")
    p.add_argument("--json", default="", metavar="FILE")
    args = p.parse_args(argv)
    data = measure(args.per_table, args.repeat)
    if args.json:
        Path(args.json).write_text(json.dumps(data))
    print(f"{data['build']} build, {data['positions']} positions (CPU time)")
    print("| step | ms | x a BASIC ply |\n|---|---|---|")
    for name, ms in data["ms"].items():
        print(f"| {name} | {ms:.3f} | {data['ratio'][name]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

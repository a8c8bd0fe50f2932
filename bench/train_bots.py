"""Fits STRONG's evaluation (engine/bots/evaluation.py) on BASIC's self-play and writes its
weights as a Python data module (docs/bots.md#the-fitted-evaluation); first fits STRONG's
student (bench/train_student.py) to the teacher's labels (``--part`` chooses).

    .venv/bin/python bench/train_bots.py                 # make train-bots: the committed weights
    .venv/bin/python bench/train_bots.py --part evaluation --deals 2 --out /tmp/w.py

Every profile of engine.PROFILES at 2 and 4 players (where it is played so), ``--deals``
deals each, dealt from the seeds ``train-bots-<profile>-<players>-<i>``; BASIC plays every
seat. At the start of every draw, each side's features (engine.bots.evaluation.features)
are recorded with the side's final deal margin (its deal total minus the best other
side's). The weights minimize the squared error plus ``RIDGE`` times each weight's square
scaled by its feature's sum of squares (no intercept: the features are differences, so a
side and its opponent see the same position with opposite signs), solved by Gaussian
elimination in plain Python. The output records the command, the seeds and the fit, and
depends on the seeds alone: the same command writes the same bytes.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import train_student  # noqa: E402

from samba_adjudicator.engine import PROFILES, apply, deal, resolve, score  # noqa: E402
from samba_adjudicator.engine.bots import basic  # noqa: E402
from samba_adjudicator.engine.bots.draws import choices  # noqa: E402
from samba_adjudicator.engine.bots.evaluation import FEATURES, features  # noqa: E402
from samba_adjudicator.engine.model import GoOut, Phase, Snapshot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "engine" / "bots" / "weights.py"
DEALS = 200
PLAYERS = (2, 4)
MAX_PLIES = 1500
#: The ridge's strength, relative to each feature's sum of squares.
RIDGE = 1e-3
#: Significant digits written: enough for the fit, few enough to read.
DIGITS = 6


def tables() -> list[tuple[str, int]]:
    """(profile, players) for every profile of engine.PROFILES played by 2 or 4."""
    return [
        (profile, players)
        for profile in PROFILES
        for players in PLAYERS
        if players in resolve(profile).players_allowed
    ]


def _mover(s: Snapshot) -> int:
    return s.partners(s.turn.seat)[0] if s.turn.go_out is GoOut.ASKED else s.turn.seat


def self_play(
    profile: str, players: int, seed: str
) -> tuple[list[tuple[int, list[float]]], list[int]]:
    """One deal of BASIC at every seat: ((side, features) at every draw, final totals)."""
    s = deal(resolve(profile), players, seed)
    rows: list[tuple[int, list[float]]] = []
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        if s.turn.phase is Phase.DRAW and s.turn.go_out is not GoOut.ASKED:
            for side in range(len(s.sides)):
                rows.append((side, features(s, side)))
        seat = _mover(s)
        s = apply(s, basic.choose(s, seat, choices(s, seat)).action).snapshot
    totals = [sc.deal_total for sc in score(s, provisional=True).sides]
    return rows, totals


def margin(totals: Sequence[int], side: int) -> float:
    return float(totals[side] - max(t for i, t in enumerate(totals) if i != side))


def collect(deals: int) -> tuple[list[list[float]], list[float], list[str]]:
    """(feature rows, target margins, the seeds played)."""
    xs: list[list[float]] = []
    ys: list[float] = []
    seeds: list[str] = []
    for profile, players in tables():
        for i in range(deals):
            seed = f"train-bots-{profile}-{players}-{i}"
            seeds.append(seed)
            rows, totals = self_play(profile, players, seed)
            for side, x in rows:
                xs.append(x)
                ys.append(margin(totals, side))
    return xs, ys, seeds


def fit(xs: Sequence[Sequence[float]], ys: Sequence[float]) -> list[float]:
    """Ridge least squares: (XᵀX + RIDGE·diag(XᵀX)) w = Xᵀy, by Gaussian elimination with
    partial pivoting (sums in the rows' order: the same rows give the same bits)."""
    k = len(FEATURES)
    a = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    for x, y in zip(xs, ys, strict=True):
        for i in range(k):
            xi = x[i]
            if xi == 0.0:
                continue
            b[i] += xi * y
            row = a[i]
            for j in range(k):
                row[j] += xi * x[j]
    for i in range(k):
        a[i][i] = a[i][i] * (1.0 + RIDGE) if a[i][i] > 0 else 1.0  # a feature never seen: 0
    return solve(a, b)


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a·x = b (a square, non-singular), by Gaussian elimination."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def r_squared(xs: Sequence[Sequence[float]], ys: Sequence[float], w: Sequence[float]) -> float:
    mean = sum(ys) / len(ys)
    total = sum((y - mean) ** 2 for y in ys)
    residual = sum(
        (y - sum(a * b for a, b in zip(w, x, strict=True))) ** 2
        for x, y in zip(xs, ys, strict=True)
    )
    return 1.0 - residual / total if total else 0.0


def render(weights: Sequence[float], deals: int, rows: int, r2: float, command: str) -> str:
    """The data module: the weights by feature name, the command and the seeds."""
    lines = [
        '"""STRONG\'s fitted evaluation weights (engine/bots/evaluation.py), written by',
        "bench/train_bots.py: do not edit by hand.",
        "",
        f"Command: {command}",
        f"Seeds: train-bots-<profile>-<players>-<i>, i < {deals}, at every table (BASIC at",
        "every seat):",
        *textwrap.wrap(", ".join(f"{p} {n}p" for p, n in tables()), 88),
        f"Rows: {rows} (each side at the start of every draw); ridge {RIDGE}; R² {r2:.3f}.",
        '"""',
        "",
        "WEIGHTS: tuple[float, ...] = (",
    ]
    for name, w in zip(FEATURES, weights, strict=True):
        lines.append(f"    {float(f'{w:.{DIGITS}g}')!r},  # {name}")
    lines.append(")")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--deals", type=int, default=DEALS, help=f"deals per table (default {DEALS})")
    p.add_argument("--out", default=str(OUT), help="the data module to write")
    p.add_argument(
        "--part",
        choices=("all", "evaluation", "student"),
        default="all",
        help="what to fit: the linear evaluation, the student, or both (default)",
    )
    p.add_argument("--labels", default=str(train_student.LABELS), help="the teacher's labels")
    p.add_argument("--student-out", default=str(train_student.OUT), help="the student's module")
    args = p.parse_args(argv)
    if args.part in ("all", "student"):
        train_student.main(args.labels, args.student_out)
    if args.part == "student":
        return 0
    started = time.perf_counter()
    xs, ys, _ = collect(args.deals)
    weights = fit(xs, ys)
    r2 = r_squared(xs, ys, weights)
    command = (
        "make train-bots" if args.deals == DEALS else f"bench/train_bots.py --deals {args.deals}"
    )
    Path(args.out).write_text(render(weights, args.deals, len(xs), r2, command))
    print(
        f"{len(xs)} rows from {args.deals} deals per table, R² {r2:.3f}, "
        f"{time.perf_counter() - started:.0f} s -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

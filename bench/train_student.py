"""Fits STRONG's student (engine/bots/student.py) to the teacher's labels (bench/teacher.py)
and writes its network as a Python data module (docs/bots.md#the-teacher-and-the-student).
Run by ``make train-bots`` (bench/train_bots.py); numpy and scikit-learn are the
development set's only (pyproject.toml's dev extra), never the engine's.

Each labelled decision is replayed (its seed, BASIC at every seat, to its step); each of
its candidates is read as the student's features, from the seat's view only, and its
target is the teacher's value less the mean of its decision's. A scikit-learn
``MLPRegressor`` (``HIDDEN`` rectified units, L2 ``ALPHA``, Adam, seeded by ``SEED``, one
thread) fits the standardized features to the targets scaled by their spread; its weights
are written at ``DIGITS`` significant digits with the command and the labels' seeds. The
decisions of the last ``HELD_OUT`` share of the labels' seeds of each table are held out
and the fit is reported on them: the correlation of the predicted and the teacher's
differences from BASIC's pick (the oracle measure's statistic). The same labels and seeds
write the same bytes (tests/engine/bots/test_student.py).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots_oracle import pearson  # noqa: E402
from teacher import replay  # noqa: E402

from samba_adjudicator.engine import player_view  # noqa: E402
from samba_adjudicator.engine.bots import strong  # noqa: E402
from samba_adjudicator.engine.bots.student import FEATURES, features  # noqa: E402
from samba_adjudicator.engine.bots.worlds import neutral_world  # noqa: E402
from samba_adjudicator.engine.model import GoOut, Snapshot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "data" / "teacher.jsonl"
OUT = ROOT / "engine" / "bots" / "student_weights.py"
HIDDEN = 32
ALPHA = 10.0
MAX_ITER = 100
SEED = 48
HELD_OUT = 0.2
DIGITS = 6


def _mover(s: Snapshot) -> int:
    return s.partners(s.turn.seat)[0] if s.turn.go_out is GoOut.ASKED else s.turn.seat


def load(path: str) -> tuple[dict, list[dict]]:
    lines = Path(path).read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line]


def rows(labels: Sequence[dict]) -> list[tuple[str, list[list[float]], list[float]]]:
    """(table, each candidate's features, the targets) of every labelled decision."""
    by_seed: dict[str, list[dict]] = {}
    for row in labels:
        by_seed.setdefault(row["seed"], []).append(row)
    out = []
    for seed, wanted in by_seed.items():
        profile, players = wanted[0]["table"].split()
        steps = {row["step"]: row for row in wanted}
        for step, s in enumerate(s for _, s in replay(profile, int(players), seed)):
            row = steps.get(step)
            if row is None:
                continue
            seat = _mover(s)
            view = player_view(s, seat)
            picks = [r.action for r in strong.candidates(view, seat)]
            values = row["values"]
            if len(picks) != len(values):
                raise ValueError(
                    f"{seed} step {step}: {len(picks)} candidates, {len(values)} labels"
                )
            world = neutral_world(view)
            xs = [features(view, world, seat, a, rank) for rank, a in enumerate(picks)]
            mean = sum(values) / len(values)
            out.append((row["table"], xs, [v - mean for v in values]))
    return out


def split(data: Sequence[tuple[str, list[list[float]], list[float]]], held_out: float):
    """(training, held out): the last ``held_out`` share of each table's decisions."""
    tables: dict[str, list] = {}
    for d in data:
        tables.setdefault(d[0], []).append(d)
    train, test = [], []
    for decisions in tables.values():
        cut = len(decisions) - int(len(decisions) * held_out)
        train += decisions[:cut]
        test += decisions[cut:]
    return train, test


def fit(train, seed: int = SEED):  # type: ignore[no-untyped-def]
    """(mean, scale, hidden biases, first layer, output weights, output bias) fitted."""
    import numpy as np
    from sklearn.neural_network import MLPRegressor

    x = np.array([xi for _, xs, _ in train for xi in xs], dtype=float)
    y = np.array([yi for _, _, ys in train for yi in ys], dtype=float)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0.0] = 1.0
    mean, scale = _round(mean), _round(scale)
    spread = float(_round(np.array([y.std() or 1.0]))[0])
    net = MLPRegressor(
        hidden_layer_sizes=(HIDDEN,),
        activation="relu",
        alpha=ALPHA,
        max_iter=MAX_ITER,
        random_state=seed,
        shuffle=True,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a convergence warning: MAX_ITER is the fit's bound
        net.fit((x - mean) / scale, y / spread)
    w1, w2 = net.coefs_
    b1, b2 = net.intercepts_
    return (
        [float(v) for v in mean],
        [float(v) for v in scale],
        [float(v) for v in _round(b1)],
        [[float(v) for v in row] for row in _round(w1.T)],
        [float(v) for v in _round(w2[:, 0] * spread)],
        float(_round(b2 * spread)[0]),
    )


def _round(a):  # type: ignore[no-untyped-def]
    import numpy as np

    return np.array([float(f"{v:.{DIGITS}g}") for v in np.ravel(a)]).reshape(np.shape(a))


def predict(net, x: Sequence[float]) -> float:  # type: ignore[no-untyped-def]
    """The exported network's output, as engine.bots.student.evaluate computes it."""
    mean, scale, hidden, w1, out, bias = net
    z = [(a - m) / s for a, m, s in zip(x, mean, scale, strict=True)]
    total = bias
    for j, row in enumerate(w1):
        h = hidden[j] + sum(r * v for r, v in zip(row, z, strict=True))
        if h > 0.0:
            total += out[j] * h
    return total


def correlation(net, data) -> float:  # type: ignore[no-untyped-def]
    """Pearson's r of the predicted and the teacher's differences from BASIC's pick."""
    est: list[float] = []
    tru: list[float] = []
    for _, xs, ys in data:
        p = [predict(net, x) for x in xs]
        for i in range(1, len(xs)):
            est.append(p[i] - p[0])
            tru.append(ys[i] - ys[0])
    return pearson(est, tru)


def render(net, header: dict, decisions: int, held: int, r_held: float, labels: str) -> str:  # type: ignore[no-untyped-def]
    mean, scale, hidden, w1, out, bias = net
    lines = [
        '"""The student\'s network (engine/bots/student.py), written by bench/train_bots.py:',
        "do not edit by hand.",
        "",
        "Command: make train-bots (bench/train_student.py: scikit-learn MLPRegressor, "
        f"{HIDDEN} relu units,",
        f"alpha {ALPHA}, {MAX_ITER} iterations, random_state {SEED}).",
        f"Labels: {labels}, written by {header['command']};",
        f"seeds {header['seeds']}.",
        f"Decisions: {decisions} ({held} held out: the last {HELD_OUT:.0%} of each table's);",
        f"held-out correlation with the teacher's differences from BASIC's pick: {r_held:.3f}.",
        '"""',
        "",
        "# fmt: off",
        *_tuple("INPUT_MEAN: tuple[float, ...]", mean),
        *_tuple("INPUT_SCALE: tuple[float, ...]", scale),
        *_tuple("HIDDEN: tuple[float, ...]", hidden),
        "WEIGHTS_1: tuple[tuple[float, ...], ...] = (",
        *(line for row in w1 for line in _tuple("", row, "    ")),
        ")",
        *_tuple("OUTPUT: tuple[float, ...]", out),
        f"OUTPUT_BIAS = {bias!r}",
        "# fmt: on",
    ]
    return "\n".join(lines) + "\n"


def _tuple(name: str, values: Sequence[float], indent: str = "") -> list[str]:
    """``name = (v, ...)`` (or ``(v, ...),`` in a tuple), wrapped at 96 columns."""
    body = textwrap.wrap(", ".join(repr(v) for v in values) + ",", 96 - len(indent) - 4)
    head = f"{indent}{name} = (" if name else f"{indent}("
    tail = f"{indent})" if name else f"{indent}),"
    return [head, *(f"{indent}    {line}" for line in body), tail]


def main(labels: str = str(LABELS), out: str = str(OUT)) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    started = time.perf_counter()
    header, labelled = load(labels)
    data = rows(labelled)
    train, test = split(data, HELD_OUT)
    net = fit(train)
    r_held = correlation(net, test)
    r_train = correlation(net, train)
    shown = (
        os.path.relpath(labels, ROOT) if Path(labels).is_relative_to(ROOT) else Path(labels).name
    )
    Path(out).write_text(render(net, header, len(data), len(test), r_held, shown))
    print(
        f"student: {len(data)} decisions ({len(test)} held out), {len(FEATURES)} features, "
        f"correlation {r_train:.3f} trained, {r_held:.3f} held out, "
        f"{time.perf_counter() - started:.0f} s -> {out}"
    )

"""STRONG's fitted evaluation (engine.bots.evaluation, docs/bots.md#the-fitted-evaluation) and
its training (bench/train_bots.py), which depends on its seeds alone."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from builders import basic_positions

from samba_adjudicator.engine.bots import weights
from samba_adjudicator.engine.bots.evaluation import FEATURES, features, fitted_margin
from samba_adjudicator.engine.model import Phase
from samba_adjudicator.engine.scoring import score

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

import train_bots  # noqa: E402


def test_the_features_are_one_sides_and_the_others_with_opposite_signs():
    for s in basic_positions("classic", 2, "signs"):
        if s.turn.phase is Phase.OVER:
            break
        mine, theirs = features(s, 0), features(s, 1)
        assert len(mine) == len(FEATURES) == len(weights.WEIGHTS)
        assert mine == [-x for x in theirs]


def test_a_finished_deal_is_judged_by_its_real_margin():
    *_, end = basic_positions("pagat", 2, "finished", limit=2000)
    assert end.turn.phase is Phase.OVER
    totals = [sc.deal_total for sc in score(end).sides]
    assert fitted_margin(end, 0) == totals[0] - totals[1]
    assert fitted_margin(end, 1) == totals[1] - totals[0]


def test_the_fit_recovers_the_weights_of_an_exact_linear_target():
    rng = random.Random(3)
    truth = [float(i % 5) - 2.0 for i in range(len(FEATURES))]
    xs = [[rng.uniform(-10, 10) for _ in FEATURES] for _ in range(400)]
    ys = [sum(w * x for w, x in zip(truth, row, strict=True)) for row in xs]
    got = train_bots.fit(xs, ys)
    assert got == pytest.approx(truth, abs=0.05)


def _train(out: Path, hash_seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "train_bots.py"),
            "--part",
            "evaluation",
            "--deals",
            "1",
            "--out",
            str(out),
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    return out.read_bytes()


def test_training_twice_on_the_same_seeds_writes_the_same_bytes(tmp_path):
    first = _train(tmp_path / "a.py", "1")
    second = _train(tmp_path / "b.py", "2")
    assert first == second
    assert b"Command: bench/train_bots.py --deals 1" in first
    namespace: dict[str, object] = {}
    exec(first.decode(), namespace)  # the data module is plain Python
    fitted = namespace["WEIGHTS"]
    assert isinstance(fitted, tuple) and len(fitted) == len(FEATURES)
    assert any(w != 0.0 for w in fitted)


def test_the_committed_weights_record_how_they_were_made():
    doc = (ROOT / "engine" / "bots" / "weights.py").read_text()  # a compiled module has no __doc__
    assert "Command: make train-bots" in doc and "Seeds: train-bots-" in doc
    assert len(weights.WEIGHTS) == len(FEATURES)

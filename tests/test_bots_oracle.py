"""The oracle measure of STRONG's judgement (bench/bots_oracle.py, `make bench-oracle`,
docs/bots.md#the-oracle-measure) measures what it says; nothing here is timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bots_oracle  # noqa: E402
from bots_oracle import Decision, pearson, report  # noqa: E402

from samba_adjudicator.engine import validate  # noqa: E402


def test_a_perfect_judge_correlates_one_and_picks_the_true_best():
    decisions = [
        Decision("t", "discard", truth=[0.0, 50.0, -20.0], estimates=[1.0, 26.0, -9.0], strong=1),
        Decision("t", "draw", truth=[10.0, 0.0], estimates=[7.0, 2.0], strong=0),
    ]
    got = report(decisions)
    assert got["correlation"] == pytest.approx(1.0)
    assert got["pairs"] == 3
    assert got["true_best_share"] == 1.0 and got["basic_true_best_share"] == 0.5
    assert got["gain_over_basic"] == pytest.approx(25.0)
    assert got["best_gain_over_basic"] == pytest.approx(25.0)
    assert got["overruled"] == 0.5


def test_a_wrong_pick_loses_true_points_and_a_reversed_judge_correlates_minus_one():
    decisions = [
        Decision("t", "discard", truth=[0.0, 50.0, -20.0], estimates=[0.0, -50.0, 20.0], strong=2)
    ]
    got = report(decisions)
    assert got["correlation"] == pytest.approx(-1.0)
    assert got["true_best_share"] == 0.0
    assert got["gain_over_basic"] == pytest.approx(-20.0)
    assert got["best_gain_over_basic"] == pytest.approx(50.0)


def test_pearson():
    assert pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(0.9934, abs=1e-3)
    assert pearson([1, 1], [2, 3]) == 0.0


def test_positions_are_decisions_with_choices_and_each_candidate_is_legal():
    found = bots_oracle.positions("canasta", 2, 2)
    assert len(found) == 2
    d = bots_oracle.measure(found[0], "canasta 2p", 1, 1, "t")
    assert 2 <= len(d.truth) <= bots_oracle.CANDIDATES + 1
    assert len(d.estimates) == min(len(d.truth), bots_oracle.CANDIDATES)
    assert 0 <= d.strong < len(d.truth) and d.basic == 0
    # the same seeds measure the same decision the same way
    again = bots_oracle.measure(bots_oracle.positions("canasta", 2, 2)[0], "canasta 2p", 1, 1, "t")
    assert again == d


def test_the_true_values_play_each_candidate_to_the_deal_s_end():
    s = bots_oracle.positions("classic", 2, 1)[0]
    seat = bots_oracle._mover(s)
    from samba_adjudicator.engine.bots.draws import choices

    actions = choices(s, seat)[:2]
    assert all(validate(s, a) == [] for a in actions)
    one = bots_oracle.true_values(s, actions, 1, "k")
    two = bots_oracle.true_values(s, actions, 2, "k")
    # the first playout is the true stock's: the mean of two includes it
    assert len(one) == len(two) == 2
    assert one == bots_oracle.true_values(s, actions, 1, "k")


def test_the_command_prints_every_table_every_kind_and_the_target(tmp_path):
    out = tmp_path / "oracle.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots_oracle.py"), "--per-table", "1"]
        + ["--playouts", "1", "--budget", "1", "--jobs", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    assert len(data["decisions"]) == len(bots_oracle.TABLES) == len(data["by_table"])
    assert set(data["pooled"]) >= {"correlation", "true_best_share", "gain_over_basic"}
    assert "target: oracle correlation >= 0.35" in done.stdout and "pooled" in done.stdout


def test_strong_costs_sets_each_step_beside_a_basic_ply(tmp_path):
    """bench/strong_costs.py (docs/bots.md#strong-options): each step of STRONG's options
    timed on the oracle's positions, one a table, as a ratio to a BASIC ply of the same
    run; nothing here checks a time."""
    out = tmp_path / "costs.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "strong_costs.py"), "--per-table", "1"]
        + ["--repeat", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    steps = {"basic ply", "student ply", "student candidate", "world's likelihood"}
    assert data["positions"] == len(bots_oracle.TABLES)
    assert set(data["ms"]) == set(data["ratio"]) == steps
    assert data["ratio"]["basic ply"] == 1.0
    assert all(ms > 0 for ms in data["ms"].values())
    assert "| student candidate |" in done.stdout


def test_the_true_hands_teacher_writes_the_same_bytes_and_labels_discards():
    """bench/true_teacher.py (docs/bots.md#the-true-hands-teacher): run twice, in processes
    of different hash seeds, the same bytes; every line a discard of BASIC's with two to
    four candidates' values, each decision of the teacher's seeds."""
    import os

    outs = []
    for hash_seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "true_teacher.py"), "--per-table", "1"]
            + ["--stocks", "2", "--out", "-"],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "ms a label" in done.stderr
        outs.append(done.stdout)
    assert outs[0] == outs[1]
    header, *rows = [json.loads(line) for line in outs[0].splitlines()]
    assert header["decisions"] == len(rows) == len(bots_oracle.TABLES)
    assert header["command"] == "bench/true_teacher.py --per-table 1 --stocks 2"
    for row in rows:
        assert row["seed"].startswith("teacher-") and 2 <= len(row["values"]) <= 4


def test_the_true_hands_teacher_measures_its_labels_noise():
    """--reliability: each discard labelled twice from disjoint stocks, the two labels'
    differences from BASIC's pick correlated (and nothing written)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "true_teacher.py"), "--per-table", "1"]
        + ["--stocks", "1", "--reliability"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stdout
    assert "split-half reliability at 1 stocks" in said and "at 2 (Spearman-Brown)" in said
    assert not said.startswith("{")

"""The computer players' ladder (bench/bots_bench.py, `make bench-bots`) plays what it says
and judges the targets as docs/bots.md#strength says; nothing here is timed."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bots_bench  # noqa: E402
from bots_bench import PAIRS, TABLES, Row, ratings, targets, wilson  # noqa: E402


def test_the_quick_ladder_plays_every_pair_at_every_table_from_both_chairs(tmp_path):
    out = tmp_path / "ladder.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots_bench.py"), "--quick", "--budget", "5"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    played = {(r["first"], r["second"], r["profile"], r["players"]) for r in data["rows"]}
    assert played == {(a, b, p, n) for a, b in PAIRS for p, n in TABLES}
    for r in data["rows"]:
        assert r["deals"] == bots_bench.QUICK_DEALS and 0 <= r["wins"] <= r["deals"]
        # both levels decided, at both chairs of the shuffle
        assert r["decisions"][r["first"]] > 0 and r["decisions"][r["second"]] > 0
        # the margin's SE over the one mirrored pair (0), the first level's CPU per decision
        assert r["margin_se"] == 0.0 and 0 < r["p50_ms"] <= r["p99_ms"]
    assert set(data["pooled"]) == {f"{a} v {b}" for a, b in PAIRS}
    assert set(data["times"]) == {"RANDOM", "BASIC", "STRONG"}
    assert data["ratings"]["RANDOM"] == pytest.approx(0.0)
    assert len(data["targets"]) == 6
    table = done.stdout
    assert table.count("target: ") == 6 and "rating (Bradley-Terry" in table
    for pair in PAIRS:
        assert f"{pair[0]} v {pair[1]} pooled" in table


def test_deal_i_is_shuffle_i_over_2_with_the_chairs_swapped():
    a = bots_bench.run_chunk("BASIC", "RANDOM", "canasta", 2, range(0, 1), 0)
    b = bots_bench.run_chunk("RANDOM", "BASIC", "canasta", 2, range(1, 2), 0)
    # deal 1 of (RANDOM, BASIC) seats BASIC at side 0 on shuffle 0: deal 0 of (BASIC, RANDOM)
    assert a.wins == 1.0 - b.wins and a.margin == -b.margin


def test_skip_plays_a_later_slice_of_the_same_deals():
    """--skip N: deals N.. of each match, so a long run splits into parts of other seeds."""
    pairs = {("STRONG", "BASIC"): 24}
    first = bots_bench._work(pairs, [("classic", 2)], 200)
    later = bots_bench._work(pairs, [("classic", 2)], 200, skip=24)
    assert [job[4] for job in first] == [range(0, 20), range(20, 24)]
    assert [job[4] for job in later] == [range(24, 44), range(44, 48)]


def test_wilson_interval():
    low, high = wilson(90, 100)
    assert low == pytest.approx(0.8256, abs=1e-3) and high == pytest.approx(0.9448, abs=1e-3)


def _row(first, second, profile, players, deals, wins, strong_ms=()):
    r = Row(first, second, profile, players, deals=deals, wins=wins)
    if strong_ms:
        r.decisions["STRONG"] = [ms / 1000 for ms in strong_ms]
    return r


def test_ratings_fit_the_rates_on_the_elo_scale_random_at_zero():
    # 76 % of deals is about 200 Elo points; the chain RANDOM < BASIC < STRONG adds up
    rows = [
        _row("BASIC", "RANDOM", "classic", 2, 1000, 760),
        _row("STRONG", "BASIC", "classic", 2, 1000, 760),
        _row("STRONG", "RANDOM", "classic", 2, 1000, 910),
    ]
    got = ratings(rows)
    assert got["RANDOM"] == pytest.approx(0.0)
    assert got["BASIC"] == pytest.approx(200, abs=15)
    assert got["STRONG"] == pytest.approx(400, abs=20)
    # a level that never lost still has a finite rating (the virtual tie)
    assert ratings([_row("BASIC", "RANDOM", "classic", 2, 10, 10)])["BASIC"] < 1000


def _ladder(strong_rate, basic_rate, deals=280, p99_ms=150):
    rows = [_row("BASIC", "RANDOM", p, n, 200, basic_rate * 200) for p, n in TABLES]
    rows += [
        _row("STRONG", "BASIC", p, n, deals, strong_rate * deals, [1.0] * 98 + [p99_ms] * 2)
        for p, n in TABLES
    ]
    return {v.target: v.met for v in targets(rows, 200, 600.0)}


def test_targets_met_and_not_met():
    assert all(_ladder(0.65, 0.95).values())
    missed = _ladder(0.65, 0.95, deals=260)  # 1,560 deals: too few
    assert [t for t, met in missed.items() if not met] == [
        "STRONG >= 60 % v BASIC pooled over >= 1600 deals"
    ]
    assert not _ladder(0.59, 0.95)["STRONG v BASIC: 95 % interval's lower bound > 57.5 %"]
    assert not _ladder(0.65, 0.89)["BASIC >= 90 % v RANDOM at every table"]
    assert not _ladder(0.65, 0.95, p99_ms=250)["STRONG p99 decision <= budgetMs 200"]


def test_one_table_below_half_misses_the_target():
    rows = [_row("BASIC", "RANDOM", p, n, 200, 190) for p, n in TABLES]
    rows += [_row("STRONG", "BASIC", p, n, 280, 196, [1.0]) for p, n in TABLES[:-1]]
    rows.append(_row("STRONG", "BASIC", *TABLES[-1], 280, 145, [1.0]))  # 51.8 %
    got = {v.target: v.met for v in targets(rows, 200, 60.0)}
    assert not got["STRONG v BASIC: every table >= 52 %"]
    assert got["STRONG >= 60 % v BASIC pooled over >= 1600 deals"]


def test_the_margin_s_standard_error_is_taken_over_mirrored_pairs():
    """Each shuffle's two deals make one pair (docs/bots.md#strength): a chunk of four deals
    gives two pair margins, their mean the row's mean margin; the SE is the pairs'."""
    row = bots_bench.run_chunk("BASIC", "RANDOM", "classic", 2, range(0, 4), 0)
    assert len(row.pair_margins) == 2
    assert sum(row.pair_margins) / 2 == pytest.approx(row.margin / row.deals)
    a, b = row.pair_margins
    assert bots_bench.margin_se([a, b]) == pytest.approx(abs(a - b) / 2)
    assert bots_bench.margin_se([5.0]) == 0.0


def test_set_makes_one_value_of_strong_s_settings():
    """--set NAME=VALUE sets fields of STRONG's settings (docs/bots.md#strong-options): the
    name in either case, the value of the field's type, the level's own value untouched."""
    from samba_adjudicator.engine.bots.strong_options import STRONG

    got = bots_bench.strong_options(["SEARCH_MELD=0", "margin=25", "playout=student"])
    assert (got.search_meld, got.margin, got.playout) == (False, 25.0, "student")
    assert got == replace(STRONG, search_meld=False, margin=25.0, playout="student")
    assert bots_bench.strong_options([]) == STRONG


def test_set_names_every_bad_item():
    with pytest.raises(SystemExit) as e:
        bots_bench.strong_options(["bogus=1", "search_meld=maybe", "margin=x", "student"])
    said = str(e.value)
    for item in ("'bogus=1'", "'search_meld=maybe'", "'margin=x'", "'student'"):
        assert item in said


def test_merge_pools_the_parts_of_a_split_ladder_as_one_run(tmp_path):
    """--merge (the full ladder's parts, --skip): two parts of two deals pool to the rows of
    one four-deal run: wins, margins, the pairs' standard error, the decisions."""
    bench = [sys.executable, str(ROOT / "bench" / "bots_bench.py"), "--only", "BASIC:RANDOM"]
    bench += ["--tables", "classic:2", "--jobs", "1"]
    runs = {"p0": ["--deals", "2"], "p2": ["--deals", "2", "--skip", "2"], "all": ["--deals", "4"]}
    for name, extra in runs.items():
        done = subprocess.run(
            bench + extra + ["--json", str(tmp_path / f"{name}.json")],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    rows, budget, settings, _ = bots_bench.merge(
        [str(tmp_path / "p0.json"), str(tmp_path / "p2.json")]
    )
    whole = json.loads((tmp_path / "all.json").read_text())["rows"][0]
    (r,) = rows
    assert (r.deals, r.wins, r.margin / r.deals) == (4, whole["wins"], whole["mean_margin"])
    assert bots_bench.margin_se(r.pair_margins) == pytest.approx(whole["margin_se"])
    assert len(r.decisions["BASIC"]) == whole["decisions"]["BASIC"]
    assert (budget, settings) == (200, [])
    merged = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots_bench.py"), "--merge"]
        + [str(tmp_path / "p0.json"), str(tmp_path / "p2.json")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert merged.returncode == 0, merged.stderr[-3000:]
    assert "2 parts merged" in merged.stdout and "BASIC v RANDOM pooled" in merged.stdout

"""The true-hands teacher of the discard (docs/bots.md#the-true-hands-teacher): STRONG's own
search, given every hand, labels BASIC self-play discards. Offline only: no module of
engine/ or service/ imports it (tests/engine/bots/test_student.py).

    .venv/bin/python bench/true_teacher.py --per-table 200 --out /tmp/discards.jsonl
    .venv/bin/python bench/true_teacher.py --per-table 2 --out -      # to stdout
    .venv/bin/python bench/true_teacher.py --per-table 50 --reliability   # the labels' noise

The decisions: the teacher's (bench/teacher.py: BASIC plays every seat of the deals dealt
from ``teacher-<profile>-<players>-<i>`` at every table of bots_bench.TABLES, every
``STRIDE``-th decision with two choices or more), kept when BASIC's pick on the seat's view
is a discard that does not go out and STRONG weighs two discards or more there; the
candidates are those STRONG weighs (BASIC's ``discard_candidates`` best discards).

The label: ``engine.bots.strong.search``, the search STRONG makes, on the true position
with only the stock hidden: every hand is the true one, each world reshuffles the stock
(``--stocks`` worlds, seeded by the decision), each candidate is played on by BASIC until
the seat's next turn and judged by the fitted evaluation. So a label is what STRONG would
find if it knew where the cards are: the issue's diagnosis measured that search at +3
points a discard over the honest one, against the noisy 3-playout labels of the deal's end
(bench/teacher.py) that cost 0.17 s a decision. A label is one candidate's value: a line
of the output holds a decision's, in STRONG's order. The first line says the command and
the seeds; the output depends on them alone: the same command writes the same bytes
(tests/test_bots_oracle.py runs it twice, in processes of different hash seeds). The CPU
spent, and so the cost of a label, is printed on stderr, never in the labels.

``--reliability`` measures the labels' noise instead: each decision is labelled twice from
disjoint stocks (``--stocks`` worlds each, other seeds), and the split-half reliability is
the correlation of the two labels' differences of each candidate from BASIC's pick (the
oracle measure's statistic, bench/bots_oracle.py); Spearman-Brown gives a label of twice
the stocks.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots_bench import TABLES  # noqa: E402
from bots_oracle import pearson  # noqa: E402
from teacher import SEED, STRIDE, _mover, decisions  # noqa: E402

from samba_adjudicator.engine import player_view  # noqa: E402
from samba_adjudicator.engine.bots import basic, strong  # noqa: E402
from samba_adjudicator.engine.bots.draws import choices  # noqa: E402
from samba_adjudicator.engine.bots.strong_options import STRONG  # noqa: E402
from samba_adjudicator.engine.bots.table import empties_hand  # noqa: E402
from samba_adjudicator.engine.bots.worlds import neutral_world  # noqa: E402
from samba_adjudicator.engine.model import Action, Discard, Snapshot  # noqa: E402

PER_TABLE = 200
#: Worlds (stocks) a label is the mean of: the budget's worlds at a discard are 8-20.
STOCKS = 8


def discards(profile: str, players: int, wanted: int) -> Iterator[tuple[str, int, Snapshot, list]]:
    """The first ``wanted`` discards of a table's teacher decisions: (seed, step, position,
    STRONG's discard candidates on the seat's view)."""
    found = 0
    for seed, step, s in decisions(profile, players):
        if found >= wanted:
            return
        seat = _mover(s)
        view = player_view(s, seat)
        legal = choices(neutral_world(view), seat)
        rated = basic.rate_all(view, seat, legal)
        order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
        pick = rated[order[0]].action
        if not isinstance(pick, Discard) or empties_hand(view, seat, pick):
            continue
        picks = [rated[i].action for i in order if isinstance(rated[i].action, Discard)]
        picks = picks[: STRONG.discard_candidates]
        if len(picks) >= 2:
            found += 1
            yield seed, step, s, picks


def true_hands_values(s: Snapshot, picks: Sequence[Action], stocks: int, key: str) -> list[float]:
    """Each candidate's mean value in STRONG's search of ``s`` with only its stock hidden:
    ``stocks`` worlds, each the true hands and the stock reshuffled (seeded by ``key``)."""
    seat = _mover(s)
    hidden = replace(s, stock=(), stock_count=len(s.stock))
    # exactly ``stocks`` worlds: no budget beyond them, and a clock that never cuts them
    exact = replace(STRONG, min_worlds=stocks, clock_floor=3600.0)
    totals, worlds = strong.search(hidden, seat, picks, random.Random(key), 0, exact)
    return [t / worlds for t in totals]


def label_table(profile: str, players: int, wanted: int, stocks: int) -> tuple[list[dict], float]:
    """A table's labelled discards, and the CPU seconds they cost."""
    started = time.process_time()
    out = []
    for seed, step, s, picks in discards(profile, players, wanted):
        values = true_hands_values(s, picks, stocks, f"{seed}-{step}")
        out.append(
            {
                "table": f"{profile} {players}",
                "seed": seed,
                "step": step,
                "values": [round(v, 3) for v in values],
            }
        )
    return out, time.process_time() - started


def halves_table(profile: str, players: int, wanted: int, stocks: int) -> list[tuple]:
    """(first half's, second half's difference from BASIC's pick) of every candidate."""
    out = []
    for seed, step, s, picks in discards(profile, players, wanted):
        a = true_hands_values(s, picks, stocks, f"{seed}-{step}")
        b = true_hands_values(s, picks, stocks, f"{seed}-{step}-other")
        out += [(a[i] - a[0], b[i] - b[0]) for i in range(1, len(picks))]
    return out


def measure_noise(per_table: int, stocks: int, jobs: int) -> None:
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(halves_table, q, n, per_table, stocks) for q, n in TABLES]
        pairs = [pair for f in futures for pair in f.result()]
    r = pearson([a for a, _ in pairs], [b for _, b in pairs])
    print(
        f"{len(pairs)} differences: split-half reliability at {stocks} stocks {r:.3f}; "
        f"at {2 * stocks} (Spearman-Brown) {2 * r / (1 + r):.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--per-table", type=int, default=PER_TABLE, help="discards per table")
    p.add_argument("--stocks", type=int, default=STOCKS, help="worlds (stocks) per label")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    p.add_argument("--out", default="-", help="the labels to write (JSON lines; - for stdout)")
    p.add_argument(
        "--reliability", action="store_true", help="measure the labels' noise, write none"
    )
    args = p.parse_args(argv)
    if args.reliability:
        measure_noise(args.per_table, args.stocks, args.jobs)
        return 0
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(label_table, q, n, args.per_table, args.stocks) for q, n in TABLES]
        parts = [f.result() for f in futures]
    rows = [row for part, _ in parts for row in part]
    cpu = sum(seconds for _, seconds in parts)
    header = {
        "command": f"bench/true_teacher.py --per-table {args.per_table} --stocks {args.stocks}",
        "seeds": f"{SEED}-<profile>-<players>-<i>, every {STRIDE}th decision, BASIC's discards",
        "tables": [f"{q} {n}" for q, n in TABLES],
        "decisions": len(rows),
    }
    text = "\n".join(json.dumps(r, sort_keys=True) for r in [header, *rows]) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text)
    labels = sum(len(r["values"]) for r in rows)
    print(
        f"{len(rows)} discards, {labels} labels, {cpu:.1f} s of CPU: "
        f"{1e3 * cpu / max(1, labels):.2f} ms a label; 10^6 labels: "
        f"{cpu / max(1, labels) * 1e6 / 3600:.2f} core-hours",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

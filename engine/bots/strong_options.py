"""STRONG's settings as one frozen value (docs/bots.md#strong-options): what the level
searches, how, and how its budget is counted.

``suggest`` passes ``STRONG`` (the level's settings) unless a caller hands it another
value; the benches make one with ``dataclasses.replace`` (their ``--set NAME=VALUE``), so
a trial never changes what another caller in the same process gets. A value, not module
constants, because the service and a bench may run side by side in one interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StrongOptions:
    """Every option of engine.bots.strong; the defaults are the level's settings."""

    #: BASIC's best rated actions of every kind weighed; at the discard, of discards
    #: (every discard is one card: they are cheap to list).
    candidates: int = 4
    discard_candidates: int = 4
    #: Without the student: points a searched rival must gain on average over BASIC's
    #: choice to replace it.
    margin: float = 40.0
    #: Plies per millisecond of budget: the pure build's speed, and the compiled build's
    #: (its p99 decision time kept within budgetMs: docs/bots.md#strength).
    plies_per_ms: float = 1.0
    compiled_plies_per_ms: float = 1.8
    #: The search's clock: it ends once it has spent ``clock_slack`` times the budget, plus
    #: ``clock_floor`` seconds, of CPU time: room for ``min_worlds``, which any budget plays.
    clock_slack: float = 2.0
    clock_floor: float = 0.5
    horizon: int = 40
    #: The seat's own turns a playout passes before it is judged: 1, until its next turn.
    turns_ahead: int = 1
    #: Which decisions are searched (the others follow BASIC). The draw stays searched: the
    #: service's tests of slow calls hold a slot with the search of a 103-card draw.
    search_draw: bool = True
    search_discard: bool = True
    search_answer: bool = True
    #: Melds, going out and wild swaps, searched among BASIC's best plays of every kind (a
    #: meld against another, or against discarding at once): where the leverage is. Issue
    #: 57 measured the three on with the student off at 57.4 % of 432 mirrored deals against
    #: BASIC, where the draw and the discard alone played 48.3 % (docs/bots.md#strength-57).
    search_meld: bool = True
    search_go_out: bool = True
    search_swap: bool = True
    #: At most this many worlds at a meld, a swap or going out (0: no cap): a meld's worth
    #: shows in every world, so a few rank them as the budget's worlds do (issue 57: four
    #: worlds, 57.1 % of 480 deals), and the cap keeps their CPU, and the ladder's, small.
    meld_worlds: int = 8
    #: How a playout's last position is judged: "fitted" (engine.bots.evaluation) or
    #: "hand" (the hand-written provisional score: ``strong.hand_judge``).
    evaluation: str = "fitted"
    #: Whether the student (engine.bots.student) values the candidates; off, the search
    #: alone with ``margin``: the student's values lose at the melds (docs/bots.md#limits).
    student: bool = False
    #: With the student: the weight of its values, how many of its best candidates the
    #: search weighs, and the weight of their searched means.
    student_weight: float = 1.0
    search_top: int = 4
    search_weight: float = 1.0
    #: At least this many worlds, whatever the budget.
    min_worlds: int = 2
    #: Inference (engine.bots.inference): each world searched is drawn, by its likelihood
    #: under the student, from this many sampled ones (1: no inference); the likelihood's
    #: choices at each clue, its softmax's temperature, whether declined draws count.
    infer_proposals: int = 1
    infer_candidates: int = 4
    infer_temperature: float = 100.0
    infer_declined: bool = True
    #: The playouts' policy: "basic" (BASIC's pick) or "student".
    playout: str = "basic"
    #: Plies charged for each candidate the student values (bench/strong_costs.py).
    student_ply_cost: float = 1.0
    #: ``hand_judge``: the share of the hand's penalty counted, and points per card a
    #: growing meld is worth beyond its cards, towards its bonus.
    hand_weight: float = 0.0
    progress: float = 12.0


#: The STRONG level's settings.
STRONG = StrongOptions()

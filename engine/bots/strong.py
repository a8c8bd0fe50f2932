"""STRONG: a student fitted to a full-information teacher, plus determinized sampling with
BASIC playouts (docs/bots.md#strong).

STRONG decides the draw, the discard and the answer to "may I go out?" (``SEARCH_DRAW``,
``SEARCH_DISCARD``, ``SEARCH_ANSWER``, by BASIC's pick); melding and going out follow BASIC
(``SEARCH_MELD``, ``SEARCH_GO_OUT``: measured by bench/bots_oracle.py). The candidates are
BASIC's ``CANDIDATES`` best rated actions of every kind (``candidates``). Each is valued by
the student (engine.bots.student, from the seat's view only), and the student's
``SEARCH_TOP`` best are also searched: worlds are sampled from the view
(engine.bots.worlds: each hidden hand holds its known cards); in each, every candidate is
applied and play goes on by BASIC for every seat until the seat's next turn begins
(``TURNS_AHEAD``; or the deal ends, or ``HORIZON`` plies), and the position is judged
(``judge``: the fitted evaluation, engine.bots.evaluation, or the hand-written
``hand_judge``). The same worlds serve every candidate. The best sum of the student's
value and ``SEARCH_WEIGHT`` times the searched mean (less the mean of those searched)
wins. With ``STUDENT`` off, issue 37's STRONG: the best searched mean wins, but BASIC's
choice stays unless a rival beats it by ``MARGIN`` points on average
(docs/bots.md#strong-tried).

Options, each off by default (measured: docs/bots.md#strong-options): ``SEARCH_MELD``,
``SEARCH_GO_OUT`` and ``SEARCH_SWAP`` search those decisions too; ``INFER_PROPOSALS``
draws each world searched, by its likelihood under the student, among that many sampled
ones (engine.bots.inference: the other seats' last discards and declined draws);
``PLAYOUT`` "student" plays the playouts by the student. Each candidate the student values
in them is charged ``STUDENT_PLY_COST`` plies of the budget.

The budget is counted in simulated plies, so that the answer depends on the request (and
the build) alone: ``plies_per_ms()`` plies per millisecond of budget, about the running
build's speed on one core of the development machine (``PLIES_PER_MS`` for the pure build,
``COMPILED_PLIES_PER_MS`` for the compiled one), so that the search spends close to its
budget without passing it (docs/bots.md#determinism). A ply's cost grows
with the hand (on a hundred-card hand one listing takes seconds), so the search also has a
clock: it ends once it has spent ``CLOCK_SLACK`` times the budget plus ``CLOCK_FLOOR`` seconds
of its thread's CPU time, at the engine's checkpoints (engine.deadline.spending), and answers
from the worlds played whole by then (none: BASIC's choice). The clock counts CPU time, not
the wall's, so a loaded machine slows a search without cutting it; only a search the clock
cut (a very large hand) can answer differently from run to run. A search the
call's own deadline or its caller's leaving stops is not answered: the call fails.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..build import CURRENT
from ..deadline import Interrupted, checkpoint, spending
from ..game import apply
from ..model import (
    Action,
    AnswerGoOut,
    Discard,
    GoOut,
    MeldCards,
    Phase,
    Snapshot,
    SwapWild,
)
from ..scoring import score
from ..vocabulary import SEVEN
from . import basic, inference, student
from .choice import Rated, reason
from .draws import choices
from .evaluation import fitted_margin
from .table import empties_hand
from .worlds import neutral_world, sample_world, unseen

CANDIDATES = 4
#: Candidates at the discard (every discard is one card: they are cheap to list).
DISCARD_CANDIDATES = 4
#: Without the student: points a searched rival must gain on average over BASIC's choice
#: to replace it.
MARGIN = 40.0
#: Plies per millisecond of budget: the pure build's speed, and the compiled build's (its
#: p99 decision time kept within budgetMs: docs/bots.md#strength).
PLIES_PER_MS = 1.0
COMPILED_PLIES_PER_MS = 1.8
#: The search's clock: it ends once it has spent CLOCK_SLACK times the budget, plus
#: CLOCK_FLOOR seconds, of CPU time: room for MIN_WORLDS, which any budget plays.
CLOCK_SLACK = 2.0
CLOCK_FLOOR = 0.5
HORIZON = 40
#: The seat's own turns a playout passes before it is judged: 1, until its next turn begins.
TURNS_AHEAD = 1
#: Which decisions STRONG decides (the others follow BASIC): the draw, the discard and the
#: answer to "may I go out?". The oracle measure found its draws still worse than BASIC's on
#: 25 draws (docs/bots.md#the-oracle-measure): too few to act on, and the service's tests
#: of slow calls hold a slot with the search of a 103-card draw, so the draw stays searched.
SEARCH_DRAW = True
SEARCH_DISCARD = True
SEARCH_ANSWER = True
#: Melds (laying or adding cards) and going out: searched among BASIC's best rated plays of
#: every kind (a meld against another, or against discarding at once).
SEARCH_MELD = False
SEARCH_GO_OUT = False
#: Wild swaps (a natural for a meld's wild): searched like melds.
SEARCH_SWAP = False
#: How a playout's last position is judged: "fitted" (engine.bots.evaluation, fitted on
#: BASIC's self-play) or "hand" (the hand-written provisional score: ``hand_judge``).
EVALUATION = "fitted"
#: Whether the student (engine.bots.student) values the candidates (BASIC's best
#: ``CANDIDATES`` of every kind); off: issue 37's search alone, with ``MARGIN``. Off: the
#: oracle measure prefers it, the ladder does not confirm it (49.0 % of 300 deals against
#: BASIC; docs/bots.md#strength), so it stays a trial (``--set STUDENT=1``).
STUDENT = False
#: With the student: the weight of its values, how many of its best candidates the search
#: weighs, and the weight of their searched means (measured: docs/bots.md#the-oracle-measure).
STUDENT_WEIGHT = 1.0
SEARCH_TOP = 4
SEARCH_WEIGHT = 1.0
#: At least this many worlds, whatever the budget.
MIN_WORLDS = 2
#: Inference (engine.bots.inference): each world searched is drawn, by its likelihood
#: under the student, from INFER_PROPOSALS sampled ones (1: no inference).
INFER_PROPOSALS = 1
#: The likelihood's choices at each clue (BASIC's best, and the one made), its softmax's
#: temperature (the student's points), whether the draws declined count.
INFER_CANDIDATES = 4
INFER_TEMPERATURE = 100.0
INFER_DECLINED = True
#: The playouts' policy: "basic" (BASIC's pick) or "student" (the student's best of
#: BASIC's ``CANDIDATES`` best).
PLAYOUT = "basic"
#: Plies the budget is charged for each candidate the student values (in the inference or
#: the playouts): its cost against a BASIC ply's (bench/strong_costs.py).
STUDENT_PLY_COST = 1.0
#: The hand counts this share of its penalty (cards in hand are also chances to meld).
HAND_WEIGHT = 0.0
#: Points per card a growing meld is worth beyond its cards, towards its bonus.
PROGRESS = 12.0


def candidates(view: Snapshot, seat: int, legal: Sequence[Action] | None = None) -> list[Rated]:
    """BASIC's ``CANDIDATES`` best rated choices of every kind (ties in the list's order):
    what STRONG weighs, and what the teacher labels (bench/teacher.py)."""
    if legal is None:
        legal = choices(neutral_world(view), seat)
    rated = basic.rate_all(view, seat, legal)
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
    return [rated[i] for i in order[:CANDIDATES]]


def choose(
    view: Snapshot, seat: int, legal: Sequence[Action], rng: random.Random, budget_ms: int
) -> Rated:
    """STRONG's action: the best estimate (``estimate``) among ``candidates`` (the
    student's values replace ``MARGIN``)."""
    if not STUDENT:
        return _choose_searched(view, seat, legal, rng, budget_ms)
    picks = candidates(view, seat, legal)
    if len(picks) == 1 or not _searched(view, seat, picks[0].action):
        return picks[0]  # BASIC's pick, and its reason
    estimates, worlds = estimate(view, seat, [p.action for p in picks], rng, budget_ms)
    best = best_of(estimates)
    return _searched_reason(picks, best, worlds, estimates[best])


def best_of(estimates: Sequence[float]) -> int:
    """The index of the best estimate (the first of equals: BASIC's order)."""
    best = 0
    for i in range(1, len(estimates)):
        if estimates[i] > estimates[best]:
            best = i
    return best


def estimate(
    view: Snapshot, seat: int, picks: Sequence[Action], rng: random.Random, budget_ms: int
) -> tuple[list[float], int]:
    """(each candidate's estimate, the worlds searched), at the decisions searched
    (``_searched``: by BASIC's pick, the ``SEARCH_*`` switches; elsewhere all zero, so
    BASIC's pick): ``STUDENT_WEIGHT`` times the student's value (engine.bots.student),
    plus, for the student's ``SEARCH_TOP`` best, ``SEARCH_WEIGHT`` times their searched
    mean less the mean of those searched. The oracle measure
    (bench/bots_oracle.py) reads these estimates."""
    if not _searched(view, seat, picks[0]):
        return [0.0] * len(picks), 0  # BASIC's pick
    prior = [STUDENT_WEIGHT * v for v in student.values(view, seat, picks)]
    if SEARCH_TOP < 2 or SEARCH_WEIGHT == 0.0:
        return prior, 0
    top = sorted(range(len(picks)), key=lambda i: -prior[i])[:SEARCH_TOP]
    top.sort()  # BASIC's order: the search's worlds and answers do not depend on the prior's ties
    totals, worlds = search(view, seat, [picks[i] for i in top], rng, budget_ms)
    out = list(prior)
    if worlds:
        means = [t / worlds for t in totals]
        centre = sum(means) / len(means)
        for i, m in zip(top, means, strict=True):
            out[i] += SEARCH_WEIGHT * (m - centre)
    return out, worlds


def _choose_searched(
    view: Snapshot, seat: int, legal: Sequence[Action], rng: random.Random, budget_ms: int
) -> Rated:
    """Issue 37's STRONG (``STUDENT`` off): BASIC's choice, unless a searched rival of the
    same kind beats it by ``MARGIN`` on average over the sampled worlds."""
    rated = basic.rate_all(view, seat, legal)
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
    pick = rated[order[0]]
    if not _searched(view, seat, pick.action):
        return pick
    kind = type(pick.action)
    mixed = view.turn.phase is Phase.DRAW or not isinstance(pick.action, (Discard, AnswerGoOut))
    picks = [rated[i] for i in order if mixed or type(rated[i].action) is kind]
    picks = picks[: DISCARD_CANDIDATES if kind is Discard else CANDIDATES]
    if len(picks) == 1:
        return pick
    totals, worlds = search(view, seat, [p.action for p in picks], rng, budget_ms)
    if not worlds:  # the clock ended the search before one world was played whole
        return pick
    best = 0
    for i in range(1, len(picks)):
        if totals[i] > totals[best]:
            best = i
    if (totals[best] - totals[0]) / worlds < MARGIN:
        best = 0
    return _searched_reason(picks, best, worlds, totals[best] / worlds)


def _searched_reason(picks: Sequence[Rated], best: int, worlds: int, mean: float) -> Rated:
    said = reason(
        "SEARCHED",
        reason=picks[best].reason.said(),
        count=len(picks),
        worlds=worlds,
        mean=f"{mean:+.0f}",
    )
    return Rated(picks[best].action, mean, said)


def search(
    view: Snapshot, seat: int, picks: Sequence[Action], rng: random.Random, budget_ms: int
) -> tuple[list[float], int]:
    """(each candidate's total over the worlds played whole, how many): worlds until the
    plies reach the budget (at least MIN_WORLDS), or until the clock ends the search."""
    side = view.seats[seat].side
    pool = unseen(view)
    totals = [0.0] * len(picks)
    allowance = int(budget_ms * plies_per_ms())
    spent = 0.0
    worlds = 0
    found = inference.clues(view, seat) if INFER_PROPOSALS > 1 else []
    try:
        with spending(CLOCK_SLACK * budget_ms / 1000 + CLOCK_FLOOR):
            while worlds < MIN_WORLDS or spent < allowance:
                world, valued = _draw_world(view, pool, rng, found)
                spent += STUDENT_PLY_COST * valued
                values = []
                for candidate in picks:
                    value, plies = _play_out(world, candidate, seat, side)
                    values.append(value)
                    spent += plies
                totals = [a + b for a, b in zip(totals, values, strict=True)]
                worlds += 1
    except Interrupted:
        checkpoint()  # the call's own deadline or stop: not the search's clock
    return totals, worlds


def _draw_world(
    view: Snapshot, pool: list[str], rng: random.Random, found: Sequence[inference.Clue]
) -> tuple[Snapshot, int]:
    """(a world to search, the candidates the student valued to draw it): without clues,
    one sampled world; with them, one of ``INFER_PROPOSALS`` drawn by their likelihood."""
    world = sample_world(view, pool, rng)
    if not found:
        return world, 0
    proposals = [world] + [sample_world(view, pool, rng) for _ in range(INFER_PROPOSALS - 1)]
    how = inference.Inference(INFER_CANDIDATES, INFER_TEMPERATURE, INFER_DECLINED)
    weights = []
    valued = 0
    for w in proposals:
        p, n = inference.likelihood(w, found, how)
        weights.append(p)
        valued += n
    total = sum(weights)
    if total <= 0.0:
        return world, valued
    x = rng.random() * total
    for w, p in zip(proposals, weights, strict=True):
        x -= p
        if x < 0.0:
            return w, valued
    return proposals[-1], valued


def plies_per_ms() -> float:
    """The plies a millisecond of budget buys in the running build."""
    return COMPILED_PLIES_PER_MS if CURRENT.name == "compiled" else PLIES_PER_MS


def _searched(view: Snapshot, seat: int, action: Action) -> bool:
    """The decisions STRONG searches, each by its switch: the draw (``SEARCH_DRAW``), the
    discard, the answer to "may I go out?", melding (``SEARCH_MELD``: its candidates are
    BASIC's best plays of every kind) and going out (``SEARCH_GO_OUT``)."""
    if view.turn.phase is Phase.DRAW:
        return SEARCH_DRAW
    if isinstance(action, AnswerGoOut):
        return SEARCH_ANSWER
    if empties_hand(view, seat, action):
        return SEARCH_GO_OUT
    if isinstance(action, Discard):
        return SEARCH_DISCARD
    if isinstance(action, SwapWild):
        return SEARCH_SWAP
    return SEARCH_MELD and isinstance(action, MeldCards)


def _play_out(world: Snapshot, action: Action, seat: int, side: int) -> tuple[float, float]:
    """(the judged value for ``side``, plies charged) after ``action`` in ``world``."""
    outcome = apply(world, action)
    s = outcome.snapshot
    plies = 1
    charged = 0.0
    left_turn = False
    turns = 0
    while s.turn.phase is not Phase.OVER and plies < HORIZON:
        mover = _mover(s)
        if mover == seat and left_turn and s.turn.phase is Phase.DRAW:
            turns += 1
            if turns >= TURNS_AHEAD:
                break
            left_turn = False
        if mover != seat:
            left_turn = True
        checkpoint()
        move, valued = _policy(s, mover)
        s = apply(s, move).snapshot
        plies += 1
        charged += STUDENT_PLY_COST * valued
    return judge(s, side), plies + charged


def _policy(s: Snapshot, mover: int) -> tuple[Action, int]:
    """(the playout's move, the candidates the student valued): BASIC's pick, or with
    ``PLAYOUT`` "student" ``student_move``."""
    if PLAYOUT == "student":
        return student_move(s, mover)
    return basic.choose(s, mover, choices(s, mover)).action, 0


def student_move(s: Snapshot, mover: int) -> tuple[Action, int]:
    """(the student's best of BASIC's ``CANDIDATES`` best, the candidates it valued)."""
    rated = basic.rate_all(s, mover, choices(s, mover))
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)[:CANDIDATES]
    picks = [rated[i].action for i in order]
    if len(picks) == 1:
        return picks[0], 0
    values = student.values(s, mover, picks)
    return picks[best_of(values)], len(picks)


def _mover(s: Snapshot) -> int:
    """The seat that acts next (the first partner while "may I go out?" is open)."""
    if s.turn.go_out is GoOut.ASKED:
        return s.partners(s.turn.seat)[0]
    return s.turn.seat


def judge(s: Snapshot, side: int) -> float:
    """The side's position: the fitted model's expected final margin
    (engine.bots.evaluation) when ``EVALUATION`` is "fitted", else ``hand_judge``; a
    finished deal is judged by its real totals either way."""
    if EVALUATION == "fitted":
        return fitted_margin(s, side)
    return hand_judge(s, side)


def hand_judge(s: Snapshot, side: int) -> float:
    """The side's position: its (provisional) deal total, its hands counted at
    ``HAND_WEIGHT`` and its growing melds at ``PROGRESS`` a card, minus the best other
    side's. A finished deal is judged by its real totals."""
    report = score(s, provisional=s.turn.phase is not Phase.OVER)
    values = []
    for sc in report.sides:
        value = float(sc.deal_total)
        if s.turn.phase is not Phase.OVER:
            value -= (1.0 - HAND_WEIGHT) * sc.hand_penalty
            value += _progress(s, sc.side)
        values.append(value)
    mine = values[side]
    return mine - max(v for i, v in enumerate(values) if i != side)


def _progress(s: Snapshot, side: int) -> float:
    total = 0.0
    for meld in s.sides[side].melds:
        size = len(meld.cards)
        if 3 < size < SEVEN:
            total += PROGRESS * (size - 3)
    return total

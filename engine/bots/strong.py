"""STRONG: determinized sampling with BASIC playouts, optionally with a student fitted to
a full-information teacher (docs/bots.md#strong).

Every option is a field of one frozen value, ``StrongOptions`` (engine.bots.strong_options:
``STRONG``, the level's settings, unless the caller passes another), named below by its
field. STRONG decides the draw, the discard and the answer to "may I go out?"
(``search_draw``, ``search_discard``, ``search_answer``, by BASIC's pick), and melding,
wild swaps and going out when ``search_meld``, ``search_swap`` and ``search_go_out`` say
so; the rest follow BASIC. The candidates are BASIC's ``candidates`` best rated actions of
every kind (``candidates``). With ``student`` on, each is valued by the student
(engine.bots.student, from the seat's view only), and the student's ``search_top`` best
are also searched: worlds are sampled from the view (engine.bots.worlds: each hidden hand
holds its known cards); in each, every candidate is applied and play goes on by BASIC for
every seat until the seat's next turn begins (``turns_ahead``; or the deal ends, or
``horizon`` plies), and the position is judged (``judge``: the fitted evaluation,
engine.bots.evaluation, or the hand-written ``hand_judge``). The same worlds serve every
candidate. The best sum of the student's value and ``search_weight`` times the searched
mean (less the mean of those searched) wins. With ``student`` off (the default), the best
searched mean wins, but BASIC's choice stays unless a rival beats it by ``margin`` points
on average (docs/bots.md#strong-tried).

Trials, off by default (measured: docs/bots.md#strong-options): ``infer_proposals`` draws
each world searched, by its likelihood under the student, among that many sampled ones
(engine.bots.inference: the other seats' last discards and declined draws); ``playout``
"student" plays the playouts by the student. Each candidate the student values in them is
charged ``student_ply_cost`` plies of the budget.

The budget is counted in simulated plies, so that the answer depends on the request (and
the build) alone: ``plies_per_ms()`` plies per millisecond of budget, about the running
build's speed on one core of the development machine (``plies_per_ms`` for the pure build,
``compiled_plies_per_ms`` for the compiled one), so that the search spends close to its
budget without passing it (docs/bots.md#determinism). A ply's cost grows
with the hand (on a hundred-card hand one listing takes seconds), so the search also has a
clock: it ends once it has spent ``clock_slack`` times the budget plus ``clock_floor``
seconds of its thread's CPU time, at the engine's checkpoints (engine.deadline.spending),
and answers from the worlds played whole by then (none: BASIC's choice). The clock counts
CPU time, not the wall's, so a loaded machine slows a search without cutting it; only a
search the clock cut (a very large hand) can answer differently from run to run. A search
the call's own deadline or its caller's leaving stops is not answered: the call fails.
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
from .strong_options import STRONG, StrongOptions
from .table import empties_hand
from .worlds import neutral_world, sample_world, unseen


def candidates(
    view: Snapshot, seat: int, legal: Sequence[Action] | None = None, o: StrongOptions = STRONG
) -> list[Rated]:
    """BASIC's ``o.candidates`` best rated choices of every kind (ties in the list's order):
    what STRONG weighs, and what the teacher labels (bench/teacher.py)."""
    if legal is None:
        legal = choices(neutral_world(view), seat)
    rated = basic.rate_all(view, seat, legal)
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
    return [rated[i] for i in order[: o.candidates]]


def choose(
    view: Snapshot,
    seat: int,
    legal: Sequence[Action],
    rng: random.Random,
    budget_ms: int,
    o: StrongOptions = STRONG,
) -> Rated:
    """STRONG's action: the best estimate (``estimate``) among ``candidates`` (the
    student's values replace ``o.margin``)."""
    if not o.student:
        return _choose_searched(view, seat, legal, rng, budget_ms, o)
    picks = candidates(view, seat, legal, o)
    if len(picks) == 1 or not _searched(view, seat, picks[0].action, o):
        return picks[0]  # BASIC's pick, and its reason
    estimates, worlds = estimate(view, seat, [p.action for p in picks], rng, budget_ms, o)
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
    view: Snapshot,
    seat: int,
    picks: Sequence[Action],
    rng: random.Random,
    budget_ms: int,
    o: StrongOptions = STRONG,
) -> tuple[list[float], int]:
    """(each candidate's estimate, the worlds searched), at the decisions searched
    (``_searched``: by BASIC's pick, the ``o.search_*`` switches; elsewhere all zero, so
    BASIC's pick): ``o.student_weight`` times the student's value (engine.bots.student),
    plus, for the student's ``o.search_top`` best, ``o.search_weight`` times their searched
    mean less the mean of those searched. The oracle measure
    (bench/bots_oracle.py) reads these estimates."""
    if not _searched(view, seat, picks[0], o):
        return [0.0] * len(picks), 0  # BASIC's pick
    prior = [o.student_weight * v for v in student.values(view, seat, picks)]
    if o.search_top < 2 or o.search_weight == 0.0:
        return prior, 0
    top = sorted(range(len(picks)), key=lambda i: -prior[i])[: o.search_top]
    top.sort()  # BASIC's order: the search's worlds and answers do not depend on the prior's ties
    cap = _world_cap(view, seat, picks[0], o)
    totals, worlds = search(view, seat, [picks[i] for i in top], rng, budget_ms, o, cap)
    out = list(prior)
    if worlds:
        means = [t / worlds for t in totals]
        centre = sum(means) / len(means)
        for i, m in zip(top, means, strict=True):
            out[i] += o.search_weight * (m - centre)
    return out, worlds


def _choose_searched(
    view: Snapshot,
    seat: int,
    legal: Sequence[Action],
    rng: random.Random,
    budget_ms: int,
    o: StrongOptions,
) -> Rated:
    """Issue 37's STRONG (``o.student`` off): BASIC's choice, unless a searched rival of
    the same kind beats it by ``o.margin`` on average over the sampled worlds."""
    rated = basic.rate_all(view, seat, legal)
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
    pick = rated[order[0]]
    if not _searched(view, seat, pick.action, o):
        return pick
    kind = type(pick.action)
    mixed = view.turn.phase is Phase.DRAW or not isinstance(pick.action, (Discard, AnswerGoOut))
    picks = [rated[i] for i in order if mixed or type(rated[i].action) is kind]
    picks = picks[: o.discard_candidates if kind is Discard else o.candidates]
    if len(picks) == 1:
        return pick
    cap = _world_cap(view, seat, pick.action, o)
    totals, worlds = search(view, seat, [p.action for p in picks], rng, budget_ms, o, cap)
    if not worlds:  # the clock ended the search before one world was played whole
        return pick
    best = 0
    for i in range(1, len(picks)):
        if totals[i] > totals[best]:
            best = i
    if (totals[best] - totals[0]) / worlds < o.margin:
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
    view: Snapshot,
    seat: int,
    picks: Sequence[Action],
    rng: random.Random,
    budget_ms: int,
    o: StrongOptions = STRONG,
    cap: int = 0,
) -> tuple[list[float], int]:
    """(each candidate's total over the worlds played whole, how many): worlds until the
    plies reach the budget or ``cap`` worlds (0: no cap; at least ``o.min_worlds`` either
    way), or until the clock ends the search."""
    side = view.seats[seat].side
    pool = unseen(view)
    totals = [0.0] * len(picks)
    allowance = int(budget_ms * plies_per_ms(o))
    spent = 0.0
    worlds = 0
    found = inference.clues(view, seat) if o.infer_proposals > 1 else []
    try:
        with spending(o.clock_slack * budget_ms / 1000 + o.clock_floor):
            while worlds < o.min_worlds or (spent < allowance and (not cap or worlds < cap)):
                world, valued = _draw_world(view, pool, rng, found, o)
                spent += o.student_ply_cost * valued
                values = []
                for candidate in picks:
                    value, plies = _play_out(world, candidate, seat, side, o)
                    values.append(value)
                    spent += plies
                totals = [a + b for a, b in zip(totals, values, strict=True)]
                worlds += 1
    except Interrupted:
        checkpoint()  # the call's own deadline or stop: not the search's clock
    return totals, worlds


def _draw_world(
    view: Snapshot,
    pool: list[str],
    rng: random.Random,
    found: Sequence[inference.Clue],
    o: StrongOptions = STRONG,
) -> tuple[Snapshot, int]:
    """(a world to search, the candidates the student valued to draw it): without clues,
    one sampled world; with them, one of ``o.infer_proposals`` drawn by their likelihood."""
    world = sample_world(view, pool, rng)
    if not found:
        return world, 0
    proposals = [world] + [sample_world(view, pool, rng) for _ in range(o.infer_proposals - 1)]
    how = inference.Inference(o.infer_candidates, o.infer_temperature, o.infer_declined)
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


def plies_per_ms(o: StrongOptions = STRONG) -> float:
    """The plies a millisecond of budget buys in the running build."""
    return o.compiled_plies_per_ms if CURRENT.name == "compiled" else o.plies_per_ms


def _searched(view: Snapshot, seat: int, action: Action, o: StrongOptions) -> bool:
    """The decisions STRONG searches, each by its switch: the draw (``o.search_draw``),
    the discard, the answer to "may I go out?", melding (``o.search_meld``: its candidates
    are BASIC's best plays of every kind), wild swaps and going out."""
    if view.turn.phase is Phase.DRAW:
        return o.search_draw
    if isinstance(action, AnswerGoOut):
        return o.search_answer
    if empties_hand(view, seat, action):
        return o.search_go_out
    if isinstance(action, Discard):
        return o.search_discard
    if isinstance(action, SwapWild):
        return o.search_swap
    return o.search_meld and isinstance(action, MeldCards)


def _world_cap(view: Snapshot, seat: int, action: Action, o: StrongOptions) -> int:
    """The most worlds a decision whose BASIC pick is ``action`` searches: ``o.meld_worlds``
    at a meld, a wild swap or going out (a few worlds rank them as well as many: the
    meld's worth shows in every world), no cap at the draw, the discard and the answer."""
    if view.turn.phase is Phase.DRAW or isinstance(action, AnswerGoOut):
        return 0
    if empties_hand(view, seat, action) or not isinstance(action, Discard):
        return o.meld_worlds
    return 0


def _play_out(
    world: Snapshot, action: Action, seat: int, side: int, o: StrongOptions
) -> tuple[float, float]:
    """(the judged value for ``side``, plies charged) after ``action`` in ``world``."""
    outcome = apply(world, action)
    s = outcome.snapshot
    plies = 1
    charged = 0.0
    left_turn = False
    turns = 0
    while s.turn.phase is not Phase.OVER and plies < o.horizon:
        mover = _mover(s)
        if mover == seat and left_turn and s.turn.phase is Phase.DRAW:
            turns += 1
            if turns >= o.turns_ahead:
                break
            left_turn = False
        if mover != seat:
            left_turn = True
        checkpoint()
        move, valued = _policy(s, mover, o)
        s = apply(s, move).snapshot
        plies += 1
        charged += o.student_ply_cost * valued
    return judge(s, side, o), plies + charged


def _policy(s: Snapshot, mover: int, o: StrongOptions) -> tuple[Action, int]:
    """(the playout's move, the candidates the student valued): BASIC's pick, or with
    ``o.playout`` "student" ``student_move``."""
    if o.playout == "student":
        return student_move(s, mover, o)
    return basic.choose(s, mover, choices(s, mover)).action, 0


def student_move(s: Snapshot, mover: int, o: StrongOptions = STRONG) -> tuple[Action, int]:
    """(the student's best of BASIC's ``o.candidates`` best, the candidates it valued)."""
    rated = basic.rate_all(s, mover, choices(s, mover))
    order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)[: o.candidates]
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


def judge(s: Snapshot, side: int, o: StrongOptions = STRONG) -> float:
    """The side's position: the fitted model's expected final margin
    (engine.bots.evaluation) when ``o.evaluation`` is "fitted", else ``hand_judge``; a
    finished deal is judged by its real totals either way."""
    if o.evaluation == "fitted":
        return fitted_margin(s, side)
    return hand_judge(s, side, o)


def hand_judge(s: Snapshot, side: int, o: StrongOptions = STRONG) -> float:
    """The side's position: its (provisional) deal total, its hands counted at
    ``o.hand_weight`` and its growing melds at ``o.progress`` a card, minus the best other
    side's. A finished deal is judged by its real totals."""
    report = score(s, provisional=s.turn.phase is not Phase.OVER)
    values = []
    for sc in report.sides:
        value = float(sc.deal_total)
        if s.turn.phase is not Phase.OVER:
            value -= (1.0 - o.hand_weight) * sc.hand_penalty
            value += _progress(s, sc.side, o.progress)
        values.append(value)
    mine = values[side]
    return mine - max(v for i, v in enumerate(values) if i != side)


def _progress(s: Snapshot, side: int, per_card: float) -> float:
    total = 0.0
    for meld in s.sides[side].melds:
        size = len(meld.cards)
        if 3 < size < SEVEN:
            total += per_card * (size - 3)
    return total

"""Inference from what each seat did (engine.bots.inference, docs/bots.md#strong): the
clues are the hidden seats' last discards as the pile shows them, and a world's likelihood
is the student's chance of each."""

from __future__ import annotations

import math
import random

import pytest
from builders import basic_positions, mover

from samba_adjudicator.engine.bots import basic, inference, student
from samba_adjudicator.engine.bots.worlds import sample_world, unseen
from samba_adjudicator.engine.model import Discard, Phase, Snapshot
from samba_adjudicator.engine.view import player_view


def history(profile: str, players: int, seed: str) -> list[tuple[Snapshot, dict[int, str]]]:
    """(each position of a BASIC deal, each seat's last discard since the pile was last
    taken, as the true record has it)."""
    out = []
    last: dict[int, str] = {}
    previous = None
    for s in basic_positions(profile, players, seed):
        if previous is not None:
            if len(s.discard_pile) < len(previous.discard_pile):
                last = {}  # the pile was taken
            if len(s.discard_pile) == len(previous.discard_pile) + 1:
                last[previous.turn.seat] = s.discard_pile[-1]
        out.append((s, dict(last)))
        previous = s
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_the_clues_are_the_hidden_seats_last_discards(players):
    seen = 0
    for s, last in history("classic", players, f"clues-{players}"):
        if s.turn.phase is Phase.OVER:
            continue
        seat = mover(s)
        view = player_view(s, seat)
        for clue in inference.clues(view, seat):
            assert clue.seat != seat and view.seats[clue.seat].hand_hidden
            assert view.discard_pile[-clue.back] == clue.card
            assert last.get(clue.seat) == clue.card, (s.ply, clue, last)
            assert clue.back < len(view.discard_pile)  # never the pile's bottom card
            seen += 1
    assert seen > 20


def clue_worlds(
    profile: str = "classic", players: int = 4, every: int = 7
) -> list[tuple[Snapshot, list]]:
    """(a sampled world, its view's clues) at positions with clues."""
    out = []
    rng = random.Random(5)
    for s in list(basic_positions(profile, players, "weights"))[10:200:every]:
        if s.turn.phase is Phase.OVER:
            continue
        view = player_view(s, mover(s))
        found = inference.clues(view, mover(s))
        if found:
            out.append((sample_world(view, unseen(view), rng), found))
    assert len(out) >= 4
    return out


def test_a_world_s_likelihood_is_the_student_s_chance_of_each_discard(monkeypatch):
    """Without the declined draws, a world's likelihood is the product, over its clues, of
    the softmax of the student's values (engine.bots.student.values, on the position
    before the discard) at the discard made, among BASIC's best discards."""
    how = inference.Inference(candidates=64, declined=False)  # every discard: plain ranks
    checked = 0
    for world, found in clue_worlds():
        expected = 1.0
        for clue in found:
            before = inference._before_discard(world, clue)
            assert sorted(before.seats[clue.seat].hand) == sorted(
                (*world.seats[clue.seat].hand, clue.card)
            )
            legal = [Discard(clue.seat, c) for c in sorted(set(before.seats[clue.seat].hand))]
            rated = basic.rate_all(before, clue.seat, legal)
            order = sorted(range(len(rated)), key=lambda i: -rated[i].rating)
            picks = [rated[i].action for i in order]
            picks = [a for a in picks if a in inference._discards(before, clue)]
            if len(picks) < 2:
                continue
            values = student.values(before, clue.seat, picks)
            weights = [math.exp(v / how.temperature) for v in values]
            expected *= weights[picks.index(Discard(clue.seat, clue.card))] / sum(weights)
            checked += 1
        got, _ = inference.likelihood(world, found, how)
        assert got == pytest.approx(expected, rel=1e-6)
    assert checked >= 4


def test_an_indifferent_student_makes_every_choice_alike():
    """At a very high temperature each choice is as likely as another: a clue's chance is
    one over the candidates valued (``INFER_CANDIDATES`` of BASIC's best, and the one made
    when it is not among them)."""
    how = inference.Inference(temperature=1e12, declined=False)
    for world, found in clue_worlds():
        for clue in found:
            got, n = inference.likelihood(world, [clue], how)
            assert n <= how.candidates + 1
            assert got == pytest.approx(1.0 / n if n else 1.0, rel=1e-6)


def test_the_declined_draw_counts():
    """With the declined draws, a clue whose seat could have taken the pile weighs the
    world by one more chance: the likelihood changes where a take was open."""
    changed = 0
    for world, found in clue_worlds("classic", 4, 2) + clue_worlds("canasta", 4, 2):
        with_draws, n_with = inference.likelihood(world, found, inference.Inference())
        without, n_without = inference.likelihood(world, found, inference.Inference(declined=False))
        assert 0.0 < with_draws <= 1.0 and 0.0 < without <= 1.0
        assert n_with >= n_without
        changed += n_with > n_without
        assert (n_with > n_without) or with_draws == without
    assert changed >= 1

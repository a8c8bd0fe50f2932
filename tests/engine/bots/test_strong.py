"""STRONG's options (engine.bots.strong, docs/bots.md#strong): the search of every kind of
decision, the worlds drawn by inference, the student as the playouts' policy; each
charged to the budget, each legal, each deterministic."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest
from builders import basic_positions, mover

from samba_adjudicator.engine import validate
from samba_adjudicator.engine.bots import Level, basic, inference, strong, suggest
from samba_adjudicator.engine.bots.draws import choices
from samba_adjudicator.engine.bots.strong_options import STRONG
from samba_adjudicator.engine.bots.table import empties_hand
from samba_adjudicator.engine.bots.worlds import neutral_world, sample_world, unseen
from samba_adjudicator.engine.model import Action, Discard, MeldCards, Phase, Snapshot, SwapWild
from samba_adjudicator.engine.view import player_view

#: Every option on (STRONG's settings, as `--set` makes them in the benches).
EVERY_OPTION = replace(
    STRONG,
    student=True,
    search_meld=True,
    search_go_out=True,
    search_swap=True,
    infer_proposals=3,
    playout="student",
)


def views(profiles=("classic", "canasta"), players=(2, 4), seeds=3) -> Iterator[tuple]:
    """(view, seat, BASIC's candidates) at BASIC self-play positions with two or more."""
    for profile in profiles:
        for n in players:
            for i in range(seeds):
                for s in basic_positions(profile, n, f"strong-{i}"):
                    if s.turn.phase is Phase.OVER:
                        continue
                    seat = mover(s)
                    view = player_view(s, seat)
                    picks = [r.action for r in strong.candidates(view, seat)]
                    if len(picks) >= 2:
                        yield view, seat, picks


def kind(view: Snapshot, seat: int, action: Action) -> str:
    if view.turn.phase is Phase.PLAY and empties_hand(view, seat, action):
        return "go out"
    if isinstance(action, SwapWild):
        return "swap"
    if isinstance(action, MeldCards):
        return "meld"
    return "other"


def first_of_each_kind() -> dict[str, tuple]:
    found: dict[str, tuple] = {}
    for view, seat, picks in views():
        k = kind(view, seat, picks[0])
        if k != "other" and k not in found:
            found[k] = (view, seat, picks)
        if len(found) == 3:
            break
    return found


def test_with_the_switches_melds_swaps_and_going_out_are_searched():
    """BASIC's pick a meld, a wild swap or going out: with its ``search_*`` switch off,
    STRONG's estimate is BASIC's (no world searched); on, its candidates are searched."""
    found = first_of_each_kind()
    assert set(found) == {"meld", "swap", "go out"}
    for name, (view, seat, picks) in found.items():
        switch = {"meld": "search_meld", "swap": "search_swap", "go out": "search_go_out"}[name]
        off = replace(STRONG, student=True, **{switch: False})
        on = replace(STRONG, student=True, **{switch: True})
        assert strong.estimate(view, seat, picks, random.Random(1), 1, off) == (
            [0.0] * len(picks),
            0,
        ), name
        values, worlds_on = strong.estimate(view, seat, picks, random.Random(1), 1, on)
        assert worlds_on >= on.min_worlds and any(values), name
        legal = choices(neutral_world(view), seat)
        chosen = strong.choose(view, seat, legal, random.Random(1), 1, on)
        assert chosen.reason.code == "SEARCHED" and chosen.action in picks


def clue_view() -> tuple[Snapshot, int, list[Action], list[inference.Clue]]:
    for view, seat, picks in views(("classic",), (4,), 1):
        found = inference.clues(view, seat)
        if len(found) >= 2 and view.turn.phase is Phase.PLAY:
            return view, seat, picks, found
    raise AssertionError("no position with clues")


def test_the_world_searched_is_drawn_by_its_likelihood():
    """With ``infer_proposals`` worlds sampled, the one searched is drawn among them in
    proportion to its likelihood (engine.bots.inference); with one, it is the sample."""
    view, seat, _, found = clue_view()
    pool = unseen(view)
    four = replace(STRONG, infer_proposals=4)
    differs = 0
    for k in range(12):
        mine, twin = random.Random(k), random.Random(k)
        proposals = [sample_world(view, pool, twin) for _ in range(4)]
        weights = [inference.likelihood(w, found, inference.Inference())[0] for w in proposals]
        x = twin.random() * sum(weights)
        expected = next(
            (w for w, p in zip(proposals, weights, strict=True) if (x := x - p) < 0),
            proposals[-1],
        )
        world, valued = strong._draw_world(view, pool, mine, found, four)
        assert world == expected and valued > 0
        differs += world != proposals[0]
    assert differs, "the likelihood changed some draw"
    plain = sample_world(view, pool, random.Random(3))
    assert strong._draw_world(view, pool, random.Random(3), [], STRONG)[0] == plain


def test_inference_and_student_playouts_are_charged_to_the_budget():
    """The student's valuations cost plies (``student_ply_cost`` a candidate): at the same
    budget, a search that pays for them weighs fewer worlds."""
    view, seat, picks, _ = clue_view()
    dear = replace(STRONG, student_ply_cost=1000.0)

    def worlds(o) -> int:
        return strong.search(view, seat, picks, random.Random(2), 400, o)[1]

    plain = worlds(dear)
    assert plain > STRONG.min_worlds
    assert worlds(replace(dear, infer_proposals=4)) == STRONG.min_worlds
    assert worlds(replace(dear, playout="student")) == STRONG.min_worlds
    assert worlds(replace(dear, student_ply_cost=0.0)) == plain


def test_the_student_playout_plays_the_student_s_best_of_basic_s_best():
    seen = 0
    for view, seat, _ in views(("classic",), (2,), 1):
        world = neutral_world(view)
        move, valued = strong.student_move(world, seat)
        legal = choices(world, seat)
        rated = basic.rate_all(world, seat, legal)
        best = sorted(range(len(rated)), key=lambda i: -rated[i].rating)[: STRONG.candidates]
        assert move in [rated[i].action for i in best]
        assert validate(world, move) == []
        assert valued == min(len(legal), STRONG.candidates)
        seen += 1
    assert seen > 20
    view, seat, picks, _ = clue_view()
    free = replace(STRONG, student_ply_cost=0.0)
    by_basic = strong.search(view, seat, picks, random.Random(4), 1, free)
    by_student = strong.search(
        view, seat, picks, random.Random(4), 1, replace(free, playout="student")
    )
    assert by_basic[1] == by_student[1] == STRONG.min_worlds
    assert by_basic[0] != by_student[0], "the playouts follow the student"


@pytest.mark.parametrize("spec,players", [("classic", 2), ("canasta", 4)])
def test_every_option_on_plays_legal_and_deterministic_deals(spec, players):
    """STRONG with every option on, asked at every third position of a deal BASIC plays:
    every suggestion legal, the view answered as the full snapshot (the same seed)."""
    searched = 0
    for n, s in enumerate(basic_positions(spec, players, f"every-{spec}")):
        if s.turn.phase is Phase.OVER or n % 3:
            continue
        seat = mover(s)
        got = suggest(s, seat, Level.STRONG, "every", 1, EVERY_OPTION)
        assert validate(s, got.action) == [], (s.ply, got)
        if n % 9 == 0:
            again = suggest(player_view(s, seat), seat, Level.STRONG, "every", 1, EVERY_OPTION)
            assert (again.action, again.reason) == (got.action, got.reason)
        searched += got.reason.code == "SEARCHED"
    assert searched > 5


def test_the_level_searches_melds_swaps_and_going_out_without_the_student():
    """Issue 57: STRONG's own settings search a meld, a wild swap and going out (the student
    off), where BASIC's pick used to stand: each answered SEARCHED among BASIC's best."""
    assert not STRONG.student
    for name, (view, seat, picks) in first_of_each_kind().items():
        got = suggest(view, seat, Level.STRONG, "melds", 1)
        assert got.reason.code == "SEARCHED", name
        assert got.action in picks, name


def test_a_meld_searches_at_most_meld_worlds_and_a_discard_the_budget_s():
    """At a meld, a swap or going out the worlds stop at ``meld_worlds`` (8) however large
    the budget; uncapped (0), the same budget plays more; a discard is never capped."""
    big = 400
    legal_of = {}
    for name, (view, seat, _) in first_of_each_kind().items():
        legal_of[name] = choices(neutral_world(view), seat)
        capped = strong.choose(view, seat, legal_of[name], random.Random(5), big)
        free = strong.choose(
            view, seat, legal_of[name], random.Random(5), big, replace(STRONG, meld_worlds=0)
        )
        assert capped.reason.params["worlds"] == str(STRONG.meld_worlds), name
        assert int(free.reason.params["worlds"]) > STRONG.meld_worlds, name
    for view, seat, picks in views(("classic",), (2,), 1):
        if isinstance(picks[0], Discard) and not empties_hand(view, seat, picks[0]):
            got = strong.choose(
                view, seat, choices(neutral_world(view), seat), random.Random(5), big
            )
            if got.reason.code == "SEARCHED":
                assert int(got.reason.params["worlds"]) > STRONG.meld_worlds
                return
    raise AssertionError("no searched discard")

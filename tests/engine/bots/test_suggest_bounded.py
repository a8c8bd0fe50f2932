"""Computer players whose cost does not grow with the hand (issue 34, docs/bots.md): at a
draw the levels weigh a few choices instead of every way to take the pile, STRONG's search
has a clock, and every loop looks at the call's deadline and stop often."""

from __future__ import annotations

import gc
import threading
import time

import pytest
from google.protobuf import json_format
from huge_positions import huge_draw, huge_hand
from test_playouts import SPECS
from test_suggest import mover

from samba_adjudicator.engine import apply, deal, legal_actions, resolve, validate
from samba_adjudicator.engine.bots import Level, basic, suggest
from samba_adjudicator.engine.bots.draws import TAKES, draw_choices
from samba_adjudicator.engine.bots.strong_options import STRONG
from samba_adjudicator.engine.bots.worlds import neutral_world
from samba_adjudicator.engine.deadline import Interrupted, Stop, within
from samba_adjudicator.engine.model import GoOut, Phase, Snapshot
from samba_adjudicator.engine.view import player_view
from samba_adjudicator.service.base import pb
from samba_adjudicator.service.codec import convert


def _snapshot(doc: dict) -> Snapshot:
    msg = json_format.ParseDict(doc, pb.Snapshot())
    snap = convert.snapshot_from_proto(msg, "snapshot", [])
    assert snap is not None
    return snap


@pytest.fixture(scope="module")
def draw103() -> Snapshot:
    return _snapshot(huge_draw())


@pytest.fixture(scope="module")
def hand150() -> Snapshot:
    return _snapshot(huge_hand(150))


def _cpu(work) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def test_the_draw_choices_are_few_and_legal(draw103):
    """The 103-card draw has 64,885 legal takes; the levels weigh at most a handful, each
    legal, the cheapest take (no wild, four naturals) among them."""
    few = draw_choices(draw103, 0)
    assert len(few) <= 1 + TAKES
    assert all(validate(draw103, a) == [] for a in few)
    kinds = {type(a).__name__ for a in few}
    assert kinds == {"DrawStock", "TakePile"}
    assert min(len(a.hand_cards) for a in few if type(a).__name__ == "TakePile") == 4


@pytest.mark.parametrize("level", [Level.RANDOM, Level.BASIC])
def test_random_and_basic_answer_the_huge_draw_at_once(draw103, level):
    """Listing every take costs 5 s of CPU (pure build; 1-2 s compiled): a choice among
    the few takes a fraction of it (7 ms measured, pure)."""
    got = None

    def work():
        nonlocal got
        got = suggest(draw103, 0, level, "huge")

    assert _cpu(work) < 0.5  # generous: a loaded machine, the pure build
    assert got is not None and validate(draw103, got.action) == []


def test_basic_draws_as_it_did_from_the_whole_list():
    """BASIC's draw from the few choices is the one it made from the whole legal list, at
    every draw of whole played deals (765 draws measured, every profile: no difference)."""
    compared = 0
    for spec, players in SPECS[::3]:
        s = deal(resolve(spec), players, f"draws-{spec}")
        while s.turn.phase is not Phase.OVER and s.ply < 300:
            seat = mover(s)
            if s.turn.phase is Phase.DRAW and s.turn.go_out is not GoOut.ASKED:
                world = neutral_world(player_view(s, seat))
                full, _ = legal_actions(world, seat)
                few = draw_choices(world, seat)
                assert set(few) <= set(full)
                want = basic.choose(world, seat, full).action
                assert basic.choose(world, seat, few).action == want, (spec, s.ply)
                compared += 1
            s = apply(s, suggest(s, seat, Level.BASIC, "d").action).snapshot
    assert compared > 50


@pytest.mark.parametrize("budget", [200, 2000])
def test_strong_answers_the_largest_positions_within_its_budget(draw103, hand150, budget):
    """STRONG on the 103-card draw (once thousands of seconds) and the 150-card hand: a
    legal answer within the search's clock (2 x budget + 0.5 s of CPU time) plus the
    listing, with a generous factor; counted in the thread's CPU time, as the clock is."""
    bound = 3 * (STRONG.clock_slack * budget / 1000 + STRONG.clock_floor) + 3
    for snap in (draw103, hand150):
        started = time.thread_time()
        got = suggest(snap, 0, Level.STRONG, "huge", budget)
        assert time.thread_time() - started < bound
        assert validate(snap, got.action) == []


def _longest_stretch(monkeypatch, work) -> tuple[float, int]:
    """The most CPU ``work`` spends between two looks at the clock (checkpoints), and
    how many looks (tests/test_deadlines.py does the same for the listing)."""
    looks: list[float] = []
    real = time.monotonic

    def watched() -> float:
        looks.append(time.process_time())
        return real()

    gc.collect()
    gc.disable()
    try:
        monkeypatch.setattr(time, "monotonic", watched)
        start = time.process_time()
        with within(real() + 600):
            work()
        end = time.process_time()
        monkeypatch.setattr(time, "monotonic", real)
    finally:
        gc.enable()
    times = [start, *looks, end]
    return max(b - a for a, b in zip(times[:-1], times[1:], strict=True)), len(looks)


@pytest.mark.parametrize("level", list(Level))
def test_every_level_looks_at_the_deadline_often(monkeypatch, draw103, hand150, level):
    """A stop comes within 100 ms: no stretch between two checkpoints takes that much CPU
    (23 ms at most measured, pure build; the sort of a 45,000-action list is the longest)."""
    for snap in (draw103, hand150):
        longest, looks = _longest_stretch(
            monkeypatch, lambda snap=snap: suggest(snap, 0, level, "looks", 200)
        )
        assert looks >= 1
        assert longest < 0.1, (level, longest)


def test_a_stop_set_from_another_thread_ends_a_strong_search(draw103):
    stop = Stop()
    threading.Timer(0.3, stop.set).start()
    started = time.monotonic()
    with pytest.raises(Interrupted):
        with within(None, stop):
            suggest(draw103, 0, Level.STRONG, "stopped", 2000)
    assert time.monotonic() - started < 0.3 + 1.0  # generous: a loaded machine

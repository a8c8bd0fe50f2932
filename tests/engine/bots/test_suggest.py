"""Computer players (engine.bots, docs/bots.md): every suggestion is legal, deterministic,
blind to the hidden cards, and each level does what docs/bots.md says it does."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from builders import make_snapshot
from test_playouts import SPECS

from samba_adjudicator.engine import apply, deal, legal_actions, player_view, resolve, validate
from samba_adjudicator.engine.bots import MAX_BUDGET_MS, Level, suggest
from samba_adjudicator.engine.bots import strong as strong_bot
from samba_adjudicator.engine.bots.strong_options import STRONG
from samba_adjudicator.engine.deadline import Interrupted, within
from samba_adjudicator.engine.model import (
    AnswerGoOut,
    AskGoOut,
    Discard,
    DrawStock,
    GoOut,
    InvalidInput,
    MeldCards,
    Phase,
    Snapshot,
    TakePile,
)

# every profile and variation at every table size, as the playouts play them
MAX_PLIES = 600
#: STRONG's smallest budget: the fewest worlds (STRONG.min_worlds), to keep tests short.
TINY = 1
#: this folder and tests/ (the shared helpers), for the script run in another process
HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]


def mover(s: Snapshot) -> int:
    return s.partners(s.turn.seat)[0] if s.turn.go_out is GoOut.ASKED else s.turn.seat


def play_deal(spec: str, players: int, seed: str, levels, strong_every: int = 0):
    """A whole deal played by the bots (``levels[side]``), every suggestion checked legal
    against the full snapshot; every ``strong_every``-th decision is also asked of STRONG
    (checked, not played). Returns (final snapshot, suggestions)."""
    s = deal(resolve(spec), players, seed)
    made = []
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        seat = mover(s)
        level = levels[s.seats[seat].side]
        got = suggest(s, seat, level, seed)
        assert validate(s, got.action) == [], (spec, players, s.ply, got)
        assert got.action.seat == seat and got.reason.code and got.reason.message
        made.append(got)
        if strong_every and len(made) % strong_every == 0:
            deep = suggest(s, seat, Level.STRONG, seed, TINY)
            assert validate(s, deep.action) == [], (spec, players, s.ply, deep)
        outcome = apply(s, got.action)
        assert outcome.legal
        s = outcome.snapshot
    return s, made


@pytest.mark.parametrize("spec,players", SPECS)
def test_every_suggestion_is_legal_over_whole_deals(spec, players):
    sides = resolve(spec).sides_for(players)
    levels = [Level.BASIC if k % 2 == 0 else Level.RANDOM for k in range(sides)]
    s, made = play_deal(spec, players, f"legal-{spec}-{players}", levels, strong_every=25)
    assert s.turn.phase is Phase.OVER, "the bots finish the deal"
    assert {m.reason.code for m in made} - {"ONLY_ACTION", "RANDOM"}, "BASIC decided something"


def test_bots_answer_a_partners_question():
    """RANDOM asks "may I go out?" now and then; the partner's bot (BASIC) answers."""
    answered = []
    for n in range(6):
        s = deal(resolve("classic"), 4, f"ask-{n}")
        while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
            seat = mover(s)
            if s.turn.go_out is GoOut.ASKED:
                got = suggest(s, seat, Level.BASIC, "a")
                assert isinstance(got.action, AnswerGoOut) and got.action.seat == seat
                assert validate(s, got.action) == []
                answered.append(got)
            else:
                got = suggest(s, seat, Level.RANDOM, f"a{n}")
            s = apply(s, got.action).snapshot
        if len(answered) >= 2:
            break
    assert answered, "some deal asked the question"
    assert {a.reason.code for a in answered} == {"ANSWER_GO_OUT"}


def positions(spec="classic", players=2, seed="pos", every=9):
    """Positions of a deal played by BASIC, one every ``every`` plies."""
    s = deal(resolve(spec), players, seed)
    out = []
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        if s.ply % every == 0:
            out.append(s)
        s = apply(s, suggest(s, mover(s), Level.BASIC, seed).action).snapshot
    return out


def rearranged(s: Snapshot, seat: int, rng: random.Random) -> Snapshot:
    """The same position with every card ``seat`` cannot see dealt anew: the other hands
    and the stock shuffled together, each keeping its size."""
    hidden = [c for x in s.seats if x.seat != seat for c in x.hand] + list(s.stock)
    rng.shuffle(hidden)
    seats = []
    for x in s.seats:
        if x.seat == seat:
            seats.append(x)
        else:
            seats.append(replace(x, hand=tuple(hidden[: len(x.hand)]), dealt=()))
            hidden = hidden[len(x.hand) :]
    return replace(s, seats=tuple(seats), stock=tuple(hidden))


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("spec,players", [("classic", 2), ("pagat", 4), ("spanish", 4)])
def test_the_answer_is_the_same_whatever_the_hidden_cards(level, spec, players):
    rng = random.Random(7)
    checked = 0
    for s in positions(spec, players, f"hide-{spec}", every=23)[:5]:
        seat = mover(s)
        first = suggest(s, seat, level, "h", TINY)
        for _ in range(3):
            other = rearranged(s, seat, rng)
            assert Counter(c for x in other.seats for c in x.hand) + Counter(other.stock) == (
                Counter(c for x in s.seats for c in x.hand) + Counter(s.stock)
            )
            if other.seats != s.seats or other.stock != s.stock:
                checked += 1
            assert suggest(other, seat, level, "h", TINY) == first
    assert checked, "some arrangement differed"


def test_a_view_gives_the_same_answer_as_the_full_snapshot():
    from samba_adjudicator.engine import player_view

    for s in positions("classic", 4, "view", every=17)[:4]:
        seat = mover(s)
        for level in Level:
            assert suggest(player_view(s, seat), seat, level, "v", TINY) == suggest(
                s, seat, level, "v", TINY
            )


def _answer(s: Snapshot, seat: int, level: Level):
    """suggest's answer, or the problems it refuses with."""
    try:
        return suggest(s, seat, level, "every", TINY)
    except InvalidInput as bad:
        return sorted((p.field, p.reason) for p in bad.problems)


@pytest.mark.parametrize("spec,players", SPECS)
def test_every_seats_view_at_every_ply_gets_the_full_snapshots_answer(spec, players):
    """As a table asks: at every ply of a whole deal, each seat asks with the view it holds
    (``player_view``), whether or not it is the one to act: the mover's view gets the
    full snapshot's suggestion (BASIC and RANDOM at every ply, STRONG every 29th), and any
    other seat the full snapshot's refusal."""
    s = deal(resolve(spec), players, f"views-{spec}-{players}")
    asked = refused = 0
    while s.turn.phase is not Phase.OVER and s.ply < MAX_PLIES:
        acting = mover(s)
        for seat in range(players):
            view = player_view(s, seat)
            levels = [Level.BASIC, Level.RANDOM] if seat == acting else [Level.BASIC]
            if seat == acting and s.ply % 29 == 0:
                levels.append(Level.STRONG)
            for level in levels:
                got = _answer(view, seat, level)
                assert got == _answer(s, seat, level), (spec, players, s.ply, seat, level)
                asked += seat == acting
                refused += seat != acting
        s = apply(s, suggest(s, acting, Level.BASIC, "every").action).snapshot
    assert asked > 50 and refused > 50, (asked, refused)


@pytest.mark.parametrize("level", list(Level))
def test_same_request_same_seed_same_action(level):
    for s in positions("classic", 2, "det", every=31)[:4]:
        seat = mover(s)
        assert suggest(s, seat, level, "seed-1", 5) == suggest(s, seat, level, "seed-1", 5)


DETERMINISM_SCRIPT = f"""
import json, sys
sys.path[:0] = [{str(HERE)!r}, {str(TESTS)!r}]
from test_suggest import positions, mover
from samba_adjudicator.engine.bots import Level, suggest
out = []
for s in positions("pagat", 4, "proc", every=29)[:4]:
    for level in Level:
        got = suggest(s, mover(s), level, "p", 5)
        out.append([repr(got.action), got.reason.code, got.reason.message])
print(json.dumps(out))
"""


def test_the_same_in_another_process_with_another_hash_seed():
    """Nothing depends on the process: string hashing (set order) changes per process."""
    answers = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", DETERMINISM_SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        answers.append(json.loads(done.stdout))
    assert answers[0] == answers[1] and len(answers[0]) >= 2 * len(Level)


def test_random_is_uniform_over_the_legal_list():
    s = next(
        p for p in positions("classic", 2, "uni", every=5) if 3 <= len(legal_actions(p)[0]) <= 8
    )
    seat = mover(s)
    legal, _ = legal_actions(s, seat)
    picks = Counter(
        repr(suggest(s, seat, Level.RANDOM, f"u{i}").action) for i in range(60 * len(legal))
    )
    assert set(picks) == {repr(a) for a in legal}, "every legal action comes up"
    assert max(picks.values()) < 3 * min(picks.values())


# -- BASIC's rules of thumb (docs/bots.md#basic) -------------------------------------------


def test_basic_takes_a_rich_pile():
    s = make_snapshot(
        "classic",
        2,
        hands={0: "9H 9D 4C 5C 6H JD QS KH", 1: "4H 4D 5S 6S 7S 8S 10C JC"},
        melds={0: ["7H 7D 7C"], 1: ["KS KD KC"]},
        discard="5H 6D 8C 10H 9C",
        phase=Phase.DRAW,
    )
    got = suggest(s, 0, Level.BASIC)
    assert isinstance(got.action, TakePile) and got.reason.code == "TAKE_PILE"


def test_basic_draws_from_the_stock_for_a_poor_pile():
    s = make_snapshot(
        "classic",
        2,
        hands={0: "9H 9D 4C 5C 6H JD QS KH", 1: "4H 4D 5S 6S 7S 8S 10C JC"},
        melds={0: ["7H 7D 7C"], 1: ["KS KD KC"]},
        discard="9C",
        phase=Phase.DRAW,
    )
    got = suggest(s, 0, Level.BASIC)
    assert isinstance(got.action, DrawStock) and got.reason.code == "DRAW_STOCK"


def test_basic_completes_a_canasta_first():
    s = make_snapshot(
        "classic",
        2,
        hands={0: "7S 4C 5C 9H JD QS KH", 1: "4H 4D 5S 6S 7C 8S 10C JC"},
        melds={0: ["7H 7D 7C 7H 7D 7S"], 1: ["KS KD KC"]},
        discard="9C",
    )
    got = suggest(s, 0, Level.BASIC)
    assert isinstance(got.action, MeldCards) and got.reason.code == "COMPLETE_SEVEN"
    assert got.action.additions and got.action.additions[0].cards == ("7S",)


def test_basic_does_not_discard_what_the_next_side_can_take():
    # Seat 1's side melds queens and jacks: those discards would let it take the pile.
    s = make_snapshot(
        "classic",
        2,
        hands={0: "QH JD 9C", 1: "4H 4D 5S 6S 7C 8S 10C"},
        melds={0: ["7H 7D 7C"], 1: ["QS QD QC", "JS JH JC"]},
        discard="5D",
    )
    got = suggest(s, 0, Level.BASIC)
    assert got.action == Discard(0, "9C") and got.reason.code == "SAFE_DISCARD"


@pytest.mark.parametrize("ahead", [True, False])
def test_basic_lets_the_partner_go_out_only_when_ahead(ahead):
    big, small = ["KS KD KC KH KS KD KC"], ["5S 5D 5C"]
    s = make_snapshot(
        "classic",
        4,
        hands={0: "9C 9D", 1: "4H 4D 5S", 2: "8C 8D 10S", 3: "6H 6D 6S"},
        melds={0: big if ahead else small, 1: small if ahead else big},
        discard="4C",
        go_out=GoOut.ASKED,
    )
    got = suggest(s, 2, Level.BASIC)
    assert got.action == AnswerGoOut(2, ahead) and got.reason.code == "ANSWER_GO_OUT"


def test_basic_never_asks_while_it_has_something_else_to_do():
    for s in positions("classic", 4, "never-ask", every=3):
        got = suggest(s, mover(s), Level.BASIC)
        assert not isinstance(got.action, AskGoOut) or got.reason.code == "ONLY_ACTION"


# -- STRONG and its budget (docs/bots.md#strong) -----------------------------------------


def worlds_searched(reason_message: str) -> int:
    return int(reason_message.split(" over ")[1].split()[0])


def test_strong_searches_more_worlds_with_more_budget():
    s = next(
        p
        for p in positions("classic", 2, "budget", every=7)
        if p.turn.phase is Phase.PLAY and len(legal_actions(p)[0]) > 3
    )
    seat = mover(s)
    small = suggest(s, seat, Level.STRONG, "b", TINY)
    large = suggest(s, seat, Level.STRONG, "b", 150)
    assert small.reason.code == large.reason.code == "SEARCHED"
    assert worlds_searched(small.reason.message) == STRONG.min_worlds
    assert worlds_searched(large.reason.message) > worlds_searched(small.reason.message)
    assert validate(s, large.action) == []


def test_a_loaded_machine_does_not_cut_strongs_search(monkeypatch):
    """The search's clock counts its thread's CPU time (docs/bots.md#determinism): a wall
    clock that jumps five seconds after the search began, as on a machine too loaded to run
    it, changes neither the worlds weighed nor the answer, within a call's own deadline."""
    s = next(
        p
        for p in positions("classic", 2, "budget", every=7)
        if p.turn.phase is Phase.PLAY and len(legal_actions(p)[0]) > 3
    )
    seat = mover(s)
    quiet = suggest(s, seat, Level.STRONG, "load", 150)
    real = time.monotonic
    started = real()
    monkeypatch.setattr(time, "monotonic", lambda: real() + (5.0 if real() > started else 0.0))
    with within(started + 600):
        loaded = suggest(s, seat, Level.STRONG, "load", 150)
    assert quiet.reason.code == "SEARCHED"
    assert worlds_searched(quiet.reason.message) > STRONG.min_worlds
    assert (loaded.action, loaded.reason.message) == (quiet.action, quiet.reason.message)


def test_the_budget_buys_the_running_build_s_plies():
    """The compiled build plays more plies per millisecond of budget (about its speed), so
    it spends close to its budget; each build answers the same request the same way."""
    from samba_adjudicator.engine.build import CURRENT

    compiled = CURRENT.name == "compiled"
    expected = STRONG.compiled_plies_per_ms if compiled else STRONG.plies_per_ms
    assert strong_bot.plies_per_ms() == expected
    assert STRONG.compiled_plies_per_ms > STRONG.plies_per_ms


def test_budget_default_and_cap():
    from samba_adjudicator.engine.bots.suggest import search_budget

    assert search_budget(0) == 200
    assert search_budget(50) == 50
    assert search_budget(MAX_BUDGET_MS + 1) == MAX_BUDGET_MS == 2000


def test_strong_stops_at_the_deadline():
    s = next(p for p in positions("classic", 2, "late", every=7) if len(legal_actions(p)[0]) > 3)
    with within(time.monotonic() + 0.05), pytest.raises(Interrupted):
        suggest(s, mover(s), Level.STRONG, "d", MAX_BUDGET_MS)


# -- refusals ----------------------------------------------------------------------------


def test_bad_requests_list_every_problem():
    s = deal(resolve("classic"), 2, "bad")
    with pytest.raises(InvalidInput) as bad:
        suggest(s, 5, Level.BASIC, "", -1)
    assert {(p.field, p.reason) for p in bad.value.problems} == {
        ("seat", "OUT_OF_RANGE"),
        ("budgetMs", "OUT_OF_RANGE"),
    }
    with pytest.raises(InvalidInput) as bad:
        suggest(s, (s.turn.seat + 1) % 2, Level.BASIC)
    assert [(p.field, p.reason) for p in bad.value.problems] == [("seat", "NOT_AWAITED")]
    over = replace(s, turn=replace(s.turn, phase=Phase.OVER))
    with pytest.raises(InvalidInput) as bad:
        suggest(over, 0, Level.BASIC)
    assert [(p.field, p.reason) for p in bad.value.problems] == [
        ("snapshot.turn.phase", "DEAL_OVER")
    ]

"""Output-only facts (docs/api.md#resources): meld status/natural, pile, awaiting seats, opening."""

from __future__ import annotations

from builders import make_meld, make_snapshot

from samba_adjudicator.engine.derived import awaiting_seats, initial_meld_requirement, pile_state
from samba_adjudicator.engine.model import EndReason, GoOut, MeldStatus, Phase, Result
from samba_adjudicator.engine.vocabulary import is_natural, meld_status


def test_meld_status_and_natural():
    cases = [
        ("5H 6H 7H", MeldStatus.INCOMPLETE, True),
        ("8S 9S 10S JS QS KS AS", MeldStatus.SAMBA, True),
        ("KH KS KD KC KH KS KD", MeldStatus.CANASTA, True),
        ("QH QS QD QC QH 2S JK", MeldStatus.CANASTA, False),
        ("JK JK JK JK 2H 2S 2D", MeldStatus.CLOSED, False),
        ("9H 9S 2D", MeldStatus.INCOMPLETE, False),
    ]
    for spec, status, natural in cases:
        meld = make_meld(spec, "m1", 0)
        assert meld_status(meld) is status, spec
        assert is_natural(meld.cards) is natural, spec


def test_pile_state():
    snap = make_snapshot("classic", discard="2C 9H")
    assert pile_state(snap) == ("9H", 2, False, (0, 1))  # a wild freezes the classic pile
    snap = make_snapshot("classic", discard="9H 3S")
    assert pile_state(snap) == ("3S", 2, True, (0, 1))
    snap = make_snapshot("pagat", discard="9H")
    assert pile_state(snap) == ("9H", 1, False, ())
    snap = make_snapshot("canasta", discard="9H", melds={1: ["5H 5S 5D"]})
    assert pile_state(snap) == ("9H", 1, False, (0,))  # frozen until the side opens
    assert pile_state(make_snapshot("classic")) == (None, 0, False, ())


def test_awaiting_seats():
    assert awaiting_seats(make_snapshot(turn_seat=1, phase=Phase.DRAW)) == (1,)
    assert awaiting_seats(make_snapshot(turn_seat=1, go_out=GoOut.ASKED)) == (3,)
    assert awaiting_seats(make_snapshot("classic", 6, turn_seat=2, go_out=GoOut.ASKED)) == (5,)
    assert awaiting_seats(make_snapshot(turn_seat=1, go_out=GoOut.DENIED)) == (1,)
    over = make_snapshot(phase=Phase.OVER, result=Result(EndReason.STOCK_EXHAUSTED))
    assert awaiting_seats(over) == ()


def test_initial_meld_requirement():
    snap = make_snapshot("classic", match_scores=(1499, 7000))
    rules = snap.ruleset
    assert [initial_meld_requirement(rules, s) for s in snap.sides] == [50, 150]
    snap = make_snapshot("pagat", match_scores=(-10, 3000))
    assert [initial_meld_requirement(snap.ruleset, s) for s in snap.sides] == [15, 120]

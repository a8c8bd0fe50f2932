"""Final positions made by the engine itself (never written by hand): a seat goes out, in the
profile asked, concealed or not, from its dealt hand or not, adding to its partner's meld or
not. The tests of docs/rules.md#snapshot-fields change one figure of such a position and
expect the service to notice.
"""

from __future__ import annotations

import random
from dataclasses import replace

from builders import make_snapshot
from rules_support import KINGS7, QUEENS7

from samba_adjudicator.engine import apply, deal, legal_actions
from samba_adjudicator.engine.model import (
    Addition,
    AnswerGoOut,
    AskGoOut,
    Discard,
    MeldCards,
    Phase,
    RulesetRef,
    Snapshot,
)
from samba_adjudicator.engine.ruleset import resolve

NINES = "9H 9S 9D 9C 9H 9S 9D"
OTHER_DEALT = "4H 4S 5H 6H 7H 8H 10H JH QH 4D 5D 6D 7D 8D 10D"


def went_out(
    profile: str = "spanish",
    *,
    concealed: bool = True,
    from_dealt: bool = True,
    with_partner: bool = False,
    overrides: dict | None = None,
) -> Snapshot:
    """Seat 0 of four melds seven nines (adding a king to its partner's canasta when
    ``with_partner``) and discards its last card; its partner (seat 2) laid two canastas."""
    hand = NINES + (" KC 5C" if with_partner else " 5C")
    snap = make_snapshot(
        profile,
        4,
        overrides=overrides,
        hands={0: hand},
        dealt={0: hand if from_dealt else OTHER_DEALT},
        melds={0: [(KINGS7, 2), (QUEENS7, 2)]},
        has_melded=[2] if concealed else [0, 2],
    )
    adds = (Addition("m1", ("KC",)),) if with_partner else ()
    melded = apply(snap, MeldCards(0, new_melds=(tuple(NINES.split()),), additions=adds))
    assert melded.legal, melded.violations
    out = apply(melded.snapshot, Discard(0, "5C"))
    assert out.legal and out.snapshot.turn.phase is Phase.OVER, out.violations
    return out.snapshot


def played(spec: str, players: int, seed: str, plies: int) -> list[Snapshot]:
    """The positions of a deal played by random legal actions (melds and takes preferred,
    so tables fill), every fifth ply and the last one."""
    rng = random.Random(f"{spec}-{players}-{seed}")
    s = replace(deal(resolve(spec), players, seed), ruleset_ref=RulesetRef(profile=spec))
    out = [s]
    for ply in range(1, plies + 1):
        if s.turn.phase is Phase.OVER:
            break
        actions, _ = legal_actions(s)
        melds = [a for a in actions if type(a).__name__ in ("MeldCards", "TakePile")]
        pick = rng.choice(melds if melds and rng.random() < 0.7 else actions)
        outcome = apply(s, pick)
        assert outcome.legal, outcome.violations
        s = outcome.snapshot
        if ply % 5 == 0:
            out.append(s)
    if out[-1] is not s:
        out.append(s)
    return out


def asked_and_passed() -> Snapshot:
    """Spanish: seat 0 asks "may I go out?", hears yes and discards: its side's penalties
    hold ASKED_AND_DID_NOT_GO_OUT."""
    snap = make_snapshot("spanish", 4, hands={0: "5C 6D 7H"}, melds={0: ["AH AS AD"]})
    for action in (AskGoOut(0), AnswerGoOut(2, True), Discard(0, "5C")):
        outcome = apply(snap, action)
        assert outcome.legal, outcome.violations
        snap = outcome.snapshot
    assert snap.sides[0].penalties
    return snap

"""The rules pinned as readable text: each profile's seeded deal, played now, is the one in
tests/playthroughs/ (docs/rules.md, "Playthroughs"). A failure shows the first lines that
differ; after a deliberate change of the rules, `make playthroughs` writes the files again
and their diff is reviewed with the code."""

from __future__ import annotations

import difflib

import pytest
from playthroughs import path_of, playthrough, said

from samba_adjudicator.engine.model import Addition, Discard, MeldCards
from samba_adjudicator.engine.ruleset import PROFILES


@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_seeded_deal_plays_as_recorded(profile):
    recorded = path_of(profile).read_text()
    played = playthrough(profile)
    if played != recorded:
        diff = difflib.unified_diff(
            recorded.splitlines(), played.splitlines(), "recorded", "played now", lineterm="", n=1
        )
        pytest.fail(
            "the deal plays differently (make playthroughs):\n" + "\n".join(list(diff)[:40])
        )


def test_a_playthrough_reaches_the_end_of_its_deal_and_its_score():
    text = path_of("classic").read_text()
    assert text.count("\nply ") > 20
    assert "\nover: Result(" in text and text.count("\nscore SideScore(") == 2


def test_actions_are_written_by_their_given_fields():
    assert said(Discard(1, "5S", expected_ply=3)) == "Discard(seat=1 card=5S)"
    meld = MeldCards(0, new_melds=(("5H", "5S", "5D"),), additions=(Addition("m1", ("KC",)),))
    assert said(meld) == (
        "MeldCards(seat=0 new_melds=[[5H 5S 5D]] additions=[Addition(meld_id=m1 cards=[KC])])"
    )

"""BASIC where only hand cards take the pile (docs/bots.md#basic): the rules of thumb chosen
by ``take_by_extending_meld`` and ``take_natural_pair``, never by the profile's name. Each
position is played both ways: the same cards under a ruleset where the rule does not apply
give the samba player's answer."""

from __future__ import annotations

import pytest
from builders import make_snapshot

from samba_adjudicator.engine.bots import Level, suggest
from samba_adjudicator.engine.bots.basic import pair_risk
from samba_adjudicator.engine.model import Discard, MeldCards
from samba_adjudicator.engine.ruleset import ExtendTake

#: An opened side with a hand that could lay three sevens onto nothing: a new meld.
HAND = "7H 7D 7C 9H 9S 5C 6D 8S JH QD"


def _position(profile: str, overrides: dict | None = None):
    return make_snapshot(
        profile,
        2,
        overrides=overrides,
        hands={0: HAND, 1: "4H 4D 5S 6S 8C 10C JC QC KC AH"},
        melds={0: ["KH KS KD"], 1: ["AS AD AC"]},
        discard="4S",
    )


@pytest.mark.parametrize("profile", ["canasta", "pagat"])
def test_basic_keeps_its_pairs_where_only_hand_cards_take_the_pile(profile):
    got = suggest(_position(profile), 0, Level.BASIC)
    # it keeps the sevens and nines in hand, to take the pile with a pair
    assert isinstance(got.action, Discard), got
    assert got.action.card not in ("7H", "7D", "7C", "9H", "9S")


def test_basic_melds_them_where_a_meld_on_the_table_takes_the_pile():
    """The same cards where the pile can be taken onto a meld (classic): it melds."""
    got = suggest(_position("classic"), 0, Level.BASIC)
    assert isinstance(got.action, MeldCards), got


def test_the_parameter_chooses_the_rule_not_the_profile():
    canasta_meld = {"take_by_extending_meld": ExtendTake.ANY_OWN_MELD}
    got = suggest(_position("canasta", canasta_meld), 0, Level.BASIC)
    assert isinstance(got.action, MeldCards), got


def test_basic_discards_the_rank_it_sees_most_of_where_a_pair_takes_the_pile():
    # Six of the eight fives are in sight (pile and melds): a pair of them is unlikely;
    # of the eights, none but its own. Both singletons of like value.
    s = make_snapshot(
        "canasta",
        2,
        hands={0: "5C 8S KH KS", 1: "4H 4D 6S 6H 10C JC QC"},
        melds={0: ["QH QS QD"], 1: ["5H 5D 5S 5H"]},
        discard="4S 5S 9D",
    )
    assert pair_risk(s, 0, "5C") < pair_risk(s, 0, "8S")
    got = suggest(s, 0, Level.BASIC)
    assert got.action == Discard(0, "5C"), got


def test_no_pair_risk_where_a_natural_pair_does_not_take_the_pile():
    s = make_snapshot(
        "canasta",
        2,
        overrides={"take_natural_pair": False},
        hands={0: "5C 8S KH KS", 1: "4H 4D 6S 6H 10C JC QC"},
        melds={0: ["QH QS QD"], 1: ["5H 5D 5S 5H"]},
        discard="4S 5S 9D",
    )
    assert pair_risk(s, 0, "8S") == 0.0

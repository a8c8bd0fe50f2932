"""STRONG's sampled worlds (engine.bots.worlds, docs/bots.md#strong): each hidden hand holds
the cards every seat knows it holds (``Seat.known``), and a world's cards are the pack's."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from builders import basic_positions, mover, zone_cards

from samba_adjudicator.engine.bots import worlds
from samba_adjudicator.engine.cards import pack_counts
from samba_adjudicator.engine.model import Phase, Snapshot
from samba_adjudicator.engine.view import player_view


def views_with_known(profile: str, players: int, seeds: int = 6) -> list[tuple[Snapshot, int]]:
    """(a seat's view, the seat) where another seat's hand is hidden and known in part."""
    found = []
    for i in range(seeds):
        for s in basic_positions(profile, players, f"known-{i}"):
            if s.turn.phase is Phase.OVER:
                continue
            seat = mover(s)
            if any(o.known for o in s.seats if o.seat != seat):
                found.append((player_view(s, seat), seat))
    return found


@pytest.mark.parametrize("profile,players", [("canasta", 2), ("classic", 4), ("pagat", 2)])
def test_every_sampled_world_gives_each_hidden_hand_its_known_cards(profile, players):
    views = views_with_known(profile, players)
    assert len(views) >= 10, "the deals should hold positions with known cards"
    rng = random.Random(7)
    for view, _ in views[:: max(1, len(views) // 20)]:
        pool = worlds.unseen(view)
        pack = pack_counts(view.ruleset.decks, view.ruleset.jokers)
        for _ in range(25):
            world = worlds.sample_world(view, pool, rng)
            assert zone_cards(world) == pack  # the pack's cards, each once
            assert world.stock_count == view.stock_count == len(world.stock)
            for hidden, dealt in zip(view.seats, world.seats, strict=True):
                assert dealt.hand_count == hidden.hand_count == len(dealt.hand)
                if hidden.hand_hidden:
                    missing = Counter(hidden.known) - Counter(dealt.hand)
                    assert not missing, (hidden.seat, hidden.known, dealt.hand)


def test_the_known_cards_are_not_also_dealt_at_random():
    """Without the known cards set aside, a world deals them anywhere: the check above is
    not met by chance (the same views, KNOWN_IN_WORLDS off, miss some known card)."""
    views = views_with_known("canasta", 2)
    rng = random.Random(7)
    missed = 0
    try:
        worlds.KNOWN_IN_WORLDS = False
        for view, _ in views[:20]:
            world = worlds.sample_world(view, worlds.unseen(view), rng)
            for hidden, dealt in zip(view.seats, world.seats, strict=True):
                if hidden.hand_hidden and Counter(hidden.known) - Counter(dealt.hand):
                    missed += 1
    finally:
        worlds.KNOWN_IN_WORLDS = True
    assert missed > 0


def test_a_known_card_the_view_does_not_leave_unseen_is_not_invented():
    """A hand-built view whose known card is visible elsewhere: the world keeps the pack's
    cards rather than a second copy."""
    view, seat = views_with_known("classic", 2)[0]
    other = next(o for o in view.seats if o.hand_hidden and o.known)
    card = other.known[0]
    copies = pack_counts(view.ruleset.decks, view.ruleset.jokers)[card]
    pool = [c for c in worlds.unseen(view) if c != card]  # every copy seen elsewhere
    world = worlds.filled(view, pool)
    assert Counter(world.seats[other.seat].hand)[card] == 0 < copies

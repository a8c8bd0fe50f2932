"""GetPlayerView (docs/api.md#methods): other hands and the stock hidden, counts kept."""

from __future__ import annotations

from dataclasses import replace

import pytest
from builders import make_snapshot

from samba_adjudicator.engine.consistency import check_snapshot
from samba_adjudicator.engine.dealing import deal
from samba_adjudicator.engine.model import InvalidInput
from samba_adjudicator.engine.ruleset import resolve
from samba_adjudicator.engine.view import player_view


def dealt():
    return replace(deal(resolve("classic"), 4, "view"), signature="v1.k.sig")


def test_seat_sees_own_hand_only():
    snap = dealt()
    view = player_view(snap, 2)
    assert view.seats[2] == snap.seats[2]
    for i in (0, 1, 3):
        seat = view.seats[i]
        assert seat.hand == () and seat.dealt == ()
        assert seat.hand_count == snap.seats[i].hand_count == 15
        assert seat.hand_hidden
    assert view.stock == () and view.stock_count == snap.stock_count and view.stock_hidden
    assert view.signature == ""
    assert view.is_view


def test_public_parts_kept():
    snap = dealt()
    view = player_view(snap, 0)
    assert view.sides == snap.sides
    assert view.discard_pile == snap.discard_pile
    assert view.turn == snap.turn and view.ply == snap.ply
    assert view.deal_number == snap.deal_number and view.dealer == snap.dealer


def test_spectator_sees_no_hand():
    view = player_view(dealt(), None)
    assert all(s.hand == () and s.hand_hidden for s in view.seats)


def test_another_seats_empty_hand_is_hidden_the_viewers_is_not():
    """docs/api.md#what-a-view-hides: a seat that holds no card (one that went out) is
    hidden in every other seat's view all the same: the view says so (``handHidden``),
    since its emptied ``dealt`` is hidden, not a claim that it was dealt nothing. The
    viewer's own empty hand is shown."""
    snap = make_snapshot(hands={0: "5H 5S", 1: ""})
    view = player_view(snap, 0)
    assert view.seats[1].hand_count == 0 and view.seats[1].hand_hidden and view.is_view
    own = player_view(snap, 1)
    assert own.seats[1].hand == () and not own.seats[1].hand_hidden
    assert player_view(view, 0) == view


def test_view_is_consistent_and_idempotent():
    view = player_view(dealt(), 1)
    assert check_snapshot(view) == []
    assert player_view(view, 1) == view


def test_view_does_not_mutate_input():
    snap = dealt()
    before = repr(snap)
    player_view(snap, 3)
    assert repr(snap) == before


@pytest.mark.parametrize("seat", [-1, 4, 99, True])
def test_invalid_seat(seat):
    with pytest.raises(InvalidInput) as e:
        player_view(dealt(), seat)
    assert [(p.field, p.reason) for p in e.value.problems] == [("seat", "OUT_OF_RANGE")]


def test_legal_actions_of_a_hidden_hand_need_that_hand():
    """docs/api.md#methods: a request whose answer depends on a hidden card is an invalid
    argument HIDDEN_INFORMATION_REQUIRED naming the field it needs; the viewer's own
    actions are listed from its view."""
    import pytest

    from samba_adjudicator.engine import deal, legal_actions, resolve
    from samba_adjudicator.engine.model import InvalidInput
    from samba_adjudicator.engine.view import player_view

    s = deal(resolve("classic"), 4, "hidden-list")
    to_move = s.turn.seat
    own, _ = legal_actions(player_view(s, to_move))
    assert own == legal_actions(s)[0]
    other = (to_move + 1) % 4
    with pytest.raises(InvalidInput) as err:
        legal_actions(player_view(s, other))
    assert err.value.kind == "HIDDEN_INFORMATION_REQUIRED"
    assert err.value.problems[0].field == f"snapshot.seats[{to_move}].hand"
    assert legal_actions(player_view(s, other), seat=other)[0] == []


def test_a_suggestion_for_a_hidden_hand_is_refused_as_its_legal_actions_are():
    """Issue 47, item 6: SuggestAction on another seat's view answered for the seat to
    play from a hand it could not see (illegal on the real position 26 times in 36). It is
    refused as ListLegalActions and ValidateAction refuse it: one check, one problem."""
    import pytest

    from samba_adjudicator.engine import apply, deal, legal_actions, resolve, validate
    from samba_adjudicator.engine.bots import Level, suggest
    from samba_adjudicator.engine.model import Discard, DrawStock, InvalidInput
    from samba_adjudicator.engine.view import player_view

    dealt = deal(resolve("classic"), 4, "hidden-suggestion")
    to_move = dealt.turn.seat
    s = apply(dealt, DrawStock(to_move)).snapshot  # play: a discard reaches the hand
    view = player_view(s, (to_move + 1) % 4)
    refusals = []
    for ask in (
        lambda: suggest(view, to_move, Level.BASIC),
        lambda: legal_actions(view),
        lambda: validate(view, Discard(to_move, s.seats[to_move].hand[0])),
    ):
        with pytest.raises(InvalidInput) as err:
            ask()
        refusals.append((err.value.kind, err.value.problems))
    assert refusals[0][0] == "HIDDEN_INFORMATION_REQUIRED"
    assert refusals[0][1][0].field == f"snapshot.seats[{to_move}].hand"
    assert refusals[0] == refusals[1] == refusals[2]
    assert suggest(player_view(s, to_move), to_move, Level.BASIC) == suggest(
        s, to_move, Level.BASIC
    )

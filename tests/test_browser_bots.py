"""The playground's computer players and hint button (docs/api.md#playground) in a real
browser, against a real server (fixtures of tests/test_browser.py)."""

from __future__ import annotations

import pytest
from service_fixtures import server  # noqa: F401
from test_browser import TURN_IS, _same_origin, _shot, _turn, browser, page  # noqa: F401

pytestmark = [pytest.mark.servers, pytest.mark.tools]


def test_computer_players_take_their_turns_and_the_hint_explains(page, server):  # noqa: F811
    page.goto(server.base_url + "/playground")
    page.select_option("#profile", "classic")
    page.select_option("#players", "4")
    page.fill("#seed", "browser-bots-1")
    page.click("#deal")
    page.wait_for_selector("#actions li button")
    assert _turn(page) == (1, "DRAW")
    for seat in ("0", "2", "3"):
        page.select_option(f"#bot-{seat}", "BASIC")

    # a hint for the seat to move (seat 1, a human): an action and its reason
    page.click("#hint")
    page.wait_for_function("document.querySelector('#hint-text').innerText.length > 0")
    assert "draw" in page.inner_text("#hint-text").lower() or "take" in page.inner_text(
        "#hint-text"
    )
    # viewing as another seat: no hint for a seat that is not to act
    page.select_option("#viewer", "2")
    page.click("#hint")
    page.wait_for_function("document.querySelector('#hint-text').innerText.includes('not this')")
    page.select_option("#viewer", "full")

    # seat 1 plays by hand: draw, then discard; seats 2, 3 and 0 then play by themselves
    page.locator("#actions li button").first.click()
    page.wait_for_function(TURN_IS, arg=[1, "PLAY"])
    page.locator("#actions li button", has_text="discard").first.click()
    page.wait_for_function(
        "document.querySelector('#turn').dataset.seat === '1'"
        " && Number(document.querySelector('#turn').dataset.ply) > 2",
        timeout=60_000,
    )
    ply = int(page.eval_on_selector("#turn", "t => t.dataset.ply"))
    assert ply >= 8, "three computer players drew and discarded"
    _shot(page, "playground-computer-players")
    _same_origin(page, server.base_url)


def _wait_for_my_turn_or_the_end(pg, seat: int) -> str:
    """Waits until the page awaits `seat` (a person) or the deal is over; returns the phase."""
    pg.wait_for_function(
        """seat => { const t = document.querySelector('#turn');
                     return t.dataset.phase === 'OVER'
                       || (t.dataset.awaiting === String(seat)
                           && document.querySelector('#actions li button') !== null)
                       || !document.querySelector('#error').hidden; }""",
        arg=seat,
        timeout=120_000,
    )
    assert page_error(pg) == "", page_error(pg)
    return pg.eval_on_selector("#turn", "t => t.dataset.phase")


def page_error(pg) -> str:
    return pg.eval_on_selector("#error", "e => e.hidden ? '' : e.innerText")


def test_a_person_plays_a_whole_deal_from_their_own_seats_view(page, server):  # noqa: F811
    """Issue 47 item 11: viewing as one seat (or a spectator) does not stop the computers or
    the list of actions: they run on the full position the page keeps, while the table
    shows the chosen view. Seat 1 plays a whole deal from its own view (draw, then the
    first discard the list offers) against three BASIC computers whose hands stay face
    down."""
    page.goto(server.base_url + "/playground")
    page.select_option("#profile", "classic")
    page.select_option("#players", "4")
    page.fill("#seed", "browser-own-view-1")
    page.click("#deal")
    page.wait_for_selector("#actions li button")
    page.select_option("#viewer", "1")
    page.wait_for_function("document.querySelectorAll('.seat .card.back').length > 0")
    for seat in ("0", "2", "3"):
        page.select_option(f"#bot-{seat}", "BASIC")
    moves = 0
    while _wait_for_my_turn_or_the_end(page, 1) != "OVER":
        # the computers' hands are face down, seat 1's own face up
        for other in (0, 2, 3):
            assert page.locator(f".seat[data-seat='{other}'] .card[data-card]").count() == 0
        assert page.locator(".seat[data-seat='1'] .card.back").count() == 0
        # every action listed is seat 1's
        listed = page.locator("#actions li button").all_inner_texts()
        assert all(text.startswith("seat 1") for text in listed), listed
        discard = page.locator("#actions li button", has_text="discard")
        button = discard.first if discard.count() else page.locator("#actions li button").first
        ply = page.eval_on_selector("#turn", "t => t.dataset.ply")
        button.click()
        page.wait_for_function(
            "ply => document.querySelector('#turn').dataset.ply !== ply"
            " || !document.querySelector('#error').hidden",
            arg=ply,
        )
        moves += 1
        if moves == 3:  # a spectator's view meanwhile: play goes on, nothing listed
            page.select_option("#viewer", "spectator")
            page.wait_for_function("document.querySelector('#actions li button') === null")
            assert page_error(page) == ""
            page.select_option("#viewer", "1")
    assert page_error(page) == ""
    assert moves >= 4
    assert page.locator("#log li[data-by=computer]").count() >= 6
    _shot(page, "own-seat-view-deal-over")
    _same_origin(page, server.base_url)

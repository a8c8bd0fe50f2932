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

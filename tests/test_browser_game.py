"""The playground as a game (issue 59, docs/api.md#playground) in a real browser against a real
server (fixtures of tests/test_browser.py): every visit deals a fresh hand, a reload keeps the
game, and the whole turn fits one screen on a phone held upright or sideways. Screenshots land
in test-output/browser/."""

from __future__ import annotations

import json

import pytest
from service_fixtures import server  # noqa: F401
from test_browser import _same_origin, _shot, browser  # noqa: F401
from test_browser_play import MY_TURN_OR_OVER, READY, _error, _serious_axe_violations

pytestmark = [pytest.mark.servers, pytest.mark.tools]

PHONE = {"width": 360, "height": 740}
RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def _phone(browser, viewport=PHONE):  # noqa: F811
    context = browser.new_context(viewport=viewport, has_touch=True, is_mobile=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.requests_seen, pg.console_errors = [], []
    pg.on("request", lambda r: pg.requests_seen.append(r.url))
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    return context, pg


def _my_turn(pg, ply: str = "-1") -> None:
    me = pg.input_value("#me")
    pg.wait_for_function(MY_TURN_OR_OVER, arg=[me, ply], timeout=120_000)
    assert _error(pg) == ""


def _opened(pg, base: str) -> dict:
    pg.goto(base + "/playground")
    pg.wait_for_function(f"document.querySelector('#me').value !== '' && {READY}")
    _my_turn(pg)
    return {
        "seed": pg.input_value("#seed"),
        "hand": pg.eval_on_selector_all("#my-hand button", "bs => bs.map(b => b.dataset.card)"),
        "ply": pg.eval_on_selector("#turn", "t => t.dataset.ply"),
    }


def test_every_visit_deals_a_fresh_hand_and_a_reload_keeps_the_game(browser, server):  # noqa: F811
    first, pg = _phone(browser)
    second, other = _phone(browser)
    try:
        a = _opened(pg, server.base_url)
        b = _opened(other, server.base_url)
        # two visits, two seeds (each shown in Settings, to deal the same cards again)
        assert a["seed"] and b["seed"] and a["seed"] != b["seed"]
        assert a["hand"] != b["hand"]
        # a move, then a reload: the same position, your seat, the computers, the seed
        pg.locator("#moves button[data-move='drawStock']").tap()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase === 'PLAY'")
        pg.wait_for_function(READY)
        before = pg.evaluate("() => state.snapshot")
        pg.reload()
        pg.wait_for_function(f"document.querySelector('#log li[data-kind]') !== null && {READY}")
        assert pg.evaluate("() => state.snapshot") == before
        assert pg.eval_on_selector("#log li[data-kind]", "l => l.dataset.kind") == "resumed"
        assert pg.input_value("#me") == "1" and pg.input_value("#seed") == a["seed"]
        assert [pg.input_value(f"#bot-{s}") for s in range(4)] == [
            "BASIC",
            "human",
            "BASIC",
            "BASIC",
        ]
        assert pg.eval_on_selector("#turn", "t => t.dataset.phase") == "PLAY"
        assert pg.locator("#moves p.muted").count() == 1  # your turn goes on: tap cards
        # a seed typed deals that deal; the next Deal a fresh one again
        pg.locator("#settings > summary").tap()
        pg.fill("#seed", "typed-seed-1")
        pg.locator("#deal").tap()
        pg.wait_for_function("document.querySelector('#log li[data-kind=deal]') !== null")
        assert pg.input_value("#seed") == "typed-seed-1"
        _my_turn(pg)
        pg.locator("#deal").tap()
        pg.wait_for_function("document.querySelector('#seed').value !== 'typed-seed-1'")
        _my_turn(pg)
        assert pg.input_value("#seed") not in ("", "typed-seed-1", a["seed"])
        _same_origin(pg, server.base_url)
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("viewport", [{"width": 740, "height": 360}, {"width": 390, "height": 844}])
def test_the_turn_fits_one_screen_upright_and_sideways(browser, server, viewport):  # noqa: F811
    """Issue 59 items 8 and 9: the pile, what the others did, your melds, your hand and your
    moves in the first screen, a phone held sideways included; the Draw button in view at
    load."""
    context, pg = _phone(browser, viewport)
    try:
        _opened(pg, server.base_url)
        bottom = pg.eval_on_selector(
            "#moves [data-move='drawStock']", "b => b.getBoundingClientRect().bottom"
        )
        assert bottom <= viewport["height"], bottom
        pg.locator("#moves button[data-move='drawStock']").tap()
        pg.wait_for_function("document.querySelector('#turn').dataset.phase === 'PLAY'")
        pg.wait_for_function(READY)
        bottoms = {
            sel: pg.eval_on_selector(sel, "e => e.getBoundingClientRect().bottom + scrollY")
            for sel in ("#pile", "#recent", "#my-melds", "#my-hand", "#moves")
        }
        assert all(v <= viewport["height"] for v in bottoms.values()), bottoms
        widths = pg.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert widths[0] <= widths[1], widths
        assert _serious_axe_violations(pg) == []
        _shot(pg, f"game-{viewport['width']}x{viewport['height']}")
        _same_origin(pg, server.base_url)
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [PHONE, {"width": 740, "height": 360}])
def test_a_turn_of_24_cards_and_six_melds_fits_a_phone(browser, server, viewport):  # noqa: F811
    """Issue 59 item 8: the whole turn (the pile, your side's melds, 24 cards in hand, your
    moves) within one 360 x 740 screen, at six players (the longest pile line), the melds
    named by their cards and your hand fanned by rank."""
    from builders import make_snapshot

    from samba_adjudicator.service.codec import convert, jsonio

    snap = make_snapshot(
        "classic",
        6,
        hands={1: "3C 4H 4S 5D 6C 6H 7S 8D 9C 9H 10S 10D JC QH QS KD AC AH 2C 2D JK 5S 7H 8C"},
        melds={
            1: [
                "KH KS KC KH KS KC KD",
                "QD QC QD 2S",
                "JH JS JD",
                "10H 10C 10H",
                "AS AD AS",
                "5H 6H 7H 8H",
            ]
        },
        has_melded=(1,),
        discard="6D 9S",
        turn_seat=1,
    )
    context, pg = _phone(browser, viewport)
    try:
        _opened(pg, server.base_url)
        pg.locator("#settings > summary").tap()
        pg.locator("#dev").tap()  # the snapshot panel is a developer tool
        pg.locator("#snapshot-fold > summary").tap()
        pg.fill("#snapshot-json", json.dumps(jsonio.to_dict(convert.snapshot_to_proto(snap))))
        pg.locator("#inspect").tap()
        pg.wait_for_selector("#log li[data-kind='inspect']", state="attached")
        pg.locator("#dev").tap()
        pg.locator("#settings > summary").tap()
        _my_turn(pg)
        pg.evaluate("scrollTo(0, 0)")
        hand = pg.eval_on_selector_all("#my-hand button", "bs => bs.map(b => b.dataset.card)")
        assert len(hand) == 24
        wild = [c == "JK" or c[:-1] == "2" for c in hand]
        ranks = [99 if w else RANKS.index(c[:-1]) for c, w in zip(hand, wild, strict=True)]
        assert wild == sorted(wild) and ranks[: wild.index(True)] == sorted(
            ranks[: wild.index(True)]
        )
        names = pg.eval_on_selector_all("#my-melds .meld-name", "ns => ns.map(n => n.innerText)")
        assert names == ["Ks", "Qs", "Js", "10s", "As", "5♥-8♥"]
        bottoms = {
            sel: pg.eval_on_selector(sel, "e => e.getBoundingClientRect().bottom + scrollY")
            for sel in ("#pile", "#my-melds", "#my-hand", "#moves")
        }
        assert all(v <= viewport["height"] for v in bottoms.values()), bottoms
        # "10" whole in the fans: no card over it (the hand's and the melds' on the table)
        clipped = pg.evaluate(
            """() => [...document.querySelectorAll(
                        '#my-hand [data-card^="10"], .fan [data-card^="10"]')]
               .filter(c => c.nextElementSibling)
               .filter(c => c.querySelector('.rank').getBoundingClientRect().right
                            > c.nextElementSibling.getBoundingClientRect().left + 0.5)
               .map(c => c.dataset.card)"""
        )
        assert clipped == [], clipped
        assert _serious_axe_violations(pg) == []
        _shot(pg, f"game-24-cards-{viewport['width']}x{viewport['height']}")
        assert pg.console_errors == []
    finally:
        context.close()
